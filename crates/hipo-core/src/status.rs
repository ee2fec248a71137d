//! `hipo status`: what the tree looks like and whether a compaction is due,
//! computed by planning a compaction without writing anything.

use crate::compact::{self, Action, NodeInfo, Options};
use crate::config::{CompactionState, Config};
use crate::error::{Problem, Result};
use crate::layout::Level;
use crate::markdown::Status;
use crate::progress::NoProgress;
use crate::scan::Scan;
use crate::store::Store;
use crate::summarize::{Summarizer, Writer};
use chrono::{DateTime, NaiveDate, Utc};
use serde::Serialize;
use std::collections::BTreeMap;
use std::path::Path;

/// Nodes of one level by status.
#[derive(Debug, Default, Clone, Serialize)]
pub struct LevelCounts {
    pub total: usize,
    pub tentative: usize,
    pub fixed: usize,
    pub needs_summarization: usize,
}

/// hipocampus's compaction triggers, evaluated.
#[derive(Debug, Clone, Serialize)]
pub struct Triggers {
    pub last_compaction_run: Option<String>,
    pub cooldown_hours: f64,
    pub cooldown_elapsed: bool,
    pub raw_lines_since_last_compaction: u64,
    pub checkpoints_since_last_compaction: u64,
    /// True when any trigger fires.
    pub due: bool,
    /// Which triggers fired.
    pub reasons: Vec<String>,
}

/// The store's health.
#[derive(Debug, Clone, Serialize)]
pub struct StoreHealth {
    pub path: String,
    pub bytes: u64,
    pub schema: u32,
    pub files: usize,
    pub nodes: usize,
    /// Set when the store had to be rebuilt on open.
    pub warning: Option<String>,
}

/// Everything `hipo status` reports.
#[derive(Debug, Clone, Serialize)]
pub struct StatusReport {
    pub root: String,
    pub today: String,
    pub levels: BTreeMap<Level, LevelCounts>,
    /// Nodes waiting for a summary.
    pub backlog: Vec<NodeInfo>,
    /// Why each node of the backlog waits, by path.
    pub waiting_because: BTreeMap<String, String>,
    /// Who wrote the nodes, as of the last compaction: `copy`,
    /// `mechanical` (ROOT), `none` (a stub for the agent), `external` (an
    /// edit adopted), or `ollama:MODEL:PROMPT_VERSION`; with counts.
    pub writers: BTreeMap<String, usize>,
    /// Nodes a model wrote in part: which of their parts hipo summarised
    /// itself because the model's answers were refused twice, and why.
    pub parts_by_hipo: BTreeMap<String, String>,
    /// Raw logs and edited nodes changed since the last compaction.
    pub changed_files: Vec<String>,
    /// What the next `hipo compact` would write.
    pub out_of_date: Vec<Action>,
    pub triggers: Triggers,
    pub store: StoreHealth,
    pub problems: Vec<Problem>,
}

/// What a status reads: the project and its store, however the facade
/// opened them (under the lock, or read into memory on a read-only disk).
pub(crate) struct Sources<'a> {
    pub root: &'a Path,
    pub config: &'a Config,
    pub store: &'a Store,
    /// Set when the store could not be used as it was.
    pub store_warning: Option<String>,
}

/// Computes the status from `sources`; writes nothing.
pub(crate) fn status(
    sources: Sources<'_>,
    scan: Scan,
    summarizer: &dyn Summarizer,
    today: NaiveDate,
    now: DateTime<Utc>,
) -> Result<StatusReport> {
    let Sources {
        root,
        config,
        store,
        store_warning,
    } = sources;
    let file_records = store.file_count()?;
    // The configured summarizer (never called in a dry run), so nodes a
    // model wrote are seen as up to date, as `compact` would see them.
    let plan = compact::compact(
        root,
        &config.compaction,
        store,
        scan,
        summarizer,
        &NoProgress,
        Options {
            dry_run: true,
            ..Options::new(today)
        },
    )?;
    let (levels, backlog) = counts(&plan.nodes);
    // A malformed state file is reported, not fatal: the rest still shows.
    let mut problems = plan.problems;
    let state = crate::project::load_state(root).unwrap_or_else(|problem| {
        problems.push(problem);
        CompactionState::default()
    });
    problems.extend(index_leftovers(root));
    let triggers = triggers(&state, config.compaction.cooldown_hours, now);
    let Writers {
        writers,
        parts_by_hipo,
        node_records,
    } = writers(root, store, &plan.nodes)?;
    let waiting_because = backlog
        .iter()
        .map(|n| (n.path.clone(), waiting_reason(root, &n.path, summarizer)))
        .collect();
    let changed_files = changed_files(&plan.actions);
    let path = Store::path_in(root);
    Ok(StatusReport {
        root: root.display().to_string(),
        today: today.to_string(),
        levels,
        backlog,
        waiting_because,
        writers,
        parts_by_hipo,
        changed_files,
        out_of_date: plan.actions.into_iter().filter(|a| a.written).collect(),
        triggers,
        store: StoreHealth {
            bytes: std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0),
            path: path.display().to_string(),
            schema: crate::store::SCHEMA_VERSION,
            files: file_records,
            nodes: node_records,
            warning: store_warning,
        },
        problems,
    })
}

/// Who wrote the tree's nodes, as `status` shows it.
struct Writers {
    /// Nodes in the tree by writer.
    writers: BTreeMap<String, usize>,
    /// Model-written nodes that hipo had to complete in parts, and why.
    parts_by_hipo: BTreeMap<String, String>,
    /// Node records in the store, in the tree or not.
    node_records: usize,
}

fn writers(root: &Path, store: &Store, nodes: &[NodeInfo]) -> Result<Writers> {
    // The records streamed, one decoded at a time: at ten years, all of
    // them with their topics were most of a status's heap.
    let in_tree: std::collections::HashSet<&str> = nodes.iter().map(|n| n.path.as_str()).collect();
    let mut writers: BTreeMap<String, usize> = BTreeMap::new();
    let mut by_model: Vec<String> = Vec::new();
    let node_records = store.visit_nodes(|path, rec| {
        if in_tree.contains(path) {
            if matches!(rec.writer, Writer::Model { .. }) {
                by_model.push(path.to_string());
            }
            *writers.entry(rec.writer.to_string()).or_default() += 1;
        }
    })?;
    // Only nodes a model wrote can hold the marker: a memory kept without
    // a model reads no file here.
    let parts_by_hipo = by_model
        .into_iter()
        .filter_map(|path| {
            let text = crate::fsutil::read_utf8(root, &path).ok()?;
            let (_, body, _) = crate::markdown::split_frontmatter(&text).ok()?;
            crate::llm::read_marker(body).map(|m| (path, m))
        })
        .collect();
    Ok(Writers {
        writers,
        parts_by_hipo,
        node_records,
    })
}

/// Nodes per level and status, and the ones waiting for a summary.
fn counts(nodes: &[NodeInfo]) -> (BTreeMap<Level, LevelCounts>, Vec<NodeInfo>) {
    let mut levels: BTreeMap<Level, LevelCounts> = BTreeMap::new();
    let mut backlog = Vec::new();
    for node in nodes {
        let c = levels.entry(node.level).or_default();
        c.total += 1;
        match node.status {
            Status::Tentative => c.tentative += 1,
            Status::Fixed => c.fixed += 1,
            Status::NeedsSummarization => {
                c.needs_summarization += 1;
                backlog.push(node.clone());
            }
        }
    }
    (levels, backlog)
}

/// Files an interrupted index update left, as a problem.
fn index_leftovers(root: &std::path::Path) -> Option<Problem> {
    let leftovers = crate::index::blocking_leftovers_in(root);
    leftovers.first().map(|first| Problem {
        path: ".hipo/index".into(),
        line: None,
        message: format!(
            "{} file(s) left by an interrupted index update (such as {first}) would stop the next commit; the next `hipo search` or `hipo index` removes them",
            leftovers.len()
        ),
    })
}

/// Why a node waits for a summary: the reason the model's failure left in
/// its body, else what is missing.
fn waiting_reason(root: &std::path::Path, path: &str, summarizer: &dyn Summarizer) -> String {
    const FAILED: &str = "The local model could not write it: ";
    let text = crate::fsutil::read_utf8(root, path).unwrap_or_default();
    if let Some(reason) = text.lines().find_map(|l| l.strip_prefix(FAILED)) {
        return format!("the model could not write it: {reason}");
    }
    if path == crate::layout::NodeId::Root.path() {
        return "the model's narrative failed; the next run with a model retries it".into();
    }
    if summarizer.is_active() {
        "not yet asked: run `hipo summarize`".into()
    } else {
        "no model configured (llm.backend is none): the agent or `hipo summarize --llm ollama` fills it in".into()
    }
}

/// The files behind the plan: a daily rebuilt because its source changed
/// (or is new) names its raw log; an adopted edit names the node itself.
fn changed_files(actions: &[Action]) -> Vec<String> {
    use crate::compact::Reason;
    let mut out: Vec<String> = actions
        .iter()
        .filter_map(|a| match (a.level, a.reason) {
            (Level::Daily, Reason::New | Reason::SourceChanged) => {
                crate::layout::classify(&a.path).ok().and_then(|k| match k {
                    crate::layout::PathKind::Node(crate::layout::NodeId::Daily(d)) => {
                        Some(crate::tree::raw_path(d))
                    }
                    _ => None,
                })
            }
            (_, Reason::Adopted) => Some(a.path.clone()),
            _ => None,
        })
        .collect();
    out.sort();
    out.dedup();
    out
}

/// Evaluates hipocampus's triggers: cooldown elapsed (or 0), more than 300
/// raw lines, or more than 5 checkpoints since the last compaction.
pub fn triggers(state: &CompactionState, cooldown_hours: f64, now: DateTime<Utc>) -> Triggers {
    let last = state
        .last_compaction_run
        .as_deref()
        .and_then(|s| DateTime::parse_from_rfc3339(s).ok());
    let cooldown_elapsed = match last {
        None => true,
        Some(t) => (now - t.with_timezone(&Utc)).num_seconds() as f64 >= cooldown_hours * 3600.0,
    };
    let mut reasons = Vec::new();
    if cooldown_hours <= 0.0 {
        reasons.push("cooldownHours is 0".to_string());
    } else if cooldown_elapsed {
        reasons.push(match last {
            None => "never compacted".to_string(),
            Some(_) => format!("{cooldown_hours}h cooldown has passed"),
        });
    }
    if state.raw_lines_since_last_compaction > 300 {
        reasons.push(format!(
            "{} raw lines since last compaction (> 300)",
            state.raw_lines_since_last_compaction
        ));
    }
    if state.checkpoints_since_last_compaction > 5 {
        reasons.push(format!(
            "{} checkpoints since last compaction (> 5)",
            state.checkpoints_since_last_compaction
        ));
    }
    Triggers {
        last_compaction_run: state.last_compaction_run.clone(),
        cooldown_hours,
        cooldown_elapsed,
        raw_lines_since_last_compaction: state.raw_lines_since_last_compaction,
        checkpoints_since_last_compaction: state.checkpoints_since_last_compaction,
        due: !reasons.is_empty(),
        reasons,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trigger_rules() {
        let now = DateTime::parse_from_rfc3339("2027-01-19T12:00:00Z")
            .unwrap()
            .with_timezone(&Utc);
        let mut s = CompactionState {
            last_compaction_run: Some("2027-01-19T10:00:00Z".into()),
            ..Default::default()
        };
        assert!(!triggers(&s, 3.0, now).due);
        assert!(triggers(&s, 1.0, now).due);
        assert!(triggers(&s, 0.0, now).due);
        s.raw_lines_since_last_compaction = 301;
        assert!(triggers(&s, 3.0, now).due);
        s.raw_lines_since_last_compaction = 0;
        s.checkpoints_since_last_compaction = 6;
        assert_eq!(triggers(&s, 3.0, now).reasons.len(), 1);
    }
}
