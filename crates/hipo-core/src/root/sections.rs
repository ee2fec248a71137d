//! ROOT's sections as a person left them: hand-written narrative kept,
//! extra sections kept, and OpenClaw's MEMORY.md `## Compaction Root`.

use super::{AUTO, SECTIONS};
use crate::error::Result;
use std::path::Path;

/// The `##` sections of a body, in order, as (title, body).
pub(super) fn sections(text: &str) -> Vec<(String, String)> {
    let body = crate::markdown::split_frontmatter(text)
        .map(|(_, b, _)| b)
        .unwrap_or(text);
    crate::markdown::sections(body)
        .into_iter()
        .map(|s| (s.title.trim().to_string(), s.body.to_string()))
        .collect()
}

pub(super) fn section_index(title: &str) -> Option<usize> {
    SECTIONS.iter().position(|s| {
        title.starts_with(s.split(' ').next().unwrap_or(s))
            && title.starts_with(&s[..s.find(" (").unwrap_or(s.len())])
    })
}

/// Hand-written narrative sections of the existing ROOT (None = generate).
pub(super) fn hand_written(existing: Option<&str>) -> [Option<String>; 3] {
    let mut kept = [None, None, None];
    for (title, body) in existing.map(sections).unwrap_or_default() {
        if let Some(i) = section_index(&title).filter(|i| *i < 3)
            && !body.contains(AUTO)
            && !body.trim().is_empty()
        {
            let mut body = body.trim_end().to_string();
            body.push('\n');
            kept[i] = Some(body);
        }
    }
    kept
}

/// Sections that are not one of the four, kept as they were.
pub(super) fn kept_extra(existing: Option<&str>) -> Vec<(String, String)> {
    existing
        .map(sections)
        .unwrap_or_default()
        .into_iter()
        .filter(|(t, _)| section_index(t).is_none())
        .collect()
}

/// OpenClaw loads `MEMORY.md`, not ROOT.md: when `MEMORY.md` exists, its
/// `## Compaction Root` section is replaced (only that section) by ROOT's
/// Active Context, Recent Patterns and Topics Index.
pub fn sync_memory_md(root: &Path, root_md: &str) -> Result<()> {
    let path = root.join("MEMORY.md");
    let Ok(text) = std::fs::read_to_string(&path) else {
        return Ok(());
    };
    let mut section = String::from("## Compaction Root\n");
    for (title, body) in sections(root_md) {
        if matches!(section_index(&title), Some(0 | 1 | 3)) {
            section.push_str(&format!(
                "### {title}\n{}",
                body.replace(&format!("{AUTO}\n"), "")
            ));
        }
    }
    let updated = replace_section(&text, "Compaction Root", &section);
    if updated != text {
        crate::fsutil::write_atomic(&path, updated.as_bytes())?;
    }
    Ok(())
}

/// Replaces `## title` up to the next `## ` heading (or appends it).
pub(super) fn replace_section(text: &str, title: &str, new: &str) -> String {
    let all = crate::markdown::sections(text);
    let Some(i) = all.iter().position(|s| s.title.trim_end() == title) else {
        let mut out = text.to_string();
        if !out.is_empty() && !out.ends_with("\n\n") {
            out.push_str(if out.ends_with('\n') { "\n" } else { "\n\n" });
        }
        out.push_str(new);
        return out;
    };
    let s = all[i];
    let gap = if i + 1 < all.len() { "\n" } else { "" };
    format!("{}{new}{gap}{}", &text[..s.start], &text[s.end..])
}
