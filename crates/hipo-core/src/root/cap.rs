//! Fitting ROOT.md under `rootMaxTokens`, whatever the input: history
//! compressed first, old project and reference topics moved or dropped,
//! then every generated section trimmed, Active Context last.

use super::notes::standing_kind;
use super::{AUTO, RootInput, SECTIONS, TopicLine};
use crate::markdown::{EntryType, estimate_tokens};
use std::collections::BTreeMap;

pub(super) struct Frame {
    pub(super) frontmatter: String,
    pub(super) extra: Vec<(String, String)>,
}

/// ROOT's four sections as they stand while it is fitted to its cap.
#[derive(Clone)]
pub(super) struct Parts {
    pub(super) active: String,
    pub(super) patterns: String,
    pub(super) history: String,
    pub(super) topics: Vec<TopicLine>,
    /// Topics left out, counted in a last line of the index.
    pub(super) omitted: usize,
}

impl Parts {
    pub(super) fn render(&self, frame: &Frame) -> String {
        let mut out = frame.frontmatter.clone();
        out.push('\n');
        for (title, body) in
            SECTIONS
                .iter()
                .zip([self.active.as_str(), &self.patterns, &self.history, ""])
        {
            out.push_str(&format!("## {title}\n"));
            if *title == "Topics Index" {
                // Always computed, so marked like every section hipo writes.
                out.push_str(AUTO);
                out.push('\n');
                for t in &self.topics {
                    out.push_str(&t.text);
                    out.push('\n');
                }
                if self.omitted > 0 {
                    out.push_str(&omitted_line(self.omitted));
                }
            } else {
                out.push_str(body);
            }
            out.push('\n');
        }
        for (title, body) in &frame.extra {
            out.push_str(&format!("## {title}\n{body}"));
            if !body.ends_with('\n') {
                out.push('\n');
            }
        }
        out
    }

    pub(super) fn tokens(&self, frame: &Frame) -> usize {
        estimate_tokens(&self.render(frame))
    }

    /// The tokens with `omitted` counted, as the index would say it.
    pub(super) fn over(&self, size: usize, budget: usize) -> bool {
        size + if self.omitted > 0 {
            estimate_tokens(&omitted_line(self.omitted))
        } else {
            0
        } > budget
    }
}

/// The oldest project topics go, then the oldest references; user and
/// feedback topics stay. A project topic over 90 days old moves to
/// Historical Summary (a keyword under its month) while that stays within
/// a quarter of the cap; the rest are counted as omitted.
pub(super) fn drop_old_topics(
    root: &mut Parts,
    frame: &Frame,
    input: &RootInput,
    budget: usize,
    history_kept: bool,
) {
    let topics = &root.topics;
    let mut order: Vec<usize> = (0..topics.len())
        .filter(|&i| {
            matches!(
                topics[i].topic.kind,
                EntryType::Project | EntryType::Reference
            )
        })
        .collect();
    order.sort_by_key(|&i| {
        (
            topics[i].topic.kind == EntryType::Reference,
            std::cmp::Reverse(topics[i].age),
        )
    });
    // Sizes below are kept conservatively: a dropped line saves one token
    // less than its own estimate, an added one costs all of its own.
    let mut size = root.tokens(frame);
    let mut drop = vec![false; topics.len()];
    let mut moved: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut moved_tokens = 0;
    for &i in &order {
        if !root.over(size, budget) {
            break;
        }
        let t = &root.topics[i];
        drop[i] = true;
        size -= estimate_tokens(&t.text).saturating_sub(1);
        let month = (input.today - chrono::Duration::days(t.age))
            .format("%Y-%m")
            .to_string();
        let cost = match moved.get(&month) {
            Some(_) => estimate_tokens(&t.topic.keyword) + 1,
            None => estimate_tokens(&moved_line(&month, &[&t.topic.keyword])),
        };
        // Not into a hand-written Historical Summary: it is kept verbatim.
        let movable = t.topic.kind == EntryType::Project && t.age > 90 && !history_kept;
        if movable && moved_tokens + cost <= budget / 4 {
            moved
                .entry(month)
                .or_default()
                .push(t.topic.keyword.clone());
            moved_tokens += cost;
            size += cost;
        } else {
            root.omitted += 1;
        }
    }
    for (month, keywords) in &moved {
        let kws: Vec<&String> = keywords.iter().collect();
        root.history.push_str(&moved_line(month, &kws));
    }
    let mut flags = drop.into_iter();
    root.topics.retain(|_| !flags.next().unwrap_or(false));
}

/// Still over (a day of ten thousand entries, years of history): the cap
/// holds whatever the input. Historical Summary loses its oldest lines,
/// Recent Patterns its last; any project or reference topic left goes;
/// Active Context is cut to what the standing rules and facts leave (not
/// below a fifth of the cap), they are shortened (oldest first, to their
/// rule or first line), Active Context is cut further, they are cut to
/// their slugs, and only then do standing topics go ([`fill_standing`]):
/// a standing item is never dropped while a project line stays.
/// Hand-written sections are the person's own text and never cut.
pub(super) fn trim_to_cap(
    root: &mut Parts,
    frame: &Frame,
    budget: usize,
    kept: &[Option<String>; 3],
) {
    let room = |without: &Parts| budget.saturating_sub(without.tokens(frame));
    if kept[2].is_none() {
        let left = room(&Parts {
            history: String::new(),
            ..root.clone()
        });
        root.history = fit_section(&root.history, left, true);
    }
    if kept[1].is_none() {
        let left = room(&Parts {
            patterns: String::new(),
            ..root.clone()
        });
        root.patterns = fit_section(&root.patterns, left, false);
    }
    let mut size = Size::of(&root.render(frame));
    drop_topics(root, &mut size, budget, |t| !standing_kind(t.topic.kind));
    // Active Context down to what the standing items leave, but not below
    // a fifth of the cap; the items shortened; Active Context cut to what
    // is left; the items down to their slugs; and only then dropped.
    for (round, floor) in [(0, budget / 5), (1, 0)] {
        if kept[0].is_none() && root.over(size.tokens(), budget) {
            let left = room(&Parts {
                active: String::new(),
                ..root.clone()
            });
            root.active = fit_section(&root.active, left.max(floor), false);
            size = Size::of(&root.render(frame));
        }
        shorten_standing(root, &mut size, budget, round);
    }
    if root.over(size.tokens(), budget) {
        fill_standing(root, frame, budget);
    }
}

/// Even their slugs do not all fit: the standing lines are put back one
/// at a time, rules before facts, newest first, each in the longest form
/// that keeps the cap; the rest are counted as omitted. (Shortening them
/// all and dropping the oldest would leave the newest as bare slugs.)
fn fill_standing(root: &mut Parts, frame: &Frame, budget: usize) {
    let mut standing: Vec<TopicLine> = Vec::new();
    root.topics.retain(|t| {
        let keep = !standing_kind(t.topic.kind);
        if !keep {
            standing.push(t.clone());
        }
        keep
    });
    standing.sort_by_key(|t| (t.topic.kind != EntryType::Feedback, t.age));
    // Counted as if all were omitted while filling: the line only shrinks.
    root.omitted += standing.len();
    let mut size = Size::of(&root.render(frame));
    let mut kept = Vec::new();
    for mut t in standing {
        let forms = if t.forms.is_empty() {
            vec![t.text.clone()]
        } else {
            t.forms.clone()
        };
        for form in forms {
            let mut with = size;
            with.replace("", Some(&form));
            if !root.over(with.tokens(), budget) {
                size = with;
                t.text = form;
                kept.push(t);
                break;
            }
        }
    }
    root.omitted -= kept.len();
    // Back in the index's order: rules, then facts, newest first.
    kept.sort_by_key(|t| (t.topic.kind != EntryType::Feedback, t.age));
    let rest = std::mem::take(&mut root.topics);
    root.topics = kept.into_iter().chain(rest).collect();
}

/// A text's size as [`estimate_tokens`] counts it, kept exactly while
/// lines are taken out or replaced (over thousands of lines, a per-line
/// estimate would drift by a token a line).
#[derive(Clone, Copy)]
struct Size {
    ascii: usize,
    other: usize,
}

impl Size {
    fn of(text: &str) -> Size {
        let ascii = text.bytes().filter(u8::is_ascii).count();
        Size {
            ascii,
            other: text.chars().count() - ascii,
        }
    }

    fn tokens(self) -> usize {
        self.ascii.div_ceil(4) + self.other
    }

    /// Without `line` and its newline (none for an empty `line`), with
    /// `new` and its newline instead if given.
    fn replace(&mut self, line: &str, new: Option<&str>) {
        if !line.is_empty() {
            let old = Size::of(line);
            self.ascii = self.ascii.saturating_sub(old.ascii + 1);
            self.other = self.other.saturating_sub(old.other);
        }
        if let Some(new) = new.map(Size::of) {
            self.ascii += new.ascii + 1;
            self.other += new.other;
        }
    }
}

/// Oldest first, a standing line replaced by its `round`th shorter form
/// until the cap holds.
fn shorten_standing(root: &mut Parts, size: &mut Size, budget: usize, round: usize) {
    let mut order: Vec<usize> = (0..root.topics.len())
        .filter(|&i| !root.topics[i].forms.is_empty())
        .collect();
    order.sort_by_key(|&i| std::cmp::Reverse(root.topics[i].age));
    for i in order {
        if !root.over(size.tokens(), budget) {
            return;
        }
        let t = &mut root.topics[i];
        let Some(next) = t.forms.get(round + 1).cloned() else {
            continue;
        };
        size.replace(&t.text, Some(&next));
        t.text = next;
    }
}

/// Topics `which` allows dropped, until the cap holds: project and
/// reference before user facts before rules, oldest first; each counted
/// as omitted.
fn drop_topics(
    root: &mut Parts,
    size: &mut Size,
    budget: usize,
    which: impl Fn(&TopicLine) -> bool,
) {
    if !root.over(size.tokens(), budget) {
        return;
    }
    let topics = &root.topics;
    let mut order: Vec<usize> = (0..topics.len()).filter(|&i| which(&topics[i])).collect();
    order.sort_by_key(|&i| {
        let kind = match topics[i].topic.kind {
            EntryType::Project | EntryType::Reference => 0,
            EntryType::User => 1,
            EntryType::Feedback => 2,
        };
        (kind, std::cmp::Reverse(topics[i].age))
    });
    let mut drop = vec![false; topics.len()];
    for i in order {
        // (A rendered size already holds an omitted line, which `over`
        // adds again: conservative by a line.)
        if !root.over(size.tokens(), budget) {
            break;
        }
        drop[i] = true;
        size.replace(&root.topics[i].text, None);
        root.omitted += 1;
    }
    let mut flags = drop.into_iter();
    root.topics.retain(|_| !flags.next().unwrap_or(false));
}

/// What ends a section cut to stay under the cap.
pub(super) const TRIMMED: &str =
    "- … trimmed to stay under rootMaxTokens; see memory/daily/ and memory/monthly/\n";

/// A section hipo wrote (its marker line first), cut to `tokens`: whole
/// lines are kept from its end (`oldest_first`: the newest lines are the
/// last) or its start, a line too long for what is left is cut short, and
/// [`TRIMMED`] says so. Line token estimates add up to at least the
/// estimate of their concatenation, so the result is within `tokens`
/// unless even the marker and that line are not.
pub(super) fn fit_section(section: &str, tokens: usize, oldest_first: bool) -> String {
    if estimate_tokens(section) <= tokens {
        return section.to_string();
    }
    let mut lines: Vec<&str> = section.lines().collect();
    let marker = match lines.first() {
        Some(&AUTO) => {
            lines.remove(0);
            Some(AUTO)
        }
        _ => None,
    };
    let head = marker.map(|m| format!("{m}\n")).unwrap_or_default();
    let mut left = tokens.saturating_sub(estimate_tokens(&head) + estimate_tokens(TRIMMED));
    if oldest_first {
        lines.reverse();
    }
    let mut kept: Vec<String> = Vec::new();
    for line in lines {
        let cost = estimate_tokens(line) + 1;
        if cost <= left {
            kept.push(line.to_string());
            left -= cost;
            continue;
        }
        // Cut the line short if a useful part of it fits.
        if left > 8 {
            let (mut cut, mut ascii, mut other) = (String::new(), 0usize, 0usize);
            for c in line.chars() {
                let (a, o) = if c.is_ascii() {
                    (ascii + 1, other)
                } else {
                    (ascii, other + 1)
                };
                if a.div_ceil(4) + o + 2 > left {
                    break;
                }
                (ascii, other) = (a, o);
                cut.push(c);
            }
            cut.push('…');
            kept.push(cut);
        }
        break;
    }
    if oldest_first {
        kept.reverse();
    }
    let mut out = head;
    for line in kept {
        out.push_str(&line);
        out.push('\n');
    }
    out.push_str(TRIMMED);
    out
}

/// Lines of the model's Historical Summary kept however tight the cap.
pub(super) const HISTORY_FLOOR: usize = 6;

/// `- YYYY-MM (earlier topics): a, b`: project topics moved out of the
/// Topics Index to make room.
pub(super) fn moved_line(month: &str, keywords: &[impl AsRef<str>]) -> String {
    let kws: Vec<&str> = keywords.iter().map(AsRef::as_ref).collect();
    format!("- {month} (earlier topics): {}\n", kws.join(", "))
}

/// Drops a section's oldest bullet lines (the first: the model writes
/// them oldest first) until `fits`, keeping at least `floor` of them.
pub(super) fn shorten_oldest(section: &str, floor: usize, fits: impl Fn(&str) -> bool) -> String {
    let lines: Vec<&str> = section.lines().collect();
    let bullets: Vec<usize> = (0..lines.len())
        .filter(|&i| lines[i].starts_with("- "))
        .collect();
    // Without its `k` oldest bullets; fitting only gets easier as `k`
    // grows, so the fewest that fits is found by bisection.
    let without = |k: usize| {
        let first_kept = bullets.get(k).copied().unwrap_or(usize::MAX);
        let kept: Vec<&str> = (0..lines.len())
            .filter(|&i| i >= first_kept || !lines[i].starts_with("- "))
            .map(|i| lines[i])
            .collect();
        format!("{}\n", kept.join("\n"))
    };
    let most = bullets.len().saturating_sub(floor);
    let (mut lo, mut hi) = (0, most);
    while lo < hi {
        let mid = (lo + hi) / 2;
        if fits(&without(mid)) {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    without(lo)
}

pub(super) fn omitted_line(n: usize) -> String {
    format!("- … {n} older topics omitted to stay under rootMaxTokens; see memory/monthly/\n")
}
