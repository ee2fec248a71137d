//! Whether a value said after a secret word is a secret: how much it
//! must look like one ([`Strength`]), and the things such words are also
//! followed by that are not secrets (paths, URLs, versions, placeholders…).

use regex::Regex;
use std::sync::LazyLock;

/// How much a value must look like a secret to be one.
#[derive(Clone, Copy, PartialEq, Debug)]
pub(super) enum Strength {
    /// A password, token or secret named and given with a verb.
    Named,
    /// A bare "key" ("the cache key is …"): long and random only.
    Weak,
    /// No verb between the word and the value: random or symbol-mixed only.
    Bare,
}

/// True if a value said after a secret word is a secret: long enough,
/// of mixed kinds of characters, and none of the things such words are
/// also followed by (paths, URLs, addresses, versions, dates, numbers,
/// hashes shorter than a token, identifiers of code, placeholders, key
/// bindings).
pub(super) fn looks_secret(v: &str, strength: Strength, passphrase: bool) -> bool {
    if v.len() < 6 || not_a_value(v) {
        return false;
    }
    let lower = v.bytes().any(|b| b.is_ascii_lowercase());
    let upper = v.bytes().any(|b| b.is_ascii_uppercase());
    let digit = v.bytes().any(|b| b.is_ascii_digit());
    // A comma is prose's punctuation ("pw, AaA, AA"), not a password's.
    let symbol = v
        .bytes()
        .any(|b| b.is_ascii_punctuation() && !matches!(b, b'-' | b'_' | b'.' | b'/' | b','));
    let letters = lower || upper;
    // A capital after a small letter (`iPxK`), not a capitalised word.
    let camel = v
        .as_bytes()
        .windows(2)
        .any(|w| w[0].is_ascii_lowercase() && w[1].is_ascii_uppercase());
    let hex = v.bytes().all(|b| b.is_ascii_hexdigit());
    if hex && v.len() < 32 {
        return false;
    }
    let segments: Vec<&str> = v
        .split(['-', '_', '.', '/'])
        .filter(|s| !s.is_empty())
        .collect();
    let mixed_segment = segments.iter().any(|s| mixed(s));
    let uuid = segments.len() == 5 && hex_uuid(v);
    let random = v.len() >= 16 && letters && digit && super::rules::entropy(v) >= 3.5;
    let phrase = passphrase
        && segments.len() >= 3
        && v.len() >= 15
        && segments
            .iter()
            .all(|s| s.bytes().all(|b| b.is_ascii_alphanumeric()));
    match strength {
        Strength::Weak => random && !uuid,
        Strength::Bare => {
            phrase
                || (random && !uuid)
                || (symbol && letters && (digit || camel) && v.len() >= 8)
                || (mixed_segment && letters && digit && v.len() >= 10)
        }
        Strength::Named => {
            phrase
                || random
                || (symbol && letters && (digit || camel))
                || (mixed_segment && letters && digit && v.len() >= 8)
        }
    }
}

/// A segment mixes letters and digits, or has a capital after a small
/// letter (`Tr0ub4dor`, `river28`, `iPxK`), where a word or a number
/// does not (`Falcon`, `4096`, `RSA`).
fn mixed(s: &str) -> bool {
    let letter = s.bytes().any(|b| b.is_ascii_alphabetic());
    let digit = s.bytes().any(|b| b.is_ascii_digit());
    let camel = s
        .as_bytes()
        .windows(2)
        .any(|w| w[0].is_ascii_lowercase() && w[1].is_ascii_uppercase());
    (letter && digit) || camel
}

fn hex_uuid(v: &str) -> bool {
    let lens: Vec<usize> = v.split('-').map(str::len).collect();
    lens == [8, 4, 4, 4, 12] && v.bytes().all(|b| b == b'-' || b.is_ascii_hexdigit())
}

/// Things a secret word is often followed by that are not secrets.
fn not_a_value(v: &str) -> bool {
    static NOT: LazyLock<Option<Regex>> = LazyLock::new(|| {
        Regex::new(concat!(
            // Placeholders and variables: <your-token>, ${X}, {{ x }}, $X, %X%.
            r"^(?:[<\[{(]|\$[{(]|\$[A-Za-z_][A-Za-z0-9_]*$|%\w+%$|YOUR_|your[-_]|REDACTED|CHANGEME|TODO)",
            // Words and numbers joined by colons: cache keys, scopes.
            r"|^[a-z]+(?::[a-z0-9]+)+$",
            // URLs, e-mail addresses, file names.
            r"|://|^//|^[^@\s]+@[^@\s]+\.[A-Za-z]{2,}$|^[\w-]+\.(?:[a-z]{2,5})$",
            // Versions, dates, times, addresses, numbers with a unit.
            r"|^v?\d+(?:\.\d+)+|\d+\.\d+\.\d+|^\d{4}-\d{2}-\d{2}|^\d{1,2}:\d{2}",
            r"|^\d{1,3}(?:\.\d{1,3}){3}|^\d+(?:[kKmMgG]|ms|s|h|d)?$",
            // Code: calls, paths of members, types, key bindings.
            r"|[()]|::|[A-Za-z]<[A-Za-z]|^[A-Za-z_$][A-Za-z0-9_$]*(?:\.[A-Za-z_$][A-Za-z0-9_$]*)+$",
            r"|^(?i:ctrl|cmd|alt|shift|meta|super|option)\+"
        ))
        .ok()
    });
    super::placeholder(v) || path(v) || NOT.as_ref().is_some_and(|re| re.is_match(v))
}

/// A path: slashes between names a person types (`~/.ssh/id_ed25519`,
/// `C:\Users\ops`, `secrets/prod.env`), where a key in base64 that holds
/// a slash has a capital after a small letter in its parts.
fn path(v: &str) -> bool {
    v.contains(['/', '\\'])
        && v.split(['/', '\\']).all(|s| {
            s.bytes()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-' | b'~' | b':'))
                && !s
                    .as_bytes()
                    .windows(2)
                    .any(|w| w[0].is_ascii_lowercase() && w[1].is_ascii_uppercase())
        })
}
