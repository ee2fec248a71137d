//! Reading results' passages from the Markdown, the source of truth: the
//! index stores no text, only where each window sits.

use super::collect::Stored;
use crate::index::section_lines;
use crate::redact::redact;
use std::path::Path;

/// Reads results' passages from the Markdown: only the bytes needed.
pub(super) struct Passages<'a> {
    pub root: &'a Path,
    /// The index was just synced: a section it records as secret-free is
    /// shown as read.
    pub trust_index: bool,
}

impl Passages<'_> {
    /// The redacted text of a result's window.
    pub(super) fn window(&self, doc: &Stored) -> Option<String> {
        if doc.secret || !self.trust_index {
            // Redacted whole, as it was indexed: a secret spanning two
            // windows is only caught in the whole section.
            let section = self.read(doc, doc.bytes, doc.sec)?;
            let lines: Vec<&str> = section.split_inclusive('\n').collect();
            let at = |n: usize| n.checked_sub(doc.sec[0]);
            return lines
                .get(at(doc.win[0])?..=at(doc.win[1])?)
                .map(|l| l.concat());
        }
        self.read(doc, doc.wbytes, doc.win)
    }

    /// The redacted text of a result's whole section.
    pub(super) fn section(&self, doc: &Stored) -> Option<String> {
        self.read(doc, doc.bytes, doc.sec)
    }

    /// The text of `bytes` of a result's file, spanning `lines`, redacted
    /// unless the index vouches for it, if the file still holds it where
    /// the index says (it always does after a sync; a search that ran
    /// while another hipo held the lock may find it moved).
    fn read(&self, doc: &Stored, bytes: [usize; 2], lines: [usize; 2]) -> Option<String> {
        let [lo, hi] = bytes;
        let raw = crate::fsutil::read_range(&self.root.join(&doc.path), lo, hi)?;
        let expected = lines[1].checked_sub(lines[0])? + 1;
        if raw.split_inclusive('\n').count() != expected {
            return None;
        }
        if doc.secret || !self.trust_index {
            let redacted = redact(&raw);
            return Some(section_lines(&redacted, &raw, expected).concat());
        }
        Some(raw)
    }
}
