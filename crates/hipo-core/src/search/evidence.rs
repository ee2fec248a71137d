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
use super::build::{HEADING_BOOST, USER_BOOST};
use super::collect::{Columns, place_of};
use super::coverage::coverage;
use super::stats::{Unit, UnitStats};
use crate::error::{Error, Result};
use crate::index::Fields;
use tantivy::query::{EnableScoring, Query, Scorer, TermQuery, Weight};
use tantivy::schema::Field;
use tantivy::schema::IndexRecordOption;
use tantivy::{DocAddress, DocSet, Score, Searcher, TERMINATED, Term};

/// A square root: a document holding a quarter of the question's IDF
/// keeps half its score.
const COVERAGE_POWER: Score = 0.5;

/// Per-term weights of one query: (field's term weight, boost). Scored
/// term by term: a union's scorer buffers thousands of documents ahead,
/// which for one document a result cost a millisecond each.
type Terms = Vec<(Box<dyn Weight>, Score)>;

/// Scores single documents for one search.
pub(super) struct Evidence {
    section: Terms,
    passage: Terms,
    /// The passage's terms over windows' own statistics: which window of
    /// a result is shown.
    window: Terms,
}

fn weights(
    terms: &[(String, Score)],
    fields: &[(Field, Score)],
    scoring: EnableScoring,
) -> Result<Terms> {
    let mut out = Vec::new();
    for (t, _) in terms {
        for &(field, boost) in fields {
            let q = TermQuery::new(
                Term::from_field_text(field, t),
                IndexRecordOption::WithFreqs,
            );
            out.push((
                q.weight(scoring)
                    .map_err(Error::index("scoring a result"))?,
                boost,
            ));
        }
    }
    Ok(out)
}

impl Evidence {
    pub(super) fn new(searcher: &Searcher, built: &Built) -> Result<Evidence> {
        let f = &built.fields;
        let all = EnableScoring::enabled_from_searcher(searcher);
        let stats = UnitStats::new(searcher, f, Unit::Window);
        let windows = EnableScoring::enabled_from_statistics_provider(&stats, searcher);
        let terms = if built.scored { &built.ranked[..] } else { &[] };
        let section = [
            (f.sbody, 1.0),
            (f.suser, USER_BOOST),
            (f.heading, HEADING_BOOST),
        ];
        let passage = [(f.body, 1.0), (f.user, USER_BOOST)];
        Ok(Evidence {
            section: weights(terms, &section, all)?,
            passage: weights(terms, &passage, all)?,
            window: weights(terms, &passage, windows)?,
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
        let cov = |fields: &[Field], a| -> Result<Score> {
            Ok(coverage(searcher, fields, terms, &[a])?
                .first()
                .copied()
                .unwrap_or(0.0))
        };
        let (sec_cov, win_cov) = (cov(&[f.sbody, f.heading], section)?, cov(&[f.body], shown)?);
        let whole = score(searcher, &self.section, section)? * sec_cov.powf(COVERAGE_POWER);
        let part = score(searcher, &self.passage, shown)? * win_cov.powf(COVERAGE_POWER);
        Ok((whole + part, win_cov))
    }

    /// The window of section `sec` the passage's terms score best, if any
    /// matches; of windows scoring alike, the first in the section.
    pub(super) fn best_window(
        &self,
        searcher: &Searcher,
        cols: &[Columns],
        f: &Fields,
        sec: u64,
    ) -> Result<Option<DocAddress>> {
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
            let mut scorers = Vec::with_capacity(self.window.len());
            for (w, boost) in &self.window {
                scorers.push(w.scorer(reader, *boost).map_err(err)?);
            }
            let alive = reader.alive_bitset();
            let mut doc = docs.doc();
            while doc != TERMINATED {
                if alive.is_none_or(|a| a.is_alive(doc)) {
                    let s = sum_at(&mut scorers, doc);
                    let a = DocAddress::new(ord as u32, doc);
                    let key = (s, place_of(cols, a));
                    if s > 0.0
                        && best.is_none_or(|(b, p, _)| key.0 > b || (key.0 == b && key.1 < p))
                    {
                        best = Some((key.0, key.1, a));
                    }
                }
                doc = docs.advance();
            }
        }
        Ok(best.map(|(_, _, a)| a))
    }
}

/// The summed score of `doc` over term scorers (each moved forward to it).
fn sum_at(scorers: &mut [Box<dyn Scorer>], doc: tantivy::DocId) -> Score {
    let mut total = 0.0;
    for s in scorers.iter_mut() {
        // Past `doc` already (seek may only move forward).
        if s.doc() <= doc && s.seek(doc) == doc {
            total += s.score();
        }
    }
    total
}

/// One document's score under a query's per-term weights.
fn score(searcher: &Searcher, terms: &Terms, a: DocAddress) -> Result<Score> {
    let reader = searcher.segment_reader(a.segment_ord);
    let mut scorers = Vec::with_capacity(terms.len());
    for (w, boost) in terms {
        scorers.push(
            w.scorer(reader, *boost)
                .map_err(Error::index("scoring a result"))?,
        );
    }
    Ok(sum_at(&mut scorers, a.doc_id))
}
