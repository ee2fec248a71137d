//! "What happened last week": the entries of the raw logs and the nodes
//! of the tree whose period falls in a date range, newest first, each with
//! the `path:line` to read it at.
//!
//! Read straight from the Markdown (no index, no store), so it is always
//! current and needs no lock. Headings and topics are redacted.

use crate::error::{Error, Result};
use crate::fsutil::read_utf8;
use crate::layout::{DocLevel, NodeId, PathKind, classify};
use crate::markdown::{EntryType, Status, Topic, entries, parse_document};
use crate::redact::redact;
use chrono::NaiveDate;
use serde::Serialize;
use std::path::Path;

/// One line of a timeline: a raw log's entry, or a node.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Item {
    /// The entry's day, or the node's period (`2027-W03`, `2027-01`).
    pub period: String,
    pub path: String,
    /// 1-based line: the entry's heading, or the node's first line.
    pub line: usize,
    pub level: DocLevel,
    /// The entry's type (entries only).
    #[serde(rename = "type", skip_serializing_if = "Option::is_none")]
    pub kind: Option<EntryType>,
    /// The entry's heading, without its type tag (entries only).
    #[serde(skip_serializing_if = "String::is_empty")]
    pub title: String,
    /// The node's status (nodes only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub status: Option<Status>,
    /// The node's topics, `keyword [type]` (nodes only).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub topics: Vec<String>,
    /// Sort key: the day, or the last day of the node's period within the
    /// range.
    #[serde(skip)]
    day: NaiveDate,
}

/// The entries and nodes of `root` between `from` and `to` (inclusive),
/// newest first: on the same day, a monthly before a weekly before a daily
/// before the day's entries, the last entry first. With `kind`, only
/// entries of that type, and nodes holding a topic of that type (showing
/// those topics only). Files hipo cannot read are skipped.
pub fn timeline(
    root: &Path,
    from: NaiveDate,
    to: NaiveDate,
    kind: Option<EntryType>,
) -> Result<Vec<Item>> {
    if from > to {
        return Err(Error::Usage(format!(
            "the range {from}..{to} is empty: `from` must be on or before `to`"
        )));
    }
    let mut items = Vec::new();
    for dir in ["memory", "memory/daily", "memory/weekly", "memory/monthly"] {
        let Ok(read) = std::fs::read_dir(root.join(dir)) else {
            continue;
        };
        for e in read.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            let rel = format!("{dir}/{name}");
            match classify(&rel) {
                Ok(PathKind::Raw(day)) if from <= day && day <= to => {
                    raw_entries(root, &rel, day, kind, &mut items);
                }
                Ok(PathKind::Node(id)) => {
                    if let Some(item) = node(root, &rel, id, from, to, kind) {
                        items.push(item);
                    }
                }
                _ => {}
            }
        }
    }
    items.sort_by(|a, b| {
        b.day
            .cmp(&a.day)
            .then(b.level.cmp(&a.level))
            .then(b.line.cmp(&a.line))
    });
    Ok(items)
}

fn raw_entries(
    root: &Path,
    rel: &str,
    day: NaiveDate,
    kind: Option<EntryType>,
    out: &mut Vec<Item>,
) {
    let Ok(text) = read_utf8(root, rel) else {
        return;
    };
    for e in entries(&text) {
        if kind.is_some_and(|k| k != e.kind) {
            continue;
        }
        out.push(Item {
            period: day.to_string(),
            path: rel.to_string(),
            line: e.line,
            level: DocLevel::Raw,
            kind: Some(e.kind),
            title: redact(&e.title).into_owned(),
            status: None,
            topics: Vec::new(),
            day,
        });
    }
}

fn node(
    root: &Path,
    rel: &str,
    id: NodeId,
    from: NaiveDate,
    to: NaiveDate,
    kind: Option<EntryType>,
) -> Option<Item> {
    let (lo, hi) = id.date_range()?;
    if hi < from || lo > to {
        return None;
    }
    let text = read_utf8(root, rel).ok()?;
    let fm = parse_document(&text).ok()?.frontmatter.unwrap_or_default();
    let topics: Vec<String> = fm
        .topics
        .iter()
        .filter_map(|t| Topic::parse(t))
        .filter(|t| kind.is_none_or(|k| k == t.kind))
        .map(|t| t.render())
        .collect();
    if kind.is_some() && topics.is_empty() {
        return None;
    }
    Some(Item {
        period: id.period(),
        path: rel.to_string(),
        line: 1,
        level: DocLevel::of(PathKind::Node(id)),
        kind: None,
        title: String::new(),
        status: fm.status(),
        topics,
        day: hi.min(to),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(s: &str) -> NaiveDate {
        NaiveDate::parse_from_str(s, "%Y-%m-%d").unwrap()
    }

    #[test]
    fn entries_and_nodes_newest_first_and_filtered_by_type() {
        let dir = tempfile::tempdir().unwrap();
        let w = |rel: &str, text: &str| {
            let p = dir.path().join(rel);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, text).unwrap();
        };
        w(
            "memory/2027-01-18.md",
            "# 2027-01-18\n\n## Deploy [project]\nx\n## Tabs please [feedback]\ny\n",
        );
        w(
            "memory/2027-01-20.md",
            "# 2027-01-20\n\n## Call Ana [user]\nz\n",
        );
        w("memory/2027-01-02.md", "# 2027-01-02\n\n## Too early\n");
        w(
            "memory/weekly/2027-W03.md",
            "---\ntype: weekly\nstatus: tentative\ntopics: [deploy [project], tabs-please [feedback]]\n---\nbody\n",
        );
        let all = timeline(dir.path(), d("2027-01-15"), d("2027-01-31"), None).unwrap();
        let lines: Vec<String> = all
            .iter()
            .map(|i| format!("{}:{} {}", i.path, i.line, i.title))
            .collect();
        assert_eq!(
            lines,
            vec![
                "memory/weekly/2027-W03.md:1 ",
                "memory/2027-01-20.md:3 Call Ana",
                "memory/2027-01-18.md:5 Tabs please",
                "memory/2027-01-18.md:3 Deploy",
            ]
        );
        assert_eq!(all[0].status, Some(Status::Tentative));
        let fb = timeline(
            dir.path(),
            d("2027-01-15"),
            d("2027-01-31"),
            Some(EntryType::Feedback),
        )
        .unwrap();
        assert_eq!(fb.len(), 2);
        assert_eq!(fb[0].topics, vec!["tabs-please [feedback]"]);
        assert_eq!(fb[1].title, "Tabs please");
        assert!(timeline(dir.path(), d("2027-02-01"), d("2027-01-01"), None).is_err());
    }
}
