//! Where the vector ranking meets the index: which sections still need a
//! vector (with the text to embed), and the fusion of a search's lexical
//! groups with the sections nearest the question's vector.

use super::build::Built;
use super::collect::{self, Group, SectionRule, copies, stored};
use super::columns::{self, Columns, section_of};
use super::passages::Passages;
use crate::embed::fusion::{RRF_K, VECTOR_WEIGHT, rrf};
use crate::error::{Error, Result};
use crate::index::schema::UNIT_SECTION;
use crate::index::{Fields, SearchIndex};
use std::collections::{HashMap, HashSet};
use std::path::Path;
use tantivy::collector::DocSetCollector;
use tantivy::query::TermQuery;
use tantivy::schema::IndexRecordOption;
use tantivy::{Searcher, Term};

/// How a search ranks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    /// BM25 alone.
    #[default]
    Lexical,
    /// BM25 and the vectors, fused by reciprocal rank.
    Hybrid,
    /// The vectors alone (cosine).
    Vector,
}

impl std::str::FromStr for Mode {
    type Err = String;
    fn from_str(s: &str) -> std::result::Result<Mode, String> {
        match s.trim().to_ascii_lowercase().as_str() {
            "lexical" => Ok(Mode::Lexical),
            "hybrid" => Ok(Mode::Hybrid),
            "vector" => Ok(Mode::Vector),
            other => Err(format!(
                "`{other}` is not a search mode: use lexical, hybrid or vector"
            )),
        }
    }
}

impl Mode {
    pub fn as_str(self) -> &'static str {
        match self {
            Mode::Lexical => "lexical",
            Mode::Hybrid => "hybrid",
            Mode::Vector => "vector",
        }
    }
}

/// The sections nearest the question, for one search.
#[derive(Debug, Clone)]
pub(crate) struct Nearest {
    pub mode: Mode,
    /// Section fingerprints and cosines, best first.
    pub sections: Vec<(u64, f32)>,
}

/// Lexical candidates fused with the vector ones: deep enough that a
/// section ranked 30th by BM25 but first by meaning still meets its
/// lexical rank, shallow enough to cost little.
pub const POOL: usize = 50;

/// A section to embed: its fingerprint and redacted text.
pub struct ToEmbed {
    pub fp: u64,
    pub text: String,
}

/// One section per fingerprint the index holds and `has` does not, with
/// its text read (redacted) from the Markdown, in path and line order;
/// and every section fingerprint the index holds (what vectors to keep).
pub fn missing(
    index: &SearchIndex,
    root: &Path,
    has: &dyn Fn(u64) -> bool,
) -> Result<(Vec<ToEmbed>, HashSet<u64>)> {
    let searcher = index.searcher();
    let f = index.fields;
    let cols = columns::columns(&searcher)?;
    let q = TermQuery::new(
        Term::from_field_text(f.unit, UNIT_SECTION),
        IndexRecordOption::Basic,
    );
    let docs = searcher
        .search(&q, &DocSetCollector)
        .map_err(Error::index("listing sections"))?;
    let mut seen = HashSet::new();
    let mut wanted = Vec::new();
    for a in docs {
        let fp = cols[a.segment_ord as usize].fp_of(a.doc_id);
        if !has(fp) && !seen.contains(&fp) {
            let doc = stored(&searcher, &f, a)?;
            wanted.push((doc.path.clone(), doc.sec[0], fp, doc));
        }
        seen.insert(fp);
    }
    wanted.sort_by(|a, b| (&a.0, a.1).cmp(&(&b.0, b.1)));
    let passages = Passages {
        root,
        trust_index: false,
    };
    let todo = wanted
        .into_iter()
        .filter_map(|(_, _, fp, doc)| {
            Some(ToEmbed {
                fp,
                text: passages.section(&doc)?,
            })
        })
        .collect();
    Ok((todo, seen))
}

/// The groups of a scored search ranked by `near`: fused with the lexical
/// ranking (hybrid) or alone (vector), each passing the query's filters
/// and its `+`/`-` rule. Returns the groups and, per fingerprint, the
/// BM25 and cosine each came with.
pub(super) fn rank(
    searcher: &Searcher,
    f: &Fields,
    cols: &[Columns],
    built: &Built,
    rule: &SectionRule,
    limit: usize,
    near: &Nearest,
) -> Result<(Vec<Group>, Evidence)> {
    let lexical = match near.mode {
        Mode::Vector => Vec::new(),
        _ => collect::collect(searcher, f, cols, built, rule, limit.max(POOL))?,
    };
    let mut evidence: Evidence = HashMap::new();
    let mut by_fp: HashMap<u64, Group> = HashMap::new();
    // collect's order: score, then place.
    let mut lex_order = Vec::with_capacity(lexical.len());
    for g in lexical {
        evidence.entry(g.fp).or_default().0 = Some(g.evidence);
        lex_order.push(g.fp);
        by_fp.insert(g.fp, g);
    }
    let vec_order: Vec<u64> = near.sections.iter().map(|(fp, _)| *fp).collect();
    for &(fp, cos) in &near.sections {
        evidence.entry(fp).or_default().1 = Some(cos);
    }
    let fused = match near.mode {
        Mode::Vector => near.sections.clone(),
        _ => rrf(&[(&lex_order, 1.0), (&vec_order, VECTOR_WEIGHT)], RRF_K),
    };
    // Only the candidates that reach the cut are placed in the index
    // (a query per section): a vector candidate the filters or the
    // `+`/`-` rule refuse is skipped and the next one taken.
    let mut groups = Vec::with_capacity(limit);
    for (fp, score) in fused {
        if groups.len() == limit {
            break;
        }
        let group = match by_fp.remove(&fp) {
            Some(g) => Some(g),
            None => place(searcher, f, cols, built, rule, fp)?,
        };
        if let Some(mut g) = group {
            g.score = score;
            groups.push(g);
        }
    }
    Ok((groups, evidence))
}

/// A section found by its vector, at its most specific copy that passes
/// the filters and the `+`/`-` rule (`None` when none does).
fn place(
    searcher: &Searcher,
    f: &Fields,
    cols: &[Columns],
    built: &Built,
    rule: &SectionRule,
    fp: u64,
) -> Result<Option<Group>> {
    let shown = copies(searcher, f, cols, fp, built.filter.as_deref())?;
    Ok(shown
        .iter()
        .find(|(a, _)| rule.passes(section_of(cols, *a)))
        .map(|&(best, _)| Group {
            fp,
            score: 0.0,
            evidence: 0.0,
            coverage: 0.0,
            best,
            window: false,
        }))
}

/// Per section fingerprint: its BM25 (when the lexical ranking had it)
/// and its cosine (when the vector ranking did).
pub(super) type Evidence = HashMap<u64, (Option<f32>, Option<f32>)>;
