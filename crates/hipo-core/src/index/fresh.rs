//! The index as a search gets it: the read-only look that says whether
//! it is current ([`check`]), the update from that look ([`update`]), and
//! the index as it is ([`Fresh::as_is`]) when it cannot be updated. Which
//! of them a search takes, under which lock, is the facade's policy
//! (`facade::read`): nothing here loads the config or takes the lock.

use super::SearchIndex;
use super::report::SyncReport;
use super::sync::{Look, scan_against, sync_from};
use super::version;
use crate::config::Config;
use crate::error::Result;
use crate::layout::{self, PathKind};
use crate::progress::Progress;
use crate::scan::{Found, Listing};
use crate::store::index::IndexedFile;
use crate::store::{Store, StoreReader};
use chrono::NaiveDate;
use std::collections::HashMap;
use std::path::Path;
use std::time::Duration;

/// An index as a search gets it.
pub struct Fresh {
    pub index: SearchIndex,
    /// What the sync did; `None` when the index was searched as it was
    /// (another hipo process held the lock, or the disk refused a write).
    pub sync: Option<SyncReport>,
    /// Things to tell the user (a rebuilt store, a stale index).
    pub warnings: Vec<String>,
}

impl Fresh {
    /// The index as it is, if there is one that opens: what a search
    /// answers from when it cannot bring it up to date. `warning` says
    /// why (it may miss the latest changes).
    pub(crate) fn as_is(root: &Path, warning: String) -> Option<Fresh> {
        if !SearchIndex::exists(root) {
            return None;
        }
        let index = SearchIndex::open(root).ok()?;
        Some(Fresh {
            index,
            sync: None,
            warnings: vec![warning],
        })
    }

    /// A current index, as [`check`] found it.
    fn current(found: Box<(SearchIndex, SyncReport)>) -> Fresh {
        let (index, report) = *found;
        Fresh {
            index,
            sync: Some(report),
            warnings: Vec::new(),
        }
    }
}

/// How long a read waits for another hipo process holding the lock.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Patience {
    /// A search: never waits for a writer while an index exists (it
    /// answers from it, current if a read-only look finds nothing changed,
    /// else as it is); only with no usable index does it wait, up to
    /// `max_wait`, and then fail with [`crate::Error::Busy`].
    Search { max_wait: Duration },
    /// The explicit update (`hipo index`): waits up to the duration, then
    /// fails with [`crate::Error::Busy`], never answering stale.
    Update(Duration),
}

/// The index brought up to date from `check`, a look taken under the
/// lock the caller holds; `store` is opened only when the look found the
/// index out of date (a current one needs no store open for writing).
pub(crate) fn update<'s>(
    root: &Path,
    store: &dyn Fn() -> Result<(&'s Store, Option<String>)>,
    config: &Config,
    check: Check,
    progress: &dyn Progress,
) -> Result<Fresh> {
    let look = match check {
        Check::Fresh(found) => return Ok(Fresh::current(found)),
        Check::Stale(look) => Some(look),
        Check::Unknown => None,
    };
    let (store, warning) = store()?;
    let (index, report) = sync_from(root, store, config, look, progress)?;
    Ok(Fresh {
        index,
        sync: Some(report),
        warnings: warning.into_iter().collect(),
    })
}

/// A current index from `check`, if it found one.
pub(crate) fn current(check: Check) -> Option<Fresh> {
    match check {
        Check::Fresh(found) => Some(Fresh::current(found)),
        _ => None,
    }
}

/// What a read-only look at the store says.
pub(crate) enum Check {
    /// The index is this version and no file changed since it was synced.
    Fresh(Box<(SearchIndex, SyncReport)>),
    /// Files changed: the look, for [`sync_from`] to start from.
    Stale(Look),
    /// No usable store or index, or files a killed update left in the
    /// index: a sync that looks for itself decides.
    Unknown,
}

/// How many days after its period ends a dated file of `memory/` is
/// sealed: a search takes its stamp from compaction's records instead of
/// the disk ([`Stat::Sealed`]).
pub(crate) const SEAL_DAYS: i64 = 31;

/// How a look learns the stamps of the files it lists.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Stat {
    /// Every file stat'ed (`hipo index`).
    Every,
    /// A raw log or node whose period ended [`SEAL_DAYS`] ago is taken as
    /// compaction last saw or wrote it (the store's file records), not
    /// stat'ed: its directory is still read, so a file added or gone is
    /// seen at once, and an edit in place is seen by the next compaction
    /// (which stats every file and records the new stamp), then indexed by
    /// the next search. Every other file is stat'ed each time.
    Sealed,
}

/// The common case costs not a single disk write: the store opened read
/// only says the index is current and a stat of the tree finds no change.
/// Every file not sealed is stat'ed each time (an edit in place, a rename
/// or a restored mtime is seen by the next search); what is saved is the
/// work around it: the files' stamps (size and change stamp, a table of
/// their own) are read in path order straight from the store and merged
/// with the sorted listing, and only a change builds the maps a sync needs.
pub(crate) fn check(root: &Path, config: &Config, stat: Stat) -> Result<Check> {
    let span = crate::timing::span("store open");
    let Some(db) = Store::open_read_only(root) else {
        return Ok(Check::Unknown);
    };
    if db.index_version().as_deref() != Some(version().as_str()) || !SearchIndex::exists(root) {
        return Ok(Check::Unknown);
    }
    drop(span);
    let globs = &config.search.extra_globs;
    let listing = match stat {
        Stat::Every => Listing::walk(root, globs)?,
        Stat::Sealed => {
            let cutoff = chrono::Utc::now().date_naive() - chrono::Duration::days(SEAL_DAYS);
            let mut stamps = |each: &mut dyn FnMut(&str, (u64, i128))| {
                db.visit_file_stamps(|rel, stamp| each(rel, stamp));
            };
            Listing::walk_vouched(root, globs, &|rel| sealed(rel, cutoff), &mut stamps)?
        }
    };
    let span = crate::timing::span("store records + compare");
    let same = listing
        .clean_files()
        .is_some_and(|files| recorded_as(&db, files));
    let report = if same {
        SyncReport {
            files: listing.len(),
            ..Default::default()
        }
    } else {
        let Some(known) = db.index_files() else {
            return Ok(Check::Unknown);
        };
        let mut scan = scan_against(root, &known, listing);
        if scan.any_change() {
            let look = Look {
                known,
                scan,
                restamp: false,
            };
            return Ok(Check::Stale(look));
        }
        // The records say nothing changed: if the stamps disagree with
        // them (another binary wrote the records alone) or are missing,
        // they are rewritten under the lock, once. A file that cannot be
        // read has neither, so it fails the merge but needs no restamp.
        if !stamps_match(&db, &known) {
            let look = Look {
                known,
                scan,
                restamp: true,
            };
            return Ok(Check::Stale(look));
        }
        SyncReport {
            files: scan.files.len(),
            problems: std::mem::take(&mut scan.problems),
            ..Default::default()
        }
    };
    drop((db, span));
    let span = crate::timing::span("index open");
    let Ok(index) = SearchIndex::open(root) else {
        return Ok(Check::Unknown);
    };
    drop(span);
    let _span = crate::timing::span("leftovers");
    // What a killed update left goes before anything else is written.
    if !index.leftovers().unwrap_or_default().is_empty() {
        return Ok(Check::Unknown);
    }
    Ok(Check::Fresh(Box::new((index, report))))
}

/// True for a raw log or node (not ROOT) whose period ended before `cutoff`.
fn sealed(rel: &str, cutoff: NaiveDate) -> bool {
    match layout::classify(rel) {
        Ok(PathKind::Raw(day)) => day < cutoff,
        Ok(PathKind::Node(id)) => id.date_range().is_some_and(|(_, end)| end < cutoff),
        _ => false,
    }
}

/// True when the stamps table holds exactly the records' stamps.
fn stamps_match(db: &StoreReader, known: &HashMap<String, IndexedFile>) -> bool {
    let mut seen = 0;
    let read = db.visit_index_stamps(|rel, stamp| {
        seen += 1;
        known
            .get(rel)
            .is_some_and(|r| stamp == Some((r.size, r.mtime_ns)))
    });
    read.is_some() && seen == known.len()
}

/// True when `files` (in path order) are exactly the files the index
/// recorded, each with the size and change stamp recorded: a merge of two
/// sorted lists. Anything else (a file added, gone, touched, a record that
/// does not decode, records in another order) says false, and the full
/// comparison decides.
fn recorded_as(db: &StoreReader, files: &[Found]) -> bool {
    let mut listed = files.iter();
    let mut same = true;
    let read = db.visit_index_stamps(|rel, stamp| {
        same = listed
            .next()
            .is_some_and(|f| f.rel == rel && stamp == Some((f.size, f.mtime_ns)));
        same
    });
    read.is_some() && same && listed.next().is_none()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::index::IndexedFile;

    fn found(rel: &str, size: u64, mtime_ns: i128) -> Found {
        Found {
            rel: rel.into(),
            size,
            mtime_ns,
        }
    }

    #[test]
    fn the_merge_says_same_only_for_exactly_the_recorded_files() {
        let dir = tempfile::tempdir().unwrap();
        let (store, _) = Store::open(dir.path()).unwrap();
        let rec = |size, mtime_ns| {
            Some(IndexedFile {
                size,
                mtime_ns,
                hash: [0; 32],
                keys: vec![[1; 16]],
            })
        };
        let updates = vec![
            ("memory/2026-01-02.md".to_string(), rec(10, 5)),
            ("memory/daily/2026-01-02.md".to_string(), rec(20, 6)),
        ];
        store.save_index_files(&updates, "v").unwrap();
        drop(store);
        let db = Store::open_read_only(dir.path()).unwrap();
        let same = |files: &[Found]| recorded_as(&db, files);
        let a = || found("memory/2026-01-02.md", 10, 5);
        let b = || found("memory/daily/2026-01-02.md", 20, 6);
        assert!(same(&[a(), b()]));
        assert!(!same(&[b(), a()]), "out of order");
        assert!(!same(&[a()]), "a file gone");
        assert!(
            !same(&[a(), b(), found("memory/zz.md", 1, 1)]),
            "a file added"
        );
        assert!(
            !same(&[a(), found("memory/daily/2026-01-02.md", 20, 7)]),
            "touched"
        );
        assert!(
            !same(&[a(), found("memory/daily/2026-01-02.md", 21, 6)]),
            "resized"
        );
        assert!(
            !same(&[found("memory/2026-01-03.md", 10, 5), b()]),
            "renamed"
        );
    }
}
