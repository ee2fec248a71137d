//! Eight hipo processes at once on one project (compact, index, search,
//! status, checkpoints), round after round, while the agent platform
//! appends to today's raw log without the lock: nothing is lost or
//! duplicated, no file is torn, searches never fail, writers wait their
//! turn. Every lock says how long it was waited for (`HIPO_LOCK_TRACE`),
//! and the test prints the percentiles.

use crate::common;
use common::Project;
use std::collections::BTreeMap;
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
        .env("HIPO_LOCK_TRACE", "1")
        .env("NO_COLOR", "1")
        .env_remove("HIPO_DIR")
        .output()
        .unwrap()
}

/// The lock waits and holds (ms) a process reported on stderr.
fn lock_times(stderr: &str) -> Vec<(f64, f64)> {
    stderr
        .lines()
        .filter_map(|l| l.strip_prefix("hipo: lock "))
        .filter_map(|l| {
            let mut it = l.split_whitespace();
            let waited = it.next()?.strip_prefix("waited_ms=")?.parse().ok()?;
            let held = it.next()?.strip_prefix("held_ms=")?.parse().ok()?;
            Some((waited, held))
        })
        .collect()
}

/// p50, p90, p99 and max of `v` (nearest rank), as one line.
fn percentiles(v: &mut [f64]) -> String {
    v.sort_by(f64::total_cmp);
    let at = |q: f64| v[((q * v.len() as f64).ceil() as usize).clamp(1, v.len()) - 1];
    format!(
        "n={} p50={:.1} p90={:.1} p99={:.1} max={:.1} ms",
        v.len(),
        at(0.50),
        at(0.90),
        at(0.99),
        at(1.0)
    )
}

fn args(a: &[&str]) -> Vec<String> {
    a.iter().map(|s| s.to_string()).collect()
}

#[test]
fn eight_processes_at_once_lose_tear_and_duplicate_nothing() {
    let p = Project::sample();
    assert_eq!(p.compact(TODAY).0, 0);
    let log = p.path().join("memory/2027-01-21.md");
    // Lock waits and holds by command (`search` for searches, whatever
    // their flags).
    let mut waits: BTreeMap<String, Vec<f64>> = BTreeMap::new();
    let mut holds: Vec<f64> = Vec::new();
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
                let command = a.iter().find(|w| !w.starts_with('-')).cloned();
                let times = lock_times(&err);
                if command.as_deref() != Some("search") {
                    assert!(!times.is_empty(), "{a:?} took the lock: {err}");
                }
                for (waited, held) in times {
                    waits
                        .entry(command.clone().unwrap_or_default())
                        .or_default()
                        .push(waited);
                    holds.push(held);
                }
                if a[0] == "--json" {
                    serde_json::from_slice::<serde_json::Value>(&out.stdout)
                        .unwrap_or_else(|e| panic!("{a:?} printed no JSON ({e}): {err}"));
                }
            }
            platform.join().unwrap();
        });
    }
    let mut all: Vec<f64> = waits.values().flatten().copied().collect();
    eprintln!("lock waits, all: {}", percentiles(&mut all));
    for (command, v) in &mut waits {
        eprintln!("lock waits, {command}: {}", percentiles(v));
    }
    eprintln!("lock holds, all: {}", percentiles(&mut holds));
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
