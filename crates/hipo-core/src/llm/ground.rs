//! Grounded acceptance: a well-formed answer is kept only when it is about
//! the text it was asked to summarise. Pure: the prompt and the answer in,
//! a reason out.
//!
//! Form is repaired first ([`repair`]): filler sections are empty, a bullet
//! said again is dropped. Then only what a reader would refuse is refused:
//! an answer that names too few of the sources' topics or takes most of
//! its words from elsewhere (an invented subject); one that loses a
//! `[user]` or `[feedback]` item ([`topics`]: kept when named, or when its
//! substance or, across languages, its names and numbers are kept); mass
//! repetition; fragments of markup; a run of words copied from the
//! instructions.

mod repair;
mod topics;

pub(crate) use repair::{mass_repetition, normalise};
use std::collections::HashSet;
use topics::{Said, Topic, topics};

/// Consecutive words shared with the instructions that make an echo.
const ECHO_WORDS: usize = 7;

/// An answer of at least this many content words must take at least
/// [`MIN_SOURCE_SHARE`] of them from the sources.
const MIN_CONTENT_WORDS: usize = 12;
const MIN_SOURCE_SHARE: f64 = 0.5;

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
        // Why a previous answer was refused quotes the answer, not the
        // instructions: saying it again is no echo.
        let head: String = head
            .lines()
            .filter(|l| !l.starts_with(super::prompt::RETRY_NOTE))
            .collect::<Vec<_>>()
            .join("\n");
        let head = head.as_str();
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
    /// Run it on an answer whose form was repaired ([`normalise`]); mass
    /// repetition is judged here on the answer as given.
    pub fn check(&self, answer: &str) -> Result<(), String> {
        self.topics_covered(&Said::new(answer))?;
        self.words_from_sources(answer)?;
        mass_repetition(&normalise(answer))?;
        markup_fragment(answer)?;
        self.echo(answer)
    }

    fn topics_covered(&self, said: &Said) -> Result<(), String> {
        let has = |t: &Topic| said.keeps(t);
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

/// Headings that are hipo's own sections, not topics.
pub(crate) const SECTION_TITLES: [&str; 8] = [
    "Topics",
    "Key Decisions",
    "Tasks Completed",
    "Lessons Learned",
    "Open Items",
    "Active Context",
    "Recent Patterns",
    "Historical Summary",
];

/// Lowercase words: runs of letters, digits and `_`.
pub(crate) fn words(text: &str) -> Vec<String> {
    text.split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect()
}

/// A crude stem: the first five characters, so `deploys` meets `deploy`.
pub(crate) fn stem(word: &str) -> String {
    word.chars().take(5).collect()
}

pub(crate) fn is_stop(w: &str) -> bool {
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
