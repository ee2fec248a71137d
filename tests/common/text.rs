//! Outputs made the same on every machine, for snapshots: only what
//! depends on the machine is masked.

use super::Project;

/// The temp directory as `[PROJECT]`, the wall clock of the last
/// compaction as `[TIME]`, the store's bytes on disk as `[SIZE]`.
pub fn masked(p: &Project, text: &str) -> String {
    let text = text.replace(p.path().to_str().unwrap(), "[PROJECT]");
    let text = mask_between(&text, "last run ", ",", "[TIME]");
    mask_between(&text, "store.redb (", ",", "[SIZE]")
}

/// Each text between `start` and the next `end` that starts with a digit
/// (a time, a size; not "never") replaced by `with`.
pub fn mask_between(text: &str, start: &str, end: &str, with: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(at) = rest.find(start) {
        let (head, tail) = rest.split_at(at + start.len());
        out.push_str(head);
        let Some(stop) = tail.find(end) else {
            rest = tail;
            break;
        };
        if tail.starts_with(|c: char| c.is_ascii_digit()) {
            out.push_str(with);
            rest = &tail[stop..];
        } else {
            rest = tail;
        }
    }
    out.push_str(rest);
    out
}
