//! The pack as an agent reads it. It lives with recall because the
//! budget is counted on this text: what is measured is what is shown.

use super::{Pack, Passage};
use crate::markdown::EntryType;
use std::fmt::Write;

/// A recall pack as an agent reads it: the query, the matching ROOT
/// topics, then each passage under `path:lines heading (date, type, note)`,
/// each part only where it says something.
/// Empty when the pack abstained.
pub fn render(pack: &Pack) -> String {
    if pack.abstained {
        return String::new();
    }
    let mut out = head(&pack.query);
    for t in &pack.topics {
        out.push_str(&topic(t));
    }
    let mut told = false;
    for p in &pack.passages {
        out.push_str(&passage(p, told));
        told |= tells_to_check(p);
    }
    out
}

/// What a stale project entry's note asks of the agent, said in full
/// once a pack: after that, a label gives the age alone. In a pack of old
/// sessions every label carried it, a tenth of an 800-token pack.
pub(super) const CHECK: &str = ": check it still holds";

/// Whether `p`'s label, shown in full, asks the agent to check it.
pub(super) fn tells_to_check(p: &Passage) -> bool {
    p.note.as_deref().is_some_and(|n| n.ends_with(CHECK))
}

/// The pack's first line.
pub(super) fn head(query: &str) -> String {
    format!("# hipo recall: {}\n", query.trim())
}

/// A ROOT Topics Index line, as it is.
pub(super) fn topic(line: &str) -> String {
    format!("{line}\n")
}

/// One passage: its label, then its lines indented. A pack repeats a
/// label per passage, so it says each thing once: a heading's first part
/// that is the file's name (a raw log's or a node's date) is left to the
/// path, and the date is given only where neither says it; once an
/// earlier passage has `told` the agent to check a stale entry, the note
/// gives the age alone.
pub(super) fn passage(p: &Passage, told: bool) -> String {
    let stem = std::path::Path::new(&p.path)
        .file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or_default();
    let heading = p
        .heading
        .strip_prefix(stem)
        .and_then(|h| h.strip_prefix(" › "))
        .unwrap_or(&p.heading);
    // Project is what an untagged entry is, and most of any memory: a
    // label names the other types only.
    let mut label: Vec<String> = Vec::new();
    if p.kind != EntryType::Project {
        label.push(p.kind.as_str().to_string());
    }
    if let Some(d) = p
        .date
        .as_ref()
        .filter(|d| !p.path.contains(d.as_str()) && !heading.starts_with(d.as_str()))
    {
        label.insert(0, d.clone());
    }
    if let Some(n) = &p.note {
        let n = if told {
            n.strip_suffix(CHECK).unwrap_or(n)
        } else {
            n
        };
        label.push(n.to_string());
    }
    let lines = match p.lines {
        [a, b] if a == b => a.to_string(),
        [a, b] => format!("{a}-{b}"),
    };
    let mut out = format!("## {}:{lines} {heading}", p.path);
    if !label.is_empty() {
        let _ = write!(out, " ({})", label.join(", "));
    }
    out.push('\n');
    for l in &p.text {
        let _ = writeln!(out, "  {l}");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stale(path: &str, note: &str) -> Passage {
        Passage {
            path: path.into(),
            lines: [3, 3],
            heading: "Session s1".into(),
            date: None,
            kind: EntryType::Project,
            score: 1.0,
            note: Some(note.into()),
            text: vec!["line".into()],
        }
    }

    #[test]
    fn a_pack_asks_to_check_stale_entries_once() {
        let pack = Pack {
            query: "q".into(),
            abstained: false,
            topics: Vec::new(),
            passages: vec![
                stale("memory/2023-05-01.md", "40 days old ?"),
                stale("memory/2023-05-02.md", "39 days old: check it still holds"),
                stale("memory/2023-05-03.md", "38 days old: check it still holds"),
            ],
            tokens: 0,
            held: 1.0,
            beyond_chance: 0.0,
            refers_back: false,
        };
        let text = render(&pack);
        assert_eq!(text.matches("check it still holds").count(), 1, "{text}");
        assert!(text.contains("s1 (40 days old ?)"), "{text}");
        assert!(
            text.contains("s1 (39 days old: check it still holds)"),
            "{text}"
        );
        assert!(text.contains("s1 (38 days old)"), "{text}");
    }

    #[test]
    fn a_label_names_the_type_only_when_it_is_not_project() {
        let mut p = stale("memory/2023-05-01.md", "40 days old ?");
        p.note = None;
        assert_eq!(
            passage(&p, false),
            "## memory/2023-05-01.md:3 Session s1\n  line\n"
        );
        p.kind = EntryType::Feedback;
        assert_eq!(
            passage(&p, false),
            "## memory/2023-05-01.md:3 Session s1 (feedback)\n  line\n"
        );
    }
}
