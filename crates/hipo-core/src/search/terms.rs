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

/// The unit [`super::Hit::relevance`] counts in: about what the best
/// section scores by chance for a question the memory knows nothing of.
/// Three things grow with the memory: the IDF of a rare word (BM25 sums
/// IDFs; at most ln(1 + 2N + 1) for N sections, copies included, as BM25
/// counts them), how well the best of the memory's passages happens to
/// match common words (the best of more draws: about ln(1 + D) for D
/// distinct sections; a copy is not another draw), and how many of a
/// prompt's words a passage holds at all, which grows with the breadth of
/// what the memory talks about (a young project's entries are about one
/// project; sixteen megabytes of chat are about everything), counted as
/// ln(1 + D) once more. With the product of the two logs alone, the
/// floor that kept prompts about something else out of a 1,320-session
/// chat history was about twice what separated them in young memories of
/// 20 to 40 entries (`tests/data/recall`); with the square, one floor
/// serves both (docs/retrieval-log.md, "Recall"). A power of 2.25 answered
/// more prompts of young typed memories and let prompts about something
/// else through in three sets written after it was chosen (the log's
/// "Two sets written blind"): the square stays.
pub(super) fn chance_level(searcher: &Searcher, f: &Fields, distinct: usize) -> Score {
    let n = searcher
        .doc_freq(&Term::from_field_text(f.unit, UNIT_SECTION))
        .unwrap_or(0)
        .max(1) as f64;
    let draws = (distinct as f64).clamp(1.0, n);
    ((1.0 + draws).ln().powi(2) * (1.0 + (n + 0.5) / 0.5).ln()) as Score
}

/// Each term with its BM25 IDF among sections' ranking documents; 0 for a
/// term no section holds. Such a word (a file name, a marker, a pasted
/// error's identifier) can be held by no passage, so weighing it would
/// lower every passage's coverage alike and the evidence with it: a
/// question would pass recall's gate or not by the words the memory does
/// not know.
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
            if n == 0.0 && df(f.heading, t) == 0.0 {
                return (t.clone(), 0.0);
            }
            let idf = (1.0 + (sections - n + 0.5) / (n + 0.5)).ln();
            (t.clone(), idf as Score)
        })
        .collect()
}
