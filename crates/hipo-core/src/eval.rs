//! `hipo eval`: retrieval quality measured, not eyeballed.
//!
//! A fixture is JSON Lines, one case a line:
//! `{"query": "…", "expected": ["memory/2023-05-17.md:3", …], "group": "…"}`.
//! An expected entry is a path (`knowledge/db.md`), a `path:line` (found
//! when a result's section, or one of its `also_in` copies, spans that
//! line), or heading text (found when a result's heading contains it, case
//! aside). Recall@k is the share of cases with an expected entry among
//! the first k results: a case lists every place that answers it (the
//! MemAware questions list each answer session), and one of them found
//! answers it. A result is a section shown once with its copies, so on a
//! corpus of sessions the first k results are k distinct sessions, as the
//! MemAware session-level recall counts them. `entries` keeps the share of
//! each case's expected entries found, averaged. MRR averages 1 / the rank
//! of the first result that finds any of them (0 when none does).
//!
//! A saved `--json` report is a baseline: [`compare`] gives the change per
//! group and k, recomputed from the baseline's per-case ranks (so a report
//! saved by an older hipo, whose R@k counted entries, compares fairly).

use crate::error::{Error, Result};
use crate::search::Hit;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::Path;

/// One line of a fixture.
#[derive(Debug, Clone, Deserialize)]
pub struct Case {
    pub query: String,
    pub expected: Vec<String>,
    #[serde(default)]
    pub group: Option<String>,
    /// 1-based line in the fixture, for messages.
    #[serde(skip)]
    pub line: usize,
}

/// Recall@k and MRR over a set of cases.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Metrics {
    pub cases: usize,
    /// k → share of cases with an expected entry in the first k.
    pub recall: BTreeMap<usize, f64>,
    /// k → share of each case's expected entries in the first k, averaged.
    pub entries: BTreeMap<usize, f64>,
    pub mrr: f64,
}

/// How one case went.
#[derive(Debug, Clone, Serialize)]
pub struct CaseResult {
    pub query: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub group: Option<String>,
    /// 1-based rank of the first result that finds an expected entry.
    pub rank: Option<usize>,
    /// The top results, `path:line`.
    pub top: Vec<String>,
}

/// A whole evaluation.
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    pub ks: Vec<usize>,
    pub overall: Metrics,
    pub groups: BTreeMap<String, Metrics>,
    pub cases: Vec<CaseResult>,
}

/// Reads a fixture, naming the line of any bad case.
pub fn load(path: &Path) -> Result<Vec<Case>> {
    let text = std::fs::read_to_string(path).map_err(|e| Error::io(path, e))?;
    let mut cases = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() || line.trim_start().starts_with("//") {
            continue;
        }
        let mut case: Case = serde_json::from_str(line).map_err(|e| {
            Error::bad_input(
                path,
                Some(i + 1),
                format!("not a case ({e}); expected {{\"query\": …, \"expected\": [...]}}"),
            )
        })?;
        if case.expected.is_empty() {
            return Err(Error::bad_input(
                path,
                Some(i + 1),
                "`expected` is empty; list at least one path, path:line or heading",
            ));
        }
        case.line = i + 1;
        cases.push(case);
    }
    if cases.is_empty() {
        return Err(Error::bad_input(path, None, "holds no cases"));
    }
    Ok(cases)
}

/// True when `hit` finds the expected entry `want`.
pub fn finds(hit: &Hit, want: &str) -> bool {
    let places = std::iter::once((hit.path.as_str(), hit.lines))
        .chain(hit.also_in.iter().map(|p| (p.path.as_str(), p.lines)));
    if let Some((path, line)) = want.rsplit_once(':')
        && let Ok(line) = line.parse::<usize>()
    {
        return places
            .into_iter()
            .any(|(p, [lo, hi])| p == path && lo <= line && line <= hi);
    }
    if want.ends_with(".md") || want.contains('/') {
        return places.into_iter().any(|(p, _)| p == want);
    }
    hit.heading.to_lowercase().contains(&want.to_lowercase())
}

/// Runs every case through `run` (a search returning ranked hits) and
/// scores it at each k.
pub fn evaluate(
    cases: &[Case],
    ks: &[usize],
    mut run: impl FnMut(&str, usize) -> Result<Vec<Hit>>,
) -> Result<Report> {
    let max_k = ks.iter().copied().max().unwrap_or(10);
    let mut overall = Acc::default();
    let mut groups: BTreeMap<String, Acc> = BTreeMap::new();
    let mut results = Vec::new();
    for case in cases {
        let hits = run(&case.query, max_k).map_err(|e| match e {
            Error::Query(why) => Error::Query(format!(
                "the case on line {} ({:?}): {why}",
                case.line, case.query
            )),
            other => other,
        })?;
        let found: Vec<Option<usize>> = case
            .expected
            .iter()
            .map(|want| hits.iter().position(|h| finds(h, want)).map(|i| i + 1))
            .collect();
        let rank = found.iter().flatten().copied().min();
        for acc in [
            Some(&mut overall),
            case.group
                .as_ref()
                .map(|g| groups.entry(g.clone()).or_default()),
        ]
        .into_iter()
        .flatten()
        {
            acc.add(ks, &found, rank);
        }
        results.push(CaseResult {
            query: case.query.clone(),
            group: case.group.clone(),
            rank,
            top: hits
                .iter()
                .take(3)
                .map(|h| format!("{}:{}", h.path, h.lines[0]))
                .collect(),
        });
    }
    Ok(Report {
        ks: ks.to_vec(),
        overall: overall.metrics(),
        groups: groups.into_iter().map(|(g, a)| (g, a.metrics())).collect(),
        cases: results,
    })
}

/// A case of a saved report: all a baseline needs.
#[derive(Debug, Clone, Deserialize)]
struct SavedCase {
    #[serde(default)]
    group: Option<String>,
    rank: Option<usize>,
}

/// A saved `hipo --json eval` report.
#[derive(Debug, Clone, Deserialize)]
struct Saved {
    cases: Vec<SavedCase>,
}

/// One group's figures now, then and the change.
#[derive(Debug, Clone, Serialize)]
pub struct Change {
    /// k → (baseline, now).
    pub recall: BTreeMap<usize, (f64, f64)>,
    /// (baseline, now).
    pub mrr: (f64, f64),
    /// Cases in the baseline's group.
    pub baseline_cases: usize,
}

/// Reads a saved `--json` report and compares `report` with it, per
/// group (`all` first) and k. Groups the baseline lacks are left out.
pub fn compare(report: &Report, baseline: &Path) -> Result<BTreeMap<String, Change>> {
    let text = std::fs::read_to_string(baseline).map_err(|e| Error::io(baseline, e))?;
    let saved: Saved = serde_json::from_str(&text).map_err(|e| {
        Error::bad_input(
            baseline,
            None,
            format!("not a saved `hipo --json eval` report ({e})"),
        )
    })?;
    let mut then: BTreeMap<String, Acc> = BTreeMap::new();
    for c in &saved.cases {
        let found = [c.rank];
        let groups = std::iter::once(ALL.to_string()).chain(c.group.clone());
        for g in groups {
            then.entry(g).or_default().add(&report.ks, &found, c.rank);
        }
    }
    let now = std::iter::once((ALL, &report.overall))
        .chain(report.groups.iter().map(|(g, m)| (g.as_str(), m)));
    let mut out = BTreeMap::new();
    for (g, m) in now {
        let Some(old) = then.get(g).map(Acc::metrics) else {
            continue;
        };
        let recall = report
            .ks
            .iter()
            .map(|k| (*k, (old.recall.get(k).copied().unwrap_or(0.0), m.recall[k])))
            .collect();
        out.insert(
            g.to_string(),
            Change {
                recall,
                mrr: (old.mrr, m.mrr),
                baseline_cases: old.cases,
            },
        );
    }
    Ok(out)
}

/// The name of the group of all cases.
pub const ALL: &str = "all";

/// Running sums for one set of cases.
#[derive(Default)]
struct Acc {
    cases: usize,
    recall: BTreeMap<usize, f64>,
    entries: BTreeMap<usize, f64>,
    rr: f64,
}

impl Acc {
    fn add(&mut self, ks: &[usize], found: &[Option<usize>], rank: Option<usize>) {
        self.cases += 1;
        for &k in ks {
            let hit = found.iter().filter(|r| r.is_some_and(|r| r <= k)).count();
            *self.entries.entry(k).or_default() += hit as f64 / found.len() as f64;
            *self.recall.entry(k).or_default() += f64::from(u8::from(hit > 0));
        }
        self.rr += rank.map_or(0.0, |r| 1.0 / r as f64);
    }

    fn metrics(&self) -> Metrics {
        let n = self.cases.max(1) as f64;
        Metrics {
            cases: self.cases,
            recall: self.recall.iter().map(|(k, v)| (*k, v / n)).collect(),
            entries: self.entries.iter().map(|(k, v)| (*k, v / n)).collect(),
            mrr: self.rr / n,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::DocLevel;
    use crate::search::Place;

    fn hit(path: &str, lines: [usize; 2], heading: &str) -> Hit {
        Hit {
            also_in: vec![Place {
                path: "memory/weekly/2026-W11.md".into(),
                lines: [40, 50],
                level: DocLevel::Weekly,
            }],
            ..Hit::sample(path, lines, heading)
        }
    }

    #[test]
    fn expected_entries_match_paths_lines_and_headings() {
        let h = hit("memory/2026-03-15.md", [3, 20], "2026-03-15 › Deploy plan");
        assert!(finds(&h, "memory/2026-03-15.md:3"));
        assert!(finds(&h, "memory/2026-03-15.md:20"));
        assert!(!finds(&h, "memory/2026-03-15.md:21"));
        assert!(finds(&h, "memory/weekly/2026-W11.md:45"));
        assert!(finds(&h, "memory/2026-03-15.md"));
        assert!(!finds(&h, "memory/2026-03-16.md"));
        assert!(finds(&h, "deploy PLAN"));
        assert!(!finds(&h, "rollback"));
    }

    #[test]
    fn recall_and_mrr() {
        let cases = vec![
            Case {
                query: "a".into(),
                expected: vec!["x.md".into()],
                group: Some("g".into()),
                line: 1,
            },
            Case {
                query: "b".into(),
                expected: vec!["y.md".into(), "z.md".into()],
                group: None,
                line: 2,
            },
        ];
        let report = evaluate(&cases, &[1, 5], |q, _| {
            Ok(match q {
                "a" => vec![hit("w.md", [1, 1], ""), hit("x.md", [1, 1], "")],
                _ => vec![hit("y.md", [1, 1], "")],
            })
        })
        .unwrap();
        // a: found at 2; b: y at 1, z never.
        assert_eq!(report.overall.entries[&1], (0.0 + 0.5) / 2.0);
        assert_eq!(report.overall.entries[&5], (1.0 + 0.5) / 2.0);
        // One answer found answers the case.
        assert_eq!(report.overall.recall[&1], 0.5);
        assert_eq!(report.overall.recall[&5], 1.0);
        assert!((report.overall.mrr - (0.5 + 1.0) / 2.0).abs() < 1e-9);
        assert_eq!(report.groups["g"].cases, 1);
    }

    #[test]
    fn a_saved_report_is_a_baseline() {
        let dir = tempfile::tempdir().unwrap();
        let saved = dir.path().join("base.json");
        // An older report: only the cases' ranks are read.
        std::fs::write(
            &saved,
            r#"{"ks": [1, 5], "cases": [{"query": "a", "group": "g", "rank": 3}, {"query": "b", "rank": null}]}"#,
        )
        .unwrap();
        let cases = vec![
            Case {
                query: "a".into(),
                expected: vec!["x.md".into()],
                group: Some("g".into()),
                line: 1,
            },
            Case {
                query: "b".into(),
                expected: vec!["y.md".into()],
                group: None,
                line: 2,
            },
        ];
        let report = evaluate(&cases, &[1, 5], |_, _| Ok(vec![hit("x.md", [1, 1], "")])).unwrap();
        let change = compare(&report, &saved).unwrap();
        assert_eq!(change["all"].recall[&1], (0.0, 0.5));
        assert_eq!(change["all"].recall[&5], (0.5, 0.5));
        assert_eq!(change["g"].recall[&1], (0.0, 1.0));
        assert!((change["g"].mrr.0 - 1.0 / 3.0).abs() < 1e-9);
        std::fs::write(&saved, "[1, 2]").unwrap();
        let err = compare(&report, &saved).unwrap_err().to_string();
        assert!(err.contains("not a saved"), "{err}");
    }

    #[test]
    fn bad_fixture_lines_are_named() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("e.jsonl");
        std::fs::write(&p, "{\"query\": \"a\", \"expected\": [\"x\"]}\n{oops\n").unwrap();
        let err = load(&p).unwrap_err().to_string();
        assert!(err.contains("e.jsonl:2"), "{err}");
    }
}
