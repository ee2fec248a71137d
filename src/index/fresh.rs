//! The index as a search gets it: brought up to date under the project
//! lock, unless another hipo process holds the lock long enough that a
//! slightly stale index serves better than a wait.

use super::SearchIndex;
use super::sync::{Look, SyncReport, scan_against, sync_from};
use super::version;
use crate::config::Config;
use crate::error::{Error, Result};
use crate::fsutil::ProjectLock;
use crate::progress::Progress;
use crate::store::Store;
use std::path::Path;
use std::time::Duration;

/// An index as a search gets it.
pub struct Fresh {
    pub index: SearchIndex,
    /// What the sync did; `None` when another hipo process held the
    /// project lock and the index was searched as it was.
    pub sync: Option<SyncReport>,
    /// Things to tell the user (a rebuilt store, a stale index).
    pub warnings: Vec<String>,
}

/// Opens the index under `root`, brought up to date first. If another hipo
/// process holds the project lock longer than `wait` (a long model-backed
/// compaction), an existing index is searched as it is, with a warning,
/// rather than making the caller wait; with no index yet it waits up to
/// `max_wait`. With `wait` equal to `max_wait` (`hipo index`, the explicit
/// update) a lock held that long is an [`Error::Busy`], never a stale index.
pub fn fresh(
    root: &Path,
    wait: Duration,
    max_wait: Duration,
    progress: &dyn Progress,
) -> Result<Fresh> {
    let config = Config::load(root)?;
    let _lock = match ProjectLock::acquire(root, wait, || {}) {
        Ok(lock) => lock,
        Err(e @ Error::Busy { .. }) if wait >= max_wait => return Err(e),
        Err(Error::Busy { .. }) if SearchIndex::exists(root) => {
            return Ok(Fresh {
                index: SearchIndex::open(root)?,
                sync: None,
                warnings: vec![
                    "another hipo process is updating this project; results may miss its latest changes".into(),
                ],
            });
        }
        Err(Error::Busy { .. }) => ProjectLock::acquire(root, max_wait, || {})?,
        Err(e) => return Err(e),
    };
    let look = match check(root, &config)? {
        Check::Fresh(found) => {
            let (index, report) = *found;
            return Ok(Fresh {
                index,
                sync: Some(report),
                warnings: Vec::new(),
            });
        }
        Check::Stale(look) => Some(look),
        Check::Unknown => None,
    };
    let (store, warning) = Store::open(root)?;
    let (index, report) = sync_from(root, &store, &config, look, progress)?;
    Ok(Fresh {
        index,
        sync: Some(report),
        warnings: warning.into_iter().collect(),
    })
}

/// What a read-only look at the store says.
enum Check {
    /// The index is this version and no file changed since it was synced.
    Fresh(Box<(SearchIndex, SyncReport)>),
    /// Files changed: the look, for [`sync_from`] to start from.
    Stale(Look),
    /// No usable store or index: a full sync decides.
    Unknown,
}

/// The common case costs not a single disk write: the store opened read
/// only says the index is current and a stat of the tree finds no change.
fn check(root: &Path, config: &Config) -> Result<Check> {
    let Some(db) = Store::open_read_only(root) else {
        return Ok(Check::Unknown);
    };
    if db.index_version().as_deref() != Some(version().as_str()) || !SearchIndex::exists(root) {
        return Ok(Check::Unknown);
    }
    let Some(known) = db.index_files() else {
        return Ok(Check::Unknown);
    };
    drop(db);
    let mut scan = scan_against(root, &known, config)?;
    if scan.any_change() {
        return Ok(Check::Stale(Look { known, scan }));
    }
    let Ok(index) = SearchIndex::open(root) else {
        return Ok(Check::Unknown);
    };
    // What a killed update left goes before anything else is written.
    if !index.leftovers().unwrap_or_default().is_empty() {
        return Ok(Check::Stale(Look { known, scan }));
    }
    let report = SyncReport {
        files: scan.files.len(),
        problems: std::mem::take(&mut scan.problems),
        ..Default::default()
    };
    Ok(Check::Fresh(Box::new((index, report))))
}
