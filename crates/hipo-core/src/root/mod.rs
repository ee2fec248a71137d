//! `memory/ROOT.md`: the topic index an agent loads into every session.
//!
//! Built mechanically from the tree and a few raw logs ([`notes`]): the
//! Topics Index is computed from the topics in every node's frontmatter
//! with the age of their latest mention, its standing `[feedback]` rules
//! and `[user]` facts first and in their own words ([`standing`]: one item
//! per rule, restatements merged, superseded entries replaced); Active
//! Context says what each entry of the last days decided and Recent
//! Patterns what recurs ([`recent`]); Historical Summary is filled from the
//! dates and topics. A section someone wrote by hand (without hipo's
//! `<!-- hipo:auto -->` marker) is kept verbatim. The result stays under
//! `compaction.rootMaxTokens` by shortening the Historical Summary first,
//! then dropping the oldest project and reference topics; if that is not
//! enough, whatever the input, the generated sections are cut too (Recent
//! Patterns, then the standing items shortened, Active Context, and only
//! then standing items dropped: see [`cap`]). Hand-written sections are
//! never cut.

use crate::layout::{Level, NodeId};
use crate::markdown::{EntryType, Frontmatter, Status, Topic};
use chrono::{Datelike, NaiveDate};
use rustc_hash::{FxHashMap, FxHashSet};
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

/// Marks a section hipo generated and may regenerate.
pub const AUTO: &str = "<!-- hipo:auto -->";

/// The four sections, in order.
pub const SECTIONS: [&str; 4] = [
    "Active Context (recent ~7 days)",
    "Recent Patterns",
    "Historical Summary",
    "Topics Index",
];

/// Everything ROOT is built from.
#[derive(Debug)]
pub struct RootInput<'a> {
    pub today: NaiveDate,
    pub max_tokens: usize,
    /// Each logged day with its topics.
    pub days: Vec<(NaiveDate, Vec<Topic>)>,
    /// Weekly and monthly nodes with their topics (for topics that only a
    /// summary mentions).
    pub summaries: Vec<(NodeId, Vec<Topic>)>,
    /// The current ROOT.md, whose hand-written sections are kept.
    pub existing: Option<&'a str>,
    /// Active Context, Recent Patterns and Historical Summary written by a
    /// model; used instead of the mechanical ones (hand-written still win).
    pub narrative: Option<[String; 3]>,
    /// The entries of the raw logs [`notes::gather`] reads.
    pub notes: Vec<Note>,
}

/// A rough token count (≈ 4 bytes a token), enough to enforce the cap.
pub use crate::markdown::estimate_tokens;

mod cap;
mod context;
pub(crate) mod notes;
mod recent;
mod sections;
mod standing;

use cap::{Frame, HISTORY_FLOOR, Parts, drop_old_topics, shorten_oldest, trim_to_cap};
pub use context::for_context;
use notes::{Note, standing_kind};
pub use sections::sync_memory_md;
use sections::{hand_written, kept_extra};
use standing::Standing;

/// Builds ROOT.md.
pub fn build(input: &RootInput) -> String {
    let kept = hand_written(input.existing);
    let frame = Frame {
        frontmatter: Frontmatter {
            kind: Some(Level::Root.into()),
            status: Some(Status::Tentative.into()),
            last_updated: Some(input.today.to_string()),
            ..Default::default()
        }
        .render(),
        extra: kept_extra(input.existing),
    };
    let written = |i: usize| input.narrative.as_ref().map(|n| auto(n[i].clone()));
    let standing = standing::standing(&input.notes, &first_mentions(input));
    let mut root = Parts {
        active: kept[0]
            .clone()
            .or_else(|| written(0))
            .unwrap_or_else(|| auto(recent::active_context(input))),
        patterns: kept[1]
            .clone()
            .or_else(|| written(1))
            .unwrap_or_else(|| auto(recent::recent_patterns(input, &standing))),
        history: kept[2]
            .clone()
            .or_else(|| written(2))
            .unwrap_or_else(|| auto(historical_summary(input, true))),
        topics: topic_lines(input.today, &latest_mentions(input), &standing),
        omitted: 0,
    };
    let budget = input.max_tokens;
    // Over the cap, Historical Summary is compressed first: the model's
    // text loses its oldest lines (down to a floor); the mechanical one
    // drops its topics.
    if root.tokens(&frame) > budget && kept[2].is_none() {
        root.history = match written(2) {
            Some(model) => shorten_oldest(&model, HISTORY_FLOOR, |h| {
                Parts {
                    history: h.to_string(),
                    ..root.clone()
                }
                .tokens(&frame)
                    <= budget
            }),
            None => auto(historical_summary(input, false)),
        };
    }
    if root.tokens(&frame) <= budget {
        return root.render(&frame);
    }
    drop_old_topics(&mut root, &frame, input, budget, kept[2].is_some());
    let out = root.render(&frame);
    if estimate_tokens(&out) <= budget {
        return out;
    }
    trim_to_cap(&mut root, &frame, budget, &kept);
    root.render(&frame)
}

/// What every rendering of ROOT shares: the frontmatter and the sections
/// that are not one of hipo's four, kept as they were.
fn auto(body: String) -> String {
    format!("{AUTO}\n{body}")
}

#[derive(Clone)]
pub(crate) struct TopicLine {
    pub(crate) topic: Topic,
    pub(crate) age: i64,
    /// The line as written: a standing item's with its words.
    pub(crate) text: String,
    /// A standing item's forms, longest first: the whole line, its rule or
    /// first line cut short, its slug alone (tried in turn when the cap is
    /// tight). Empty for other topics.
    pub(crate) forms: Vec<String>,
}

/// Each topic's first mention (a restated rule holds since then).
fn first_mentions(input: &RootInput) -> HashMap<Topic, NaiveDate> {
    let mut first: FxHashMap<&Topic, NaiveDate> = FxHashMap::default();
    for (day, topics) in &input.days {
        for t in topics.iter().filter(|t| standing_kind(t.kind)) {
            let e = first.entry(t).or_insert(*day);
            *e = (*e).min(*day);
        }
    }
    first.into_iter().map(|(t, d)| (t.clone(), d)).collect()
}

/// Latest date each topic was mentioned: a day's date, or for topics only
/// a summary mentions, the last day of its period (not after today).
/// Keyed by reference: at ten years the tree holds some 44,000 mentions
/// of a few thousand topics, and a key cloned per mention was a third of
/// a rebuild of ROOT.
fn latest_mentions<'i>(input: &'i RootInput) -> FxHashMap<&'i Topic, NaiveDate> {
    let mut latest: FxHashMap<&Topic, NaiveDate> = FxHashMap::default();
    for (day, topics) in &input.days {
        for t in topics {
            let e = latest.entry(t).or_insert(*day);
            *e = (*e).max(*day);
        }
    }
    for (node, topics) in &input.summaries {
        let Some((_, end)) = node.date_range() else {
            continue;
        };
        let end = end.min(input.today);
        for t in topics {
            latest.entry(t).or_insert(end);
        }
    }
    latest
}

/// The Topics Index: rules, then facts about people, then projects and
/// references, each newest first. A standing topic carries its words (and
/// since when it holds, what it replaced); a topic another replaced is
/// left out; a series of project topics (`load-test-round-1` … `-8`) is
/// one line.
fn topic_lines(
    today: NaiveDate,
    latest: &FxHashMap<&Topic, NaiveDate>,
    standing: &[Standing],
) -> Vec<TopicLine> {
    let items: HashMap<&Topic, &Standing> = standing.iter().map(|s| (&s.topic, s)).collect();
    let replaced: HashSet<(EntryType, &str)> = standing
        .iter()
        .flat_map(|s| s.replaces.iter().map(move |k| (s.topic.kind, k.as_str())))
        .collect();
    let mut lines: Vec<TopicLine> = latest
        .iter()
        .filter(|(t, _)| !replaced.contains(&(t.kind, t.keyword.as_str())))
        .map(|(&t, d)| {
            let age = (today - *d).num_days().max(0);
            let stale = if t.kind == EntryType::Reference && age > 30 {
                " ?"
            } else {
                ""
            };
            let base = format!("- {} [{}, {age}d]{stale}", t.keyword, t.kind.as_str());
            let forms = match items.get(t) {
                Some(s) => standing_forms(&base, s, *d),
                None => Vec::new(),
            };
            TopicLine {
                topic: t.clone(),
                age,
                text: forms.first().cloned().unwrap_or(base),
                forms,
            }
        })
        .collect();
    lines.sort_by(|a, b| {
        (rank(a.topic.kind), a.age, &a.topic.keyword).cmp(&(
            rank(b.topic.kind),
            b.age,
            &b.topic.keyword,
        ))
    });
    fold_series(lines)
}

/// Rules first: what an agent must obey, then whom it works with.
fn rank(kind: EntryType) -> u8 {
    match kind {
        EntryType::Feedback => 0,
        EntryType::User => 1,
        EntryType::Project => 2,
        EntryType::Reference => 3,
    }
}

/// A standing item's line and its shorter forms.
fn standing_forms(base: &str, s: &Standing, latest: NaiveDate) -> Vec<String> {
    let mut tail = String::new();
    if s.since < latest {
        tail.push_str(&format!(" (since {})", s.since));
    }
    if !s.replaces.is_empty() {
        // The newest few: an item restated under many titles over years
        // would otherwise grow a line without end.
        let shown: Vec<&str> = s.replaces.iter().take(3).map(String::as_str).collect();
        let more = match s.replaces.len().saturating_sub(3) {
            0 => String::new(),
            n => format!(" and {n} more"),
        };
        tail.push_str(&format!(" (replaces {}{more})", shown.join(", ")));
    }
    vec![
        format!("{base}: {}{tail}", s.text),
        format!("{base}: {}", s.short),
        base.to_string(),
    ]
}

/// Project and reference lines of one series made one, where its newest
/// stood: `- load-test-round-1–8 [project, 9d]: 8 topics`.
fn fold_series(lines: Vec<TopicLine>) -> Vec<TopicLine> {
    let key = |l: &TopicLine| {
        (!standing_kind(l.topic.kind))
            .then(|| {
                recent::series(&l.topic.keyword).map(|(stem, _)| (l.topic.kind, stem.to_string()))
            })
            .flatten()
    };
    let mut members: HashMap<(EntryType, String), BTreeSet<u32>> = HashMap::new();
    for l in &lines {
        if let (Some(k), Some((_, n))) = (key(l), recent::series(&l.topic.keyword)) {
            members.entry(k).or_default().insert(n);
        }
    }
    let mut out = Vec::with_capacity(lines.len());
    let mut done = HashSet::new();
    for l in lines {
        let Some(k) = key(&l).filter(|k| members[k].len() > 1) else {
            out.push(l);
            continue;
        };
        if !done.insert(k.clone()) {
            continue;
        }
        let ns = &members[&k];
        let keyword = format!("{}-{}", k.1, recent::numbers(ns));
        let stale = if l.text.ends_with(" ?") { " ?" } else { "" };
        out.push(TopicLine {
            text: format!(
                "- {keyword} [{}, {}d]{stale}: {} topics",
                k.0.as_str(),
                l.age,
                ns.len()
            ),
            topic: Topic { keyword, kind: k.0 },
            age: l.age,
            forms: Vec::new(),
        });
    }
    out
}

fn historical_summary(input: &RootInput, with_topics: bool) -> String {
    // Per month: days logged, topics in first-mention order, and a set to
    // keep that list free of repeats without a quadratic scan (left empty
    // without topics). Keyed by year and month, in the order of their
    // `%Y-%m` names (raw logs' years have four digits), formatted once a
    // month rather than once a day.
    type Month<'a> = (usize, Vec<&'a Topic>, FxHashSet<&'a Topic>);
    let mut months: BTreeMap<(i32, u32), Month> = BTreeMap::new();
    for (day, topics) in &input.days {
        let e = months.entry((day.year(), day.month())).or_default();
        e.0 += 1;
        if !with_topics {
            continue;
        }
        for t in topics {
            if e.2.insert(t) {
                e.1.push(t);
            }
        }
    }
    let mut out = String::new();
    for ((year, month), (days, topics, _)) in &months {
        let month = format!("{year:04}-{month:02}");
        out.push_str(&format!("- {month}: {days} day(s) logged"));
        if with_topics && !topics.is_empty() {
            let names: Vec<&str> = topics.iter().take(8).map(|t| t.keyword.as_str()).collect();
            out.push_str(&format!("; {}", names.join(", ")));
            if topics.len() > 8 {
                out.push_str(&format!(" (+{} more)", topics.len() - 8));
            }
        }
        out.push_str(&format!(" → memory/monthly/{month}.md\n"));
    }
    if out.is_empty() {
        out.push_str("- no history yet\n");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::sections::replace_section;
    use super::*;

    fn d(s: &str) -> NaiveDate {
        NaiveDate::parse_from_str(s, "%Y-%m-%d").unwrap()
    }
    fn t(k: &str, kind: EntryType) -> Topic {
        Topic {
            keyword: k.into(),
            kind,
        }
    }

    fn input(existing: Option<&str>, max_tokens: usize) -> RootInput<'_> {
        RootInput {
            today: d("2027-01-21"),
            max_tokens,
            days: vec![
                (
                    d("2026-11-01"),
                    vec![
                        t("old-docs", EntryType::Reference),
                        t("old-work", EntryType::Project),
                    ],
                ),
                (
                    d("2027-01-20"),
                    vec![
                        t("terse", EntryType::Feedback),
                        t("deploy", EntryType::Project),
                    ],
                ),
                (d("2026-11-02"), vec![t("likes-rust", EntryType::User)]),
            ],
            summaries: vec![],
            existing,
            narrative: None,
            notes: Vec::new(),
        }
    }

    #[test]
    fn topics_index_ages_and_stale_refs() {
        let out = build(&input(None, 3000));
        assert!(out.contains("- likes-rust [user, 80d]\n"), "{out}");
        assert!(out.contains("- terse [feedback, 1d]\n"));
        assert!(out.contains("- old-docs [reference, 81d] ?\n"));
        assert!(out.contains("- 2027-01-20: terse [feedback], deploy [project]\n"));
        assert!(out.starts_with("---\ntype: root\nstatus: tentative\nlast-updated: 2027-01-21\n"));
    }

    #[test]
    fn keeps_hand_written_sections() {
        let existing = "---\ntype: root\n---\n## Active Context (recent ~7 days)\n- shipping v2 this week\n## Recent Patterns\n<!-- hipo:auto -->\n- old\n## Notes\nmine\n";
        let out = build(&input(Some(existing), 3000));
        assert!(out.contains("## Active Context (recent ~7 days)\n- shipping v2 this week\n"));
        assert!(!out.contains("- old\n"));
        assert!(out.contains("## Notes\nmine\n"));
    }

    #[test]
    fn root_respects_its_cap_whatever_the_input() {
        // One day of ten thousand entries of every type, years of history,
        // and a model that wrote far too much: ROOT stays under its cap,
        // standing rules kept longest and the trim said. (Names that are
        // not a numbered series, which would be folded into one line.)
        for budget in [3000, 600] {
            let mut inp = input(None, budget);
            let kinds = [
                EntryType::User,
                EntryType::Feedback,
                EntryType::Project,
                EntryType::Reference,
            ];
            let today: Vec<Topic> = (0..10_000)
                .map(|i| t(&format!("entry-{i}-topic"), kinds[i % 4]))
                .collect();
            inp.days.push((d("2027-01-21"), today));
            for m in 0..120 {
                let day = d("2017-01-01") + chrono::Duration::days(m * 30);
                inp.days
                    .push((day, vec![t(&format!("old-{m}"), EntryType::User)]));
            }
            let out = build(&inp);
            assert!(
                estimate_tokens(&out) <= budget,
                "{budget}: {}",
                estimate_tokens(&out)
            );
            for title in SECTIONS {
                assert!(out.contains(&format!("## {title}\n")), "{out}");
            }
            assert!(out.contains(" [feedback, 0d]\n"), "{out}");
            assert!(!out.contains(" [project, "), "{out}");
            assert!(out.contains("trimmed to stay under rootMaxTokens"), "{out}");
            inp.narrative = Some([
                "- did a thing\n".repeat(5000),
                "- a pattern\n".repeat(5000),
                "- history\n".repeat(5000),
            ]);
            let out = build(&inp);
            assert!(
                estimate_tokens(&out) <= budget,
                "{budget}: {}",
                estimate_tokens(&out)
            );
        }
    }

    #[test]
    fn cap_drops_old_projects_not_users() {
        let mut inp = input(None, 3000);
        for i in 0..400 {
            inp.days.push((
                d("2026-12-01"),
                vec![t(&format!("project-{i}-topic"), EntryType::Project)],
            ));
        }
        let out = build(&inp);
        assert!(estimate_tokens(&out) <= 3000, "{}", estimate_tokens(&out));
        assert!(out.contains("likes-rust [user"));
        assert!(out.contains("terse [feedback"));
        assert!(out.contains("older topics omitted"));
    }

    #[test]
    fn cap_moves_old_projects_to_history_and_shortens_the_models_text() {
        let mut inp = input(None, 1200);
        for i in 0..300 {
            inp.days.push((
                d("2026-06-01"),
                vec![t(&format!("old-{i}-project"), EntryType::Project)],
            ));
        }
        let history: String = (1..=40)
            .map(|m| format!("- month {m}: a long account of what happened in this month\n"))
            .collect();
        inp.narrative = Some(["- now\n".into(), "- pattern\n".into(), history]);
        let out = build(&inp);
        assert!(estimate_tokens(&out) <= 1200, "{}", estimate_tokens(&out));
        // The model's newest history survives; its oldest lines went first.
        assert!(out.contains("- month 40:"), "{out}");
        assert!(!out.contains("- month 1:"), "{out}");
        assert!(
            !out.contains("day(s) logged"),
            "not replaced by the mechanical one"
        );
        // Old project topics moved to Historical Summary.
        assert!(out.contains("- 2026-06 (earlier topics): old-"), "{out}");
        assert!(out.contains("likes-rust [user"));
    }

    #[test]
    fn a_hand_written_history_gets_no_moved_topics() {
        let existing = "---\ntype: root\n---\n## Historical Summary\n- my own account\n";
        let mut inp = input(Some(existing), 600);
        for i in 0..200 {
            inp.days.push((
                d("2026-06-01"),
                vec![t(&format!("old-{i}-project"), EntryType::Project)],
            ));
        }
        let out = build(&inp);
        assert!(
            out.contains("## Historical Summary\n- my own account\n\n"),
            "{out}"
        );
        assert!(!out.contains("(earlier topics)"), "{out}");
        assert!(out.contains("older topics omitted"));
    }

    #[test]
    fn memory_md_section_replaced_only() {
        let text = "# Memory\n## Core\nfrozen\n## Compaction Root\nold\n## Adaptive\nkeep\n";
        let out = replace_section(text, "Compaction Root", "## Compaction Root\nnew\n");
        assert_eq!(
            out,
            "# Memory\n## Core\nfrozen\n## Compaction Root\nnew\n\n## Adaptive\nkeep\n"
        );
        assert_eq!(
            replace_section("# M\n", "Compaction Root", "## Compaction Root\nx\n"),
            "# M\n\n## Compaction Root\nx\n"
        );
    }
}
