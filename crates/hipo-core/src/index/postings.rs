//! The live documents holding a term, one segment at a time.
//!
//! tantivy's postings (and `Searcher::doc_freq`) still list a deleted
//! document until its segment is merged, which hipo lets happen only once
//! a segment is a quarter deleted: every reader that counts documents
//! must skip them, and this is where that is done once.

use tantivy::fastfield::AliveBitSet;
use tantivy::postings::SegmentPostings;
use tantivy::schema::IndexRecordOption;
use tantivy::{DocId, DocSet, SegmentReader, TERMINATED, TantivyError, Term};

/// The live documents of `reader` holding `term`, in order; `None` when
/// no document of the segment holds it.
pub(crate) fn live_docs(
    reader: &SegmentReader,
    term: &Term,
) -> Result<Option<LiveDocs>, TantivyError> {
    let postings = reader
        .inverted_index(term.field())?
        .read_postings(term, IndexRecordOption::Basic)?;
    Ok(postings.map(|postings| LiveDocs {
        postings,
        alive: reader.alive_bitset().cloned(),
        started: false,
    }))
}

/// See [`live_docs`].
pub(crate) struct LiveDocs {
    postings: SegmentPostings,
    alive: Option<AliveBitSet>,
    /// Whether the postings were advanced past their first document.
    started: bool,
}

impl Iterator for LiveDocs {
    type Item = DocId;

    fn next(&mut self) -> Option<DocId> {
        loop {
            let doc = if self.started {
                self.postings.advance()
            } else {
                self.started = true;
                self.postings.doc()
            };
            if doc == TERMINATED {
                return None;
            }
            if self.alive.as_ref().is_none_or(|a| a.is_alive(doc)) {
                return Some(doc);
            }
        }
    }
}
