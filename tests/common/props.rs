//! Shared proptest strategies: Markdown-ish text with the shapes hipo's
//! parsers branch on (frontmatter, headings, fences, turns, long lines,
//! CRLF, non-ASCII), bounded in size so a case runs in microseconds.
#![allow(dead_code)]

use proptest::prelude::*;

/// The case count: `PROPTEST_CASES` if set, else `default` (kept modest
/// so the suite stays fast; raise it locally for a longer hunt).
pub fn config(default: u32) -> ProptestConfig {
    let cases = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default);
    ProptestConfig {
        cases,
        ..ProptestConfig::default()
    }
}

/// One line of a Markdown file.
pub fn md_line() -> impl Strategy<Value = String> {
    prop_oneof![
        "# [a-zA-Z0-9 ]{0,12}",
        "## [a-zA-Z0-9 \\[\\]]{0,16}",
        Just("## Notes [feedback]".to_string()),
        "### [a-z ]{0,10}",
        "(```|~~~|````)[a-z]{0,4}",
        Just("---".to_string()),
        "(User|Assistant|\\*\\*User:\\*\\*|- Human): [a-z ]{0,20}",
        Just(String::new()),
        "[ \t]{0,3}",
        "- [a-z]{1,8}: [ -~]{0,40}",
        "[ -~]{0,80}",
        "\\PC{0,30}",
        (1..8usize).prop_map(|n| "long line of words ".repeat(n * 20)),
    ]
}

/// A Markdown file, maybe with frontmatter, LF or CRLF.
pub fn markdown_text() -> impl Strategy<Value = String> {
    (
        prop::option::of(prop::collection::vec("[a-z_-]{1,12}: [ -~]{0,30}", 0..6)),
        prop::collection::vec(md_line(), 0..60),
        any::<bool>(),
        any::<bool>(),
    )
        .prop_map(|(front, lines, crlf, last_newline)| {
            let nl = if crlf { "\r\n" } else { "\n" };
            let mut out = String::new();
            if let Some(front) = front {
                out.push_str(&format!("---{nl}{}{nl}---{nl}", front.join(nl)));
            }
            out.push_str(&lines.join(nl));
            if last_newline {
                out.push_str(nl);
            }
            out
        })
}

/// Text with secrets, look-alikes and the punctuation the rules key on.
pub fn secretish() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        Just("password".to_string()),
        Just("API_KEY".to_string()),
        Just("secret_key_base".to_string()),
        Just("--password".to_string()),
        Just("-p".to_string()),
        Just("Bearer".to_string()),
        Just("Authorization: Basic".to_string()),
        Just("[REDACTED]".to_string()),
        Just("-----BEGIN RSA PRIVATE KEY-----".to_string()),
        Just("-----END RSA PRIVATE KEY-----".to_string()),
        Just("postgres://u:".to_string()),
        Just("@db:5432".to_string()),
        Just("ghp_".to_string()),
        Just("sk-".to_string()),
        Just("AKIA".to_string()),
        Just("xxxx".to_string()),
        "[=:\"' \n@#/.]{1,3}",
        "[A-Za-z0-9+/_-]{1,48}",
        "[a-z]{1,10}",
        "\\PC{1,8}",
    ];
    prop::collection::vec(piece, 0..40).prop_map(|v| v.concat())
}
