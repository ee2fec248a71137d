//! A Markdown file cut into the units search returns: sections.
//!
//! A section is the text under one `#` or `##` heading (an entry, a session)
//! with its line and byte range in the file. Sections longer than
//! [`WINDOW_MAX_BYTES`] are cut into overlapping windows on line boundaries,
//! so BM25 compares passages of similar length while every window still
//! reports its section. Lines an agent's user wrote (`User:` turns) are
//! marked so they can be indexed on their own and boosted.
//!
//! Pure: works on a string, never touches the disk. Changing the cut
//! changes what is indexed; bump `index::LAYOUT_VERSION` with it.

use crate::markdown::{self, EntryType};
use std::ops::Range;

/// A section at most this long is one window.
pub const WINDOW_MAX_BYTES: usize = 3000;
/// Windows of a longer section hold about this many bytes...
pub const WINDOW_TARGET_BYTES: usize = 2000;
/// ...and repeat up to this many bytes of the previous window's end.
pub const WINDOW_OVERLAP_BYTES: usize = 400;

/// One searchable unit of a file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Section {
    /// Heading text without the `#`s and the `[type]` tag; empty for text
    /// before the first heading.
    pub heading: String,
    /// The `#` title a `##` section sits under, if any.
    pub title: Option<String>,
    /// The heading's `[type]` tag (untagged is project).
    pub kind: EntryType,
    /// First and last line, 1-based, inclusive, in the whole file.
    pub lines: (usize, usize),
    /// Byte range in the whole file.
    pub bytes: Range<usize>,
    /// The passages indexed for this section, in order.
    pub windows: Vec<Window>,
}

/// A passage of a section.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Window {
    /// First and last line, 1-based, inclusive, in the whole file.
    pub lines: (usize, usize),
    /// Byte range in the whole file.
    pub bytes: Range<usize>,
    /// Line numbers (in the whole file) of lines a user wrote.
    pub user: Vec<usize>,
}

impl Section {
    /// `title › heading`, or whichever exists.
    pub fn heading_path(&self) -> String {
        match (&self.title, self.heading.is_empty()) {
            (Some(t), false) => format!("{t} › {}", self.heading),
            (Some(t), true) => t.clone(),
            (None, _) => self.heading.clone(),
        }
    }
}

/// One line of the file: its byte range (with the newline) and number.
struct Line<'a> {
    text: &'a str,
    start: usize,
    number: usize,
}

/// Cuts a whole file into sections, one at a time: only the lines of the
/// section being cut are held (a 200 MB log's line table and sections,
/// held whole, were 190 MB beside its text). Frontmatter is not a
/// section; a file whose frontmatter is malformed is cut as if it had
/// none.
pub fn split(text: &str) -> Split<'_> {
    let (body_start, first_line) = match markdown::split_frontmatter(text) {
        Ok((Some(_), body, line)) => (text.len() - body.len(), line),
        // A byte order mark is not part of the first line's heading.
        _ => (text.len() - text.trim_start_matches('\u{feff}').len(), 1),
    };
    split_part(&text[body_start..], body_start, first_line, None)
}

/// Cuts a part of a file read in parts (`index::parts`): `text` begins at
/// byte `offset` and line `line` of the file, at a heading (or, with no
/// frontmatter to skip, the file's start), under the `#` title `title`.
/// Sections are placed in the whole file, as [`split`] places them.
pub fn split_part(text: &str, offset: usize, line: usize, title: Option<String>) -> Split<'_> {
    Split {
        lines: text.split_inclusive('\n'),
        offset,
        number: line,
        scan: markdown::HeadingScan::default(),
        current: Vec::new(),
        heading: None,
        title,
        done: false,
    }
}

/// The sections of a file, in order: see [`split`].
pub struct Split<'a> {
    lines: std::str::SplitInclusive<'a, char>,
    /// Byte offset and number of the next line.
    offset: usize,
    number: usize,
    scan: markdown::HeadingScan,
    /// The lines of the section being cut, its heading (depth and text)
    /// and the `#` title it sits under.
    current: Vec<Line<'a>>,
    heading: Option<(usize, String)>,
    title: Option<String>,
    done: bool,
}

impl Iterator for Split<'_> {
    type Item = Section;

    fn next(&mut self) -> Option<Section> {
        while !self.done {
            let Some(text) = self.lines.next() else {
                self.done = true;
                return section(
                    &std::mem::take(&mut self.current),
                    self.heading.take(),
                    &self.title,
                );
            };
            let line = Line {
                text,
                start: self.offset,
                number: self.number,
            };
            self.offset += text.len();
            self.number += 1;
            let Some((depth, h)) = self.scan.line(markdown::without_ending(text)) else {
                self.current.push(line);
                continue;
            };
            let lines = std::mem::replace(&mut self.current, vec![line]);
            let finished = section(
                &lines,
                self.heading.replace((depth, h.to_string())),
                &self.title,
            );
            if depth == 1 {
                self.title = Some(h.to_string());
            }
            if finished.is_some() {
                return finished;
            }
        }
        None
    }
}

/// `#` or `##` followed by a space: 1 or 2.
fn heading_depth(line: &str) -> Option<usize> {
    if line.starts_with("# ") {
        Some(1)
    } else if line.starts_with("## ") {
        Some(2)
    } else {
        None
    }
}

/// The section of `lines` under `heading` (none for text before the first
/// heading), if it is one.
fn section(
    lines: &[Line],
    heading: Option<(usize, String)>,
    title: &Option<String>,
) -> Option<Section> {
    let (first, last) = (lines.first()?, lines.last()?);
    // A body is what follows the heading line (or everything, for preamble).
    let body = if heading.is_some() {
        &lines[1..]
    } else {
        lines
    };
    let has_body = body.iter().any(|l| !l.text.trim().is_empty());
    let (depth, heading) = heading.unwrap_or((0, String::new()));
    // A `# title` with nothing under it is a file's name, not a passage.
    if !has_body && depth != 2 {
        return None;
    }
    let (heading, kind) = if depth == 2 {
        let (h, k) = markdown::split_type_tag(&heading);
        (h.to_string(), k)
    } else {
        (heading, EntryType::Project)
    };
    // Trailing blank lines belong to no one.
    let used = lines.len()
        - lines
            .iter()
            .rev()
            .take_while(|l| l.text.trim().is_empty())
            .count();
    let lines = &lines[..used.max(1)];
    let last = lines.last().unwrap_or(last);
    let user = user_lines(lines);
    Some(Section {
        heading,
        title: if depth == 2 { title.clone() } else { None },
        kind,
        lines: (first.number, last.number),
        bytes: first.start..last.start + last.text.len(),
        windows: windows(lines, &user),
    })
}

/// The first turn of a section's user: the first run of consecutive
/// numbers in `user` (its user's line numbers, in order), a turn with its
/// continuation lines. What a session was opened to ask.
pub fn first_turn(user: &[usize]) -> &[usize] {
    let n = user.windows(2).take_while(|w| w[1] == w[0] + 1).count();
    &user[..user.len().min(n + 1)]
}

/// Cuts a section's lines into windows.
fn windows(lines: &[Line], user: &[bool]) -> Vec<Window> {
    let window = |from: usize, to: usize| -> Window {
        let (a, b) = (&lines[from], &lines[to]);
        Window {
            lines: (a.number, b.number),
            bytes: a.start..b.start + b.text.len(),
            user: (from..=to)
                .filter(|&i| user[i])
                .map(|i| lines[i].number)
                .collect(),
        }
    };
    let (Some(first), Some(last)) = (lines.first(), lines.last()) else {
        return Vec::new();
    };
    let end = last.start + last.text.len();
    if end - first.start <= WINDOW_MAX_BYTES {
        return vec![window(0, lines.len() - 1)];
    }
    let mut out = Vec::new();
    let mut from = 0;
    loop {
        let mut to = from;
        let mut size = lines[from].text.len();
        while to + 1 < lines.len() && size < WINDOW_TARGET_BYTES {
            to += 1;
            size += lines[to].text.len();
        }
        // Fold a short tail into this window rather than leave a scrap.
        let rest = end - (lines[to].start + lines[to].text.len());
        if rest > 0 && rest < WINDOW_TARGET_BYTES / 4 {
            to = lines.len() - 1;
        }
        out.push(window(from, to));
        if to + 1 >= lines.len() {
            return out;
        }
        // Step back over up to WINDOW_OVERLAP_BYTES of this window's end.
        let mut next = to + 1;
        let mut overlap = 0;
        while next - 1 > from && overlap + lines[next - 1].text.len() <= WINDOW_OVERLAP_BYTES {
            next -= 1;
            overlap += lines[next].text.len();
        }
        from = next;
    }
}

/// Who wrote a line of a turn-structured log.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Speaker {
    User,
    Other,
}

/// `User: …`, `**User:** …`, `Human: …` start a user turn; `Assistant:`
/// and the like start someone else's. Continuation lines belong to the
/// turn they follow.
fn speaker(line: &str) -> Option<Speaker> {
    let t = line.trim_start();
    let t = t
        .strip_prefix("- ")
        .or_else(|| t.strip_prefix("> "))
        .or_else(|| t.strip_prefix("* "))
        .unwrap_or(t);
    let t = t.strip_prefix("**").unwrap_or(t);
    let (name, _) = t.split_once(':')?;
    let name = name.trim_end_matches('*').trim();
    match name.to_ascii_lowercase().as_str() {
        "user" | "human" | "me" => Some(Speaker::User),
        "assistant" | "ai" | "agent" | "bot" | "claude" | "model" | "system" | "gpt"
        | "chatgpt" | "codex" => Some(Speaker::Other),
        _ => None,
    }
}

/// For each line, whether it is part of a user turn.
fn user_lines(lines: &[Line]) -> Vec<bool> {
    let mut current = None;
    lines
        .iter()
        .map(|l| {
            if heading_depth(l.text).is_some() || l.text.starts_with("### ") {
                current = None;
            } else if let Some(s) = speaker(l.text) {
                current = Some(s);
            }
            current == Some(Speaker::User)
        })
        .collect()
}

/// A section's identity for collapsing copies: the same text in the raw
/// log, a daily copy and a weekly concatenation hashes the same. Lines are
/// compared without trailing space; blank lines and hipo's own `<!-- hipo`
/// markers are ignored. Give it redacted text: nodes are written redacted.
pub fn fingerprint(text: &str) -> u64 {
    let mut hasher = blake3::Hasher::new();
    for line in text.lines() {
        let line = line.trim_end();
        if line.is_empty() || line.starts_with("<!-- hipo") {
            continue;
        }
        hasher.update(line.as_bytes());
        hasher.update(b"\n");
    }
    let hash = hasher.finalize();
    let mut first = [0u8; 8];
    first.copy_from_slice(&hash.as_bytes()[..8]);
    u64::from_le_bytes(first)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cuts_at_headings_outside_fences() {
        let text = "---\ntype: daily\n---\n# 2026-03-15\n\n## Deploy [project]\nship it\n```\n## not a heading\n```\n\n## Terse [feedback]\n- rule: short\n\n\n";
        let s: Vec<Section> = split(text).collect();
        assert_eq!(s.len(), 2, "{s:#?}");
        assert_eq!(s[0].heading, "Deploy");
        assert_eq!(s[0].title.as_deref(), Some("2026-03-15"));
        assert_eq!(s[0].lines, (6, 10));
        assert_eq!(s[1].kind, EntryType::Feedback);
        assert_eq!(s[1].lines, (12, 13));
        assert_eq!(
            &text[s[1].bytes.clone()],
            "## Terse [feedback]\n- rule: short\n"
        );
        assert_eq!(s[1].heading_path(), "2026-03-15 › Terse");
    }

    #[test]
    fn preamble_and_h1_with_body_are_sections() {
        let s: Vec<Section> = split("intro line\n# Guide\nbody\n## Empty [user]\n").collect();
        let headings: Vec<_> = s.iter().map(|s| s.heading.as_str()).collect();
        assert_eq!(headings, vec!["", "Guide", "Empty"]);
        assert_eq!(s[2].lines, (4, 4));
    }

    #[test]
    fn long_sections_become_overlapping_windows() {
        let mut text = String::from("## Session x\n");
        for i in 0..100 {
            text.push_str(&format!("Assistant: line {i} {}\n", "word ".repeat(18)));
        }
        let s = &split(&text).collect::<Vec<_>>()[0];
        assert!(s.windows.len() > 3, "{}", s.windows.len());
        assert_eq!(s.windows[0].lines.0, 1);
        assert_eq!(s.windows.last().unwrap().lines.1, 101);
        for w in s.windows.windows(2) {
            assert!(w[1].lines.0 <= w[0].lines.1, "windows overlap: {w:?}");
            assert!(w[1].lines.0 > w[0].lines.0);
        }
        for w in &s.windows {
            assert!(
                w.bytes.len() <= WINDOW_TARGET_BYTES + 200,
                "{}",
                w.bytes.len()
            );
        }
    }

    #[test]
    fn user_turns_are_marked_with_continuations() {
        let text = "## S\nUser: I camped in Yosemite\nalone, in May\nAssistant: nice\n**User:** and Zion\n";
        let s = &split(text).collect::<Vec<_>>()[0];
        assert_eq!(s.windows[0].user, vec![2, 3, 5]);
    }

    #[test]
    fn copies_share_a_fingerprint() {
        let raw = "## Deploy [project]\n- ship it  \n\n- done\n";
        let weekly = "## Deploy [project]\n- ship it\n- done\n\n<!-- hipo: waiting for x -->\n";
        assert_eq!(fingerprint(raw), fingerprint(weekly));
        assert_ne!(
            fingerprint(raw),
            fingerprint("## Deploy [project]\n- ship it\n")
        );
    }
}

#[cfg(test)]
use crate::strategies;

#[cfg(test)]
#[path = "sections_props.rs"]
mod props;
