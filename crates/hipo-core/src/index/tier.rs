//! A build's batch segments merged a tier at a time as they are
//! committed, so no merge maps the whole new index at once.

use super::SearchIndex;
use crate::error::{Error, Result};
use std::collections::HashSet;
use tantivy::IndexWriter;

/// How many segments a build's batches leave before they are merged into
/// one, as soon as that many are committed. A build of ten years commits
/// about thirty batches; merging them all at the end (all but the largest
/// few, see [`compact_segments`]) read the whole new index through its
/// memory-mapped files at once, so its pages (130 MiB at ten years) came
/// on top of the writer's budget in the build's peak. Merged eight at a
/// time, a merge maps an eighth of that, and the last merge only the
/// batches after the last group.
const TIER: usize = 8;

/// The segments a build committed since its last merge: the ones that
/// were not there before (see [`TIER`]).
pub(super) struct Tier {
    before: HashSet<tantivy::index::SegmentId>,
}

impl Tier {
    pub(super) fn new(index: &SearchIndex) -> Result<Tier> {
        Ok(Tier {
            before: segment_ids(index)?,
        })
    }

    /// No segment was there before this sync: it builds the index from
    /// nothing (a first build, or a rebuild).
    pub(super) fn builds_from_nothing(&self) -> bool {
        self.before.is_empty()
    }

    /// Merges the segments committed since the last merge when there are
    /// [`TIER`] of them, and deletes the files they leave.
    pub(super) fn merge_when_full(
        &mut self,
        index: &SearchIndex,
        writer: &mut IndexWriter,
    ) -> Result<()> {
        let fresh: Vec<_> = segment_ids(index)?
            .into_iter()
            .filter(|id| !self.before.contains(id))
            .collect();
        if fresh.len() < TIER {
            return Ok(());
        }
        let merged = writer
            .merge(&fresh)
            .wait()
            .map_err(Error::index("merging segments"))?;
        self.before.extend(merged.map(|m| m.id()));
        // The inputs' files: gone now, not at the end (a failure only
        // leaves them for the end's collection).
        let _ = writer.garbage_collect_files().wait();
        Ok(())
    }
}

/// A build from nothing leaves a single segment when the index holds at
/// most this many documents (windows and sections: about 800 bytes of
/// index each, so some 30 MiB; the MemAware corpus, 16 MB of chat, is
/// 10,200). A search opens every segment's files and sets up each query
/// term's scorer once per segment, so the two or more segments a build's
/// batches and threads leave cost a whole-process search of a long
/// question about a tenth of its time. A larger index keeps its tiers
/// ([`TIER`]): one merge of it would map all of it at once.
pub(super) const ONE_SEGMENT_DOCS: u32 = 40_000;

/// Merges every segment into one when there are several and together
/// they hold at most `max_docs` documents ([`ONE_SEGMENT_DOCS`]); true
/// when it did. The segments are given in the index's order, so documents
/// keep their relative order (ties at a cut are broken the same way).
pub(super) fn merge_all_if_small(
    index: &SearchIndex,
    writer: &mut IndexWriter,
    max_docs: u32,
) -> Result<bool> {
    let metas = index
        .index
        .searchable_segment_metas()
        .map_err(Error::index("listing segments"))?;
    let docs: u64 = metas.iter().map(|m| u64::from(m.max_doc())).sum();
    if metas.len() < 2 || docs > u64::from(max_docs) {
        return Ok(false);
    }
    let ids: Vec<_> = metas.iter().map(|m| m.id()).collect();
    writer
        .merge(&ids)
        .wait()
        .map_err(Error::index("merging segments"))?;
    Ok(true)
}

fn segment_ids(index: &SearchIndex) -> Result<HashSet<tantivy::index::SegmentId>> {
    Ok(index
        .index
        .searchable_segment_metas()
        .map_err(Error::index("listing segments"))?
        .iter()
        .map(|m| m.id())
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::report::SyncReport;
    use crate::index::sync::{scan_against, triage};
    use crate::index::version;
    use crate::index::write::{Sync, write};
    use crate::progress::NoProgress;
    use crate::scan::Listing;
    use crate::store::Store;
    use std::path::Path;

    fn segments(index: &SearchIndex) -> usize {
        index.index.searchable_segment_metas().unwrap().len()
    }

    /// A project of nine raw logs and its store.
    fn project() -> (tempfile::TempDir, Store) {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("memory")).unwrap();
        for d in 1..=9 {
            let log = format!(
                "# 2026-01-{d:02}\n\n## Deploy {d} [project]\n- the wombat rollout, step {d}\n\n## Kayak {d} [project]\n- the river trip, day {d}\n"
            );
            std::fs::write(dir.path().join(format!("memory/2026-01-{d:02}.md")), log).unwrap();
        }
        let store = Store::open(dir.path()).unwrap().0;
        (dir, store)
    }

    /// Indexes what changed since the store's records, a batch (and a
    /// segment) per file, and saves every record.
    fn sync(root: &Path, store: &Store, index: &SearchIndex, one_segment_docs: u32) {
        let known = store.index_files().unwrap();
        let scan = scan_against(root, &known, Listing::walk(root, &[]).unwrap());
        let (mut updates, changed) = triage(&scan, &known);
        let s = Sync {
            root,
            index,
            store,
            known: &known,
            batch_bytes: 1,
            one_segment_docs,
        };
        let mut report = SyncReport::default();
        write(&s, &changed, &[], (&mut report, &mut updates), &NoProgress).unwrap();
        store.checkpoint_index_files(&updates, &version()).unwrap();
    }

    fn hits(index: &SearchIndex, root: &Path) -> Vec<(String, usize, u32)> {
        let q = crate::search::query::parse("wombat rollout step 7").unwrap();
        crate::search::search(index, root, &q, &crate::search::Options::default())
            .unwrap()
            .into_iter()
            .map(|h| (h.path, h.line, h.score.to_bits()))
            .collect()
    }

    /// A small first build leaves one segment (a search sets each term up
    /// once per segment), with the documents and results of the build that
    /// kept its batches' segments; a later sync adds its own segment and
    /// does not rewrite the index.
    #[test]
    fn a_small_build_from_nothing_leaves_one_segment() {
        let [(a, sa), (b, sb)] = [0, 1].map(|_| project());
        let many = SearchIndex::create(a.path()).unwrap();
        sync(a.path(), &sa, &many, 0);
        assert!(segments(&many) > 1, "{}", segments(&many));
        let one = SearchIndex::create(b.path()).unwrap();
        sync(b.path(), &sb, &one, ONE_SEGMENT_DOCS);
        assert_eq!(segments(&one), 1);
        assert_eq!(one.searcher().num_docs(), many.searcher().num_docs());
        let want = hits(&many, a.path());
        assert!(!want.is_empty());
        assert_eq!(hits(&one, b.path()), want);

        let log = b.path().join("memory/2026-01-09.md");
        let mut text = std::fs::read_to_string(&log).unwrap();
        text.push_str("\n## Later [project]\n- the wombat rollout, step 10\n");
        std::fs::write(&log, text).unwrap();
        sync(b.path(), &sb, &one, ONE_SEGMENT_DOCS);
        assert_eq!(segments(&one), 2, "an update is not merged into all");
    }
}
