//! One error type for the library, split by what went wrong, so the CLI can
//! print a single clear line and pick an exit code without string matching.

use std::path::PathBuf;

/// Library result.
pub type Result<T> = std::result::Result<T, Error>;

/// Everything that can stop a hipo operation.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// No project root could be found or the given one does not exist.
    #[error("{0}")]
    NoProject(String),
    /// Reading or writing a file failed (with what to do, when the
    /// cause is a full or read-only disk).
    #[error("{}: {source}{}", path.display(), io_hint(source))]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// A user file is not what hipo expects (bad UTF-8, bad frontmatter, bad date).
    #[error("{}{}: {message}", path.display(), line.map(|l| format!(":{l}")).unwrap_or_default())]
    BadInput {
        path: PathBuf,
        line: Option<usize>,
        message: String,
    },
    /// `hipocampus.config.json` could not be understood.
    #[error("{}: {message}", path.display())]
    Config { path: PathBuf, message: String },
    /// The redb store failed in a way a rebuild cannot fix.
    #[error("store {}: {source}", path.display())]
    Store {
        path: PathBuf,
        /// Boxed: redb's error is large, and every `Result` would carry it.
        #[source]
        source: Box<redb::Error>,
    },
    /// The store is not of a layout hipo can use, with no redb error to
    /// tell (another schema where a new store was expected).
    #[error("store {}: {message}", path.display())]
    StoreLayout { path: PathBuf, message: String },
    /// The search index failed doing `what` (empty: the error says it all).
    #[error("search index: {}{source}", prefix(what))]
    Index {
        what: &'static str,
        #[source]
        source: Box<tantivy::TantivyError>,
    },
    /// The search index is not of the layout this hipo builds, with no
    /// tantivy error to tell (a field missing from its schema).
    #[error("search index: {0}")]
    IndexLayout(String),
    /// Writing an export to its output failed (a closed pipe among others,
    /// which the CLI takes as the reader having had enough).
    #[error("writing the export: {0}")]
    Export(#[source] std::io::Error),
    /// A search query could not be parsed.
    #[error("query: {0}")]
    Query(String),
    /// Another hipo process holds the project lock.
    #[error("another hipo process is working on {} (lock {}); try again when it finishes", root.display(), lock.display())]
    Busy { root: PathBuf, lock: PathBuf },
    /// The local LLM backend failed for a reason that is not per-node.
    #[error("llm: {0}")]
    Llm(String),
    /// An agent platform's transcript database could not be read (busy
    /// past the wait, damaged, or of an unknown layout).
    #[error("transcript store {}: {source}", path.display())]
    TranscriptStore {
        path: PathBuf,
        #[source]
        source: Box<rusqlite::Error>,
    },
    /// The caller asked for something that cannot be done as asked; the
    /// message says what to do instead.
    #[error("{0}")]
    Usage(String),
    /// An agent's transcript database (OpenCode's `opencode.db`) could
    /// not be read.
    #[error("transcript database {}: {source}", path.display())]
    TranscriptDb {
        path: PathBuf,
        #[source]
        source: Box<rusqlite::Error>,
    },
}

/// What the user can do about an I/O error they, not hipo, must fix. Every
/// write is atomic (and an append reserves its space first), so a failed
/// one left the old file whole: say so.
fn io_hint(e: &std::io::Error) -> &'static str {
    use std::io::ErrorKind;
    match e.kind() {
        ErrorKind::StorageFull | ErrorKind::QuotaExceeded => {
            "; free some space and run hipo again (nothing was half-written)"
        }
        ErrorKind::ReadOnlyFilesystem => "; make it writable and run hipo again",
        ErrorKind::PermissionDenied => {
            "; give hipo permission to read and write there and run it again"
        }
        _ => "",
    }
}

/// Why a disk refused a write: hipo cannot fix either, and a reader
/// answers from what it has ([`Error::refusal`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Refusal {
    /// No space left (or the quota reached).
    Full,
    /// A read-only mount, or no permission to write there.
    ReadOnly,
}

impl Refusal {
    fn of(kind: std::io::ErrorKind) -> Option<Refusal> {
        use std::io::ErrorKind;
        match kind {
            ErrorKind::StorageFull | ErrorKind::QuotaExceeded => Some(Refusal::Full),
            ErrorKind::ReadOnlyFilesystem | ErrorKind::PermissionDenied => Some(Refusal::ReadOnly),
            _ => None,
        }
    }

    /// The refusal somewhere under `e`: the chain of sources is searched
    /// for the I/O error; tantivy and redb keep some of theirs where only
    /// their `Debug` text shows the kind, so that is read last.
    pub(crate) fn under(e: &(dyn std::error::Error + 'static)) -> Option<Refusal> {
        let mut cur = Some(e);
        while let Some(e) = cur {
            if let Some(r) = e
                .downcast_ref::<std::io::Error>()
                .and_then(|io| Refusal::of(io.kind()))
            {
                return Some(r);
            }
            cur = e.source();
        }
        let text = format!("{e:?}");
        if text.contains("StorageFull") || text.contains("QuotaExceeded") {
            Some(Refusal::Full)
        } else if text.contains("ReadOnlyFilesystem") {
            Some(Refusal::ReadOnly)
        } else {
            None
        }
    }

    /// What a search answering from an index it could not update says.
    pub fn stale_note(self) -> &'static str {
        match self {
            Refusal::Full => {
                "the disk is full: searched the index as it is (it may miss changes since its last update); free some space and run hipo again"
            }
            Refusal::ReadOnly => {
                "the project is read only here: searched the index as it is (it may miss changes since its last update)"
            }
        }
    }
}

/// `what: `, or nothing for an empty `what`.
fn prefix(what: &str) -> String {
    if what.is_empty() {
        String::new()
    } else {
        format!("{what}: ")
    }
}

impl Error {
    /// Wraps a tantivy error with what the index was doing.
    pub(crate) fn index(what: &'static str) -> impl Fn(tantivy::TantivyError) -> Error + Copy {
        move |e| Error::Index {
            what,
            source: Box::new(e),
        }
    }

    /// Whether a search read files a writer in another process had just
    /// merged away: its view of the index named segments whose files were
    /// collected under it. Opening the index again sees the new ones.
    pub(crate) fn is_torn_read(&self) -> bool {
        use tantivy::TantivyError as T;
        matches!(self, Error::Index { source, .. } if matches!(
            **source,
            T::DataCorruption(_) | T::OpenReadError(_) | T::IoError(_)
        ))
    }

    /// Whether a disk refused a write somewhere under this error (full,
    /// or read only): [`Refusal::under`].
    pub(crate) fn refusal(&self) -> Option<Refusal> {
        Refusal::under(self)
    }

    /// Wraps an I/O error with the path it concerns.
    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        Error::Io {
            path: path.into(),
            source,
        }
    }

    /// A bad-input error for `path`, optionally at `line`.
    pub fn bad_input(
        path: impl Into<PathBuf>,
        line: Option<usize>,
        message: impl Into<String>,
    ) -> Self {
        Error::BadInput {
            path: path.into(),
            line,
            message: message.into(),
        }
    }
}

/// A non-fatal problem: reported, remembered, and turned into a non-zero
/// exit at the end, while the rest of the work still happens.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Problem {
    /// Path relative to the project root.
    pub path: String,
    /// 1-based line, where it helps.
    pub line: Option<usize>,
    /// What is wrong and what to do.
    pub message: String,
}

impl std::fmt::Display for Problem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.line {
            Some(line) => write!(f, "{}:{}: {}", self.path, line, self.message),
            None => write!(f, "{}: {}", self.path, self.message),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_an_index_read_under_a_writer_is_looked_at_again() {
        use tantivy::error::DataCorruption;
        let torn = Error::index("searching")(tantivy::TantivyError::DataCorruption(
            DataCorruption::comment_only("Failed to open field \"unit\"'s positions"),
        ));
        assert!(torn.is_torn_read());
        let schema = Error::index("searching")(tantivy::TantivyError::SchemaError("x".into()));
        assert!(!schema.is_torn_read());
        assert!(!Error::io("x", std::io::Error::other("boom")).is_torn_read());
    }

    #[test]
    fn a_full_or_read_only_disk_is_found_under_any_wrapper() {
        let full = || std::io::Error::from(std::io::ErrorKind::StorageFull);
        assert_eq!(Error::io("x", full()).refusal(), Some(Refusal::Full));
        let redb = Error::Store {
            path: "s".into(),
            source: Box::new(redb::Error::Io(full())),
        };
        assert_eq!(redb.refusal(), Some(Refusal::Full));
        let tantivy = Error::index("committing")(tantivy::TantivyError::from(
            tantivy::directory::error::OpenWriteError::wrap_io_error(
                std::io::Error::from(std::io::ErrorKind::ReadOnlyFilesystem),
                "meta.json".into(),
            ),
        ));
        assert_eq!(tantivy.refusal(), Some(Refusal::ReadOnly));
        let other = Error::io("x", std::io::Error::other("boom"));
        assert_eq!(other.refusal(), None);
        assert_eq!(Error::Query("bad".into()).refusal(), None);
    }
}
