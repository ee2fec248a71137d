//! Grounded acceptance: a well-formed answer is kept only when it is about
//! the text it was asked to summarise. Pure: the prompt and the answer in,
//! a reason out.
//!
//! Four checks, each cheap and each aimed at what a small model was seen
//! to do: enough of the sources' topic words appear in the answer; every
//! `[user]` and `[feedback]` item of the sources survives (a key word of
//! its heading); most of the answer's words come from the sources (no
//! invented subject); no bullet is repeated across sections; no run of
//! words is copied from the instructions.

use std::collections::HashSet;

/// Consecutive words shared with the instructions that make an echo.
const ECHO_WORDS: usize = 7;

/// An answer of at least this many content words must take at least
/// [`MIN_SOURCE_SHARE`] of them from the sources.
const MIN_CONTENT_WORDS: usize = 12;
const MIN_SOURCE_SHARE: f64 = 0.5;

/// A topic of the sources: its distinctive words, and whether it is a
/// `[user]` or `[feedback]` item.
#[derive(Debug)]
struct Topic {
    words: Vec<String>,
    must_keep: bool,
    title: String,
}

/// What an answer is checked against: the system prompt and the user
/// prompt (its instructions and sources) that were sent.
pub struct Grounds {
    topics: Vec<Topic>,
    /// Word stems of the sources.
    vocabulary: HashSet<String>,
    /// Runs of [`ECHO_WORDS`] words of the instructions.
    instructions: HashSet<Vec<String>>,
    /// Every `[user]` and `[feedback]` item must survive (not in ROOT's
    /// short narrative, which only has to name enough topics).
    keep_items: bool,
}

impl Grounds {
    /// Grounds for an answer to `system` + `user`. Everything before the
    /// first `=====` source header of `user` is instructions.
    pub fn new(system: &str, user: &str, keep_items: bool) -> Grounds {
        let (head, sources) = match user.find("\n=====") {
            Some(i) => user.split_at(i),
            None => ("", user),
        };
        let mut instructions = HashSet::new();
        for text in [system, head] {
            let w = words(text);
            for run in w.windows(ECHO_WORDS) {
                instructions.insert(run.to_vec());
            }
        }
        Grounds {
            topics: topics(sources),
            vocabulary: words(sources).iter().map(|w| stem(w)).collect(),
            instructions,
            keep_items,
        }
    }

    /// `Ok` when `answer` (Markdown with `## ` sections) is grounded;
    /// otherwise why not.
    pub fn check(&self, answer: &str) -> Result<(), String> {
        let lower = answer.to_lowercase();
        self.topics_covered(&lower)?;
        self.words_from_sources(answer)?;
        markup_fragment(answer)?;
        repeated_bullet(answer)?;
        self.echo(answer)
    }

    fn topics_covered(&self, lower: &str) -> Result<(), String> {
        let has = |t: &Topic| t.words.iter().any(|w| lower.contains(w.as_str()));
        let lost: Vec<&str> = self
            .topics
            .iter()
            .filter(|t| self.keep_items && t.must_keep && !has(t))
            .map(|t| t.title.as_str())
            .collect();
        if !lost.is_empty() {
            return Err(format!(
                "the answer drops user or feedback items of its sources: {}",
                lost.join("; ")
            ));
        }
        let n = self.topics.len();
        if n == 0 {
            return Ok(());
        }
        let need = n.div_ceil(3).clamp(1, 5);
        let covered = self.topics.iter().filter(|t| has(t)).count();
        if covered < need {
            return Err(format!(
                "the answer is not about its sources: it names {covered} of their {n} topics (at least {need} needed)"
            ));
        }
        Ok(())
    }

    fn words_from_sources(&self, answer: &str) -> Result<(), String> {
        let content: Vec<String> = words(answer)
            .into_iter()
            .filter(|w| w.chars().count() >= 4 && !is_stop(w) && !is_markup(w))
            .collect();
        if content.len() < MIN_CONTENT_WORDS {
            return Ok(());
        }
        let known = content
            .iter()
            .filter(|w| self.vocabulary.contains(&stem(w)))
            .count();
        let share = known as f64 / content.len() as f64;
        if share < MIN_SOURCE_SHARE {
            return Err(format!(
                "the answer is not about its sources: {:.0}% of its words are in them",
                share * 100.0
            ));
        }
        Ok(())
    }

    fn echo(&self, answer: &str) -> Result<(), String> {
        for line in answer.lines() {
            let w = words(line);
            if w.windows(ECHO_WORDS)
                .any(|run| self.instructions.contains(run))
            {
                return Err(format!(
                    "the answer repeats the instructions: `{}`",
                    line.trim().chars().take(80).collect::<String>()
                ));
            }
        }
        Ok(())
    }
}

/// A bullet holding a fence, a heading or JSON punctuation: pieces of the
/// prompt or of the answer's own format, not a fact.
fn markup_fragment(answer: &str) -> Result<(), String> {
    for line in answer.lines() {
        let Some(bullet) = line.trim().strip_prefix("- ") else {
            continue;
        };
        if ["```", "## ", "}]", "[{", "\":"]
            .iter()
            .any(|m| bullet.contains(m))
        {
            return Err(format!(
                "the answer holds fragments of markup: `{}`",
                bullet.chars().take(80).collect::<String>()
            ));
        }
    }
    Ok(())
}

/// The same bullet under two sections (a small model's way of filling
/// them all with one source line).
fn repeated_bullet(answer: &str) -> Result<(), String> {
    let mut seen: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
    for (i, section) in crate::markdown::sections(answer).iter().enumerate() {
        for line in section.body.lines() {
            let Some(bullet) = line.trim().strip_prefix("- ") else {
                continue;
            };
            // A topic line's details count as its text too.
            let details = bullet.split_once("]: ").map(|(_, d)| d);
            for text in std::iter::once(bullet).chain(details) {
                let key = words(text).join(" ");
                if key.len() < 12 {
                    continue;
                }
                match seen.insert(key, i) {
                    Some(j) if j != i => {
                        return Err(format!(
                            "the answer repeats a bullet across sections: `{}`",
                            bullet.chars().take(80).collect::<String>()
                        ));
                    }
                    _ => {}
                }
            }
        }
    }
    Ok(())
}

/// The sources' topics: `## Title [type]` headings and `- keyword [type]`
/// topic lines, with their distinctive words (a word in more than half of
/// the topics, like `session`, tells none apart).
fn topics(sources: &str) -> Vec<Topic> {
    let mut found: Vec<(String, bool)> = Vec::new();
    let mut seen = HashSet::new();
    for line in sources.lines() {
        let line = line.trim();
        let title = if let Some(h) = line.strip_prefix("## ").or(line.strip_prefix("### ")) {
            h
        } else if let Some(b) = line.strip_prefix("- ") {
            match b.find(']') {
                Some(end) if b[..end].contains(" [") => &b[..=end],
                _ => continue,
            }
        } else {
            continue;
        };
        let (name, kind) = crate::markdown::split_type_tag(title);
        if SECTION_TITLES.iter().any(|s| name.starts_with(s)) || !seen.insert(name.to_lowercase()) {
            continue;
        }
        let must_keep = matches!(
            kind,
            crate::markdown::EntryType::User | crate::markdown::EntryType::Feedback
        );
        found.push((name.to_string(), must_keep));
    }
    let all: Vec<Vec<String>> = found.iter().map(|(t, _)| key_words(t)).collect();
    let common: HashSet<&String> = all
        .iter()
        .flatten()
        .filter(|w| all.iter().filter(|ws| ws.contains(w)).count() * 2 > all.len().max(2))
        .collect();
    found
        .iter()
        .zip(&all)
        .map(|((title, must_keep), ws)| Topic {
            words: ws.iter().filter(|w| !common.contains(w)).cloned().collect(),
            must_keep: *must_keep,
            title: title.clone(),
        })
        .filter(|t| !t.words.is_empty())
        .collect()
}

/// Headings that are hipo's own sections, not topics.
const SECTION_TITLES: [&str; 8] = [
    "Topics",
    "Key Decisions",
    "Tasks Completed",
    "Lessons Learned",
    "Open Items",
    "Active Context",
    "Recent Patterns",
    "Historical Summary",
];

/// A title's key words: lowercase, at least 4 letters (2 for a CJK word),
/// no stop words, no ids (digits or `_`).
fn key_words(title: &str) -> Vec<String> {
    words(title)
        .into_iter()
        .filter(|w| {
            let cjk = !w.is_ascii();
            w.chars().count() >= if cjk { 2 } else { 4 }
                && !is_stop(w)
                && !w.chars().any(|c| c.is_ascii_digit() || c == '_')
        })
        .collect()
}

/// Lowercase words: runs of letters, digits and `_`.
fn words(text: &str) -> Vec<String> {
    text.split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect()
}

/// A crude stem: the first five characters, so `deploys` meets `deploy`.
fn stem(word: &str) -> String {
    word.chars().take(5).collect()
}

fn is_stop(w: &str) -> bool {
    const STOP: [&str; 24] = [
        "about", "after", "also", "been", "before", "from", "have", "into", "more", "none", "only",
        "over", "some", "than", "that", "them", "then", "there", "they", "this", "were", "what",
        "when", "with",
    ];
    STOP.contains(&w)
}

/// Words hipo's rendering adds: section names and entry tags.
fn is_markup(w: &str) -> bool {
    const MARKUP: [&str; 12] = [
        "topics",
        "decisions",
        "tasks",
        "completed",
        "lessons",
        "learned",
        "open",
        "items",
        "user",
        "feedback",
        "project",
        "reference",
    ];
    MARKUP.contains(&w)
}

#[cfg(test)]
mod tests;
