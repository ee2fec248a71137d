//! Secret redaction, applied to everything hipo writes (nodes, ROOT, and
//! text sent to or received from a model).
//!
//! Only the secret itself becomes `[REDACTED]`; the key name, quotes and
//! the rest of the line stay, so a summary still says *that* a credential
//! was configured. Patterns favour precision: prose about passwords, paths
//! such as `pwd: /home/x`, or words like `ask-the-experts-panel` survive.
//! A `RegexSet` prefilter makes clean text cost one pass. Redaction is
//! idempotent.

use regex::{Captures, Regex, RegexSet};
use std::borrow::Cow;
use std::sync::{LazyLock, OnceLock};

/// What replaces a secret.
pub const REDACTED: &str = "[REDACTED]";

/// A secret-ish key name, as a regex fragment shared by the key/value
/// patterns: a known key (`api_key`, `password`, …) with an optional
/// identifier prefix in one of the usual spellings: `DB_PASS`,
/// `my-token`, `PGPASSWORD` (all capitals), `dbPassword` (camelCase).
/// Prose words that merely end in one (`bypass`, `compass`) are not keys.
macro_rules! key {
    () => {
        r"(?:(?-u:\b)(?:[A-Za-z0-9]*[_-])*(?i:api[_-]?key|apikey|private[_-]?key|secret[_-]?key|password|passwd|pass|pwd|secret|token)|(?-u:\b)[A-Z0-9]+(?:PASSWORD|PASSWD|PASS|PWD|SECRET|TOKEN)|(?-u:\b)[a-z][a-zA-Z0-9]*(?:Password|Passwd|Pass|Pwd|Secret|Token|ApiKey))(?-u:\b)"
    };
}

/// A rule: the pattern, the capture group holding the secret (0 = the
/// whole match), and a check the secret must pass (for patterns that
/// would otherwise catch prose).
type Rule = (&'static str, usize, Option<fn(&str) -> bool>);

const PATTERNS: &[Rule] = &[
    // OpenSSH / RSA / EC / DSA / PGP private key blocks, whole.
    (
        r"(?s)-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----.*?-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----",
        0,
        None,
    ),
    // Credentials in URLs: scheme://user:password@host, the user possibly
    // empty (`redis://:pw@cache`). The password runs to the last `@` before
    // the host (`p@ss@db`), as libpq and curl read it.
    (
        r"(?-u:\b)[a-zA-Z][a-zA-Z0-9+.-]*://[^\s:/@]*:([^\s/?#\[]+)@",
        1,
        None,
    ),
    // AWS access key ids.
    (
        r"(?-u:\b)((?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16})(?-u:\b)",
        1,
        None,
    ),
    // AWS secret access keys (40 chars after a telling key name).
    (
        r#"(?i)(?:aws_secret_access_key|aws_secret_key|secret_access_key)["']?\s*[=:]\s*["']?([A-Za-z0-9/+=]{40})"#,
        1,
        None,
    ),
    // Stripe live/test secret and restricted keys.
    (
        r"(?-u:\b)((?:sk|rk)_(?:live|test)_[0-9a-zA-Z]{10,})",
        1,
        None,
    ),
    // Slack tokens: `xox?-` (xoxa, xoxb, xoxe, xoxp, …).
    (r"(?-u:\b)(xox[A-Za-z]-[0-9A-Za-z-]{10,})", 1, None),
    // Slack and Discord webhook URLs: the last path segment is the secret.
    (
        r"(?-u:\b)hooks\.slack\.com/(?:services|workflows)/[A-Za-z0-9]+/[A-Za-z0-9]+/([A-Za-z0-9]{16,})",
        1,
        None,
    ),
    (
        r"(?-u:\b)discord(?:app)?\.com/api/webhooks/[0-9]+/([A-Za-z0-9_-]{20,})",
        1,
        None,
    ),
    // Google API keys.
    (r"(?-u:\b)(AIza[0-9A-Za-z_-]{35})", 1, None),
    // JSON Web Tokens.
    (
        r"(?-u:\b)(eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,})",
        1,
        None,
    ),
    // GitHub tokens (classic, OAuth, server, user, refresh, fine-grained).
    (
        r"(?-u:\b)((?:ghp|gho|ghs|ghu|ghr)_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,})",
        1,
        None,
    ),
    // OpenAI / Anthropic style keys (long enough not to be `sk-learn`).
    (r"(?-u:\b)(sk-(?:ant-|proj-)?[A-Za-z0-9_-]{20,})", 1, None),
    // Bearer tokens in headers.
    (r"(?i)(?-u:\b)bearer\s+([A-Za-z0-9._~+/-]{16,}=*)", 1, None),
    // Basic credentials in headers (base64 of user:password).
    (
        r"(?i)(?-u:\b)authorization\s*:\s*basic\s+([A-Za-z0-9+/]{8,}={0,2})",
        1,
        Some(looks_like_credential),
    ),
    // key = "quoted value" / "key": "value" for secret-ish key names.
    (
        concat!(
            r#"["']?"#,
            key!(),
            r#"["']?\s*[:=]\s*"([^"\s\[/~.$<{][^"]{3,})""#
        ),
        1,
        None,
    ),
    (
        concat!(
            r#"["']?"#,
            key!(),
            r#"["']?\s*[:=]\s*'([^'\s\[/~.$<{][^']{3,})'"#
        ),
        1,
        None,
    ),
    // A shell or .env assignment to an all-capitals secret variable
    // (`DB_PASS=sunshine`, `export PGPASSWORD=…`): whatever is assigned is
    // the secret, plain word or not, unless it is a variable, a path, a
    // placeholder or a flag value.
    (
        r#"(?-u:\b)[A-Z0-9_]*(?:PASSWORD|PASSWD|PASS|PWD|SECRET|TOKEN|API_?KEY|PRIVATE_?KEY|SECRET_?KEY)=([^\s"'$<{\[/~.(][^\s"',;]{3,})"#,
        1,
        Some(not_a_flag),
    ),
    // key=value unquoted: the value must look like a credential (6+ chars,
    // not a path, variable or placeholder, not a plain word).
    (
        concat!(key!(), r#"\s*[:=]\s*([^\s"',;\[/~.$<{(][^\s"',;]{5,})"#),
        1,
        Some(looks_like_credential),
    ),
];

/// True if an unquoted value reads as a credential rather than a word
/// (`password: required`): it holds a digit, a symbol, or a capital
/// after its first letter. Sentence punctuation at the end does not count.
fn looks_like_credential(value: &str) -> bool {
    let v = value.trim_end_matches(['.', ',', '!', '?', ':', ';', ')']);
    let symbol = |c: char| !c.is_alphanumeric() && !matches!(c, '-' | '_' | '.' | '/');
    v.chars().any(|c| c.is_ascii_digit() || symbol(c))
        || (v.chars().any(char::is_lowercase) && v.chars().skip(1).any(char::is_uppercase))
}

/// True unless an assigned value is a flag (`USE_TOKEN=true`).
fn not_a_flag(value: &str) -> bool {
    !["true", "false", "none", "null", "unset", "empty"]
        .iter()
        .any(|w| value.eq_ignore_ascii_case(w))
}

/// The set finds which patterns occur; each pattern's own regex (for the
/// replacement) is compiled only when its pattern first occurs, so a
/// process that redacts clean text pays for the set alone.
struct Rules {
    set: RegexSet,
    each: Vec<OnceLock<Option<Regex>>>,
}

static RULES: LazyLock<Rules> = LazyLock::new(|| Rules {
    set: RegexSet::new(PATTERNS.iter().map(|(p, _, _)| *p)).unwrap_or_else(|_| RegexSet::empty()),
    each: PATTERNS.iter().map(|_| OnceLock::new()).collect(),
});

impl Rules {
    fn regex(&self, i: usize) -> Option<(&Regex, &'static Rule)> {
        let rule = PATTERNS.get(i)?;
        let re = self.each.get(i)?.get_or_init(|| Regex::new(rule.0).ok());
        re.as_ref().map(|r| (r, rule))
    }
}

/// True if `text` contains anything [`redact`] would replace.
pub fn contains_secret(text: &str) -> bool {
    matches!(redact(text), Cow::Owned(_))
}

/// Replaces every secret in `text` with `[REDACTED]`, keeping the rest.
pub fn redact(text: &str) -> Cow<'_, str> {
    let rules = &*RULES;
    // `is_match` stops at the first hit and runs ~7x faster than `matches`
    // on clean text, which is nearly all text.
    if !rules.set.is_match(text) {
        return Cow::Borrowed(text);
    }
    let mut out = Cow::Borrowed(text);
    for i in rules.set.matches(text).iter() {
        let Some((re, &(_, group, check))) = rules.regex(i) else {
            continue;
        };
        let replaced = re.replace_all(&out, |c: &Captures| replace_group(c, group, check));
        if let Cow::Owned(s) = replaced {
            out = Cow::Owned(s);
        }
    }
    if out == text {
        Cow::Borrowed(text)
    } else {
        out
    }
}

fn replace_group(c: &Captures, group: usize, check: Option<fn(&str) -> bool>) -> String {
    let (Some(whole), Some(secret)) = (c.get(0), c.get(group)) else {
        return c.get(0).map(|m| m.as_str().to_string()).unwrap_or_default();
    };
    if secret.as_str() == REDACTED
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

#[cfg(test)]
mod tests {
    use super::*;

    /// (input, expected output).
    const CASES: &[(&str, &str)] = &[
        // Positives.
        ("key AKIAIOSFODNN7EXAMPLE here", "key [REDACTED] here"),
        (
            "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
            "aws_secret_access_key = [REDACTED]",
        ),
        (
            "url postgres://app:hunter2secret@db.internal:5432/app ok",
            "url postgres://app:[REDACTED]@db.internal:5432/app ok",
        ),
        (
            "redis://default:s3cr3tpass@cache:6379",
            "redis://default:[REDACTED]@cache:6379",
        ),
        (
            "stripe sk_live_4eC39HqLyjWDarjtT1zdp7dc",
            "stripe [REDACTED]",
        ),
        (
            "restricted rk_live_51Habcdefghijklmnop",
            "restricted [REDACTED]",
        ),
        ("slack xoxb-1234567890-abcdefghijkl", "slack [REDACTED]"),
        (
            "slack user xoxp-1234-5678-abcdefabcdef",
            "slack user [REDACTED]",
        ),
        (
            "google AIzaSyA1234567890abcdefghijklmnopqrstuv",
            "google [REDACTED]",
        ),
        (
            "jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
            "jwt [REDACTED]",
        ),
        (
            "gh ghp_abcdefghijklmnopqrstuvwxyz0123456789",
            "gh [REDACTED]",
        ),
        (
            "gh ghs_abcdefghijklmnopqrstuvwxyz0123456789",
            "gh [REDACTED]",
        ),
        (
            "gh ghu_abcdefghijklmnopqrstuvwxyz0123456789",
            "gh [REDACTED]",
        ),
        (
            "gh github_pat_11ABCDEFG0123456789_abcdefghijklmnop",
            "gh [REDACTED]",
        ),
        (
            "openai sk-proj-abcdefghijklmnopqrstuvwx12",
            "openai [REDACTED]",
        ),
        (
            "anthropic sk-ant-api03-abcdefghijklmnopqrstuvwxyz",
            "anthropic [REDACTED]",
        ),
        (
            "Authorization: Bearer abcdef0123456789abcdef",
            "Authorization: Bearer [REDACTED]",
        ),
        (
            r#"{"apiKey": "abc123def456ghi"}"#,
            r#"{"apiKey": "[REDACTED]"}"#,
        ),
        (
            r#""client_secret": "x9y8z7w6v5""#,
            r#""client_secret": "[REDACTED]""#,
        ),
        ("api_key: 9f8e7d6c5b4a", "api_key: [REDACTED]"),
        ("password=hunter2hunter2", "password=[REDACTED]"),
        ("DB_PASSWORD: Tr0ub4dor&3", "DB_PASSWORD: [REDACTED]"),
        (
            "access_token = ya29.a0AfH6SMBx",
            "access_token = [REDACTED]",
        ),
        ("secret: 'correct horse battery'", "secret: '[REDACTED]'"),
        ("token=abcdef123456", "token=[REDACTED]"),
        (
            "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\nAAAAB3NzaC1yc2E=\n-----END OPENSSH PRIVATE KEY-----\nafter",
            "[REDACTED]\n\n\n\nafter",
        ),
        (
            "-----BEGIN PGP PRIVATE KEY BLOCK-----\nlQdGBF\n-----END PGP PRIVATE KEY BLOCK-----",
            "[REDACTED]\n\n",
        ),
        (
            "PGPASSWORD=Sup3rS3cret!x psql",
            "PGPASSWORD=[REDACTED] psql",
        ),
        ("export DB_PASS=hunter2hunter2", "export DB_PASS=[REDACTED]"),
        ("MYSQL_PWD=s3cretPw mysql", "MYSQL_PWD=[REDACTED] mysql"),
        (
            "GITHUB_TOKEN=abc123def456 gh pr list",
            "GITHUB_TOKEN=[REDACTED] gh pr list",
        ),
        ("dbPassword: Hunter2Hunter2", "dbPassword: [REDACTED]"),
        (
            r#""adminPassword": "x9y8z7w6""#,
            r#""adminPassword": "[REDACTED]""#,
        ),
        ("password: hunter2.", "password: [REDACTED]"),
        ("token: aBcDeFgHiJ", "token: [REDACTED]"),
        (
            "slack refresh xoxe-1-abcdefghijklmnop",
            "slack refresh [REDACTED]",
        ),
        (
            "Authorization: Basic dXNlcjpwYXNzd29yZA== sent",
            "Authorization: Basic [REDACTED] sent",
        ),
        (
            "url postgres://app:p@ssw0rd@db/app ok",
            "url postgres://app:[REDACTED]@db/app ok",
        ),
        (
            "https://u:pw1234@host.io?mail=a@b.io",
            "https://u:[REDACTED]@host.io?mail=a@b.io",
        ),
        ("DB_PASS=sunshine", "DB_PASS=[REDACTED]"),
        ("PASSWORD=letmein", "PASSWORD=[REDACTED]"),
        (
            "export DB_PASSWORD=sunshine && run",
            "export DB_PASSWORD=[REDACTED] && run",
        ),
        ("PGPASSWORD=correcthorse psql", "PGPASSWORD=[REDACTED] psql"),
        ("SECRET_KEY=changeme", "SECRET_KEY=[REDACTED]"),
        (
            "cache redis://:s3cr3tpass@cache:6379",
            "cache redis://:[REDACTED]@cache:6379",
        ),
        (
            "hook https://hooks.slack.com/services/T0ABCDEF1/B0ABCDEF2/abcdefghijklmnopqrstuvwx ok",
            "hook https://hooks.slack.com/services/T0ABCDEF1/B0ABCDEF2/[REDACTED] ok",
        ),
        (
            "https://discord.com/api/webhooks/123456789012345678/abcdefghijklmnopqrstuvwxyz_0123",
            "https://discord.com/api/webhooks/123456789012345678/[REDACTED]",
        ),
        // Negatives: unchanged.
        ("USE_TOKEN=true", "USE_TOKEN=true"),
        ("GITHUB_TOKEN=$GH_TOKEN gh", "GITHUB_TOKEN=$GH_TOKEN gh"),
        ("PWD=/home/x", "PWD=/home/x"),
        ("ask-the-experts-panel", "ask-the-experts-panel"),
        ("pwd: /home/x", "pwd: /home/x"),
        (
            "task-runner and sk-learn are tools",
            "task-runner and sk-learn are tools",
        ),
        (
            "I changed my password yesterday",
            "I changed my password yesterday",
        ),
        (
            "the password must be 12 characters",
            "the password must be 12 characters",
        ),
        ("password: must be rotated", "password: must be rotated"),
        (
            "password: required for all users",
            "password: required for all users",
        ),
        ("Password: changed yesterday", "Password: changed yesterday"),
        ("secret: nobody knows", "secret: nobody knows"),
        ("token: expires in 1h", "token: expires in 1h"),
        ("Password: Required.", "Password: Required."),
        ("secret: well-known", "secret: well-known"),
        ("bypass: Sup3rS3cret!x", "bypass: Sup3rS3cret!x"),
        ("PASSWORD: REQUIRED", "PASSWORD: REQUIRED"),
        (
            "Authorization: Basic credentials are rejected",
            "Authorization: Basic credentials are rejected",
        ),
        (
            "ssh://git@host:22/repo and mail me@x.io",
            "ssh://git@host:22/repo and mail me@x.io",
        ),
        ("watch the token budget", "watch the token budget"),
        ("max_tokens: 100000", "max_tokens: 100000"),
        (
            "commit 3f786850e387550fdab836ed7e6dc881de23001b",
            "commit 3f786850e387550fdab836ed7e6dc881de23001b",
        ),
        (
            "id 123e4567-e89b-12d3-a456-426614174000",
            "id 123e4567-e89b-12d3-a456-426614174000",
        ),
        (
            "see https://example.com/docs/auth",
            "see https://example.com/docs/auth",
        ),
        ("password: $DB_PASSWORD", "password: $DB_PASSWORD"),
        ("api_key: <your key here>", "api_key: <your key here>"),
        (
            "## Secret rotation [project]",
            "## Secret rotation [project]",
        ),
        ("Bearer auth is used", "Bearer auth is used"),
        (
            "회의에서 비밀번호 정책을 논의함",
            "회의에서 비밀번호 정책을 논의함",
        ),
    ];

    #[test]
    fn table() {
        for (input, want) in CASES {
            assert_eq!(redact(input), *want, "input: {input}");
        }
    }

    #[test]
    fn idempotent() {
        for (input, _) in CASES {
            let once = redact(input).into_owned();
            assert_eq!(redact(&once), once, "input: {input}");
        }
    }

    #[test]
    fn clean_text_is_borrowed() {
        assert!(matches!(redact("nothing to see"), Cow::Borrowed(_)));
        assert!(!contains_secret("nothing to see"));
        assert!(contains_secret("AKIAIOSFODNN7EXAMPLE"));
    }

    #[test]
    fn all_patterns_compile() {
        assert_eq!(RULES.each.len(), PATTERNS.len());
        assert_eq!(RULES.set.len(), PATTERNS.len());
    }
}
