//! Headings outside fenced code blocks: a `#` or `##` line inside a
//! fence is code, not a heading, for every parser that cuts Markdown.

/// The `#` and `##` headings of a text, outside fenced code blocks: the
/// 0-based index of the line, the depth (1 or 2) and the heading's text.
pub fn headings(text: &str) -> Vec<(usize, usize, &str)> {
    let mut scan = HeadingScan::default();
    text.lines()
        .enumerate()
        .filter_map(|(i, line)| scan.line(line).map(|(depth, h)| (i, depth, h)))
        .collect()
}

/// A line read with its ending (`split_inclusive`, `read_line`) as
/// `str::lines` gives it: without `\n` or `\r\n`. [`HeadingScan`] takes
/// lines so.
pub fn without_ending(line: &str) -> &str {
    line.strip_suffix('\n')
        .map_or(line, |l| l.strip_suffix('\r').unwrap_or(l))
}

/// [`headings`] one line at a time, for a text read as it goes: which
/// lines are `#` or `##` headings outside fenced code blocks.
#[derive(Debug, Default)]
pub struct HeadingScan {
    open: Option<Fence>,
}

impl HeadingScan {
    /// The depth and text of the heading `line` (without its line ending)
    /// is, if it is one; lines must come in order.
    pub fn line<'a>(&mut self, line: &'a str) -> Option<(usize, &'a str)> {
        if self.is_code(line) {
            return None;
        }
        if let Some(h) = line.strip_prefix("# ") {
            Some((1, h.trim()))
        } else {
            line.strip_prefix("## ").map(|h| (2, h.trim()))
        }
    }

    /// True when `line` is code: a fence that opens or closes a block, or
    /// a line inside one; lines must come in order.
    pub fn is_code(&mut self, line: &str) -> bool {
        match (self.open, Fence::of(line)) {
            (Some(f), Some(close)) if close.closes(f) => self.open = None,
            (Some(_), _) => {}
            (None, Some(f)) => self.open = Some(f),
            (None, None) => return false,
        }
        true
    }
}

/// A code fence line, as CommonMark reads one: up to three spaces, then
/// three or more backticks or tildes, then an info string (`python`).
#[derive(Debug, Clone, Copy)]
struct Fence {
    marker: u8,
    len: usize,
    /// Nothing but whitespace after the marker: only such a line closes.
    bare: bool,
}

impl Fence {
    fn of(line: &str) -> Option<Fence> {
        let rest = line.trim_start_matches(' ');
        if line.len() - rest.len() > 3 {
            return None;
        }
        let marker = *rest.as_bytes().first()?;
        if marker != b'`' && marker != b'~' {
            return None;
        }
        let len = rest.bytes().take_while(|b| *b == marker).count();
        let info = &rest[len..];
        // A backtick fence's info string cannot hold a backtick (that is
        // inline code such as ```` ```a``` ````).
        let valid = len >= 3 && !(marker == b'`' && info.contains('`'));
        valid.then(|| Fence {
            marker,
            len,
            bare: info.trim().is_empty(),
        })
    }

    /// True if this line ends the block `open` began: the same character,
    /// at least as long, and no info string.
    fn closes(self, open: Fence) -> bool {
        self.bare && self.marker == open.marker && self.len >= open.len
    }
}
