//! `memory/ROOT.md`: the topic index an agent loads into every session.
//!
//! Built mechanically from the tree: the Topics Index is computed from the
//! topics in every node's frontmatter with the age of their latest mention;
//! Active Context, Recent Patterns and Historical Summary are filled from
//! the dates and topics too, unless someone wrote those sections by hand:
//! a section without hipo's `<!-- hipo:auto -->` marker is kept verbatim.
//! The result stays under `compaction.rootMaxTokens` by shortening the
//! Historical Summary first, then dropping the oldest project and
//! reference topics; if that is not enough, whatever the input, the
//! generated sections are cut too (user and feedback topics next, Active
//! Context last). Hand-written sections are never cut.

use crate::error::Result;
use crate::layout::NodeId;
use crate::markdown::{EntryType, Frontmatter, Topic};
use chrono::NaiveDate;
use std::collections::{BTreeMap, HashMap};
use std::path::Path;

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
}

/// A rough token count (≈ 4 bytes a token), enough to enforce the cap.
pub use crate::markdown::estimate_tokens;

/// Builds ROOT.md.
pub fn build(input: &RootInput) -> String {
    let kept = hand_written(input.existing);
    let frame = Frame {
        frontmatter: Frontmatter {
            kind: Some("root".into()),
            status: Some("tentative".into()),
            last_updated: Some(input.today.to_string()),
            ..Default::default()
        }
        .render(),
        extra: kept_extra(input.existing),
    };
    let written = |i: usize| input.narrative.as_ref().map(|n| auto(n[i].clone()));
    let mut root = Parts {
        active: kept[0]
            .clone()
            .or_else(|| written(0))
            .unwrap_or_else(|| auto(active_context(input))),
        patterns: kept[1]
            .clone()
            .or_else(|| written(1))
            .unwrap_or_else(|| auto(recent_patterns(input))),
        history: kept[2]
            .clone()
            .or_else(|| written(2))
            .unwrap_or_else(|| auto(historical_summary(input, true))),
        topics: topic_lines(input.today, &latest_mentions(input)),
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
struct Frame {
    frontmatter: String,
    extra: Vec<(String, String)>,
}

/// ROOT's four sections as they stand while it is fitted to its cap.
#[derive(Clone)]
struct Parts {
    active: String,
    patterns: String,
    history: String,
    topics: Vec<TopicLine>,
    /// Topics left out, counted in a last line of the index.
    omitted: usize,
}

impl Parts {
    fn render(&self, frame: &Frame) -> String {
        let mut out = frame.frontmatter.clone();
        out.push('\n');
        for (title, body) in
            SECTIONS
                .iter()
                .zip([self.active.as_str(), &self.patterns, &self.history, ""])
        {
            out.push_str(&format!("## {title}\n"));
            if *title == "Topics Index" {
                // Always computed, so marked like every section hipo writes.
                out.push_str(AUTO);
                out.push('\n');
                for t in &self.topics {
                    out.push_str(&t.text);
                    out.push('\n');
                }
                if self.omitted > 0 {
                    out.push_str(&omitted_line(self.omitted));
                }
            } else {
                out.push_str(body);
            }
            out.push('\n');
        }
        for (title, body) in &frame.extra {
            out.push_str(&format!("## {title}\n{body}"));
            if !body.ends_with('\n') {
                out.push('\n');
            }
        }
        out
    }

    fn tokens(&self, frame: &Frame) -> usize {
        estimate_tokens(&self.render(frame))
    }

    /// The tokens with `omitted` counted, as the index would say it.
    fn over(&self, size: usize, budget: usize) -> bool {
        size + if self.omitted > 0 {
            estimate_tokens(&omitted_line(self.omitted))
        } else {
            0
        } > budget
    }
}

/// The oldest project topics go, then the oldest references; user and
/// feedback topics stay. A project topic over 90 days old moves to
/// Historical Summary (a keyword under its month) while that stays within
/// a quarter of the cap; the rest are counted as omitted.
fn drop_old_topics(
    root: &mut Parts,
    frame: &Frame,
    input: &RootInput,
    budget: usize,
    history_kept: bool,
) {
    let topics = &root.topics;
    let mut order: Vec<usize> = (0..topics.len())
        .filter(|&i| {
            matches!(
                topics[i].topic.kind,
                EntryType::Project | EntryType::Reference
            )
        })
        .collect();
    order.sort_by_key(|&i| {
        (
            topics[i].topic.kind == EntryType::Reference,
            std::cmp::Reverse(topics[i].age),
        )
    });
    // Sizes below are kept conservatively: a dropped line saves one token
    // less than its own estimate, an added one costs all of its own.
    let mut size = root.tokens(frame);
    let mut drop = vec![false; topics.len()];
    let mut moved: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut moved_tokens = 0;
    for &i in &order {
        if !root.over(size, budget) {
            break;
        }
        let t = &root.topics[i];
        drop[i] = true;
        size -= estimate_tokens(&t.text).saturating_sub(1);
        let month = (input.today - chrono::Duration::days(t.age))
            .format("%Y-%m")
            .to_string();
        let cost = match moved.get(&month) {
            Some(_) => estimate_tokens(&t.topic.keyword) + 1,
            None => estimate_tokens(&moved_line(&month, &[&t.topic.keyword])),
        };
        // Not into a hand-written Historical Summary: it is kept verbatim.
        let movable = t.topic.kind == EntryType::Project && t.age > 90 && !history_kept;
        if movable && moved_tokens + cost <= budget / 4 {
            moved
                .entry(month)
                .or_default()
                .push(t.topic.keyword.clone());
            moved_tokens += cost;
            size += cost;
        } else {
            root.omitted += 1;
        }
    }
    for (month, keywords) in &moved {
        let kws: Vec<&String> = keywords.iter().collect();
        root.history.push_str(&moved_line(month, &kws));
    }
    let mut flags = drop.into_iter();
    root.topics.retain(|_| !flags.next().unwrap_or(false));
}

/// Still over (a day of ten thousand entries, years of history): the cap
/// holds whatever the input. Historical Summary loses its oldest lines,
/// Recent Patterns its last, then user and feedback topics go (feedback
/// first, oldest first, counted as omitted), and Active Context is cut
/// last. Hand-written sections are the person's own text and never cut.
fn trim_to_cap(root: &mut Parts, frame: &Frame, budget: usize, kept: &[Option<String>; 3]) {
    let room = |without: &Parts| budget.saturating_sub(without.tokens(frame));
    if kept[2].is_none() {
        let left = room(&Parts {
            history: String::new(),
            ..root.clone()
        });
        root.history = fit_section(&root.history, left, true);
    }
    if kept[1].is_none() {
        let left = room(&Parts {
            patterns: String::new(),
            ..root.clone()
        });
        root.patterns = fit_section(&root.patterns, left, false);
    }
    let mut size = root.tokens(frame);
    if root.over(size, budget) {
        let topics = &root.topics;
        let mut order: Vec<usize> = (0..topics.len()).collect();
        order.sort_by_key(|&i| {
            (
                topics[i].topic.kind == EntryType::User,
                std::cmp::Reverse(topics[i].age),
            )
        });
        let mut drop = vec![false; topics.len()];
        for i in order {
            if !root.over(size, budget) {
                break;
            }
            drop[i] = true;
            size -= estimate_tokens(&root.topics[i].text).saturating_sub(1);
            root.omitted += 1;
        }
        let mut flags = drop.into_iter();
        root.topics.retain(|_| !flags.next().unwrap_or(false));
    }
    if kept[0].is_none() {
        let left = room(&Parts {
            active: String::new(),
            ..root.clone()
        });
        root.active = fit_section(&root.active, left, false);
    }
}

/// What ends a section cut to stay under the cap.
const TRIMMED: &str =
    "- … trimmed to stay under rootMaxTokens; see memory/daily/ and memory/monthly/\n";

/// A section hipo wrote (its marker line first), cut to `tokens`: whole
/// lines are kept from its end (`oldest_first`: the newest lines are the
/// last) or its start, a line too long for what is left is cut short, and
/// [`TRIMMED`] says so. Line token estimates add up to at least the
/// estimate of their concatenation, so the result is within `tokens`
/// unless even the marker and that line are not.
fn fit_section(section: &str, tokens: usize, oldest_first: bool) -> String {
    if estimate_tokens(section) <= tokens {
        return section.to_string();
    }
    let mut lines: Vec<&str> = section.lines().collect();
    let marker = match lines.first() {
        Some(&AUTO) => {
            lines.remove(0);
            Some(AUTO)
        }
        _ => None,
    };
    let head = marker.map(|m| format!("{m}\n")).unwrap_or_default();
    let mut left = tokens.saturating_sub(estimate_tokens(&head) + estimate_tokens(TRIMMED));
    if oldest_first {
        lines.reverse();
    }
    let mut kept: Vec<String> = Vec::new();
    for line in lines {
        let cost = estimate_tokens(line) + 1;
        if cost <= left {
            kept.push(line.to_string());
            left -= cost;
            continue;
        }
        // Cut the line short if a useful part of it fits.
        if left > 8 {
            let (mut cut, mut ascii, mut other) = (String::new(), 0usize, 0usize);
            for c in line.chars() {
                let (a, o) = if c.is_ascii() {
                    (ascii + 1, other)
                } else {
                    (ascii, other + 1)
                };
                if a.div_ceil(4) + o + 2 > left {
                    break;
                }
                (ascii, other) = (a, o);
                cut.push(c);
            }
            cut.push('…');
            kept.push(cut);
        }
        break;
    }
    if oldest_first {
        kept.reverse();
    }
    let mut out = head;
    for line in kept {
        out.push_str(&line);
        out.push('\n');
    }
    out.push_str(TRIMMED);
    out
}

/// Lines of the model's Historical Summary kept however tight the cap.
const HISTORY_FLOOR: usize = 6;

/// `- YYYY-MM (earlier topics): a, b`: project topics moved out of the
/// Topics Index to make room.
fn moved_line(month: &str, keywords: &[impl AsRef<str>]) -> String {
    let kws: Vec<&str> = keywords.iter().map(AsRef::as_ref).collect();
    format!("- {month} (earlier topics): {}\n", kws.join(", "))
}

/// Drops a section's oldest bullet lines (the first: the model writes
/// them oldest first) until `fits`, keeping at least `floor` of them.
fn shorten_oldest(section: &str, floor: usize, fits: impl Fn(&str) -> bool) -> String {
    let lines: Vec<&str> = section.lines().collect();
    let bullets: Vec<usize> = (0..lines.len())
        .filter(|&i| lines[i].starts_with("- "))
        .collect();
    // Without its `k` oldest bullets; fitting only gets easier as `k`
    // grows, so the fewest that fits is found by bisection.
    let without = |k: usize| {
        let first_kept = bullets.get(k).copied().unwrap_or(usize::MAX);
        let kept: Vec<&str> = (0..lines.len())
            .filter(|&i| i >= first_kept || !lines[i].starts_with("- "))
            .map(|i| lines[i])
            .collect();
        format!("{}\n", kept.join("\n"))
    };
    let most = bullets.len().saturating_sub(floor);
    let (mut lo, mut hi) = (0, most);
    while lo < hi {
        let mid = (lo + hi) / 2;
        if fits(&without(mid)) {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    without(lo)
}

fn omitted_line(n: usize) -> String {
    format!("- … {n} older topics omitted to stay under rootMaxTokens; see memory/monthly/\n")
}

fn auto(body: String) -> String {
    format!("{AUTO}\n{body}")
}

#[derive(Clone)]
struct TopicLine {
    topic: Topic,
    age: i64,
    text: String,
}

/// Latest date each topic was mentioned: a day's date, or for topics only
/// a summary mentions, the last day of its period (not after today).
fn latest_mentions(input: &RootInput) -> HashMap<Topic, NaiveDate> {
    let mut latest: HashMap<Topic, NaiveDate> = HashMap::new();
    for (day, topics) in &input.days {
        for t in topics {
            let e = latest.entry(t.clone()).or_insert(*day);
            *e = (*e).max(*day);
        }
    }
    for (node, topics) in &input.summaries {
        let Some((_, end)) = node.date_range() else {
            continue;
        };
        let end = end.min(input.today);
        for t in topics {
            latest.entry(t.clone()).or_insert(end);
        }
    }
    latest
}

fn topic_lines(today: NaiveDate, latest: &HashMap<Topic, NaiveDate>) -> Vec<TopicLine> {
    let mut lines: Vec<TopicLine> = latest
        .iter()
        .map(|(t, d)| {
            let age = (today - *d).num_days().max(0);
            let stale = if t.kind == EntryType::Reference && age > 30 {
                " ?"
            } else {
                ""
            };
            TopicLine {
                topic: t.clone(),
                age,
                text: format!("- {} [{}, {age}d]{stale}", t.keyword, t.kind.as_str()),
            }
        })
        .collect();
    lines.sort_by(|a, b| {
        (a.topic.kind, a.age, &a.topic.keyword).cmp(&(b.topic.kind, b.age, &b.topic.keyword))
    });
    lines
}

fn active_context(input: &RootInput) -> String {
    let mut out = String::new();
    for (day, topics) in input.days.iter().rev() {
        let age = (input.today - *day).num_days();
        if !(0..7).contains(&age) || topics.is_empty() {
            continue;
        }
        let list: Vec<String> = topics.iter().map(Topic::render).collect();
        out.push_str(&format!("- {day}: {}\n", list.join(", ")));
    }
    if out.is_empty() {
        out.push_str("- nothing logged in the last 7 days\n");
    }
    out
}

fn recent_patterns(input: &RootInput) -> String {
    let mut days_per_topic: HashMap<&Topic, usize> = HashMap::new();
    let mut per_type: BTreeMap<EntryType, usize> = BTreeMap::new();
    for (day, topics) in &input.days {
        if !(0..30).contains(&(input.today - *day).num_days()) {
            continue;
        }
        for t in topics {
            *days_per_topic.entry(t).or_default() += 1;
            *per_type.entry(t.kind).or_default() += 1;
        }
    }
    let mut recurring: Vec<(&Topic, usize)> =
        days_per_topic.into_iter().filter(|(_, n)| *n > 1).collect();
    recurring.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(b.0)));
    let mut out = String::new();
    if !per_type.is_empty() {
        let counts: Vec<String> = per_type
            .iter()
            .map(|(k, n)| format!("{n} {}", k.as_str()))
            .collect();
        out.push_str(&format!("- last 30 days: {} entries\n", counts.join(", ")));
    }
    for (t, n) in recurring.into_iter().take(10) {
        out.push_str(&format!("- recurring: {} ({n} days)\n", t.render()));
    }
    if out.is_empty() {
        out.push_str("- no entries in the last 30 days\n");
    }
    out
}

fn historical_summary(input: &RootInput, with_topics: bool) -> String {
    // Per month: days logged, topics in first-mention order, and a set to
    // keep that list free of repeats without a quadratic scan.
    type Month<'a> = (usize, Vec<&'a Topic>, std::collections::HashSet<&'a Topic>);
    let mut months: BTreeMap<String, Month> = BTreeMap::new();
    for (day, topics) in &input.days {
        let e = months.entry(day.format("%Y-%m").to_string()).or_default();
        e.0 += 1;
        for t in topics {
            if e.2.insert(t) {
                e.1.push(t);
            }
        }
    }
    let mut out = String::new();
    for (month, (days, topics, _)) in &months {
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

/// The `##` sections of a body, in order, as (title, body).
fn sections(text: &str) -> Vec<(String, String)> {
    let body = crate::markdown::split_frontmatter(text)
        .map(|(_, b, _)| b)
        .unwrap_or(text);
    crate::markdown::sections(body)
        .into_iter()
        .map(|s| (s.title.trim().to_string(), s.body.to_string()))
        .collect()
}

fn section_index(title: &str) -> Option<usize> {
    SECTIONS.iter().position(|s| {
        title.starts_with(s.split(' ').next().unwrap_or(s))
            && title.starts_with(&s[..s.find(" (").unwrap_or(s.len())])
    })
}

/// Hand-written narrative sections of the existing ROOT (None = generate).
fn hand_written(existing: Option<&str>) -> [Option<String>; 3] {
    let mut kept = [None, None, None];
    for (title, body) in existing.map(sections).unwrap_or_default() {
        if let Some(i) = section_index(&title).filter(|i| *i < 3)
            && !body.contains(AUTO)
            && !body.trim().is_empty()
        {
            let mut body = body.trim_end().to_string();
            body.push('\n');
            kept[i] = Some(body);
        }
    }
    kept
}

/// Sections that are not one of the four, kept as they were.
fn kept_extra(existing: Option<&str>) -> Vec<(String, String)> {
    existing
        .map(sections)
        .unwrap_or_default()
        .into_iter()
        .filter(|(t, _)| section_index(t).is_none())
        .collect()
}

/// OpenClaw loads `MEMORY.md`, not ROOT.md: when `MEMORY.md` exists, its
/// `## Compaction Root` section is replaced (only that section) by ROOT's
/// Active Context, Recent Patterns and Topics Index.
pub fn sync_memory_md(root: &Path, root_md: &str) -> Result<()> {
    let path = root.join("MEMORY.md");
    let Ok(text) = std::fs::read_to_string(&path) else {
        return Ok(());
    };
    let mut section = String::from("## Compaction Root\n");
    for (title, body) in sections(root_md) {
        if matches!(section_index(&title), Some(0 | 1 | 3)) {
            section.push_str(&format!(
                "### {title}\n{}",
                body.replace(&format!("{AUTO}\n"), "")
            ));
        }
    }
    let updated = replace_section(&text, "Compaction Root", &section);
    if updated != text {
        crate::fsutil::write_atomic(&path, updated.as_bytes())?;
    }
    Ok(())
}

/// Replaces `## title` up to the next `## ` heading (or appends it).
fn replace_section(text: &str, title: &str, new: &str) -> String {
    let all = crate::markdown::sections(text);
    let Some(i) = all.iter().position(|s| s.title.trim_end() == title) else {
        let mut out = text.to_string();
        if !out.is_empty() && !out.ends_with("\n\n") {
            out.push_str(if out.ends_with('\n') { "\n" } else { "\n\n" });
        }
        out.push_str(new);
        return out;
    };
    let s = all[i];
    let gap = if i + 1 < all.len() { "\n" } else { "" };
    format!("{}{new}{gap}{}", &text[..s.start], &text[s.end..])
}

#[cfg(test)]
mod tests {
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
        // with the newest of Active Context kept and the trim said.
        for budget in [3000, 600] {
            let mut inp = input(None, budget);
            let kinds = [
                EntryType::User,
                EntryType::Feedback,
                EntryType::Project,
                EntryType::Reference,
            ];
            let today: Vec<Topic> = (0..10_000)
                .map(|i| t(&format!("entry-topic-{i}"), kinds[i % 4]))
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
            assert!(out.contains("- 2027-01-21: entry-topic-0 [user]"), "{out}");
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
                vec![t(&format!("project-topic-number-{i}"), EntryType::Project)],
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
                vec![t(&format!("old-project-{i}"), EntryType::Project)],
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
        assert!(
            out.contains("- 2026-06 (earlier topics): old-project-"),
            "{out}"
        );
        assert!(out.contains("likes-rust [user"));
    }

    #[test]
    fn a_hand_written_history_gets_no_moved_topics() {
        let existing = "---\ntype: root\n---\n## Historical Summary\n- my own account\n";
        let mut inp = input(Some(existing), 600);
        for i in 0..200 {
            inp.days.push((
                d("2026-06-01"),
                vec![t(&format!("old-project-{i}"), EntryType::Project)],
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
