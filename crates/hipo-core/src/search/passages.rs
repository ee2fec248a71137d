//! Reading results' passages from the Markdown, the source of truth: the
//! index stores no text, only where each window sits.
//!
//! What is shown is what the index was fed: `<private>` spans dropped
//! (one opened earlier in the file too), then redacted. A section the
//! index vouches for (just synced, recorded as neither secret nor
//! private) is shown as read. Otherwise only the lines the snippet shows
//! are redacted afresh, with a margin of lines around them
//! ([`crate::redact::redact_lines`]): a search answering while a
//! compaction holds the store cannot vouch for anything, and redacting
//! each hit's whole section cost a prompt hook about 100 ms.

use super::collect::Stored;
use super::snippet::{Marker, snippet};
use crate::index::section_lines;
use crate::private;
use crate::redact::{redact, redact_lines};
use std::borrow::Cow;
use std::path::Path;

/// The section, as read now, is the one the index recorded as holding
/// neither a secret nor a private span: its fingerprint (the indexed text's,
/// which was then the text as read) is the same. The fingerprint leaves out
/// what cannot make a secret (trailing spaces, blank lines) and hipo's own
/// `<!-- hipo` marker lines; a marker line is checked on its own. This is
/// the proof of freshness a search has while a compaction holds the store:
/// a hit in a file that did not change costs no redaction.
fn unchanged(doc: &Stored, fp: u64, section: &str) -> bool {
    !doc.secret
        && crate::index::sections::fingerprint(section) == fp
        && section
            .lines()
            .filter(|l| l.starts_with("<!-- hipo"))
            .all(|l| !crate::redact::contains_secret(l))
}

/// Lines past a snippet's last one redacted with it: redaction may
/// shorten it, and the snippet then runs on (or ends in `…`) as in the
/// whole window.
const SPARE_LINES: usize = 2;

/// Reads results' passages from the Markdown: only the bytes needed.
pub(super) struct Passages<'a> {
    pub root: &'a Path,
    /// The index was just synced: a section it records as secret-free is
    /// shown as read.
    pub trust_index: bool,
}

impl Passages<'_> {
    /// The shown text a result's snippet is cut from, and the file's line
    /// number of its first line: the window the index points at, or, when
    /// the index cannot vouch for it, the window's lines the snippet falls
    /// on (found on the text as read, `<private>` spans dropped), redacted
    /// with a margin, plus [`SPARE_LINES`] so the snippet can run on as it
    /// would in the window.
    pub(super) fn passage(
        &self,
        doc: &Stored,
        fp: u64,
        marker: &Marker,
    ) -> Option<(String, usize)> {
        if self.vouched(doc) {
            return Some((self.raw(doc, doc.wbytes, doc.win)?, doc.win[0]));
        }
        let section = self.stripped(doc)?;
        let from = doc.win[0].checked_sub(doc.sec[0])?;
        let to = doc.win[1].checked_sub(doc.sec[0])?;
        let lines: Vec<&str> = section.split_inclusive('\n').collect();
        let window = lines.get(from..=to)?.concat();
        if unchanged(doc, fp, &section) {
            return Some((window, doc.win[0]));
        }
        let cut = snippet(marker, &window).cut;
        let first = from + window[..cut.start].matches('\n').count();
        let last = (from + window[..cut.end].matches('\n').count() + SPARE_LINES).min(to);
        let shown = redact_lines(&section, first..last + 1)?;
        Some((shown, doc.sec[0] + first))
    }

    /// The shown text of a result's whole section.
    pub(super) fn section(&self, doc: &Stored) -> Option<String> {
        if !self.vouched(doc) {
            let section = self.stripped(doc)?;
            let lines = doc.sec[1] + 1 - doc.sec[0];
            let redacted = redact(&section);
            return Some(section_lines(&redacted, &section, lines).concat());
        }
        self.raw(doc, doc.bytes, doc.sec)
    }

    /// The index vouches that the section is shown as read.
    fn vouched(&self, doc: &Stored) -> bool {
        self.trust_index && !doc.secret
    }

    /// A result's section without its `<private>` spans, if the file still
    /// holds it where the index says.
    fn stripped(&self, doc: &Stored) -> Option<String> {
        let raw = self.raw(doc, doc.bytes, doc.sec)?;
        let path = self.root.join(&doc.path);
        let inside = private::open_at(&path, doc.bytes[0]).ok()?;
        Some(match private::strip_from(&raw, inside) {
            Cow::Borrowed(_) => raw,
            Cow::Owned(s) => s,
        })
    }

    /// The text of `bytes` of a result's file, spanning `lines`, as read,
    /// if the file still holds it where the index says (it always does
    /// after a sync; a search that ran while another hipo held the lock
    /// may find it moved).
    fn raw(&self, doc: &Stored, bytes: [usize; 2], lines: [usize; 2]) -> Option<String> {
        let [lo, hi] = bytes;
        let raw = crate::fsutil::read_range(&self.root.join(&doc.path), lo, hi)?;
        let expected = lines[1].checked_sub(lines[0])? + 1;
        (raw.split_inclusive('\n').count() == expected).then_some(raw)
    }
}
