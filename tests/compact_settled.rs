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

/// A copy of `p` that plans in full: a file beside the tree is a change
/// no settled record covers, and one that no node is built from.
fn planned_in_full(p: &Project) -> Project {
    let copy = Project {
        dir: tempfile::tempdir().unwrap(),
    };
    copy_dir(p.path(), copy.path());
    copy.write("knowledge/aside.md", "# Aside\n");
    copy
}

#[test]
fn an_unchanged_tree_is_answered_from_the_settled_record() {
    let p = Project::compacted_sample();
    // The same tree planned in full: a file beside the tree is a change
    // no record covers, and one that no node is built from.
    let planned_copy = planned_in_full(&p);
    let (planned, settled) = compact_timed(&planned_copy, SAMPLE_TODAY);
    assert!(!settled, "a change must be planned");
    assert!(planned["actions"].as_array().unwrap().is_empty());
    assert_eq!(planned["exit"], 0);
    // The build was clean, so it left the record: the first no-op after
    // it is answered, as is every one after.
    let before = p.snapshot();
    for _ in 0..2 {
        let (answered, settled) = compact_timed(&p, SAMPLE_TODAY);
        assert!(settled, "a no-op is answered from the record");
        assert_eq!(answered, planned, "the same report, node for node");
    }
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

        // A file beside the tree: `fresh` plans in full, not from a record.
        fresh.write("knowledge/aside.md", "# Aside\n");
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
        assert_eq!(memory(&settled), memory(&fresh), "{what}: the same tree");
    }
}

/// `hipo --json compact` and whether it planned only what changed.
fn compact_planned(p: &Project, today: &str) -> (serde_json::Value, bool) {
    let out = p
        .hipo()
        .env("HIPO_TIMINGS", "1")
        .args(["--json", "compact", "--today", today])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    let report = serde_json::from_slice(&out.stdout).unwrap();
    (report, err.contains("compact: incremental plan"))
}

/// The tree's Markdown under `memory/`, as bytes by path.
fn memory(p: &Project) -> Vec<(std::path::PathBuf, Vec<u8>)> {
    let mut files = p.snapshot();
    files.retain(|(path, _)| {
        let path = path.to_string_lossy();
        path.starts_with("memory/") && !path.ends_with(".compaction-state.json")
    });
    files
}

#[test]
fn a_run_after_a_clean_one_plans_only_what_changed_and_reaches_every_ancestor() {
    // 2026-03-30 is a Monday: that week runs from March into April, so a
    // change to its March days reaches two months.
    let today = "2026-04-20";
    let p = Project::empty();
    for day in 23..=31 {
        p.write(
            &format!("memory/2026-03-{day}.md"),
            format!("# 2026-03-{day}\n\n## Work {day} [project]\n- step {day}\n"),
        );
    }
    for day in 1..=4 {
        p.write(
            &format!("memory/2026-04-0{day}.md"),
            format!("# 2026-04-0{day}\n\n## Work {day} [project]\n- april step {day}\n"),
        );
    }
    let (_, partial) = compact_planned(&p, today);
    assert!(!partial, "a first run plans in full");
    // A clean run leaves the record: an append is planned from it.
    let full = planned_in_full(&p);
    let april = "memory/monthly/2026-04.md";
    let april_before = p.read(april);
    for q in [&p, &full] {
        q.append(
            "memory/2026-03-31.md",
            "\n## Late change [project]\n- the wombat moved\n",
        );
    }
    let (got, partial) = compact_planned(&p, today);
    let (want, full_plan) = compact_planned(&full, today);
    assert!(partial, "planned from the record");
    assert!(!full_plan, "a change beside the tree plans in full");
    assert_eq!(got, want, "the same report as a full plan");
    assert_eq!(memory(&p), memory(&full), "the same tree as a full plan");
    assert!(p.read(april) != april_before && p.read(april).contains("wombat"));
    // The tree a partial run leaves is settled: a no-op is answered, and
    // the next change is planned from the record again.
    let (noop, answered) = compact_timed(&p, today);
    assert!(answered, "{noop}");
    assert!(noop["actions"].as_array().unwrap().is_empty());
    p.append("memory/2026-04-04.md", "\n## More [project]\n- again\n");
    full.append("memory/2026-04-04.md", "\n## More [project]\n- again\n");
    full.write("knowledge/aside.md", "# Aside, changed\n");
    let (got, partial) = compact_planned(&p, today);
    let (want, _) = compact_planned(&full, today);
    assert!(partial);
    assert_eq!(got, want);
    assert_eq!(memory(&p), memory(&full));
}

#[test]
fn a_settled_record_lost_to_a_kill_costs_a_full_plan_and_nothing_else() {
    // The settled record is committed without a sync (the store's close
    // syncs it): a kill between the two loses it. Here the kill lands at
    // the next write after it, `.compaction-state.json`, the run's last.
    let today = "2026-04-20";
    let p = Project::empty();
    for day in 1..=9 {
        p.write(
            &format!("memory/2026-04-0{day}.md"),
            format!("# 2026-04-0{day}\n\n## Work {day} [project]\n- step {day}\n"),
        );
    }
    let (_, partial) = compact_planned(&p, today);
    assert!(!partial, "a first run plans in full");
    let clean = Project {
        dir: tempfile::tempdir().unwrap(),
    };
    copy_dir(p.path(), clean.path());
    for q in [&p, &clean] {
        q.append("memory/2026-04-09.md", "\n## Late [project]\n- the otter\n");
    }
    // Which write is the state file's, counted by a traced run on a copy.
    let traced = Project {
        dir: tempfile::tempdir().unwrap(),
    };
    copy_dir(p.path(), traced.path());
    let out = traced
        .hipo()
        .env("HIPO_FAILPOINT", "trace")
        .args(["compact", "--today", today])
        .output()
        .unwrap();
    let trace = String::from_utf8_lossy(&out.stderr);
    let writes: Vec<&str> = trace
        .lines()
        .filter(|l| l.starts_with("hipo: failpoint write_atomic #"))
        .collect();
    let last = writes.last().expect("the run writes files");
    assert!(last.contains(".compaction-state.json"), "{trace}");
    let commits = trace.matches("failpoint store.commit #").count();
    assert!(commits >= 2, "the run's commit, then the record's: {trace}");
    let killed = p
        .hipo()
        .env(
            "HIPO_FAILPOINT",
            format!("write_atomic:{}:abort", writes.len()),
        )
        .args(["compact", "--today", today])
        .output()
        .unwrap();
    assert!(!killed.status.success(), "the failpoint fired");
    assert!(
        String::from_utf8_lossy(&killed.stderr).contains("abort before"),
        "{}",
        String::from_utf8_lossy(&killed.stderr)
    );
    // redb rolls an unsynced commit back when it reopens a store a kill
    // left open: the record is lost, and the next run plans in full, to
    // the tree a clean run leaves; the one after is answered.
    let (got, partial) = compact_planned(&p, today);
    assert!(!partial, "the record was lost with the kill");
    let (want, _) = compact_planned(&clean, today);
    assert_eq!(got["nodes"], want["nodes"]);
    assert_eq!(memory(&p), memory(&clean), "the same tree as a clean run");
    let (_, answered) = compact_timed(&p, today);
    assert!(answered, "the run after the kill settled the tree");
    // A later append is planned from that record, to the same tree.
    for q in [&p, &clean] {
        q.append(
            "memory/2026-04-08.md",
            "\n## Again [project]\n- the heron\n",
        );
    }
    let (_, partial) = compact_planned(&p, today);
    compact_planned(&clean, today);
    assert!(
        partial,
        "planned from the record the run after the kill left"
    );
    assert_eq!(memory(&p), memory(&clean));
}

#[test]
fn an_incremental_root_over_months_and_a_year_is_the_full_plans_root() {
    // ROOT reads every node's topics: an incremental run reads the ones
    // it did not plan from their records, in one pass in path order. Three
    // months across a new year (2026-W01 starts on 2025-12-29), each day
    // with its own topic, so ROOT counts them all.
    let today = "2026-02-20";
    let p = Project::empty();
    let start = chrono::NaiveDate::from_ymd_opt(2025, 11, 20).unwrap();
    for i in 0..85 {
        let day = start + chrono::Duration::days(i);
        p.write(
            &format!("memory/{day}.md"),
            format!("# {day}\n\n## Topic {i} [project]\n- step {i}\n"),
        );
    }
    let (_, partial) = compact_planned(&p, today);
    assert!(!partial, "a first run plans in full");
    let full = planned_in_full(&p);
    for q in [&p, &full] {
        q.append(
            "memory/2026-01-01.md",
            "\n## New year [user]\n- likes the otter\n",
        );
    }
    let (got, partial) = compact_planned(&p, today);
    let (want, full_plan) = compact_planned(&full, today);
    assert!(partial && !full_plan);
    assert_eq!(got, want, "the same report");
    let root = p.read("memory/ROOT.md");
    assert_eq!(root, full.read("memory/ROOT.md"), "the same ROOT");
    assert!(root.contains("new-year [user"), "{root}");
    // Every day's topic, as one series.
    assert!(
        root.contains("- topic-0–84 [project, 8d]: 85 topics"),
        "{root}"
    );
    assert_eq!(memory(&p), memory(&full), "the same tree");
}
