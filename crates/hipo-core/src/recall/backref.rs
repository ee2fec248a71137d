//! Whether a prompt points back at the shared past.
//!
//! "What did we figure out last time", "the lag alert went off again",
//! "remind me why we didn't just pg_upgrade": the user is saying the
//! answer was worked out before, which is what a memory holds. A prompt
//! about something else is put as a fresh request ("how do I write a helm
//! chart"). So a prompt that points back takes the gate's lower relevance
//! floor ([`super::gate`]) when the memory holds it a little beyond chance
//! ([`super::gate::BEYOND_CHANCE_POINTING_BACK`]): the cue says "it was
//! worked out before", the excess says this memory is about the prompt's
//! subject at all (a large memory, which holds a little of everything, is
//! judged at the floor). The passage must still hold a fifth of the
//! prompt's weight, so "again" said of something the memory never wrote
//! stays empty.
//!
//! The phrases are the plain ways English marks a recurrence or a
//! recollection shared with the listener: "again", "last time",
//! "previously", "remind me", "remember", a question about what we or I
//! did ("did we", "didn't we", "have we", "did I"), what we decided or
//! discussed, what you recommended. They are matched as whole words on the
//! prompt as the user typed it, lower-cased: text in backticks or double
//! quotes is pasted ("error: please try again"), not the user speaking,
//! and is left out. Korean cues are not matched: a prompt's CJK words
//! count in neither share of `beyond_chance`, so an all-Korean prompt is
//! never held beyond chance and a cue could not act on it.

/// Single words that point back.
const WORDS: &[&str] = &["again"];

/// Words that point back unless a request for later follows: "remind me
/// why we …" and "remember the backoff we …" point back; "remind me to
/// deploy" and "remember to run clippy" ask for something ahead.
const RECALLING: &[&str] = &["remind", "remember"];

/// Pairs of words that point back, the first then the second.
const PAIRS: &[(&str, &[&str])] = &[
    ("last", &["time"]),
    ("did", &["we", "i", "you"]),
    ("didn't", &["we", "i", "you"]),
    ("didnt", &["we", "i", "you"]),
    ("have", &["we"]),
    ("haven't", &["we"]),
    ("havent", &["we"]),
    ("had", &["we"]),
    ("hadn't", &["we"]),
    ("hadnt", &["we"]),
    ("were", &["we"]),
    ("weren't", &["we"]),
    ("werent", &["we"]),
    (
        "we",
        &[
            "decided",
            "agreed",
            "discussed",
            "settled",
            "chose",
            "picked",
            "figured",
            "talked",
            "went",
            "ended",
            "landed",
        ],
    ),
    (
        "you",
        &[
            "recommended",
            "suggested",
            "mentioned",
            "told",
            "gave",
            "helped",
        ],
    ),
    ("i", &["mentioned", "told", "asked"]),
];

/// Whether `prompt` points back at something worked out before.
pub(super) fn refers_back(prompt: &str) -> bool {
    let words = words(&spoken(prompt));
    let at = |i: usize| words.get(i).map(String::as_str);
    words.iter().enumerate().any(|(i, w)| {
        let next = at(i + 1);
        if WORDS.contains(&w.as_str()) {
            return true;
        }
        if RECALLING.contains(&w.as_str()) {
            let then = if matches!(next, Some("me" | "us")) {
                i + 2
            } else {
                i + 1
            };
            return at(then) != Some("to");
        }
        // "the previously selected merchant": an adjective's adverb, not a
        // recollection ("previously we had a pre-commit hook").
        if w == "previously" {
            return !next.is_some_and(|n| n.ends_with("ed"));
        }
        PAIRS
            .iter()
            .any(|(first, then)| w == first && next.is_some_and(|n| then.contains(&n)))
    })
}

/// The prompt without what it quotes: spans in backticks or double quotes
/// (straight or typographic) are pasted text, an error or a command.
fn spoken(prompt: &str) -> String {
    let mut out = String::with_capacity(prompt.len());
    let mut closing = None;
    for c in prompt.chars() {
        match (closing, c) {
            (None, '`' | '"') => closing = Some(c),
            (None, '\u{201C}') => closing = Some('\u{201D}'),
            (None, _) => out.push(c),
            (Some(end), _) if c == end => {
                closing = None;
                out.push(' ');
            }
            (Some(_), _) => {}
        }
    }
    out
}

/// The prompt's words, lower-cased, a typographic apostrophe read as one
/// and quoting apostrophes trimmed (`'again'`, "last time's fix"). "We've"
/// and "we'd" read as "we" ("we've decided" is "we decided"); other
/// contractions stay whole ("I'm told" is not "I told"), a negated question
/// too ("didn't we").
fn words(prompt: &str) -> Vec<String> {
    prompt
        .split(|c: char| !(c.is_alphanumeric() || c == '\'' || c == '\u{2019}'))
        .map(|w| {
            let w = w.to_lowercase().replace('\u{2019}', "'");
            let w = w.trim_matches('\'');
            let w = w.strip_suffix("'s").unwrap_or(w);
            match w.split_once('\'') {
                Some((pronoun @ ("we" | "i" | "you"), "ve" | "d")) => pronoun.to_string(),
                _ => w.to_string(),
            }
        })
        .filter(|w| !w.is_empty())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::refers_back;

    #[test]
    fn recurrences_and_recollections_point_back() {
        for p in [
            "the split invoices job is timing out again",
            "what did we figure out last time about the deadlock?",
            "what was last time's fix for the lag alert",
            "remind me why we didn't just pg_upgrade",
            "We've decided on a backoff, what was it?",
            "we\u{2019}ve agreed on a freeze, when does it start",
            "disk warnings paging at 82%, didn't we raise that threshold?",
            "didnt we raise that threshold",
            "'did we fix it?'",
            "which spirits you recommended for the home bar",
            "remember the backoff we picked for the payment API?",
            "previously we had a husky pre-commit hook",
            "Did I ever send the invoice?",
        ] {
            assert!(refers_back(p), "{p}");
        }
    }

    #[test]
    fn fresh_requests_do_not() {
        for p in [
            "how do I write a helm chart for a kubernetes cron job",
            "can we deploy the hotfix this friday?",
            "what's the last item in the list",
            "did the build pass",
            "we need a retry policy for the payment API",
            "how do I get red wine out of a carpet",
            "remind me to deploy the hotfix tomorrow",
            "remember to run clippy before you commit",
            "I'm told the api is rate limited",
            "the dropdown should keep the previously selected merchant",
            "vault login fails with `Error: permission denied, please try again`",
            "the CLI says \"did you mean lock_orders?\"",
            "외부 결제 대행사 타임아웃이 다시 늘고 있어요",
        ] {
            assert!(!refers_back(p), "{p}");
        }
    }
}
