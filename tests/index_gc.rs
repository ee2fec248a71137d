//! The index's files after syncs that merge segments, through the real
//! binary on a temp copy of the sample.

use crate::common;

use common::Project;

/// A merge left the segments it replaced on disk, and the next sync took
/// them for an interrupted update's: it removed them and warned "repaired
/// the search index" after every merging append (and after every full
/// build big enough to merge: a 10-year history left 46 files, 78 MB).
#[test]
fn a_merge_leaves_nothing_for_the_next_sync_to_repair() {
    let p = Project::sample();
    p.json(["index"]);
    let mut merged = false;
    for i in 0..12 {
        p.append(
            "memory/2026-12-14.md",
            &format!("\n## Merge probe {i} [project]\n- outcome: segment number {i}\n"),
        );
        let report = p.json(["index"]);
        assert!(report.get("repaired").is_none(), "sync {i}: {report}");
        let segments = report["index"]["segments"].as_u64().unwrap();
        merged |= i > 0 && segments <= 4;
        assert!(segments <= 8, "{report}");
    }
    assert!(merged, "no sync merged segments: the test proves nothing");
}
