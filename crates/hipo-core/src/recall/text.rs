//! The pack as an agent reads it. It lives with recall because the
//! budget is counted on this text: what is measured is what is shown.

use super::{Pack, Passage};
use std::fmt::Write;

/// A recall pack as an agent reads it: the query, the matching ROOT
/// topics, then each passage under `path:lines (date, type, note)`.
/// Empty when the pack abstained.
pub fn render(pack: &Pack) -> String {
    if pack.abstained {
        return String::new();
    }
    let mut out = head(&pack.query);
    for t in &pack.topics {
        out.push_str(&topic(t));
    }
    for p in &pack.passages {
        out.push_str(&passage(p));
    }
    out
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
/// path, and the date is given only where neither says it.
pub(super) fn passage(p: &Passage) -> String {
    let stem = std::path::Path::new(&p.path)
        .file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or_default();
    let heading = p
        .heading
        .strip_prefix(stem)
        .and_then(|h| h.strip_prefix(" › "))
        .unwrap_or(&p.heading);
    let mut label = vec![p.kind.as_str().to_string()];
    if let Some(d) = p
        .date
        .as_ref()
        .filter(|d| !p.path.contains(d.as_str()) && !heading.starts_with(d.as_str()))
    {
        label.insert(0, d.clone());
    }
    if let Some(n) = &p.note {
        label.push(n.clone());
    }
    let lines = match p.lines {
        [a, b] if a == b => a.to_string(),
        [a, b] => format!("{a}-{b}"),
    };
    let mut out = format!("## {}:{lines} {heading} ({})\n", p.path, label.join(", "));
    for l in &p.text {
        let _ = writeln!(out, "  {l}");
    }
    out
}
