//! A file read in parts that end where a section begins, so indexing a
//! big log holds one part (about [`PART_BYTES`], or one section if that is
//! longer), never the whole file: a 200 MB log was held whole, twice over
//! with its line table, to be cut.
//!
//! Each part starts at a `#` or `##` heading outside code (or at the
//! file's start) and carries the `#` title in force there, so
//! [`sections::split_part`] cuts it exactly as [`sections::split`] cuts
//! the whole file. Frontmatter stays in the first part.

use super::sections::{self, Split};
use crate::error::{Error, Result};
use crate::markdown::{HeadingScan, without_ending};
use crate::private;
use std::io::BufRead;
use std::path::Path;

/// A part is cut at the first heading after this many bytes.
pub(super) const PART_BYTES: usize = 4 << 20;

/// Frontmatter longer than this is taken for none (as an unclosed one is),
/// so a file opening with `---` cannot make a part of itself whole.
const FRONTMATTER_MAX: usize = 1 << 20;

/// A run of whole lines of a file.
#[derive(Debug)]
pub(super) struct Part {
    pub text: String,
    /// Byte offset and line number (1-based) of its first line.
    pub offset: usize,
    pub line: usize,
    /// The `#` title a `##` section at its start sits under.
    pub title: Option<String>,
    /// The file's first part, whose frontmatter is read as [`sections::split`]
    /// reads it (false: one too long, read as text).
    pub head: bool,
    /// A `<private>` span opened before the part is still open at its start.
    pub private: bool,
}

impl Part {
    /// Its sections, placed in the whole file.
    pub fn sections(&self) -> Split<'_> {
        if self.head {
            return sections::split(&self.text);
        }
        if self.offset == 0 {
            let body = self.text.trim_start_matches('\u{feff}');
            return sections::split_part(body, self.text.len() - body.len(), 1, None);
        }
        sections::split_part(&self.text, self.offset, self.line, self.title.clone())
    }

    /// The text of `bytes` of the file, which this part holds.
    pub fn slice(&self, bytes: &std::ops::Range<usize>) -> &str {
        &self.text[bytes.start - self.offset..bytes.end - self.offset]
    }

    /// The text of `bytes` without its `<private>` spans, even one opened
    /// in an earlier section or part (read in order through `cursor`, made
    /// with [`Part::cursor`]): what hipo indexes and shows, once redacted.
    pub fn stripped(
        &self,
        bytes: &std::ops::Range<usize>,
        cursor: &mut private::Cursor,
    ) -> std::borrow::Cow<'_, str> {
        let inside = cursor.at(&self.text, bytes.start - self.offset);
        private::strip_from(self.slice(bytes), inside)
    }

    /// A cursor over the part's private state, for [`Part::shown`].
    pub fn cursor(&self) -> private::Cursor {
        private::Cursor::new(self.private)
    }
}

/// Where the reader is in the file's frontmatter.
#[derive(Debug, PartialEq)]
enum Front {
    /// The first line is still to come.
    Unknown,
    /// Opened by a `---` line, not yet closed.
    Open,
    /// Closed, or none.
    Done,
}

/// The parts of a file, in order; reading fails on a line that is not
/// UTF-8, naming it.
pub(super) struct Parts<R> {
    reader: R,
    rel: String,
    /// The part being filled and the line that begins the next one.
    part: Part,
    line_buf: String,
    /// Byte offset and number of the next line to read.
    offset: usize,
    number: usize,
    scan: HeadingScan,
    title: Option<String>,
    front: Front,
    done: bool,
    /// [`PART_BYTES`] and [`FRONTMATTER_MAX`], but for tests.
    limits: (usize, usize),
}

/// Opens `rel` under `root` to be read in parts.
pub(super) fn open(root: &Path, rel: &str) -> Result<Parts<std::io::BufReader<std::fs::File>>> {
    let path = root.join(rel);
    let file = std::fs::File::open(&path).map_err(|e| Error::io(&path, e))?;
    Ok(Parts::new(
        std::io::BufReader::with_capacity(1 << 16, file),
        rel,
    ))
}

impl<R: BufRead> Parts<R> {
    pub(super) fn new(reader: R, rel: &str) -> Self {
        Parts {
            reader,
            rel: rel.to_string(),
            part: Part {
                text: String::new(),
                offset: 0,
                line: 1,
                title: None,
                head: true,
                private: false,
            },
            line_buf: String::new(),
            offset: 0,
            number: 1,
            scan: HeadingScan::default(),
            title: None,
            front: Front::Unknown,
            done: false,
            limits: (PART_BYTES, FRONTMATTER_MAX),
        }
    }

    /// Reads the next line into `line_buf`; false at the end.
    fn read_line(&mut self) -> Result<bool> {
        self.line_buf.clear();
        match self.reader.read_line(&mut self.line_buf) {
            Ok(0) => Ok(false),
            Ok(_) => Ok(true),
            Err(e) if e.kind() == std::io::ErrorKind::InvalidData => Err(Error::bad_input(
                &self.rel,
                Some(self.number),
                "is not valid UTF-8; re-save it as UTF-8 (hipo skipped it)",
            )),
            Err(e) => Err(Error::io(&self.rel, e)),
        }
    }

    /// True when `text`, the line just read, begins a section, and so may begin a
    /// part; keeps the heading scan and the title in step either way.
    fn starts_section(&mut self, text: &str) -> bool {
        let first = self.number == 1;
        let text = if first {
            text.trim_start_matches('\u{feff}')
        } else {
            text
        };
        match self.front {
            Front::Unknown if matches!(text, "---\n" | "---\r\n") => {
                self.front = Front::Open;
                return false;
            }
            Front::Unknown => self.front = Front::Done,
            Front::Open if text.trim_end() == "---" => {
                // The body's scan starts after the frontmatter, as split's.
                self.front = Front::Done;
                self.scan = HeadingScan::default();
                return false;
            }
            Front::Open if self.part.text.len() > self.limits.1 => self.no_frontmatter(),
            Front::Open => return false,
            Front::Done => {}
        }
        match self.scan.line(without_ending(text)) {
            Some((1, h)) => {
                self.title = Some(h.to_string());
                true
            }
            Some(_) => true,
            None => false,
        }
    }

    /// A frontmatter too long to be one: the lines so far are body, and
    /// the heading scan and title are what they would have been.
    fn no_frontmatter(&mut self) {
        self.front = Front::Done;
        self.part.head = false;
        self.scan = HeadingScan::default();
        let body = self.part.text.trim_start_matches('\u{feff}');
        for line in body.split_inclusive('\n') {
            if let Some((1, h)) = self.scan.line(without_ending(line)) {
                self.title = Some(h.to_string());
            }
        }
    }

    fn next_part(&mut self) -> Result<Option<Part>> {
        while !self.done {
            if !self.read_line()? {
                self.done = true;
                break;
            }
            let title_before = self.title.clone();
            let line = std::mem::take(&mut self.line_buf);
            let cut = self.starts_section(&line) && self.part.text.len() >= self.limits.0;
            self.line_buf = line;
            let len = self.line_buf.len();
            if cut {
                let next = Part {
                    text: String::with_capacity(self.limits.0 + (self.limits.0 >> 2)),
                    offset: self.offset,
                    line: self.number,
                    title: title_before,
                    head: false,
                    private: private::inside_after(&self.part.text, self.part.private),
                };
                let full = std::mem::replace(&mut self.part, next);
                self.part.text.push_str(&self.line_buf);
                self.offset += len;
                self.number += 1;
                return Ok(Some(full));
            }
            self.part.text.push_str(&self.line_buf);
            self.offset += len;
            self.number += 1;
        }
        if self.part.text.is_empty() {
            return Ok(None);
        }
        let last = Part {
            text: String::new(),
            offset: self.offset,
            line: self.number,
            title: None,
            head: false,
            private: false,
        };
        Ok(Some(std::mem::replace(&mut self.part, last)))
    }
}

/// What `hipo get PATH:LINE` shows, read in parts: the lines of the
/// section holding `line` from that line to the section's end, redacted
/// as the index redacts them (the whole section at once), or `None` when
/// no section holds it (frontmatter, a blank line between sections); and
/// the file's line count.
pub(crate) fn section_from(
    root: &Path,
    rel: &str,
    line: usize,
) -> Result<(Option<Vec<String>>, usize)> {
    let mut parts = open(root, rel)?;
    let mut found = None;
    for part in parts.by_ref() {
        let part = part?;
        if found.is_some() || part.line > line {
            continue;
        }
        let Some(s) = part
            .sections()
            .find(|s| s.lines.0 <= line && line <= s.lines.1)
        else {
            continue;
        };
        let stripped = part.stripped(&s.bytes, &mut part.cursor());
        let redacted = crate::redact::redact(&stripped);
        let lines = super::section_lines(&redacted, &stripped, s.lines.1 - s.lines.0 + 1);
        found = Some(
            lines[line - s.lines.0..]
                .iter()
                .map(|l| without_ending(l).to_string())
                .collect(),
        );
    }
    Ok((found, parts.number - 1))
}

/// How many lines `rel` has, read in parts: an error names the first line
/// that is not UTF-8, before anything of the file is shown.
pub(crate) fn line_count(root: &Path, rel: &str) -> Result<usize> {
    count_of(open(root, rel)?)
}

/// [`line_count`] over any reader.
fn count_of<R: BufRead>(mut parts: Parts<R>) -> Result<usize> {
    for part in parts.by_ref() {
        part?;
    }
    Ok(parts.number - 1)
}

/// What `hipo get PATH` and `PATH:LINE:COUNT` show, read in parts: lines
/// `first` to `last` (to the end when `None`), one at a time, each part
/// redacted whole (a part ends where a section begins, so no secret is cut
/// in two). Only one part's lines are held, so a 200 MB log can be printed
/// as it is read.
pub(crate) fn lines_between(
    root: &Path,
    rel: &str,
    first: usize,
    last: Option<usize>,
) -> Result<LinesBetween<std::io::BufReader<std::fs::File>>> {
    Ok(LinesBetween::new(open(root, rel)?, first, last))
}

/// The iterator [`lines_between`] returns.
pub(crate) struct LinesBetween<R> {
    parts: Parts<R>,
    first: usize,
    last: Option<usize>,
    /// The wanted lines of the part read last, not yet given out.
    held: std::vec::IntoIter<String>,
}

impl<R: BufRead> LinesBetween<R> {
    fn new(parts: Parts<R>, first: usize, last: Option<usize>) -> Self {
        LinesBetween {
            parts,
            first,
            last,
            held: Vec::new().into_iter(),
        }
    }
}

impl<R: BufRead> Iterator for LinesBetween<R> {
    type Item = Result<String>;

    fn next(&mut self) -> Option<Result<String>> {
        loop {
            if let Some(line) = self.held.next() {
                return Some(Ok(line));
            }
            let part = match self.parts.next()? {
                Ok(part) => part,
                Err(e) => return Some(Err(e)),
            };
            if self.last.is_some_and(|l| part.line > l) {
                return None;
            }
            let count = part.text.split_inclusive('\n').count();
            if part.line + count <= self.first {
                continue;
            }
            let stripped = private::strip_from(&part.text, part.private);
            let redacted = crate::redact::redact(&stripped);
            let lines = super::section_lines(&redacted, &stripped, count);
            let skip = self.first.saturating_sub(part.line);
            let take = self.last.map_or(usize::MAX, |l| {
                (l - part.line.max(self.first)).saturating_add(1)
            });
            let wanted: Vec<String> = lines
                .iter()
                .skip(skip)
                .take(take)
                .map(|l| without_ending(l).to_string())
                .collect();
            self.held = wanted.into_iter();
        }
    }
}

impl<R: BufRead> Iterator for Parts<R> {
    type Item = Result<Part>;

    fn next(&mut self) -> Option<Result<Part>> {
        match self.next_part() {
            Ok(Some(p)) => Some(Ok(p)),
            Ok(None) => None,
            Err(e) => {
                self.done = true;
                self.part.text.clear();
                Some(Err(e))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::sections::{Section, split};

    #[test]
    fn lines_between_reads_any_range_across_parts_as_the_whole_file() {
        let text = "---\nk: v\n---\n# T\n\n## A\nkey AKIAIOSFODNN7EXAMPLE\n```\n## not\n```\n## B\nb\r\n# U\n## C\nlast";
        let whole: Vec<String> = crate::redact::redact(text)
            .lines()
            .map(str::to_string)
            .collect();
        for part in [1, 7, 30, 1000] {
            for first in 1..=whole.len() + 2 {
                for last in (first..=whole.len() + 2).map(Some).chain([None]) {
                    let mut parts = Parts::new(std::io::Cursor::new(text.as_bytes()), "f.md");
                    parts.limits = (part, 1000);
                    let lines: Vec<String> = LinesBetween::new(parts, first, last)
                        .collect::<Result<_>>()
                        .unwrap();
                    let end = last.unwrap_or(usize::MAX).min(whole.len());
                    let want = whole.get(first - 1..end).unwrap_or_default();
                    assert_eq!(lines.as_slice(), want, "{part} {first} {last:?}");
                    let mut parts = Parts::new(std::io::Cursor::new(text.as_bytes()), "f.md");
                    parts.limits = (part, 1000);
                    assert_eq!(count_of(parts).unwrap(), whole.len());
                }
            }
        }
    }

    /// The file read in parts of at least `part` bytes (frontmatter up to
    /// `front`): its sections, checked against the text, and the count.
    fn in_parts(text: &str, part: usize, front: usize) -> (Vec<Section>, usize) {
        let mut parts = Parts::new(std::io::Cursor::new(text.as_bytes()), "f.md");
        parts.limits = (part, front);
        let mut out = Vec::new();
        let mut n = 0;
        for p in parts {
            let p = p.unwrap();
            assert_eq!(&text[p.offset..p.offset + p.text.len()], p.text);
            n += 1;
            for s in p.sections() {
                assert_eq!(p.slice(&s.bytes), &text[s.bytes.clone()]);
                out.push(s);
            }
        }
        (out, n)
    }

    fn same_as_split(text: &str, part: usize) -> usize {
        let (got, n) = in_parts(text, part, FRONTMATTER_MAX);
        assert_eq!(got, split(text).collect::<Vec<_>>(), "parts of {part}");
        n
    }

    /// Titles, sessions, code fences holding heading-like lines.
    fn log(entries: usize) -> String {
        let mut t = String::from("# 2026-01-06\n");
        for i in 0..entries {
            if i % 10 == 9 {
                t.push_str(&format!("\n# Title {i}\n\nunder a title\n"));
            }
            t.push_str(&format!(
                "\n## Entry {i} [project]\nUser: line of entry {i}\n"
            ));
            if i % 7 == 3 {
                t.push_str("```\n# not a heading\n## nor this\n```\n");
            }
        }
        t
    }

    #[test]
    fn parts_cut_as_split_cuts_the_whole_file() {
        let text = log(60);
        assert_eq!(same_as_split(&text, PART_BYTES), 1);
        for part in [1, 40, 100, 333] {
            assert!(same_as_split(&text, part) > 1);
        }
    }

    #[test]
    fn frontmatter_bom_and_crlf_stay_as_split_reads_them() {
        let body = log(30);
        for text in [
            format!("---\ntitle: x\n# a yaml comment\n```\n---\n{body}"),
            format!("\u{feff}---\nstatus: fixed\n---\n{body}"),
            format!("\u{feff}{body}"),
            body.replace('\n', "\r\n"),
            // Never closed: no frontmatter at all.
            format!("---\ntitle: x\n{body}"),
        ] {
            for part in [1, 50, PART_BYTES] {
                same_as_split(&text, part);
            }
        }
    }

    #[test]
    fn a_frontmatter_past_its_limit_is_read_as_none() {
        let body = log(30);
        let text = format!("---\n{}# pad\n---\n{body}", "k: v\n".repeat(50));
        // Closed after 250 bytes, past a limit of 100: a body from line 1,
        // as split reads a frontmatter that never closes.
        let (got, n) = in_parts(&text, 60, 100);
        assert!(n > 1);
        let unclosed = text
            .replacen("---\n", "--- \n", 1)
            .replacen("\n---\n", "\n--- \n", 1);
        let want: Vec<Section> = split(&unclosed).collect();
        assert_eq!(
            got.iter()
                .map(|s| (s.lines, s.heading.clone()))
                .collect::<Vec<_>>(),
            want.iter()
                .map(|s| (s.lines, s.heading.clone()))
                .collect::<Vec<_>>()
        );
    }

    #[test]
    fn a_bad_line_is_named() {
        let mut bytes = log(20).into_bytes();
        bytes.extend_from_slice(b"\n## Late\nbad \xff byte\n");
        let line = bytes.iter().filter(|b| **b == b'\n').count();
        let mut parts = Parts::new(std::io::Cursor::new(bytes), "memory/x.md");
        parts.limits = (50, FRONTMATTER_MAX);
        let err = parts.find_map(|p| p.err()).unwrap().to_string();
        assert!(
            err.contains("memory/x.md") && err.contains(&format!("{line}")),
            "{err}"
        );
        assert!(parts.next().is_none());
    }

    proptest::proptest! {
        #![proptest_config(crate::strategies::config(64))]

        #[test]
        fn generated_markdown_is_cut_in_parts_as_split_cuts_it(
            text in crate::strategies::markdown_text(),
            part in 1usize..400,
        ) {
            let (got, _) = in_parts(&text, part, FRONTMATTER_MAX);
            proptest::prop_assert_eq!(got, split(&text).collect::<Vec<_>>());
        }
    }

    #[test]
    fn an_empty_file_has_no_parts() {
        assert_eq!(in_parts("", 10, 10).1, 0);
    }
}
