//! The checks a rule's would-be secret must pass ([`super::rules`]'s
//! third field), for formats that would otherwise catch prose, code or
//! identifiers: how random a value is, whether it reads as a credential,
//! a template's word, a flag.

use regex::Regex;
use std::sync::LazyLock;

/// True if a value is random enough to be a key rather than a word, a
/// path or an identifier: 16 characters or more, letters and digits
/// mixed, and at least 3.5 bits of Shannon entropy a character (a
/// 40-character hex digest has about 3.8, `correct_horse_battery` 3.4).
pub(super) fn high_entropy(value: &str) -> bool {
    let v = value.trim_end_matches(['.', ',', '=']);
    let letters = v.bytes().any(|b| b.is_ascii_alphabetic());
    let digits = v.bytes().any(|b| b.is_ascii_digit());
    v.len() >= 16 && letters && digits && entropy(v) >= 3.5
}

/// [`high_entropy`], or 24 hex digits or more (a hex key's sixteen
/// letters hold less than 3.5 bits a character in a short sample).
pub(super) fn key_like(value: &str) -> bool {
    let hex = value.len() >= 24
        && value.bytes().all(|b| b.is_ascii_hexdigit())
        && value.bytes().any(|b| b.is_ascii_digit())
        && value.bytes().any(|b| b.is_ascii_alphabetic());
    hex || high_entropy(value)
}

/// [`high_entropy`], and not a UUID (`SESSION_ID=268e1326-…` names a
/// session in a log; a cookie's value is random in its own alphabet).
pub(super) fn random_not_uuid(value: &str) -> bool {
    high_entropy(value) && !hex_uuid(value)
}

/// A UUID in its usual form: hex in groups of 8, 4, 4, 4 and 12.
pub(super) fn hex_uuid(v: &str) -> bool {
    let lens: Vec<usize> = v.split('-').map(str::len).collect();
    lens == [8, 4, 4, 4, 12] && v.bytes().all(|b| b == b'-' || b.is_ascii_hexdigit())
}

/// Shannon entropy in bits a byte.
pub(super) fn entropy(s: &str) -> f64 {
    let mut counts = [0u32; 256];
    for b in s.bytes() {
        counts[usize::from(b)] += 1;
    }
    let n = s.len() as f64;
    counts
        .iter()
        .filter(|&&c| c > 0)
        .map(|&c| {
            let p = f64::from(c) / n;
            -p * p.log2()
        })
        .sum()
}

/// True unless a URL's password is a template's word (`user:password@`,
/// `USER:PASSWORD@HOST`) or a placeholder (`:<password>@`, `:${PW}@`).
pub(super) fn not_a_placeholder_password(value: &str) -> bool {
    let words = ["password", "passwd", "pass", "pwd", "pw", "secret"];
    !(value.starts_with(['<', '$', '{']) || words.iter().any(|w| value.eq_ignore_ascii_case(w)))
}

/// True if an unquoted value reads as a credential rather than a word
/// (`password: required`): it holds a digit, a symbol, or a capital
/// after its first letter. Sentence punctuation at the end does not count.
pub(super) fn looks_like_credential(value: &str) -> bool {
    let v = value.trim_end_matches(['.', ',', '!', '?', ':', ';', ')']);
    let symbol = |c: char| !c.is_alphanumeric() && !matches!(c, '-' | '_' | '.' | '/');
    v.chars().any(|c| c.is_ascii_digit() || symbol(c))
        || (v.chars().any(char::is_lowercase) && v.chars().skip(1).any(char::is_uppercase))
}

/// [`looks_like_credential`], and not code that reads a secret from
/// elsewhere: `os.environ[`, `getenv(`, `Ident(s)`, `process.env.KEY`,
/// `settings.API_KEY`, or a type (`Option<String>`).
pub(super) fn credential_not_code(value: &str) -> bool {
    static CODE: LazyLock<Option<Regex>> = LazyLock::new(|| {
        Regex::new(concat!(
            r"^(?:[A-Za-z_$][A-Za-z0-9_$]*(?:\.[A-Za-z_$][A-Za-z0-9_$]*)*(?:[\[(<]|::)",
            r"|process\.env\.|os\.environ|ENV\[|\S*://",
            // A dotted path without digits: `settings.API_KEY`.
            r"|[A-Za-z_$][A-Za-z_$]*(?:\.[A-Za-z_$][A-Za-z_$]*)+$)"
        ))
        .ok()
    });
    looks_like_credential(value) && !CODE.as_ref().is_some_and(|re| re.is_match(value))
}

/// True unless the value is a number (`docker run -u 1000:1000` is a uid
/// and gid, not a user and password) or a template's word
/// (`-u username:password`).
pub(super) fn not_a_number_nor_a_word(value: &str) -> bool {
    !value.bytes().all(|b| b.is_ascii_digit()) && not_a_placeholder_password(value)
}

/// True unless an assigned value is a flag (`USE_TOKEN=true`).
pub(super) fn not_a_flag(value: &str) -> bool {
    !["true", "false", "none", "null", "unset", "empty"]
        .iter()
        .any(|w| value.eq_ignore_ascii_case(w))
}
