//! `<private>…</private>`: text a person marks as never to be remembered
//! (claude-mem's convention). What is inside the tags is dropped, leaving
//! `[private]`, before anything hipo writes (a capture's messages, a
//! checkpoint's fields and body, a node) and before anything it sends to
//! a model. The newlines inside stay, so a file's line numbers do not
//! move. Tags match in any case; a `<private>` that is never closed hides
//! everything after it (the safe reading of a cut-off or mistyped mark).

use aho_corasick::{AhoCorasick, MatchKind};
use std::borrow::Cow;
use std::ops::Range;
use std::path::Path;
use std::sync::LazyLock;

const OPEN: &str = "<private>";
const CLOSE: &str = "</private>";
/// What replaces a private span.
pub const MARK: &str = "[private]";

/// `text` with every private span replaced by [`MARK`] (borrowed when it
/// has none).
pub fn strip(text: &str) -> Cow<'_, str> {
    strip_from(text, false)
}

/// Finds the tags in any case, without lowering the text first.
static TAGS: LazyLock<Option<AhoCorasick>> = LazyLock::new(|| {
    AhoCorasick::builder()
        .ascii_case_insensitive(true)
        .match_kind(MatchKind::LeftmostFirst)
        .build([OPEN, CLOSE])
        .ok()
});

/// The tags of `text` in order: `true` for an opening one, with its range.
/// Without a tag finder (it always builds) every `<` could open one, so a
/// text that holds one is taken as all private: failing closed.
fn tags(text: &str) -> Vec<(bool, Range<usize>)> {
    match TAGS.as_ref() {
        Some(ac) => ac
            .find_iter(text)
            .map(|m| (m.pattern().as_usize() == 0, m.range()))
            .collect(),
        None => text
            .find('<')
            .map(|i| vec![(true, i..i)])
            .unwrap_or_default(),
    }
}

/// [`strip`] for a piece of a file that may begin inside a private span
/// (`inside`, from [`inside_after`] over what precedes it): then
/// everything up to the first closing tag is private too. A hand-written
/// file is read in pieces (sections, windows, parts), and a span opened in
/// one piece hides what follows it in the next.
pub fn strip_from(text: &str, inside: bool) -> Cow<'_, str> {
    let tags = tags(text);
    if tags.is_empty() && !inside {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    // Where the private span being read began, if one is open.
    let mut open: Option<usize> = inside.then_some(0);
    for (opening, range) in tags {
        match (open, opening) {
            // A tag inside a span is private text, but the closing one.
            (Some(_), true) => {}
            (Some(start), false) => {
                hide(&mut out, &text[start..range.end]);
                open = None;
                at = range.end;
            }
            (None, true) => {
                out.push_str(&text[at..range.start]);
                open = Some(range.start);
            }
            // A stray closing tag tells where private text ended, not
            // where it began: it is dropped, and what precedes it kept.
            (None, false) => {
                out.push_str(&text[at..range.start]);
                at = range.end;
            }
        }
    }
    match open {
        Some(start) => hide(&mut out, &text[start..]),
        None => out.push_str(&text[at..]),
    }
    if out == text {
        Cow::Borrowed(text)
    } else {
        Cow::Owned(out)
    }
}

/// Puts [`MARK`] for a private span, keeping its newlines.
fn hide(out: &mut String, span: &str) {
    out.push_str(MARK);
    out.extend(std::iter::repeat_n('\n', span.matches('\n').count()));
}

/// Reads a text's private state forward, piece after piece (the sections
/// of a part, in order), so each piece costs a scan of itself only.
#[derive(Debug, Clone, Copy)]
pub struct Cursor {
    at: usize,
    inside: bool,
    start: bool,
}

impl Cursor {
    /// At the start of a text that begins inside a span (`inside`) or not.
    pub fn new(inside: bool) -> Cursor {
        Cursor {
            at: 0,
            inside,
            start: inside,
        }
    }

    /// Whether a private span is open at byte `pos` of `text`.
    pub fn at(&mut self, text: &str, pos: usize) -> bool {
        if pos < self.at {
            *self = Cursor::new(self.start);
        }
        self.inside = inside_after(&text[self.at..pos], self.inside);
        self.at = pos;
        self.inside
    }
}

/// Whether a private span is still open after `text`, read from a state
/// `inside` (true: a span was open at its start). Only the last tag counts:
/// a span closes at the first closing tag, and nothing but a closing tag
/// ends one.
pub fn inside_after(text: &str, inside: bool) -> bool {
    tags(text).last().map_or(inside, |(opening, _)| *opening)
}

/// Whether a private span is open at byte `offset` of the file at `path`
/// (what [`inside_after`] says of its first `offset` bytes), read a
/// megabyte at a time: a piece read alone from a file (a search hit's
/// section) is stripped from the right state.
pub fn open_at(path: &Path, offset: usize) -> std::io::Result<bool> {
    use std::io::Read;
    let Some(ac) = TAGS.as_ref() else {
        return Ok(true);
    };
    let mut file = std::fs::File::open(path)?.take(offset as u64);
    // The end of the chunk before, so a tag cut by the chunk's edge is found.
    let keep = CLOSE.len() - 1;
    let mut buf = vec![0u8; (1 << 20) + keep];
    let (mut held, mut inside) = (0, false);
    loop {
        let n = file.read(&mut buf[held..])?;
        if n == 0 {
            return Ok(inside);
        }
        let end = held + n;
        if let Some(m) = ac.find_iter(&buf[..end]).last() {
            inside = m.pattern().as_usize() == 0;
        }
        held = keep.min(end);
        buf.copy_within(end - held..end, 0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn private_spans_go_and_lines_stay() {
        assert!(matches!(strip("nothing here"), Cow::Borrowed(_)));
        assert_eq!(
            strip("deploy <private>the pin is 4471</private> done"),
            "deploy [private] done"
        );
        assert_eq!(
            strip("a\n<PRIVATE>x\ny\n</Private>\nb <private>z</private>"),
            "a\n[private]\n\n\nb [private]"
        );
        // Never closed: hidden to the end.
        assert_eq!(strip("ok <private>secret\nmore"), "ok [private]\n");
        assert_eq!(strip("stray </private> tag"), "stray  tag");
        // Not ASCII around the tags.
        assert_eq!(strip("é<private>ü</private>ß"), "é[private]ß");
        // A tag inside a span is private text.
        assert_eq!(strip("a<private>b<private>c</private>d"), "a[private]d");
    }

    #[test]
    fn a_piece_read_from_inside_a_span_hides_to_its_close() {
        let file = "x\n<private>\nhidden one\n## Heading\nhidden two\n</private> shown\n";
        let cut = file.find("## Heading").unwrap();
        let (head, tail) = file.split_at(cut);
        assert!(inside_after(head, false));
        assert!(!inside_after(file, false));
        assert_eq!(strip_from(tail, true), "[private]\n\n shown\n");
        // Read from outside, the stray close would have left it in clear.
        assert!(strip_from(tail, false).contains("hidden two"));
        // Pieces stripped in turn read as the whole file does.
        let whole = strip(file);
        let pieces = format!("{}{}", strip_from(head, false), strip_from(tail, true));
        assert_eq!(whole.matches('\n').count(), pieces.matches('\n').count());
        assert!(!pieces.contains("hidden"));
        assert!(!inside_after("no tags", false));
        assert!(inside_after("no tags", true));
        assert!(inside_after("</private> then <PRIVATE> again", false));
    }

    #[test]
    fn the_state_at_an_offset_of_a_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("notes.md");
        // A tag across the edge of the first megabyte, then a close.
        let mut text = "a".repeat((1 << 20) - 4);
        text.push_str("<private>hidden\n");
        let open = text.len();
        text.push_str("more</private> after\n");
        std::fs::write(&path, &text).unwrap();
        assert!(!open_at(&path, 10).unwrap());
        assert!(open_at(&path, open).unwrap());
        assert!(!open_at(&path, text.len()).unwrap());
        assert_eq!(
            open_at(&path, open).unwrap(),
            inside_after(&text[..open], false)
        );
    }
}
