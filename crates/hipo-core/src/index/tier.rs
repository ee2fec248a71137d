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

fn segment_ids(index: &SearchIndex) -> Result<HashSet<tantivy::index::SegmentId>> {
    Ok(index
        .index
        .searchable_segment_metas()
        .map_err(Error::index("listing segments"))?
        .iter()
        .map(|m| m.id())
        .collect())
}
