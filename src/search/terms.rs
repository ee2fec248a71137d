//! The terms that rank sections, each with its IDF over sections.
//!
//! A question in natural language ("could you send me the complete list
//! of spirits you recommended?") is mostly words that are not the point:
//! `list`, `recommend` and `send` sit in most sessions of an assistant's
//! memory. BM25 already gives them a low IDF; the IDF is also what
//! [`super::coverage`] weighs a document's share of the question by, so
//! holding `spirit` counts for far more than holding `list`. (Dropping the
//! commonest terms outright was measured too, and lost cases.)

use crate::index::Fields;
use crate::index::schema::UNIT_SECTION;
use tantivy::{Score, Searcher, Term};

/// Each term with its BM25 IDF among sections' ranking documents.
pub(super) fn with_idf(searcher: &Searcher, f: &Fields, terms: &[String]) -> Vec<(String, Score)> {
    let df = |field, t: &str| {
        searcher
            .doc_freq(&Term::from_field_text(field, t))
            .unwrap_or(0) as f64
    };
    let sections = df(f.unit, UNIT_SECTION).max(1.0);
    terms
        .iter()
        .map(|t| {
            let n = df(f.sbody, t).max(df(f.suser, t)).min(sections);
            let idf = (1.0 + (sections - n + 0.5) / (n + 0.5)).ln();
            (t.clone(), idf as Score)
        })
        .collect()
}
