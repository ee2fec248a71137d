//! `<private>…</private>`: text a person marks as never to be remembered
//! (claude-mem's convention). What is inside the tags is dropped, leaving
//! `[private]`, before anything hipo writes (a capture's messages, a
//! checkpoint's fields and body, a node) and before anything it sends to
//! a model. The newlines inside stay, so a file's line numbers do not
//! move. Tags match in any case; a `<private>` that is never closed hides
//! everything after it (the safe reading of a cut-off or mistyped mark).

use std::borrow::Cow;

const OPEN: &str = "<private>";
const CLOSE: &str = "</private>";
/// What replaces a private span.
pub const MARK: &str = "[private]";

/// `text` with every private span replaced by [`MARK`] (borrowed when it
/// has none).
pub fn strip(text: &str) -> Cow<'_, str> {
    let lower = text.to_ascii_lowercase();
    if !lower.contains(OPEN) && !lower.contains(CLOSE) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    while let Some(open) = lower[at..].find(OPEN).map(|i| at + i) {
        out.push_str(&text[at..open]);
        let inner = open + OPEN.len();
        let end = lower[inner..]
            .find(CLOSE)
            .map_or(text.len(), |i| inner + i + CLOSE.len());
        out.push_str(MARK);
        out.extend(std::iter::repeat_n(
            '\n',
            text[open..end].matches('\n').count(),
        ));
        at = end;
    }
    out.push_str(&text[at..]);
    // A stray closing tag tells where private text ended, not where it
    // began: it is dropped, and what precedes it kept.
    let lower_out = out.to_ascii_lowercase();
    if lower_out.contains(CLOSE) {
        let mut cleaned = String::with_capacity(out.len());
        let mut from = 0;
        for (i, _) in lower_out.match_indices(CLOSE) {
            cleaned.push_str(&out[from..i]);
            from = i + CLOSE.len();
        }
        cleaned.push_str(&out[from..]);
        out = cleaned;
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn private_spans_go_and_lines_stay() {
        assert!(matches!(strip("nothing here"), Cow::Borrowed(_)));
        assert_eq!(
            strip("deploy <private>the pin is 4471</private> done"),
            "deploy [private] done"
        );
        assert_eq!(
            strip("a\n<PRIVATE>x\ny\n</Private>\nb <private>z</private>"),
            "a\n[private]\n\n\nb [private]"
        );
        // Never closed: hidden to the end.
        assert_eq!(strip("ok <private>secret\nmore"), "ok [private]\n");
        assert_eq!(strip("stray </private> tag"), "stray  tag");
        // Not ASCII around the tags.
        assert_eq!(strip("é<private>ü</private>ß"), "é[private]ß");
    }
}
