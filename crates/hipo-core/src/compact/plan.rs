//! The decision for one node: keep it, adopt what its file holds, or build
//! it anew. Pure: the caller reads the file and the store first and passes
//! plain values, so every rule is tested below without a disk.

use super::Reason;
use super::inputs::{Front, Inputs, short_hex};
use crate::layout::NodeId;
use crate::markdown::Status;
use crate::store::{Hash, NodeRecord};
use crate::summarize::Writer;
use crate::tree;
use chrono::NaiveDate;

/// What is known of one node before deciding.
pub(crate) struct Node<'a> {
    pub id: NodeId,
    pub inputs: &'a Inputs,
    /// Hash of its file as the scan found it; `None` when there is none.
    pub on_disk: Option<Hash>,
    /// What the store recorded when hipo last built or adopted it.
    pub record: Option<&'a NodeRecord>,
    /// Its file's frontmatter; read only for a node with no record.
    pub front: Option<&'a Front>,
    /// Its file exists but cannot be read: what is there stays.
    pub unusable: bool,
}

/// What the run decides alike for every node.
pub(crate) struct Policy<'a> {
    pub today: NaiveDate,
    /// A model is called this run, so a pending summary can be retried.
    pub calls_model: bool,
    /// Re-summarise what a different model or prompt version wrote.
    pub resummarize: bool,
    /// Retry only these node paths (all when `None`).
    pub only: Option<&'a [String]>,
    /// The writer this run records for a summary.
    pub writer: &'a Writer,
    /// The project is shared through git (`share`): a node file that is
    /// not what this clone wrote, whose body hipo wrote (another clone,
    /// brought by a merge or a pull), is judged by its frontmatter as if
    /// the store had no record of it, never taken for a person's edit.
    pub shared: bool,
}

/// The decision for one node.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Plan {
    /// Its file cannot be read: left as it is, its last state kept.
    Skip,
    /// Up to date.
    Keep,
    /// Keep the file's text; `own` when it is hipo's own (a model's summary
    /// recognised by its `body-hash` after the store was lost).
    Adopt {
        reason: Option<Reason>,
        own: bool,
    },
    Build(Build),
}

/// A node to build, and why.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Build {
    pub reason: Reason,
    /// Keep the text someone else wrote as `.prev` before replacing it.
    pub keep_prev: bool,
    /// A file with no record and no provenance that holds a summary (a
    /// hipocampus tree): it would be rebuilt as a stub, so it is adopted
    /// instead when its sources still need a summary and it covers as many
    /// source lines as they hold (any number when its frontmatter does not
    /// say). Known only once the sources are read, hence [`Build::covered`].
    pub summary_covers: Option<Option<usize>>,
}

impl Build {
    /// True when the summary on disk is adopted instead of building: the
    /// sources, `source_lines` long, are over the `threshold`.
    pub fn covered(&self, source_lines: usize, threshold: usize) -> bool {
        source_lines > threshold
            && self
                .summary_covers
                .is_some_and(|covers| covers.is_none_or(|n| n == source_lines))
    }
}

/// Decides what to do with one node.
pub(crate) fn plan(node: &Node, policy: &Policy) -> Plan {
    if node.unusable {
        // Reported by the scan; what someone wrote there stays.
        return Plan::Skip;
    }
    let Some(rec) = node.record else {
        return unrecorded(node);
    };
    let inputs = node.inputs;
    if inputs.sources.is_empty() && node.on_disk.is_some() {
        return adopt(None);
    }
    let Some(disk) = node.on_disk else {
        return build(Reason::Missing, false);
    };
    let sources_changed = rec.input_hash != inputs.hash;
    if disk != rec.written_hash && policy.shared && node.front.is_some_and(Front::hipo_wrote) {
        return unrecorded(node);
    }
    if disk != rec.written_hash {
        return if sources_changed {
            build(Reason::SourceChanged, true)
        } else {
            adopt(Some(Reason::Adopted))
        };
    }
    if sources_changed {
        return build(Reason::SourceChanged, rec.adopted);
    }
    if rec.adopted {
        return adopt(None);
    }
    let path = node.id.path();
    let may_retry = policy.calls_model && policy.only.is_none_or(|only| only.contains(&path));
    let other_writer = matches!(&rec.writer, w @ Writer::Model { .. } if w != policy.writer);
    let pending = rec.status == Status::NeedsSummarization;
    if may_retry && (pending || (policy.resummarize && other_writer)) {
        return build(Reason::Retry, false);
    }
    let want = tree::desired_status(
        node.id,
        policy.today,
        pending,
        &inputs.child_statuses,
        inputs.pending.len(),
    );
    if want != rec.status {
        return build(Reason::StatusChange, false);
    }
    Plan::Keep
}

fn build(reason: Reason, keep_prev: bool) -> Plan {
    Plan::Build(Build {
        reason,
        keep_prev,
        summary_covers: None,
    })
}

fn adopt(reason: Option<Reason>) -> Plan {
    Plan::Adopt { reason, own: false }
}

/// A node the store knows nothing of (`.hipo/` deleted, or a hipocampus
/// tree): what its file says about itself decides. With `source-hash`
/// and `body-hash` in its frontmatter, hipo knows whether it wrote the
/// text and whether the sources moved on since; without them, the file
/// is rebuilt, its text kept as `.prev` if it differs, except that a
/// summary covering as many source lines as there are now is adopted.
fn unrecorded(node: &Node) -> Plan {
    if node.on_disk.is_none() {
        return build(Reason::New, false);
    }
    if node.inputs.sources.is_empty() {
        // A daily whose raw log is gone can only be kept as it is.
        return adopt(None);
    }
    let front = node.front;
    let provenance = front.and_then(|f| {
        let own = *f.body_hash.as_ref()? == f.body_now;
        let sources_match = *f.source_hash.as_ref()? == short_hex(&node.inputs.hash);
        Some((own, sources_match))
    });
    let unrecorded = |keep_prev| {
        Plan::Build(Build {
            reason: Reason::Unrecorded,
            keep_prev,
            summary_covers: front.filter(|f| f.summarised).map(|f| f.source_lines),
        })
    };
    match provenance {
        None => unrecorded(true),
        Some((own, false)) => build(Reason::SourceChanged, !own),
        Some((false, true)) => adopt(None),
        Some((true, true)) if front.is_some_and(|f| f.summarised && f.source_lines.is_some()) => {
            Plan::Adopt {
                reason: None,
                own: true,
            }
        }
        Some((true, true)) => unrecorded(false),
    }
}

/// ROOT's decision: `None` keeps it; otherwise why it is rebuilt. ROOT is
/// always rebuilt from the tree: hand-written sections survive inside it.
/// A narrative the model failed to write is retried when `retry` (a model
/// is called this run, for ROOT).
pub(crate) fn plan_root(
    record: Option<&NodeRecord>,
    on_disk: Option<Hash>,
    input_hash: &Hash,
    retry: bool,
) -> Option<Reason> {
    Some(match (record, on_disk) {
        (Some(r), Some(d)) if r.input_hash == *input_hash && r.written_hash == d => {
            if retry && r.status == Status::NeedsSummarization {
                Reason::Retry
            } else {
                return None;
            }
        }
        (Some(r), Some(d)) if r.written_hash != d => Reason::Adopted,
        (Some(_), Some(_)) => Reason::SourceChanged,
        (Some(_), None) => Reason::Missing,
        (None, Some(_)) => Reason::Unrecorded,
        (None, None) => Reason::New,
    })
}

#[cfg(test)]
mod tests;
