//! Standing rules and facts, one item each: the same preference stated
//! again is one item (the newest wording, the oldest date); an entry a
//! newer one on the same subject supersedes is replaced, not repeated.
//!
//! Two entries of the same type are on the same subject when they share a
//! keyword, when the newer one names the older (`- supersedes: …`), or
//! when their titles share at least two content words and two thirds of
//! all their content words ("Tom is on leave" / "Tom is back from leave";
//! "Mina prefers async reviews" and "Mina prefers diagrams" share only
//! "mina", "Don't restart prod databases without asking" and "Don't drop
//! prod databases without asking" three of five: two items each). The bar
//! is high on purpose: two rules wrongly merged lose one, two items
//! wrongly kept apart cost a line. A merged entry under another title is a
//! restatement when the two bodies share most of their words (its date is
//! the older one's), else a change (its date is its own).

use super::notes::{MAX_STANDING, Note, standing_kind};
use crate::markdown::Topic;
use chrono::NaiveDate;
use std::collections::{BTreeSet, HashMap};

/// One standing rule or fact as ROOT shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Standing {
    /// The newest entry's topic.
    pub topic: Topic,
    /// Its newest mention.
    pub latest: NaiveDate,
    /// Since when it holds: its first mention, or a restatement's.
    pub since: NaiveDate,
    /// In its own words, and shortened.
    pub text: String,
    pub short: String,
    /// Keywords of the entries it replaced or restated under another title.
    pub replaces: Vec<String>,
}

/// The standing items of `notes` (the newest entry of each standing
/// topic; other notes are ignored), newest first. `first` gives each
/// topic's first mention.
pub fn standing(notes: &[Note], first: &HashMap<Topic, NaiveDate>) -> Vec<Standing> {
    // Newest first; within a day, the later entry is the newer.
    let mut order: Vec<(usize, &Note)> = notes
        .iter()
        .enumerate()
        .filter(|(_, n)| standing_kind(n.topic.kind))
        .collect();
    order.sort_by_key(|(i, n)| std::cmp::Reverse((n.date, *i)));
    // The newest MAX_STANDING topics only (a day of thousands of entries
    // would make the comparisons quadratic); older ones keep their slug.
    let mut topics = std::collections::HashSet::new();
    order.retain(|(_, n)| {
        topics.len() < MAX_STANDING && topics.insert(&n.topic) || topics.contains(&n.topic)
    });
    let mut items: Vec<(Standing, &Note)> = Vec::new();
    for (_, note) in order {
        let first_of = first.get(&note.topic).copied().unwrap_or(note.date);
        let same = items.iter().position(|(s, newer)| {
            s.topic == note.topic
                || s.replaces.contains(&note.topic.keyword)
                || (newer.topic.kind == note.topic.kind && same_subject(newer, note))
        });
        match same {
            Some(i) => {
                let (item, newer) = &mut items[i];
                if item.topic == note.topic {
                    item.since = item.since.min(first_of);
                } else if !item.replaces.contains(&note.topic.keyword) {
                    if restated(newer, note) {
                        item.since = item.since.min(first_of);
                    }
                    item.replaces.push(note.topic.keyword.clone());
                }
            }
            None => items.push((
                Standing {
                    topic: note.topic.clone(),
                    latest: note.date,
                    since: first_of.min(note.date),
                    text: note.standing_text(false),
                    short: note.standing_text(true),
                    replaces: Vec::new(),
                },
                note,
            )),
        }
    }
    items.into_iter().map(|(s, _)| s).collect()
}

/// Whether `newer` is about what `older` was (see the module's doc).
fn same_subject(newer: &Note, older: &Note) -> bool {
    if newer.supersedes().as_deref() == Some(older.topic.keyword.as_str()) {
        return true;
    }
    let (a, b) = (title_words(&newer.title), title_words(&older.title));
    let shared = a.intersection(&b).count();
    shared >= 2 && shared * 3 >= a.union(&b).count() * 2
}

/// A title's content words and its numbers: "Release 3.8 checklist" and
/// "Release 3.9 checklist", "topic number 1" and "topic number 2" are two.
fn title_words(title: &str) -> BTreeSet<String> {
    let mut out = words(title);
    out.extend(
        title
            .split(|c: char| !c.is_alphanumeric())
            .filter(|w| !w.is_empty() && w.chars().all(|c| c.is_ascii_digit()))
            .map(str::to_string),
    );
    out
}

/// Whether `newer` says again what `older` said: most of the shorter
/// body's words are in the other.
fn restated(newer: &Note, older: &Note) -> bool {
    let (a, b) = (words(&newer.lines.join(" ")), words(&older.lines.join(" ")));
    let shared = a.intersection(&b).count();
    !a.is_empty() && !b.is_empty() && shared * 3 >= a.len().min(b.len()) * 2
}

/// Words that say nothing of a subject.
const STOP: &[&str] = &[
    "a", "an", "the", "is", "are", "was", "be", "on", "in", "at", "to", "of", "for", "from", "and",
    "or", "not", "no", "with", "without", "by", "as", "it", "its", "his", "her", "their", "all",
    "any", "every", "this", "that", "prefers", "prefer", "likes", "like", "wants", "want",
    "always", "never", "dont", "do", "does", "use", "keep", "please",
];

/// One-syllable Korean particles a noun carries.
const PARTICLES: &[char] = &[
    '은', '는', '이', '가', '을', '를', '의', '에', '로', '와', '과', '도',
];

/// Content words of a text: lowercased, a plural's `s` dropped, stop words
/// and numbers out; a Korean word loses its particle and is cut to its
/// first two syllables (지수는 → 지수, 보고서를 → 보고, 님은 → 님).
pub(super) fn words(text: &str) -> BTreeSet<String> {
    let text: String = text.chars().filter(|c| !matches!(c, '\'' | '’')).collect();
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .filter_map(|w| {
            let w = w.to_lowercase();
            if !w.chars().any(char::is_alphabetic) || STOP.contains(&w.as_str()) {
                return None;
            }
            if !w.is_ascii() {
                let mut cs: Vec<char> = w.chars().collect();
                if cs.len() > 1 && cs.last().is_some_and(|c| PARTICLES.contains(c)) {
                    cs.pop();
                }
                return Some(cs.into_iter().take(2).collect());
            }
            let stem = match w.strip_suffix('s') {
                Some(s) if s.len() > 2 && !s.ends_with('s') => s.to_string(),
                _ => w,
            };
            Some(stem)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::markdown::EntryType;

    fn note(date: &str, title: &str, kind: EntryType, lines: &[&str]) -> Note {
        Note {
            date: NaiveDate::parse_from_str(date, "%Y-%m-%d").unwrap(),
            topic: Topic {
                keyword: crate::markdown::keyword(title),
                kind,
            },
            title: title.into(),
            lines: lines.iter().map(|s| s.to_string()).collect(),
        }
    }

    #[test]
    fn superseded_replaced_restated_merged_distinct_kept() {
        let u = EntryType::User;
        let notes = vec![
            note("2027-01-01", "Tom is on leave", u, &["until February 3"]),
            note(
                "2027-01-02",
                "Mina prefers async reviews",
                u,
                &["written docs"],
            ),
            note(
                "2027-01-03",
                "Mina prefers diagrams",
                u,
                &["boxes and arrows"],
            ),
            note(
                "2027-01-04",
                "Answers short",
                EntryType::Feedback,
                &["rule: five bullets"],
            ),
            note(
                "2027-01-09",
                "Tom is back from leave",
                u,
                &["reviews go to Tom again"],
            ),
            note(
                "2027-01-10",
                "Short answers",
                EntryType::Feedback,
                &["rule: five bullets at most"],
            ),
        ];
        let mut first = HashMap::new();
        first.insert(
            notes[3].topic.clone(),
            notes[3].date - chrono::Duration::days(20),
        );
        let items = standing(&notes, &first);
        let kws: Vec<&str> = items.iter().map(|s| s.topic.keyword.as_str()).collect();
        assert_eq!(
            kws,
            [
                "short-answers",
                "tom-is-back-from-leave",
                "mina-prefers-diagrams",
                "mina-prefers-async-reviews"
            ]
        );
        // Restated: the oldest date; changed: its own.
        assert_eq!(items[0].since.to_string(), "2026-12-15");
        assert_eq!(items[0].replaces, ["answers-short"]);
        assert_eq!(items[1].since.to_string(), "2027-01-09");
        assert_eq!(items[1].replaces, ["tom-is-on-leave"]);
    }

    #[test]
    fn two_rules_with_a_similar_title_stay_two() {
        let f = EntryType::Feedback;
        let notes = vec![
            note(
                "2027-01-01",
                "Don't restart prod databases without asking",
                f,
                &["rule: ask first"],
            ),
            note(
                "2027-01-02",
                "Don't drop prod databases without asking",
                f,
                &["rule: ask first"],
            ),
            note("2027-01-03", "Rule r1", f, &["rule: one"]),
            note("2027-01-04", "Rule r2", f, &["rule: two"]),
        ];
        assert_eq!(standing(&notes, &HashMap::new()).len(), 4);
        let numbered = vec![
            note("2027-01-01", "topic number 1", f, &["detail 1"]),
            note("2027-01-01", "topic number 2", f, &["detail 2"]),
        ];
        assert_eq!(standing(&numbered, &HashMap::new()).len(), 2);
    }

    #[test]
    fn an_explicit_supersedes_line_replaces_and_korean_words_match() {
        let u = EntryType::User;
        let notes = vec![
            note("2027-01-01", "Jisoo on call", u, &["joins on-call"]),
            note(
                "2027-01-05",
                "Rotation change",
                u,
                &["supersedes: Jisoo on call", "Jisoo left on-call"],
            ),
            note(
                "2027-01-06",
                "지수는 한국어 보고서 선호",
                u,
                &["한국어로 작성"],
            ),
            note("2027-01-08", "지수 한국어 보고서", u, &["한국어로 작성함"]),
        ];
        let items = standing(&notes, &HashMap::new());
        assert_eq!(items.len(), 2, "{items:?}");
        assert_eq!(items[1].replaces, ["jisoo-on-call"]);
        assert_eq!(items[0].since.to_string(), "2027-01-06");
    }
}
