//! ROOT.md cut to a session-start context's size (the hook's
//! `context_chars`), by what matters least rather than at its end: the
//! standing rules and facts sit in the Topics Index, ROOT's last section,
//! and a cut at the end would take them first.

use super::sections::section_index;

/// What a cut section says in place of its lines.
fn cut_line(n: usize) -> String {
    format!("- … {n} line(s) cut to fit the session context; read memory/ROOT.md\n")
}

/// `root_md` within `max_chars` characters (as near as whole lines allow):
/// bullet lines go in this order, each section's from its least useful
/// end: Historical Summary (oldest first), other sections and the project
/// and reference lines of the Topics Index (last first), Recent Patterns,
/// Active Context (oldest last lines first), and the standing rules and
/// facts last (oldest first). Each cut section says how many lines it lost.
pub fn for_context(root_md: &str, max_chars: usize) -> String {
    let total = root_md.chars().count();
    if total <= max_chars {
        return root_md.to_string();
    }
    let lines: Vec<&str> = root_md.split_inclusive('\n').collect();
    // (class, place within class, line index): the lowest goes first.
    let mut order: Vec<(u8, usize, usize)> = Vec::new();
    let mut section: Option<Option<usize>> = None;
    for (i, line) in lines.iter().enumerate() {
        if let Some(title) = line.strip_prefix("## ") {
            section = Some(section_index(title.trim()));
            continue;
        }
        let Some(s) = section else { continue };
        if !line.starts_with("- ") {
            continue;
        }
        let standing = line.contains(" [feedback, ") || line.contains(" [user, ");
        let (class, place) = match s {
            Some(2) => (0, i),
            Some(3) if standing => (4, usize::MAX - i),
            Some(1) => (2, usize::MAX - i),
            Some(0) => (3, usize::MAX - i),
            _ => (1, usize::MAX - i),
        };
        order.push((class, place, i));
    }
    order.sort_unstable();
    let mut cut = vec![false; lines.len()];
    let mut size = total;
    // Room for a note in every section that may be cut.
    let sections = lines.iter().filter(|l| l.starts_with("## ")).count();
    let room = max_chars.saturating_sub(sections * cut_line(9999).chars().count());
    for (_, _, i) in order {
        if size <= room {
            break;
        }
        cut[i] = true;
        size -= lines[i].chars().count();
    }
    let mut out = String::with_capacity(root_md.len());
    let mut dropped = 0;
    for (i, line) in lines.iter().enumerate() {
        if line.starts_with("## ") && dropped > 0 {
            out.push_str(&cut_line(dropped));
            out.push('\n');
            dropped = 0;
        }
        if cut[i] {
            dropped += 1;
            continue;
        }
        if dropped > 0 && line.trim().is_empty() {
            continue;
        }
        out.push_str(line);
    }
    if dropped > 0 {
        out.push_str(&cut_line(dropped));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn history_goes_first_and_rules_last() {
        let history: String = (0..60)
            .map(|m| format!("- 20{:02}-01: a month of work on many things\n", m))
            .collect();
        let root = format!(
            "---\ntype: root\n---\n\n## Active Context (recent ~7 days)\n- a1\n- a2\n\n## Recent Patterns\n- p1\n\n## Historical Summary\n{history}\n## Topics Index\n- rule [feedback, 1d]: obey this\n- fact [user, 2d]: about Tom\n- work [project, 3d]\n"
        );
        let n = root.chars().count();
        assert_eq!(for_context(&root, n), root);
        let out = for_context(&root, n / 2);
        assert!(out.chars().count() <= n / 2, "{out}");
        assert!(!out.contains("- 2000-01:"), "oldest history first: {out}");
        assert!(out.contains("- 2059-01:"), "{out}");
        assert!(out.contains("line(s) cut to fit"), "{out}");
        for kept in ["- a1", "- p1", "obey this", "about Tom", "- work ["] {
            assert!(out.contains(kept), "{kept}: {out}");
        }
        // At every size, a project or Active Context line stays only
        // while every rule and fact does; within the limit once the
        // skeleton (headings, notes) fits.
        for limit in (0..n).step_by(7) {
            let out = for_context(&root, limit);
            if out.contains("- work [") || out.contains("- a1") {
                assert!(
                    out.contains("obey this") && out.contains("about Tom"),
                    "{out}"
                );
            }
            if limit >= 500 {
                assert!(out.chars().count() <= limit, "{limit}: {out}");
            }
        }
        assert!(!for_context(&root, 0).contains("obey this"));
    }
}
