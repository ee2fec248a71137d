//! `hipo search`: a [`query::Query`] run against the [`crate::index`].
//!
//! Ranking is BM25 over each window's text, plus its heading and the lines
//! its user wrote, each boosted (the user's own words are the best evidence
//! in an agent's memory). Results are collapsed: a passage copied verbatim
//! into the daily, weekly and monthly nodes is one result, shown at its
//! most specific place (the raw log and line) with the copies listed as
//! `also_in`; a section's windows are one result too. Snippets are cut from
//! the Markdown on disk, redacted, with the matched terms marked.

pub mod get;
pub mod query;

use crate::error::{Error, Result};
use crate::index::{self, DocLevel, Fields, SearchIndex, analyzer};
use crate::markdown::EntryType;
use crate::redact::redact;
use query::{Clause, Filters, Query};
use serde::Serialize;
use std::collections::{BTreeMap, HashSet};
use std::ops::{Bound, Range};
use std::path::Path;
use tantivy::collector::{DocSetCollector, TopDocs};
use tantivy::columnar::Column;
use tantivy::query::{
    AllQuery, BooleanQuery, BoostQuery, Occur, PhraseQuery, Query as TQuery, RangeQuery,
    RegexQuery, TermQuery,
};
use tantivy::schema::{IndexRecordOption, Value};
use tantivy::snippet::SnippetGenerator;
use tantivy::{DocAddress, Order, Score, Searcher, TantivyDocument, Term};

/// How much a match in the lines the user wrote counts over one in the body.
pub const USER_BOOST: Score = 2.0;
/// How much a match in the heading counts over one in the body.
pub const HEADING_BOOST: Score = 1.5;
/// Snippet length in bytes.
pub const SNIPPET_BYTES: usize = 220;
/// Copies listed per result.
pub const ALSO_IN_MAX: usize = 10;

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// How to run a search.
#[derive(Debug, Clone)]
pub struct Options {
    /// Results to return.
    pub limit: usize,
    /// Drop results scoring below this.
    pub min_score: Option<f32>,
    /// Include each result's whole section.
    pub full: bool,
    /// The index was synced with the files just now, so a section it
    /// records as secret-free is shown without redacting it again.
    pub trust_index: bool,
    /// Cut snippets (not needed to list paths or to score an eval).
    pub snippets: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            limit: 10,
            min_score: None,
            full: false,
            trust_index: false,
            snippets: true,
        }
    }
}

/// One result.
#[derive(Debug, Clone, Serialize)]
pub struct Hit {
    /// `#` and 12 hex digits; `hipo get` prints the section it names.
    pub id: String,
    pub path: String,
    /// The line of the best match (the snippet's first highlight).
    pub line: usize,
    /// First and last line of the section.
    pub lines: [usize; 2],
    /// `title › heading` of the section.
    pub heading: String,
    pub level: DocLevel,
    /// The day, or `first..last` day, the section is about.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub date: Option<String>,
    /// The node's period (`2026-W11`, `2026-03`) or the raw log's date.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub period: Option<String>,
    /// The entry type tag of the section's heading.
    #[serde(rename = "type")]
    pub kind: EntryType,
    /// The node's status (nodes only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub status: Option<String>,
    pub score: f32,
    /// The snippet with matches in `**…**`.
    pub snippet: String,
    /// The snippet without markers...
    pub snippet_text: String,
    /// ...and the byte ranges of the matches in it.
    pub highlights: Vec<[usize; 2]>,
    /// Verbatim copies of this section elsewhere in the tree, most specific
    /// first, at most [`ALSO_IN_MAX`].
    pub also_in: Vec<Place>,
    /// Copies beyond those listed.
    #[serde(skip_serializing_if = "is_zero")]
    pub also_in_more: usize,
    /// The whole section (with `--full`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
}

/// Where a copy of a result sits.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct Place {
    pub path: String,
    /// First and last line of the section there.
    pub lines: [usize; 2],
    pub level: DocLevel,
}

/// Runs `query` (parsed) against `index`, reading snippets from `root`.
pub fn search(index: &SearchIndex, root: &Path, q: &Query, opts: &Options) -> Result<Vec<Hit>> {
    let f = index.fields;
    let built = build(&f, q)?;
    let searcher = index.searcher();
    let cols = columns(&searcher)?;
    let rule = SectionRule::new(&searcher, &cols, &built)?;
    let groups = collect(&searcher, &cols, &built, &rule, opts.limit)?;
    let filter = built.filter.as_deref();
    let snippets = Marker::new(&searcher, &f, &built.positive);
    let passages = Passages {
        root,
        trust_index: opts.trust_index,
    };
    let mut hits = Vec::new();
    for g in groups {
        if opts.min_score.is_some_and(|min| g.score < min) {
            continue;
        }
        hits.push(hit(
            &searcher, &f, &cols, filter, &g, &snippets, &passages, opts,
        )?);
    }
    Ok(hits)
}

/// A query ready for tantivy, and the body terms snippets should mark.
struct Built {
    query: Box<dyn TQuery>,
    /// The filters alone: a result is shown at a copy that passes them.
    filter: Option<Box<dyn TQuery>>,
    /// Ranked by BM25 (false: only filters, newest first).
    scored: bool,
    positive: Vec<String>,
    /// Required (`true`) and excluded clauses, judged per section.
    sections: Vec<(bool, Box<dyn TQuery>)>,
}

fn term_query(field: tantivy::schema::Field, text: &str) -> Box<dyn TQuery> {
    Box::new(TermQuery::new(
        Term::from_field_text(field, text),
        IndexRecordOption::WithFreqs,
    ))
}

/// A token in the body, the heading or the user's lines, boosted.
fn any_field(f: &Fields, token: &str) -> Box<dyn TQuery> {
    Box::new(BooleanQuery::new(vec![
        (Occur::Should, term_query(f.body, token)),
        (
            Occur::Should,
            Box::new(BoostQuery::new(term_query(f.user, token), USER_BOOST)),
        ),
        (
            Occur::Should,
            Box::new(BoostQuery::new(term_query(f.heading, token), HEADING_BOOST)),
        ),
    ]))
}

/// A required or excluded word or phrase; `None` if it is all stop words.
fn clause(f: &Fields, c: &Clause, positive: &mut Vec<String>) -> Option<Box<dyn TQuery>> {
    let (text, phrase) = match c {
        Clause::Word(w) => (w.as_str(), false),
        Clause::Phrase(p) => (p.as_str(), true),
    };
    let tokens = analyzer::tokens(text);
    positive.extend(tokens.iter().map(|t| t.text.clone()));
    match tokens.len() {
        0 => None,
        1 => Some(any_field(f, &tokens[0].text)),
        _ if phrase => {
            let first = tokens[0].position;
            let terms = tokens
                .iter()
                .map(|t| (t.position - first, Term::from_field_text(f.body, &t.text)))
                .collect();
            Some(Box::new(PhraseQuery::new_with_offset(terms)))
        }
        _ => Some(Box::new(BooleanQuery::new(
            tokens
                .iter()
                .map(|t| (Occur::Must, any_field(f, &t.text)))
                .collect(),
        ))),
    }
}

fn build(f: &Fields, q: &Query) -> Result<Built> {
    let mut positive = Vec::new();
    let mut clauses: Vec<(Occur, Box<dyn TQuery>)> = Vec::new();
    let mut seen = HashSet::new();
    let text: Vec<(Occur, Box<dyn TQuery>)> = analyzer::tokens(&q.text.join(" "))
        .into_iter()
        .filter(|t| seen.insert(t.text.clone()))
        .map(|t| {
            positive.push(t.text.clone());
            (Occur::Should, any_field(f, &t.text))
        })
        .collect();
    let has_text = !text.is_empty();
    if has_text {
        let occur = if q.required.is_empty() {
            Occur::Must
        } else {
            Occur::Should
        };
        clauses.push((occur, Box::new(BooleanQuery::new(text))));
    }
    // A result is a section, and a long section is indexed as several
    // windows: a required word may sit in another window than the match,
    // and an excluded one anywhere in the section. So each window only has
    // to match one of them, and [`SectionRule`] judges the whole section.
    let mut sections = Vec::new();
    for c in &q.required {
        if let Some(query) = clause(f, c, &mut positive) {
            clauses.push((Occur::Should, query.box_clone()));
            sections.push((true, query));
        }
    }
    let required = sections.len();
    let mut ignored = Vec::new();
    for c in &q.excluded {
        if let Some(query) = clause(f, c, &mut ignored) {
            clauses.push((Occur::MustNot, query.box_clone()));
            sections.push((false, query));
        }
    }
    let scored = has_text || required > 0;
    if !scored {
        if q.filters.is_empty() && q.excluded.is_empty() {
            return Err(Error::Query(
                "nothing to search for (only stop words?); add a word, a \"phrase\" or a filter such as type:feedback".into(),
            ));
        }
        clauses.push((Occur::Must, Box::new(AllQuery)));
    }
    let filter = filters(f, &q.filters)?;
    if let Some(filter) = &filter {
        clauses.push((
            Occur::Must,
            Box::new(BoostQuery::new(filter.box_clone(), 0.0)),
        ));
    }
    Ok(Built {
        query: Box::new(BooleanQuery::new(clauses)),
        filter,
        scored,
        positive,
        sections,
    })
}

/// Which sections hold every required word and no excluded one, found
/// over all their windows.
struct SectionRule {
    /// For each required clause, the sections holding it.
    all_of: Vec<HashSet<u64>>,
    /// Sections holding an excluded clause.
    none_of: HashSet<u64>,
}

impl SectionRule {
    fn new(searcher: &Searcher, cols: &[Columns], built: &Built) -> Result<SectionRule> {
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

    fn passes(&self, sec: u64) -> bool {
        !self.none_of.contains(&sec) && self.all_of.iter().all(|s| s.contains(&sec))
    }
}

fn section_of(cols: &[Columns], a: DocAddress) -> u64 {
    cols[a.segment_ord as usize]
        .sec
        .first(a.doc_id)
        .unwrap_or(0)
}

/// The filters as one query matching what passes them all.
fn filters(f: &Fields, flt: &Filters) -> Result<Option<Box<dyn TQuery>>> {
    let mut must: Vec<(Occur, Box<dyn TQuery>)> = Vec::new();
    let any_of = |queries: Vec<Box<dyn TQuery>>| -> Box<dyn TQuery> {
        Box::new(BooleanQuery::new(
            queries.into_iter().map(|q| (Occur::Should, q)).collect(),
        ))
    };
    let exact = |field, s: &str| -> Box<dyn TQuery> {
        Box::new(TermQuery::new(
            Term::from_field_text(field, s),
            IndexRecordOption::Basic,
        ))
    };
    if !flt.levels.is_empty() {
        must.push((
            Occur::Must,
            any_of(
                flt.levels
                    .iter()
                    .map(|l| exact(f.level, l.as_str()))
                    .collect(),
            ),
        ));
    }
    if !flt.types.is_empty() {
        must.push((
            Occur::Must,
            any_of(
                flt.types
                    .iter()
                    .map(|t| exact(f.kind, t.as_str()))
                    .collect(),
            ),
        ));
    }
    if let Some(after) = flt.after {
        let from = Term::from_field_u64(f.date_hi, index::day_number(after));
        must.push((
            Occur::Must,
            Box::new(RangeQuery::new(Bound::Included(from), Bound::Unbounded)),
        ));
    }
    if let Some(before) = flt.before {
        let to = Term::from_field_u64(f.date_lo, index::day_number(before));
        must.push((
            Occur::Must,
            Box::new(RangeQuery::new(Bound::Unbounded, Bound::Included(to))),
        ));
    }
    if !flt.paths.is_empty() {
        let mut prefixes = Vec::new();
        for p in &flt.paths {
            let pattern = format!("{}.*", regex::escape(p));
            let q = RegexQuery::from_pattern(&pattern, f.path)
                .map_err(|e| Error::Query(format!("path:{p}: {e}")))?;
            prefixes.push(Box::new(q) as Box<dyn TQuery>);
        }
        must.push((Occur::Must, any_of(prefixes)));
    }
    Ok((!must.is_empty()).then(|| Box::new(BooleanQuery::new(must)) as Box<dyn TQuery>))
}

/// Results that are copies of one passage.
struct Group {
    fp: u64,
    score: Score,
    /// The best-scoring window.
    best: DocAddress,
}

/// Per-segment fast-field columns.
struct Columns {
    fp: Column<u64>,
    sec: Column<u64>,
    win: Column<u64>,
    rank: Column<u64>,
    date_hi: Column<u64>,
}

fn columns(searcher: &Searcher) -> Result<Vec<Columns>> {
    let err = Error::index("reading fast fields");
    searcher
        .segment_readers()
        .iter()
        .map(|r| {
            let ff = r.fast_fields();
            Ok(Columns {
                fp: ff.u64("fp").map_err(err)?,
                sec: ff.u64("sec").map_err(err)?,
                win: ff.u64("win").map_err(err)?,
                rank: ff.u64("level_rank").map_err(err)?,
                date_hi: ff.u64("date_hi").map_err(err)?,
            })
        })
        .collect()
}

/// The best `limit` groups, best first. Copies of a passage score alike,
/// so the candidate pool grows until it holds `limit` distinct passages.
fn collect(
    searcher: &Searcher,
    cols: &[Columns],
    built: &Built,
    rule: &SectionRule,
    limit: usize,
) -> Result<Vec<Group>> {
    let fp_of = |a: DocAddress| cols[a.segment_ord as usize].fp.first(a.doc_id).unwrap_or(0);
    let err = Error::index("searching");
    // Never ask tantivy for more hits than there are documents: it
    // allocates the whole pool up front (`-n 1000000000`).
    let docs = usize::try_from(searcher.num_docs())
        .unwrap_or(usize::MAX)
        .max(1);
    let mut pool = limit.saturating_mul(6).saturating_add(30).min(docs);
    loop {
        let top: Vec<(Score, DocAddress)> = if built.scored {
            searcher
                .search(&built.query, &TopDocs::with_limit(pool).order_by_score())
                .map_err(err)?
        } else {
            searcher
                .search(
                    &built.query,
                    &TopDocs::with_limit(pool).order_by_fast_field::<u64>("date_hi", Order::Desc),
                )
                .map_err(err)?
                .into_iter()
                .map(|(_, a)| (0.0, a))
                .collect()
        };
        let mut groups: Vec<Group> = Vec::new();
        let mut seen: HashSet<u64> = HashSet::new();
        for &(score, addr) in &top {
            if !rule.passes(section_of(cols, addr)) {
                continue;
            }
            let fp = fp_of(addr);
            if seen.insert(fp) {
                groups.push(Group {
                    fp,
                    score,
                    best: addr,
                });
            }
        }
        if groups.len() >= limit || top.len() < pool || pool == docs {
            groups.truncate(limit);
            return Ok(groups);
        }
        pool = pool.saturating_mul(4).min(docs);
    }
}

/// Finds and marks query terms in passages.
struct Marker {
    /// Picks the best group of matches (weights favour rare terms).
    generator: SnippetGenerator,
    /// Emits only the query's terms, with offsets.
    terms: tantivy::tokenizer::TextAnalyzer,
}

impl Marker {
    fn new(searcher: &Searcher, f: &Fields, terms: &[String]) -> Marker {
        let mut weights = BTreeMap::new();
        for t in terms {
            let df = searcher
                .doc_freq(&Term::from_field_text(f.body, t))
                .unwrap_or(0);
            weights.insert(t.clone(), 1.0 / (1.0 + df as Score));
        }
        let analyzer = analyzer::snippet_analyzer(terms);
        Marker {
            generator: SnippetGenerator::new(weights, analyzer.clone(), f.body, SNIPPET_BYTES),
            terms: analyzer,
        }
    }

    /// Byte ranges of every query term in `text[range]`, merged.
    fn marks(&self, text: &str, range: Range<usize>) -> Vec<Range<usize>> {
        let mut analyzer = self.terms.clone();
        let mut stream = analyzer.token_stream(&text[range.clone()]);
        let mut marks = Vec::new();
        while let Some(t) = stream.next() {
            marks.push(t.offset_from + range.start..t.offset_to + range.start);
        }
        tantivy::snippet::collapse_overlapped_ranges(&marks)
    }
}

/// A window's stored fields.
struct Stored {
    path: String,
    level: DocLevel,
    kind: EntryType,
    status: Option<String>,
    period: Option<String>,
    heading: String,
    key: String,
    dates: Option<(u64, u64)>,
    sec: [usize; 2],
    win: [usize; 2],
    /// Byte ranges of the section and of the window.
    bytes: [usize; 2],
    wbytes: [usize; 2],
    secret: bool,
}

fn stored(searcher: &Searcher, f: &Fields, addr: DocAddress) -> Result<Stored> {
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
        status: s(f.status),
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
fn copies(
    searcher: &Searcher,
    f: &Fields,
    cols: &[Columns],
    fp: u64,
    filter: Option<&dyn TQuery>,
) -> Result<Vec<(DocAddress, [u64; 4])>> {
    let term: Box<dyn TQuery> = Box::new(TermQuery::new(
        Term::from_field_u64(f.fp, fp),
        IndexRecordOption::Basic,
    ));
    let query: Box<dyn TQuery> = match filter {
        Some(filter) => Box::new(BooleanQuery::new(vec![
            (Occur::Must, term),
            (Occur::Must, filter.box_clone()),
        ])),
        None => term,
    };
    let docs = searcher
        .search(&query, &DocSetCollector)
        .map_err(Error::index("finding copies"))?;
    let mut out: Vec<(DocAddress, [u64; 4])> = docs
        .into_iter()
        .map(|a| {
            let c = &cols[a.segment_ord as usize];
            let get = |col: &Column<u64>| col.first(a.doc_id).unwrap_or(0);
            let sort = [
                get(&c.rank),
                u64::MAX - get(&c.date_hi),
                get(&c.sec),
                get(&c.win),
            ];
            (a, sort)
        })
        .collect();
    out.sort_by_key(|(a, sort)| (*sort, *a));
    Ok(out)
}

#[allow(clippy::too_many_arguments)]
fn hit(
    searcher: &Searcher,
    f: &Fields,
    cols: &[Columns],
    filter: Option<&dyn TQuery>,
    g: &Group,
    snippets: &Marker,
    passages: &Passages,
    opts: &Options,
) -> Result<Hit> {
    let best_win = cols[g.best.segment_ord as usize]
        .win
        .first(g.best.doc_id)
        .unwrap_or(0);
    let all = copies(searcher, f, cols, g.fp, None)?;
    // The most specific section that passes the filters, at the same
    // window as the best match.
    let shown = match filter {
        Some(_) => copies(searcher, f, cols, g.fp, filter)?,
        None => all.clone(),
    };
    let rep_sec = shown.first().map(|(_, s)| s[2]);
    let rep = shown
        .iter()
        .find(|(_, s)| Some(s[2]) == rep_sec && s[3] == best_win)
        .or(shown.first())
        .map_or(g.best, |(a, _)| *a);
    let doc = stored(searcher, f, rep)?;
    // The copies, most specific first; a passage common to many nodes
    // (boilerplate) lists ALSO_IN_MAX of them and counts the rest.
    let mut also_in = Vec::new();
    let mut also_in_more = 0;
    let mut seen = HashSet::from([rep_sec]);
    for (addr, s) in &all {
        if !seen.insert(Some(s[2])) {
            continue;
        }
        if also_in.len() == ALSO_IN_MAX {
            also_in_more += 1;
            continue;
        }
        let other = stored(searcher, f, *addr)?;
        also_in.push(Place {
            path: other.path,
            lines: other.sec,
            level: other.level,
        });
    }
    let window = if opts.snippets {
        passages.window(&doc).unwrap_or_default()
    } else {
        String::new()
    };
    let text = if opts.full {
        passages.section(&doc)
    } else {
        None
    };
    let snip = snippet(snippets, &window);
    let line = doc.win[0] + window[..snip.at.min(window.len())].matches('\n').count();
    Ok(Hit {
        id: format!("#{}", &doc.key[..doc.key.len().min(12)]),
        line,
        lines: doc.sec,
        heading: doc.heading,
        level: doc.level,
        date: doc.dates.and_then(|(lo, hi)| {
            let (lo, hi) = (index::day_of(lo)?, index::day_of(hi)?);
            Some(if lo == hi {
                lo.to_string()
            } else {
                format!("{lo}..{hi}")
            })
        }),
        period: doc.period,
        kind: doc.kind,
        status: doc.status,
        score: g.score,
        snippet: snip.marked,
        snippet_text: snip.text,
        highlights: snip.highlights,
        also_in,
        also_in_more,
        text,
        path: doc.path,
    })
}

/// A snippet as shown.
struct Snip {
    /// Plain text, one line.
    text: String,
    /// With `**…**` around matches.
    marked: String,
    highlights: Vec<[usize; 2]>,
    /// Byte offset in the window of the first match (or of the snippet).
    at: usize,
}

/// How far back from the first match a snippet starts, at most.
const LEAD_BYTES: usize = 60;

/// Cuts the snippet from a window: the best group of matches (chosen by
/// tantivy's snippet generator, fed only the matching tokens), widened to
/// [`SNIPPET_BYTES`] of context on word boundaries. Without a match in the
/// body (a heading match, a filter-only query) it is the window's start.
fn snippet(marker: &Marker, window: &str) -> Snip {
    let s = marker.generator.snippet(window);
    let fragment = s.fragment_range();
    let marks: Vec<Range<usize>> = s
        .highlighted()
        .iter()
        .map(|m| m.start + fragment.start..m.end + fragment.start)
        .collect();
    // The heading opening a window is shown as the hit's heading already.
    let floor = match window.find('\n') {
        Some(nl) if window.starts_with('#') && marks.first().is_none_or(|m| m.start > nl) => nl + 1,
        _ => 0,
    };
    let (first, last) = match (marks.first(), marks.last()) {
        (Some(a), Some(b)) => (a.start, b.end),
        _ => (floor, floor),
    };
    // A little context before the first match, from a word start...
    let mut start = floor_char(window, first.saturating_sub(LEAD_BYTES)).max(floor);
    if start > floor && start < first {
        start = window[start..first]
            .find(char::is_whitespace)
            .map_or(first, |i| start + i + 1);
    }
    // ...and the rest of the budget after it, to a word end.
    let mut end = floor_char(window, (start + SNIPPET_BYTES).max(last));
    if end < window.len()
        && let Some(i) = window[last..end].rfind(char::is_whitespace)
    {
        end = last + i;
    }
    let at = marks.first().map_or(start, |m| m.start);
    let marks = if marks.is_empty() {
        marks
    } else {
        marker.marks(window, start..end)
    };
    render(window, start..end, &marks, at)
}

/// The largest char boundary at or below `i`.
fn floor_char(s: &str, i: usize) -> usize {
    let mut i = i.min(s.len());
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// Puts a fragment on one line (whitespace runs become one space), with
/// `**` around the marks and `…` where text was cut.
fn render(window: &str, range: Range<usize>, marks: &[Range<usize>], at: usize) -> Snip {
    let mut text = String::with_capacity(range.len() + 8);
    let mut marked = String::with_capacity(range.len() + 16);
    let mut highlights = Vec::new();
    let mut marks = marks.iter().peekable();
    let mut open: Option<usize> = None;
    if range.start > 0 && !window[..range.start].ends_with('\n') {
        text.push('…');
        marked.push('…');
    }
    let bytes = window.as_bytes();
    for (i, c) in window[range.clone()].char_indices() {
        let i = i + range.start;
        // Markdown emphasis (`**bold**`) would read as our own marks.
        let starred = |j: usize| bytes.get(j) == Some(&b'*');
        let emphasis = c == '*' && (starred(i + 1) || (i > 0 && starred(i - 1)));
        if let Some(start) = open
            && marks.peek().is_some_and(|m| m.end <= i)
        {
            highlights.push([start, text.len()]);
            marked.push_str("**");
            marks.next();
            open = None;
        }
        if open.is_none() && marks.peek().is_some_and(|m| m.start == i) {
            open = Some(text.len());
            marked.push_str("**");
        }
        if emphasis {
            continue;
        }
        if c.is_whitespace() {
            if !text.is_empty() && !text.ends_with(' ') {
                text.push(' ');
                marked.push(' ');
            }
        } else {
            text.push(c);
            marked.push(c);
        }
    }
    if let Some(start) = open {
        highlights.push([start, text.len()]);
        marked.push_str("**");
    }
    if text.ends_with(' ') {
        text.pop();
        marked = marked.trim_end().to_string();
    }
    if !window[range.end..].trim().is_empty() {
        text.push('…');
        marked.push('…');
    }
    Snip {
        text,
        marked,
        highlights,
        at,
    }
}

/// Reads results' passages from the Markdown: only the bytes needed.
struct Passages<'a> {
    root: &'a Path,
    /// The index was just synced: a section it records as secret-free is
    /// shown as read.
    trust_index: bool,
}

impl Passages<'_> {
    /// The redacted text of a result's window.
    fn window(&self, doc: &Stored) -> Option<String> {
        if doc.secret || !self.trust_index {
            // Redacted whole, as it was indexed: a secret spanning two
            // windows is only caught in the whole section.
            let section = self.read(doc, doc.bytes, doc.sec)?;
            let lines: Vec<&str> = section.split_inclusive('\n').collect();
            let at = |n: usize| n.checked_sub(doc.sec[0]);
            return lines
                .get(at(doc.win[0])?..=at(doc.win[1])?)
                .map(|l| l.concat());
        }
        self.read(doc, doc.wbytes, doc.win)
    }

    /// The redacted text of a result's whole section.
    fn section(&self, doc: &Stored) -> Option<String> {
        self.read(doc, doc.bytes, doc.sec)
    }

    /// The text of `bytes` of a result's file, spanning `lines`, redacted
    /// unless the index vouches for it, if the file still holds it where
    /// the index says (it always does after a sync; a search that ran
    /// while another hipo held the lock may find it moved).
    fn read(&self, doc: &Stored, bytes: [usize; 2], lines: [usize; 2]) -> Option<String> {
        use std::io::{Read, Seek, SeekFrom};
        let [lo, hi] = bytes;
        let mut file = std::fs::File::open(self.root.join(&doc.path)).ok()?;
        file.seek(SeekFrom::Start(lo as u64)).ok()?;
        let mut buf = vec![0; hi.checked_sub(lo)?];
        file.read_exact(&mut buf).ok()?;
        let raw = String::from_utf8(buf).ok()?;
        let expected = lines[1].checked_sub(lines[0])? + 1;
        if raw.split_inclusive('\n').count() != expected {
            return None;
        }
        if doc.secret || !self.trust_index {
            let redacted = redact(&raw);
            return Some(index::section_lines(&redacted, &raw, expected).concat());
        }
        Some(raw)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn generator() -> Marker {
        let dir = tempfile::tempdir().unwrap();
        let mut builder = tantivy::schema::Schema::builder();
        builder.add_text_field("body", tantivy::schema::TEXT);
        let index = tantivy::Index::create_in_dir(dir.path(), builder.build()).unwrap();
        let body = index.schema().get_field("body").unwrap();
        let terms: Vec<String> = ["pancak", "회의", "의에"].map(String::from).to_vec();
        let w: BTreeMap<String, Score> = terms.iter().map(|t| (t.clone(), 1.0)).collect();
        let analyzer = analyzer::snippet_analyzer(&terms);
        Marker {
            generator: SnippetGenerator::new(w, analyzer.clone(), body, SNIPPET_BYTES),
            terms: analyzer,
        }
    }

    #[test]
    fn snippet_marks_matches_on_one_line() {
        let s = snippet(
            &generator(),
            "## Breakfast\nI froze\n the Pancakes on Saturday.\n",
        );
        assert_eq!(s.text, "I froze the Pancakes on Saturday.");
        assert_eq!(s.marked, "I froze the **Pancakes** on Saturday.");
        let [a, b] = s.highlights[0];
        assert_eq!(&s.text[a..b], "Pancakes");
    }

    #[test]
    fn overlapping_cjk_bigrams_are_one_mark() {
        let s = snippet(&generator(), "내일 회의에서 보자");
        assert_eq!(s.marked, "내일 **회의에**서 보자");
    }

    #[test]
    fn markdown_emphasis_does_not_collide_with_marks() {
        let s = snippet(&generator(), "3. **Pancakes**: frozen\n");
        assert_eq!(s.marked, "3. **Pancakes**: frozen");
        assert_eq!(s.text, "3. Pancakes: frozen");
    }

    #[test]
    fn every_match_in_the_widened_snippet_is_marked() {
        let text = format!(
            "{} pancakes here, and pancakes again after.",
            "filler ".repeat(80)
        );
        let s = snippet(&generator(), &text);
        assert_eq!(s.highlights.len(), 2, "{}", s.marked);
        assert!(s.marked.starts_with('…'));
        assert!(
            s.marked
                .contains("**pancakes** here, and **pancakes** again after.")
        );
    }

    #[test]
    fn no_match_shows_the_first_lines() {
        let s = snippet(&generator(), "## Heading\nfirst line\nsecond\n");
        assert_eq!(s.text, "first line second");
        assert!(s.highlights.is_empty());
    }
}
