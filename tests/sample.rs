//! The shipped sample memory (`fixtures/sample`), compacted by the real binary.

use crate::common;

use common::Project;

const TODAY: &str = "2027-01-21";

#[test]
fn sample_compacts_cleanly_and_redacts_secrets() {
    let p = Project::sample();
    let (code, out, err) = p.compact(TODAY);
    assert_eq!(code, 0, "{out}{err}");
    let secrets = [
        "AKIAIOSFODNN7EXAMPLE",
        "hunter2secret",
        "sk_live_4eC39HqLyjWDarjtT1zdp7dc",
        "xoxb-2048",
        "AbC123dEf456GhI789",
    ];
    for (path, bytes) in p.snapshot() {
        let text = String::from_utf8_lossy(&bytes);
        let is_raw = path.starts_with("memory")
            && path.components().count() == 2
            && path.to_string_lossy() != "memory/ROOT.md";
        for s in secrets {
            assert!(is_raw || !text.contains(s), "{} leaks {s}", path.display());
        }
    }
    assert!(
        p.read("memory/2026-12-22.md")
            .contains("AKIAIOSFODNN7EXAMPLE"),
        "raw logs are never modified"
    );
    assert!(
        p.read("memory/daily/2026-12-22.md")
            .contains("postgres://app:[REDACTED]@db.internal:5432/app")
    );
}

#[test]
fn sample_tree_shape() {
    let p = Project::sample();
    p.compact(TODAY);
    // 2026-W53 (Dec 28 .. Jan 3) feeds both months.
    for m in ["memory/monthly/2026-12.md", "memory/monthly/2027-01.md"] {
        assert!(p.read(m).contains("- memory/weekly/2026-W53.md"), "{m}");
    }
    let long = p.read("memory/daily/2027-01-12.md");
    assert!(
        long.contains("status: needs-summarization") && long.contains("source-lines: 227"),
        "{long}"
    );
    let w02 = p.read("memory/weekly/2027-W02.md");
    assert!(
        w02.contains("pending:\n- memory/daily/2027-01-12.md"),
        "{w02}"
    );
    assert!(
        p.read("memory/daily/2026-12-17.md")
            .contains("- 배포-일정-회의 [project]")
    );
    let state: serde_json::Value =
        serde_json::from_str(&p.read("memory/.compaction-state.json")).unwrap();
    assert_eq!(state["checkpointsSinceLastCompaction"], 0);
}

#[test]
fn sample_root_snapshot() {
    let p = Project::sample();
    p.compact(TODAY);
    insta::assert_snapshot!(p.read("memory/ROOT.md"));
}

#[test]
fn sample_status_json() {
    let p = Project::sample();
    let out = p
        .hipo()
        .args(["status", "--json", "--today", TODAY])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["triggers"]["checkpoints_since_last_compaction"], 2);
    assert!(v["out_of_date"].as_array().unwrap().len() >= 26);
    p.compact(TODAY);
    let out = p
        .hipo()
        .args(["status", "--json", "--today", TODAY])
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["out_of_date"].as_array().unwrap().len(), 0);
    p.append("memory/2027-01-08.md", "\n## Late note [project]\n- x\n");
    let out = p
        .hipo()
        .args(["status", "--json", "--today", TODAY])
        .output()
        .unwrap();
    let late: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        late["changed_files"],
        serde_json::json!(["memory/2027-01-08.md"])
    );
    assert_eq!(v["levels"]["daily"]["needs_summarization"], 1);
    assert_eq!(v["backlog"][0]["path"], "memory/daily/2027-01-12.md");
    assert_eq!(v["backlog"][0]["source_lines"], 227);
}
