//! Model-based property test of compaction (issue 11): a random sequence
//! of appends, edits and deletions of raw logs, agent fills of
//! `needs-summarization` nodes, date changes and compactions, run through
//! the library facade on a temp project, must end in the tree a clean run
//! builds from the same Markdown. Each compaction runs twice, so later ops
//! change a tree that has settled (`compact::settled`).
//!
//! The clean run is a fresh project holding the same raw logs, the nodes
//! an agent wrote that still stand (Markdown written from the person's
//! side, not derived) and the dailies of deleted logs (hipo never deletes
//! a node: when a raw log is pruned its daily is all that remains of the
//! day), compacted once on the same day. Every node
//! file and ROOT.md must match byte for byte. What a clean run
//! legitimately lacks is left out of the comparison: `.prev` files (the
//! old text of a node that was replaced: history a fresh run never saw)
//! and `memory/.compaction-state.json` (trigger counters and the time of
//! the last run).

use crate::common;
use common::Project;
use common::props::config;
use hipo_core::CompactOptions;
use hipo_core::Hipo;
use hipo_core::NoProgress;
use hipo_core::NoneSummarizer;
use proptest::prelude::*;
use std::collections::BTreeSet;
use std::path::Path;
use std::time::Duration;

/// Days across two ISO weeks and a month boundary.
const DAYS: [&str; 8] = [
    "2027-01-25",
    "2027-01-26",
    "2027-01-28",
    "2027-01-31",
    "2027-02-01",
    "2027-02-02",
    "2027-02-04",
    "2027-02-07",
];
/// Low thresholds, so some nodes wait for a summary and others are copies.
const CONFIG: &str =
    r#"{"compaction": {"dailyThreshold": 10, "weeklyThreshold": 16, "monthlyThreshold": 24}}"#;
const SUMMARY: &str = "## Topics\n- filled-by-agent [project]\n## Key Decisions\n- keep it short\n";

#[derive(Debug, Clone)]
enum Op {
    /// `entries` entries appended to the log of `DAYS[day]` (if not in the future).
    Append {
        day: usize,
        entries: usize,
    },
    /// A detail line of an existing log changed.
    Edit {
        day: usize,
    },
    /// A log deleted.
    Delete {
        day: usize,
    },
    /// The `n`th node waiting for a summary filled by the agent.
    Fill {
        n: usize,
    },
    /// Today moves on by this many days.
    Advance {
        days: i64,
    },
    Compact,
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        4 => (0..DAYS.len(), 1..4usize).prop_map(|(day, entries)| Op::Append { day, entries }),
        1 => (0..DAYS.len()).prop_map(|day| Op::Edit { day }),
        1 => (0..DAYS.len()).prop_map(|day| Op::Delete { day }),
        2 => (0..4usize).prop_map(|n| Op::Fill { n }),
        2 => (0..4i64).prop_map(|days| Op::Advance { days }),
        3 => Just(Op::Compact),
    ]
}

fn date(s: &str) -> chrono::NaiveDate {
    chrono::NaiveDate::parse_from_str(s, "%Y-%m-%d").unwrap()
}

fn compact(root: &Path, today: chrono::NaiveDate) {
    let hipo = Hipo::open(root).unwrap();
    let session = hipo.lock(Duration::from_secs(30)).unwrap();
    session
        .compact_with(&NoneSummarizer, &NoProgress, CompactOptions::new(today))
        .unwrap();
}

/// Node files (daily, weekly, monthly, ROOT) with their bytes, by path.
fn nodes(root: &Path) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for dir in ["daily", "weekly", "monthly"] {
        let Ok(entries) = std::fs::read_dir(root.join("memory").join(dir)) else {
            continue;
        };
        for e in entries.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            if name.ends_with(".md") {
                out.push((
                    format!("{dir}/{name}"),
                    std::fs::read_to_string(e.path()).unwrap(),
                ));
            }
        }
    }
    if let Ok(root_md) = std::fs::read_to_string(root.join("memory/ROOT.md")) {
        out.push(("ROOT.md".into(), root_md));
    }
    out.sort();
    out
}

/// Replaces a node's body with the agent's summary, keeping its
/// frontmatter but for `status:`.
fn fill(root: &Path, rel: &str) {
    let path = root.join("memory").join(rel);
    let text = std::fs::read_to_string(&path).unwrap();
    let Some(end) = text.get(4..).and_then(|t| t.find("\n---\n")) else {
        return;
    };
    let fm: Vec<String> = text[..end + 4]
        .lines()
        .map(|l| {
            if l.starts_with("status:") {
                "status: tentative".into()
            } else {
                l.to_string()
            }
        })
        .collect();
    std::fs::write(path, format!("{}\n---\n{SUMMARY}", fm.join("\n"))).unwrap();
}

fn run(ops: &[Op]) -> Result<(), TestCaseError> {
    let p = Project::empty();
    p.write("hipocampus.config.json", CONFIG);
    let mut today = date(DAYS[3]);
    let mut filled: BTreeSet<String> = BTreeSet::new();
    let mut counter = 0;
    for op in ops {
        match *op {
            Op::Append { day, entries } => {
                if date(DAYS[day]) > today {
                    continue;
                }
                let rel = format!("memory/{}.md", DAYS[day]);
                if !p.exists(&rel) {
                    p.write(&rel, format!("# {}\n", DAYS[day]));
                }
                for _ in 0..entries {
                    counter += 1;
                    p.append(
                        &rel,
                        &format!(
                            "\n## topic {counter} [project]\n- detail {counter}\n- more {counter}\n"
                        ),
                    );
                }
            }
            Op::Edit { day } => {
                let rel = format!("memory/{}.md", DAYS[day]);
                if p.exists(&rel) {
                    p.write(
                        &rel,
                        p.read(&rel).replacen("- detail", "- edited detail", 1),
                    );
                }
            }
            Op::Delete { day } => {
                let _ = std::fs::remove_file(p.path().join(format!("memory/{}.md", DAYS[day])));
            }
            Op::Fill { n } => {
                let waiting: Vec<String> = nodes(p.path())
                    .into_iter()
                    .filter(|(rel, text)| {
                        rel != "ROOT.md" && text.contains("status: needs-summarization")
                    })
                    .map(|(rel, _)| rel)
                    .collect();
                if let Some(rel) = waiting.get(n % waiting.len().max(1)) {
                    fill(p.path(), rel);
                    filled.insert(rel.clone());
                }
            }
            Op::Advance { days } => today += chrono::Duration::days(days),
            // Twice: a run that finds nothing to do leaves a settled
            // record, so the ops after it meet `compact::settled`'s check.
            Op::Compact => {
                compact(p.path(), today);
                compact(p.path(), today);
            }
        }
        // A fill hipo replaced (its sources changed) or removed is hipo's again.
        filled.retain(|rel| {
            std::fs::read_to_string(p.path().join("memory").join(rel))
                .is_ok_and(|t| t.ends_with(SUMMARY))
        });
    }
    compact(p.path(), today);
    filled.retain(|rel| p.read(&format!("memory/{rel}")).ends_with(SUMMARY));

    // The clean run: the same raw logs and standing fills, nothing else.
    let clean = Project::empty();
    clean.write("hipocampus.config.json", CONFIG);
    for day in DAYS {
        let rel = format!("memory/{day}.md");
        let daily = format!("memory/daily/{day}.md");
        if p.exists(&rel) {
            clean.write(&rel, p.read(&rel));
        } else if p.exists(&daily) {
            // A deleted log's daily is all that remains of that day.
            clean.write(&daily, p.read(&daily));
        }
    }
    for rel in &filled {
        let rel = format!("memory/{rel}");
        clean.write(&rel, p.read(&rel));
    }
    compact(clean.path(), today);
    let (got, want) = (nodes(p.path()), nodes(clean.path()));
    let paths = |v: &[(String, String)]| v.iter().map(|(r, _)| r.clone()).collect::<Vec<_>>();
    prop_assert_eq!(paths(&got), paths(&want), "ops: {:?}", ops);
    for ((rel, a), (_, b)) in got.iter().zip(&want) {
        prop_assert_eq!(a, b, "{} differs after {:?}", rel, ops);
    }
    Ok(())
}

proptest! {
    #![proptest_config(config(8))]

    #[test]
    fn any_history_converges_to_a_clean_run(ops in prop::collection::vec(op(), 2..16)) {
        run(&ops)?;
    }
}
