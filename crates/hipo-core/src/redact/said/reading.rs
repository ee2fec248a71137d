//! Reading the words after a secret word the way a person reads them:
//! the noun phrase ("for the staging box"), the verb or sign that gives
//! the value ("is", "=", ":", "->", "set to", "ist", "は", …), then the
//! value, which is a secret only if it looks like one of what the word
//! names ([`crate::redact::value`]).

use crate::redact::names::Names;
use crate::redact::phrases::{answer_words, plain_word, quoted, spaced_words};
use crate::redact::value::{Strength, digits_code, looks_made_up, looks_secret};
use std::ops::Range;

/// Words that, in the noun phrase after the secret word, say the value
/// is not the secret itself but something about it.
const NOT_THE_SECRET: &[&str] = &[
    "hash",
    "hashes",
    "hashed",
    "hashing",
    "digest",
    "checksum",
    "sha",
    "commit",
    "commits",
    "id",
    "ids",
    "uuid",
    "version",
    "versions",
    "fingerprint",
    "name",
    "names",
    "path",
    "file",
    "files",
    "length",
    "size",
    "format",
    "prefix",
    "endpoint",
    "url",
    "uri",
    "ttl",
    "expiry",
    "expires",
    "expiration",
    "policy",
    "rotation",
    "count",
    "limit",
    "limits",
    "budget",
    "model",
    "manager",
    "algorithm",
    "header",
    "field",
    "column",
    "request",
    "requests",
    "server",
    "host",
    "port",
    "hint",
    "label",
    "scope",
    "scopes",
    "change",
    "fix",
    "fixed",
    "issue",
    "ticket",
    "pr",
    "branch",
    "usage",
    "cost",
    "price",
    "rate",
    "store",
    "storage",
    "location",
    "dir",
    "directory",
    "folder",
    "env",
    "variable",
    "var",
    "setting",
    "network",
    "ssid",
];

/// Words that start what the secret belongs to ("for the jump host",
/// "of the server", "on build-03").
const PREPOSITIONS: &[&str] = &[
    "for", "of", "on", "at", "in", "from", "with", "to", "di", "del", "della", "de", "du", "des",
    "da", "do", "dos", "für", "von", "vom", "van", "voor", "para", "pour", "per", "för", "till",
    "k", "pro", "dla", "для", "от",
];

/// Adverbs between the verb and the value ("is still …", "is now …").
const FILLERS: &[&str] = &[
    "now",
    "still",
    "literally",
    "just",
    "currently",
    "actually",
    "probably",
    "simply",
    "also",
    "set",
    "changed",
    "reset",
    "updated",
    "jetzt",
    "noch",
    "maintenant",
    "ahora",
    "agora",
];

/// Verbs and signs that give the value. Words need a word boundary; the
/// CJK particles attach to the noun.
const VERBS: &[&str] = &[
    "is",
    "was",
    "be",
    "being",
    "are",
    "were",
    "to",
    "as",
    "ist",
    "war",
    "est",
    "était",
    "es",
    "era",
    "é",
    "è",
    "är",
    "er",
    "это",
    "là",
    "auf",
    "na",
    "lautet",
    "je",
    "este",
    "είναι",
    "هي",
    "היא",
    "है",
    "adalah",
    "ialah",
];
const SIGNS: &[&str] = &[
    "->", "=>", "→", "←", "=", ":", "：", "—", "–", "'s", "’s", "c'est", "c’est", "는", "은", "は",
    "是", "为", "為",
];

/// What a secret word asks of its value: how much it must look like a
/// secret, whether the word names a passphrase, and what kind of secret.
#[derive(Clone, Copy)]
pub(super) struct Asks {
    pub(super) strength: Strength,
    pub(super) passphrase: bool,
    pub(super) names: Names,
    /// The word is English's: one plain word after it may be the password
    /// (in other languages it is as often an adjective the scanner does
    /// not know: "la contraseña es obligatoria").
    pub(super) english: bool,
}

/// Reads the noun phrase, the verb and the value after a secret word
/// ending at `at`; the value's range if it is a secret.
pub(super) fn read_value(text: &str, at: usize, mut asks: Asks) -> Option<Range<usize>> {
    // A word glued to what follows is part of something else:
    // `user:password@host`, `<password>`, `password.len()`, `/token/`.
    if text[at..].starts_with(|c: char| {
        c.is_ascii_punctuation() && !matches!(c, ':' | '=' | '-' | '\'' | '(' | ',' | '"')
    }) {
        return None;
    }
    let line_end = text[at..].find('\n').map_or(text.len(), |i| at + i);
    let mut pos = at;
    let mut words = 0;
    let mut verb = false;
    let mut described = false;
    loop {
        // A value in brackets right after the words: "the SFTP password
        // (Nimbus_4417) expires".
        // A bare code word's brackets hold a year or a note ("The Bro
        // Code (2011)").
        if !verb
            && asks.names != Names::Code
            && let Some(r) = bracketed(text, pos, line_end, asks)
        {
            return Some(r);
        }
        // A security question's own words, quoted or in brackets, come
        // before its answer: "answer to 'first pet' is …", "security
        // question (mother's maiden name): …".
        let spaced = &text[pos..line_end];
        let lead = spaced.len() - spaced.trim_start().len();
        if !verb
            && asks.names == Names::Answer
            && let Some(after) = question(&spaced[lead..])
        {
            pos += lead + after;
            words += 1;
            continue;
        }
        pos = skip_space(text, pos, line_end);
        if pos >= line_end {
            return None;
        }
        let rest = &text[pos..line_end];
        // An arrow gives a value right after the word ("secret answer →
        // …"); further on it is a change told ("permissions (0644 → 0600)"),
        // but for a code's digits the place comes first ("código da porta
        // da sala dos freezers → 660012").
        let digits_word = matches!(asks.names, Names::Pin | Names::Code);
        let arrow_too_far = rest.starts_with('→') && words > 2 && !digits_word;
        if let Some(n) = sign_or_verb(rest).filter(|_| !arrow_too_far) {
            // "to" and "as" also start a noun phrase's tail ("the password
            // to the shared drive is …"): read on when no value follows.
            let preposition = matches!(rest[..n].to_lowercase().as_str(), "to" | "as");
            let after = skip_space(text, pos + n, line_end);
            if preposition && determiner(&text[after..line_end]) {
                pos = after;
                words += 1;
                continue;
            }
            // One plain word is a password only after English's own verbs
            // and signs ("is quietstorm", not "la password è scaduta" nor
            // "your password to continue").
            let sign = rest[..n].to_lowercase();
            asks.english &= ["is", "was", ":", "=", "->", "=>", "→", "'s", "’s", "—", "–"]
                .contains(&sign.as_str());
            verb = true;
            pos += n;
            continue;
        }
        let token_end = rest.find(char::is_whitespace).map_or(line_end, |i| pos + i);
        let token = &text[pos..token_end];
        let lower = token.to_lowercase();
        let bare = lower.trim_matches(|c: char| !c.is_alphanumeric());
        if verb && FILLERS.contains(&bare) {
            pos = token_end;
            continue;
        }
        if verb {
            return after_sign(text, pos, line_end, asks);
        }
        if let Some(v) = without_verb(text, pos, line_end, asks, words) {
            return Some(v);
        }
        asks.passphrase |= bare.contains("passphrase");
        words += 1;
        // Past a preposition the words say whose secret it is ("the
        // password for the jump host: …"), not what the value is.
        let about = !described && NOT_THE_SECRET.contains(&bare);
        described |= PREPOSITIONS.contains(&bare);
        if words > 7 || about || ends_clause(token) {
            return None;
        }
        // A word glued to its sign: "(staging):", "Passwort:".
        if token.ends_with([':', '=', '：']) {
            verb = true;
        }
        pos = token_end;
    }
}

/// The length of a question quoted or in brackets at the start of
/// `rest` ("to" or "for" before it included), with its closing mark.
fn question(rest: &str) -> Option<usize> {
    let skip = ["to ", "for "]
        .iter()
        .find(|p| {
            rest.get(..p.len())
                .is_some_and(|w| w.eq_ignore_ascii_case(p))
        })
        .map_or(0, |p| p.len());
    let open = rest[skip..].chars().next()?;
    let close = match open {
        '(' => ')',
        '（' => '）',
        '"' => '"',
        '\'' => '\'',
        '‘' => '’',
        '“' => '”',
        '«' => '»',
        _ => return None,
    };
    let from = skip + open.len_utf8();
    let len = rest[from..].find(close)?;
    // A question is a few words, not a value in quotes.
    (rest[from..from + len].contains(' ')).then_some(from + len + close.len_utf8())
}

/// A value with no verb before it, at `pos`: one that is plainly a
/// secret ("passphrase …"), or a code in groups right after its word
/// ("验证码 365 902").
fn without_verb(
    text: &str,
    pos: usize,
    end: usize,
    asks: Asks,
    words: usize,
) -> Option<Range<usize>> {
    // Digits right after a word for a code in a language that gives them
    // without a verb ("alarm kodu 7554", "银行卡密码 116230"); English
    // "code" asks for one ("error code 1045" is no secret).
    let digits_after = words == 0
        && match asks.names {
            Names::Pin => true,
            Names::Code | Names::Password => !asks.english,
            Names::Other | Names::Answer => false,
        };
    if digits_after && let Some(len) = digit_groups(&text[pos..end]) {
        return Some(pos..pos + len);
    }
    value_range(text, pos, end).filter(|v| {
        let v = &text[v.clone()];
        if digits_after && digits_code(v) {
            return true;
        }
        asks.names != Names::Code
            && (looks_secret(v, Strength::Bare, asks.passphrase)
                || looks_made_up(v, Strength::Bare, asks.names))
    })
}

/// The value at `pos`, just after the verb or sign; failing that, one
/// given after a colon or an arrow later in the clause ("is the usual
/// one: Aardvark1987", "is the same as before: tacocat77").
fn after_sign(text: &str, pos: usize, end: usize, asks: Asks) -> Option<Range<usize>> {
    if let Some(r) = value_at(text, pos, end, asks) {
        return Some(r);
    }
    let rest = &text[pos..end];
    let clause = rest
        .char_indices()
        .find(|&(i, c)| {
            ends_clause(&rest[..i + c.len_utf8()])
                && rest[i + c.len_utf8()..].starts_with(char::is_whitespace)
        })
        .map_or(rest.len(), |(i, _)| i);
    let near = &rest[..clause];
    let (i, sign) = [": ", " -> ", " => "]
        .iter()
        .filter_map(|s| near.find(s).map(|i| (i, s.len())))
        .min()?;
    if i > 80 {
        return None;
    }
    let next = skip_space(text, pos + i + sign, end);
    value_at(text, next, end, asks)
}

/// The value at `pos` if it is a secret of what the word names: one that
/// looks random, or made up as such secrets are ([`looks_made_up`]), or
/// in quotes after a password's or PIN's verb.
fn value_at(text: &str, pos: usize, end: usize, asks: Asks) -> Option<Range<usize>> {
    let Asks {
        strength,
        passphrase,
        names,
        english,
    } = asks;
    if strength == Strength::Named && !matches!(names, Names::Other | Names::Code) {
        if let Some(q) = quoted(&text[pos..end], passphrase) {
            return Some(pos + q.start..pos + q.end);
        }
        if passphrase && let Some(len) = spaced_words(&text[pos..end]) {
            return Some(pos..pos + len);
        }
        if names == Names::Answer
            && let Some(len) = answer_words(&text[pos..end])
        {
            return Some(pos..pos + len);
        }
    }
    // A code said in groups, with a verb or without: "884 2019 71", "验证码
    // 365 902".
    let code = match names {
        Names::Pin => strength != Strength::Weak,
        Names::Code => strength == Strength::Named,
        _ => false,
    };
    if code && let Some(len) = digit_groups(&text[pos..end]) {
        return Some(pos..pos + len);
    }
    let value = value_range(text, pos, end)?;
    let v = &text[value.clone()];
    // A bare code word gives digits only.
    let random = names != Names::Code && looks_secret(v, strength, passphrase);
    if random || looks_made_up(v, strength, names) {
        return Some(value);
    }
    // One plain word a password's verb gives, the clause ending after it.
    let word = (strength == Strength::Named && names == Names::Password && english)
        .then(|| plain_word(&text[pos..end]))
        .flatten()?;
    Some(pos..pos + word)
}

/// The length of digits in groups of one to four at the start of
/// `rest`, single spaces between, when there are two groups or more and
/// four to twelve digits in all.
fn digit_groups(rest: &str) -> Option<usize> {
    let mut len = 0;
    let mut groups = 0;
    let mut digits = 0;
    for group in rest.split(' ') {
        // The group's digits, whatever follows them ("902，", "913.").
        let d = &group[..group
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(group.len())];
        if d.is_empty() || d.len() > 4 {
            break;
        }
        len += usize::from(groups > 0) + d.len();
        groups += 1;
        digits += d.len();
        if d.len() < group.len() {
            break;
        }
    }
    (groups >= 2 && (4..=12).contains(&digits)).then_some(len)
}

/// Whether the secret word qualifies the word after it ("password
/// protected", "password reset link", "token count"): a participle, or a
/// word that names something about the secret.
pub(super) fn qualifies(rest: &str) -> bool {
    let word: String = rest
        .trim_start_matches([' ', '-'])
        .chars()
        .take_while(|c| c.is_alphabetic())
        .collect::<String>()
        .to_lowercase();
    word.len() > 3 && (word.ends_with("ed") || NOT_THE_SECRET.contains(&word.as_str()))
        || ["reset", "change", "protected", "less"].contains(&word.as_str())
}

/// Whether a verb or sign comes right after a secret word (spaces
/// aside); "to" and "as" end a sentence as often ("… what I set the root
/// password to").
pub(super) fn verb_follows(rest: &str) -> bool {
    let rest = rest.trim_start();
    sign_or_verb(rest).is_some_and(|n| !matches!(rest[..n].to_lowercase().as_str(), "to" | "as"))
}

/// A value alone in brackets at `pos` (spaces before it aside), read as
/// if a verb had given it.
fn bracketed(text: &str, pos: usize, end: usize, asks: Asks) -> Option<Range<usize>> {
    let rest = &text[pos..end];
    let open = pos + (rest.len() - rest.trim_start().len());
    let inside = text[open..end].strip_prefix('(')?;
    let close = inside.find(')')?;
    if inside[..close].contains(char::is_whitespace) {
        return None;
    }
    let named = Asks {
        strength: Strength::Named,
        ..asks
    };
    value_at(text, open + 1, open + 1 + close, named)
}

fn skip_space(text: &str, mut pos: usize, end: usize) -> usize {
    while let Some(c) = text[pos..end].chars().next() {
        if !c.is_whitespace() && !matches!(c, ',' | '(' | ')') {
            break;
        }
        pos += c.len_utf8();
    }
    pos
}

/// The length of a verb or sign at the start of `rest`, if any.
fn sign_or_verb(rest: &str) -> Option<usize> {
    for s in SIGNS {
        if rest.starts_with(s) {
            return Some(s.len());
        }
    }
    let word_end = rest
        .find(|c: char| !c.is_alphabetic())
        .unwrap_or(rest.len());
    let word = rest[..word_end].to_lowercase();
    VERBS.contains(&word.as_str()).then_some(word_end)
}

/// Whether `rest` starts with a determiner: what follows is a noun
/// phrase, not a value.
fn determiner(rest: &str) -> bool {
    let word: String = rest
        .chars()
        .take_while(|c| c.is_alphabetic())
        .collect::<String>()
        .to_lowercase();
    [
        "the", "a", "an", "my", "our", "your", "his", "her", "their", "this", "that",
    ]
    .contains(&word.as_str())
}

fn ends_clause(token: &str) -> bool {
    token.ends_with(['.', ';', '!', '?', '。', '！', '？'])
}

/// The value starting at `pos`: printable ASCII up to a space, a quote or
/// other text (`パスワードはX です`), without an opening quote or the
/// sentence's punctuation at its end.
pub(super) fn value_range(text: &str, pos: usize, end: usize) -> Option<Range<usize>> {
    let rest = &text[pos..end];
    let open = rest
        .find(|c: char| !matches!(c, '"' | '\'' | '`' | '“' | '‘' | '«' | '„'))
        .unwrap_or(rest.len());
    let start = pos + open;
    let len = text[start..end]
        .find(|c: char| !c.is_ascii_graphic() || matches!(c, '"' | '`'))
        .unwrap_or(end - start);
    let mut stop = start + len;
    while stop > start && text[..stop].ends_with(['.', ',', ';', ':', '!', '?', ')', ']', '\'']) {
        stop -= 1;
    }
    (stop > start).then_some(start..stop)
}
