//! ROOT.md's hand-written sections survive compaction whole, whatever
//! their code blocks hold.

use crate::common;
use common::Project;

const TODAY: &str = "2027-01-21";

const RUNBOOK: &str = "## My runbook\nRestore the database:\n```sh\npg_restore -d app latest.dump\n## Topics Index\necho done\n```\nAfter the restore, run the smoke tests.\n";

#[test]
fn a_fenced_heading_in_a_hand_written_root_section_does_not_split_it() {
    let p = Project::sample();
    assert_eq!(p.compact(TODAY).0, 0);
    let root = p.read("memory/ROOT.md");
    p.write(
        "memory/ROOT.md",
        format!("{}\n\n{RUNBOOK}", root.trim_end()),
    );
    let (code, _, err) = p.compact(TODAY);
    assert_eq!(code, 0, "{err}");
    assert!(!err.contains("edited inside sections hipo writes"), "{err}");
    let root = p.read("memory/ROOT.md");
    assert!(root.contains(RUNBOOK), "{root}");
    assert_eq!(root.matches("\n## Topics Index").count(), 2, "{root}");
    // And again: a second compact keeps it as it is.
    assert_eq!(p.compact(TODAY).0, 0);
    assert_eq!(p.read("memory/ROOT.md"), root);
    assert!(!p.exists("memory/ROOT.md.prev"));
}

/// ROOT reads the last week's raw logs in words. A log pruned after its
/// daily was fixed leaves every node below ROOT as it was, yet ROOT's line
/// of that day must fall back to the daily's topics, as a fresh run over
/// the same files writes it (`tests/model.rs` found it stale).
#[test]
fn a_pruned_raw_log_turns_roots_line_of_its_day_into_its_topics() {
    let p = Project::empty();
    p.write(
        "memory/2027-01-28.md",
        "# 2027-01-28\n\n## topic 1 [project]\n- detail 1\n- more 1\n",
    );
    for _ in 0..2 {
        assert_eq!(p.compact("2027-01-31").0, 0);
    }
    assert!(
        p.read("memory/ROOT.md")
            .contains("- 2027-01-28 topic-1: detail 1\n")
    );
    std::fs::remove_file(p.path().join("memory/2027-01-28.md")).unwrap();
    let (code, out, err) = p.compact("2027-01-31");
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("memory/ROOT.md"), "{out}");
    let root = p.read("memory/ROOT.md");
    assert!(root.contains("- 2027-01-28: topic-1 [project]\n"), "{root}");
    assert!(!root.contains("detail 1"), "{root}");
}
