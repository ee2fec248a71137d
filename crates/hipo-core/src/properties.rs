//! Property tests of the pure parsers hipo feeds untrusted text to: the
//! frontmatter/Markdown parser, the query parser and redaction. No panic,
//! no hang (inputs are bounded; the regex engine is linear), and the
//! invariants the rest of hipo relies on. Unit tests of the crate, as
//! these parsers are internal to it; the section cutter's properties are
//! beside it (`index::sections::props`). `PROPTEST_CASES` raises the case
//! counts.

use crate::markdown;
use crate::redact::{REDACTED, redact};
use crate::search::query;
use crate::strategies::{config, markdown_text, secretish};
use proptest::prelude::*;

proptest! {
    #![proptest_config(config(64))]

    #[test]
    fn parse_document_never_panics_and_its_body_is_the_files_tail(text in markdown_text()) {
        if let Ok(doc) = markdown::parse_document(&text) {
            prop_assert!(text.ends_with(doc.body));
            prop_assert!(doc.body_line >= 1);
            prop_assert!(doc.body_line <= text.lines().count() + 1);
        }
        let _ = markdown::entries(&text);
        let _ = markdown::topics_of(&text);
        let _ = markdown::estimate_tokens(&text);
    }

    #[test]
    fn headings_are_lines_of_the_text(text in markdown_text()) {
        let lines: Vec<&str> = text.lines().collect();
        for (i, depth, heading) in markdown::headings(&text) {
            prop_assert!(i < lines.len());
            prop_assert!(depth == 1 || depth == 2);
            prop_assert!(lines[i].contains(heading));
        }
    }

    #[test]
    fn sections_tile_the_text_from_the_first_heading(text in markdown_text()) {
        let sections = markdown::sections(&text);
        for (i, s) in sections.iter().enumerate() {
            prop_assert!(s.start < s.end && s.end <= text.len());
            prop_assert!(text.is_char_boundary(s.start) && text.is_char_boundary(s.end));
            prop_assert!(text[s.start..].starts_with("## "));
            prop_assert!(text[s.start..s.end].ends_with(s.body));
            prop_assert!(text[s.start..].contains(s.title));
            let next = sections.get(i + 1).map_or(text.len(), |n| n.start);
            prop_assert_eq!(s.end, next);
        }
    }

    #[test]
    fn query_parse_never_panics(input in "\\PC{0,120}") {
        let _ = query::parse(&input);
    }

    #[test]
    fn query_parse_never_panics_on_its_own_syntax(
        parts in prop::collection::vec(prop_oneof![
            "[+-]?\"[a-z ]{0,10}\"?",
            "[+-]?[a-z]{1,8}",
            "(type|level|after|before|week|month|path|foo):[a-z0-9,/-]{0,12}",
            "(after|before):20[0-9]{2}-[0-9]{2}-[0-9]{2}",
            "[+\"-]{1,3}",
        ], 0..10),
    ) {
        let input = parts.join(" ");
        if let Ok(q) = query::parse(&input) {
            for w in &q.text {
                prop_assert!(!w.is_empty(), "{:?}", q);
            }
        }
    }

    #[test]
    fn plain_words_parse_to_themselves(words in prop::collection::vec("[a-z]{1,10}", 1..8)) {
        let q = query::parse(&words.join(" ")).unwrap();
        prop_assert_eq!(q.text, words);
        prop_assert!(q.required.is_empty() && q.excluded.is_empty() && q.filters.is_empty());
    }

    #[test]
    fn redaction_is_idempotent_and_keeps_lines(text in secretish()) {
        let once = redact(&text).into_owned();
        prop_assert_eq!(redact(&once).into_owned(), once.clone());
        prop_assert_eq!(once.matches('\n').count(), text.matches('\n').count());
        // Whatever changed became [REDACTED]: the text is never mangled
        // any other way.
        if once != text {
            prop_assert!(once.contains(REDACTED));
        }
    }

    #[test]
    fn redaction_leaves_markdown_without_secrets_alone(text in markdown_text()) {
        let once = redact(&text);
        prop_assert_eq!(redact(&once).into_owned(), once.clone().into_owned());
        prop_assert_eq!(once.matches('\n').count(), text.matches('\n').count());
    }

    #[test]
    fn prose_is_never_redacted(text in "[a-zA-Z ,.]{0,200}") {
        prop_assert_eq!(redact(&text).into_owned(), text.clone());
    }
}
