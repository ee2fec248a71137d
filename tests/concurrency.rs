//! Eight hipo processes at once on one project (compact, index, search,
//! status, checkpoints), round after round, while the agent platform
//! appends to today's raw log without the lock: nothing is lost or
//! duplicated, no file is torn, searches never fail, writers wait their
//! turn.

mod common;
use common::Project;
use std::io::Write;
use std::process::{Command, Output};

const TODAY: &str = "2027-01-21";
const ROUNDS: usize = 3;

fn hipo(p: &Project, args: &[String]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_hipo"))
        .arg("--dir")
        .arg(p.path())
        .args(["--today", TODAY])
        .args(args)
        .env("HIPO_LOCK_WAIT", "60")
        .env("NO_COLOR", "1")
        .env_remove("HIPO_DIR")
        .output()
        .unwrap()
}

fn args(a: &[&str]) -> Vec<String> {
    a.iter().map(|s| s.to_string()).collect()
}

#[test]
fn eight_processes_at_once_lose_tear_and_duplicate_nothing() {
    let p = Project::sample();
    assert_eq!(p.compact(TODAY).0, 0);
    let log = p.path().join("memory/2027-01-21.md");
    for round in 0..ROUNDS {
        let jobs: Vec<Vec<String>> = vec![
            args(&[
                "checkpoint",
                "--type",
                "project",
                "--topic",
                &format!("Round {round} first"),
                "-f",
                &format!("outcome=first of round {round}"),
            ]),
            args(&[
                "checkpoint",
                "--type",
                "user",
                "--topic",
                &format!("Round {round} second"),
                "-f",
                &format!("outcome=second of round {round}"),
            ]),
            args(&["--json", "search", "postgres cutover"]),
            args(&["--json", "search", &format!("round {round}")]),
            args(&["compact"]),
            args(&["index"]),
            args(&["--json", "status"]),
            args(&["--json", "search", "release checklist"]),
        ];
        std::thread::scope(|s| {
            // The platform appends without hipo's lock, one write a line.
            let platform = s.spawn(|| {
                for i in 0..20 {
                    let mut f = std::fs::OpenOptions::new()
                        .create(true)
                        .append(true)
                        .open(&log)
                        .unwrap();
                    f.write_all(format!("- platform line {round}-{i}\n").as_bytes())
                        .unwrap();
                }
            });
            let running: Vec<_> = jobs
                .iter()
                .map(|a| s.spawn(|| (a.clone(), hipo(&p, a))))
                .collect();
            for r in running {
                let (a, out) = r.join().unwrap();
                let err = String::from_utf8_lossy(&out.stderr);
                let stdout = String::from_utf8_lossy(&out.stdout);
                assert_eq!(out.status.code(), Some(0), "{a:?}: {err} {stdout}");
                if a[0] == "--json" {
                    serde_json::from_slice::<serde_json::Value>(&out.stdout)
                        .unwrap_or_else(|e| panic!("{a:?} printed no JSON ({e}): {err}"));
                }
            }
            platform.join().unwrap();
        });
    }
    let text = p.read("memory/2027-01-21.md");
    for round in 0..ROUNDS {
        for which in ["first", "second"] {
            let entry = format!("- outcome: {which} of round {round}\n");
            assert_eq!(text.matches(&entry).count(), 1, "{entry}: {text}");
        }
        for i in 0..20 {
            let line = format!("- platform line {round}-{i}\n");
            assert_eq!(text.matches(&line).count(), 1, "{line}: {text}");
        }
    }
    // The tree converges and the index answers for what was written.
    assert_eq!(p.compact(TODAY).0, 0);
    let status = p.json(["status", "--today", TODAY]);
    assert_eq!(
        status["problems"].as_array().map(Vec::len),
        Some(0),
        "{status}"
    );
    let hits = p.json(["search", "second of round 2"]);
    assert_eq!(hits["hits"][0]["path"], "memory/2027-01-21.md", "{hits}");
}
