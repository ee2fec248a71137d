//! The plan's cases: keep, adopt, build, skip, by what the store and the disk say.

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
