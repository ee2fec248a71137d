//! The three-way merge of a raw log, `## ` entry by entry.
//!
//! git's own `union` driver works line by line: given two entries
//! appended at the same end of a file it keeps a line the two share (`-
//! decisions: none`) once, so one entry loses its lines to the other and
//! neither stays whole. Here an entry (its heading, and everything up to
//! the next heading outside a code fence) is the unit: each is kept whole,
//! as many times as the merge says and no more, and the merged order is a
//! function of the two sides' contents, never of which side is "ours", so
//! a merge, the same merge seen from the other clone and a rebase that
//! replays it give the same bytes.

use crate::markdown;
use std::collections::HashMap;

/// A raw log cut into what comes before its first entry and its entries,
/// each without the blank lines that separate it from the next.
struct Log<'a> {
    preamble: &'a str,
    entries: Vec<&'a str>,
}

impl<'a> Log<'a> {
    fn parse(text: &'a str) -> Log<'a> {
        let sections = markdown::sections(text);
        let first = sections.first().map_or(text.len(), |s| s.start);
        Log {
            preamble: &text[..first],
            entries: sections
                .iter()
                .map(|s| text[s.start..s.end].trim_end_matches(['\n', '\r']))
                .collect(),
        }
    }
}

/// How many times each entry appears in a list.
fn counts<'a>(entries: &[&'a str]) -> HashMap<&'a str, usize> {
    let mut map = HashMap::new();
    for e in entries {
        *map.entry(*e).or_insert(0) += 1;
    }
    map
}

/// Merges a raw log changed on two sides since `base`. An entry either
/// side removed is removed (a person may delete one by hand); an entry
/// either side added is kept, once when both added the same text; every
/// entry stays whole. The entries both sides hold in the same places
/// first come first, as they were; the rest follow, the two sides' lists
/// merged by taking the head whose text sorts first (each side's
/// own order is kept, and the result does not depend on which side is
/// which). Where one side's head is an entry the other side still holds
/// further on, the other side's head goes first: both sides' orders
/// around the entries they share are kept (an entry edited in place
/// stays in its place). Entries are separated by one blank line, as
/// `hipo checkpoint` writes them.
pub fn merge(base: &str, ours: &str, theirs: &str) -> String {
    let (b, o, t) = (Log::parse(base), Log::parse(ours), Log::parse(theirs));
    let mut remaining = result_counts(&b, &o, &t);
    let mut out = Vec::new();
    let common = o
        .entries
        .iter()
        .zip(&t.entries)
        .take_while(|(x, y)| x == y)
        .count();
    for e in &o.entries[..common] {
        emit(e, &mut remaining, &mut out);
    }
    let (last_o, last_t) = (last_places(&o.entries), last_places(&t.entries));
    // Whether ours' head `x` (at `i`) goes before theirs' head `y` (at `j`).
    let ours_first = |x: &str, i: usize, y: &str, j: usize| {
        let y_later_in_ours = last_o.get(y).is_some_and(|l| *l > i);
        let x_later_in_theirs = last_t.get(x).is_some_and(|l| *l > j);
        match (y_later_in_ours, x_later_in_theirs) {
            (true, false) => true,
            (false, true) => false,
            _ => x < y,
        }
    };
    let (mut i, mut j) = (common, common);
    loop {
        while i < o.entries.len() && remaining.get(o.entries[i]).copied().unwrap_or(0) == 0 {
            i += 1;
        }
        while j < t.entries.len() && remaining.get(t.entries[j]).copied().unwrap_or(0) == 0 {
            j += 1;
        }
        match (o.entries.get(i), t.entries.get(j)) {
            (None, None) => break,
            (Some(x), Some(y)) if x == y => {
                emit(x, &mut remaining, &mut out);
                i += 1;
                j += 1;
            }
            (Some(x), Some(y)) if ours_first(x, i, y, j) => {
                emit(x, &mut remaining, &mut out);
                i += 1;
            }
            (_, Some(y)) => {
                emit(y, &mut remaining, &mut out);
                j += 1;
            }
            (Some(x), None) => {
                emit(x, &mut remaining, &mut out);
                i += 1;
            }
        }
    }
    render(preamble(b.preamble, o.preamble, t.preamble), &out)
}

/// Each entry's last place in a list.
fn last_places<'a>(entries: &[&'a str]) -> HashMap<&'a str, usize> {
    entries.iter().enumerate().map(|(n, e)| (*e, n)).collect()
}

fn emit<'a>(e: &'a str, remaining: &mut HashMap<&'a str, usize>, out: &mut Vec<&'a str>) {
    if let Some(n) = remaining.get_mut(e).filter(|n| **n > 0) {
        *n -= 1;
        out.push(e);
    }
}

/// How many times each entry is in the merge: what the base held, less
/// the most either side removed, plus the most either side added (so an
/// entry both sides appended alike is there once).
fn result_counts<'a>(b: &Log<'a>, o: &Log<'a>, t: &Log<'a>) -> HashMap<&'a str, usize> {
    let (cb, co, ct) = (counts(&b.entries), counts(&o.entries), counts(&t.entries));
    let mut out = HashMap::new();
    for e in co.keys().chain(ct.keys()) {
        let (nb, no, nt) = (
            cb.get(e).copied().unwrap_or(0),
            co.get(e).copied().unwrap_or(0),
            ct.get(e).copied().unwrap_or(0),
        );
        let removed = nb.saturating_sub(no).max(nb.saturating_sub(nt));
        let added = no.saturating_sub(nb).max(nt.saturating_sub(nb));
        out.insert(*e, nb - removed + added);
    }
    out
}

/// The text before the first entry (the `# YYYY-MM-DD` title): a side's
/// change wins over the base; two different changes, the one that sorts
/// last (either clone picks the same).
fn preamble<'a>(base: &'a str, ours: &'a str, theirs: &'a str) -> &'a str {
    if ours == base {
        theirs
    } else if theirs == base {
        ours
    } else {
        ours.max(theirs)
    }
}

fn render(preamble: &str, entries: &[&str]) -> String {
    let mut text = preamble.to_string();
    if entries.is_empty() {
        return text;
    }
    if !text.is_empty() && !text.ends_with('\n') {
        text.push('\n');
    }
    if !text.is_empty() && !text.ends_with("\n\n") {
        text.push('\n');
    }
    text.push_str(&entries.join("\n\n"));
    text.push('\n');
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    const BASE: &str = "# 2027-01-21\n\n## Start [project]\n- request: x\n";

    fn with(entries: &[&str]) -> String {
        let mut text = BASE.to_string();
        for e in entries {
            text.push_str(&format!(
                "\n## {e} [project]\n- decisions: none\n- outcome: done\n"
            ));
        }
        text
    }

    fn entries(text: &str) -> Vec<String> {
        Log::parse(text)
            .entries
            .iter()
            .map(|e| e.to_string())
            .collect()
    }

    #[test]
    fn two_appends_at_the_end_are_both_kept_whole_in_one_order() {
        let (ours, theirs) = (with(&["Beta"]), with(&["Alpha"]));
        let m = merge(BASE, &ours, &theirs);
        assert_eq!(m, merge(BASE, &theirs, &ours));
        assert_eq!(m, with(&["Alpha", "Beta"]));
        assert_eq!(m.matches("- decisions: none\n").count(), 2);
    }

    #[test]
    fn a_rebase_replaying_one_side_gives_what_the_merge_gave() {
        // ours: a1 a2; theirs: b1 then b2 in a second commit.
        let merged = merge(BASE, &with(&["a1", "a2"]), &with(&["b1", "b2"]));
        let first = merge(BASE, &with(&["a1", "a2"]), &with(&["b1"]));
        let replayed = merge(&with(&["b1"]), &first, &with(&["b1", "b2"]));
        assert_eq!(entries(&replayed).len(), 5);
        let mut a = entries(&merged);
        let mut b = entries(&replayed);
        a.sort();
        b.sort();
        assert_eq!(a, b);
    }

    #[test]
    fn the_same_entry_appended_on_both_sides_is_kept_once_and_a_removal_holds() {
        let m = merge(BASE, &with(&["Same", "Mine"]), &with(&["Same"]));
        assert_eq!(m.matches("## Same").count(), 1);
        assert_eq!(m.matches("## Mine").count(), 1);
        let base = with(&["Old"]);
        let removed = BASE.to_string();
        let m = merge(&base, &removed, &with(&["Old", "New"]));
        assert!(!m.contains("## Old") && m.contains("## New"));
    }

    #[test]
    fn an_entry_edited_in_place_stays_in_its_place() {
        let base = with(&["Zulu", "Alpha"]);
        let edit = |t: &str| {
            t.replace(
                "## Zulu [project]\n- decisions: none",
                "## Zulu [project]\n- decisions: edited",
            )
        };
        let edited = edit(&base);
        assert_ne!(edited, base);
        let appended = with(&["Zulu", "Alpha", "Mike"]);
        let m = merge(&base, &edited, &appended);
        assert_eq!(m, merge(&base, &appended, &edited));
        assert_eq!(m, edit(&with(&["Zulu", "Alpha", "Mike"])));
    }

    #[test]
    fn a_fenced_heading_stays_inside_its_entry() {
        let ours = format!("{BASE}\n## Code [project]\n```\n## not a heading\n```\n");
        let theirs = with(&["Zed"]);
        let m = merge(BASE, &ours, &theirs);
        assert!(m.contains("```\n## not a heading\n```\n\n## Zed"));
        assert_eq!(m, merge(BASE, &theirs, &ours));
    }

    #[test]
    fn a_file_both_sides_created_merges_with_an_empty_base() {
        let a = "# 2027-01-22\n\n## A [project]\n- x: 1\n";
        let b = "# 2027-01-22\n\n## B [project]\n- x: 1\n";
        assert_eq!(
            merge("", a, b),
            "# 2027-01-22\n\n## A [project]\n- x: 1\n\n## B [project]\n- x: 1\n"
        );
    }
}
