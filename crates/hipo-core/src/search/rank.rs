//! A section's score: Okapi BM25 over its ranking document, its whole text
//! and the lines its user wrote as two fields summed (the anchor that held
//! on the held-out MemAware questions, issue 26), with BM25's statistics
//! counted over sections ([`super::stats`]). To that the opening turn adds
//! a prior (see [`OPENING_WEIGHT`]).
//!
//! What was dropped, and why: the best window's BM25 added to the
//! section's, and both scaled by the square root of the question's IDF
//! share they held (coverage). Together they lifted the dev questions
//! (0.307 → 0.347 with the prior) and left the 750 held-out ones at plain
//! whole-session BM25 (31.8% R@5, below 33.5% for BM25 with a user
//! field): a gain on 150 questions that did not carry. Measured again on
//! corrected statistics, each lost cases on one half of dev or the other
//! (docs/search.md). Coverage is still reported for the passage shown
//! (recall reads it), computed for the results only.

use super::build::Built;
use super::collect::{Columns, place_of, section_of};
use super::stats::{Unit, UnitStats};
use crate::error::{Error, Result};
use std::collections::HashMap;
use tantivy::collector::TopDocs;
use tantivy::query::{Bm25StatisticsProvider, Query as TQuery};
use tantivy::{DocAddress, Score, Searcher};

/// How much BM25 over a session's opening turn (its user's first request,
/// which says what the session is about) adds to its score. A question
/// asked weeks later names the session's subject, which a long session
/// mentions once at its start and then buries under details: on the
/// MemAware dev questions R@5 0.327 → 0.347 over BM25 with the user field
/// (both halves gain), and on the questions written here 0.811 → 0.878
/// (weights 1 and 3: within a case of 2 on both).
/// It orders what the evidence found and is not evidence itself: the
/// relevance recall's floor reads leaves it out, so a prompt's chance of
/// passing the floor is what it was.
pub const OPENING_WEIGHT: Score = 2.0;

/// A section as ranked: its score, its evidence (the score without the
/// opening's prior) and its ranking document.
#[derive(Debug, Clone, Copy)]
pub(super) struct Ranked {
    pub score: Score,
    pub evidence: Score,
    pub addr: DocAddress,
}

/// The top `pool` documents of `query` by score, and whether there may
/// be more.
fn top(
    searcher: &Searcher,
    stats: &dyn Bm25StatisticsProvider,
    query: &dyn TQuery,
    pool: usize,
) -> Result<(Vec<(Score, DocAddress)>, bool)> {
    let top = searcher
        .search_with_statistics_provider(query, &TopDocs::with_limit(pool).order_by_score(), stats)
        .map_err(Error::index("searching"))?;
    let full = top.len() == pool;
    Ok((top, full))
}

/// Up to `pool` sections' ranking documents, best first; and whether
/// there may be more.
pub(super) fn sections(
    searcher: &Searcher,
    cols: &[Columns],
    built: &Built,
    pool: usize,
) -> Result<(Vec<Ranked>, bool)> {
    let stats = UnitStats::new(searcher, &built.fields, Unit::Section);
    let (whole, more) = top(searcher, &stats, built.query.as_ref(), pool)?;
    let opening = opening(searcher, &stats, cols, built, pool)?;
    let mut out: Vec<Ranked> = whole
        .into_iter()
        .map(|(evidence, addr)| {
            let prior = opening.get(&section_of(cols, addr)).copied().unwrap_or(0.0);
            Ranked {
                score: evidence + OPENING_WEIGHT * prior,
                evidence,
                addr,
            }
        })
        .collect();
    out.sort_by(|x, y| {
        y.score
            .total_cmp(&x.score)
            .then_with(|| place_of(cols, x.addr).cmp(&place_of(cols, y.addr)))
    });
    Ok((out, more))
}

/// The BM25 of the `pool` sections whose opening turns match the query
/// best, by section. A section found by its evidence whose opening is not
/// among them gets no prior: its opening scores at most the last's.
fn opening(
    searcher: &Searcher,
    stats: &dyn Bm25StatisticsProvider,
    cols: &[Columns],
    built: &Built,
    pool: usize,
) -> Result<HashMap<u64, Score>> {
    let Some(query) = &built.opening else {
        return Ok(HashMap::new());
    };
    let (top, _) = top(searcher, stats, query.as_ref(), pool)?;
    Ok(top
        .into_iter()
        .map(|(s, a)| (section_of(cols, a), s))
        .collect())
}
