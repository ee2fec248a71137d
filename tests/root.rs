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
