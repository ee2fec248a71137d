//! Frontmatter, headings, `## ` sections and entries of any text: no
//! panic, and the section parser tiles the text from its first heading.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(doc) = hipo_core::markdown::parse_document(text) {
        assert!(text.ends_with(doc.body));
    }
    let _ = hipo_core::markdown::headings(text);
    let _ = hipo_core::markdown::entries(text);
    let _ = hipo_core::markdown::topics_of(text);
    let sections = hipo_core::markdown::sections(text);
    for pair in sections.windows(2) {
        assert_eq!(pair[0].end, pair[1].start);
    }
    if let Some(last) = sections.last() {
        assert_eq!(last.end, text.len());
    }
});
