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
mod tests {
    use super::*;
    use crate::layout::Week;

    const IN: Hash = [1; 32];
    const WRITTEN: Hash = [2; 32];
    const EDITED: Hash = [3; 32];

    fn d(s: &str) -> NaiveDate {
        s.parse().unwrap()
    }

    fn day() -> NodeId {
        NodeId::Daily(d("2026-03-10"))
    }

    fn inputs() -> Inputs {
        Inputs {
            hash: IN,
            sources: vec!["memory/2026-03-10.md".into()],
            ready: vec!["memory/2026-03-10.md".into()],
            ..Default::default()
        }
    }

    fn record(status: Status) -> NodeRecord {
        NodeRecord {
            input_hash: IN,
            written_hash: WRITTEN,
            content_hash: [0; 32],
            adopted: false,
            status,
            writer: Writer::Copy,
            body_lines: 3,
            source_lines: 3,
            topics: Vec::new(),
            sources: inputs().sources,
            pending: Vec::new(),
        }
    }

    fn model(name: &str) -> Writer {
        Writer::Model {
            model: name.into(),
            prompt_version: "hipo-v1".into(),
        }
    }

    /// Plans a node of `inputs`, recorded as `rec`, whose file hashes to
    /// `on_disk`, on 2026-03-10 (the day is still open: tentative).
    fn run(
        inputs: &Inputs,
        rec: Option<&NodeRecord>,
        on_disk: Option<Hash>,
        front: Option<&Front>,
    ) -> Plan {
        run_with(inputs, rec, on_disk, front, false, &Writer::NoBackend)
    }

    fn run_with(
        inputs: &Inputs,
        rec: Option<&NodeRecord>,
        on_disk: Option<Hash>,
        front: Option<&Front>,
        calls_model: bool,
        writer: &Writer,
    ) -> Plan {
        let node = Node {
            id: day(),
            inputs,
            on_disk,
            record: rec,
            front,
            unusable: false,
        };
        let policy = Policy {
            today: d("2026-03-10"),
            calls_model,
            resummarize: true,
            only: None,
            writer,
            shared: false,
        };
        plan(&node, &policy)
    }

    #[test]
    fn unchanged_input_is_kept() {
        let rec = record(Status::Tentative);
        assert_eq!(run(&inputs(), Some(&rec), Some(WRITTEN), None), Plan::Keep);
    }

    #[test]
    fn changed_input_is_built() {
        let rec = NodeRecord {
            input_hash: [9; 32],
            ..record(Status::Tentative)
        };
        assert_eq!(
            run(&inputs(), Some(&rec), Some(WRITTEN), None),
            build(Reason::SourceChanged, false)
        );
    }

    #[test]
    fn a_missing_file_is_built() {
        let rec = record(Status::Tentative);
        assert_eq!(
            run(&inputs(), Some(&rec), None, None),
            build(Reason::Missing, false)
        );
        assert_eq!(run(&inputs(), None, None, None), build(Reason::New, false));
    }

    #[test]
    fn an_edit_is_adopted_while_sources_stay_and_kept_as_prev_when_they_move() {
        let rec = record(Status::Tentative);
        assert_eq!(
            run(&inputs(), Some(&rec), Some(EDITED), None),
            adopt(Some(Reason::Adopted))
        );
        let moved = Inputs {
            hash: [9; 32],
            ..inputs()
        };
        assert_eq!(
            run(&moved, Some(&rec), Some(EDITED), None),
            build(Reason::SourceChanged, true)
        );
        // Once adopted, the edit stays until the sources move, then is
        // kept as `.prev`.
        let adopted = NodeRecord {
            adopted: true,
            written_hash: EDITED,
            ..rec
        };
        assert_eq!(
            run(&inputs(), Some(&adopted), Some(EDITED), None),
            adopt(None)
        );
        assert_eq!(
            run(&moved, Some(&adopted), Some(EDITED), None),
            build(Reason::SourceChanged, true)
        );
    }

    #[test]
    fn status_moves_on() {
        // Recorded tentative on its own day; the next day it is fixed.
        let rec = record(Status::Tentative);
        let node = Node {
            id: day(),
            inputs: &inputs(),
            on_disk: Some(WRITTEN),
            record: Some(&rec),
            front: None,
            unusable: false,
        };
        let policy = Policy {
            today: d("2026-03-11"),
            calls_model: false,
            resummarize: false,
            only: None,
            writer: &Writer::NoBackend,
            shared: false,
        };
        assert_eq!(plan(&node, &policy), build(Reason::StatusChange, false));
    }

    #[test]
    fn a_pending_summary_is_retried_only_when_a_model_is_called() {
        let rec = record(Status::NeedsSummarization);
        let on = Some(WRITTEN);
        assert_eq!(
            run_with(&inputs(), Some(&rec), on, None, true, &model("a")),
            build(Reason::Retry, false)
        );
        // No model: the stub stays what it is.
        assert_eq!(run(&inputs(), Some(&rec), on, None), Plan::Keep);
        // Another model's summary is redone with --resummarize.
        let other = NodeRecord {
            writer: model("b"),
            ..record(Status::Tentative)
        };
        assert_eq!(
            run_with(&inputs(), Some(&other), on, None, true, &model("a")),
            build(Reason::Retry, false)
        );
        assert_eq!(
            run_with(&inputs(), Some(&other), on, None, true, &model("b")),
            Plan::Keep
        );
    }

    #[test]
    fn an_unreadable_file_is_skipped() {
        let node = Node {
            id: day(),
            inputs: &inputs(),
            on_disk: Some(EDITED),
            record: None,
            front: None,
            unusable: true,
        };
        let policy = Policy {
            today: d("2026-03-10"),
            calls_model: false,
            resummarize: false,
            only: None,
            writer: &Writer::NoBackend,
            shared: false,
        };
        assert_eq!(plan(&node, &policy), Plan::Skip);
    }

    fn front(source_hash: Hash, own: bool) -> Front {
        Front {
            summarised: true,
            source_lines: Some(40),
            source_hash: Some(short_hex(&source_hash)),
            body_hash: Some("aaaa".into()),
            body_now: if own { "aaaa" } else { "bbbb" }.into(),
        }
    }

    #[test]
    fn unrecorded_with_provenance() {
        let i = inputs();
        let on = Some(EDITED);
        // hipo's own summary of the current sources: adopted as its own.
        let f = front(IN, true);
        assert_eq!(
            run(&i, None, on, Some(&f)),
            Plan::Adopt {
                reason: None,
                own: true
            }
        );
        // hipo's own copy (no source-lines): rebuilt, to the same bytes.
        let copy = Front {
            source_lines: None,
            ..f.clone()
        };
        let built = run(&i, None, on, Some(&copy));
        assert!(matches!(built, Plan::Build(b) if b.reason == Reason::Unrecorded && !b.keep_prev));
        // Someone else's text over the current sources: adopted.
        assert_eq!(run(&i, None, on, Some(&front(IN, false))), adopt(None));
        // Sources moved on: rebuilt, someone else's text kept as `.prev`.
        assert_eq!(
            run(&i, None, on, Some(&front([9; 32], false))),
            build(Reason::SourceChanged, true)
        );
        assert_eq!(
            run(&i, None, on, Some(&front([9; 32], true))),
            build(Reason::SourceChanged, false)
        );
    }

    #[test]
    fn unrecorded_without_provenance() {
        let i = inputs();
        let on = Some(EDITED);
        // No frontmatter at all: rebuilt, the old text kept as `.prev`.
        let Plan::Build(b) = run(&i, None, on, None) else {
            panic!("built")
        };
        assert_eq!(
            (b.reason, b.keep_prev, b.summary_covers),
            (Reason::Unrecorded, true, None)
        );
        // A hipocampus summary of 40 source lines: adopted when the sources
        // hold 40 lines over the threshold, rebuilt otherwise.
        let hipocampus = Front {
            source_hash: None,
            body_hash: None,
            ..front(IN, false)
        };
        let Plan::Build(b) = run(&i, None, on, Some(&hipocampus)) else {
            panic!("built")
        };
        assert!(b.keep_prev && b.covered(40, 30));
        assert!(!b.covered(41, 30));
        assert!(!b.covered(40, 50));
        // A stub (needs-summarization) is no summary: rebuilt.
        let stub = Front {
            summarised: false,
            ..hipocampus
        };
        let Plan::Build(b) = run(&i, None, on, Some(&stub)) else {
            panic!("built")
        };
        assert!(!b.covered(40, 30));
        // A daily whose raw log is gone is kept as it is.
        let gone = Inputs::default();
        assert_eq!(run(&gone, None, on, None), adopt(None));
    }

    #[test]
    fn root_is_kept_only_when_inputs_and_file_are_unchanged() {
        let rec = record(Status::Tentative);
        assert_eq!(plan_root(Some(&rec), Some(WRITTEN), &IN, true), None);
        assert_eq!(
            plan_root(Some(&rec), Some(EDITED), &IN, false),
            Some(Reason::Adopted)
        );
        assert_eq!(
            plan_root(Some(&rec), Some(WRITTEN), &[9; 32], false),
            Some(Reason::SourceChanged)
        );
        assert_eq!(
            plan_root(Some(&rec), None, &IN, false),
            Some(Reason::Missing)
        );
        assert_eq!(
            plan_root(None, Some(EDITED), &IN, false),
            Some(Reason::Unrecorded)
        );
        assert_eq!(plan_root(None, None, &IN, false), Some(Reason::New));
        // A narrative the model failed to write is retried with a model.
        let failed = record(Status::NeedsSummarization);
        assert_eq!(plan_root(Some(&failed), Some(WRITTEN), &IN, false), None);
        assert_eq!(
            plan_root(Some(&failed), Some(WRITTEN), &IN, true),
            Some(Reason::Retry)
        );
    }

    #[test]
    fn a_weekly_waits_for_its_days() {
        let week = NodeId::Weekly(Week {
            year: 2026,
            week: 11,
        });
        let i = Inputs {
            child_statuses: vec![Status::Fixed, Status::Tentative],
            ..inputs()
        };
        let rec = record(Status::Tentative);
        let node = Node {
            id: week,
            inputs: &i,
            on_disk: Some(WRITTEN),
            record: Some(&rec),
            front: None,
            unusable: false,
        };
        let policy = Policy {
            today: d("2026-04-01"),
            calls_model: false,
            resummarize: false,
            only: None,
            writer: &Writer::NoBackend,
            shared: false,
        };
        assert_eq!(plan(&node, &policy), Plan::Keep);
    }

    /// On a shared project, a node file that is not what this clone wrote
    /// but whose body hipo wrote (a merge brought it from another clone)
    /// is judged by its frontmatter: a summary of the current sources is
    /// kept, one of other sources rebuilt without a `.prev`; a person's
    /// edit is still an edit. Unshared, the same file is an edit.
    #[test]
    fn a_shared_node_from_another_clone_is_judged_by_its_provenance() {
        let i = inputs();
        let rec = NodeRecord {
            input_hash: [9; 32],
            ..record(Status::Tentative)
        };
        let plan_with = |front: &Front, shared: bool| {
            let node = Node {
                id: day(),
                inputs: &i,
                on_disk: Some(EDITED),
                record: Some(&rec),
                front: Some(front),
                unusable: false,
            };
            let policy = Policy {
                today: d("2026-03-10"),
                calls_model: false,
                resummarize: false,
                only: None,
                writer: &Writer::NoBackend,
                shared,
            };
            plan(&node, &policy)
        };
        assert_eq!(
            plan_with(&front(IN, true), true),
            Plan::Adopt {
                reason: None,
                own: true
            }
        );
        assert_eq!(
            plan_with(&front([9; 32], true), true),
            build(Reason::SourceChanged, false)
        );
        assert_eq!(
            plan_with(&front(IN, false), true),
            build(Reason::SourceChanged, true)
        );
        assert_eq!(
            plan_with(&front(IN, true), false),
            build(Reason::SourceChanged, true)
        );
    }
}
