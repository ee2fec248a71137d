//! A result's evidence, what its `relevance` (and so recall's floor)
//! reads: BM25 of the section and of the passage shown, each scaled by
//! the square root of the question's IDF share it holds ([`coverage`]),
//! with tantivy's statistics over every document as recall's floor was
//! calibrated on. Computed for the results only, not for every candidate.
//!
//! Why not the ranking score: on the first 80 MemAware dev questions and
//! 80 long prompts about something else, a floor leaving nine in ten of
//! the latter empty lets 60 questions through on this evidence and 30 on
//! the ranking's BM25 (`relevance` is a gate, ranking orders what passed
//! it: a passage holding most of the question is better evidence that the
//! memory knows the answer than a high sum of a few words).

use super::build::Built;
use super::collect::{Columns, place_of};
use super::coverage::coverage;
use super::stats::{Unit, UnitStats};
use crate::error::{Error, Result};
use crate::index::Fields;
use tantivy::query::{EnableScoring, Scorer, Weight};
use tantivy::schema::IndexRecordOption;
use tantivy::{DocAddress, DocSet, Score, Searcher, TERMINATED, Term};

/// A square root: a document holding a quarter of the question's IDF
/// keeps half its score.
const COVERAGE_POWER: Score = 0.5;

/// Scores single documents for one search.
pub(super) struct Evidence {
    section: Option<Box<dyn Weight>>,
    passage: Option<Box<dyn Weight>>,
    /// The passage query over windows' own statistics: which window of a
    /// result is shown. Built once per search (a query per result cost
    /// 0.3 ms each, most of it weighing the terms again).
    window: Option<Box<dyn Weight>>,
}

impl Evidence {
    pub(super) fn new(searcher: &Searcher, built: &Built) -> Result<Evidence> {
        let err = Error::index("scoring a result");
        let scoring = EnableScoring::enabled_from_searcher(searcher);
        let weight = |q: &Option<Box<dyn tantivy::query::Query>>| -> Result<_> {
            Ok(match q {
                Some(q) => Some(q.weight(scoring).map_err(err)?),
                None => None,
            })
        };
        let (section, passage) = (weight(&built.evidence)?, weight(&built.passage)?);
        let stats = UnitStats::new(searcher, &built.fields, Unit::Window);
        let window = match &built.passage {
            Some(q) => Some(
                q.weight(EnableScoring::enabled_from_statistics_provider(
                    &stats, searcher,
                ))
                .map_err(err)?,
            ),
            None => None,
        };
        Ok(Evidence {
            section,
            passage,
            window,
        })
    }

    /// The evidence for a result ranked by its ranking document `section`
    /// and shown at the window `shown`; and the window's coverage.
    pub(super) fn of(
        &self,
        searcher: &Searcher,
        f: &Fields,
        terms: &[(String, Score)],
        section: DocAddress,
        shown: DocAddress,
    ) -> Result<(Score, Score)> {
        let cov = |fields: &[tantivy::schema::Field], a| -> Result<Score> {
            Ok(coverage(searcher, fields, terms, &[a])?
                .first()
                .copied()
                .unwrap_or(0.0))
        };
        let (sec_cov, win_cov) = (cov(&[f.sbody, f.heading], section)?, cov(&[f.body], shown)?);
        let whole = match &self.section {
            Some(w) => score(searcher, w.as_ref(), section)? * sec_cov.powf(COVERAGE_POWER),
            None => 0.0,
        };
        let part = match &self.passage {
            Some(w) => score(searcher, w.as_ref(), shown)? * win_cov.powf(COVERAGE_POWER),
            None => 0.0,
        };
        Ok((whole + part, win_cov))
    }
}

impl Evidence {
    /// The window of section `sec` the passage query scores best, if any
    /// matches; of windows scoring alike, the first in the section.
    pub(super) fn best_window(
        &self,
        searcher: &Searcher,
        cols: &[Columns],
        f: &Fields,
        sec: u64,
    ) -> Result<Option<DocAddress>> {
        let Some(weight) = &self.window else {
            return Ok(None);
        };
        let err = Error::index("finding the best passage");
        let term = Term::from_field_u64(f.sec, sec);
        let mut best: Option<(Score, (u64, u64), DocAddress)> = None;
        for (ord, reader) in searcher.segment_readers().iter().enumerate() {
            let inverted = reader.inverted_index(f.sec).map_err(err)?;
            let Some(mut docs) = inverted
                .read_postings(&term, IndexRecordOption::Basic)
                .map_err(|e| err(e.into()))?
            else {
                continue;
            };
            let mut scorer = weight.scorer(reader, 1.0).map_err(err)?;
            let alive = reader.alive_bitset();
            let mut doc = docs.doc();
            while doc != TERMINATED {
                // Past `doc` already (seek may only move forward).
                let at = scorer.doc() <= doc && scorer.seek(doc) == doc;
                if at && alive.is_none_or(|a| a.is_alive(doc)) {
                    let a = DocAddress::new(ord as u32, doc);
                    let key = (scorer.score(), place_of(cols, a));
                    if best.is_none_or(|(s, p, _)| key.0 > s || (key.0 == s && key.1 < p)) {
                        best = Some((key.0, key.1, a));
                    }
                }
                if scorer.doc() == TERMINATED {
                    break;
                }
                doc = docs.advance();
            }
        }
        Ok(best.map(|(_, _, a)| a))
    }
}

/// One document's score under `weight` (0 when it does not match).
fn score(searcher: &Searcher, weight: &dyn Weight, a: DocAddress) -> Result<Score> {
    let reader = searcher.segment_reader(a.segment_ord);
    let mut scorer = weight
        .scorer(reader, 1.0)
        .map_err(Error::index("scoring a result"))?;
    Ok(
        if scorer.doc() <= a.doc_id && scorer.seek(a.doc_id) == a.doc_id {
            scorer.score()
        } else {
            0.0
        },
    )
}
