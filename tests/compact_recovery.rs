//! A compaction cut short, and what it leaves in its cache: through the
//! real binary.

use crate::common;

use common::{Project, raw_log};

#[test]
fn killed_run_converges_to_a_clean_run() {
    // A run killed at an arbitrary point leaves every file old or new, and
    // the next run converges to what a clean run from scratch writes.
    let build = || {
        let p = Project::empty();
        for day in 1..=28 {
            let date = format!("2026-02-{day:02}");
            let filler = if day % 3 == 0 { 260 } else { 40 };
            p.write(
                &format!("memory/{date}.md"),
                raw_log(&date, &[("Work log [project]", "- steady")], filler),
            );
        }
        p
    };
    let clean = build();
    clean.compact("2026-03-20");
    for delay_ms in [1u64, 5, 15, 40] {
        let p = build();
        let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("hipo"))
            .arg("--dir")
            .arg(p.path())
            .args(["compact", "--today", "2026-03-20"])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(std::time::Duration::from_millis(delay_ms));
        let _ = child.kill();
        let _ = child.wait();
        let (code, out, err) = p.compact("2026-03-20");
        assert_eq!(code, 0, "{out}{err}");
        assert_eq!(
            clean.snapshot(),
            p.snapshot(),
            "after a kill at {delay_ms} ms"
        );
    }
}

#[test]
fn temp_files_a_killed_run_left_are_removed_by_the_next() {
    let p = Project::sample();
    p.compact("2027-01-21");
    p.write("memory/daily/.hipo-tmp-AbC123", "half a node");
    p.write("memory/.hipo-tmp-XyZ789", "half a state file");
    let (code, out, err) = p.run(["compact", "--dry-run", "--today", "2027-01-21"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        p.exists("memory/daily/.hipo-tmp-AbC123"),
        "a dry run writes nothing"
    );
    p.compact("2027-01-21");
    assert!(!p.exists("memory/daily/.hipo-tmp-AbC123"));
    assert!(!p.exists("memory/.hipo-tmp-XyZ789"));
}

/// A run that rewrites every node must let redb reuse the pages its
/// commits free: with one read transaction held from the run's start to
/// its end, the store doubled each time a year's nodes were rewritten.
#[test]
fn rewriting_every_node_leaves_the_store_its_size() {
    let p = Project::empty();
    let start = chrono::NaiveDate::from_ymd_opt(2025, 1, 1).unwrap();
    let days: Vec<String> = (0..240)
        .map(|i| (start + chrono::Days::new(i)).to_string())
        .collect();
    for (i, day) in days.iter().enumerate() {
        let heading = format!("Topic number {i} [project]");
        let body = format!("- decisions: item {i} of the plan, kept for the record");
        p.write(
            &format!("memory/{day}.md"),
            raw_log(day, &[(&heading, &body)], 8),
        );
    }
    let store = || {
        std::fs::metadata(p.path().join(".hipo/store.redb"))
            .unwrap()
            .len()
    };
    assert_eq!(p.compact("2025-12-31").0, 0);
    let built = store();
    for round in 0..2 {
        for day in &days {
            p.append(
                &format!("memory/{day}.md"),
                &format!("- late line {round}\n"),
            );
        }
        let (code, out, err) = p.compact("2025-12-31");
        assert_eq!(code, 0, "{out}{err}");
        assert!(out.starts_with("wrote "), "{out}");
    }
    assert!(
        store() * 4 <= built * 5,
        "store grew from {built} to {} bytes",
        store()
    );
}
