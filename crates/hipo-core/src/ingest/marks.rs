//! Finding a transcript's newest watermark. The comments in the raw logs
//! are the truth; the store caches how far each raw log has been read and
//! the newest mark of each transcript, so a capture reads only what was
//! appended since the last one, not every raw log (a new session's first
//! capture used to read them all: 16 MB for three months of MemAware,
//! half a gigabyte at ten years). Without a usable store, or when a raw
//! log shrank or went away (not append-only any more), the raw logs are
//! read whole and the cache is rebuilt from them.

use super::Format;
use crate::error::{Error, Result};
use crate::layout::{MEMORY_DIR, PathKind, classify};
use crate::store::Store;
use crate::store::marks::{Mark, Marks};
use std::collections::HashMap;
use std::path::Path;

const PREFIX: &str = "<!-- hipo:ingest ";

/// Bytes of raw log read past the cache before it is worth updating. A
/// read-write open of the store costs a header write and a sync (tens of
/// milliseconds on a busy disk), so the last captures' own entries are
/// read again each time (a few KB) rather than recorded every time.
const PERSIST_BYTES: u64 = 256 * 1024;

/// The cursor of the newest watermark `format`'s transcript `key` left.
/// `open` opens the store for writing, called only when the cache is
/// worth updating; the cache is read without a write.
pub(super) fn find<'s>(
    root: &Path,
    open: &dyn Fn() -> Option<&'s Store>,
    format: Format,
    key: &str,
) -> Result<Option<String>> {
    find_with(root, open, format, key, PERSIST_BYTES)
}

/// The newest watermark's cursor of every transcript of `format`, by
/// key: for a store holding many sessions (OpenClaw's database), one
/// look at the raw logs for all of them.
pub(super) fn find_all<'s>(
    root: &Path,
    open: &dyn Fn() -> Option<&'s Store>,
    format: Format,
) -> Result<HashMap<String, String>> {
    let prefix = format!("{} ", format.as_str());
    Ok(known(root, open, PERSIST_BYTES)?
        .marks
        .into_iter()
        .filter_map(|(id, m)| Some((id.strip_prefix(&prefix)?.to_string(), m.cursor)))
        .collect())
}

/// [`find`], updating the cache once `persist` bytes were read past it.
fn find_with<'s>(
    root: &Path,
    open: &dyn Fn() -> Option<&'s Store>,
    format: Format,
    key: &str,
    persist: u64,
) -> Result<Option<String>> {
    let id = format!("{} {key}", format.as_str());
    Ok(known(root, open, persist)?
        .marks
        .remove(&id)
        .map(|m| m.cursor))
}

/// Every watermark the raw logs hold: the cache, brought up to date with
/// what was appended since.
fn known<'s>(root: &Path, open: &dyn Fn() -> Option<&'s Store>, persist: u64) -> Result<Marks> {
    let logs = raw_logs(root)?;
    let cache = Store::open_read_only(root)
        .and_then(|r| r.ingest_marks())
        .unwrap_or_default();
    let still_appended = cache
        .scanned
        .iter()
        .all(|(day, len)| logs.iter().any(|(d, now)| d == day && *now >= *len));
    let (known, mut changes) = if still_appended {
        (cache, Changes::default())
    } else {
        // Start afresh: every cached entry goes, then the scan's are put.
        let dropped = (
            cache.scanned.into_keys().map(|k| (k, None)).collect(),
            cache.marks.into_keys().map(|k| (k, None)).collect(),
        );
        (Marks::default(), dropped)
    };
    let (marks, found, read) = scan(root, &logs, &known)?;
    changes.0.extend(found.0);
    changes.1.extend(found.1);
    let worth = !still_appended || read >= persist;
    if worth
        && (!changes.0.is_empty() || !changes.1.is_empty())
        && let Some(store) = open()
    {
        store.save_ingest_marks(&changes.0, &changes.1)?;
    }
    Ok(marks)
}

type Changes = (Vec<(String, Option<u64>)>, Vec<(String, Option<Mark>)>);

/// Reads each raw log from where `known` says it was read to, oldest day
/// first, so a later mark of a transcript replaces an earlier one;
/// returns the marks now known, what changed and the bytes read.
fn scan(root: &Path, logs: &[(String, u64)], known: &Marks) -> Result<(Marks, Changes, u64)> {
    let dir = root.join(MEMORY_DIR);
    let mut marks = Marks {
        scanned: known.scanned.clone(),
        marks: known.marks.clone(),
    };
    let mut changed_marks: HashMap<String, Mark> = HashMap::new();
    let mut scanned = Vec::new();
    let mut read = 0;
    for (day, len) in logs {
        let from = known.scanned.get(day).copied().unwrap_or(0);
        if from >= *len {
            continue;
        }
        let (found, end) = read_marks(&dir.join(day), from)?;
        read += len - from;
        for (id, cursor) in found {
            if marks.marks.get(&id).is_some_and(|m| m.day > *day) {
                continue;
            }
            let m = Mark {
                day: day.clone(),
                cursor,
            };
            marks.marks.insert(id.clone(), m.clone());
            changed_marks.insert(id, m);
        }
        if end != from {
            marks.scanned.insert(day.clone(), end);
            scanned.push((day.clone(), Some(end)));
        }
    }
    let changed = changed_marks
        .into_iter()
        .map(|(k, m)| (k, Some(m)))
        .collect();
    Ok((marks, (scanned, changed), read))
}

/// The raw logs with their lengths, oldest day first.
fn raw_logs(root: &Path) -> Result<Vec<(String, u64)>> {
    let dir = root.join(MEMORY_DIR);
    let entries = match std::fs::read_dir(&dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(Error::io(&dir, e)),
    };
    let mut logs: Vec<(String, u64)> = entries
        .flatten()
        .filter_map(|e| {
            let name = e.file_name().into_string().ok()?;
            let raw = classify(&format!("{MEMORY_DIR}/{name}"))
                .is_ok_and(|k| matches!(k, PathKind::Raw(_)));
            let meta = e.metadata().ok().filter(|m| m.is_file())?;
            raw.then_some((name, meta.len()))
        })
        .collect();
    logs.sort_unstable();
    Ok(logs)
}

/// A watermark after its prefix: `PLATFORM KEY CURSOR [ANCHOR…] -->` on
/// one line, as (`platform key`, `CURSOR[ ANCHOR…]`). A mark cut short
/// (a capture killed mid-write, completed by the next append's newline)
/// has no `-->` on its line and is no mark: its digits may be cut too.
fn parse_mark(rest: &str) -> Option<(String, String)> {
    let line = rest.split('\n').next()?;
    let (inside, _) = line.split_once("-->")?;
    let mut words = inside.split_whitespace();
    let (p, k) = (words.next()?, words.next()?);
    let cursor: Vec<&str> = words.collect();
    if cursor.is_empty() {
        return None;
    }
    Some((format!("{p} {k}"), cursor.join(" ")))
}

/// The watermarks in `path` from byte `from` on, as (`platform key`,
/// cursor), and the offset just past the last complete line read.
fn read_marks(path: &Path, from: u64) -> Result<(Vec<(String, String)>, u64)> {
    use std::io::{Read, Seek, SeekFrom};
    let err = |e| Error::io(path, e);
    let mut file = std::fs::File::open(path).map_err(err)?;
    file.seek(SeekFrom::Start(from)).map_err(err)?;
    let mut bytes = Vec::new();
    file.read_to_end(&mut bytes).map_err(err)?;
    let complete = bytes.iter().rposition(|b| *b == b'\n').map_or(0, |i| i + 1);
    let text = String::from_utf8_lossy(&bytes[..complete]);
    let mut found = Vec::new();
    for (i, _) in text.match_indices(PREFIX) {
        if let Some((id, cursor)) = parse_mark(&text[i + PREFIX.len()..]) {
            found.push((id, cursor));
        }
    }
    Ok((found, from + complete as u64))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(root: &Path, day: &str, text: &str) {
        std::fs::write(root.join("memory").join(day), text).unwrap();
    }

    #[test]
    fn the_cache_follows_appends_and_starts_afresh_when_a_log_shrinks() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir(root.join("memory")).unwrap();
        write(
            root,
            "2027-01-01.md",
            "# x\n<!-- hipo:ingest codex a 10 -->\n",
        );
        write(
            root,
            "2027-01-02.md",
            "# y\n<!-- hipo:ingest codex a 20 -->\n<!-- hipo:ingest codex b 5 -->\n",
        );
        // Each lookup a process of its own: the store opened only to write,
        // and written whenever anything was read past the cache.
        let find = |key: &str| {
            let cell = std::cell::OnceCell::new();
            let open = || Some(cell.get_or_init(|| Store::open(root).unwrap().0));
            find_with(root, &open, Format::Codex, key, 0).unwrap()
        };
        assert_eq!(find("a").as_deref(), Some("20"));
        assert_eq!(find("b").as_deref(), Some("5"));
        assert_eq!(find("c"), None);
        // What was read is not read again: a mark changed in place (the
        // same length; raw logs are append-only) is still the cache's.
        let day2 = std::fs::read_to_string(root.join("memory/2027-01-02.md")).unwrap();
        write(
            root,
            "2027-01-02.md",
            &day2.replace("codex b 5", "codex b 0"),
        );
        assert_eq!(find("b").as_deref(), Some("5"));
        write(root, "2027-01-02.md", &day2);
        // An append to an older day does not beat a newer day's mark.
        let mut old = std::fs::read_to_string(root.join("memory/2027-01-01.md")).unwrap();
        old.push_str("<!-- hipo:ingest codex a 15 -->\n<!-- hipo:ingest codex c 1 -->\n");
        write(root, "2027-01-01.md", &old);
        assert_eq!(find("a").as_deref(), Some("20"));
        assert_eq!(find("c").as_deref(), Some("1"));
        // A partial last line waits until it is complete.
        let mut day = std::fs::read_to_string(root.join("memory/2027-01-02.md")).unwrap();
        day.push_str("<!-- hipo:ingest codex a 3");
        write(root, "2027-01-02.md", &day);
        assert_eq!(find("a").as_deref(), Some("20"));
        day.push_str("0 -->\n");
        write(root, "2027-01-02.md", &day);
        assert_eq!(find("a").as_deref(), Some("30"));
        // A mark cut short is no mark, even once its line is complete.
        day.push_str("<!-- hipo:ingest codex a 4\n");
        write(root, "2027-01-02.md", &day);
        assert_eq!(find("a").as_deref(), Some("30"));
        // Rewritten shorter: the cache is dropped and rebuilt.
        write(root, "2027-01-02.md", "# y\n");
        assert_eq!(find("a").as_deref(), Some("15"));
        assert_eq!(find("b"), None);
        // Without a store: the same answers from the raw logs alone.
        assert_eq!(
            super::find(root, &|| None, Format::Codex, "a")
                .unwrap()
                .as_deref(),
            Some("15")
        );
    }
}
