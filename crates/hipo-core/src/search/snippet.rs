//! Snippets: the best group of matches in a window, widened to
//! [`SNIPPET_BYTES`] of context on word boundaries, put on one line with
//! the matched terms marked.

use crate::index::{Fields, analyzer};
use std::collections::BTreeMap;
use std::ops::Range;
use tantivy::snippet::SnippetGenerator;
use tantivy::{Score, Searcher, Term};

/// Snippet length in bytes.
pub const SNIPPET_BYTES: usize = 220;

/// Finds and marks query terms in passages.
pub(super) struct Marker {
    /// Picks the best group of matches (weights favour rare terms).
    generator: SnippetGenerator,
    /// Emits only the query's terms, with offsets.
    terms: tantivy::tokenizer::TextAnalyzer,
}

impl Marker {
    pub(super) fn new(searcher: &Searcher, f: &Fields, terms: &[String]) -> Marker {
        let mut weights = BTreeMap::new();
        for t in terms {
            let df = searcher
                .doc_freq(&Term::from_field_text(f.body, t))
                .unwrap_or(0);
            weights.insert(t.clone(), 1.0 / (1.0 + df as Score));
        }
        let analyzer = analyzer::snippet_analyzer(terms);
        Marker {
            generator: SnippetGenerator::new(weights, analyzer.clone(), f.body, SNIPPET_BYTES),
            terms: analyzer,
        }
    }

    /// Byte ranges of every query term in `text[range]`, merged.
    fn marks(&self, text: &str, range: Range<usize>) -> Vec<Range<usize>> {
        let mut analyzer = self.terms.clone();
        let mut stream = analyzer.token_stream(&text[range.clone()]);
        let mut marks = Vec::new();
        while let Some(t) = stream.next() {
            marks.push(t.offset_from + range.start..t.offset_to + range.start);
        }
        tantivy::snippet::collapse_overlapped_ranges(&marks)
    }
}

/// A snippet as shown.
pub(super) struct Snip {
    /// Plain text, one line.
    pub text: String,
    /// With `**…**` around matches.
    pub marked: String,
    pub highlights: Vec<[usize; 2]>,
    /// Byte offset in the window of the first match (or of the snippet).
    pub at: usize,
    /// The bytes of the window the snippet shows.
    pub cut: Range<usize>,
}

/// How far back from the first match a snippet starts, at most.
const LEAD_BYTES: usize = 60;

/// Cuts the snippet from a window: the best group of matches (chosen by
/// tantivy's snippet generator, fed only the matching tokens), widened to
/// [`SNIPPET_BYTES`] of context on word boundaries. Without a match in the
/// body (a heading match, a filter-only query) it is the window's start.
pub(super) fn snippet(marker: &Marker, window: &str) -> Snip {
    let s = marker.generator.snippet(window);
    let fragment = s.fragment_range();
    let marks: Vec<Range<usize>> = s
        .highlighted()
        .iter()
        .map(|m| m.start + fragment.start..m.end + fragment.start)
        .collect();
    // The heading opening a window is shown as the hit's heading already.
    let floor = match window.find('\n') {
        Some(nl) if window.starts_with('#') && marks.first().is_none_or(|m| m.start > nl) => nl + 1,
        _ => 0,
    };
    let (first, last) = match (marks.first(), marks.last()) {
        (Some(a), Some(b)) => (a.start, b.end),
        _ => (floor, floor),
    };
    // A little context before the first match, from a word start...
    let mut start = floor_char(window, first.saturating_sub(LEAD_BYTES)).max(floor);
    if start > floor && start < first {
        start = window[start..first]
            .find(char::is_whitespace)
            .map_or(first, |i| start + i + 1);
    }
    // ...and the rest of the budget after it, to a word end.
    let mut end = floor_char(window, (start + SNIPPET_BYTES).max(last));
    if end < window.len()
        && let Some(i) = window[last..end].rfind(char::is_whitespace)
    {
        end = last + i;
    }
    let at = marks.first().map_or(start, |m| m.start);
    let marks = if marks.is_empty() {
        marks
    } else {
        marker.marks(window, start..end)
    };
    render(window, start..end, &marks, at)
}

/// The largest char boundary at or below `i`.
fn floor_char(s: &str, i: usize) -> usize {
    let mut i = i.min(s.len());
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// Puts a fragment on one line (whitespace runs become one space), with
/// `**` around the marks and `…` where text was cut.
fn render(window: &str, range: Range<usize>, marks: &[Range<usize>], at: usize) -> Snip {
    let mut text = String::with_capacity(range.len() + 8);
    let mut marked = String::with_capacity(range.len() + 16);
    let mut highlights = Vec::new();
    let mut marks = marks.iter().peekable();
    let mut open: Option<usize> = None;
    if range.start > 0 && !window[..range.start].ends_with('\n') {
        text.push('…');
        marked.push('…');
    }
    let bytes = window.as_bytes();
    for (i, c) in window[range.clone()].char_indices() {
        let i = i + range.start;
        // Markdown emphasis (`**bold**`) would read as our own marks.
        let starred = |j: usize| bytes.get(j) == Some(&b'*');
        let emphasis = c == '*' && (starred(i + 1) || (i > 0 && starred(i - 1)));
        if let Some(start) = open
            && marks.peek().is_some_and(|m| m.end <= i)
        {
            highlights.push([start, text.len()]);
            marked.push_str("**");
            marks.next();
            open = None;
        }
        if open.is_none() && marks.peek().is_some_and(|m| m.start == i) {
            open = Some(text.len());
            marked.push_str("**");
        }
        if emphasis {
            continue;
        }
        if c.is_whitespace() {
            if !text.is_empty() && !text.ends_with(' ') {
                text.push(' ');
                marked.push(' ');
            }
        } else {
            text.push(c);
            marked.push(c);
        }
    }
    if let Some(start) = open {
        highlights.push([start, text.len()]);
        marked.push_str("**");
    }
    if text.ends_with(' ') {
        text.pop();
        marked = marked.trim_end().to_string();
    }
    if !window[range.end..].trim().is_empty() {
        text.push('…');
        marked.push('…');
    }
    Snip {
        text,
        marked,
        highlights,
        at,
        cut: range,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn generator() -> Marker {
        let dir = tempfile::tempdir().unwrap();
        let mut builder = tantivy::schema::Schema::builder();
        builder.add_text_field("body", tantivy::schema::TEXT);
        let index = tantivy::Index::create_in_dir(dir.path(), builder.build()).unwrap();
        let body = index.schema().get_field("body").unwrap();
        let terms: Vec<String> = ["pancak", "회의", "의에"].map(String::from).to_vec();
        let w: BTreeMap<String, Score> = terms.iter().map(|t| (t.clone(), 1.0)).collect();
        let analyzer = analyzer::snippet_analyzer(&terms);
        Marker {
            generator: SnippetGenerator::new(w, analyzer.clone(), body, SNIPPET_BYTES),
            terms: analyzer,
        }
    }

    #[test]
    fn snippet_marks_matches_on_one_line() {
        let s = snippet(
            &generator(),
            "## Breakfast\nI froze\n the Pancakes on Saturday.\n",
        );
        assert_eq!(s.text, "I froze the Pancakes on Saturday.");
        assert_eq!(s.marked, "I froze the **Pancakes** on Saturday.");
        let [a, b] = s.highlights[0];
        assert_eq!(&s.text[a..b], "Pancakes");
    }

    #[test]
    fn overlapping_cjk_bigrams_are_one_mark() {
        let s = snippet(&generator(), "내일 회의에서 보자");
        assert_eq!(s.marked, "내일 **회의에**서 보자");
    }

    #[test]
    fn markdown_emphasis_does_not_collide_with_marks() {
        let s = snippet(&generator(), "3. **Pancakes**: frozen\n");
        assert_eq!(s.marked, "3. **Pancakes**: frozen");
        assert_eq!(s.text, "3. Pancakes: frozen");
    }

    #[test]
    fn every_match_in_the_widened_snippet_is_marked() {
        let text = format!(
            "{} pancakes here, and pancakes again after.",
            "filler ".repeat(80)
        );
        let s = snippet(&generator(), &text);
        assert_eq!(s.highlights.len(), 2, "{}", s.marked);
        assert!(s.marked.starts_with('…'));
        assert!(
            s.marked
                .contains("**pancakes** here, and **pancakes** again after.")
        );
    }

    #[test]
    fn no_match_shows_the_first_lines() {
        let s = snippet(&generator(), "## Heading\nfirst line\nsecond\n");
        assert_eq!(s.text, "first line second");
        assert!(s.highlights.is_empty());
    }
}
