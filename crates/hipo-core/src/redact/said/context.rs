//! What the words around a value say of it: a code word made public by
//! the word before it, a shell variable's name, a sign that gives an
//! answer, a name with a suffix, a time of day, a number that goes on to
//! its unit.

use crate::redact::names::NOT_SECRET_CODES;

/// True if the word before a bare code word at `at` says the code is
/// public: `error code`, `zip code`, `source code` ([`NOT_SECRET_CODES`]).
pub(super) fn public_code(text: &str, at: usize) -> bool {
    let before = text[..at].trim_end_matches([' ', '_', '-']);
    let word = before
        .rsplit(|c: char| !c.is_alphanumeric())
        .next()
        .unwrap_or_default()
        .to_lowercase();
    NOT_SECRET_CODES.contains(&word.as_str())
}

/// True if `before` ends inside a shell variable's name (`${DB_`).
pub(super) fn in_variable(before: &str) -> bool {
    let name = before.trim_end_matches(|c: char| c.is_ascii_alphanumeric() || c == '_');
    name.ends_with("${")
}

/// True if a sign, not a word, gives the value after `between`: a
/// security question in another language gives its answer after a colon
/// or an arrow ("güvenlik sorusu (…): Pamuk"), where a verb is as often
/// prose ("la question secrète, elle est dans Bitwarden").
pub(super) fn signed(between: &str) -> bool {
    between.contains([':', '：', '→', '='])
}

/// True if `v` is a word with a suffix after an apostrophe, as Turkish
/// writes one onto a name ("1Password'de", "GitHub'a"): a name said in a
/// sentence, not a value.
pub(super) fn suffixed(v: &str) -> bool {
    v.rsplit_once(['\'', '’']).is_some_and(|(head, tail)| {
        !head.is_empty()
            && (1..=4).contains(&tail.len())
            && tail.chars().all(|c| c.is_alphabetic() && c.is_lowercase())
    })
}

/// True if `v` reads as a time of day, `0630` or `2215`: what an alarm
/// is set to, not its code.
pub(super) fn clock_time(v: &str) -> bool {
    let b = v.as_bytes();
    let n = |i: usize| b.get(i).map_or(99, |d| d.wrapping_sub(b'0'));
    b.len() == 4 && b.iter().all(u8::is_ascii_digit) && n(0) * 10 + n(1) < 24 && n(2) < 6
}

/// True if what follows a code's digits ends the clause or goes on to
/// something else ("7391 then hit #", "1562.", "9016 puis la touche"),
/// where a number that is not a code goes on to its unit or noun ("the
/// code is 4000 lines").
pub(super) fn ends_there(rest: &str) -> bool {
    let rest = rest.trim_start_matches([' ', '#']);
    let word: String = rest
        .chars()
        .take_while(|c| c.is_alphabetic())
        .collect::<String>()
        .to_lowercase();
    if word.is_empty() {
        return true;
    }
    [
        "then",
        "and",
        "but",
        "or",
        "to",
        "for",
        "on",
        "at",
        "if",
        "so",
        "it",
        "which",
        "in",
        "puis",
        "et",
        "poi",
        "e",
        "y",
        "en",
        "und",
        "dann",
        "plus",
        "ve",
        "hai",
    ]
    .contains(&word.as_str())
        // Korean's and Hindi's endings (`입니다`, `है`), and any word in a
        // script the list does not hold.
        || !word.is_ascii()
}
