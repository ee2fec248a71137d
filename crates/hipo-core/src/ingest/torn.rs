//! A capture killed in the middle of its write. An entry goes out in one
//! `write`, but a SIGKILL can land inside it: the raw log then ends in the
//! first part of the entry, without its watermark, and the next capture,
//! reading from the old watermark, would write every message again. The
//! raw log is never cut back (the platform, another writer, may append to
//! it; OpenClaw rewrites it whole), so the next capture recognises its own
//! torn entry instead: what it would write now starts with the same bytes
//! (the transcript is read from the same watermark, and rendering is
//! deterministic).
//!
//! - The raw log still ends in the torn part: the capture writes the rest,
//!   and the entry is byte for byte what an uninterrupted capture wrote.
//! - Something was appended after the torn part: the messages the torn part
//!   holds whole are not written again; the new entry starts at the first
//!   one it cut (whose first part stays in the raw log, as written).

use crate::error::{Error, Result};
use crate::ingest::MARK_PREFIX;
use std::path::Path;

/// What to do with a capture's rendered entry.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Plan {
    /// No torn entry of this capture: append it.
    Fresh,
    /// The raw log ends in the first `held` bytes of the entry, whose
    /// heading is on line `line`: append the rest.
    Finish { held: usize, line: usize },
    /// A torn entry holds the first `messages` messages whole: append an
    /// entry of the others.
    Skip { messages: usize },
}

/// The plan for appending `text` (a capture's entry, rendered) to the raw
/// log at `path`.
pub(crate) fn plan(path: &Path, text: &str) -> Result<Plan> {
    crate::journal::regular(path)?;
    let log = match std::fs::read(path) {
        Ok(log) => log,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Plan::Fresh),
        Err(e) => return Err(Error::io(path, e)),
    };
    Ok(plan_in(&log, text.as_bytes()))
}

fn plan_in(log: &[u8], text: &[u8]) -> Plan {
    if let Some(at) = ending_in_part_of(log, text) {
        return Plan::Finish {
            held: log.len() - at,
            line: line_of(log, at),
        };
    }
    match held_behind(log, text) {
        0 => Plan::Fresh,
        messages => Plan::Skip { messages },
    }
}

/// Where the raw log's tail that is a first part of `text` starts: a line
/// start from which the rest of the log is a proper prefix of `text`.
fn ending_in_part_of(log: &[u8], text: &[u8]) -> Option<usize> {
    let from = log.len().saturating_sub(text.len().saturating_sub(1));
    (from..log.len()).find(|&at| {
        (at == 0 || log[at - 1] == b'\n') && log[at] == b'#' && text.starts_with(&log[at..])
    })
}

/// 1-based line of byte `at`.
fn line_of(log: &[u8], at: usize) -> usize {
    log[..at].iter().filter(|b| **b == b'\n').count() + 1
}

/// The messages a torn copy of `text` followed by other text holds whole:
/// the last place the log has `text`'s heading line, after the last
/// watermark of the same transcript (a torn entry before it was dealt with
/// by the capture that wrote that watermark), when what follows it up to
/// the next heading carries no watermark (a whole entry with that heading
/// is some other capture's), counted up to where the two differ.
fn held_behind(log: &[u8], text: &[u8]) -> usize {
    let Some(heading_end) = text.iter().position(|b| *b == b'\n').map(|i| i + 1) else {
        return 0;
    };
    let heading = &text[..heading_end];
    let after_mark = own_mark(text).map_or(0, |mark| last_whole_line(log, mark));
    let Some(at) = (after_mark..log.len())
        .rev()
        .find(|&at| (at == 0 || log[at - 1] == b'\n') && log[at..].starts_with(heading))
    else {
        return 0;
    };
    let after = &log[at + heading_end..];
    let until = line_starts(after)
        .find(|&i| after[i..].starts_with(b"# ") || after[i..].starts_with(b"## "))
        .unwrap_or(after.len());
    let entry = &after[..until];
    let whole_mark = |l: &[u8]| l.starts_with(MARK_PREFIX.as_bytes()) && contains(l, b"-->");
    if entry.split(|b| *b == b'\n').any(whole_mark) {
        return 0;
    }
    let same = heading_end
        + entry
            .iter()
            .zip(&text[heading_end..])
            .take_while(|(a, b)| a == b)
            .count();
    // A message is held whole when the next one (or the watermark) starts
    // inside the common part.
    let starts: Vec<usize> = line_starts(text)
        .filter(|&i| i >= heading_end && starts_message(&text[i..]))
        .collect();
    starts.windows(2).filter(|w| w[1] <= same).count()
}

/// The start of `text`'s own watermark, `<!-- hipo:ingest PLATFORM KEY `,
/// which every watermark of its transcript shares.
fn own_mark(text: &[u8]) -> Option<&[u8]> {
    let body = text.strip_suffix(b"\n")?;
    let start = body.iter().rposition(|b| *b == b'\n').map_or(0, |i| i + 1);
    let line = &body[start..];
    let rest = line.strip_prefix(MARK_PREFIX.as_bytes())?;
    let mut spaces = rest
        .iter()
        .enumerate()
        .filter(|(_, b)| **b == b' ')
        .map(|(i, _)| i);
    let after_key = spaces.nth(1)? + 1;
    Some(&line[..MARK_PREFIX.len() + after_key])
}

/// The offset just past the last whole line of `log` that starts with
/// `prefix` and holds `-->` (0 when none does).
fn last_whole_line(log: &[u8], prefix: &[u8]) -> usize {
    line_starts(log)
        .filter(|&i| log[i..].starts_with(prefix))
        .filter_map(|i| {
            let end = log[i..].iter().position(|b| *b == b'\n')? + i;
            contains(&log[i..end], b"-->").then_some(end + 1)
        })
        .last()
        .unwrap_or(0)
}

/// Lines that start a message of a capture's body, or its watermark.
fn starts_message(line: &[u8]) -> bool {
    ["User: ", "Assistant: ", "Tool: ", "Output: ", MARK_PREFIX]
        .iter()
        .any(|p| line.starts_with(p.as_bytes()))
}

fn line_starts(bytes: &[u8]) -> impl Iterator<Item = usize> + '_ {
    std::iter::once(0).chain(
        bytes
            .iter()
            .enumerate()
            .filter(|(i, b)| **b == b'\n' && i + 1 < bytes.len())
            .map(|(i, _)| i + 1),
    )
}

fn contains(hay: &[u8], needle: &[u8]) -> bool {
    hay.windows(needle.len()).any(|w| w == needle)
}

#[cfg(test)]
mod tests {
    use super::*;

    const ENTRY: &str = "## Session hello (codex) [project]\nUser: one\nAssistant: two\n    more\nUser: three\n<!-- hipo:ingest codex k 99 -->\n";

    #[test]
    fn a_log_ending_in_part_of_the_entry_is_finished() {
        for cut in 1..ENTRY.len() {
            let log = format!("# 2027-01-21\n\n{}", &ENTRY[..cut]);
            assert_eq!(
                plan_in(log.as_bytes(), ENTRY.as_bytes()),
                Plan::Finish { held: cut, line: 3 },
                "{cut}"
            );
        }
        // A whole entry is not a torn one.
        let log = format!("# 2027-01-21\n\n{ENTRY}");
        assert_eq!(plan_in(log.as_bytes(), ENTRY.as_bytes()), Plan::Fresh);
    }

    #[test]
    fn a_torn_entry_followed_by_other_text_keeps_its_whole_messages() {
        let held = |cut: usize| {
            let log = format!(
                "# 2027-01-21\n\n{}\n\n## Other [project]\n- x: y\n",
                &ENTRY[..cut]
            );
            plan_in(log.as_bytes(), ENTRY.as_bytes())
        };
        let at = |s: &str| ENTRY.find(s).unwrap();
        assert_eq!(held(at("User: one") + 3), Plan::Fresh);
        assert_eq!(held(at("Assistant")), Plan::Skip { messages: 1 });
        // "two" without its continuation line is not whole.
        assert_eq!(held(at("    more")), Plan::Skip { messages: 1 });
        assert_eq!(held(at("User: three")), Plan::Skip { messages: 2 });
        assert_eq!(held(at("<!--") + 5), Plan::Skip { messages: 3 });
        assert_eq!(held(at(" 99 -->")), Plan::Skip { messages: 3 });
        // A whole entry with the same heading is another capture's.
        let log = format!("# 2027-01-21\n\n{ENTRY}\n## Other [project]\n- x: y\n");
        assert_eq!(plan_in(log.as_bytes(), ENTRY.as_bytes()), Plan::Fresh);
        // A torn entry before this transcript's last watermark was dealt
        // with by the capture that wrote it.
        let cut = at("User: three");
        let log = format!(
            "# 2027-01-21\n\n{}\n\n## Resumed [project]\nUser: three\n<!-- hipo:ingest codex k 80 -->\n\n## Other [project]\n- x: y\n",
            &ENTRY[..cut]
        );
        assert_eq!(plan_in(log.as_bytes(), ENTRY.as_bytes()), Plan::Fresh);
        assert_eq!(
            own_mark(ENTRY.as_bytes()),
            Some(&b"<!-- hipo:ingest codex k "[..])
        );
    }
}
