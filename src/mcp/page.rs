//! What the `get` tool returns: a page of the lines asked for, cut where an
//! agent's context should stop. A CLI user pipes `hipo get` where they
//! like; an agent is handed the whole answer, and a 2 MB day log (or a
//! 200 MB one) would flood its context or be cut by the client without a
//! word (Claude Code warns above 10,000 tokens of tool output). The page
//! says where it stopped and how to read on.

use hipo_core::Lines;
use hipo_core::Result;

/// Lines a page holds at most (as many as Claude Code's own file reader).
pub const MAX_LINES: usize = 2_000;
/// Bytes of text a page holds at most: about 10,000 tokens.
pub const MAX_BYTES: usize = 40_000;

/// A page of a file's lines.
pub struct Page {
    pub path: String,
    pub first: usize,
    pub lines: Vec<String>,
    /// Lines of the slice after the page.
    pub more: usize,
    pub total: usize,
}

/// Reads lines up to a page's limits; only the page is held. A single
/// line longer than the page is cut, and says so.
pub fn page(lines: Lines) -> Result<Page> {
    let (path, first, count, total) = (lines.path.clone(), lines.first, lines.count, lines.total);
    let mut shown = Vec::new();
    let mut bytes = 0;
    for line in lines {
        let mut line = line?;
        if shown.len() == MAX_LINES || (bytes + line.len() > MAX_BYTES && !shown.is_empty()) {
            break;
        }
        if line.len() > MAX_BYTES {
            let cut = (0..=MAX_BYTES)
                .rev()
                .find(|&i| line.is_char_boundary(i))
                .unwrap_or(0);
            line.truncate(cut);
            line.push_str(" … [line cut]");
        }
        bytes += line.len() + 1;
        shown.push(line);
    }
    Ok(Page {
        more: count.saturating_sub(shown.len()),
        path,
        first,
        lines: shown,
        total,
    })
}

impl Page {
    /// The page as text: a header, the numbered lines, and where to go on.
    pub fn render(&self) -> String {
        let last = self.first + self.lines.len().saturating_sub(1);
        let width = last.to_string().len();
        let mut out = format!(
            "{} (lines {}-{} of {})\n",
            self.path, self.first, last, self.total
        );
        for (i, line) in self.lines.iter().enumerate() {
            out.push_str(&format!("{:>width$}  {line}\n", self.first + i));
        }
        if self.more > 0 {
            out.push_str(&format!(
                "… {} more lines not shown: call get with path {}, line {} (and a count) to read on\n",
                self.more,
                self.path,
                last + 1
            ));
        }
        out
    }
}
