//! What someone else wrote into the tree is never silently lost: regression
//! tests for edits that hipo used to overwrite.

mod common;

use common::{Project, raw_log};

/// Two days of ISO week 2026-W11 and a weekly threshold low enough that the
/// weekly needs a summary.
fn week_needing_a_summary() -> Project {
    let p = Project::empty();
    p.write(
        "hipocampus.config.json",
        r#"{"compaction": {"weeklyThreshold": 5}}"#,
    );
    for (day, heading) in [
        ("2026-03-09", "Deploy plan [project]"),
        ("2026-03-10", "Terse answers [feedback]"),
    ] {
        p.write(
            &format!("memory/{day}.md"),
            raw_log(day, &[(heading, "- one\n- two\n- three")], 0),
        );
    }
    p
}

const SUMMARY: &str = "## Topics\n- deploy-plan [project]\n## Key Decisions\n- ship friday\n## Tasks Completed\n- none\n## Lessons Learned\n- be brief\n## Open Items\n- none\n";

/// Replaces a node's body, keeping its frontmatter but setting `status:`.
fn fill_in(p: &Project, rel: &str, status: &str) {
    let text = p.read(rel);
    let end = text[4..].find("\n---\n").unwrap() + 9;
    let fm = text[..end]
        .lines()
        .map(|l| {
            if l.starts_with("status:") {
                format!("status: {status}")
            } else {
                l.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join("\n");
    p.write(rel, format!("{fm}\n{SUMMARY}"));
}

#[test]
fn an_adopted_summary_survives_its_children_becoming_fixed() {
    let p = week_needing_a_summary();
    // Tuesday: Monday's daily is fixed, Tuesday's still tentative.
    let (code, out, err) = p.compact("2026-03-10");
    assert_eq!(code, 0, "{out}{err}");
    let weekly = "memory/weekly/2026-W11.md";
    assert!(p.read(weekly).contains("status: needs-summarization"));
    fill_in(&p, weekly, "tentative");
    let (code, out, _) = p.compact("2026-03-10");
    assert_eq!(code, 0);
    assert!(out.contains("adopted edit"), "{out}");
    // Wednesday: Tuesday's daily becomes fixed; only its status line moves,
    // so the weekly built from it is not stale.
    let (code, out, err) = p.compact("2026-03-11");
    assert_eq!(code, 0, "{out}{err}");
    assert!(p.read(weekly).ends_with(SUMMARY), "{}", p.read(weekly));
    assert!(!p.exists("memory/weekly/2026-W11.md.prev"), "{err}");
    assert!(
        p.read("memory/daily/2026-03-10.md")
            .contains("status: fixed")
    );
}

#[test]
fn a_node_hipo_cannot_read_is_never_overwritten() {
    let p = week_needing_a_summary();
    p.compact("2026-03-11");
    let daily = "memory/daily/2026-03-10.md";
    let mut bytes = p.read(daily).into_bytes();
    bytes.extend_from_slice(b"\nnotes \xff\xfe by a person\n");
    p.write(daily, &bytes);
    let (code, _, err) = p.compact("2026-03-12");
    assert_eq!(code, 1, "a skipped file makes exit 1");
    assert!(err.contains("memory/daily/2026-03-10.md:"), "{err}");
    assert_eq!(
        std::fs::read(p.path().join(daily)).unwrap(),
        bytes,
        "left as it was"
    );
}

#[test]
fn an_edit_inside_roots_own_sections_is_kept_as_prev() {
    let p = week_needing_a_summary();
    p.compact("2026-03-11");
    let root = p.read("memory/ROOT.md");
    let edited = root.replace(
        "## Topics Index\n",
        "## Topics Index\n- my own note about the index [user]\n",
    );
    assert_ne!(root, edited);
    p.write("memory/ROOT.md", &edited);
    let (code, out, err) = p.compact("2026-03-11");
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("edit replaced"), "{out}");
    assert!(err.contains("memory/ROOT.md.prev"), "{err}");
    assert_eq!(p.read("memory/ROOT.md.prev"), edited);
    // A hand-written section (no hipo marker) is simply kept.
    let with_own = format!("{}\n## My Notes\n- keep me\n", p.read("memory/ROOT.md"));
    p.write("memory/ROOT.md", &with_own);
    p.compact("2026-03-11");
    assert!(
        p.read("memory/ROOT.md")
            .contains("## My Notes\n- keep me\n")
    );
}
