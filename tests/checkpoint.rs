//! `hipo checkpoint`: typed entries appended to today's raw log through
//! the facade, counted in hipocampus's triggers, safe when hooks fire at
//! once.

use crate::common;
use common::Project;

const TODAY: &str = "2027-01-21";

#[test]
fn an_entry_lands_whole_is_counted_and_is_found_by_the_next_search() {
    let p = Project::sample();
    assert_eq!(p.compact(TODAY).0, 0);
    let v = p.json([
        "checkpoint",
        "--today",
        TODAY,
        "--type",
        "feedback",
        "--topic",
        "Deploy freeze",
        "-f",
        "rule=no deploys on Fridays",
        "-f",
        "why=the on-call rota is thin",
    ]);
    assert_eq!(v["path"], "memory/2027-01-21.md");
    let text = p.read("memory/2027-01-21.md");
    let line = v["line"].as_u64().unwrap() as usize;
    assert_eq!(
        text.lines().nth(line - 1),
        Some("## Deploy freeze [feedback]")
    );
    assert!(text.ends_with(
        "## Deploy freeze [feedback]\n- rule: no deploys on Fridays\n- why: the on-call rota is thin\n"
    ));
    let state = p.json(["status", "--today", TODAY]);
    assert_eq!(state["triggers"]["checkpoints_since_last_compaction"], 1);
    // The new day's title, a blank line, and the entry's three lines.
    assert_eq!(state["triggers"]["raw_lines_since_last_compaction"], 5);
    let hits = p.json(["search", "on-call rota friday", "-n", "1"]);
    assert_eq!(hits["hits"][0]["path"], "memory/2027-01-21.md");
    assert_eq!(hits["hits"][0]["lines"][0].as_u64().unwrap() as usize, line);
}

#[test]
fn hooks_firing_at_once_lose_and_duplicate_nothing() {
    let p = Project::sample();
    assert_eq!(p.compact(TODAY).0, 0);
    let children: Vec<_> = (0..8)
        .map(|i| {
            let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_hipo"));
            cmd.arg("--dir")
                .arg(p.path())
                .args([
                    "checkpoint",
                    "--today",
                    TODAY,
                    "--type",
                    "project",
                    "--topic",
                ])
                .arg(format!("Parallel entry {i}"))
                .args(["-f", &format!("outcome=entry number {i} written")])
                .spawn()
                .unwrap()
        })
        .collect();
    for mut c in children {
        assert!(c.wait().unwrap().success());
    }
    let text = p.read("memory/2027-01-21.md");
    for i in 0..8 {
        let heading =
            format!("## Parallel entry {i} [project]\n- outcome: entry number {i} written\n");
        assert_eq!(text.matches(&heading).count(), 1, "{text}");
    }
    let state = p.json(["status", "--today", TODAY]);
    assert_eq!(state["triggers"]["checkpoints_since_last_compaction"], 8);
}

#[test]
fn bad_entries_are_refused_and_nothing_is_written() {
    let p = Project::sample();
    let before = p.snapshot();
    let (code, _, err) = p.run([
        "checkpoint",
        "--today",
        TODAY,
        "--type",
        "project",
        "--topic",
        "Empty",
    ]);
    assert_eq!(code, 2);
    assert!(err.contains("needs some content"), "{err}");
    let (code, _, err) = p.run([
        "checkpoint",
        "--today",
        TODAY,
        "--type",
        "user",
        "--topic",
        "X",
        "-f",
        "novalue",
    ]);
    assert_eq!(code, 2);
    assert!(err.contains("KEY=VALUE"), "{err}");
    let (code, _, err) = p.run([
        "checkpoint",
        "--type",
        "decision",
        "--topic",
        "X",
        "-f",
        "a=b",
    ]);
    assert_eq!(code, 2);
    assert!(
        err.contains("possible values: user, feedback, project, reference"),
        "{err}"
    );
    assert_eq!(before, p.snapshot());
}

#[test]
fn a_secret_in_an_entry_is_not_written_in_clear() {
    let p = Project::sample();
    let (code, _, err) = p.run([
        "checkpoint",
        "--today",
        TODAY,
        "--type",
        "reference",
        "--topic",
        "Staging access",
        "-f",
        "how=PGPASSWORD=hunter2-staging psql -h db",
    ]);
    assert_eq!(code, 0, "{err}");
    let text = p.read("memory/2027-01-21.md");
    assert!(!text.contains("hunter2"), "{text}");
    assert!(text.contains("## Staging access [reference]"));
}
