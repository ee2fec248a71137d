//! From a parsed [`Query`] to tantivy queries: BM25 over each window's
//! text, heading and user lines (the user's own words are the best
//! evidence in an agent's memory, so they weigh most), required and
//! excluded clauses, and the filters.

use crate::error::{Error, Result};
use crate::index::{Fields, analyzer, day_number};
use crate::search::query::{Clause, Filters, Query};
use std::collections::HashSet;
use std::ops::Bound;
use tantivy::Term;
use tantivy::query::{
    AllQuery, BooleanQuery, BoostQuery, Occur, PhraseQuery, Query as TQuery, RangeQuery,
    RegexQuery, TermQuery,
};
use tantivy::schema::IndexRecordOption;

/// How much a match in the lines the user wrote counts over one in the body.
pub const USER_BOOST: tantivy::Score = 2.0;
/// How much a match in the heading counts over one in the body.
pub const HEADING_BOOST: tantivy::Score = 1.5;

/// A query ready for tantivy, and the body terms snippets should mark.
pub(super) struct Built {
    pub query: Box<dyn TQuery>,
    /// The filters alone: a result is shown at a copy that passes them.
    pub filter: Option<Box<dyn TQuery>>,
    /// Ranked by BM25 (false: only filters, newest first).
    pub scored: bool,
    pub positive: Vec<String>,
    /// Required (`true`) and excluded clauses, judged per section.
    pub sections: Vec<(bool, Box<dyn TQuery>)>,
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

/// The query, its filters and its section clauses; an error when there
/// is nothing to search for.
pub(super) fn build(f: &Fields, q: &Query) -> Result<Built> {
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
    // to match one of them, and [`super::collect::SectionRule`] judges the whole section.
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
