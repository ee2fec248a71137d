//! A section's score from two kinds of evidence: BM25 over its whole text
//! (how much of it is about the query: every window counts) and BM25 of
//! its best window (how closely one passage answers it: a fact stated
//! once in a long session), each scaled by the square root of the share
//! of the question it covers ([`coverage`]). Either kind alone lost cases
//! the other found, on both `hipo eval` sets. To that the opening turn
//! adds a prior (see [`OPENING_WEIGHT`]).

use super::build::Built;
use super::columns::{Columns, place_of, section_of};
use super::coverage::coverage;
use crate::error::{Error, Result};
use std::collections::HashMap;
use tantivy::collector::TopDocs;
use tantivy::query::Query as TQuery;
use tantivy::{DocAddress, Score, Searcher};

/// How much the best window's score adds to the whole section's: as much.
pub const PASSAGE_WEIGHT: Score = 1.0;
/// A score is multiplied by its coverage to this power: a document holding
/// a quarter of the question's IDF keeps half its score.
pub const COVERAGE_POWER: Score = 0.5;

/// How much BM25 over a session's opening turn (its user's first request,
/// which says what the session is about) adds to its score. A question
/// asked weeks later names the session's subject, which a long session
/// mentions once at its start and then buries under details: on the
/// MemAware dev questions R@5 0.307 → 0.347, and on the questions written
/// here R@1 0.486 → 0.568 with R@5 unchanged (weights 1 and 3: 0.327 on
/// dev, the same on the fixture).
/// It orders what the evidence found and is not evidence itself: the
/// relevance recall's floor reads leaves it out, so a prompt's chance of
/// passing the floor is what it was.
pub const OPENING_WEIGHT: Score = 2.0;

/// A section as ranked: its score, its evidence (the score without the
/// opening's prior), the document it is known by, and whether that is its
/// best window (else its ranking document).
#[derive(Debug, Clone, Copy)]
pub(super) struct Ranked {
    pub score: Score,
    pub evidence: Score,
    /// The share of the question's IDF its document holds
    /// ([`coverage`]; 1 when nothing weighs the terms).
    pub coverage: Score,
    pub addr: DocAddress,
    pub window: bool,
}

/// The top `pool` documents of `query` by score, and whether there may
/// be more.
fn top(
    searcher: &Searcher,
    query: &dyn TQuery,
    pool: usize,
) -> Result<(Vec<(Score, DocAddress)>, bool)> {
    let top = searcher
        .search(query, &TopDocs::with_limit(pool).order_by_score())
        .map_err(Error::index("searching"))?;
    let full = top.len() == pool;
    Ok((top, full))
}

/// Up to about `pool` sections, best first, each as its best window when
/// one was ranked (`true`) or else its ranking document; and whether there
/// may be more.
pub(super) fn sections(
    searcher: &Searcher,
    cols: &[Columns],
    built: &Built,
    pool: usize,
) -> Result<(Vec<Ranked>, bool)> {
    let (mut whole, more_whole) = top(searcher, built.query.as_ref(), pool)?;
    let Some(windows) = &built.windows else {
        return Ok((whole_only(whole), more_whole));
    };
    let (mut parts, more_parts) = top(searcher, windows.as_ref(), pool.saturating_mul(2))?;
    let f = &built.fields;
    // A user's lines are in the body too, so their field adds nothing here.
    let section_fields = [f.sbody, f.heading];
    let window_fields = [f.body];
    let mut covered: HashMap<DocAddress, Score> = HashMap::new();
    for (list, fields) in [
        (&mut whole, &section_fields[..]),
        (&mut parts, &window_fields[..]),
    ] {
        weigh_by_coverage(searcher, cols, built, fields, list, &mut covered)?;
    }
    let floors = Floors {
        whole: floor(&whole, more_whole),
        part: floor(&parts, more_parts),
    };
    let by_sec = by_section(cols, &whole, &parts);
    let opening = opening(searcher, cols, built, pool)?;
    let out = combine(cols, by_sec, floors, &opening, &covered);
    Ok((out, more_whole || more_parts))
}

/// A query without windows (unscored: filters only) ranks by its ranking
/// documents alone, as they came.
fn whole_only(whole: Vec<(Score, DocAddress)>) -> Vec<Ranked> {
    whole
        .into_iter()
        .map(|(score, addr)| Ranked {
            score,
            evidence: score,
            coverage: 1.0,
            addr,
            window: false,
        })
        .collect()
}

/// Scales each score of `list` by its document's coverage over `fields`
/// (noted in `covered`, which [`Ranked::coverage`] reports), then sorts it
/// best first, ties in place order, so its last is its floor.
fn weigh_by_coverage(
    searcher: &Searcher,
    cols: &[Columns],
    built: &Built,
    fields: &[tantivy::schema::Field],
    list: &mut [(Score, DocAddress)],
    covered: &mut HashMap<DocAddress, Score>,
) -> Result<()> {
    let docs: Vec<DocAddress> = list.iter().map(|x| x.1).collect();
    let cov = coverage(searcher, fields, &built.ranked, &docs)?;
    covered.extend(docs.into_iter().zip(cov.iter().copied()));
    for (x, c) in list.iter_mut().zip(cov) {
        x.0 *= c.powf(COVERAGE_POWER);
    }
    list.sort_by(|x, y| {
        y.0.total_cmp(&x.0)
            .then_with(|| place_of(cols, x.1).cmp(&place_of(cols, y.1)))
    });
    Ok(())
}

/// A section missing from a full list scores at most that list's last
/// (0 when the list holds every match).
fn floor(list: &[(Score, DocAddress)], more: bool) -> Score {
    if more {
        list.last().map_or(0.0, |l| l.0)
    } else {
        0.0
    }
}

/// The floors of the whole-section list and of the windows' list.
#[derive(Clone, Copy)]
struct Floors {
    whole: Score,
    part: Score,
}

/// A section's evidence: its whole score, its ranking document, and its
/// best window's score and address.
type Evidence = (
    Option<Score>,
    Option<DocAddress>,
    Option<(Score, DocAddress)>,
);

/// The two lists' evidence gathered by section; a section's best window is
/// the first of its windows in `parts` (sorted best first).
fn by_section(
    cols: &[Columns],
    whole: &[(Score, DocAddress)],
    parts: &[(Score, DocAddress)],
) -> HashMap<u64, Evidence> {
    let mut by_sec: HashMap<u64, Evidence> = HashMap::new();
    for &(s, a) in whole {
        by_sec.insert(section_of(cols, a), (Some(s), Some(a), None));
    }
    for &(s, a) in parts {
        let e = by_sec.entry(section_of(cols, a)).or_default();
        e.2.get_or_insert((s, a));
    }
    by_sec
}

/// Each section's score (its two kinds of evidence, a missing one at its
/// floor, plus the opening's prior), known by its best window when it has
/// one; best first, ties in place order.
fn combine(
    cols: &[Columns],
    by_sec: HashMap<u64, Evidence>,
    floors: Floors,
    opening: &HashMap<u64, Score>,
    covered: &HashMap<DocAddress, Score>,
) -> Vec<Ranked> {
    let mut out: Vec<Ranked> = by_sec
        .into_iter()
        .filter_map(|(sec, (w, doc, part))| {
            let evidence =
                w.unwrap_or(floors.whole) + PASSAGE_WEIGHT * part.map_or(floors.part, |p| p.0);
            let score = evidence + OPENING_WEIGHT * opening.get(&sec).copied().unwrap_or(0.0);
            let (addr, window) = match part {
                Some((_, window)) => (window, true),
                None => (doc?, false),
            };
            Some(Ranked {
                score,
                evidence,
                coverage: covered.get(&addr).copied().unwrap_or(0.0),
                addr,
                window,
            })
        })
        .collect();
    out.sort_by(|x, y| {
        y.score
            .total_cmp(&x.score)
            .then_with(|| place_of(cols, x.addr).cmp(&place_of(cols, y.addr)))
    });
    out
}

/// The BM25 of the `pool` sections whose opening turns match the query
/// best, by section. A section found by its evidence whose opening is not
/// among them gets no prior: its opening scores at most the last's.
fn opening(
    searcher: &Searcher,
    cols: &[Columns],
    built: &Built,
    pool: usize,
) -> Result<HashMap<u64, Score>> {
    let Some(query) = &built.opening else {
        return Ok(HashMap::new());
    };
    let (top, _) = top(searcher, query.as_ref(), pool)?;
    Ok(top
        .into_iter()
        .map(|(s, a)| (section_of(cols, a), s))
        .collect())
}
