//! Appending a typed entry to a raw log, the one write hipo makes to the
//! source of truth.
//!
//! A raw log is append-only and other writers (the agent platform, another
//! hook) may be appending to it at the same moment, so the entry goes out
//! in a single `write` on an `O_APPEND` descriptor: it lands whole, after
//! whatever is there, never interleaved with another writer's bytes and
//! never over them. Entries are redacted first: a secret an agent pastes
//! into a checkpoint is not written in clear, and text inside
//! `<private>…</private>` is not written at all ([`crate::private`]).

use crate::error::{Error, Result};
use crate::markdown::EntryType;
use crate::redact::redact;
use chrono::NaiveDate;
use std::io::{Read, Seek, SeekFrom};
use std::path::Path;

/// A typed entry: `## Topic [type]`, then `- key: value` fields, then a
/// free body, as hipocampus's checkpoint format writes it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Entry {
    pub kind: EntryType,
    /// One line; the heading.
    pub topic: String,
    /// `- key: value` lines, in order (request, analysis, decisions,
    /// outcome, references, or a feedback entry's rule, why, how-to-apply).
    pub fields: Vec<(String, String)>,
    /// Free Markdown after the fields.
    pub body: String,
}

impl Entry {
    /// The entry as Markdown: heading, fields, body, ending in a newline.
    /// Errors name what is wrong with the entry and how to fix it.
    pub fn render(&self) -> Result<String> {
        let topic = self.topic.trim();
        if topic.is_empty() || topic.contains('\n') {
            return Err(Error::Usage(
                "an entry needs a topic of one line, such as \"Q1 roadmap draft\"".into(),
            ));
        }
        let mut text = format!("## {topic} [{}]\n", self.kind.as_str());
        for (key, value) in &self.fields {
            let key = key.trim();
            if key.is_empty() || key.contains(['\n', ':']) {
                return Err(Error::Usage(format!(
                    "`{key}` is not a field name; use one word such as request, decisions or outcome"
                )));
            }
            // A multi-line value stays inside its list item.
            let value = value.trim().replace('\n', "\n  ");
            text.push_str(&format!("- {key}: {value}\n"));
        }
        let body = self.body.trim_end();
        if !body.is_empty() {
            text.push_str(body.trim_start_matches('\n'));
            text.push('\n');
        }
        if self.fields.is_empty() && body.is_empty() {
            return Err(Error::Usage(
                "an entry needs some content: fields (request=…, outcome=…) or a body".into(),
            ));
        }
        Ok(redact(&crate::private::strip(&text)).into_owned())
    }
}

/// Where an entry landed.
#[derive(Debug, Clone, PartialEq)]
pub struct Written {
    /// Project-relative path of the raw log.
    pub path: String,
    /// 1-based line of the entry's heading.
    pub line: usize,
    /// Lines appended (the blank line before the heading included).
    pub lines: usize,
}

/// Appends `entry` to `memory/{today}.md` under `root`. The caller holds
/// the project lock, so no other hipo appends between the look at the
/// file's end and the write; a platform writing without the lock can at
/// worst push the entry further down, never tear it.
pub fn append(root: &Path, entry: &Entry, today: NaiveDate) -> Result<Written> {
    append_rendered(root, &entry.render()?, today)
}

/// [`append`] for an entry already rendered (and so redacted) by
/// [`Entry::render`].
pub(crate) fn append_rendered(root: &Path, text: &str, today: NaiveDate) -> Result<Written> {
    let rel = crate::tree::raw_path(today);
    let path = root.join(&rel);
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
    }
    let mut file = open_append(&path)?;
    let end = look_at_end(&mut file).map_err(|e| Error::io(&path, e))?;
    let title = format!("# {today}\n");
    let mut out = String::new();
    match end.torn_title(&title) {
        // A killed append left part of the day's title: finish it.
        Some(rest) => out.push_str(rest),
        None if end.empty => out.push_str(&title),
        None if !end.ends_in_newline => out.push('\n'),
        None => {}
    }
    out.push('\n');
    // The heading starts after every newline before it.
    let line = end.newlines + out.matches('\n').count() + 1;
    out.push_str(text);
    write_end(&mut file, &path, out.as_bytes())?;
    Ok(Written {
        path: rel,
        line,
        lines: out.matches('\n').count(),
    })
}

/// Appends `rest`, the end of an entry whose first part a killed capture
/// left at the end of the raw log `rel` (its heading on line `line`), so
/// the entry is whole again (see [`crate::ingest::torn`]).
pub(crate) fn finish(root: &Path, rel: &str, line: usize, rest: &[u8]) -> Result<Written> {
    let path = root.join(rel);
    let mut file = open_append(&path)?;
    write_end(&mut file, &path, rest)?;
    Ok(Written {
        path: rel.to_string(),
        line,
        lines: rest.iter().filter(|b| **b == b'\n').count(),
    })
}

/// Opens a raw log to append to. A FIFO, a device or a socket by a raw
/// log's name (or a link to one, such as `/dev/zero`) is refused, not
/// opened: reading its end would block or never finish.
fn open_append(path: &Path) -> Result<std::fs::File> {
    regular(path)?;
    std::fs::OpenOptions::new()
        .read(true)
        .append(true)
        .create(true)
        .open(path)
        .map_err(|e| Error::io(path, e))
}

/// `Ok` when `path` is a regular file (through links) or is missing.
pub(crate) fn regular(path: &Path) -> Result<()> {
    match std::fs::metadata(path) {
        Ok(m) if !m.is_file() && !m.is_dir() => Err(Error::BadInput {
            path: path.to_path_buf(),
            line: None,
            message: "is not a regular file (a FIFO, a device, a socket, or a link to one), so hipo will not read or append to it; remove or rename it".into(),
        }),
        _ => Ok(()),
    }
}

/// One write of `bytes` at the end of `file`, synced; room reserved first.
fn write_end(file: &mut std::fs::File, path: &Path, bytes: &[u8]) -> Result<()> {
    reserve(file, bytes.len())
        .and_then(|()| crate::failpoint::write("journal.append", &path.display(), file, bytes))
        .and_then(|()| file.sync_data())
        .map_err(|e| Error::io(path, e))
}

/// Reserves room for `len` more bytes at the end of `file`, so that on a
/// full disk the append fails before writing anything rather than leaving
/// half an entry (`write_all` on a short write). Where the file system
/// cannot reserve, the write goes ahead as before.
#[cfg(target_os = "linux")]
fn reserve(file: &std::fs::File, len: usize) -> std::io::Result<()> {
    use std::os::fd::AsRawFd;
    let end = file.metadata()?.len();
    let (Ok(end), Ok(len)) = (libc::off_t::try_from(end), libc::off_t::try_from(len)) else {
        return Ok(());
    };
    // SAFETY: fallocate(2) on a descriptor we own; KEEP_SIZE leaves the
    // file's length, and so what readers and other appenders see, as is.
    let r = unsafe { libc::fallocate(file.as_raw_fd(), libc::FALLOC_FL_KEEP_SIZE, end, len) };
    if r == 0 {
        return Ok(());
    }
    let e = std::io::Error::last_os_error();
    match e.raw_os_error() {
        Some(libc::ENOSPC) | Some(libc::EDQUOT) => Err(e),
        // Not supported here (EOPNOTSUPP, ENOSYS, …): append unreserved.
        _ => Ok(()),
    }
}

#[cfg(not(target_os = "linux"))]
fn reserve(_file: &std::fs::File, _len: usize) -> std::io::Result<()> {
    Ok(())
}

/// What the end of a raw log looks like before an append.
struct End {
    newlines: usize,
    ends_in_newline: bool,
    empty: bool,
    /// The whole file, when it is short enough to be a day's title.
    short: Option<Vec<u8>>,
}

impl End {
    /// The rest of `title` when the file is only its first part (an append
    /// killed while writing it).
    fn torn_title<'t>(&self, title: &'t str) -> Option<&'t str> {
        let short = self.short.as_deref().filter(|s| !s.is_empty())?;
        let rest = title.as_bytes().strip_prefix(short)?;
        (!rest.is_empty()).then(|| &title[short.len()..])
    }
}

fn look_at_end(file: &mut std::fs::File) -> std::io::Result<End> {
    file.seek(SeekFrom::Start(0))?;
    let mut bytes = Vec::new();
    file.read_to_end(&mut bytes)?;
    Ok(End {
        newlines: bytes.iter().filter(|b| **b == b'\n').count(),
        ends_in_newline: bytes.last() == Some(&b'\n'),
        empty: bytes.is_empty(),
        short: (bytes.len() < 16).then_some(bytes),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn day() -> NaiveDate {
        NaiveDate::from_ymd_opt(2027, 1, 21).unwrap()
    }

    fn entry() -> Entry {
        Entry {
            kind: EntryType::Feedback,
            topic: "Commit style".into(),
            fields: vec![
                ("rule".into(), "small commits".into()),
                ("why".into(), "reviews".into()),
            ],
            body: String::new(),
        }
    }

    #[test]
    fn a_new_day_gets_its_title_and_the_heading_line_is_exact() {
        let dir = tempfile::tempdir().unwrap();
        let w = append(dir.path(), &entry(), day()).unwrap();
        let text = std::fs::read_to_string(dir.path().join(&w.path)).unwrap();
        assert_eq!(
            text,
            "# 2027-01-21\n\n## Commit style [feedback]\n- rule: small commits\n- why: reviews\n"
        );
        assert_eq!(
            text.lines().nth(w.line - 1),
            Some("## Commit style [feedback]")
        );
        assert_eq!(w.lines, 5);
        let again = append(dir.path(), &entry(), day()).unwrap();
        let text = std::fs::read_to_string(dir.path().join(&w.path)).unwrap();
        assert_eq!(
            text.lines().nth(again.line - 1),
            Some("## Commit style [feedback]")
        );
        assert_eq!(again.line, 7);
    }

    #[test]
    fn a_log_without_a_final_newline_is_not_joined() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("memory")).unwrap();
        std::fs::write(
            dir.path().join("memory/2027-01-21.md"),
            "# 2027-01-21\n\nnote",
        )
        .unwrap();
        let w = append(dir.path(), &entry(), day()).unwrap();
        let text = std::fs::read_to_string(dir.path().join(&w.path)).unwrap();
        assert!(
            text.starts_with("# 2027-01-21\n\nnote\n\n## Commit style"),
            "{text}"
        );
        assert_eq!(
            text.lines().nth(w.line - 1),
            Some("## Commit style [feedback]")
        );
    }

    #[test]
    fn bad_entries_are_refused_and_secrets_redacted() {
        let mut e = entry();
        e.topic = " ".into();
        assert!(e.render().is_err());
        let mut e = entry();
        e.fields = vec![];
        assert!(e.render().is_err());
        let mut e = entry();
        e.body = "export AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY".into();
        let text = e.render().unwrap();
        assert!(!text.contains("wJalrXUtnFEMI"), "{text}");
    }
}
