//! What someone else wrote into the tree is never silently lost: regression
//! tests for edits that hipo used to overwrite.

use crate::common;

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

#[test]
fn with_the_store_gone_a_late_append_still_replaces_an_adopted_summary() {
    let p = week_needing_a_summary();
    p.compact("2026-03-11");
    let weekly = "memory/weekly/2026-W11.md";
    fill_in(&p, weekly, "tentative");
    p.compact("2026-03-11");
    std::fs::remove_dir_all(p.path().join(".hipo")).unwrap();
    p.append(
        "memory/2026-03-10.md",
        "\n## Rollback rule [feedback]\n- never on fridays\n",
    );
    let (code, out, err) = p.compact("2026-03-11");
    assert_eq!(code, 0, "{out}{err}");
    let now = p.read(weekly);
    assert!(now.contains("rollback-rule [feedback]"), "{now}");
    assert!(p.read(&format!("{weekly}.prev")).ends_with(SUMMARY));
    assert!(err.contains("was edited and its sources changed"), "{err}");
}

#[test]
fn with_the_store_gone_hipos_own_stale_text_is_no_edit_and_an_old_prev_is_kept() {
    let p = week_needing_a_summary();
    p.compact("2026-03-11");
    let daily = "memory/daily/2026-03-09.md";
    let edited = p.read(daily).replace("- two", "- two HANDNOTE");
    p.write(daily, &edited);
    p.compact("2026-03-11");
    p.append("memory/2026-03-09.md", "\n## a [project]\n- 1\n");
    p.compact("2026-03-11");
    assert_eq!(p.read(&format!("{daily}.prev")), edited);
    // hipo's own text, now stale: rewritten without a `.prev`.
    std::fs::remove_dir_all(p.path().join(".hipo")).unwrap();
    p.append("memory/2026-03-09.md", "\n## b [project]\n- 2\n");
    let (code, out, err) = p.compact("2026-03-11");
    assert_eq!(code, 0, "{out}{err}");
    assert!(!err.contains("was edited"), "{err}");
    assert_eq!(
        p.read(&format!("{daily}.prev")),
        edited,
        "the person's text stays"
    );
    assert!(p.read(daily).contains("\n## b [project]\n"));
    // A second edit replaced later does not overwrite the first `.prev`.
    let second = p.read(daily).replace("- 2", "- 2 SECOND");
    p.write(daily, &second);
    p.compact("2026-03-11");
    p.append("memory/2026-03-09.md", "\n## c [project]\n- 3\n");
    let (_, _, err) = p.compact("2026-03-11");
    assert!(err.contains(".prev.1"), "{err}");
    assert_eq!(p.read(&format!("{daily}.prev")), second);
    assert_eq!(p.read(&format!("{daily}.prev.1")), edited);
}

#[test]
fn a_parent_held_back_by_an_unreadable_child_is_named() {
    let p = week_needing_a_summary();
    p.compact("2026-03-11");
    p.write("memory/daily/2026-03-09.md", b"\xff\xfe");
    p.append("memory/2026-03-10.md", "\n## Late [project]\n- more\n");
    let (code, _, err) = p.compact("2026-03-11");
    assert_eq!(code, 1);
    assert!(
        err.contains("memory/weekly/2026-W11.md: not rebuilt: its source memory/daily/2026-03-09.md cannot be read"),
        "{err}"
    );
}

#[test]
fn a_node_whose_frontmatter_was_dropped_still_lets_its_parents_become_fixed() {
    let p = week_needing_a_summary();
    p.compact("2026-03-11");
    p.write(
        "memory/daily/2026-03-10.md",
        "# 2026-03-10\n\n## Topics\n- terse\n",
    );
    let (code, out, err) = p.compact("2026-03-11");
    assert_eq!(code, 0, "{out}{err}");
    assert!(err.contains("has no `topics:`"), "{err}");
    fill_in(&p, "memory/weekly/2026-W11.md", "tentative");
    p.compact("2026-04-30");
    assert!(
        p.read("memory/weekly/2026-W11.md")
            .contains("status: fixed")
    );
    assert!(
        p.read("memory/monthly/2026-03.md")
            .contains("status: fixed")
    );
    // Its topics come from its raw log, not from the summary's headings.
    assert!(p.read("memory/ROOT.md").contains("terse-answers [feedback"));
}

#[test]
fn a_dry_run_says_what_it_would_keep_not_what_it_kept() {
    let p = week_needing_a_summary();
    p.compact("2026-03-11");
    let daily = "memory/daily/2026-03-09.md";
    p.write(daily, p.read(daily).replace("- two", "- two edited"));
    p.compact("2026-03-11");
    p.append("memory/2026-03-09.md", "\n## More [project]\n- x\n");
    let (code, _, err) = p.run(["compact", "--dry-run", "--today", "2026-03-11"]);
    assert_eq!(code, 0);
    assert!(err.contains("compact would rewrite it"), "{err}");
    assert!(!p.exists(&format!("{daily}.prev")));
}
