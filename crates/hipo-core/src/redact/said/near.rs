//! A password said near a login's words, with no word for it: "the Canva
//! login is my studio email and LipowaPumpkin16!", "got into the Hetzner
//! panel with mira.k and Tangerine_Falcon81", "bank app login changed,
//! new one is Gdansk_nori700".
//!
//! The line must name a login (`login`, `signed in`, `account`, `admin`,
//! `console`, …, in a dozen languages), and the value must be made as
//! passwords are and words are not: capitals, small letters and two
//! digits or more together, and a symbol or three digits; not an address, a path, a
//! domain, a version or code. Product names (`iPhone15Pro`, `GPT-4o`)
//! have too few digits and no symbol.

use regex::Regex;
use std::ops::Range;
use std::sync::LazyLock;

/// The login words, whose line is read for a password.
pub(super) const ANCHORS: &[&str] = &[
    "login",
    "log in",
    "logged in",
    "log into",
    "logged into",
    "sign in",
    "signed in",
    "signin",
    "account",
    "creds",
    "credential",
    "admin",
    "console",
    "portal",
    "panel",
    "konto",
    "compte",
    "cuenta",
    "conta",
    "zugang",
    "inloggen",
    "logowanie",
    "giriş",
    "вход",
    "登录",
    "ログイン",
    "로그인",
];

pub(super) static RE: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(concat!(
        r"(?-u:\b)(?i-u:login|log in|logged in|log into|logged into|sign in|signed in|signin|accounts?|creds|credentials?|admin|console|portal|panel",
        r"|konto|compte|cuenta|conta|zugang|inloggen|logowanie)(?-u:\b)|(?i:giriş|вход)|登录|ログイン|로그인"
    ))
    .ok()
});

/// The passwords on the line of a login word at `at`.
pub(super) fn on_line(text: &str, at: usize) -> Vec<Range<usize>> {
    let start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    let end = text[at..].find('\n').map_or(text.len(), |i| at + i);
    let mut found = Vec::new();
    let mut pos = start;
    for token in text[start..end].split(|c: char| c.is_whitespace()) {
        let from = pos;
        pos += token.len() + 1;
        let lead = token.len()
            - token
                .trim_start_matches(['"', '\'', '`', '(', '[', '<', '«', '“'])
                .len();
        let body = token[lead..]
            .trim_end_matches(['"', '\'', '`', ')', ']', '>', '»', '”', ',', ';', ':', '.']);
        if made_as_passwords_are(body) {
            found.push(from + lead..from + lead + body.len());
        }
    }
    found
}

/// Capitals, small letters and two digits or more, and a symbol or three
/// digits (`Acme-Corp-5G`, an SSID, and `WPA3-Enterprise` have one);
/// 8 to 40 characters of printable ASCII; none of the shapes of an
/// address, a path, a domain, a version or code.
fn made_as_passwords_are(v: &str) -> bool {
    let core = v.trim_end_matches(['!', '?']);
    let bytes = core.as_bytes();
    let digits = bytes.iter().filter(|b| b.is_ascii_digit()).count();
    let symbol = v.bytes().any(|b| b"!@#$%^&*?_.+=~-".contains(&b));
    (8..=40).contains(&v.len())
        && v.bytes().all(|b| b.is_ascii_graphic())
        && bytes.iter().any(u8::is_ascii_uppercase)
        && bytes.iter().any(u8::is_ascii_lowercase)
        && digits >= 2
        && (symbol || digits >= 3)
        && !not_a_password(core)
}

/// An address, a path, a URL, a domain, a version, a date, code.
fn not_a_password(v: &str) -> bool {
    // A domain or a file: `api.Example2024.com`, `AuthKey_F5CV1SQW46.p8`.
    let domain = v.rsplit_once('.').is_some_and(|(head, tail)| {
        !head.is_empty()
            && (1..=6).contains(&tail.len())
            && tail
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
            && tail.bytes().any(|b| b.is_ascii_lowercase())
    });
    // An object's id: a short prefix in small letters, `_`, the rest
    // random (Stripe's `acct_1R5qDDGj9ylLgq2k`, `we_UMt70urZLPoijC`).
    let object_id = v.split_once('_').is_some_and(|(prefix, rest)| {
        (2..=6).contains(&prefix.len())
            && prefix.bytes().all(|b| b.is_ascii_lowercase())
            && rest.bytes().all(|b| b.is_ascii_alphanumeric())
    });
    v.contains("://")
        || v.contains([
            '/', '\\', '(', ')', '{', '}', '[', ']', '<', '>', ',', ';', '|',
        ])
        || v.contains("::")
        || v.contains("->")
        || (v.contains('@') && v.rsplit('@').next().is_some_and(|d| d.contains('.')))
        || domain
        || object_id
        || version_or_date(v)
        || hex_id(v)
}

/// An id in hex after a short prefix of capitals (Twilio's `AC` + 32
/// hex digits, a commit): random, but an id, not a password.
fn hex_id(v: &str) -> bool {
    let rest = v.trim_start_matches(|c: char| c.is_ascii_uppercase());
    v.len() - rest.len() <= 3 && rest.len() >= 16 && rest.bytes().all(|b| b.is_ascii_hexdigit())
}

/// A version or a date at the start (`2.3.1-Beta`, `v14.2_RC1`,
/// `2024-09-27`): digits joined by dots or dashes, after an optional `v`.
fn version_or_date(v: &str) -> bool {
    let rest = v.strip_prefix(['v', 'V']).unwrap_or(v);
    let digits = rest.len() - rest.trim_start_matches(|c: char| c.is_ascii_digit()).len();
    digits > 0
        && rest[digits..].starts_with(['.', '-'])
        && rest[digits + 1..].starts_with(|c: char| c.is_ascii_digit())
}

#[cfg(test)]
mod tests {
    use super::made_as_passwords_are;

    #[test]
    fn passwords_and_what_is_not_one() {
        for v in [
            "LipowaPumpkin16!",
            "Gdansk_nori700",
            "Tangerine_Falcon81",
            "Oyster.Hammock8528",
            "JuniperKawa06-",
            "MLjEOlzn4+5_Ld",
            "809Quokka!",
        ] {
            assert!(made_as_passwords_are(v), "{v}");
        }
        for v in [
            "iPhone15Pro",
            "GPT-4o",
            "RTX4090",
            "mira.kowalczyk@gmail.com",
            "api.Example2024.com",
            "v2.3.1-Beta",
            "getUser_v2",
            "2024-09-27",
            "src/Main2024.rs",
            "Password",
            "AuthKey_F5CV1SQW46.p8",
            "acct_1R5qDDGj9ylLgq2k",
            "ACe19db700ded69bc88d8aeb8f4ef6ddf9",
        ] {
            assert!(!made_as_passwords_are(v), "{v}");
        }
    }
}
