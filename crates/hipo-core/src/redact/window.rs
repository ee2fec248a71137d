//! A few lines of a long text, redacted as redacting the whole text would
//! show them, for the price of those lines and a margin around them.
//!
//! A search that cannot prove its index current (a compaction holds the
//! store) must redact what it shows afresh, and a secret may straddle the
//! edge of the lines shown. It used to redact each hit's whole section for
//! that: up to hundreds of kilobytes for a 220-byte snippet, twenty times
//! per prompt. [`lines`] redacts the lines plus a margin instead. The
//! margin is whole lines, and wide enough that no match reaching into the
//! lines can begin or end outside it:
//!
//! - Every rule but three matches within one line, or across lines only
//!   through whitespace (`key\s*=\s*value`), with a few words at most: a
//!   match holds at most a few non-blank lines, so [`MARGIN_LINES`]
//!   non-blank lines cannot all be inside one.
//! - A quoted value (`password: "…"`) runs to its closing quote, over any
//!   number of lines. Before its value, its match holds at most four
//!   tokens (the end of the key, a quote, `:` or `=`, the opening quote),
//!   so at most four non-blank lines; after them, no quote of its kind.
//!   A match covering a margin before the lines shown has its prefix at
//!   the margin's far edge, one covering a margin after them at its near
//!   edge: a margin holding a quote of each kind with [`QUOTE_LINES`]
//!   non-blank lines of the margin on both sides of it is inside neither.
//! - A private key block runs from `-----BEGIN` to `-----END`: a text that
//!   names a `PRIVATE KEY` is redacted whole.
//!
//! `rules_are_bounded_but_three` in the tests checks the rules' shapes, so
//! a new rule that could span lines makes the test, not a snippet, fail.

use super::redact;
use std::ops::Range;

/// Non-blank lines a margin holds, at least (or to the text's edge).
pub(super) const MARGIN_LINES: usize = 8;

/// Non-blank lines of the margin on each side of a quote of each kind in
/// it, at least (or to the text's edge).
pub(super) const QUOTE_LINES: usize = 4;

/// Lines `wanted` (0-based, end excluded) of `text` as [`redact`] of the
/// whole text shows them, line breaks kept; `None` when `text` has fewer
/// lines.
pub fn lines(text: &str, wanted: Range<usize>) -> Option<String> {
    let all: Vec<&str> = text.split_inclusive('\n').collect();
    if wanted.start >= wanted.end || wanted.end > all.len() {
        return None;
    }
    let context = if text.contains("PRIVATE KEY") {
        0..all.len()
    } else {
        let before = margin(all[..wanted.start].iter().rev());
        let after = margin(all[wanted.end..].iter());
        wanted.start - before..wanted.end + after
    };
    let raw = all[context.clone()].concat();
    let redacted = redact(&raw);
    let shown = crate::index::section_lines(&redacted, &raw, context.len());
    let from = wanted.start - context.start;
    Some(shown[from..from + wanted.len()].concat())
}

/// How many of `lines` (read away from the lines shown) the margin takes.
fn margin<'a>(lines: impl Iterator<Item = &'a &'a str>) -> usize {
    let mut taken = 0;
    let mut solid = 0;
    // Per quote kind: non-blank lines read past the first quote that had
    // [`QUOTE_LINES`] of them before it.
    let mut beyond: [Option<usize>; 2] = [None, None];
    let done = |solid, beyond: &[Option<usize>; 2]| {
        solid >= MARGIN_LINES && beyond.iter().all(|b| b.is_some_and(|n| n >= QUOTE_LINES))
    };
    for line in lines {
        if done(solid, &beyond) {
            break;
        }
        taken += 1;
        let blank = line.trim().is_empty();
        for (b, quote) in beyond.iter_mut().zip(['"', '\'']) {
            match b {
                Some(n) => *n += usize::from(!blank),
                None if solid >= QUOTE_LINES && line.contains(quote) => *b = Some(0),
                None => {}
            }
        }
        solid += usize::from(!blank);
    }
    taken
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::redact::rules::PATTERNS;

    /// Every window of `text`, cut both ways, against the whole redacted.
    fn every_window_agrees(text: &str) {
        let raw: Vec<&str> = text.split_inclusive('\n').collect();
        let whole = redact(text);
        let expected = crate::index::section_lines(&whole, text, raw.len());
        for start in 0..raw.len() {
            for len in [1, 2, 5] {
                let end = (start + len).min(raw.len());
                let got = lines(text, start..end).unwrap();
                assert_eq!(
                    got,
                    expected[start..end].concat(),
                    "lines {start}..{end} of:\n{text}"
                );
            }
        }
    }

    fn filler(n: usize) -> String {
        (0..n)
            .map(|i| format!("note {i}: the build went fine, nothing to add\n"))
            .collect()
    }

    #[test]
    fn a_secret_across_a_window_edge_is_redacted() {
        let cases = [
            "aws_secret_access_key =\n  wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY\n".to_string(),
            "password: \"first line of it\nand the second\nthird\"\n".to_string(),
            format!(
                "password: \"opened here\n{}and closed\"\n",
                "inside the quotes\n".repeat(30)
            ),
            format!(
                "token = 'a{}b'\n",
                "still quoted, \"with\" \"double\" \"quotes\" \"too\"\n".repeat(20)
            ),
            format!(
                "-----BEGIN RSA PRIVATE KEY-----\n{}-----END RSA PRIVATE KEY-----\n",
                "MIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gun\n".repeat(20)
            ),
            "the staging password is\nhunter2-Tr0ub4dor&3 and the pw: Xk9#mQ2$vL7p\n".to_string(),
            format!(
                "password: \"start\n{}end\"\n",
                "it's inside, don't show it\n".repeat(30)
            ),
            format!(
                "api_token\n=\n\"\n{}end\"\n",
                "a line with 'quotes' in it\n\n".repeat(12)
            ),
        ];
        for case in &cases {
            let text = format!("{}{case}{}", filler(12), filler(12));
            every_window_agrees(&text);
            every_window_agrees(case);
        }
    }

    #[test]
    fn a_window_redacts_what_is_in_it() {
        let text = format!(
            "{}my AWS secret key is wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY\n{}",
            filler(40),
            filler(40)
        );
        let at = 40;
        let got = lines(&text, at..at + 1).unwrap();
        assert!(got.contains("[REDACTED]"), "{got}");
        assert!(lines(&text, 81..82).is_none());
        assert!(lines(&text, 3..3).is_none());
    }

    /// The margin argument holds only if every rule but the private key
    /// block and the two quoted values stays on one line or crosses lines
    /// through whitespace: no `.` under `(?s)`, and every negated class
    /// excludes whitespace or line breaks.
    #[test]
    fn rules_are_bounded_but_three() {
        let mut unbounded = Vec::new();
        for (i, (pattern, ..)) in PATTERNS.iter().enumerate() {
            // `[^A-Za-z0-9_-]` is a boundary of one character, not a run.
            let pattern = pattern.replace("[^A-Za-z0-9_-]", "");
            let mut open = false;
            let classes = pattern
                .split("[^")
                .skip(1)
                .map(|rest| rest.split(']').next().unwrap_or(""));
            for class in classes {
                if !class.contains(r"\s") && !class.contains(r"\n") {
                    open = true;
                }
            }
            if pattern.contains("(?s)") {
                open = true;
            }
            if open {
                unbounded.push(i);
            }
        }
        let expected: Vec<usize> = PATTERNS
            .iter()
            .enumerate()
            .filter(|(_, (p, ..))| {
                p.contains("PRIVATE KEY")
                    || p.ends_with(r#"[^"]{3,})""#)
                    || p.ends_with("[^']{3,})'")
            })
            .map(|(i, _)| i)
            .collect();
        assert_eq!(expected.len(), 3, "the three long rules moved");
        assert_eq!(unbounded, expected);
    }
}
