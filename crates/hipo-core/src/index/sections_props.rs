//! Properties of the section cutter on generated Markdown: sections are
//! in order and disjoint, cover every line that holds text, report line
//! and byte ranges that agree with each other, and their windows tile the
//! section with bounded overlap.

use super::strategies::{config, markdown_text};
use super::*;
use proptest::prelude::*;

/// 1-based number of the line holding byte `at`.
fn line_of(text: &str, at: usize) -> usize {
    text.as_bytes()[..at]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
        + 1
}

proptest! {
    #![proptest_config(config(64))]

    #[test]
    fn sections_are_ordered_consistent_and_cover_the_text(text in markdown_text()) {
        let sections: Vec<Section> = split(&text).collect();
        let total = text.lines().count().max(1);
        let mut covered = vec![false; total + 2];
        let mut prev_end = 0;
        for s in &sections {
            let (first, last) = s.lines;
            prop_assert!(1 <= first && first <= last && last <= total, "{:?} of {}", s.lines, total);
            prop_assert!(s.bytes.start >= prev_end && s.bytes.start < s.bytes.end);
            prop_assert!(s.bytes.end <= text.len());
            prop_assert!(text.is_char_boundary(s.bytes.start) && text.is_char_boundary(s.bytes.end));
            prop_assert_eq!(line_of(&text, s.bytes.start), first);
            prop_assert_eq!(line_of(&text, s.bytes.end - 1), last);
            prev_end = s.bytes.end;
            covered[first..=last].iter_mut().for_each(|c| *c = true);
            windows_tile(s, &text)?;
        }
        // Every line with text is in a section, but for frontmatter and a
        // `# title` with nothing under it.
        let (body, body_from) = match markdown::split_frontmatter(&text) {
            Ok((Some(_), body, line)) => (body, line),
            _ => (text.as_str(), 1),
        };
        let titles: Vec<usize> = markdown::headings(body)
            .into_iter()
            .filter(|h| h.1 == 1)
            .map(|h| h.0 + 1)
            .collect();
        for (i, line) in text.lines().enumerate().skip(body_from - 1) {
            let n = i + 1;
            let blank = line.trim().is_empty() || line.trim() == "\u{feff}";
            // headings() counts from the body, after frontmatter.
            let title = titles.contains(&(n + 1 - body_from));
            prop_assert!(blank || title || covered[n], "line {} not covered: {:?}", n, line);
        }
    }
}

fn windows_tile(s: &Section, text: &str) -> Result<(), TestCaseError> {
    let w = &s.windows;
    prop_assert!(!w.is_empty());
    prop_assert_eq!(w[0].bytes.start, s.bytes.start);
    prop_assert_eq!(w[w.len() - 1].bytes.end, s.bytes.end);
    for (a, b) in w.iter().zip(w.iter().skip(1)) {
        // Each window starts after the previous one and no later than its
        // end; the overlap is bounded.
        prop_assert!(a.bytes.start < b.bytes.start && b.bytes.start <= a.bytes.end);
        prop_assert!(a.bytes.end - b.bytes.start <= WINDOW_OVERLAP_BYTES);
    }
    for win in w {
        prop_assert!(
            text.is_char_boundary(win.bytes.start) && text.is_char_boundary(win.bytes.end)
        );
        prop_assert!(win.lines.0 <= win.lines.1);
        prop_assert!(
            win.user
                .iter()
                .all(|&n| win.lines.0 <= n && n <= win.lines.1)
        );
    }
    Ok(())
}
