//! The query language: what a person or an agent types after `hipo search`.
//!
//! Plain words are OR'ed and ranked by BM25, so a natural-language question
//! works as it is. `"exact phrase"` must appear as written, `+word` must
//! appear, `-word` (or `-"phrase"`) must not. Filters narrow the results:
//! `type:feedback`, `level:raw`, `after:2026-03-01`, `before:2026-03-31`,
//! `week:2026-W11`, `month:2026-03`, `path:knowledge/`; a filter given twice
//! (or with commas, `type:user,feedback`) accepts any of its values. A
//! `word:` that is not a filter name is searched as text.
//!
//! Pure: parsing only; [`super`] turns a [`Query`] into tantivy queries.

use crate::error::{Error, Result};
use crate::index::DocLevel;
use crate::layout::{Month, Week};
use crate::markdown::EntryType;
use chrono::NaiveDate;

/// A parsed query.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Query {
    /// Free text, ranked (at least one word must match unless something is
    /// required).
    pub text: Vec<String>,
    /// Words or phrases that must appear.
    pub(crate) required: Vec<Clause>,
    /// Words or phrases that must not appear.
    pub(crate) excluded: Vec<Clause>,
    pub(crate) filters: Filters,
}

impl Query {
    /// Applies the filter `name:value` as if written in the query (a
    /// front end's `--type`, `--after`, … flags): the same names and the
    /// same errors. `Ok(false)`: `name` is not a filter.
    pub fn filter(&mut self, name: &str, value: &str) -> Result<bool> {
        self.filters.apply(name, value)
    }
}

/// A word or a quoted phrase.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Clause {
    Word(String),
    Phrase(String),
}

/// What a result must be, besides matching the text.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Filters {
    /// Any of these entry types (empty: any).
    pub types: Vec<EntryType>,
    /// Any of these levels (empty: any).
    pub levels: Vec<DocLevel>,
    /// On or after this day.
    pub after: Option<NaiveDate>,
    /// On or before this day.
    pub before: Option<NaiveDate>,
    /// Under any of these path prefixes.
    pub paths: Vec<String>,
}

impl Filters {
    /// True when no filter is set.
    pub fn is_empty(&self) -> bool {
        *self == Filters::default()
    }

    /// Narrows the date range to `[lo, hi]` (intersecting what is set).
    pub fn within(&mut self, lo: NaiveDate, hi: NaiveDate) {
        self.after = Some(self.after.map_or(lo, |a| a.max(lo)));
        self.before = Some(self.before.map_or(hi, |b| b.min(hi)));
    }

    /// Applies one `name:value` filter. `Ok(false)`: `name` is not a filter.
    pub fn apply(&mut self, name: &str, value: &str) -> Result<bool> {
        let values = value.split(',').map(str::trim).filter(|v| !v.is_empty());
        if values.clone().next().is_none() {
            let example = match name {
                "type" => "type:feedback",
                "level" => "level:raw",
                "after" => "after:2026-03-01",
                "before" => "before:2026-03-31",
                "week" => "week:2026-W11",
                "month" => "month:2026-03",
                "path" => "path:knowledge/",
                _ => return Ok(false),
            };
            return Err(bad(format!(
                "`{name}:` needs a value; write it like {example}"
            )));
        }
        match name {
            "type" => {
                for v in values {
                    self.types.push(EntryType::parse(v).ok_or_else(|| {
                        bad(format!(
                            "unknown type `{v}`; use user, feedback, project or reference"
                        ))
                    })?);
                }
            }
            "level" => {
                for v in values {
                    self.levels.push(DocLevel::parse(v).ok_or_else(|| {
                        let all: Vec<&str> = DocLevel::ALL.iter().map(|l| l.as_str()).collect();
                        bad(format!("unknown level `{v}`; use {}", all.join(", ")))
                    })?);
                }
            }
            "after" => {
                let d = date(value)?;
                self.after = Some(self.after.map_or(d, |a| a.max(d)));
            }
            "before" => {
                let d = date(value)?;
                self.before = Some(self.before.map_or(d, |b| b.min(d)));
            }
            "week" => {
                let w = Week::parse(value).ok_or_else(|| {
                    bad(format!(
                        "`{value}` is not an ISO week; write it like 2026-W11"
                    ))
                })?;
                if let (Some(lo), Some(hi)) = (w.first_day(), w.last_day()) {
                    self.within(lo, hi);
                }
            }
            "month" => {
                let m = Month::parse(value).ok_or_else(|| {
                    bad(format!("`{value}` is not a month; write it like 2026-03"))
                })?;
                if let (Some(lo), Some(hi)) = (m.first_day(), m.last_day()) {
                    self.within(lo, hi);
                }
            }
            "path" => {
                for v in values {
                    self.paths.push(v.trim_start_matches("./").to_string());
                }
            }
            _ => return Ok(false),
        }
        Ok(true)
    }
}

fn bad(message: String) -> Error {
    Error::Query(message)
}

fn date(value: &str) -> Result<NaiveDate> {
    NaiveDate::parse_from_str(value, "%Y-%m-%d")
        .map_err(|_| bad(format!("`{value}` is not a date; write it like 2026-03-15")))
}

/// Parses a query string.
pub fn parse(input: &str) -> Result<Query> {
    let mut q = Query::default();
    let mut rest = input.trim();
    while !rest.is_empty() {
        let (token, after) = next_token(rest);
        rest = after.trim_start();
        let (sign, body) = match token.as_bytes().first() {
            Some(b'+') if token.len() > 1 => (Some(true), &token[1..]),
            Some(b'-') if token.len() > 1 => (Some(false), &token[1..]),
            _ => (None, token),
        };
        if sign.is_none()
            && let Some((name, value)) = filter_parts(body)
            && q.filters.apply(&name, &unquote(value))?
        {
            continue;
        }
        let clause = match body.strip_prefix('"') {
            Some(inner) => Clause::Phrase(inner.strip_suffix('"').unwrap_or(inner).to_string()),
            None => Clause::Word(body.to_string()),
        };
        match (sign, clause) {
            (Some(true), c) => q.required.push(c),
            (Some(false), c) => q.excluded.push(c),
            // A quoted phrase is meant exactly: it must appear.
            (None, Clause::Phrase(p)) => q.required.push(Clause::Phrase(p)),
            (None, Clause::Word(w)) => q.text.push(w),
        }
    }
    Ok(q)
}

/// A prompt read as prose, not in the query language: every word ranks,
/// nothing is required, excluded or filtered. What a prompt hook is given
/// is what the user typed to the agent, where `"…"` quotes an error
/// message that the memory may never have seen, `-9` is a signal and
/// `-- --nocapture` a command line: read as the query language, one such
/// quote made a phrase required and left the prompt without a single hit
/// (and `type:bug` was a parse error), whatever its other words matched.
pub fn prose(input: &str) -> Query {
    Query {
        text: input.split_whitespace().map(str::to_string).collect(),
        ..Query::default()
    }
}

/// `name:value` where name is a plain lowercase word.
fn filter_parts(token: &str) -> Option<(String, &str)> {
    let (name, value) = token.split_once(':')?;
    // An empty value is passed on: `type:` alone is a mistake to point out,
    // `note:` (not a filter) is text.
    (!name.is_empty() && name.chars().all(|c| c.is_ascii_alphabetic()))
        .then(|| (name.to_ascii_lowercase(), value))
}

fn unquote(v: &str) -> String {
    v.strip_prefix('"')
        .map(|s| s.strip_suffix('"').unwrap_or(s))
        .unwrap_or(v)
        .to_string()
}

/// The next whitespace-separated token; a `"` keeps spaces until the next
/// `"` (an unclosed quote runs to the end).
fn next_token(s: &str) -> (&str, &str) {
    let mut in_quote = false;
    for (i, c) in s.char_indices() {
        match c {
            '"' => in_quote = !in_quote,
            c if c.is_whitespace() && !in_quote => return (&s[..i], &s[i..]),
            _ => {}
        }
    }
    (s, "")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(s: &str) -> NaiveDate {
        NaiveDate::parse_from_str(s, "%Y-%m-%d").unwrap()
    }

    #[test]
    fn words_phrases_signs_and_filters() {
        let q = parse(
            r#"postgres "connection pool" +pgbouncer -mysql -"old plan" type:feedback,user level:raw after:2026-03-01 path:knowledge/"#,
        )
        .unwrap();
        assert_eq!(q.text, vec!["postgres"]);
        assert_eq!(
            q.required,
            vec![
                Clause::Phrase("connection pool".into()),
                Clause::Word("pgbouncer".into())
            ]
        );
        assert_eq!(
            q.excluded,
            vec![
                Clause::Word("mysql".into()),
                Clause::Phrase("old plan".into())
            ]
        );
        assert_eq!(q.filters.types, vec![EntryType::Feedback, EntryType::User]);
        assert_eq!(q.filters.levels, vec![DocLevel::Raw]);
        assert_eq!(q.filters.after, Some(d("2026-03-01")));
        assert_eq!(q.filters.paths, vec!["knowledge/"]);
    }

    #[test]
    fn week_and_month_become_date_ranges() {
        let q = parse("deploy week:2026-W11").unwrap();
        assert_eq!(q.filters.after, Some(d("2026-03-09")));
        assert_eq!(q.filters.before, Some(d("2026-03-15")));
        let q = parse("month:2026-02 after:2026-02-10").unwrap();
        assert_eq!(q.filters.after, Some(d("2026-02-10")));
        assert_eq!(q.filters.before, Some(d("2026-02-28")));
    }

    #[test]
    fn unknown_prefixes_are_text() {
        let q = parse("error: http://x.y note:").unwrap();
        assert_eq!(q.text, vec!["error:", "http://x.y", "note:"]);
        assert!(q.filters.is_empty());
    }

    #[test]
    fn bad_filter_values_say_what_to_write() {
        for (input, says) in [
            ("type:bug", "unknown type `bug`"),
            ("level:hourly", "unknown level `hourly`"),
            ("after:2026-02-30", "not a date"),
            ("week:2026-W60", "not an ISO week"),
            ("month:2026-13", "not a month"),
            (
                "type:",
                "`type:` needs a value; write it like type:feedback",
            ),
            ("postgres level:,", "`level:` needs a value"),
            ("path:\"\"", "`path:` needs a value"),
        ] {
            let err = parse(input).unwrap_err().to_string();
            assert!(err.contains(says), "{input}: {err}");
        }
    }

    #[test]
    fn prose_is_all_words_whatever_it_looks_like() {
        let q = prose(r#"got "Address already in use" -9 type:bug +x"#);
        assert_eq!(
            q.text,
            [
                "got",
                "\"Address",
                "already",
                "in",
                "use\"",
                "-9",
                "type:bug",
                "+x"
            ]
        );
        assert!(q.required.is_empty() && q.excluded.is_empty() && q.filters.is_empty());
    }

    #[test]
    fn korean_and_lone_signs() {
        let q = parse("회의 - + 배포").unwrap();
        assert_eq!(q.text, vec!["회의", "-", "+", "배포"]);
    }
}
