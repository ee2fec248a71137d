//! What a sync of the index did, and why it rebuilt the index when it did.

use crate::error::Problem;
use serde::Serialize;
use std::fmt;

/// What a sync did.
#[derive(Debug, Default, Serialize)]
pub struct SyncReport {
    /// Set when the whole index was rebuilt, with why.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rebuilt: Option<RebuildReason>,
    /// Set when files an interrupted update left were removed, saying so.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub repaired: Option<String>,
    /// Files searched.
    pub files: usize,
    /// Files (re)indexed.
    pub files_indexed: usize,
    /// Files gone from the index.
    pub files_removed: usize,
    pub sections_added: usize,
    pub sections_removed: usize,
    /// Files skipped, with why.
    pub problems: Vec<Problem>,
}

impl SyncReport {
    /// True when the index changed.
    pub fn changed(&self) -> bool {
        self.files_indexed + self.files_removed > 0 || self.rebuilt.is_some()
    }
}

/// Why a sync rebuilt the whole index. Shown to the user and serialised as
/// its sentence (the `rebuilt` field of `--json` output), so the CLI can
/// tell a first build (not worth a message) without comparing strings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RebuildReason {
    /// No index and no record of one: the first build.
    NoIndexYet,
    /// The store recorded an index that is not on disk.
    Missing,
    /// The index was built by another layout or analyzer version.
    OtherVersion {
        /// The recorded version, if any.
        found: Option<String>,
        /// This hipo's `index::version`.
        wanted: String,
    },
    /// The index could not be opened: the error, as shown.
    Unreadable(String),
    /// The index opened but could not be written to: the error, as shown.
    Unwritable(String),
    /// An index is on disk but the store has no record of it: the store
    /// was deleted or rebuilt, or the first build was cut short.
    Unrecorded,
}

impl RebuildReason {
    /// True for the first build of a project's index.
    pub fn is_first_build(&self) -> bool {
        *self == RebuildReason::NoIndexYet
    }
}

impl fmt::Display for RebuildReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RebuildReason::NoIndexYet => f.write_str("no index yet"),
            RebuildReason::Missing => f.write_str("the index was missing"),
            RebuildReason::OtherVersion { found, wanted } => write!(
                f,
                "the index was built by {}, not {wanted}",
                found.as_deref().unwrap_or("an unknown version"),
            ),
            RebuildReason::Unreadable(e) => f.write_str(e),
            RebuildReason::Unwritable(e) => write!(f, "it could not be updated ({e})"),
            RebuildReason::Unrecorded => f.write_str(
                "the store had no record of it (the store was rebuilt or deleted, or a build was cut short)",
            ),
        }
    }
}

impl Serialize for RebuildReason {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}
