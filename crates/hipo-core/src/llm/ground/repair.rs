//! Form, repaired before an answer is judged: what a good model writes in
//! an ordinary imperfect way is normalised, not refused. Pure.
//!
//! - A filler bullet (`None mentioned`, `n/a`, `No open items`, `Nothing
//!   noted`, in any case) is an empty section: it becomes `- none`.
//! - A bullet said again word for word is dropped where it comes again (a
//!   decision restated under Lessons Learned); a topic line whose details
//!   restate a decision is a different bullet and stays.
//! - Only mass repetition (most bullets the same: a small model filling
//!   every section with one source line) is refused.

use super::words;
use std::collections::HashSet;

/// Words a filler bullet is made of besides its leading `none`, `no`,
/// `nothing` or `n/a`: "No open items", "None noted so far", "Nothing
/// specific mentioned".
const FILLER_WORDS: [&str; 26] = [
    "mentioned",
    "noted",
    "recorded",
    "reported",
    "identified",
    "specified",
    "specific",
    "listed",
    "made",
    "so",
    "far",
    "yet",
    "open",
    "items",
    "item",
    "decisions",
    "tasks",
    "completed",
    "lessons",
    "learned",
    "new",
    "other",
    "significant",
    "notable",
    "in",
    "this",
];

/// A bullet's text that says only that its section is empty.
pub(crate) fn is_filler(text: &str) -> bool {
    let w = words(text);
    let Some(first) = w.first() else {
        return true;
    };
    let lead = matches!(first.as_str(), "none" | "no" | "nothing" | "na" | "n")
        || (first == "not" && w.get(1).is_some_and(|s| s == "applicable"));
    lead && w.len() <= 5
        && w[1..].iter().all(|x| {
            FILLER_WORDS.contains(&x.as_str()) || x == "a" || x == "applicable" || x == "the"
        })
}

/// Bullets before repair and repeats dropped: what mass repetition is
/// judged on.
#[derive(Debug, Default, PartialEq)]
pub(crate) struct Repaired {
    pub text: String,
    /// Bullets that were not filler.
    pub bullets: usize,
    /// Of those, repeats of an earlier bullet (dropped).
    pub repeats: usize,
}

/// `answer` with filler bullets made `- none` and exact repeats dropped.
pub(crate) fn normalise(answer: &str) -> Repaired {
    let mut out = Repaired::default();
    let mut seen: HashSet<String> = HashSet::new();
    // Whether the current section kept a bullet; `None` outside sections.
    let mut kept: Option<bool> = None;
    let close = |out: &mut Repaired, kept: Option<bool>| {
        if kept == Some(false) {
            out.text.push_str("- none\n");
        }
    };
    for line in answer.lines() {
        let trimmed = line.trim();
        if trimmed.starts_with("## ") {
            close(&mut out, kept);
            kept = Some(false);
            out.text.push_str(trimmed);
            out.text.push('\n');
            continue;
        }
        let Some(bullet) = trimmed.strip_prefix("- ") else {
            if !trimmed.is_empty() {
                out.text.push_str(line);
                out.text.push('\n');
            }
            continue;
        };
        if is_filler(bullet) {
            continue;
        }
        out.bullets += 1;
        let key = words(bullet).join(" ");
        if key.len() >= 12 && !seen.insert(key) {
            out.repeats += 1;
            continue;
        }
        kept = kept.map(|_| true);
        out.text.push_str(trimmed);
        out.text.push('\n');
    }
    close(&mut out, kept);
    out
}

/// Refuses an answer most of whose bullets are one bullet said again.
pub(crate) fn mass_repetition(r: &Repaired) -> Result<(), String> {
    if r.bullets >= 3 && r.repeats * 2 >= r.bullets {
        return Err(format!(
            "the answer repeats a bullet across sections: {} of its {} bullets are repeats",
            r.repeats, r.bullets
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fillers_are_empty_sections() {
        for f in [
            "none",
            "None mentioned",
            "N/A",
            "No open items",
            "Nothing noted",
            "none.",
            "No decisions made",
            "Not applicable",
            "None noted so far",
        ] {
            assert!(is_filler(f), "{f}");
        }
        for real in [
            "no friday deploys",
            "None of the replicas lagged after 3.8",
            "nothing ships before the freeze ends",
            "Noted: use KST",
        ] {
            assert!(!is_filler(real), "{real}");
        }
        let r = normalise(
            "## Topics\n- a [project]: b\n## Key Decisions\n- None mentioned\n## Open Items\n- n/a\n- ship 3.8 on Monday\n",
        );
        assert_eq!(
            r.text,
            "## Topics\n- a [project]: b\n## Key Decisions\n- none\n## Open Items\n- ship 3.8 on Monday\n"
        );
    }

    #[test]
    fn a_repeat_is_dropped_from_the_later_section() {
        let a = "## Topics\n- Postgres 16 migration [project]: use logical replication\n## Key Decisions\n- use logical replication for the cutover\n## Lessons Learned\n- Use logical replication for the cutover.\n";
        let r = normalise(a);
        assert_eq!(
            r.text,
            "## Topics\n- Postgres 16 migration [project]: use logical replication\n## Key Decisions\n- use logical replication for the cutover\n## Lessons Learned\n- none\n"
        );
        assert_eq!((r.bullets, r.repeats), (3, 1));
        assert!(mass_repetition(&r).is_ok());
        let line = "- decisions: use logical replication for postgres";
        let mass = normalise(&format!(
            "## Topics\n{line}\n## Key Decisions\n{line}\n## Tasks Completed\n{line}\n"
        ));
        assert!(
            mass_repetition(&mass)
                .unwrap_err()
                .contains("repeats a bullet")
        );
    }
}
