//! `hipo recall`: the context pack an agent is given with a prompt.
//!
//! hipocampus's recall protocol as one call: the ROOT Topics Index lines
//! of the topics the query names (with their ages), then the best
//! passages search finds, each trimmed to its best lines and labelled
//! with `path:line`, date, type and a freshness note where due, all
//! within a token budget ([`crate::markdown::estimate_tokens`], as ROOT's
//! cap is counted). When no result reaches the relevance floor the pack
//! is empty: a prompt hook calls this on every prompt, and noise injected
//! is worse than nothing. A result opens the pack only with relevance at
//! the floor (lower in a young memory that holds the prompt's words well
//! beyond chance, [`background`], or a little beyond chance when the
//! prompt points back at the past, [`backref`]) and a fifth of the prompt
//! held, the prompt's plain words the memory never saw counted in
//! ([`vocab`]; [`gate`]). When one does, the pack holds the passages whose
//! relevance is near the best one's, not whatever fills the budget.

use crate::error::{Error, Result};
use crate::index::analyzer;
use crate::markdown::{EntryType, estimate_tokens};
use crate::search::{self, Hit};
use chrono::NaiveDate;
use serde::Serialize;
use std::collections::HashSet;
use std::path::Path;

mod background;
mod backref;
mod common;
mod gate;
mod text;
pub(crate) mod vocab;

use gate::Gate;
pub use gate::Held;
pub(crate) use gate::held;

pub use text::render;

pub use crate::config::{DEFAULT_BUDGET, DEFAULT_FLOOR};
/// A passage after the first enters the pack only with at least this
/// share of the best one's relevance: it is there because it is evidence
/// for the prompt, not because the budget has room. Once the gate has
/// found the memory holds something on the prompt, a later passage is
/// judged by its own relevance (which already weighs the share of the
/// prompt it holds) against the best one's, not by the gate's coverage
/// again: in a large memory an answer session often ranks below others
/// about the same subject, holding fewer of the prompt's words. In a young
/// memory the answer stands out and the pack holds one or two passages;
/// in a large one the next results are close to the first and enter
/// (docs/retrieval-log.md, "Recall", for the figures at 0.5, 0.4, 0.3 and 0.2).
pub const PACK_SHARE: f32 = 0.3;
/// About what a brief passage with its label costs: results asked of
/// search are the budget over this.
const TOKENS_PER_PASSAGE: usize = 40;
/// The first passage is shown at its snippet's full length
/// ([`crate::search::snippet::SNIPPET_BYTES`]); the rest are chosen as
/// [`BRIEF_BYTES`], their best match and a little around it. An answer
/// often ranks below the first few results, and a pointer to it
/// (`path:line`, which `hipo get` opens) with the line that matched is
/// worth more to the agent than more words of the results above it: on
/// the MemAware dev questions 800 tokens of brief passages hold an answer
/// for 0.320 of them, full ones for 0.267 (docs/retrieval-log.md,
/// "Recall"). Once the passages are chosen, the budget they left is
/// spent on showing them whole, best first ([`widen`]).
const FULL_PASSAGES: usize = 1;
/// What a brief passage keeps of its snippet, which starts a little
/// before its first match.
const BRIEF_BYTES: usize = 80;
/// A section of fewer lines than this may be shown whole when the
/// budget has room. A typed entry is a handful of lines and whole it
/// holds the decision and the outcome a snippet cuts off; a captured chat
/// session is hundreds, which would not fit. Search reads (and, unless
/// the index vouches for it, redacts) the text of every hit this short
/// (`search::Options::whole_under`), so long sections are left out.
const WHOLE_LINES: usize = 40;
/// ROOT topics listed at most.
const TOPICS_MAX: usize = 8;
/// A project entry or a reference older than this many days gets a note.
pub const STALE_DAYS: i64 = 30;

/// How to build a pack.
#[derive(Debug, Clone)]
pub struct Options {
    pub budget: usize,
    pub floor: f32,
    /// The date ages are counted to.
    pub today: NaiveDate,
}

/// What an agent is given.
#[derive(Debug, Clone, Serialize)]
pub struct Pack {
    pub query: String,
    /// Nothing reached the floor: the pack is empty on purpose.
    pub abstained: bool,
    /// Topics Index lines of ROOT naming a topic of the query.
    pub topics: Vec<String>,
    pub passages: Vec<Passage>,
    /// The rendered pack's estimated tokens.
    pub tokens: usize,
    /// The share of the prompt's weight in words the memory holds
    /// (`vocab`): what the gate's coverage is scaled by.
    pub held: f32,
    /// How much more of the prompt's weight the memory holds than a
    /// memory of its size would by chance (`background`): at 0.6
    /// (`gate::BEYOND_CHANCE`) the relevance floor is lowered.
    pub beyond_chance: f32,
    /// The prompt points back at the shared past ("again", "last time",
    /// "did we"; `backref`): held 0.2 beyond chance
    /// (`gate::BEYOND_CHANCE_POINTING_BACK`), the relevance floor is
    /// lowered.
    pub refers_back: bool,
}

/// One passage of a pack.
#[derive(Debug, Clone, Serialize)]
pub struct Passage {
    pub path: String,
    /// First and last line given.
    pub lines: [usize; 2],
    pub heading: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub date: Option<String>,
    #[serde(rename = "type")]
    pub kind: EntryType,
    pub score: f32,
    /// Why it may be stale (`45 days old: check it still holds`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// The lines, redacted, long ones cut.
    pub text: Vec<String>,
}

/// What a pack is built from: the facade's fresh index (recall never
/// opens an index itself).
pub struct Memory<'a> {
    /// Runs a search.
    pub search: &'a dyn Fn(&search::query::Query, &search::Options) -> Result<Vec<Hit>>,
    /// How much of a prompt the memory holds ([`held`]).
    pub held: &'a dyn Fn(&str) -> Held,
    /// The project, whose ROOT's topics are listed.
    pub root: &'a Path,
}

/// Builds the pack for `query` from `memory`.
pub fn recall(memory: &Memory, query: &str, opts: &Options) -> Result<Pack> {
    let mut pack = Pack {
        query: query.to_string(),
        abstained: true,
        topics: Vec::new(),
        passages: Vec::new(),
        tokens: 0,
        held: 1.0,
        beyond_chance: 0.0,
        refers_back: false,
    };
    let o = search::Options {
        limit: (opts.budget / TOKENS_PER_PASSAGE).clamp(3, 40),
        whole_under: WHOLE_LINES,
        ..Default::default()
    };
    // A prompt is prose: its quotes, signs and colons are not the query
    // language (`search::query::prose`).
    let hits = match (memory.search)(&search::query::prose(query), &o) {
        Ok(hits) => hits,
        // Only stop words, say: nothing to recall.
        Err(Error::Query(_)) => Vec::new(),
        Err(e) => return Err(e),
    };
    let gate = Gate {
        floor: opts.floor,
        refers_back: backref::refers_back(query),
        held: if hits.is_empty() {
            Held {
                share: 1.0,
                beyond_chance: 0.0,
            }
        } else {
            (memory.held)(query)
        },
    };
    pack.held = gate.held.share;
    pack.beyond_chance = gate.held.beyond_chance;
    pack.refers_back = gate.refers_back;
    // The floor is lexical evidence: with vectors, each hit's lexical
    // relevance is compared (a fused score is a rank, not evidence).
    // ROOT is never a passage (its topics are listed instead), so it
    // cannot open the pack either: its generated lines ("rules added or
    // changed (last 30 days)") share plain words with any prompt. A pack
    // asked for explicitly (a floor of 0) opens on any hit, ROOT's too,
    // for its topics.
    let explicit = opts.floor <= 0.0 && !hits.is_empty();
    let hits: Vec<&Hit> = hits
        .iter()
        .filter(|h| h.path != crate::layout::ROOT_PATH)
        .collect();
    if !explicit && !hits.iter().any(|h| gate.reaches(h)) {
        return Ok(pack);
    }
    pack.abstained = false;
    let mut used = estimate_tokens(&text::head(&pack.query));
    for line in root_topics(memory.root, query) {
        let cost = estimate_tokens(&text::topic(&line));
        if used + cost > opts.budget || pack.topics.len() == TOPICS_MAX {
            break;
        }
        used += cost;
        pack.topics.push(line);
    }
    pack.passages = passages(&hits, &gate, opts, used);
    pack.tokens = estimate_tokens(&text::render(&pack));
    Ok(pack)
}

/// The pack's passages, from `hits` (ROOT left out: its Topics Index is
/// given as topics), within what the budget has left after `used`. The
/// floor decides whether the memory has anything to say; once it has, a
/// passage enters when its relevance is near the best one's
/// ([`PACK_SHARE`]), within the budget. With a floor of 0 (a pack asked
/// for explicitly) the budget alone decides.
fn passages(hits: &[&Hit], gate: &Gate, opts: &Options, mut used: usize) -> Vec<Passage> {
    let best = hits
        .iter()
        .filter(|h| gate.reaches(h))
        .map(|h| h.relevance)
        .fold(0.0, f32::max);
    let near = |h: &&&Hit| opts.floor <= 0.0 || h.relevance >= best * PACK_SHARE;
    let mut chosen: Vec<(&Hit, Passage, usize)> = Vec::new();
    let mut told = false;
    for h in hits.iter().filter(near) {
        let room = opts.budget.saturating_sub(used);
        let full = chosen.len() < FULL_PASSAGES;
        let Some((p, cost)) = passage(h, opts.today, room, full, told) else {
            break;
        };
        used += cost;
        told |= text::tells_to_check(&p);
        chosen.push((h, p, cost));
    }
    widen(&mut chosen, opts, used);
    chosen.into_iter().map(|(_, p, _)| p).collect()
}

/// Shows the chosen passages whole, best first, while the budget they
/// left holds it: a short section ([`WHOLE_LINES`]) as all its lines, any
/// other brief passage at its snippet's full length. Which passages are
/// in the pack was decided on briefs, so this never adds one nor drops
/// one: a pack of a young memory (one to four passages) shows each
/// entry's lines instead of a pointer cut after 80 bytes, and a pack the
/// budget filled stays as it was.
fn widen(chosen: &mut [(&Hit, Passage, usize)], opts: &Options, mut used: usize) {
    let mut told = false;
    for (i, (h, p, cost)) in chosen.iter_mut().enumerate() {
        let was_told = told;
        told |= text::tells_to_check(p);
        let room = opts.budget.saturating_sub(used) + *cost;
        // Search gives a short section's text whole (`whole_under`).
        let whole = h.text.as_deref().and_then(|text| {
            let lines: Vec<&str> = text.lines().collect();
            whole_passage(p, &lines, h.lines[0], room, was_told)
        });
        let wider = whole.or_else(|| {
            (i >= FULL_PASSAGES)
                .then(|| passage(h, opts.today, room, true, was_told))
                .flatten()
        });
        if let Some((wide, wide_cost)) = wider
            && shown_bytes(&wide) > shown_bytes(p)
        {
            used = used - *cost + wide_cost;
            (*p, *cost) = (wide, wide_cost);
        }
    }
}

/// `p` showing every line of its section (`lines`, read from `first`)
/// but its heading, which the label gives, and blank ones, when that fits
/// in `room` tokens.
fn whole_passage(
    p: &Passage,
    lines: &[&str],
    first: usize,
    room: usize,
    told: bool,
) -> Option<(Passage, usize)> {
    let body: Vec<(usize, &&str)> = (first..)
        .zip(lines)
        .skip(usize::from(
            lines.first().is_some_and(|l| l.starts_with('#')),
        ))
        .filter(|(_, l)| !l.trim().is_empty())
        .collect();
    let (&(a, _), &(b, _)) = (body.first()?, body.last()?);
    let wide = Passage {
        lines: [a, b],
        text: body.iter().map(|(_, l)| l.trim_end().to_string()).collect(),
        ..p.clone()
    };
    let cost = estimate_tokens(&text::passage(&wide, told));
    (cost <= room).then_some((wide, cost))
}

/// The bytes of text a passage shows.
fn shown_bytes(p: &Passage) -> usize {
    p.text.iter().map(String::len).sum()
}

/// The passage of a hit: its snippet, the best lines around its best
/// matches on one line ([`crate::search::snippet::SNIPPET_BYTES`]), so a pack holds
/// several sessions' evidence rather than one session's; cut to `room`
/// tokens (`None` when not even a useful part fits), and to
/// [`BRIEF_BYTES`] unless `full`; with its cost in tokens as rendered.
fn passage(
    h: &Hit,
    today: NaiveDate,
    room: usize,
    full: bool,
    told: bool,
) -> Option<(Passage, usize)> {
    let mut p = Passage {
        path: h.path.clone(),
        lines: [h.line, h.line],
        heading: h.heading.clone(),
        date: h.date.clone(),
        kind: h.kind,
        score: h.score,
        note: note(h, today),
        text: Vec::new(),
    };
    let bare = estimate_tokens(&text::passage(&p, told));
    let budget = room.checked_sub(bare + 2).filter(|b| *b >= 16)?;
    let bytes = if full {
        budget * 4
    } else {
        BRIEF_BYTES.min(budget * 4)
    };
    p.text.push(cut(h.snippet_text.trim(), bytes));
    let cost = estimate_tokens(&text::passage(&p, told));
    (cost <= room).then_some((p, cost))
}

/// At most `max` bytes of `line`, on a char boundary, `…` when cut.
fn cut(line: &str, max: usize) -> String {
    if line.len() <= max {
        return line.to_string();
    }
    let mut end = max.saturating_sub(3);
    while !line.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &line[..end])
}

/// A project entry or a reference older than [`STALE_DAYS`].
fn note(h: &Hit, today: NaiveDate) -> Option<String> {
    let last = h.date.as_deref()?.rsplit("..").next()?;
    let day = NaiveDate::parse_from_str(last, "%Y-%m-%d").ok()?;
    let age = (today - day).num_days();
    match h.kind {
        EntryType::Project if age > STALE_DAYS => Some(format!("{age} days old{}", text::CHECK)),
        EntryType::Reference if age > STALE_DAYS => Some(format!("{age} days old ?")),
        _ => None,
    }
}

/// ROOT's Topics Index lines (`- topic [type, Nd]`) whose topic the query
/// names: at least half its words are in the query.
fn root_topics(root: &Path, query: &str) -> Vec<String> {
    let Ok(text) = std::fs::read_to_string(root.join(crate::layout::ROOT_PATH)) else {
        return Vec::new();
    };
    let words: HashSet<String> = analyzer::tokens(query)
        .into_iter()
        .map(|t| t.text)
        .collect();
    let mut inside = false;
    let mut out = Vec::new();
    for line in text.lines() {
        if let Some(h) = line.strip_prefix("## ") {
            inside = h.trim() == "Topics Index";
            continue;
        }
        let Some(item) = line.strip_prefix("- ").filter(|_| inside) else {
            continue;
        };
        let topic = item.split(" [").next().unwrap_or(item).replace('-', " ");
        let tokens = analyzer::tokens(&topic);
        let named = tokens.iter().filter(|t| words.contains(&t.text)).count();
        if named > 0 && named * 2 >= tokens.len() {
            out.push(line.to_string());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::gate::{
        BEYOND_CHANCE, BEYOND_CHANCE_FLOOR, BEYOND_CHANCE_POINTING_BACK, MIN_COVERAGE,
    };
    use super::*;

    /// The pack `hits` give `prompt`, in a project with no ROOT.
    fn pack_of(hits: &[Hit], prompt: &str, budget: usize, floor: f32) -> Pack {
        let held = Held {
            share: 1.0,
            beyond_chance: 0.0,
        };
        pack_held(hits, prompt, budget, floor, held)
    }

    fn pack_held(hits: &[Hit], prompt: &str, budget: usize, floor: f32, held: Held) -> Pack {
        let search = |_: &search::query::Query, _: &search::Options| Ok(hits.to_vec());
        let dir = tempfile::tempdir().unwrap();
        let memory = Memory {
            search: &search,
            held: &|_| held,
            root: dir.path(),
        };
        let today = NaiveDate::from_ymd_opt(2026, 1, 3).unwrap();
        recall(
            &memory,
            prompt,
            &Options {
                budget,
                floor,
                today,
            },
        )
        .unwrap()
    }

    /// Held beyond chance, the floor is [`BEYOND_CHANCE_FLOOR`]; the
    /// coverage rule still holds, and a hit under the lower floor still
    /// opens nothing.
    #[test]
    fn a_prompt_held_beyond_chance_takes_the_lower_floor() {
        let mut h = Hit::sample("memory/2026-01-02.md", [3, 4], "2026-01-02 › Invoice");
        h.relevance = 0.12;
        let held = |beyond_chance| Held {
            share: 1.0,
            beyond_chance,
        };
        let at = |h: &Hit, beyond| {
            pack_held(
                std::slice::from_ref(h),
                "q",
                800,
                DEFAULT_FLOOR,
                held(beyond),
            )
        };
        assert!(at(&h, 0.0).abstained);
        assert!(at(&h, BEYOND_CHANCE - 0.01).abstained);
        let pack = at(&h, BEYOND_CHANCE);
        assert!(!pack.abstained);
        assert_eq!(pack.beyond_chance, BEYOND_CHANCE);
        let mut under = h.clone();
        under.relevance = BEYOND_CHANCE_FLOOR - 0.01;
        assert!(at(&under, 1.0).abstained);
        let mut thin = h.clone();
        thin.coverage = MIN_COVERAGE - 0.01;
        assert!(at(&thin, 1.0).abstained);
    }

    /// A prompt pointing back at the shared past takes the lower floor
    /// once the memory holds it [`BEYOND_CHANCE_POINTING_BACK`] beyond chance;
    /// a fresh request does not, nor does the cue alone.
    #[test]
    fn a_prompt_pointing_back_takes_the_lower_floor_when_held_beyond_chance() {
        let mut h = Hit::sample("memory/2026-01-02.md", [3, 4], "2026-01-02 › Backoff");
        h.relevance = 0.12;
        let at = |prompt, beyond_chance| {
            let held = Held {
                share: 1.0,
                beyond_chance,
            };
            pack_held(std::slice::from_ref(&h), prompt, 800, DEFAULT_FLOOR, held)
        };
        let back = "what backoff did we settle on last time";
        let pack = at(back, BEYOND_CHANCE_POINTING_BACK);
        assert!(!pack.abstained && pack.refers_back);
        assert!(at(back, BEYOND_CHANCE_POINTING_BACK - 0.01).abstained);
        assert!(
            at(
                "what backoff should the retries use",
                BEYOND_CHANCE_POINTING_BACK
            )
            .abstained
        );
    }

    #[test]
    fn long_lines_are_cut_on_char_boundaries() {
        assert_eq!(cut("short", 10), "short");
        let s = cut(&"회의".repeat(100), 20);
        assert!(s.ends_with('…') && s.len() <= 20 + 3, "{s}");
    }

    /// ROOT's best hit, above the floor and holding the whole prompt,
    /// does not open the pack: only a passage that could be shown does.
    /// Asked for explicitly (a floor of 0), the pack opens on any hit.
    #[test]
    fn root_never_opens_the_pack_unless_asked_for_explicitly() {
        let mut root = Hit::sample(crate::layout::ROOT_PATH, [15, 15], "ROOT › Recent Patterns");
        (root.relevance, root.coverage) = (1.0, 1.0);
        let mut weak = Hit::sample("memory/2026-01-02.md", [3, 4], "2026-01-02 › Deploy");
        (weak.relevance, weak.coverage) = (0.05, 0.3);
        let hits = [root, weak];
        let pack = pack_of(&hits, "what changed last", 800, DEFAULT_FLOOR);
        assert!(pack.abstained && pack.passages.is_empty(), "{pack:?}");
        let pack = pack_of(&hits, "what changed last", 800, 0.0);
        assert!(!pack.abstained, "{pack:?}");
        assert_eq!(pack.passages.len(), 1, "{pack:?}");
        assert_eq!(pack.passages[0].path, "memory/2026-01-02.md");
    }

    /// Once chosen, passages are shown whole while the budget holds, best
    /// first: a short section as its lines (its heading left to the
    /// label), a long one at its snippet's length. What the budget cannot
    /// hold stays a brief, and no passage is added or dropped by it.
    #[test]
    fn chosen_passages_are_shown_whole_while_the_budget_holds() {
        let hit = |path: &str, lines, relevance, snippet: &str, text: Option<&str>| {
            let mut h = Hit::sample(path, lines, "Cutover");
            (h.relevance, h.snippet_text) = (relevance, snippet.to_string());
            h.text = text.map(str::to_string);
            h
        };
        let rehearsal = format!("## Rehearsal\n{}\n", "rehearsal ".repeat(30));
        let hits = [
            hit(
                "memory/a.md",
                [3, 6],
                1.0,
                "- decisions: cut over at 14:05",
                Some("## Cutover\n- request: switch writes\n\n- decisions: cut over at 14:05\n"),
            ),
            hit(
                "memory/b.md",
                [3, 4],
                0.9,
                &"rehearsal ".repeat(30),
                Some(&rehearsal),
            ),
            hit(
                "memory/c.md",
                [3, 200],
                0.8,
                &"long session ".repeat(30),
                None,
            ),
        ];
        let pack = pack_of(&hits, "when was the cutover", 800, DEFAULT_FLOOR);
        let texts: Vec<Vec<&str>> = pack
            .passages
            .iter()
            .map(|p| p.text.iter().map(String::as_str).collect())
            .collect();
        let (rehearsal, long) = ("rehearsal ".repeat(30), "long session ".repeat(30));
        assert_eq!(
            texts,
            [
                vec!["- request: switch writes", "- decisions: cut over at 14:05"],
                vec![rehearsal.trim_end()],
                vec![long.trim()],
            ],
            "{pack:?}"
        );
        assert_eq!(pack.passages[0].lines, [4, 6]);
        // Room for the first passage and two briefs only: the same three
        // passages, the later ones brief.
        let tight = pack_of(&hits, "when was the cutover", 120, DEFAULT_FLOOR);
        assert_eq!(tight.passages.len(), 3, "{tight:?}");
        assert!(tight.passages[2].text[0].len() <= BRIEF_BYTES, "{tight:?}");
        assert!(tight.tokens <= 120, "{tight:?}");
    }

    #[test]
    fn old_projects_and_references_get_a_note() {
        let today = NaiveDate::from_ymd_opt(2026, 3, 31).unwrap();
        let mut h = Hit::sample("memory/2026-01-01.md", [3, 9], "2026-01-01 › Deploy");
        h.date = Some("2026-01-01".into());
        assert_eq!(
            note(&h, today).as_deref(),
            Some("89 days old: check it still holds")
        );
        h.kind = EntryType::Reference;
        assert_eq!(note(&h, today).as_deref(), Some("89 days old ?"));
        h.date = Some("2026-03-20".into());
        assert_eq!(note(&h, today), None);
        h.kind = EntryType::User;
        assert_eq!(note(&h, today), None);
    }
}
