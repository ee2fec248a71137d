//! What hipo writes itself when the model's answer for one part of a node
//! was refused twice: the part summarised mechanically, so the node still
//! completes (no node waits for a rule's sake). Pure.
//!
//! A part keeps what a copy node would: its entry headings as topics, and
//! its `[user]` and `[feedback]` items verbatim; a chat log's session keeps
//! its first user line. A merge the model could not write is the parts'
//! sections put together, repeats dropped. The node then says which parts
//! hipo wrote ([`MARKER`]), and `hipo status` reports it.

use super::ground::{normalise, words};
use super::sections::REQUIRED_SECTIONS;
use crate::markdown::{EntryType, split_type_tag};
use crate::summarize::SourceText;

/// How the line naming a node's mechanical parts begins (a hipo marker:
/// never sent to a model).
pub const MARKER: &str = "<!-- hipo:mechanical-parts ";

/// The longest user line kept for a session of a chat log.
const USER_LINE_CHARS: usize = 200;

/// One part's summary written by hipo: entry headings, user and feedback
/// items verbatim, in the five sections.
pub(super) fn part(sources: &[SourceText]) -> String {
    let mut topics: Vec<String> = Vec::new();
    for s in sources {
        topics.extend(entries(&s.body));
    }
    if topics.is_empty() {
        topics.push(format!(
            "- {} [project]",
            sources
                .iter()
                .map(|s| s.path.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    let mut out = format!("{}\n{}\n", REQUIRED_SECTIONS[0], topics.join("\n"));
    for s in &REQUIRED_SECTIONS[1..] {
        out.push_str(s);
        out.push_str("\n- none\n");
    }
    out
}

/// The topic lines of one source: `## Title [type]` entries (a user or
/// feedback entry with its lines verbatim), a summary's `- keyword [type]`
/// lines (user and feedback ones whole), a session with its first user
/// line.
fn entries(body: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    // The open entry: its index in `out` and whether its lines are kept.
    let mut open: Option<(usize, bool)> = None;
    let mut in_topics = false;
    for line in body.lines() {
        let t = line.trim();
        if let Some(h) = t.strip_prefix("## ") {
            in_topics = h.trim() == "Topics";
            open = None;
            if REQUIRED_SECTIONS.iter().any(|s| s[3..] == *h.trim()) {
                continue;
            }
            let (name, kind) = split_type_tag(h.trim());
            let keep = matches!(kind, EntryType::User | EntryType::Feedback);
            out.push(format!("- {name} [{}]", kind.as_str()));
            open = Some((out.len() - 1, keep));
            continue;
        }
        if in_topics && let Some(b) = t.strip_prefix("- ") {
            let (head, _) = b.split_once("]").unwrap_or((b, ""));
            let keep = head.ends_with("[user") || head.ends_with("[feedback");
            if b != "none" {
                out.push(format!("- {}", if keep { b } else { head_of(b) }));
            }
            continue;
        }
        let Some((i, keep)) = open else { continue };
        let first_user = t.strip_prefix("User:").map(str::trim);
        let item = if keep && !t.is_empty() {
            Some(t.trim_start_matches("- "))
        } else {
            first_user.filter(|_| !out[i].contains(": "))
        };
        if let Some(item) = item {
            let item: String = item.chars().take(USER_LINE_CHARS).collect();
            let sep = if out[i].contains("]: ") { "; " } else { ": " };
            out[i].push_str(sep);
            out[i].push_str(&item);
        }
    }
    out
}

/// `keyword [type]` of a topic line, without its details.
fn head_of(bullet: &str) -> &str {
    match bullet.find("]") {
        Some(end) => &bullet[..=end],
        None => bullet,
    }
}

/// Partial summaries put together section by section, repeats dropped:
/// a merge the model could not write.
pub(super) fn merge(partials: &[String]) -> String {
    let mut out = String::new();
    for (i, s) in REQUIRED_SECTIONS.iter().enumerate() {
        out.push_str(s);
        out.push('\n');
        for p in partials {
            out.push_str(&section(p, i));
        }
    }
    normalise(&out).text
}

/// The bullets of the `i`th required section of `summary`.
fn section(summary: &str, i: usize) -> String {
    let mut on = false;
    let mut out = String::new();
    for line in summary.lines() {
        if line.starts_with("## ") {
            on = line.trim_end() == REQUIRED_SECTIONS[i];
            continue;
        }
        if on && line.trim().starts_with("- ") && !words(line).is_empty() {
            out.push_str(line.trim());
            out.push('\n');
        }
    }
    out
}

/// The marker line for a node of `total` parts of which `mechanical` (by
/// number, with why the model's answer was refused) were written by hipo,
/// and whether the merge was.
pub(super) fn marker(total: usize, mechanical: &[(usize, String)], merged_by_hipo: bool) -> String {
    let parts: Vec<String> = mechanical
        .iter()
        .map(|(i, why)| format!("part {i} ({})", why.replace("--", "-")))
        .collect();
    let merge = if merged_by_hipo {
        "; the merge by hipo"
    } else {
        ""
    };
    format!(
        "{MARKER}{} of {total} by hipo: {}{merge} -->\n",
        mechanical.len(),
        parts.join(", ")
    )
}

/// What the marker of a node's body says, for `hipo status`.
pub fn read_marker(body: &str) -> Option<String> {
    body.lines()
        .take(8)
        .find_map(|l| l.strip_prefix(MARKER))
        .map(|l| l.trim_end_matches("-->").trim().to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn src(body: &str) -> SourceText {
        SourceText {
            path: "memory/2027-01-12.md".into(),
            lines: body.lines().count(),
            body: body.into(),
        }
    }

    #[test]
    fn a_part_keeps_headings_and_user_items_verbatim() {
        let s = src(
            "# 2027-01-12\n\n## Deadlock in invoice splitting [project]\n- fix in PR #440\n\n## Write the lock order down [feedback]\n- rule: invoices before lines\n- why: deadlock\n\n## Session s1305df1291\nSession Date: 2023-04-02\n\nUser: find charity events in LA\nAssistant: sure\n### Preparation:\nUser: later\n",
        );
        let p = part(&[s]);
        assert!(
            p.starts_with("## Topics\n- Deadlock in invoice splitting [project]\n- Write the lock order down [feedback]: rule: invoices before lines; why: deadlock\n- Session s1305df1291 [project]: find charity events in LA\n## Key Decisions\n- none\n"),
            "{p}"
        );
        assert!(crate::llm::prompt::accept(&p).is_ok(), "{p}");
    }

    #[test]
    fn a_part_of_summaries_keeps_their_user_items() {
        let s = src(
            "## Topics\n- Mina [user]: async written reviews\n- postgres [project]: logical replication\n## Key Decisions\n- logical replication\n",
        );
        assert!(part(&[s]).starts_with(
            "## Topics\n- Mina [user]: async written reviews\n- postgres [project]\n## Key"
        ));
    }

    #[test]
    fn a_merge_by_hipo_puts_sections_together() {
        let a = "## Topics\n- a [project]: x\n## Key Decisions\n- ship 3.8 on Monday\n## Tasks Completed\n- none\n## Lessons Learned\n- none\n## Open Items\n- none\n";
        let b = a.replace("- a [project]: x", "- b [user]: y");
        let m = merge(&[a.to_string(), b]);
        assert_eq!(
            m,
            "## Topics\n- a [project]: x\n- b [user]: y\n## Key Decisions\n- ship 3.8 on Monday\n## Tasks Completed\n- none\n## Lessons Learned\n- none\n## Open Items\n- none\n"
        );
        let line = marker(38, &[(5, "the answer drops -- x".into())], false);
        assert_eq!(
            read_marker(&format!("{line}## Topics\n")).unwrap(),
            "1 of 38 by hipo: part 5 (the answer drops - x)"
        );
    }
}
