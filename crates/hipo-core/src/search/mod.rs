//! `hipo search`: a [`query::Query`] run against the [`crate::index`].
//!
//! Ranking is BM25 over each window's text, plus its heading and the lines
//! its user wrote, each boosted (the user's own words are the best evidence
//! in an agent's memory). Results are collapsed: a passage copied verbatim
//! into the daily, weekly and monthly nodes is one result, shown at its
//! most specific place (the raw log and line) with the copies listed as
//! `also_in`; a section's windows are one result too. Snippets are cut from
//! the Markdown on disk, redacted, with the matched terms marked.

mod build;
mod collect;
mod columns;
mod coverage;
pub mod get;
mod passages;
pub mod query;
mod rank;
mod snippet;
mod terms;
pub(crate) mod vectors;

use crate::error::Result;
use crate::index::{DocLevel, Fields, SearchIndex, day_of};
use crate::markdown::{EntryType, Status};
use collect::{Group, SectionRule, Stored, best_window, copies, stored};
use columns::{Columns, columns};
use passages::Passages;
use query::Query;
use serde::Serialize;
use snippet::{Marker, snippet};
use std::collections::HashSet;
use std::path::Path;
use tantivy::query::Query as TQuery;
use tantivy::{DocAddress, Searcher};

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
    /// Include the whole section of a result whose section spans fewer
    /// lines than this (0: none but with `full`): recall shows a short
    /// entry whole when its budget has room, read by the byte range the
    /// index holds rather than from the file's start.
    pub whole_under: usize,
    /// Cut snippets (not needed to list paths or to score an eval).
    pub snippets: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            limit: 10,
            min_score: None,
            full: false,
            whole_under: 0,
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
    pub status: Option<Status>,
    pub score: f32,
    /// The (lexical) score over what a section scores by chance in a
    /// memory this size (`terms::chance_level`): comparable between a
    /// young memory and a large one, where the score is not (a fixed score
    /// floor fits one memory size only). With vectors, from `bm25`: a
    /// fused score is a rank, not evidence.
    pub relevance: f32,
    /// The share (0 to 1) of the question's weight, its terms' IDF, that
    /// the hit's best window holds (its whole section when no window
    /// ranked; 1 for a query without scored terms; 0 for a section found
    /// by its vector alone).
    pub coverage: f32,
    /// The snippet with matches in `**…**`.
    pub snippet: String,
    /// The snippet without markers...
    pub snippet_text: String,
    /// ...and the byte ranges of the matches in it.
    pub highlights: Vec<[usize; 2]>,
    /// Verbatim copies of this section elsewhere in the tree, most specific
    /// first, at most `ALSO_IN_MAX` (10).
    pub also_in: Vec<Place>,
    /// Copies beyond those listed.
    #[serde(skip_serializing_if = "is_zero")]
    pub also_in_more: usize,
    /// The whole section (with `--full`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// With vectors: the section's BM25, when the lexical ranking had it
    /// (`score` is then the fused score).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bm25: Option<f32>,
    /// With vectors: the section's cosine to the question, when among the
    /// nearest.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cosine: Option<f32>,
}

/// A plain hit for unit tests: a raw project entry at `lines`, scored 1.
#[cfg(test)]
impl Hit {
    pub(crate) fn sample(path: &str, lines: [usize; 2], heading: &str) -> Hit {
        Hit {
            id: "#0".into(),
            path: path.into(),
            line: lines[0],
            lines,
            heading: heading.into(),
            level: crate::index::DocLevel::Raw,
            date: None,
            period: None,
            kind: crate::markdown::EntryType::Project,
            status: None,
            score: 1.0,
            relevance: 1.0,
            coverage: 1.0,
            snippet: String::new(),
            snippet_text: String::new(),
            highlights: Vec::new(),
            also_in: Vec::new(),
            also_in_more: 0,
            text: None,
            bm25: None,
            cosine: None,
        }
    }
}

impl Hit {
    /// The lexical evidence for this hit: its BM25 (0 for a section found
    /// by its vector alone). A score floor is a BM25 figure, so it is
    /// compared with this, whatever the mode.
    pub fn lexical_score(&self) -> f32 {
        match (self.bm25, self.cosine) {
            (None, None) => self.score,
            (b, _) => b.unwrap_or(0.0),
        }
    }
}

/// Where a copy of a result sits.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct Place {
    pub path: String,
    /// First and last line of the section there.
    pub lines: [usize; 2],
    pub level: DocLevel,
}

/// Runs `query` (parsed) against `index`, reading snippets from `root`,
/// every shown section redacted again.
#[cfg(test)]
pub(crate) fn search(
    index: &SearchIndex,
    root: &Path,
    q: &Query,
    opts: &Options,
) -> Result<Vec<Hit>> {
    search_with(index, root, q, opts, None, false)
}

/// [`search`] ranked by the sections `nearest` the question's vector when
/// given (alone or fused with BM25, as its mode says), showing a section
/// the index records as secret-free without redacting it again when
/// `trust_index`: only the facade says so, and only for an index synced
/// with the files just now. Neither is a field of [`Options`], so no
/// caller outside the engine can get around redaction or hand in vectors.
pub(crate) fn search_with(
    index: &SearchIndex,
    root: &Path,
    q: &Query,
    opts: &Options,
    nearest: Option<&vectors::Nearest>,
    trust_index: bool,
) -> Result<Vec<Hit>> {
    let _all = crate::timing::span("search");
    let f = index.fields;
    let span = crate::timing::span("searcher + build");
    let searcher = index.searcher();
    let built = build::build(&searcher, &f, q)?;
    drop(span);
    let span = crate::timing::span("columns + rule");
    let cols = columns(&searcher)?;
    let rule = SectionRule::new(&searcher, &cols, &built)?;
    drop(span);
    let span = crate::timing::span("collect");
    let (groups, evidence) = match nearest {
        Some(near) if built.scored && near.mode != vectors::Mode::Lexical => {
            vectors::rank(&searcher, &f, &cols, &built, &rule, opts.limit, near)?
        }
        _ => (
            collect::collect(&searcher, &f, &cols, &built, &rule, opts.limit)?,
            Default::default(),
        ),
    };
    drop(span);
    let span = crate::timing::span("chance level + marker");
    let ctx = HitContext {
        searcher: &searcher,
        fields: &f,
        cols: &cols,
        filter: built.filter.as_deref(),
        passage: built.passage.as_deref(),
        marker: &Marker::new(&searcher, &f, &built.positive),
        unit: terms::chance_level(
            &searcher,
            &f,
            collect::distinct_sections(&searcher, &f, &cols)?,
        ),
        passages: &Passages { root, trust_index },
        opts,
    };
    drop(span);
    let _span = crate::timing::span("hits");
    let mut hits = Vec::new();
    for g in groups {
        if opts.min_score.is_some_and(|min| g.score < min) {
            continue;
        }
        let mut hit = ctx.hit(&g)?;
        if let Some(&(bm25, cosine)) = evidence.get(&g.fp) {
            (hit.bm25, hit.cosine) = (bm25, cosine);
            // A fused score is a rank: relevance is the lexical evidence's.
            hit.relevance = hit.lexical_score() / ctx.unit;
        }
        hits.push(hit);
    }
    // Equal scores are listed by path and line, whatever the build order
    // (a filter-only query stays newest first).
    if built.scored {
        hits.sort_by(|a, b| {
            b.score
                .total_cmp(&a.score)
                .then_with(|| a.path.cmp(&b.path))
                .then(a.line.cmp(&b.line))
        });
    }
    Ok(hits)
}

/// What turning a group into a [`Hit`] needs, the same for every group of
/// a search.
struct HitContext<'a> {
    searcher: &'a Searcher,
    fields: &'a Fields,
    cols: &'a [Columns],
    /// The query's filters: a result is shown at a copy that passes them.
    filter: Option<&'a dyn TQuery>,
    /// Scores a section's windows, to show the best.
    passage: Option<&'a dyn TQuery>,
    marker: &'a Marker,
    /// [`Hit::relevance`]'s unit.
    unit: f32,
    passages: &'a Passages<'a>,
    opts: &'a Options,
}

impl HitContext<'_> {
    /// The result for a group: shown at its most specific copy that passes
    /// the filters, with the other copies listed.
    fn hit(&self, g: &Group) -> Result<Hit> {
        let all = copies(self.searcher, self.fields, self.cols, g.fp, None)?;
        let (rep, rep_sec) = self.shown_at(g, &all)?;
        let doc = stored(self.searcher, self.fields, rep)?;
        let (also_in, also_in_more) = self.also_in(&all, rep_sec)?;
        let (window, first_line) = match self.opts.snippets {
            true => self.passages.passage(&doc, g.fp, self.marker),
            false => None,
        }
        .unwrap_or((String::new(), doc.win[0]));
        let short = doc.sec[1].saturating_sub(doc.sec[0]) < self.opts.whole_under;
        let text = if self.opts.full || short {
            self.passages.section(&doc)
        } else {
            None
        };
        let snip = snippet(self.marker, &window);
        let line = first_line + window[..snip.at.min(window.len())].matches('\n').count();
        let date = date(&doc);
        Ok(Hit {
            id: format!("#{}", &doc.key[..doc.key.len().min(12)]),
            line,
            lines: doc.sec,
            heading: doc.heading,
            level: doc.level,
            date,
            period: doc.period,
            kind: doc.kind,
            status: doc.status,
            score: g.score,
            relevance: g.evidence / self.unit,
            coverage: g.coverage,
            snippet: snip.marked,
            snippet_text: snip.text,
            highlights: snip.highlights,
            also_in,
            also_in_more,
            text,
            bm25: None,
            cosine: None,
            path: doc.path,
        })
    }

    /// The window a group is shown at: in the most specific section that
    /// passes the filters, the window the query's terms score best (the
    /// first when none matches, as for a filter-only query); and that
    /// section.
    fn shown_at(
        &self,
        g: &Group,
        all: &[(DocAddress, [u64; 4])],
    ) -> Result<(DocAddress, Option<u64>)> {
        let filtered;
        let shown = match self.filter {
            Some(_) => {
                filtered = copies(self.searcher, self.fields, self.cols, g.fp, self.filter)?;
                &filtered[..]
            }
            None => all,
        };
        let Some(&(first, [_, _, rep_sec, _])) = shown.first() else {
            return Ok((g.best, None));
        };
        let windows = shown.iter().filter(|(_, s)| s[2] == rep_sec).count();
        // Copies are verbatim, so cut into the same windows.
        let ranked_win = g.window.then(|| {
            self.cols[g.best.segment_ord as usize]
                .win
                .first(g.best.doc_id)
                .unwrap_or(0)
        });
        let best = match (ranked_win, self.passage) {
            (Some(w), _) => shown
                .iter()
                .find(|(_, s)| s[2] == rep_sec && s[3] == w)
                .map(|(a, _)| *a),
            (None, Some(passage)) if windows > 1 => {
                best_window(self.searcher, self.cols, self.fields, passage, rep_sec)?
            }
            _ => None,
        };
        Ok((best.unwrap_or(first), Some(rep_sec)))
    }

    /// The copies, most specific first, but the one shown; a passage
    /// common to many nodes (boilerplate) lists [`ALSO_IN_MAX`] of them and
    /// counts the rest.
    fn also_in(
        &self,
        all: &[(DocAddress, [u64; 4])],
        rep_sec: Option<u64>,
    ) -> Result<(Vec<Place>, usize)> {
        let mut also_in = Vec::new();
        let mut also_in_more = 0;
        let mut seen = HashSet::from([rep_sec]);
        for (addr, s) in all {
            if !seen.insert(Some(s[2])) {
                continue;
            }
            if also_in.len() == ALSO_IN_MAX {
                also_in_more += 1;
                continue;
            }
            let other = stored(self.searcher, self.fields, *addr)?;
            also_in.push(Place {
                path: other.path,
                lines: other.sec,
                level: other.level,
            });
        }
        Ok((also_in, also_in_more))
    }
}

/// The day, or `first..last` day, a window is about.
fn date(doc: &Stored) -> Option<String> {
    let (lo, hi) = doc.dates?;
    let (lo, hi) = (day_of(lo)?, day_of(hi)?);
    Some(if lo == hi {
        lo.to_string()
    } else {
        format!("{lo}..{hi}")
    })
}
