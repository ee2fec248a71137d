//! Failpoints: make the Nth write boundary fail or kill the process, so a
//! test can prove that hipo is crash-consistent at every boundary rather
//! than at the moments a timed kill happens to land on.
//!
//! A boundary is a place just before hipo (or tantivy, through
//! [`FailDirectory`]) makes a write visible: the rename of
//! [`write_atomic`](crate::fsutil::write_atomic), a `.prev` rename, a
//! redb commit, a tantivy commit and each file tantivy writes, a raw-log
//! append. Each calls [`hit`] with its name.
//!
//! Armed by one environment variable, read once per process:
//!
//! ```text
//! HIPO_FAILPOINT=NAME:N:MODE    NAME a boundary (`store.commit`) or `*` for any,
//!                               N the occurrence (from 1), MODE `abort` or `error`
//! HIPO_FAILPOINT=trace          name every boundary passed, on stderr
//! HIPO_FAILPOINT=NAME:N:tear[=K]  at a write that supports it (`journal.append`),
//!                               write only its first K bytes (half when K is not
//!                               given), then SIGKILL: a `kill -9` landing mid-write
//! ```
//!
//! `abort` sends the process SIGKILL (no destructor, no flush: a `kill -9`
//! at that instant); `error` makes that one write fail with ENOSPC, as a
//! full disk would. Either is announced on stderr first
//! (`hipo: failpoint NAME #N: …`), so a test knows it fired.
//!
//! The check is compiled into every build, so the tests drive the very
//! binary users run (`cargo test` builds it with default features, and a
//! feature-gated binary would be a second, untested program). Unarmed, it
//! costs one load of an initialised `OnceLock` per boundary, next to an
//! fsync: nothing measurable.

use std::io;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};

/// The environment variable that arms a failpoint.
pub const ENV: &str = "HIPO_FAILPOINT";

/// What to do at the chosen occurrence.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    Abort,
    Error,
    /// Write this many bytes of the write (half when `None`), then die.
    Tear(Option<usize>),
}

/// A parsed `HIPO_FAILPOINT`.
#[derive(Debug, PartialEq, Eq)]
enum Spec {
    Trace,
    At {
        /// `None` matches every boundary.
        name: Option<String>,
        nth: u64,
        mode: Mode,
    },
}

struct Armed {
    spec: Spec,
    seen: AtomicU64,
}

fn armed() -> Option<&'static Armed> {
    static ARMED: OnceLock<Option<Armed>> = OnceLock::new();
    ARMED
        .get_or_init(|| {
            let raw = std::env::var(ENV).ok()?;
            match parse(&raw) {
                Some(spec) => Some(Armed {
                    spec,
                    seen: AtomicU64::new(0),
                }),
                None => {
                    eprintln!(
                        "hipo: warning: {ENV}={raw:?} is not NAME:N:abort|error or trace; ignored"
                    );
                    None
                }
            }
        })
        .as_ref()
}

fn parse(raw: &str) -> Option<Spec> {
    if raw.trim() == "trace" {
        return Some(Spec::Trace);
    }
    let mut parts = raw.trim().splitn(3, ':');
    let name = parts.next()?.trim();
    let nth: u64 = parts.next()?.trim().parse().ok().filter(|n| *n > 0)?;
    let mode = match parts.next()?.trim() {
        "abort" => Mode::Abort,
        "error" => Mode::Error,
        "tear" => Mode::Tear(None),
        other => Mode::Tear(Some(other.strip_prefix("tear=")?.parse().ok()?)),
    };
    if name.is_empty() {
        return None;
    }
    Some(Spec::At {
        name: (name != "*").then(|| name.to_string()),
        nth,
        mode,
    })
}

/// Passes the boundary `name` about to write `what`: `Ok` unless a
/// failpoint armed for this occurrence says to fail (or never returns,
/// when it says to abort).
pub fn hit(name: &'static str, what: &dyn std::fmt::Display) -> io::Result<()> {
    match fired(name, what)? {
        // A tear where nothing is written: an abort.
        Some(_) => kill_self(),
        None => Ok(()),
    }
}

/// Writes `bytes` to `out` at the boundary `name`, as [`hit`] would pass
/// it, except that a `tear` failpoint writes only part of them and then
/// kills the process: what a SIGKILL landing inside one big `write` leaves.
pub fn write(
    name: &'static str,
    what: &dyn std::fmt::Display,
    out: &mut dyn io::Write,
    bytes: &[u8],
) -> io::Result<()> {
    if let Some(keep) = fired(name, what)? {
        let keep = keep.unwrap_or(bytes.len() / 2).min(bytes.len());
        out.write_all(&bytes[..keep])?;
        out.flush()?;
        kill_self()
    }
    out.write_all(bytes)
}

/// The failpoint armed for this occurrence of `name`: `Ok(None)` to go
/// on, an error to fail with, `Ok(Some(keep))` to tear (abort never
/// returns).
fn fired(name: &'static str, what: &dyn std::fmt::Display) -> io::Result<Option<Option<usize>>> {
    let Some(armed) = armed() else {
        return Ok(None);
    };
    match &armed.spec {
        Spec::Trace => {
            let n = armed.seen.fetch_add(1, Ordering::SeqCst) + 1;
            eprintln!("hipo: failpoint {name} #{n}: {what}");
            Ok(None)
        }
        Spec::At {
            name: wanted,
            nth,
            mode,
        } => {
            if wanted.as_deref().is_some_and(|w| w != name) {
                return Ok(None);
            }
            let n = armed.seen.fetch_add(1, Ordering::SeqCst) + 1;
            if n != *nth {
                return Ok(None);
            }
            match mode {
                Mode::Abort => {
                    eprintln!("hipo: failpoint {name} #{n}: abort before {what}");
                    kill_self()
                }
                Mode::Error => {
                    eprintln!("hipo: failpoint {name} #{n}: error (disk full) writing {what}");
                    Err(io::Error::from_raw_os_error(ENOSPC))
                }
                Mode::Tear(keep) => {
                    eprintln!("hipo: failpoint {name} #{n}: tear writing {what}");
                    Ok(Some(*keep))
                }
            }
        }
    }
}

#[cfg(unix)]
const ENOSPC: i32 = libc::ENOSPC;
#[cfg(not(unix))]
const ENOSPC: i32 = 28;

/// Dies at once, as `kill -9` would: no unwinding, no buffered output.
fn kill_self() -> ! {
    #[cfg(unix)]
    // SAFETY: kill(2) on our own pid has no memory-safety preconditions.
    unsafe {
        libc::kill(libc::getpid(), libc::SIGKILL);
    }
    std::process::abort()
}

/// True when a failpoint is armed: tantivy's directory is then wrapped in
/// a [`FailDirectory`], and left bare otherwise.
pub(crate) fn is_armed() -> bool {
    armed().is_some()
}

/// A tantivy directory whose file writes pass failpoints (`index.write`
/// for segment files, `index.meta` for `meta.json` and tantivy's other
/// atomic files), so a kill can land inside tantivy's own commit.
#[derive(Debug, Clone)]
pub(crate) struct FailDirectory(pub tantivy::directory::MmapDirectory);

mod directory {
    use super::{FailDirectory, hit};
    use std::path::Path;
    use std::sync::Arc;
    use tantivy::directory::error::{DeleteError, OpenReadError, OpenWriteError};
    use tantivy::directory::{
        Directory, DirectoryLock, FileHandle, Lock, WatchCallback, WatchHandle, WritePtr,
    };

    impl Directory for FailDirectory {
        fn get_file_handle(&self, path: &Path) -> Result<Arc<dyn FileHandle>, OpenReadError> {
            self.0.get_file_handle(path)
        }
        fn delete(&self, path: &Path) -> Result<(), DeleteError> {
            self.0.delete(path)
        }
        fn exists(&self, path: &Path) -> Result<bool, OpenReadError> {
            self.0.exists(path)
        }
        fn open_write(&self, path: &Path) -> Result<WritePtr, OpenWriteError> {
            hit("index.write", &path.display())
                .map_err(|e| OpenWriteError::wrap_io_error(e, path.to_path_buf()))?;
            self.0.open_write(path)
        }
        fn atomic_read(&self, path: &Path) -> Result<Vec<u8>, OpenReadError> {
            self.0.atomic_read(path)
        }
        fn atomic_write(&self, path: &Path, data: &[u8]) -> std::io::Result<()> {
            hit("index.meta", &path.display())?;
            self.0.atomic_write(path, data)
        }
        fn sync_directory(&self) -> std::io::Result<()> {
            self.0.sync_directory()
        }
        fn acquire_lock(
            &self,
            lock: &Lock,
        ) -> Result<DirectoryLock, tantivy::directory::error::LockError> {
            self.0.acquire_lock(lock)
        }
        fn watch(&self, cb: WatchCallback) -> tantivy::Result<WatchHandle> {
            self.0.watch(cb)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specs_parse_and_bad_ones_are_refused() {
        assert_eq!(parse("trace"), Some(Spec::Trace));
        assert_eq!(
            parse("*:3:abort"),
            Some(Spec::At {
                name: None,
                nth: 3,
                mode: Mode::Abort
            })
        );
        assert_eq!(
            parse("store.commit:1:error"),
            Some(Spec::At {
                name: Some("store.commit".into()),
                nth: 1,
                mode: Mode::Error
            })
        );
        assert_eq!(
            parse("journal.append:2:tear=100"),
            Some(Spec::At {
                name: Some("journal.append".into()),
                nth: 2,
                mode: Mode::Tear(Some(100))
            })
        );
        for bad in [
            "*:1:tear=x",
            "",
            "*:0:abort",
            "*:x:abort",
            "*:2:explode",
            ":2:abort",
            "*:2",
        ] {
            assert_eq!(parse(bad), None, "{bad}");
        }
    }

    #[test]
    fn unarmed_boundaries_pass() {
        // The test runner does not set HIPO_FAILPOINT.
        if std::env::var_os(ENV).is_none() {
            assert!(hit("write_atomic", &"x").is_ok());
            assert!(!is_armed());
        }
    }
}
