//! Secret redaction, applied to everything hipo writes (nodes, ROOT, and
//! text sent to or received from a model).
//!
//! Only the secret itself becomes `[REDACTED]`; the key name, quotes and
//! the rest of the line stay, so a summary still says *that* a credential
//! was configured. Patterns favour precision: prose about passwords, paths
//! such as `pwd: /home/x`, or words like `ask-the-experts-panel` survive.
//! Secrets said in words ("the staging password is …") are read by a
//! small scanner ([`said`]). Redaction is idempotent.
//!
//! A process pays only for the rules its text may need: one Aho-Corasick
//! pass over every rule's anchors (literals such as `AKIA`, `://`,
//! `token`) says which rules can match, and a rule's regex is compiled the
//! first time it is needed. Compiling all the rules as one `RegexSet` cost
//! a one-entry `hipo checkpoint` about a quarter of its time (issue 29).

use regex::Captures;
use std::borrow::Cow;

mod card;
mod checks;
#[cfg(test)]
mod corpus;
mod mnemonic;
mod names;
mod phrases;
mod prefilter;
mod published;
mod rule;
mod rules;
mod said;
mod tool_forms;
mod value;
mod window;

use prefilter::RULES;
use rules::PATTERNS;
pub use window::lines as redact_lines;

/// What replaces a secret.
pub const REDACTED: &str = "[REDACTED]";

/// Builds the prefilter afresh and returns its anchor count: what the
/// first [`redact`] of a process pays before any rule is compiled. For
/// the redaction bench only.
#[cfg(feature = "internals")]
pub fn build_rule_set() -> usize {
    prefilter::build_anchors().1.len()
}

/// True if `text` contains anything [`redact`] would replace.
pub fn contains_secret(text: &str) -> bool {
    matches!(redact(text), Cow::Owned(_))
}

/// How many passes [`redact`] makes at most before it stops.
const MAX_PASSES: usize = 4;

/// Replaces every secret in `text` with `[REDACTED]`, keeping the rest.
///
/// Idempotent: a replacement can join what was around it into a new match
/// (a key word cut away leaves `[REDACTED]: value`), so a text that changed
/// is redacted again until nothing changes. Text without a secret, nearly
/// all of it, costs one pass.
pub fn redact(text: &str) -> Cow<'_, str> {
    let mut out = match redact_once(text) {
        Cow::Borrowed(_) => return Cow::Borrowed(text),
        Cow::Owned(s) => s,
    };
    for _ in 1..MAX_PASSES {
        match redact_once(&out) {
            Cow::Borrowed(_) => break,
            Cow::Owned(s) => out = s,
        }
    }
    Cow::Owned(out)
}

/// One pass of every rule over `text`.
fn redact_once(text: &str) -> Cow<'_, str> {
    let rules = &*RULES;
    let need = rules.candidates(text);
    // Seed phrases have no anchor: their words are the sign.
    let seeds = mnemonic::may_hold(text);
    if !need.contains(&true) && !seeds {
        return Cow::Borrowed(text);
    }
    let mut out = Cow::Borrowed(text);
    for (i, _) in need[..PATTERNS.len()]
        .iter()
        .enumerate()
        .filter(|(_, n)| **n)
    {
        let Some((re, &(_, group, check, _))) = rules.regex(i) else {
            continue;
        };
        let replaced = re.replace_all(&out, |c: &Captures| replace_group(c, group, check));
        if let Cow::Owned(s) = replaced {
            out = Cow::Owned(s);
        }
    }
    let parts = &need[PATTERNS.len()..];
    if parts.contains(&true) {
        let mut found = said::find(&out, parts);
        found.retain(|r| {
            let v = &out[r.clone()];
            !public_by_design(v) && !placeholder(v) && !reference(v)
        });
        if !found.is_empty() {
            out = Cow::Owned(replace_ranges(&out, found));
        }
    }
    if seeds {
        let found = mnemonic::find(&out);
        if !found.is_empty() {
            out = Cow::Owned(replace_ranges(&out, found));
        }
    }
    if out == text {
        Cow::Borrowed(text)
    } else {
        out
    }
}

/// `text` with each range replaced by [`REDACTED`].
fn replace_ranges(text: &str, mut ranges: Vec<std::ops::Range<usize>>) -> String {
    ranges.sort_by_key(|r| r.start);
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    for r in ranges {
        out.push_str(&text[at..r.start]);
        out.push_str(REDACTED);
        at = r.end;
    }
    out.push_str(&text[at..]);
    out
}

fn replace_group(c: &Captures, group: usize, check: Option<fn(&str) -> bool>) -> String {
    let (Some(whole), Some(secret)) = (c.get(0), c.get(group)) else {
        return c.get(0).map(|m| m.as_str().to_string()).unwrap_or_default();
    };
    if secret.as_str() == REDACTED
        || placeholder(secret.as_str())
        || public_by_design(secret.as_str())
        || reference(secret.as_str())
        || check.is_some_and(|looks_secret| !looks_secret(secret.as_str()))
    {
        return whole.as_str().to_string();
    }
    let start = secret.start() - whole.start();
    let end = secret.end() - whole.start();
    // A multi-line secret (a private key block) keeps its line breaks, so
    // line numbers in redacted text match the file's.
    let newlines = "\n".repeat(secret.as_str().matches('\n').count());
    format!(
        "{}{REDACTED}{newlines}{}",
        &whole.as_str()[..start],
        &whole.as_str()[end..]
    )
}

/// True for keys made to be shown: Stripe's publishable keys and
/// Mapbox's public tokens sit in every web page that uses them, and an
/// SSH public key is added to servers and repositories as it is.
fn public_by_design(secret: &str) -> bool {
    [
        "pk_live_",
        "pk_test_",
        "pk.eyJ",
        "ssh-ed25519",
        "ssh-rsa",
        "ssh-dss",
        "ecdsa-sha2-",
        "sk-ssh-ed25519",
    ]
    .iter()
    .any(|p| secret.starts_with(p))
}

/// True if a would-be secret says where the secret is instead of being
/// it: a variable, an environment or keychain lookup, a file, standard
/// input (`env:P12_PASSWORD`, `file:/tmp/ks.pass`, `@keychain:AC_PASSWORD`,
/// `@stdin`, `process.env.APNS_KEY`, `env(GITHUB_SECRET)`, `op://vault/…`).
fn reference(secret: &str) -> bool {
    [
        "env:",
        "file:",
        "fd:",
        "@keychain:",
        "@env:",
        "@stdin",
        "process.env.",
        "os.environ",
        "env(",
        "ENV[",
        "${",
        "$(",
        "System.getenv",
        "getenv(",
        "op://",
        "vault:",
    ]
    .iter()
    .any(|p| secret.starts_with(p))
        // The message of the shell's `${VAR:?message}`.
        || (secret.starts_with('?') && secret.ends_with('}'))
}

/// True if a would-be secret is a documentation placeholder rather than a
/// key: an ellipsis (`sk-...`), or mostly one repeated mask character
/// (`********`, `AKIAXXXXXXXXXXXXXXXX`, `ghp_xxxx…`).
fn placeholder(secret: &str) -> bool {
    if secret.contains("...") || secret.contains('…') {
        return true;
    }
    // A key block with no key in it (`<redacted>` between the lines).
    if secret.starts_with("-----BEGIN") && key_block_placeholder(secret) {
        return true;
    }
    // `YOUR_TOKEN_HERE`, `your-api-key`, `REPLACE_ME` (but `changeme` is
    // as often the password a service was really left with), and a
    // template's instruction (`…-at-least-32-characters-long`,
    // `changeme-in-production`).
    let lower = secret.to_ascii_lowercase();
    if [
        "your_",
        "your-",
        "_here",
        "replace_me",
        "at_least",
        "at-least",
        "characters_long",
        "characters-long",
        "in-production",
        "in_production",
    ]
    .iter()
    .any(|p| lower.contains(p))
    {
        return true;
    }
    // `xxxx-xxxx-xxxx-xxxx`: one mask character in groups.
    let mut chars = secret.chars().filter(|c| c.is_alphanumeric() || *c == '*');
    if let Some(first) = chars.next()
        && matches!(first, 'x' | 'X' | '*' | '0')
        && secret.len() >= 8
        && chars.all(|c| c == first)
    {
        return true;
    }
    // Python's `%(DB_PASS)s`, a template's slot.
    if secret.starts_with("%(") && secret.ends_with(")s") {
        return true;
    }
    // `***`, `•••`: masked, however short.
    if secret.len() >= 3 && secret.chars().all(|c| matches!(c, '*' | '•' | '·')) {
        return true;
    }
    let mut longest = 0;
    let mut run = 0;
    let mut prev = None;
    for b in secret.bytes() {
        let mask = matches!(b, b'x' | b'X' | b'*' | b'#' | b'0');
        run = if mask && prev == Some(b) {
            run + 1
        } else {
            usize::from(mask)
        };
        longest = longest.max(run);
        prev = Some(b);
    }
    longest >= 4 && longest * 2 >= secret.len()
}

/// True if a private key block holds a placeholder where its key goes:
/// `<redacted>`, `<your key>`, nothing at all.
fn key_block_placeholder(block: &str) -> bool {
    // A block quoted in JSON has `\n` where its lines break.
    let body: String = block
        .replace("\\n", "\n")
        .lines()
        .filter(|l| !l.contains("-----"))
        .collect();
    let body = body.trim();
    body.is_empty() || (body.starts_with('<') && body.ends_with('>'))
}

#[cfg(test)]
pub(super) mod tests;
