//! Whether a prompt points back at the shared past.
//!
//! "What did we figure out last time", "the lag alert went off again",
//! "remind me why we didn't just pg_upgrade": the user is saying the
//! answer was worked out before, which is what a memory holds. A prompt
//! about something else is put as a fresh request ("how do I write a helm
//! chart"). So a prompt that refers back takes the gate's lower relevance
//! floor ([`super::gate`]) when the memory holds it a little beyond chance
//! ([`super::gate::BEYOND_CHANCE_REFERRED`]): the cue says "it was worked
//! out before", the excess says this memory is about the prompt's subject
//! at all (a large memory, which holds a little of everything, is judged
//! at the floor). The passage must still hold a fifth of the prompt's
//! weight, so "again" said of something the memory never wrote stays
//! empty.
//!
//! The phrases are the plain ways English (and Korean, the other language
//! the sample memory is written in) marks a recurrence or a recollection
//! shared with the listener: "again", "last time", "previously", "remind
//! me", "remember", a question about what we or I did ("did we", "have
//! we", "did I"), what we decided or discussed, what you recommended. They
//! are matched as whole words on the prompt as typed, lower-cased.

/// Single words that refer back.
const WORDS: &[&str] = &[
    "again",
    "previously",
    "remind",
    "remember",
    "지난번",
    "저번",
    "다시",
];

/// Pairs of words that refer back, the first then the second.
const PAIRS: &[(&str, &[&str])] = &[
    ("last", &["time"]),
    ("did", &["we", "i", "you"]),
    ("didn't", &["we", "i", "you"]),
    ("have", &["we"]),
    ("haven't", &["we"]),
    ("had", &["we"]),
    ("hadn't", &["we"]),
    ("were", &["we"]),
    ("weren't", &["we"]),
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

/// Whether `prompt` refers back to something worked out before.
pub(super) fn refers_back(prompt: &str) -> bool {
    let words = words(prompt);
    words.iter().any(|w| WORDS.contains(&w.as_str()))
        || words.windows(2).any(|p| {
            PAIRS
                .iter()
                .any(|(first, then)| p[0] == *first && then.contains(&p[1].as_str()))
        })
}

/// The prompt's words, lower-cased; a pronoun's contraction reads as the
/// pronoun ("we've decided" is "we decided"), a negated question as
/// itself ("didn't we").
fn words(prompt: &str) -> Vec<String> {
    prompt
        .split(|c: char| !(c.is_alphanumeric() || c == '\'' || c == '\u{2019}'))
        .filter(|w| !w.is_empty())
        .map(|w| {
            // A typographic apostrophe (what phones and Macs type) is one.
            let w = w.to_lowercase().replace('\u{2019}', "'");
            match w.split_once('\'') {
                Some((pronoun @ ("we" | "i" | "you"), _)) => pronoun.to_string(),
                _ => w,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::refers_back;

    #[test]
    fn recurrences_and_recollections_refer_back() {
        for p in [
            "the split invoices job is timing out again",
            "what did we figure out last time about the deadlock?",
            "remind me why we didn't just pg_upgrade",
            "We've decided on a backoff, what was it?",
            "we\u{2019}ve agreed on a freeze, when does it start",
            "disk warnings paging at 82%, didn't we raise that threshold?",
            "which spirits you recommended for the home bar",
            "Did I ever send the invoice?",
            "외부 결제 대행사 타임아웃이 다시 늘고 있어요",
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
        ] {
            assert!(!refers_back(p), "{p}");
        }
    }
}
