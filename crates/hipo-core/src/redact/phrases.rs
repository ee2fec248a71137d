//! Values of plain words, which only their place says are secrets: a
//! value in quotes, a passphrase of words ("correct horse battery
//! staple"), a security question's answer ("Biscuit McFluffington"), one
//! word given as a password ("the admin pw is quietstorm"). What keeps
//! prose out is grammar: such values hold no word of grammar, no word
//! that says something about the secret, and no adjective.

use super::value::not_a_value;

/// Words of grammar and words about a secret ("is stored in the vault",
/// "is twelve random words", "is the same as before").
const PROSE: &[&str] = &[
    "not",
    "no",
    "in",
    "on",
    "at",
    "the",
    "a",
    "an",
    "to",
    "of",
    "for",
    "is",
    "are",
    "be",
    "been",
    "was",
    "were",
    "and",
    "or",
    "but",
    "with",
    "from",
    "by",
    "as",
    "it",
    "its",
    "this",
    "that",
    "stored",
    "kept",
    "saved",
    "required",
    "set",
    "same",
    "different",
    "written",
    "shared",
    "sent",
    "also",
    "still",
    "now",
    "here",
    "there",
    "where",
    "when",
    "what",
    "which",
    "who",
    "you",
    "your",
    "my",
    "our",
    "their",
    "his",
    "her",
    "we",
    "they",
    "i",
    "do",
    "does",
    "did",
    "have",
    "has",
    "had",
    "will",
    "would",
    "should",
    "can",
    "could",
    "please",
    "ask",
    "check",
    "see",
    "use",
    "used",
    "words",
    "word",
    "characters",
    "chars",
    "letters",
    "digits",
    "numbers",
    "long",
    "short",
    "random",
    "secure",
    "strong",
    "weak",
    "very",
    "too",
];

/// Words a password is said to be that are not one ("the password is
/// wrong", "… is blank.", "… is here:").
const PREDICATES: &[&str] = &[
    "wrong",
    "incorrect",
    "correct",
    "invalid",
    "valid",
    "optional",
    "missing",
    "empty",
    "blank",
    "unset",
    "weak",
    "strong",
    "short",
    "long",
    "secure",
    "insecure",
    "fine",
    "okay",
    "good",
    "bad",
    "broken",
    "unknown",
    "known",
    "private",
    "public",
    "temporary",
    "permanent",
    "default",
    "random",
    "visible",
    "hidden",
    "available",
    "unavailable",
    "needed",
    "necessary",
    "mandatory",
    "active",
    "inactive",
    "stale",
    "outdated",
    "same",
    "different",
    "here",
    "there",
    "below",
    "above",
    "inside",
    "elsewhere",
    "right",
    "gone",
    "lost",
    "forgotten",
    "unclear",
    "obvious",
    "simple",
    "complex",
    "complicated",
    "easy",
    "hard",
    "impossible",
    "identical",
    "similar",
    "whatever",
    "something",
    "nothing",
    "anything",
    "everything",
    "none",
    "null",
    "pending",
    "written",
    "ready",
    "done",
    "fixed",
    "working",
    "failing",
    "required",
    "secret",
    "sensitive",
    "confidential",
    "unchanged",
    "updated",
    "attached",
    "included",
    "vault",
    "separate",
    "shorter",
    "longer",
    "stronger",
    "weaker",
    "better",
    "worse",
    "great",
    "terrible",
    "awful",
    "annoying",
    "ridiculous",
    "useless",
    "weird",
    "strange",
    "odd",
    "new",
    "old",
    "current",
    "previous",
    "next",
    "last",
    "first",
    "second",
    "third",
    "final",
    "changeme",
    "password",
    "passwd",
    "token",
    "yesterday",
    "today",
    "tomorrow",
    "tonight",
    "earlier",
    "later",
    "recently",
    "already",
    "again",
    "soon",
    "weekly",
    "monthly",
    "daily",
    "yearly",
    "somewhere",
    "everywhere",
    "anywhere",
    "nowhere",
    "anyway",
    "though",
    "either",
    "neither",
    "instead",
    "meanwhile",
    "otherwise",
    "enclosed",
    "upstairs",
    "offline",
    "online",
    "expired",
    "expiring",
];

/// A word prose uses as an adjective or participle ("case-sensitive",
/// "encrypted", "expiring", "reusable").
pub(super) fn adjective(word: &str) -> bool {
    const ENDINGS: &[&str] = &[
        "ed", "ing", "ive", "ble", "ous", "ful", "less", "ic", "ly", "al", "ent", "ant",
    ];
    let w = word.to_ascii_lowercase();
    ENDINGS.iter().any(|e| w.ends_with(e))
}

/// Whether `rest` (what follows a value) ends the clause: the line's
/// end, a sentence's or an aside's punctuation, a dash.
fn clause_ends(rest: &str) -> bool {
    // Glued to the word, a dot or a bracket is code (`getpass.getpass`,
    // `getpass()`).
    if rest.starts_with(['(', '[']) || rest.starts_with('.') && !full_stop(&rest[1..]) {
        return false;
    }
    let t = rest.trim_start_matches(' ');
    t.is_empty()
        || t.starts_with(['.', ',', ';', '!', '?', '(', ')', '\n', '—', '–'])
        || t.starts_with("- ")
}

/// What follows a dot ends a sentence: nothing, or a space.
fn full_stop(after: &str) -> bool {
    after.is_empty() || after.starts_with([' ', '\n'])
}

/// The inside of a quoted value at the start of `rest` (`'granite owl
/// whisper'`, `"mirror lake 2021"`): its range in `rest`, when it closes
/// on the line within 64 bytes and holds at most five words (twelve for
/// a passphrase).
pub(super) fn quoted(rest: &str, passphrase: bool) -> Option<std::ops::Range<usize>> {
    let open = rest.chars().next()?;
    let close = match open {
        '"' | '\'' | '`' => open,
        '“' => '”',
        '‘' => '’',
        _ => return None,
    };
    let start = open.len_utf8();
    let len = rest[start..].find(close)?;
    let inner = &rest[start..start + len];
    let ok = (4..=96).contains(&inner.len())
        && !inner.contains('\n')
        && inner == inner.trim()
        && inner.split_whitespace().count() <= if passphrase { 12 } else { 5 }
        // "the password is 'password'": the word itself, said in jest.
        && !["password", "passwd", "pass", "secret", "token", "pin"]
            .contains(&inner.to_lowercase().as_str())
        && !super::placeholder(inner)
        && !not_a_value(inner);
    ok.then_some(start..start + len)
}

/// The start of `rest` up to the clause's punctuation, and its words.
fn clause_words(rest: &str) -> (&str, Vec<&str>) {
    let stop = rest
        .find([',', '.', ';', '(', '!', '?', '"', '`'])
        .unwrap_or(rest.len());
    let clause = rest[..stop].trim_end();
    (clause, clause.split_whitespace().collect())
}

/// The length of a passphrase of plain words at the start of `rest`, up
/// to the clause's end ("correct horse battery staple", "tangerine sky
/// over wool, all lowercase"): three to twenty-four words of letters,
/// none of them grammar or words about the phrase ("is stored in the
/// vault", "is twelve random words").
pub(super) fn spaced_words(rest: &str) -> Option<usize> {
    let (phrase, words) = clause_words(rest);
    let plain = words.iter().all(|w| {
        w.bytes().all(|b| b.is_ascii_alphabetic())
            && !PROSE.contains(&w.to_ascii_lowercase().as_str())
    });
    ((3..=24).contains(&words.len()) && plain).then_some(phrase.len())
}

/// The length of a security question's answer at the start of `rest`:
/// one to four words to the clause's end ("Fitzwilliam", "Mrs Okonkwo",
/// "Biscuit McFluffington"), none of grammar, none an adjective.
pub(super) fn answer_words(rest: &str) -> Option<usize> {
    let (answer, words) = clause_words(rest);
    let plain = words.iter().all(|w| {
        w.chars()
            .all(|c| c.is_alphabetic() || matches!(c, '-' | '\''))
            && !PROSE.contains(&w.to_lowercase().as_str())
            && !PREDICATES.contains(&w.to_lowercase().as_str())
            && !adjective(w)
    });
    let first = words.first().is_some_and(|w| w.chars().count() >= 3);
    ((1..=4).contains(&words.len()) && plain && first).then_some(answer.len())
}

/// The length of one plain word given as a password at the start of
/// `rest` ("the admin pw is quietstorm, one word"): five letters or more,
/// the clause ending after it, not a word prose says of a password
/// ("wrong", "expired", "here").
pub(super) fn plain_word(rest: &str) -> Option<usize> {
    let len = rest
        .find(|c: char| !c.is_ascii_alphabetic())
        .unwrap_or(rest.len());
    let word = &rest[..len];
    let lower = word.to_ascii_lowercase();
    // A word, not an identifier: `secretKeyRef` is code.
    let camel = word
        .as_bytes()
        .windows(2)
        .any(|w| w[0].is_ascii_lowercase() && w[1].is_ascii_uppercase());
    if camel {
        return None;
    }
    let prose = PROSE.contains(&lower.as_str())
        || PREDICATES.contains(&lower.as_str())
        || adjective(word)
        || not_a_value(word);
    (len >= 5 && !prose && clause_ends(&rest[len..])).then_some(len)
}
