//! Active Context and Recent Patterns in substance: each recent entry with
//! its decision or outcome line, a series (`load test round 1 … 8`) folded
//! into one line with its count; the subjects that recur, by name and
//! count, and the rules and facts added or changed lately.

use super::RootInput;
use super::notes::{ACTIVE_DAYS, Note, cut, standing_kind};
use super::standing::{Standing, words};
use crate::markdown::{EntryType, Topic};
use chrono::NaiveDate;
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// Days Recent Patterns looks back.
const PATTERN_DAYS: i64 = 30;
/// Recurring subjects named at most.
const MAX_RECURRING: usize = 8;

/// A keyword's series and number: `load-test-round-3` → (`load-test-round`, 3).
pub(super) fn series(keyword: &str) -> Option<(&str, u32)> {
    let (stem, n) = keyword.rsplit_once('-')?;
    let n: u32 = n.parse().ok()?;
    (!stem.is_empty()).then_some((stem, n))
}

/// `1–8`, or `1, 3, 4` when not a run.
pub(super) fn numbers(ns: &BTreeSet<u32>) -> String {
    let (Some(lo), Some(hi)) = (ns.first(), ns.last()) else {
        return String::new();
    };
    if (hi - lo) as usize + 1 == ns.len() {
        format!("{lo}–{hi}")
    } else {
        ns.iter().map(u32::to_string).collect::<Vec<_>>().join(", ")
    }
}

/// The last [`ACTIVE_DAYS`] days, newest first: one line per entry with
/// what it decided or came to (standing entries are in the Topics Index),
/// a series folded; a day whose log was not read keeps its topics.
pub(super) fn active_context(input: &RootInput) -> String {
    let mut by_day: BTreeMap<NaiveDate, Vec<&Note>> = BTreeMap::new();
    for n in &input.notes {
        by_day.entry(n.date).or_default().push(n);
    }
    let mut out = String::new();
    for (day, topics) in input.days.iter().rev() {
        let age = (input.today - *day).num_days();
        if !(0..ACTIVE_DAYS).contains(&age) || topics.is_empty() {
            continue;
        }
        match by_day.get(day) {
            Some(notes) => day_lines(*day, notes, &mut out),
            None => {
                let list: Vec<String> = topics.iter().map(Topic::render).collect();
                out.push_str(&format!("- {day}: {}\n", list.join(", ")));
            }
        }
    }
    if out.is_empty() {
        out.push_str("- nothing logged in the last 7 days\n");
    }
    out
}

fn day_lines(day: NaiveDate, notes: &[&Note], out: &mut String) {
    let notes: Vec<&Note> = notes
        .iter()
        .copied()
        .filter(|n| !standing_kind(n.topic.kind))
        .collect();
    let mut runs: HashMap<&str, Vec<&Note>> = HashMap::new();
    for n in &notes {
        if let Some((stem, _)) = series(&n.topic.keyword) {
            runs.entry(stem).or_default().push(n);
        }
    }
    let mut done: BTreeSet<&str> = BTreeSet::new();
    for n in &notes {
        let run = series(&n.topic.keyword).and_then(|(stem, _)| {
            let run = &runs[stem];
            (run.len() > 1).then_some((stem, run))
        });
        let line = match run {
            Some((stem, _)) if done.contains(stem) => continue,
            Some((stem, run)) => {
                done.insert(stem);
                let ns: BTreeSet<u32> = run
                    .iter()
                    .filter_map(|n| series(&n.topic.keyword))
                    .map(|s| s.1)
                    .collect();
                let last = run.last().map(|n| n.gist()).unwrap_or_default();
                format!(
                    "- {day} {stem} {} ({} entries; last: {last})",
                    numbers(&ns),
                    run.len()
                )
            }
            None => {
                let tag = match n.topic.kind {
                    EntryType::Reference => " [reference]",
                    _ => "",
                };
                format!("- {day} {}{tag}: {}", n.topic.keyword, n.gist())
            }
        };
        out.push_str(&cut(&line, 2 * super::notes::LINE_CHARS));
        out.push('\n');
    }
}

/// The entries a word is found in: (day, topic).
type Entries<'a> = BTreeSet<(NaiveDate, &'a Topic)>;

/// The subjects that recur over the last [`PATTERN_DAYS`] days (content
/// words of the entries' keywords found in more than one entry; words
/// found in exactly the same entries make one name: `load test round`),
/// the rules and facts added or changed in that time, and the counts.
pub(super) fn recent_patterns(input: &RootInput, standing: &[Standing]) -> String {
    let (per_type, entries_of) = recent_words(input);
    let mut out = String::new();
    recurring_line(&entries_of, &mut out);
    changed_lines(input.today, standing, &mut out);
    if !per_type.is_empty() {
        let counts: Vec<String> = per_type
            .iter()
            .map(|(k, n)| format!("{n} {}", k.as_str()))
            .collect();
        out.push_str(&format!(
            "- last {PATTERN_DAYS} days: {} entries\n",
            counts.join(", ")
        ));
    }
    if out.is_empty() {
        out.push_str("- no entries in the last 30 days\n");
    }
    out
}

/// Whether `day` is within the last [`PATTERN_DAYS`] days of `today`.
fn recent(today: NaiveDate, day: NaiveDate) -> bool {
    (0..PATTERN_DAYS).contains(&(today - day).num_days())
}

/// Each word's entries and its first place in a keyword (for the order of
/// words within a name).
type WordEntries<'a> = BTreeMap<String, (Entries<'a>, usize)>;

/// One pass over the recent days' topics: the number of entries of each
/// type, and each keyword word's entries (day, topic).
fn recent_words<'i>(input: &'i RootInput) -> (BTreeMap<EntryType, usize>, WordEntries<'i>) {
    let mut per_type: BTreeMap<EntryType, usize> = BTreeMap::new();
    let mut entries_of: WordEntries = BTreeMap::new();
    for (day, topics) in input.days.iter().filter(|(d, _)| recent(input.today, *d)) {
        for t in topics {
            *per_type.entry(t.kind).or_default() += 1;
            for (place, w) in keyword_words(&t.keyword).into_iter().enumerate() {
                let e = entries_of
                    .entry(w)
                    .or_insert_with(|| (BTreeSet::new(), place));
                e.0.insert((*day, t));
            }
        }
    }
    (per_type, entries_of)
}

/// The recurring subjects' line: words found in more than one entry, those
/// found in exactly the same entries named together, most days first (then
/// most entries, then by name), at most [`MAX_RECURRING`]; none when none
/// recur.
fn recurring_line(entries_of: &WordEntries, out: &mut String) {
    let mut names: BTreeMap<&Entries, Vec<(usize, &str)>> = BTreeMap::new();
    for (w, (entries, place)) in entries_of {
        if entries.len() > 1 {
            names.entry(entries).or_default().push((*place, w));
        }
    }
    let mut recurring: Vec<(usize, usize, String)> = names
        .into_iter()
        .map(|(entries, mut ws)| {
            ws.sort();
            let days: BTreeSet<NaiveDate> = entries.iter().map(|e| e.0).collect();
            let name: Vec<&str> = ws.iter().map(|w| w.1).collect();
            (entries.len(), days.len(), name.join(" "))
        })
        .collect();
    recurring.sort_by(|a, b| (b.1, b.0, &a.2).cmp(&(a.1, a.0, &b.2)));
    if recurring.is_empty() {
        return;
    }
    let list: Vec<String> = recurring
        .iter()
        .take(MAX_RECURRING)
        .map(|(n, d, name)| match d {
            1 => format!("{name} ({n} entries, 1 day)"),
            _ => format!("{name} ({n} entries, {d} days)"),
        })
        .collect();
    out.push_str(&format!(
        "- recurring (last {PATTERN_DAYS} days): {}\n",
        list.join(", ")
    ));
}

/// The rules and the facts about people whose newest mention is recent,
/// each as new, restated or changed (it replaced another): a line each.
fn changed_lines(today: NaiveDate, standing: &[Standing], out: &mut String) {
    for (kind, what) in [
        (EntryType::Feedback, "rules"),
        (EntryType::User, "facts about people"),
    ] {
        let changed: Vec<String> = standing
            .iter()
            .filter(|s| s.topic.kind == kind && recent(today, s.latest))
            .map(|s| {
                let how = if !s.replaces.is_empty() {
                    "changed"
                } else if s.since < s.latest {
                    "restated"
                } else {
                    "new"
                };
                format!("{} ({how}, {})", s.topic.keyword, s.latest)
            })
            .collect();
        if !changed.is_empty() {
            out.push_str(&format!(
                "- {what} added or changed (last {PATTERN_DAYS} days): {}\n",
                changed.join(", ")
            ));
        }
    }
}

/// A keyword's content words, in order, without repeats.
fn keyword_words(keyword: &str) -> Vec<String> {
    let mut seen = BTreeSet::new();
    keyword
        .split('-')
        .flat_map(words)
        .filter(|w| seen.insert(w.clone()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn series_and_numbers() {
        assert_eq!(series("load-test-round-3"), Some(("load-test-round", 3)));
        assert_eq!(series("release-3.8"), None);
        assert_eq!(numbers(&[1, 2, 3].into()), "1–3");
        assert_eq!(numbers(&[1, 3].into()), "1, 3");
    }
}
