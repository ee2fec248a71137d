//! BM25's collection statistics counted over the documents a query ranks.
//!
//! The index holds two kinds of document: each section's ranking document
//! and the windows it is shown by (about seven windows a section in a chat
//! history: 1,318 sections and 8,882 windows in MemAware). Tantivy takes a
//! field's number of documents N and its average length over the whole
//! index, so the section fields (`sbody`, `suser`, `sopen`), which only
//! sections hold, were scored as if there were eight times the documents:
//! each section looked eight times longer than the average (its term
//! frequencies barely saturated) and a word found in every session kept an
//! IDF of about 2 where BM25 gives it almost 0. Counted over the unit
//! ranked, the section query is the Okapi BM25 of the anchors
//! (`benches/anchors.py`), and its IDFs are the ones [`super::terms`]
//! already weighs coverage by and the chance level assumes (at most
//! ln(2N + 2) for N sections). Windows are counted over windows the same
//! way.

use crate::index::Fields;
use crate::index::schema::{UNIT_SECTION, UNIT_WINDOW};
use tantivy::query::Bm25StatisticsProvider;
use tantivy::schema::Field;
use tantivy::{Searcher, Term};

/// Which documents a query ranks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Unit {
    /// Sections' ranking documents (`sbody`, `suser`, `sopen`, heading).
    Section,
    /// Windows (`body`, `user`, heading).
    Window,
}

/// The statistics of one unit's documents, read from `searcher`.
pub(super) struct UnitStats<'a> {
    searcher: &'a Searcher,
    /// The unit's own fields: only its documents hold them, so their
    /// token and term counts are the unit's as they stand.
    own: [Field; 3],
    /// The unit's documents, and all documents (deleted ones included in
    /// both, as tantivy counts N and a term's documents).
    docs: u64,
    all: u64,
}

impl<'a> UnitStats<'a> {
    pub(super) fn new(searcher: &'a Searcher, f: &Fields, unit: Unit) -> UnitStats<'a> {
        let (own, tag) = match unit {
            Unit::Section => ([f.sbody, f.suser, f.sopen], UNIT_SECTION),
            Unit::Window => ([f.body, f.user, f.body], UNIT_WINDOW),
        };
        let all = searcher
            .segment_readers()
            .iter()
            .map(|r| u64::from(r.max_doc()))
            .sum::<u64>()
            .max(1);
        let docs = searcher
            .doc_freq(&Term::from_field_text(f.unit, tag))
            .unwrap_or(all)
            .clamp(1, all);
        UnitStats {
            searcher,
            own,
            docs,
            all,
        }
    }

    /// A count over every document of a field both units hold (the
    /// heading, which a section's ranking document and each of its
    /// windows carry alike), as the unit's share of it: exact when every
    /// section has as many windows (a young memory's short entries have
    /// one each), the average otherwise.
    fn scaled(&self, n: u64) -> u64 {
        (u128::from(n) * u128::from(self.docs) / u128::from(self.all)) as u64
    }
}

impl Bm25StatisticsProvider for UnitStats<'_> {
    fn total_num_tokens(&self, field: Field) -> tantivy::Result<u64> {
        let n = Bm25StatisticsProvider::total_num_tokens(self.searcher, field)?;
        Ok(if self.own.contains(&field) {
            n
        } else {
            self.scaled(n)
        })
    }

    fn total_num_docs(&self) -> tantivy::Result<u64> {
        Ok(self.docs)
    }

    fn doc_freq(&self, term: &Term) -> tantivy::Result<u64> {
        let n = self.searcher.doc_freq(term)?;
        Ok(if self.own.contains(&term.field()) {
            n.min(self.docs)
        } else {
            // A term some document holds stays held by one at least.
            self.scaled(n).max(n.min(1))
        })
    }
}
