//! The merge of a file hipo derives from the raw logs: a node, ROOT.md
//! (and OpenClaw's MEMORY.md), `memory/.compaction-state.json`.
//!
//! Two clones that compacted different raw logs wrote two versions of the
//! same node; splicing them line by line would give a text neither wrote,
//! which the next compaction would take for a person's edit. So a node is
//! one side whole, picked by what it is worth keeping, the same pick from
//! either clone. Nothing needs marking beyond that: the node's frontmatter
//! says which inputs it was built from (`source-hash`) and whether hipo
//! wrote its body (`body-hash`), and on a shared project the next
//! compaction judges a node whose file is not what this clone's store
//! recorded by those lines (see `compact::plan`): rebuilt when its sources
//! moved on, kept when they did not (a model's summary is not asked for
//! again), adopted when a person wrote it.

use crate::config::CompactionState;
use crate::markdown::{self, Status};

/// What makes one side of a node worth more than the other, in order: a
/// text a person (or an agent) wrote, which hipo cannot write again; a
/// model's summary, which costs a call; a summary over a stub waiting for
/// one; more source lines covered. Equal ranks fall to the bytes.
#[derive(Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Worth {
    written_by_someone: bool,
    by_model: bool,
    summarised: bool,
    source_lines: usize,
}

fn worth(text: &str) -> Worth {
    let Ok(doc) = markdown::parse_document(text) else {
        return Worth {
            written_by_someone: true,
            by_model: false,
            summarised: false,
            source_lines: 0,
        };
    };
    let Some(fm) = doc.frontmatter else {
        return Worth {
            written_by_someone: true,
            by_model: false,
            summarised: true,
            source_lines: 0,
        };
    };
    let body_now = crate::compact::short_hash(doc.body.as_bytes());
    Worth {
        written_by_someone: fm.body_hash.as_ref() != Some(&body_now),
        by_model: fm.model.is_some(),
        summarised: matches!(fm.status(), Some(Status::Tentative | Status::Fixed)),
        source_lines: fm.source_lines.unwrap_or(0),
    }
}

/// One side of a node, whole: the one worth more ([`Worth`]), the greater
/// text when they are worth the same.
pub fn node<'a>(ours: &'a str, theirs: &'a str) -> &'a str {
    let key = |t: &'a str| (worth(t), t);
    if key(ours) >= key(theirs) {
        ours
    } else {
        theirs
    }
}

/// hipocampus's trigger state: the later run, the larger counters, every
/// other key either side kept (ours where both have one). A side that
/// cannot be read gives way to the other.
pub fn state(ours: &str, theirs: &str) -> String {
    let parse = |t: &str| serde_json::from_str::<CompactionState>(t).ok();
    let (o, t) = match (parse(ours), parse(theirs)) {
        (Some(o), Some(t)) => (o, t),
        (Some(_), None) | (None, None) => return ours.to_string(),
        (None, Some(_)) => return theirs.to_string(),
    };
    let mut merged = CompactionState {
        last_compaction_run: o.last_compaction_run.max(t.last_compaction_run),
        raw_lines_since_last_compaction: o
            .raw_lines_since_last_compaction
            .max(t.raw_lines_since_last_compaction),
        checkpoints_since_last_compaction: o
            .checkpoints_since_last_compaction
            .max(t.checkpoints_since_last_compaction),
        extra: t.extra,
    };
    merged.extra.extend(o.extra);
    let mut text = serde_json::to_string_pretty(&merged).unwrap_or_else(|_| ours.to_string());
    text.push('\n');
    text
}

/// A text cut into what precedes its first `## ` section and its sections,
/// each keyed by its title and how many sections of that title came
/// before it.
fn cut(text: &str) -> (&str, Keyed<'_>) {
    let sections = markdown::sections(text);
    let first = sections.first().map_or(text.len(), |s| s.start);
    let mut seen: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
    let keyed = sections
        .iter()
        .map(|s| {
            let n = seen.entry(s.title).or_insert(0);
            *n += 1;
            ((s.title, *n), &text[s.start..s.end])
        })
        .collect();
    (&text[..first], keyed)
}

type Keyed<'a> = Vec<((&'a str, usize), &'a str)>;

fn find<'a>(list: &Keyed<'a>, key: (&str, usize)) -> Option<&'a str> {
    list.iter().find(|(k, _)| *k == key).map(|(_, t)| *t)
}

/// A three-way choice: a side's change wins over the base, the same change
/// on both is taken once, two different changes give the greater text.
fn choose<'a>(
    base: Option<&'a str>,
    ours: Option<&'a str>,
    theirs: Option<&'a str>,
) -> Option<&'a str> {
    if ours == base {
        theirs
    } else if theirs == base || ours == theirs {
        ours
    } else {
        ours.max(theirs)
    }
}

/// ROOT.md or MEMORY.md, `## ` section by section: a section one side
/// changed (a person's note, a narrative) takes that side's text, so two
/// people's notes in different sections both stay; a section both changed
/// differently is one side's whole. The computed sections are rebuilt by
/// the next compaction anyway. Sections come in the order of the side
/// with the greater text, then those only the other side has.
pub fn sections(base: &str, ours: &str, theirs: &str) -> String {
    let (first, second) = if ours >= theirs {
        (ours, theirs)
    } else {
        (theirs, ours)
    };
    let (bp, bs) = cut(base);
    let (fp, fs) = cut(first);
    let (sp, ss) = cut(second);
    let mut parts: Vec<&str> = Vec::new();
    parts.extend(choose(Some(bp), Some(fp), Some(sp)));
    let keys = fs.iter().map(|(k, _)| *k).chain(
        ss.iter()
            .map(|(k, _)| *k)
            .filter(|k| find(&fs, *k).is_none()),
    );
    for key in keys {
        parts.extend(choose(find(&bs, key), find(&fs, key), find(&ss, key)));
    }
    let mut out = String::new();
    for part in parts {
        if !out.is_empty() && !out.ends_with('\n') {
            out.push('\n');
        }
        out.push_str(part);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn node_text(body: &str, extra: &str) -> String {
        let hash = crate::compact::short_hash(body.as_bytes());
        format!("---\ntype: daily\nstatus: tentative\n{extra}body-hash: {hash}\n---\n{body}")
    }

    #[test]
    fn a_node_is_one_side_whole_and_the_same_side_from_either_clone() {
        let copy = node_text("## A\n- x\n", "");
        let model = node_text("summary\n", "model: qwen\n");
        assert_eq!(node(&copy, &model), model);
        assert_eq!(node(&model, &copy), model);
        let edited = copy.replace("- x", "- by hand");
        assert_eq!(node(&edited, &model), edited);
        assert_eq!(node(&model, &edited), edited);
        let other = node_text("## B\n- y\n", "");
        assert_eq!(node(&copy, &other), node(&other, &copy));
    }

    #[test]
    fn the_state_keeps_the_later_run_and_every_key() {
        let a = r#"{"lastCompactionRun": "2027-01-21T10:00:00Z", "rawLinesSinceLastCompaction": 4, "mine": 1}"#;
        let b =
            r#"{"lastCompactionRun": "2027-01-21T11:00:00Z", "checkpointsSinceLastCompaction": 2}"#;
        let m: serde_json::Value = serde_json::from_str(&state(a, b)).unwrap();
        assert_eq!(m["lastCompactionRun"], "2027-01-21T11:00:00Z");
        assert_eq!(m["rawLinesSinceLastCompaction"], 4);
        assert_eq!(m["checkpointsSinceLastCompaction"], 2);
        assert_eq!(m["mine"], 1);
        assert_eq!(state(a, b), state(b, a));
        assert_eq!(state("not json", b), b);
    }

    #[test]
    fn each_side_keeps_the_sections_it_changed() {
        let base = "# ROOT\n\n## Active Context\nold\n\n## Notes\nbase\n";
        let ours = "# ROOT\n\n## Active Context\nours\n\n## Notes\nbase\n";
        let theirs = "# ROOT\n\n## Active Context\nold\n\n## Notes\ntheirs\n\n## Extra\nnew\n";
        let m = sections(base, ours, theirs);
        assert_eq!(m, sections(base, theirs, ours));
        assert!(m.contains("ours\n") && m.contains("theirs\n") && m.contains("## Extra\nnew\n"));
        assert!(!m.contains("old") && !m.contains("base"));
        assert!(!m.contains("<<<<<<<"));
    }
}
