//! The raw logs' entries as ROOT carries them in words, without a model:
//! a `[feedback]` rule (its `rule:` and `how-to-apply:` lines), a `[user]`
//! fact (its first lines), a project's decision or outcome line.
//!
//! ROOT is rebuilt from the store's topics, never from every raw log (ten
//! years of logs are half a gigabyte): [`wanted`] names the few logs
//! worth reading (the last 7 days, and the newest mention of each of the
//! newest standing topics), [`notes_of`] parses one.

use crate::markdown::{self, EntryType, Topic};
use chrono::NaiveDate;
use std::collections::{BTreeSet, HashMap};

/// One `## ` entry of a raw log, as ROOT reads it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Note {
    pub date: NaiveDate,
    pub topic: Topic,
    /// The entry's heading without its type tag.
    pub title: String,
    /// Its top-level bullet lines without `- ` (or, for an entry without
    /// bullets, its first lines), outside code blocks, at most
    /// [`MAX_LINES`] of at most [`MAX_LINE`] characters.
    pub lines: Vec<String>,
}

/// Lines of an entry kept: a captured session is a transcript of
/// thousands of lines, of which ROOT uses one.
const MAX_LINES: usize = 12;
/// Characters of a line kept.
const MAX_LINE: usize = 300;
/// Characters of a line of ROOT in words (a rule, a fact, a decision).
pub const LINE_CHARS: usize = 240;
/// Standing topics whose newest entry is read at most: ROOT's cap holds
/// far fewer in words; the rest keep their slug line.
pub const MAX_STANDING: usize = 64;
/// Days of Active Context.
pub const ACTIVE_DAYS: i64 = 7;

/// Whether a type is a standing one: a rule or a fact about someone,
/// never compressed into history (hipocampus's rule for user and feedback).
pub fn standing_kind(kind: EntryType) -> bool {
    matches!(kind, EntryType::User | EntryType::Feedback)
}

/// Each standing topic's newest mention.
fn latest_standing(days: &[(NaiveDate, Vec<Topic>)]) -> HashMap<&Topic, NaiveDate> {
    let mut latest: HashMap<&Topic, NaiveDate> = HashMap::new();
    for (day, topics) in days {
        for t in topics.iter().filter(|t| standing_kind(t.kind)) {
            let e = latest.entry(t).or_insert(*day);
            *e = (*e).max(*day);
        }
    }
    latest
}

/// The raw logs ROOT reads: the last [`ACTIVE_DAYS`] days, and the day of
/// the newest mention of each of the [`MAX_STANDING`] most recently
/// mentioned standing topics. Newest first, without repeats.
fn wanted(
    today: NaiveDate,
    days: &[(NaiveDate, Vec<Topic>)],
    latest: &HashMap<&Topic, NaiveDate>,
) -> Vec<NaiveDate> {
    let mut newest: Vec<NaiveDate> = latest.values().copied().collect();
    newest.sort_unstable_by(|a, b| b.cmp(a));
    let mut out: BTreeSet<NaiveDate> = newest
        .into_iter()
        .take(MAX_STANDING)
        .filter(|d| *d <= today)
        .collect();
    out.extend(
        days.iter()
            .map(|(d, _)| *d)
            .filter(|d| (0..ACTIVE_DAYS).contains(&(today - *d).num_days())),
    );
    out.into_iter().rev().collect()
}

/// The days whose raw logs [`gather`] reads: what ROOT says depends on
/// those logs themselves, not only on the nodes below it (a log pruned
/// after its daily was fixed leaves every node as it was, but ROOT's line
/// of that day falls back to its topics).
pub fn days_read(today: NaiveDate, days: &[(NaiveDate, Vec<Topic>)]) -> Vec<NaiveDate> {
    wanted(today, days, &latest_standing(days))
}

/// The notes ROOT is built from: the entries of the days
/// [`wanted`] names, read with `read` (a log that cannot be read is
/// left out: its day keeps its topics), of which a day before the last
/// [`ACTIVE_DAYS`] gives only its standing entries whose topic it is the
/// newest mention of.
pub fn gather(
    today: NaiveDate,
    days: &[(NaiveDate, Vec<Topic>)],
    mut read: impl FnMut(NaiveDate) -> Option<String>,
) -> Vec<Note> {
    let latest = latest_standing(days);
    let mut out = Vec::new();
    for day in wanted(today, days, &latest) {
        let Some(text) = read(day) else { continue };
        let recent = (0..ACTIVE_DAYS).contains(&(today - day).num_days());
        out.extend(
            notes_of(day, &text, !recent)
                .into_iter()
                .filter(|n| recent || latest.get(&n.topic) == Some(&day)),
        );
    }
    out
}

/// The entries of one raw log, in the order written (`standing_only`:
/// only its `[feedback]` and `[user]` ones). Titles are not redacted here:
/// they only serve to compare entries, and ROOT is redacted whole.
pub fn notes_of(date: NaiveDate, text: &str, standing_only: bool) -> Vec<Note> {
    let body = markdown::split_frontmatter(text)
        .map(|(_, b, _)| b)
        .unwrap_or(text);
    markdown::sections(body)
        .into_iter()
        .filter_map(|s| {
            let (title, kind) = markdown::split_type_tag(s.title.trim());
            if standing_only && !standing_kind(kind) {
                return None;
            }
            Some(Note {
                date,
                topic: Topic::parse(s.title)?,
                title: title.to_string(),
                lines: lines_of(s.body),
            })
        })
        .collect()
}

/// The bullet lines of an entry's body (its first plain lines if it has
/// none), outside code blocks and comments.
fn lines_of(body: &str) -> Vec<String> {
    let (mut bullets, mut plain) = (Vec::new(), Vec::new());
    let mut fence = false;
    for line in body.lines() {
        let t = line.trim();
        if t.starts_with("```") || t.starts_with("~~~") {
            fence = !fence;
            continue;
        }
        if fence || t.is_empty() || t.starts_with("<!--") || t.starts_with('#') {
            continue;
        }
        if let Some(b) = line.strip_prefix("- ").or_else(|| line.strip_prefix("* ")) {
            if bullets.len() < MAX_LINES && !b.trim().is_empty() {
                bullets.push(cut(b.trim(), MAX_LINE));
            }
        } else if plain.len() < 2 {
            plain.push(cut(t, MAX_LINE));
        }
        if bullets.len() == MAX_LINES {
            break;
        }
    }
    if bullets.is_empty() { plain } else { bullets }
}

impl Note {
    /// The text after `label:` on the first line that has one of `labels`.
    pub fn field(&self, labels: &[&str]) -> Option<&str> {
        self.lines.iter().find_map(|l| {
            let (label, rest) = l.split_once(':')?;
            let label = label.trim().to_lowercase();
            labels
                .iter()
                .any(|w| label == *w)
                .then(|| rest.trim())
                .filter(|r| !r.is_empty())
        })
    }

    /// What happened, in one line: the decision (and the outcome when both
    /// fit), else the outcome, else the first line (a session's first
    /// question).
    pub fn gist(&self) -> String {
        let decision = self.field(&["decisions", "decision", "결정"]);
        let outcome = self.field(&["outcome", "result", "결과"]);
        let line = match (decision, outcome) {
            (Some(d), Some(o)) if d.chars().count() + o.chars().count() < LINE_CHARS => {
                format!("{d} → {o}")
            }
            (Some(d), _) => d.to_string(),
            (None, Some(o)) => o.to_string(),
            // A captured session: its first question, not its date line.
            (None, None) => self
                .lines
                .iter()
                .find(|l| l.starts_with("User:"))
                .or_else(|| self.lines.iter().find(|l| !is_label(l, &["session date"])))
                .cloned()
                .unwrap_or_default(),
        };
        cut(&line, LINE_CHARS)
    }

    /// A standing entry in its own words: a rule with how to apply it, or a
    /// fact's first two lines. `short`: the rule or first line alone, cut
    /// to half a line (what is left when ROOT's cap is tight).
    pub fn standing_text(&self, short: bool) -> String {
        let rule = self.field(&["rule", "규칙"]);
        let apply = self.field(&["how-to-apply", "how to apply", "apply", "적용"]);
        let first = |n: usize| {
            self.lines
                .iter()
                .filter(|l| !is_label(l, &["why", "supersedes", "replaces"]))
                .take(n)
                .cloned()
                .collect::<Vec<_>>()
                .join("; ")
        };
        if short {
            return cut(
                &rule.map(str::to_string).unwrap_or_else(|| first(1)),
                LINE_CHARS / 2,
            );
        }
        let text = match (self.topic.kind, rule, apply) {
            (EntryType::Feedback, Some(r), Some(a)) => format!("{r}; how to apply: {a}"),
            (EntryType::Feedback, Some(r), None) => r.to_string(),
            _ => first(2),
        };
        cut(&text, LINE_CHARS)
    }

    /// The keyword of the entry this one says it replaces
    /// (`- supersedes: Tom is on leave`).
    pub fn supersedes(&self) -> Option<String> {
        self.field(&["supersedes", "replaces", "대체"])
            .map(markdown::keyword)
            .filter(|k| !k.is_empty())
    }
}

fn is_label(line: &str, labels: &[&str]) -> bool {
    line.split_once(':')
        .is_some_and(|(l, _)| labels.contains(&l.trim().to_lowercase().as_str()))
}

/// `s` cut to `max` characters, `…` marking the cut.
pub fn cut(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        return s.to_string();
    }
    let mut out: String = s.chars().take(max.saturating_sub(1)).collect();
    out.push('…');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(s: &str) -> NaiveDate {
        NaiveDate::parse_from_str(s, "%Y-%m-%d").unwrap()
    }

    #[test]
    fn entries_give_their_rule_fact_and_decision() {
        let log = "# 2027-01-05\n\n## Use KST [feedback]\n- rule: write times in KST with the zone\n- why: Seoul\n- how-to-apply: convert log times\n\n## Cutover [project]\n- request: x\n- decisions: native publications\n- outcome: done\n```\n- not a bullet\n```\n\n## 무제 메모\n- 2월에 추가 예정\n";
        let notes = notes_of(d("2027-01-05"), log, false);
        assert_eq!(notes_of(d("2027-01-05"), log, true).len(), 1);
        assert_eq!(notes.len(), 3);
        assert_eq!(
            notes[0].standing_text(false),
            "write times in KST with the zone; how to apply: convert log times"
        );
        assert_eq!(
            notes[0].standing_text(true),
            "write times in KST with the zone"
        );
        assert_eq!(notes[1].gist(), "native publications → done");
        assert_eq!(notes[1].lines.len(), 3, "the fenced line is not a bullet");
        assert_eq!(notes[2].topic.kind, EntryType::Project);
        assert_eq!(notes[2].gist(), "2월에 추가 예정");
    }

    #[test]
    fn wanted_days_are_recent_and_the_newest_standing_mentions() {
        let t = |k: &str, kind| Topic {
            keyword: k.into(),
            kind,
        };
        let days = vec![
            (d("2020-01-01"), vec![t("rule-a", EntryType::Feedback)]),
            (d("2020-02-01"), vec![t("old-work", EntryType::Project)]),
            (d("2021-01-01"), vec![t("rule-a", EntryType::Feedback)]),
            (d("2027-01-19"), vec![t("now", EntryType::Project)]),
        ];
        assert_eq!(
            wanted(d("2027-01-21"), &days, &latest_standing(&days)),
            vec![d("2027-01-19"), d("2021-01-01")]
        );
    }
}
