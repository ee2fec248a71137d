//! Safe writes and the project lock.
//!
//! Every file hipo writes goes through [`write_atomic`]: a temp file in the
//! same directory, fsync, rename. A reader (or a crash) sees the old bytes
//! or the new bytes, never a truncated file. [`ProjectLock`] keeps two hipo
//! processes (two hooks firing at once) from interleaving their writes.

use crate::error::{Error, Result};
use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// Prefix of hipo's temp files; one left by a killed process is stale
/// once the project lock is free, and `compact` deletes what the scan finds.
pub const TEMP_PREFIX: &str = ".hipo-tmp-";

/// Writes `bytes` to `path` atomically, creating parent directories. A
/// replaced file keeps its mode; a new one gets the umask's (`0666 & !umask`),
/// as a file the user created would, not the temp file's private 0600.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
    let existing = std::fs::metadata(path).ok().map(|m| m.permissions());
    let mut builder = tempfile::Builder::new();
    builder.prefix(TEMP_PREFIX);
    #[cfg(unix)]
    builder.permissions(std::os::unix::fs::PermissionsExt::from_mode(0o666));
    let mut tmp = builder.tempfile_in(dir).map_err(|e| Error::io(dir, e))?;
    if let Some(mode) = existing {
        tmp.as_file()
            .set_permissions(mode)
            .map_err(|e| Error::io(path, e))?;
    }
    tmp.write_all(bytes).map_err(|e| Error::io(path, e))?;
    tmp.as_file().sync_data().map_err(|e| Error::io(path, e))?;
    crate::failpoint::hit("write_atomic", &path.display()).map_err(|e| Error::io(path, e))?;
    tmp.persist(path).map_err(|e| Error::io(path, e.error))?;
    Ok(())
}

/// Removes the temp files [`write_atomic`] left in `dir` (not below it):
/// those of a process killed before its rename. The caller holds the
/// project lock, so no live hipo is writing one. Best effort: a file that
/// cannot be removed is left for `compact`, which reports it.
pub fn remove_stale_temps(dir: &Path) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        if e.file_name().to_string_lossy().starts_with(TEMP_PREFIX)
            && e.file_type().is_ok_and(|t| t.is_file())
        {
            let _ = std::fs::remove_file(e.path());
        }
    }
}

/// Reads a file as UTF-8, naming the file and the first bad line otherwise.
pub fn read_utf8(root: &Path, rel: &str) -> Result<String> {
    let path = root.join(rel);
    let bytes = std::fs::read(&path).map_err(|e| Error::io(&path, e))?;
    String::from_utf8(bytes).map_err(|e| {
        let valid = e.utf8_error().valid_up_to();
        let line = e.as_bytes()[..valid]
            .iter()
            .filter(|b| **b == b'\n')
            .count()
            + 1;
        Error::bad_input(
            rel,
            Some(line),
            "is not valid UTF-8; re-save it as UTF-8 (hipo skipped it)",
        )
    })
}

/// Bytes `lo..hi` of a file as text, if it holds them and they are
/// UTF-8: a section read where the index placed it, without the rest of
/// the file.
pub(crate) fn read_range(path: &Path, lo: usize, hi: usize) -> Option<String> {
    use std::io::{Read, Seek, SeekFrom};
    let mut file = File::open(path).ok()?;
    file.seek(SeekFrom::Start(lo as u64)).ok()?;
    let mut buf = vec![0; hi.checked_sub(lo)?];
    file.read_exact(&mut buf).ok()?;
    String::from_utf8(buf).ok()
}

/// Why [`hash_utf8`] refused a file.
#[derive(Debug)]
pub enum Unreadable {
    Io(std::io::Error),
    /// Not UTF-8, from this line (1-based).
    NotUtf8 {
        line: usize,
    },
}

/// The blake3 hash of a file that is all UTF-8, read a megabyte at a
/// time: a 200 MB log is never held whole.
pub fn hash_utf8(path: &Path) -> std::result::Result<[u8; 32], Unreadable> {
    let mut file = File::open(path).map_err(Unreadable::Io)?;
    let mut hasher = blake3::Hasher::new();
    let mut utf8 = Utf8Lines::default();
    let mut buf = vec![0u8; 1 << 20];
    loop {
        let n = match std::io::Read::read(&mut file, &mut buf[utf8.carry..]) {
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(Unreadable::Io(e)),
        };
        hasher.update(&buf[utf8.carry..utf8.carry + n]);
        utf8.check(&mut buf, n)
            .map_err(|line| Unreadable::NotUtf8 { line })?;
        if n == 0 {
            return Ok(*hasher.finalize().as_bytes());
        }
    }
}

/// UTF-8 checked a buffer at a time: a character cut by the buffer's end
/// is carried to the front for the next read.
#[derive(Default)]
struct Utf8Lines {
    /// Bytes at the front of the buffer still to be checked.
    carry: usize,
    /// Lines checked so far.
    lines: usize,
}

impl Utf8Lines {
    /// Checks the carried bytes and the `n` just read after them (0 at
    /// the end); the number of the first bad line, if there is one.
    fn check(&mut self, buf: &mut [u8], n: usize) -> std::result::Result<(), usize> {
        let filled = self.carry + n;
        let newlines = |b: &[u8]| b.iter().filter(|c| **c == b'\n').count();
        match std::str::from_utf8(&buf[..filled]) {
            Ok(_) => {
                self.lines += newlines(&buf[..filled]);
                self.carry = 0;
                Ok(())
            }
            // Cut short by the buffer's end, not bad: unless it is the end.
            Err(e) if e.error_len().is_none() && n > 0 => {
                let valid = e.valid_up_to();
                self.lines += newlines(&buf[..valid]);
                buf.copy_within(valid..filled, 0);
                self.carry = filled - valid;
                Ok(())
            }
            Err(e) => Err(self.lines + newlines(&buf[..e.valid_up_to()]) + 1),
        }
    }
}

/// An exclusive lock on `.hipo/lock`, held for the life of the value.
#[derive(Debug)]
pub struct ProjectLock {
    _file: File,
    /// How long `acquire` waited for another process to let go.
    waited: Duration,
    taken: Instant,
}

/// Set to `1` to have every lock say on stderr, when released, how long
/// it was waited for and held (`hipo: lock waited_ms=… held_ms=…`): what
/// the concurrency harness measures, with nothing added to any output a
/// user or an agent reads.
pub const LOCK_TRACE_ENV: &str = "HIPO_LOCK_TRACE";

fn lock_trace() -> bool {
    static ON: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *ON.get_or_init(|| std::env::var_os(LOCK_TRACE_ENV).is_some_and(|v| v == "1"))
}

impl Drop for ProjectLock {
    fn drop(&mut self) {
        if lock_trace() {
            eprintln!(
                "hipo: lock waited_ms={:.3} held_ms={:.3}",
                self.waited.as_secs_f64() * 1e3,
                self.taken.elapsed().as_secs_f64() * 1e3
            );
        }
    }
}

impl ProjectLock {
    /// Takes the lock, waiting up to `wait` for another hipo to finish.
    /// `on_wait` is called once if the lock is busy at first.
    pub fn acquire(root: &Path, wait: Duration, on_wait: impl FnOnce()) -> Result<ProjectLock> {
        let dir = root.join(crate::layout::HIPO_DIR);
        std::fs::create_dir_all(&dir).map_err(|e| Error::io(&dir, e))?;
        let path: PathBuf = dir.join("lock");
        let file = File::options()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&path)
            .map_err(|e| Error::io(&path, e))?;
        let start = Instant::now();
        let mut on_wait = Some(on_wait);
        loop {
            match file.try_lock() {
                Ok(()) => {
                    return Ok(ProjectLock {
                        _file: file,
                        waited: start.elapsed(),
                        taken: Instant::now(),
                    });
                }
                Err(std::fs::TryLockError::WouldBlock) => {
                    if let Some(f) = on_wait.take() {
                        f();
                    }
                    if start.elapsed() >= wait {
                        return Err(Error::Busy {
                            root: root.to_path_buf(),
                            lock: path,
                        });
                    }
                    std::thread::sleep(Duration::from_millis(20));
                }
                Err(std::fs::TryLockError::Error(e)) => return Err(Error::io(&path, e)),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `bytes` checked as reads of `k` bytes would hand them over.
    fn check_in_reads(bytes: &[u8], k: usize) -> std::result::Result<(), usize> {
        let mut utf8 = Utf8Lines::default();
        let mut buf = vec![0; k + 4];
        let mut rest = bytes;
        loop {
            let n = rest.len().min(k);
            buf[utf8.carry..utf8.carry + n].copy_from_slice(&rest[..n]);
            rest = &rest[n..];
            utf8.check(&mut buf, n)?;
            if n == 0 {
                return Ok(());
            }
        }
    }

    #[test]
    fn utf8_is_checked_across_reads_and_a_bad_line_named() {
        let text = "héllo wörld\n한국어 텍스트\n".repeat(3);
        let lines = text.matches('\n').count();
        let cut = "한".as_bytes()[..2].to_vec();
        for k in 1..9 {
            assert_eq!(check_in_reads(text.as_bytes(), k), Ok(()), "reads of {k}");
            let bad = [text.as_bytes(), b"ok\n\xff\n"].concat();
            assert_eq!(check_in_reads(&bad, k), Err(lines + 2), "reads of {k}");
            let short = [text.as_bytes(), &cut].concat();
            assert_eq!(check_in_reads(&short, k), Err(lines + 1), "reads of {k}");
        }
    }

    #[test]
    fn atomic_write_replaces() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("a/b.md");
        write_atomic(&p, b"one").unwrap();
        write_atomic(&p, b"two").unwrap();
        assert_eq!(std::fs::read(&p).unwrap(), b"two");
        let leftovers: Vec<_> = std::fs::read_dir(dir.path().join("a")).unwrap().collect();
        assert_eq!(leftovers.len(), 1);
    }

    #[cfg(unix)]
    #[test]
    fn a_replaced_file_keeps_its_mode_and_a_new_one_is_not_private() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        let mine = dir.path().join("mine.md");
        std::fs::write(&mine, "x").unwrap();
        std::fs::set_permissions(&mine, std::fs::Permissions::from_mode(0o640)).unwrap();
        write_atomic(&mine, b"y").unwrap();
        assert_eq!(mode(&mine), 0o640);
        let new = dir.path().join("new.md");
        write_atomic(&new, b"z").unwrap();
        // The process umask, as Linux reports it.
        let umask = std::fs::read_to_string("/proc/self/status")
            .ok()
            .and_then(|s| {
                let line = s.lines().find(|l| l.starts_with("Umask:"))?;
                u32::from_str_radix(line.trim_start_matches("Umask:").trim(), 8).ok()
            });
        if let Some(umask) = umask {
            assert_eq!(mode(&new), 0o666 & !umask, "follows the umask");
        }
    }

    #[test]
    fn second_lock_is_busy() {
        let dir = tempfile::tempdir().unwrap();
        let _held = ProjectLock::acquire(dir.path(), Duration::ZERO, || {}).unwrap();
        let mut waited = false;
        let err = ProjectLock::acquire(dir.path(), Duration::from_millis(50), || waited = true)
            .unwrap_err();
        assert!(waited);
        assert!(matches!(err, Error::Busy { .. }));
    }

    #[test]
    fn bad_utf8_names_line() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("x.md"), b"ok\nfine\n\xff bad\n").unwrap();
        let err = read_utf8(dir.path(), "x.md").unwrap_err();
        assert!(err.to_string().contains("x.md:3"), "{err}");
    }
}
