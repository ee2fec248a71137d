//! Whether a value said after a secret word is a secret: how much it
//! must look like one ([`Strength`]), and the things such words are also
//! followed by that are not secrets (paths, URLs, versions, placeholders…).

use super::names::Names;
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
    let uuid = segments.len() == 5 && super::checks::hex_uuid(v);
    let random = v.len() >= 16 && letters && digit && super::checks::entropy(v) >= 3.5;
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

/// Things a secret word is often followed by that are not secrets.
pub(super) fn not_a_value(v: &str) -> bool {
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
    // Where a password is kept, not the password ("it's in 1Password").
    const MANAGERS: &[&str] = &[
        "1password",
        "lastpass",
        "bitwarden",
        "keepass",
        "keepassxc",
        "dashlane",
        "keychain",
        "passbolt",
    ];
    super::placeholder(v)
        || MANAGERS.contains(&v.to_ascii_lowercase().as_str())
        || path(v)
        || NOT.as_ref().is_some_and(|re| re.is_match(v))
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

/// True if `v`, given after a secret word that names `names` (with a
/// verb or sign when `strength` is [`Strength::Named`]), is a secret of
/// that kind though it does not look random ([`looks_secret`] says
/// whether it does): words joined as people make passwords, words run
/// together, a PIN's digits.
pub(super) fn looks_made_up(v: &str, strength: Strength, names: Names) -> bool {
    // A PIN's digits, or a password of digits given with a verb ("the
    // password is 20190418").
    let code = match names {
        Names::Pin => strength != Strength::Weak,
        Names::Password | Names::Code => strength == Strength::Named,
        Names::Other | Names::Answer => false,
    };
    if code && digits_code(v) {
        return true;
    }
    if names == Names::Code {
        return false;
    }
    // A code of letters and digits: "Xr7pQ2", "46B19", "ZK4-P9Q-7MT".
    if names == Names::Pin && strength == Strength::Named && letters_code(v) {
        return true;
    }
    if v.len() < 6 || not_a_value(v) {
        return false;
    }
    match (names, strength) {
        (Names::Password, Strength::Named) => {
            joined_words(v, 2)
                || run_together(v)
                || word_and_number(v)
                || mixed_hex(v)
                || words_and_symbols(v)
                || paired_password(v)
        }
        // Without a verb, letters and dots alone are never enough:
        // "pw,AaAaAAaaaA" (found by `properties::prose_is_never_redacted`).
        (Names::Password, Strength::Bare) => {
            let digit = v.bytes().any(|b| b.is_ascii_digit());
            (joined_words(v, 3) && (digit || v.contains(['-', '_'])))
                || (joined_words(v, 2) && digit)
                || camel_and_digits(v)
                || paired_password(v)
        }
        // A passcode may be a password too ("passcode Thistle@Dawn"); but
        // a combo or a code given with "to" is as often prose ("a rod and
        // reel combo with a medium to medium-heavy action").
        (Names::Pin, Strength::Bare) => {
            looks_made_up(v, strength, Names::Password) || recovery_code(v, 2)
        }
        (Names::Pin, Strength::Named) => words_and_symbols(v),
        // A recovery key of many groups (BitLocker's eight of six digits).
        (Names::Other, Strength::Named) => joined_words(v, 3) || recovery_code(v, 3),
        _ => false,
    }
}

/// Words with symbols inside (`Sky!Bridge!Falcon`, `Hello#World`): a
/// password's shape, where prose ends a word with its punctuation.
fn words_and_symbols(v: &str) -> bool {
    let inner = v.trim_end_matches(|c: char| c.is_ascii_punctuation());
    v.len() >= 8
        && inner.bytes().any(|b| b.is_ascii_alphabetic())
        && inner.bytes().any(|b| {
            matches!(
                b,
                b'!' | b'@' | b'#' | b'$' | b'%' | b'^' | b'&' | b'*' | b'+' | b'=' | b'?' | b'~'
            )
        })
        && !inner.contains(['[', '(', '{', '<'])
}

/// A code of letters and digits (`Xr7pQ2`, `46B19`, `ZK4-P9Q-7MT`): up
/// to four groups of at most six, 4 to 12 characters in all, a digit
/// among them, no group a word ("6-digits", "4-digit").
fn letters_code(v: &str) -> bool {
    let groups: Vec<&str> = v.split('-').collect();
    let total: usize = groups.iter().map(|g| g.len()).sum();
    groups.len() <= 4
        && (4..=12).contains(&total)
        && groups.iter().all(|g| {
            !g.is_empty()
                && g.len() <= 6
                && g.bytes().all(|b| b.is_ascii_alphanumeric())
                && !(g.len() >= 4 && g.bytes().all(|b| b.is_ascii_alphabetic()))
        })
        && v.bytes().any(|b| b.is_ascii_digit())
        && v.bytes().any(|b| b.is_ascii_alphabetic())
}

/// A password by its shape alone, with no word naming it: capitals, small
/// letters, digits and a symbol of a password's (`Pumpkin$Spice9`,
/// `Ch@rlie-Br0wn!`, `Bonsai#Tree#14`), 8 to 32 characters, a letter or
/// digit first (`#tag`, `@name`, `$VAR`, `*bold*` are not), and none of
/// code's pairs of signs (`&&`, `!=`, `==`, `->`, `**`).
pub(super) fn password_shape(v: &str) -> bool {
    // A sentence's `!` is not a password's: "the Galaxy Watch Active2!".
    let v = v.trim_end_matches(['!', '?']);
    const CODE: &[&str] = &[
        "&&", "||", "!=", "==", "+=", "-=", "*=", "=>", "->", "**", "##", "$$", "%%", "^^",
    ];
    (8..=32).contains(&v.len())
        && v.bytes().any(|b| b.is_ascii_uppercase())
        && v.bytes().any(|b| b.is_ascii_lowercase())
        && v.bytes().any(|b| b.is_ascii_digit())
        && v.bytes().any(|b| b"!@#$%^&*".contains(&b))
        && !CODE.iter().any(|c| v.contains(c))
        // A URL's query: `v=dQw4w9WgXcQ&t=42s`.
        && !(v.contains('=') && v.contains('&'))
        && !not_a_value(v)
}

/// A recovery or backup code as services print them (`fbfk-n7z1`,
/// `SRSV1-MYGZF`, `73kd-92mx-pq41`): `min` to eight groups of four to
/// six letters and digits, a digit among them, where a code's word with a
/// hyphen (`two-factor`, `one-time`) has short or plain groups.
fn recovery_code(v: &str, min: usize) -> bool {
    let groups: Vec<&str> = v.split('-').collect();
    (min..=8).contains(&groups.len())
        && groups
            .iter()
            .all(|g| (4..=6).contains(&g.len()) && g.bytes().all(|b| b.is_ascii_alphanumeric()))
        && v.bytes().any(|b| b.is_ascii_digit())
}

/// Letters with a capital after a small one, and digits (`qP7vN3x`,
/// `FjK2lm9Q`): random to the eye, where a word with a number is not
/// (`reset2`, `Python3`).
fn camel_and_digits(v: &str) -> bool {
    v.len() >= 6
        && v.bytes().all(|b| b.is_ascii_alphanumeric())
        && v.bytes().any(|b| b.is_ascii_digit())
        && v.as_bytes()
            .windows(2)
            .any(|w| w[0].is_ascii_lowercase() && w[1].is_ascii_uppercase())
}

/// A password as people make them, given as a login's pair (`user /
/// Oyster.Hammock8528`, `…@gmail.com / Dubu1991?`): 8 to 40 characters,
/// capitals, small letters and two digits or more, and a symbol or a
/// year's worth of digits (`F1-themed` has one). A pair of plain words or versions (`read / write`, `Linux /
/// Windows10`) is not one.
pub(super) fn paired_password(v: &str) -> bool {
    let v = v.trim_end_matches(['.', ',', ';', ':', ')']);
    let digits = v.bytes().filter(u8::is_ascii_digit).count();
    let symbol = v.bytes().any(|b| b.is_ascii_punctuation());
    (8..=40).contains(&v.len())
        && v.bytes().any(|b| b.is_ascii_uppercase())
        && v.bytes().any(|b| b.is_ascii_lowercase())
        && digits >= 2
        && (symbol || digits >= 4)
}

/// A PIN or a code: 4 to 12 digits, or groups of digits (`4829-1735`).
pub(super) fn digits_code(v: &str) -> bool {
    // A keypad's `*` before and `#` after: "*4471#", "0805#".
    let v = v.strip_prefix('*').unwrap_or(v);
    let v = v.strip_suffix('#').unwrap_or(v);
    let groups: Vec<&str> = v.split(['-', ' ']).collect();
    let digits = |g: &&str| !g.is_empty() && g.bytes().all(|b| b.is_ascii_digit());
    let total: usize = groups.iter().map(|g| g.len()).sum();
    // A date (`2024-09-27`) is when, not a code.
    let date = matches!(groups.as_slice(), [y, m, d]
        if y.len() == 4 && (y.starts_with("19") || y.starts_with("20"))
            && m.len() == 2 && d.len() == 2 && *m <= "12" && *d <= "31");
    groups.iter().all(digits) && (4..=12).contains(&total) && groups.len() <= 4 && !date
}

/// Words joined by hyphens or underscores the way people make passwords
/// (`blue-otter-kettle`, `hazel-mortar-31`, `marmalade_sky`), where prose
/// joins words into adjectives (`case-sensitive`, `auto-generated`,
/// `read-only`, `up-to-date`): at least `min` parts, two of them words of
/// three letters or more, none a small word of grammar, the last word
/// not an adjective's or participle's ending.
fn joined_words(v: &str, min: usize) -> bool {
    const GRAMMAR: &[&str] = &[
        "a", "an", "the", "to", "of", "in", "on", "at", "by", "for", "and", "or", "not", "non",
        "per", "pre", "re", "self", "co", "de", "un",
    ];
    const LAST: &[&str] = &[
        "only", "use", "time", "wide", "free", "safe", "proof", "like", "end", "date", "side",
        "level", "term", "way", "up", "down", "out", "off", "known", "shown", "given", "written",
        "hidden", "broken", "chosen", "stolen", "taken", "proven", "art", "step", "in",
    ];
    const ENDINGS: &[&str] = &["ed", "ing", "ive", "ble", "ous", "ful", "less", "ic", "ly"];
    // Dots join words too (`violet.Orbit.63`), but join a domain's or a
    // file's names as well: with dots, a digit or a capital must show it.
    let dotted = v.contains('.')
        && (v.bytes().any(|b| b.is_ascii_digit()) || v.bytes().any(|b| b.is_ascii_uppercase()));
    if v.contains('.') && !dotted {
        return false;
    }
    let parts: Vec<&str> = v.split(['-', '_', '.']).collect();
    // `OPENAI_API_KEY`, `DB_PASSWORD`: a variable's name.
    let variable = v.contains('_') && !v.bytes().any(|b| b.is_ascii_lowercase());
    if parts.len() < min || parts.iter().any(|p| p.is_empty()) || variable {
        return false;
    }
    let lower: Vec<String> = parts.iter().map(|p| p.to_ascii_lowercase()).collect();
    let words = lower
        .iter()
        .filter(|p| p.len() >= 3 && p.bytes().all(|b| b.is_ascii_alphabetic()))
        .count();
    let last = lower.last().map(String::as_str).unwrap_or("");
    let adjective = last.bytes().all(|b| b.is_ascii_alphabetic())
        && (LAST.contains(&last) || ENDINGS.iter().any(|e| last.ends_with(e)));
    parts
        .iter()
        .all(|p| p.bytes().all(|b| b.is_ascii_alphanumeric()))
        && words >= 2
        && !lower.iter().any(|p| GRAMMAR.contains(&p.as_str()))
        && !adjective
}

/// Hex of 12 or more digits with letters and numbers (`7d3f9a1c2b8e4f60`),
/// which [`looks_secret`] leaves to a commit's shorter hashes when no
/// password's verb gives it.
fn mixed_hex(v: &str) -> bool {
    v.len() >= 12
        && v.bytes().all(|b| b.is_ascii_hexdigit())
        && v.bytes().any(|b| b.is_ascii_digit())
        && v.bytes().any(|b| b.is_ascii_alphabetic())
}

/// A word and a number joined (`Nimbus_4417`, `Welcome-0514`): a
/// password's shape when a password's verb gives it.
fn word_and_number(v: &str) -> bool {
    // A number with its unit is a size ("6-digits", "12-chars").
    const UNITS: &[&str] = &[
        "digit",
        "digits",
        "char",
        "chars",
        "characters",
        "letters",
        "numbers",
        "words",
        "bit",
        "bits",
        "byte",
        "bytes",
        "days",
        "hours",
        "minutes",
        "seconds",
        "weeks",
        "months",
        "years",
    ];
    let parts: Vec<&str> = v.split(['-', '_', '.']).collect();
    if parts
        .iter()
        .any(|p| UNITS.contains(&p.to_ascii_lowercase().as_str()))
    {
        return false;
    }
    parts.len() >= 2
        && parts
            .iter()
            .all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_alphanumeric()))
        && parts
            .iter()
            .any(|p| p.len() >= 3 && p.bytes().all(|b| b.is_ascii_alphabetic()))
        && parts.iter().any(|p| p.bytes().all(|b| b.is_ascii_digit()))
}

/// Three or more capitalised words run together (`ParisInTheSpring`),
/// where a product's name has two (`JavaScript`, `LastPass`, `PostgreSQL`).
fn run_together(v: &str) -> bool {
    let humps = v
        .as_bytes()
        .windows(2)
        .filter(|w| w[0].is_ascii_uppercase() && w[1].is_ascii_lowercase())
        .count();
    humps >= 3 && v.len() >= 10 && v.bytes().all(|b| b.is_ascii_alphanumeric())
}
