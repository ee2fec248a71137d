//! The fast-field columns a search reads per document (fingerprint,
//! section, window, level, date), and a document's place in the memory
//! read from them: what collection and ranking both stand on.

use crate::error::{Error, Result};
use crate::index::schema::name;
use tantivy::columnar::Column;
use tantivy::{DocAddress, Searcher};

/// Per-segment fast-field columns.
pub(super) struct Columns {
    pub(super) fp: Column<u64>,
    pub(super) sec: Column<u64>,
    pub(super) win: Column<u64>,
    pub(super) rank: Column<u64>,
    pub(super) date_hi: Column<u64>,
}

impl Columns {
    /// The fingerprint of a document of this segment.
    pub(super) fn fp_of(&self, doc: tantivy::DocId) -> u64 {
        self.fp.first(doc).unwrap_or(0)
    }
}

/// The fast fields of every segment, read once per search.
pub(super) fn columns(searcher: &Searcher) -> Result<Vec<Columns>> {
    let err = Error::index("reading fast fields");
    searcher
        .segment_readers()
        .iter()
        .map(|r| {
            let ff = r.fast_fields();
            Ok(Columns {
                fp: ff.u64(name::FP).map_err(err)?,
                sec: ff.u64(name::SEC).map_err(err)?,
                win: ff.u64(name::WIN).map_err(err)?,
                rank: ff.u64(name::LEVEL_RANK).map_err(err)?,
                date_hi: ff.u64(name::DATE_HI).map_err(err)?,
            })
        })
        .collect()
}

pub(super) fn section_of(cols: &[Columns], a: DocAddress) -> u64 {
    cols[a.segment_ord as usize]
        .sec
        .first(a.doc_id)
        .unwrap_or(0)
}

/// Where a document sits, independent of the index's document order: its
/// section, then its window within the section (0 for the ranking
/// document). Equal scores are ordered by it, so a build on more threads,
/// or a rebuild, shows the same window and the same order.
pub(super) fn place_of(cols: &[Columns], a: DocAddress) -> (u64, u64) {
    let c = &cols[a.segment_ord as usize];
    (
        c.sec.first(a.doc_id).unwrap_or(0),
        c.win.first(a.doc_id).unwrap_or(0),
    )
}
