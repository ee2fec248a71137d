//! The sources' topics, and whether an answer kept one. Pure.
//!
//! A topic is an entry: a `## Title [type]` heading of a raw log (not a
//! `## Session s76b…` heading made of an id, not a `###` heading inside a
//! message) or a `- keyword [type]: details` line of a summary. An answer
//! keeps a topic when it names it (a key word of its title), or says its
//! substance (enough of the distinctive words of its body), or, for an
//! entry written in another script, keeps its names and numbers.

use super::{SECTION_TITLES, is_stop, stem, words};
use crate::markdown::{EntryType, split_type_tag};
use std::collections::HashSet;

/// A topic of the sources.
#[derive(Debug)]
pub(crate) struct Topic {
    pub title: String,
    /// Distinctive key words of the title.
    pub words: Vec<String>,
    /// Distinctive key words of its body (its substance).
    pub body: Vec<String>,
    /// Its names and numbers: of an entry mostly in another script, its
    /// Latin-script words and numbers (what survives a translation); else
    /// its capitalised names and numbers no other topic has.
    pub anchors: Vec<String>,
    /// Every key word of its title: all of them on one line of an answer
    /// name it, even when each is in other topics too.
    pub phrase: Vec<String>,
    /// The anchors are a translation's (one is enough), not names.
    pub foreign: bool,
    pub must_keep: bool,
}

/// Words of headings that tell no entry apart.
const NO_ENTRY: [&str; 8] = [
    "session",
    "sessions",
    "conversation",
    "chat",
    "transcript",
    "log",
    "notes",
    "date",
];

/// Common three-letter words: not key words (KST, Tom, AWS are).
const STOP3: [&str; 40] = [
    "the", "and", "for", "not", "are", "was", "has", "had", "but", "all", "any", "can", "use",
    "new", "one", "two", "our", "out", "get", "set", "put", "its", "who", "why", "how", "did",
    "may", "per", "via", "yes", "now", "off", "too", "own", "see", "let", "got", "run", "add",
    "day",
];

struct Raw {
    title: String,
    kind: EntryType,
    body: String,
}

/// The topics of `sources`, with their distinctive words: a word in more
/// than half of the titles (like `session`) tells none apart, and a body
/// word that is in another topic too is not its substance.
pub(crate) fn topics(sources: &str) -> Vec<Topic> {
    let raw = entries(sources);
    let titles: Vec<Vec<String>> = raw.iter().map(|r| key_words(&r.title)).collect();
    let bodies: Vec<Vec<String>> = raw.iter().map(|r| key_words(&r.body)).collect();
    let common: HashSet<&String> = titles
        .iter()
        .flatten()
        .filter(|w| titles.iter().filter(|ws| ws.contains(w)).count() * 2 > titles.len().max(2))
        .collect();
    let lower: Vec<String> = raw
        .iter()
        .map(|r| format!("{}\n{}", r.title, r.body).to_lowercase())
        .collect();
    let owners_text = |w: &String| {
        lower
            .iter()
            .filter(|t| words(t).iter().any(|x| x == w))
            .count()
    };
    let owners = |w: &String| {
        titles
            .iter()
            .zip(&bodies)
            .filter(|(t, b)| t.contains(w) || b.contains(w))
            .count()
    };
    raw.iter()
        .zip(titles.iter().zip(&bodies))
        .map(|(r, (t, b))| {
            let mut body: Vec<String> = b
                .iter()
                .filter(|w| !t.contains(w) && owners(w) == 1)
                .cloned()
                .collect();
            body.sort();
            body.dedup();
            // A title word another topic says too (`lock` of "Write the
            // lock order down" in a deadlock's details) does not tell this
            // one apart, unless no word of the title does.
            let own: Vec<String> = t
                .iter()
                .filter(|w| !common.contains(w) && owners(w) == 1)
                .cloned()
                .collect();
            let words = if own.is_empty() && body.is_empty() {
                t.iter().filter(|w| !common.contains(w)).cloned().collect()
            } else {
                own
            };
            Topic {
                title: r.title.clone(),
                words,
                anchors: {
                    let text = format!("{}\n{}", r.title, r.body);
                    let foreign = anchors(&text);
                    if foreign.is_empty() {
                        names(&text)
                            .into_iter()
                            .filter(|w| owners_text(w) == 1)
                            .collect()
                    } else {
                        foreign
                    }
                },
                phrase: t.iter().filter(|w| !common.contains(w)).cloned().collect(),
                foreign: !anchors(&format!("{}\n{}", r.title, r.body)).is_empty(),
                body,
                must_keep: matches!(r.kind, EntryType::User | EntryType::Feedback),
            }
        })
        .filter(|t| !t.words.is_empty() || !t.body.is_empty())
        .collect()
}

/// The entries of `sources`: titles, types and bodies.
fn entries(sources: &str) -> Vec<Raw> {
    let mut found: Vec<Raw> = Vec::new();
    let mut seen = HashSet::new();
    // Whether body lines belong to the last entry.
    let mut open = false;
    for line in sources.lines() {
        let t = line.trim();
        if t.starts_with("=====") || t.starts_with("# ") {
            open = false;
            continue;
        }
        let (title, details) = if let Some(h) = t.strip_prefix("## ") {
            (h, "")
        } else if let Some(b) = t.strip_prefix("- ")
            && let Some(end) = b.find(']')
            && b[..end].contains(" [")
        {
            (&b[..=end], b[end + 1..].trim_start_matches(':').trim())
        } else {
            if open && let Some(last) = found.last_mut() {
                last.body.push_str(t);
                last.body.push('\n');
            }
            continue;
        };
        let (name, kind) = split_type_tag(title);
        let is_heading = t.starts_with("## ");
        if SECTION_TITLES.iter().any(|s| name.starts_with(s))
            || (is_heading && tells_no_entry(name))
            || !seen.insert(name.to_lowercase())
        {
            // A section, a session heading or a topic again: its lines are
            // no entry's body.
            open = false;
            continue;
        }
        found.push(Raw {
            title: name.to_string(),
            kind,
            body: format!("{details}\n"),
        });
        open = is_heading;
    }
    found
}

/// A heading made of ids and words like `session`.
fn tells_no_entry(name: &str) -> bool {
    words(name).iter().all(|w| {
        NO_ENTRY.contains(&w.as_str()) || w.chars().any(|c| c.is_ascii_digit()) || w.len() < 2
    })
}

/// Key words: lowercase, at least 4 letters (2 for a non-Latin word), or
/// a shorter acronym or name as written (KST, CI, PR, Tom); no stop words,
/// no ids (digits or `_`).
pub(crate) fn key_words(text: &str) -> Vec<String> {
    text.split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .filter(|w| !w.is_empty() && !w.chars().any(|c| c.is_ascii_digit() || c == '_'))
        .filter_map(|w| {
            let lower = w.to_lowercase();
            let n = w.chars().count();
            let key = if !w.is_ascii() {
                n >= 2
            } else if n >= 4 {
                !is_stop(&lower)
            } else {
                let acronym = n >= 2 && w.chars().all(|c| c.is_ascii_uppercase());
                let name = n == 3
                    && w.starts_with(|c: char| c.is_ascii_uppercase())
                    && !STOP3.contains(&lower.as_str());
                acronym || name
            };
            key.then_some(lower)
        })
        .collect()
}

/// The numbers and Latin-script words of a text mostly in another script:
/// a translation keeps them. Empty for a Latin-script text.
fn anchors(text: &str) -> Vec<String> {
    let w = words(text);
    let foreign = w.iter().filter(|x| !x.is_ascii()).count();
    if foreign * 2 <= w.len() {
        return Vec::new();
    }
    // Runs of ASCII letters, digits and `-.:/`: `2027-01-03부터` keeps
    // its date whole.
    let mut out: Vec<String> = text
        .to_lowercase()
        .split(|c: char| !(c.is_ascii_alphanumeric() || "-.:/".contains(c)))
        .map(|x| x.trim_matches(|c: char| "-.:/".contains(c)))
        .filter(|x| {
            x.chars().any(|c| c.is_ascii_digit())
                || (x.len() >= 2 && x.chars().all(|c| c.is_ascii_alphabetic()))
        })
        .map(str::to_string)
        .collect();
    out.sort();
    out.dedup();
    out
}

/// Capitalised names (not a sentence's first word, not `I'm`) and
/// numbers of a Latin-script text, lowercase.
fn names(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for sentence in text.split(['.', '!', '?', '\n', ';', ':']) {
        for (i, w) in sentence
            .split(|c: char| !(c.is_alphanumeric() || c == '\''))
            .filter(|w| !w.is_empty())
            .enumerate()
        {
            let name = i > 0
                && w.chars().count() >= 3
                && w.starts_with(|c: char| c.is_ascii_uppercase())
                && !w.contains('\'')
                && !is_stop(&w.to_lowercase());
            let number = w.chars().count() >= 2 && w.chars().all(|c| c.is_ascii_digit());
            if name || number {
                out.push(w.to_lowercase());
            }
        }
    }
    out.sort();
    out.dedup();
    out
}

/// What an answer says, for matching words.
pub(crate) struct Said {
    lower: String,
    /// Each line's words.
    lines: Vec<HashSet<String>>,
    words: HashSet<String>,
    stems: HashSet<String>,
}

impl Said {
    pub(crate) fn new(answer: &str) -> Said {
        let words: HashSet<String> = words(answer).into_iter().collect();
        Said {
            lower: answer.to_lowercase(),
            lines: answer
                .lines()
                .map(|l| super::words(l).into_iter().collect())
                .collect(),
            stems: words
                .iter()
                .filter(|w| w.chars().count() >= 5)
                .map(|w| stem(w))
                .collect(),
            words,
        }
    }

    /// The answer holds `w`: as a word, by its stem (`timestamps` meets
    /// `times…`), or, for a word of another script (particles glued to
    /// it), anywhere.
    pub(crate) fn has(&self, w: &str) -> bool {
        if !w.is_ascii() {
            return self.lower.contains(w);
        }
        self.words.contains(w) || (w.len() >= 5 && self.stems.contains(&stem(w)))
    }

    /// The answer keeps `t`: names it, says its substance, or keeps the
    /// names and numbers of an entry in another script.
    pub(crate) fn keeps(&self, t: &Topic) -> bool {
        if t.words.iter().any(|w| self.has(w)) {
            return true;
        }
        if t.phrase.len() >= 2
            && self
                .lines
                .iter()
                .any(|l| t.phrase.iter().all(|w| l.contains(w)))
        {
            return true;
        }
        let hits = t.body.iter().filter(|w| self.has(w)).count();
        if hits >= 1 && hits * 3 >= t.body.len() {
            return true;
        }
        let anchored = t
            .anchors
            .iter()
            .filter(|a| self.has(a) || self.lower.contains(a.as_str()))
            .count();
        let enough = if t.foreign { 1 } else { 2 };
        t.anchors.len() >= enough && anchored * 2 >= t.anchors.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn session_and_message_headings_are_no_topics() {
        let t = topics(
            "## Session s1305df1291\nSession Date: 2023-04-02\nUser: hi\n### Preparation:\n- pack\n## Session b_2\n## Charity events in LA [user]\n- Strut Your Mutt in September\n",
        );
        assert_eq!(t.len(), 1, "{t:?}");
        assert_eq!(t[0].words, ["charity", "events", "la"]);
        assert!(t[0].must_keep);
    }

    #[test]
    fn short_words_and_acronyms_count() {
        assert_eq!(
            key_words("Use KST in all timestamps, ask Tom about CI and the PR"),
            ["kst", "timestamps", "tom", "ci", "pr"]
        );
    }

    #[test]
    fn an_item_is_kept_by_its_substance_or_its_names_and_numbers() {
        let t = topics(
            "## Use KST in all timestamps [feedback]\n- rule: every log line and report shows times in Korea Standard Time\n## 지수 온콜 합류 [user]\n- 지수는 2027-01-03부터 Grafana 알림을 받는다\n",
        );
        let kst = Said::new("- Time zone convention [feedback]: write times in KST with the zone");
        assert!(kst.keeps(&t[0]));
        let reworded =
            Said::new("- Time zone convention [feedback]: reports show Korea Standard Time");
        assert!(reworded.keeps(&t[0]));
        let translated =
            Said::new("- Jisoo joins on-call [user]: gets Grafana alerts from 2027-01-03");
        assert!(translated.keeps(&t[1]));
        let lost = Said::new("- Postgres cutover [project]: done on 2027-01-09");
        assert!(!lost.keeps(&t[0]) && !lost.keeps(&t[1]));
    }
}
