//! Bringing the index in step with the Markdown.
//!
//! Each section has a key (a hash of its path, place, file metadata and
//! text); the store's `index_files` table remembers each file's keys, so a
//! sync re-indexes only sections whose key changed and deletes the keys of
//! vanished sections and files: no ghosts, and an append costs one section
//! or two. tantivy commits before the store, and every add is preceded by a
//! delete of its key, so a sync interrupted between the two commits is
//! simply redone.

use super::report::{RebuildReason, SyncReport};
use super::write::{self, Changed, Update};
use super::{SearchIndex, version};
use crate::config::Config;
use crate::error::{Error, Result};
use crate::progress::Progress;
use crate::scan;
use crate::store::index::IndexedFile;
use crate::store::{FileRecord, Store};
use std::collections::HashMap;
use std::path::Path;

/// What a sync starts from: what the index recorded of each file, and a
/// scan of the tree against it.
pub(crate) struct Look {
    pub known: HashMap<String, IndexedFile>,
    pub scan: scan::Scan,
    /// Nothing changed, but the store's stamps table disagrees with its
    /// records (missing, or another hipo updated the records alone): the
    /// sync rewrites it, so the next search takes the quick check.
    pub restamp: bool,
}

/// Brings the index under `root` up to date with the Markdown and returns
/// it open. The caller holds the project lock.
#[cfg(test)]
pub(crate) fn sync(
    root: &Path,
    store: &Store,
    config: &Config,
    progress: &dyn Progress,
) -> Result<(SearchIndex, SyncReport)> {
    sync_from(root, store, config, None, progress)
}

/// [`sync`], from a look already taken (under the same lock) if any. An
/// index that opens but cannot be written to (whatever a kill left that
/// [`SearchIndex::remove_leftovers`] does not know) is rebuilt, saying why,
/// as an unreadable one is: a search never stays stuck on its cache. A
/// disk that refused the write (full, read only) is said as an error and
/// the index left as it is.
pub(super) fn sync_from(
    root: &Path,
    store: &Store,
    config: &Config,
    look: Option<Look>,
    progress: &dyn Progress,
) -> Result<(SearchIndex, SyncReport)> {
    match sync_once(root, store, config, look, progress, None) {
        // A full or read-only disk is not the index's fault: rebuilding
        // would delete the index a search could still answer from.
        Err(e @ Error::Index { .. }) if e.refusal().is_none() => {
            let why = RebuildReason::Unwritable(e.to_string());
            sync_once(root, store, config, None, progress, Some(why))
        }
        done => done,
    }
}

/// One sync; `rebuild` forces a rebuild for that reason.
fn sync_once(
    root: &Path,
    store: &Store,
    config: &Config,
    look: Option<Look>,
    progress: &dyn Progress,
    rebuild: Option<RebuildReason>,
) -> Result<(SearchIndex, SyncReport)> {
    let mut report = SyncReport::default();
    let index = match rebuild {
        Some(why) => rebuild_index(root, store, &mut report, why)?,
        None => open_or_rebuild(root, store, &mut report)?,
    };
    if report.rebuilt.is_none() {
        let removed = index.remove_leftovers()?;
        if removed > 0 {
            report.repaired = Some(format!(
                "removed {removed} file(s) an interrupted update left in .hipo/index"
            ));
        }
    }
    let Look {
        known,
        mut scan,
        restamp,
    } = match look {
        Some(look) if report.rebuilt.is_none() => look,
        _ => {
            let known = match report.rebuilt {
                Some(_) => HashMap::new(),
                None => store.index_files()?,
            };
            let listing = scan::Listing::walk(root, &config.search.extra_globs)?;
            let scan = scan_against(root, &known, listing);
            Look {
                known,
                scan,
                restamp: false,
            }
        }
    };
    report.files = scan.files.len();
    report.problems = std::mem::take(&mut scan.problems);
    let (mut updates, changed) = triage(&scan, &known);
    if changed.is_empty() && scan.removed.is_empty() {
        if report.rebuilt.is_some() || !updates.is_empty() {
            store.save_index_files(&updates, &version())?;
        }
        if restamp {
            store.restamp_index_files()?;
        }
        return Ok((index, report));
    }
    write::write(
        &write::Sync {
            root,
            index: &index,
            store,
            known: &known,
            batch_bytes: write::BATCH_BYTES,
            one_segment_docs: super::tier::ONE_SEGMENT_DOCS,
        },
        &changed,
        &scan.removed,
        (&mut report, &mut updates),
        progress,
    )?;
    store.save_index_files(&updates, &version())?;
    report.problems.sort_by(|a, b| a.path.cmp(&b.path));
    Ok((index, report))
}

/// Opens the current index, or creates an empty one and forgets every file
/// record, saying why in `report`.
fn open_or_rebuild(root: &Path, store: &Store, report: &mut SyncReport) -> Result<SearchIndex> {
    match open_current(root, store)? {
        Ok(index) => Ok(index),
        Err(why) => rebuild_index(root, store, report, why),
    }
}

/// Creates an empty index and forgets every file record, saying why.
fn rebuild_index(
    root: &Path,
    store: &Store,
    report: &mut SyncReport,
    why: RebuildReason,
) -> Result<SearchIndex> {
    report.rebuilt = Some(why);
    store.clear_index_files()?;
    SearchIndex::create(root)
}

/// The record updates of files touched but not changed (same hash: only
/// their stat moved), and the files to re-index.
pub(super) fn triage<'a>(
    scan: &'a scan::Scan,
    known: &HashMap<String, IndexedFile>,
) -> (Vec<Update>, Vec<Changed<'a>>) {
    let mut updates = Vec::new();
    let mut changed = Vec::new();
    for (rel, file) in scan.files.iter().filter(|(_, f)| f.changed) {
        match known.get(rel) {
            Some(old) if old.hash == file.record.hash => updates.push((
                rel.clone(),
                Some(IndexedFile {
                    size: file.record.size,
                    mtime_ns: file.record.mtime_ns,
                    ..old.clone()
                }),
            )),
            _ => changed.push((rel, file)),
        }
    }
    (updates, changed)
}

/// Compares a listing of the searchable files with what the index
/// recorded.
pub(super) fn scan_against(
    root: &Path,
    known: &HashMap<String, IndexedFile>,
    listing: scan::Listing,
) -> scan::Scan {
    let mut records: Vec<(String, FileRecord)> = known
        .iter()
        .map(|(k, v)| {
            let rec = FileRecord {
                size: v.size,
                mtime_ns: v.mtime_ns,
                hash: v.hash,
            };
            (k.clone(), rec)
        })
        .collect();
    records.sort_unstable_by(|a, b| a.0.cmp(&b.0));
    listing.scan(root, &records)
}

/// Opens the index if it exists and was built by this version; `Err(why)`
/// when it must be rebuilt.
fn open_current(
    root: &Path,
    store: &Store,
) -> Result<std::result::Result<SearchIndex, RebuildReason>> {
    let recorded = store.index_version()?;
    if !SearchIndex::exists(root) {
        return Ok(Err(match recorded {
            Some(_) => RebuildReason::Missing,
            None => RebuildReason::NoIndexYet,
        }));
    }
    if recorded.is_none() {
        return Ok(Err(RebuildReason::Unrecorded));
    }
    if recorded.as_deref() != Some(version().as_str()) {
        return Ok(Err(RebuildReason::OtherVersion {
            found: recorded,
            wanted: version(),
        }));
    }
    Ok(SearchIndex::open(root).map_err(|e| RebuildReason::Unreadable(e.to_string())))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A sync cut short after tantivy's commit but before the store saved
    /// the records leaves sections in the index the store does not know;
    /// the next sync adds them again and must not double them.
    #[test]
    fn sections_the_store_forgot_are_not_doubled() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("memory")).unwrap();
        let log = "# 2026-01-06\n\n## Deploy [project]\n- the wombat rollout\n\n## Kayak [project]\n- the river trip\n";
        std::fs::write(root.join("memory/2026-01-06.md"), log).unwrap();
        let (store, _) = Store::open(root).unwrap();
        let config = Config::default();
        let progress = crate::progress::NoProgress;
        let (index, first) = sync(root, &store, &config, &progress).unwrap();
        let docs = index.searcher().num_docs();
        assert_eq!(first.sections_added, 2);
        drop(index);
        store
            .save_index_files(&[("memory/2026-01-06.md".into(), None)], &version())
            .unwrap();
        let (index, again) = sync(root, &store, &config, &progress).unwrap();
        assert_eq!(again.sections_added, 2, "the file is indexed anew");
        assert_eq!(index.searcher().num_docs(), docs, "and nothing doubled");
    }

    #[test]
    fn rebuild_reasons_serialise_as_their_sentences() {
        let cases = [
            (RebuildReason::NoIndexYet, "no index yet"),
            (RebuildReason::Missing, "the index was missing"),
            (
                RebuildReason::OtherVersion {
                    found: None,
                    wanted: "index-6+a1".into(),
                },
                "the index was built by an unknown version, not index-6+a1",
            ),
            (
                RebuildReason::OtherVersion {
                    found: Some("index-5+a1".into()),
                    wanted: "index-6+a1".into(),
                },
                "the index was built by index-5+a1, not index-6+a1",
            ),
            (
                RebuildReason::Unreadable("search index: opening: x".into()),
                "search index: opening: x",
            ),
            (
                RebuildReason::Unrecorded,
                "the store had no record of it (the store was rebuilt or deleted, or a build was cut short)",
            ),
            (
                RebuildReason::Unwritable("search index: committing: x".into()),
                "it could not be updated (search index: committing: x)",
            ),
        ];
        for (reason, text) in cases {
            assert_eq!(reason.to_string(), text);
            assert_eq!(
                serde_json::to_string(&reason).unwrap(),
                format!("\"{text}\"")
            );
        }
        assert!(RebuildReason::NoIndexYet.is_first_build());
        assert!(!RebuildReason::Missing.is_first_build());
    }
}
