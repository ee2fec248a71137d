//! Collection: the top windows, grouped into results. A passage copied
//! verbatim into the daily, weekly and monthly nodes is one result, shown at
//! its most specific place with the copies listed; a section's windows are
//! one result too, judged whole by [`SectionRule`].

use super::build::Built;
use super::columns::{Columns, place_of, section_of};
use super::rank::Ranked;
use crate::error::{Error, Result};
use crate::index::schema::{UNIT_WINDOW, name};
use crate::index::{DocLevel, Fields};
use crate::markdown::{EntryType, Status};
use std::collections::{HashMap, HashSet};
use tantivy::collector::{DocSetCollector, TopDocs};
use tantivy::columnar::Column;
use tantivy::query::{BooleanQuery, BoostQuery, Occur, Query as TQuery, TermQuery};
use tantivy::schema::{IndexRecordOption, Value};
use tantivy::{DocAddress, Order, Score, Searcher, TantivyDocument, Term};

/// Which sections hold every required word and no excluded one, found
/// over all their windows.
pub(super) struct SectionRule {
    /// For each required clause, the sections holding it.
    all_of: Vec<HashSet<u64>>,
    /// Sections holding an excluded clause.
    none_of: HashSet<u64>,
}

impl SectionRule {
    pub(super) fn new(searcher: &Searcher, cols: &[Columns], built: &Built) -> Result<SectionRule> {
        let mut rule = SectionRule {
            all_of: Vec::new(),
            none_of: HashSet::new(),
        };
        for (required, query) in &built.sections {
            let docs = searcher
                .search(query.as_ref(), &tantivy::collector::DocSetCollector)
                .map_err(Error::index("searching"))?;
            let secs = docs.into_iter().map(|a| section_of(cols, a));
            if *required {
                rule.all_of.push(secs.collect());
            } else {
                rule.none_of.extend(secs);
            }
        }
        Ok(rule)
    }

    pub(super) fn passes(&self, sec: u64) -> bool {
        !self.none_of.contains(&sec) && self.all_of.iter().all(|s| s.contains(&sec))
    }
}

/// Results that are copies of one passage.
#[derive(Debug, Clone, Copy)]
pub(super) struct Group {
    pub fp: u64,
    pub score: Score,
    /// The score without the opening turn's prior ([`super::rank::Ranked`]).
    pub evidence: Score,
    /// The share of the question's IDF `best` holds ([`super::rank::Ranked`]).
    pub coverage: Score,
    /// The section's ranking document.
    pub best: DocAddress,
    /// `best` is the section's best window (else its ranking document).
    pub window: bool,
}

/// How many distinct sections the index holds, copies counted once (a
/// raw entry and its copies in the daily, weekly and monthly nodes are
/// one). Read from the postings of the section unit, so a search visits
/// the sections only, not the windows (ten times as many at ten years).
pub(super) fn distinct_sections(
    searcher: &Searcher,
    f: &Fields,
    cols: &[Columns],
) -> Result<usize> {
    let err = Error::index("reading postings");
    let term = tantivy::Term::from_field_text(f.unit, crate::index::schema::UNIT_SECTION);
    let mut seen = rustc_hash::FxHashSet::default();
    for (reader, c) in searcher.segment_readers().iter().zip(cols) {
        let Some(docs) = crate::index::postings::live_docs(reader, &term).map_err(err)? else {
            continue;
        };
        seen.extend(docs.filter_map(|doc| c.fp.first(doc)));
    }
    Ok(seen.len())
}

/// Candidates ranked at least, whatever the limit. A section missing from
/// one of the ranked lists (whole sections, windows, openings) is scored
/// by that list's last, so the pool decides scores near the cut: with a
/// pool of six per result, `-n 3` and the first three of `-n 20` differed
/// for 11 of 73 MemAware questions. With this many, the first results of
/// any `-n` up to 20 (what `hipo recall` asks for) agree.
const POOL_MIN: usize = 150;

/// The best `limit` groups, best first. Copies of a passage score alike,
/// so the candidate pool grows until it holds `limit` distinct passages.
pub(super) fn collect(
    searcher: &Searcher,
    fields: &Fields,
    cols: &[Columns],
    built: &Built,
    rule: &SectionRule,
    limit: usize,
) -> Result<Vec<Group>> {
    // Never ask tantivy for more hits than there are documents: it
    // allocates the whole pool up front (`-n 1000000000`).
    let docs = usize::try_from(searcher.num_docs())
        .unwrap_or(usize::MAX)
        .max(1);
    let mut pool = limit
        .saturating_mul(6)
        .saturating_add(30)
        .max(POOL_MIN)
        .min(docs);
    loop {
        let (top, more) = ranked(searcher, cols, built, pool)?;
        let mut groups = groups(cols, rule, &top);
        if built.scored {
            groups.sort_by(|(a, ka), (b, kb)| b.score.total_cmp(&a.score).then(ka.cmp(kb)));
        }
        let more = more && pool < docs;
        // Windows beyond the pool may tie with the last group kept: the
        // pool grows until it holds them all.
        let tie_at_the_cut = built.scored
            && groups.len() >= limit
            && top.last().map(|r| r.score) == Some(groups[limit - 1].0.score);
        if !more || (groups.len() >= limit && !tie_at_the_cut) {
            if built.scored {
                cut_ties_by_path(searcher, fields, &mut groups, limit)?;
            }
            groups.truncate(limit);
            return Ok(groups.into_iter().map(|(g, _)| g).collect());
        }
        pool = pool.saturating_mul(4).min(docs);
    }
}

/// The top `pool` sections by score (a query without scored terms: the
/// newest first), and whether there may be more.
fn ranked(
    searcher: &Searcher,
    cols: &[Columns],
    built: &Built,
    pool: usize,
) -> Result<(Vec<Ranked>, bool)> {
    if built.scored {
        return super::rank::sections(searcher, cols, built, pool);
    }
    let top: Vec<Ranked> = searcher
        .search(
            &built.query,
            &TopDocs::with_limit(pool).order_by_fast_field::<u64>(name::DATE_HI, Order::Desc),
        )
        .map_err(Error::index("searching"))?
        .into_iter()
        .map(|(_, addr)| Ranked {
            score: 0.0,
            evidence: 0.0,
            coverage: 1.0,
            addr,
            window: false,
        })
        .collect();
    let more = top.len() == pool;
    Ok((top, more))
}

/// The ranked sections that pass `rule`, copies of one passage grouped,
/// each with its best window's place key.
///
/// Ties are broken by what the window is (its place, not where a build
/// happened to put it), so results repeat across rebuilds: a group's best
/// window is the most specific of its top-scoring ones, and groups of
/// equal score are ordered by that window.
fn groups(cols: &[Columns], rule: &SectionRule, top: &[Ranked]) -> Vec<(Group, [u64; 4])> {
    let mut groups: Vec<(Group, [u64; 4])> = Vec::new();
    let mut at: HashMap<u64, usize> = HashMap::new();
    for r in top {
        let (score, addr, window) = (r.score, r.addr, r.window);
        if !rule.passes(section_of(cols, addr)) {
            continue;
        }
        let fp = cols[addr.segment_ord as usize].fp_of(addr.doc_id);
        let key = place_key(cols, addr);
        match at.get(&fp) {
            Some(&i) => {
                let (g, k) = &mut groups[i];
                if score == g.score && key < *k {
                    g.best = addr;
                    g.evidence = r.evidence;
                    g.coverage = r.coverage;
                    g.window = window;
                    *k = key;
                }
            }
            None => {
                at.insert(fp, groups.len());
                let group = Group {
                    fp,
                    score,
                    evidence: r.evidence,
                    coverage: r.coverage,
                    best: addr,
                    window,
                };
                groups.push((group, key));
            }
        }
    }
    groups
}

/// The window of section `sec` that `passage` scores best, if any matches.
pub(super) fn best_window(
    searcher: &Searcher,
    cols: &[Columns],
    f: &Fields,
    passage: &dyn TQuery,
    sec: u64,
) -> Result<Option<DocAddress>> {
    let query = BooleanQuery::new(vec![
        (Occur::Must, passage.box_clone()),
        (
            Occur::Must,
            Box::new(BoostQuery::new(
                Box::new(TermQuery::new(
                    Term::from_field_u64(f.sec, sec),
                    IndexRecordOption::Basic,
                )),
                0.0,
            )),
        ),
    ]);
    // A few, so that windows tied at the top are told apart by their place
    // rather than by the index's document order.
    let top = searcher
        .search(&query, &TopDocs::with_limit(8).order_by_score())
        .map_err(Error::index("finding the best passage"))?;
    let best = top.first().map(|(s, _)| *s);
    Ok(top
        .into_iter()
        .filter(|(s, _)| Some(*s) == best)
        .map(|(_, a)| a)
        .min_by_key(|a| place_of(cols, *a)))
}

/// Which of the groups tied at the cut (the `limit`-th score) are kept is
/// decided by path and line, read for those groups only.
fn cut_ties_by_path(
    searcher: &Searcher,
    fields: &Fields,
    groups: &mut [(Group, [u64; 4])],
    limit: usize,
) -> Result<()> {
    let Some(cut) = groups.get(limit).map(|(g, _)| g.score) else {
        return Ok(());
    };
    if groups[limit - 1].0.score != cut {
        return Ok(());
    }
    let lo = groups.iter().position(|(g, _)| g.score == cut).unwrap_or(0);
    let hi = groups
        .iter()
        .rposition(|(g, _)| g.score == cut)
        .map_or(lo, |i| i + 1);
    let mut keyed = Vec::with_capacity(hi - lo);
    for (g, k) in &groups[lo..hi] {
        let doc = stored(searcher, fields, g.best)?;
        keyed.push(((doc.path, doc.win[0], *k), g.best));
    }
    let mut order: Vec<usize> = (0..keyed.len()).collect();
    order.sort_by(|&a, &b| keyed[a].0.cmp(&keyed[b].0));
    let tied: Vec<(Group, [u64; 4])> = order
        .iter()
        .map(|&i| {
            let (g, k) = &groups[lo + i];
            (*g, *k)
        })
        .collect();
    for (slot, item) in groups[lo..hi].iter_mut().zip(tied) {
        *slot = item;
    }
    Ok(())
}

/// Where a window is, as its copies are ordered: (level rank, newest,
/// section, window).
fn place_key(cols: &[Columns], a: DocAddress) -> [u64; 4] {
    let c = &cols[a.segment_ord as usize];
    let get = |col: &Column<u64>| col.first(a.doc_id).unwrap_or(0);
    [
        get(&c.rank),
        u64::MAX - get(&c.date_hi),
        get(&c.sec),
        get(&c.win),
    ]
}

/// A window's stored fields.
pub(super) struct Stored {
    pub path: String,
    pub level: DocLevel,
    pub kind: EntryType,
    pub status: Option<Status>,
    pub period: Option<String>,
    pub heading: String,
    pub key: String,
    pub dates: Option<(u64, u64)>,
    pub sec: [usize; 2],
    pub win: [usize; 2],
    /// Byte ranges of the section and of the window.
    pub bytes: [usize; 2],
    pub wbytes: [usize; 2],
    pub secret: bool,
}

/// Reads a window's stored fields.
pub(super) fn stored(searcher: &Searcher, f: &Fields, addr: DocAddress) -> Result<Stored> {
    let doc: TantivyDocument = searcher
        .doc(addr)
        .map_err(Error::index("reading a result"))?;
    let s = |field| {
        doc.get_first(field)
            .and_then(|v| v.as_str().map(str::to_string))
    };
    let n = |field| doc.get_first(field).and_then(|v| v.as_u64()).unwrap_or(0) as usize;
    let dates = doc
        .get_first(f.date_lo)
        .and_then(|v| v.as_u64())
        .zip(doc.get_first(f.date_hi).and_then(|v| v.as_u64()));
    Ok(Stored {
        path: s(f.path).unwrap_or_default(),
        level: s(f.level)
            .and_then(|l| DocLevel::parse(&l))
            .unwrap_or_default(),
        kind: s(f.kind)
            .and_then(|k| EntryType::parse(&k))
            .unwrap_or_default(),
        status: s(f.status).and_then(|st| Status::parse(&st)),
        period: s(f.period),
        heading: s(f.heading).unwrap_or_default(),
        key: s(f.key).unwrap_or_default(),
        dates,
        sec: [n(f.sec_lo), n(f.sec_hi)],
        win: [n(f.win_lo), n(f.win_hi)],
        bytes: [n(f.sbyte_lo), n(f.sbyte_hi)],
        wbytes: [n(f.wbyte_lo), n(f.wbyte_hi)],
        secret: n(f.secret) != 0,
    })
}

/// Every window that is a copy of the group's passage (and passes
/// `filter`, if given), most specific place first: (level rank, newest,
/// section), then window.
pub(super) fn copies(
    searcher: &Searcher,
    f: &Fields,
    cols: &[Columns],
    fp: u64,
    filter: Option<&dyn TQuery>,
) -> Result<Vec<(DocAddress, [u64; 4])>> {
    let exact =
        |term| -> Box<dyn TQuery> { Box::new(TermQuery::new(term, IndexRecordOption::Basic)) };
    let mut must = vec![
        (Occur::Must, exact(Term::from_field_u64(f.fp, fp))),
        (
            Occur::Must,
            exact(Term::from_field_text(f.unit, UNIT_WINDOW)),
        ),
    ];
    if let Some(filter) = filter {
        must.push((Occur::Must, filter.box_clone()));
    }
    let query = BooleanQuery::new(must);
    let docs = searcher
        .search(&query, &DocSetCollector)
        .map_err(Error::index("finding copies"))?;
    let mut out: Vec<(DocAddress, [u64; 4])> =
        docs.into_iter().map(|a| (a, place_key(cols, a))).collect();
    out.sort_by_key(|(a, sort)| (*sort, *a));
    Ok(out)
}
