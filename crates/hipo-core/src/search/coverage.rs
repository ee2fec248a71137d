//! How much of a query a document covers: the IDF-weighted share of the
//! ranked terms it holds in any of some fields. BM25 sums terms
//! independently, so a long section saying two common words many times
//! can outscore one holding every word of the question once; scaling by
//! coverage (the old idea of Lucene's `coord`) favours the latter.

use crate::error::{Error, Result};
use std::collections::BTreeMap;
use tantivy::DocSet;
use tantivy::schema::{Field, IndexRecordOption};
use tantivy::{DocAddress, DocId, Score, Searcher, Term};

/// For each document, the share (0 to 1) of `terms`' total IDF it holds
/// in one of `fields`. Documents are visited in order per segment, so
/// each term's postings are read once forward.
pub(super) fn coverage(
    searcher: &Searcher,
    fields: &[Field],
    terms: &[(String, Score)],
    docs: &[DocAddress],
) -> Result<Vec<Score>> {
    let total: Score = terms.iter().map(|(_, idf)| idf).sum();
    let mut held = vec![0.0; docs.len()];
    if total <= 0.0 {
        return Ok(vec![1.0; docs.len()]);
    }
    let mut by_segment: BTreeMap<u32, Vec<(DocId, usize)>> = BTreeMap::new();
    for (i, a) in docs.iter().enumerate() {
        by_segment
            .entry(a.segment_ord)
            .or_default()
            .push((a.doc_id, i));
    }
    let err = Error::index("reading postings");
    for (seg, mut list) in by_segment {
        list.sort_unstable();
        let reader = searcher.segment_reader(seg);
        for (text, idf) in terms {
            let mut has = vec![false; list.len()];
            for &field in fields {
                let inverted = reader.inverted_index(field).map_err(err)?;
                let term = Term::from_field_text(field, text);
                let Some(mut postings) = inverted
                    .read_postings(&term, IndexRecordOption::Basic)
                    .map_err(|e| err(e.into()))?
                else {
                    continue;
                };
                for (j, &(doc, _)) in list.iter().enumerate() {
                    // Past `doc` already (seek may only move forward).
                    if postings.doc() <= doc && postings.seek(doc) == doc {
                        has[j] = true;
                    }
                }
            }
            for (j, &(_, i)) in list.iter().enumerate() {
                if has[j] {
                    held[i] += idf;
                }
            }
        }
    }
    Ok(held.into_iter().map(|h| h / total).collect())
}
