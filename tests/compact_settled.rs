//! A tree that has not moved since a compaction found nothing to do is
//! answered from the record that run left (`compact::settled`), and any
//! change made after it is compacted exactly as the same change made on
//! a tree that never settled: through the real binary.

use crate::common;

use common::{Project, SAMPLE_TODAY, copy_dir};
use std::time::{Duration, SystemTime};

/// `hipo --json compact` with timings on: the report (with the exit code
/// as `"exit"`), and whether the run was answered from the settled record.
fn compact_timed(p: &Project, today: &str) -> (serde_json::Value, bool) {
    let out = p
        .hipo()
        .env("HIPO_TIMINGS", "1")
        .args(["--json", "compact", "--today", today])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    let settled = err.contains("compact: settled check") && !err.contains("scan: compare");
    let mut report: serde_json::Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}{err}", String::from_utf8_lossy(&out.stdout)));
    report["exit"] = out.status.code().into();
    (report, settled)
}

#[test]
fn an_unchanged_tree_is_answered_from_the_settled_record() {
    let p = Project::compacted_sample();
    let (planned, settled) = compact_timed(&p, SAMPLE_TODAY);
    assert!(!settled, "the first no-op must plan in full");
    assert!(planned["actions"].as_array().unwrap().is_empty());
    assert_eq!(planned["exit"], 0);
    let before = p.snapshot();
    let (answered, settled) = compact_timed(&p, SAMPLE_TODAY);
    assert!(settled, "the second no-op is answered from the record");
    assert_eq!(answered, planned, "the same report, node for node");
    assert_eq!(p.snapshot(), before);
    // Another day is another key: ROOT's ages move, so it plans again.
    let (_, settled) = compact_timed(&p, "2027-01-22");
    assert!(!settled);
}

/// A change made to a tree, in the same words.
type Change = fn(&Project);

fn changes() -> Vec<(&'static str, Change)> {
    vec![
        ("a same-size edit of an old log, its mtime put back", |p| {
            let rel = "memory/2026-12-15.md";
            let path = p.path().join(rel);
            let mtime = std::fs::metadata(&path).unwrap().modified().unwrap();
            let text = p.read(rel);
            let at = text.rfind('e').unwrap();
            let mut bytes = text.into_bytes();
            bytes[at] = b'a';
            std::fs::write(&path, bytes).unwrap();
            let f = std::fs::File::options().write(true).open(&path).unwrap();
            f.set_modified(mtime).unwrap();
        }),
        ("a daily node deleted", |p| {
            std::fs::remove_file(p.path().join("memory/daily/2026-12-17.md")).unwrap();
        }),
        ("a raw log for a past day", |p| {
            p.write(
                "memory/2026-12-16.md",
                "# 2026-12-16\n\n## Late notes [project]\n- found later\n",
            );
        }),
        ("a log that is not UTF-8", |p| {
            p.write("memory/2026-12-19.md", b"# 2026-12-19\n\xff\xfe broken\n");
        }),
        ("a temp file a killed run left", |p| {
            p.write("memory/weekly/.hipo-tmp-Zz9", "half");
        }),
        ("a lower daily threshold", |p| {
            let config = p.read("hipocampus.config.json");
            let lower = config.replace("\"dailyThreshold\": 200", "\"dailyThreshold\": 5");
            assert_ne!(config, lower);
            p.write("hipocampus.config.json", lower);
        }),
        ("a weekly node edited by hand, long after", |p| {
            let rel = "memory/weekly/2026-W51.md";
            let path = p.path().join(rel);
            p.write(rel, p.read(rel) + "\nA line the person added.\n");
            let old = SystemTime::now() - Duration::from_secs(86_400 * 30);
            let f = std::fs::File::options().write(true).open(&path).unwrap();
            f.set_modified(old).unwrap();
        }),
    ]
}

#[test]
fn a_change_after_the_tree_settled_is_compacted_as_on_one_that_never_did() {
    for (what, change) in changes() {
        // Both built alike; only `settled` finds nothing to do twice.
        let settled = Project::compacted_sample();
        let fresh = Project {
            dir: tempfile::tempdir().unwrap(),
        };
        copy_dir(settled.path(), fresh.path());
        compact_timed(&settled, SAMPLE_TODAY);
        let (_, answered) = compact_timed(&settled, SAMPLE_TODAY);
        assert!(answered, "{what}: the tree had settled");

        change(&settled);
        change(&fresh);
        let (got, answered) = compact_timed(&settled, SAMPLE_TODAY);
        let (want, _) = compact_timed(&fresh, SAMPLE_TODAY);
        assert!(!answered, "{what}: the change must be planned");
        assert_eq!(got, want, "{what}: the same report");
        let did =
            got["actions"].as_array().unwrap().len() + got["problems"].as_array().unwrap().len();
        let temp_left = settled.exists("memory/weekly/.hipo-tmp-Zz9");
        assert!(
            did > 0 || (what.contains("temp") && !temp_left),
            "{what}: the change was meant to matter: {got}"
        );
        let memory = |p: &Project| {
            let mut files = p.snapshot();
            files.retain(|(path, _)| !path.ends_with(".compaction-state.json"));
            files
        };
        assert_eq!(memory(&settled), memory(&fresh), "{what}: the same tree");
    }
}
