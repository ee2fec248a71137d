//! From a parsed [`Query`] to tantivy queries. Sections are ranked by
//! their ranking documents: BM25 over the whole section's text, its
//! heading and the lines its user wrote (the user's own words are the best
//! evidence in an agent's memory, so they weigh most). The passage shown is
//! the section's best window under the same terms; [`super::rank`] adds
//! the two kinds of evidence. Required and excluded clauses are judged per
//! section by [`super::collect::SectionRule`].

use crate::error::{Error, Result};
use crate::index::schema::UNIT_SECTION;
use crate::index::{Fields, analyzer, day_number};
use crate::search::query::{Clause, Filters, Query};
use crate::search::terms;
use std::collections::HashSet;
use std::ops::Bound;
use tantivy::query::{
    AllQuery, BooleanQuery, BoostQuery, Occur, PhraseQuery, Query as TQuery, RangeQuery,
    RegexQuery, TermQuery,
};
use tantivy::schema::IndexRecordOption;
use tantivy::{Searcher, Term};

/// How much a match in the lines the user wrote counts over one in the body.
pub const USER_BOOST: tantivy::Score = 2.0;
/// How much a match in the heading counts over one in the body. 2.5
/// answered five more prompts of fifteen young sets of typed entries and
/// let one more unrelated prompt through, winning no set's both halves
/// (docs/retrieval-log.md, "Two sets written blind"): 1.5 stays.
pub const HEADING_BOOST: tantivy::Score = 1.5;

/// A query ready for tantivy, and the body terms snippets should mark.
pub(super) struct Built {
    pub fields: Fields,
    /// Ranks (or, unscored, selects) sections' ranking documents.
    pub query: Box<dyn TQuery>,
    /// The filters alone: a result is shown at a copy that passes them.
    pub filter: Option<Box<dyn TQuery>>,
    /// Ranked by BM25 (false: only filters, newest first).
    pub scored: bool,
    pub positive: Vec<String>,
    /// Required (`true`) and excluded clauses, judged per section.
    pub sections: Vec<(bool, Box<dyn TQuery>)>,
    /// Scores a section's windows to pick the passage shown.
    pub passage: Option<Box<dyn TQuery>>,
    /// The terms that rank, with their IDF.
    pub ranked: Vec<(String, tantivy::Score)>,
    /// Ranks the windows that pass the filters (scored queries only).
    pub windows: Option<Box<dyn TQuery>>,
    /// Scores sections' opening turns (scored queries only).
    pub opening: Option<Box<dyn TQuery>>,
}

fn term_query(field: tantivy::schema::Field, text: &str) -> Box<dyn TQuery> {
    Box::new(TermQuery::new(
        Term::from_field_text(field, text),
        IndexRecordOption::WithFreqs,
    ))
}

fn boosted(q: Box<dyn TQuery>, boost: tantivy::Score) -> Box<dyn TQuery> {
    Box::new(BoostQuery::new(q, boost))
}

fn any_of(queries: Vec<Box<dyn TQuery>>) -> Box<dyn TQuery> {
    Box::new(BooleanQuery::new(
        queries.into_iter().map(|q| (Occur::Should, q)).collect(),
    ))
}

/// A token in a window's body, its heading or its user's lines, boosted.
fn any_field(f: &Fields, token: &str) -> Box<dyn TQuery> {
    any_of(vec![
        term_query(f.body, token),
        boosted(term_query(f.user, token), USER_BOOST),
        boosted(term_query(f.heading, token), HEADING_BOOST),
    ])
}

/// A token in a whole section, its heading or its user's lines, boosted.
fn section_field(f: &Fields, token: &str) -> Box<dyn TQuery> {
    any_of(vec![
        term_query(f.sbody, token),
        boosted(term_query(f.suser, token), USER_BOOST),
        boosted(term_query(f.heading, token), HEADING_BOOST),
    ])
}

/// A token in a window's body or its user's lines: which passage of a
/// section says it most.
fn passage_field(f: &Fields, token: &str) -> Box<dyn TQuery> {
    any_of(vec![
        term_query(f.body, token),
        boosted(term_query(f.user, token), USER_BOOST),
    ])
}

/// A required or excluded word or phrase, over windows; `None` if it is
/// all stop words.
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

/// The query, its filters and its section clauses; an error when there
/// is nothing to search for.
pub(super) fn build(searcher: &Searcher, f: &Fields, q: &Query) -> Result<Built> {
    let (sections, required) = section_clauses(f, q);
    let positive = positive_terms(&q.text, required);
    let scored = !positive.is_empty();
    let ranked = terms::with_idf(searcher, f, &positive);
    let mut clauses: Vec<(Occur, Box<dyn TQuery>)> = vec![(
        Occur::Must,
        boosted(
            Box::new(TermQuery::new(
                Term::from_field_text(f.unit, UNIT_SECTION),
                IndexRecordOption::Basic,
            )),
            0.0,
        ),
    )];
    let opening =
        scored.then(|| any_of(ranked.iter().map(|(t, _)| term_query(f.sopen, t)).collect()));
    let passage = if scored {
        let weighted = |field: fn(&Fields, &str) -> Box<dyn TQuery>| {
            any_of(ranked.iter().map(|(t, _)| field(f, t)).collect())
        };
        clauses.push((Occur::Must, weighted(section_field)));
        Some(weighted(passage_field))
    } else {
        if q.filters.is_empty() && q.excluded.is_empty() {
            return Err(Error::Query(
                "nothing to search for (only stop words?); add a word, a \"phrase\" or a filter such as type:feedback".into(),
            ));
        }
        clauses.push((Occur::Must, Box::new(AllQuery)));
        None
    };
    let filter = filters(f, &q.filters)?;
    if let Some(filter) = &filter {
        clauses.push((Occur::Must, boosted(filter.box_clone(), 0.0)));
    }
    let windows = passage
        .as_ref()
        .map(|p| windows_query(p.as_ref(), filter.as_deref()));
    Ok(Built {
        fields: *f,
        query: Box::new(BooleanQuery::new(clauses)),
        filter,
        scored,
        positive,
        sections,
        passage,
        windows,
        ranked,
        opening,
    })
}

/// Required (`true`) and excluded clauses, as [`Built::sections`] holds them.
type SectionClauses = Vec<(bool, Box<dyn TQuery>)>;

/// A result is a section, and a long section is indexed as several
/// windows: a required word may sit in another window than the match, and
/// an excluded one anywhere in the section. So the section rule judges the
/// required (`true`) and excluded clauses over all its windows; returned
/// with the required clauses' tokens, which score as words.
fn section_clauses(f: &Fields, q: &Query) -> (SectionClauses, Vec<String>) {
    let mut sections = Vec::new();
    let mut required = Vec::new();
    for c in &q.required {
        if let Some(query) = clause(f, c, &mut required) {
            sections.push((true, query));
        }
    }
    let mut ignored = Vec::new();
    for c in &q.excluded {
        if let Some(query) = clause(f, c, &mut ignored) {
            sections.push((false, query));
        }
    }
    (sections, required)
}

/// The terms that rank, in order without repeats: the query's words, then
/// the required clauses' tokens.
fn positive_terms(text: &[String], required: Vec<String>) -> Vec<String> {
    let mut positive = Vec::new();
    let mut seen = HashSet::new();
    for t in analyzer::tokens(&text.join(" ")) {
        if seen.insert(t.text.clone()) {
            positive.push(t.text);
        }
    }
    for t in required {
        if seen.insert(t.clone()) {
            positive.push(t);
        }
    }
    positive
}

/// The windows that rank: those matching the passage query and passing
/// the filters (which do not score).
fn windows_query(passage: &dyn TQuery, filter: Option<&dyn TQuery>) -> Box<dyn TQuery> {
    let mut must = vec![(Occur::Must, passage.box_clone())];
    if let Some(filter) = filter {
        must.push((Occur::Must, boosted(filter.box_clone(), 0.0)));
    }
    Box::new(BooleanQuery::new(must))
}

/// The filters as one query matching what passes them all.
fn filters(f: &Fields, flt: &Filters) -> Result<Option<Box<dyn TQuery>>> {
    let mut must: Vec<(Occur, Box<dyn TQuery>)> = Vec::new();
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
        let from = Term::from_field_u64(f.date_hi, day_number(after));
        must.push((
            Occur::Must,
            Box::new(RangeQuery::new(Bound::Included(from), Bound::Unbounded)),
        ));
    }
    if let Some(before) = flt.before {
        let to = Term::from_field_u64(f.date_lo, day_number(before));
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
