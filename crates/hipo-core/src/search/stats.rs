//! BM25's collection statistics counted over the documents a query ranks.
//!
//! One index holds two kinds of document: a section's ranking document
//! and its windows (about ten windows a section on a chat history).
//! Tantivy's BM25 takes the number of documents and a field's average
//! length over the whole index, so a section field's statistics counted
//! the windows too, which hold none of it: with ten times the documents,
//! a word in every session kept an IDF of about 2.3 where BM25 gives it
//! almost 0 (the common words of a long question outweighed its rare
//! ones), and every section looked ten times longer than the average
//! (term frequency barely saturated). Counted over the unit ranked, the
//! section ranking is the Okapi BM25 the anchors compute
//! (`benches/anchors.py`). A field both kinds hold (the heading) has its
//! counts scaled to the unit's share of the documents.

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
    /// token and term counts are the unit's as they are.
    own: [Field; 3],
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

    /// A count over every document, as the unit's share of it.
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
            self.scaled(n).max(n.min(1))
        })
    }
}
