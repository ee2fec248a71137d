//! Where a JSONL transcript's capture resumes. A watermark's cursor is a
//! byte offset into the transcript, which means something only in the
//! same bytes: the same session copied under another name is the same
//! bytes, but the same session resumed on another machine (a synced home,
//! a devcontainer, another checkout path) may not be. So the cursor also
//! names the last line it read, by a hash of that line
//! (`1234 line=0123456789abcdef`): where the line ending at the offset is
//! that line, the offset holds; where it is not, the capture resumes after
//! that line wherever it now is, and only when the line is nowhere is the
//! transcript read from its start (nothing lost, at the price of a repeat).
//! The anchor makes a watermark independent of the machine that wrote it,
//! so it does not need to name one. Cursors without an anchor (written by
//! earlier versions) are offsets, as before.

use crate::error::{Error, Result};
use std::io::{Read, Seek, SeekFrom};
use std::path::Path;

const TAG: &str = "line=";

/// The cursor after reading up to byte `end`, where `consumed` is what was
/// read (complete lines, ending at `end`).
pub(super) fn cursor(end: usize, consumed: &[u8]) -> String {
    match last_line(consumed) {
        Some(line) => format!("{end} {TAG}{}", hash(line)),
        None => end.to_string(),
    }
}

/// The offset to read `transcript` from, for the cursor `mark`.
pub(super) fn resume_at(transcript: &Path, mark: Option<&str>) -> Result<Option<usize>> {
    let Some(mark) = mark else {
        return Ok(None);
    };
    let mut words = mark.split_whitespace();
    let offset: Option<usize> = words.next().and_then(|w| w.parse().ok());
    let anchor = words.find_map(|w| w.strip_prefix(TAG));
    let (Some(offset), Some(anchor)) = (offset, anchor) else {
        return Ok(offset);
    };
    let err = |e| Error::io(transcript, e);
    let mut file = std::fs::File::open(transcript).map_err(err)?;
    if line_before(&mut file, offset)
        .map_err(err)?
        .is_some_and(|l| hash(&l) == anchor)
    {
        return Ok(Some(offset));
    }
    let mut bytes = Vec::new();
    file.seek(SeekFrom::Start(0)).map_err(err)?;
    file.read_to_end(&mut bytes).map_err(err)?;
    Ok(Some(after_line(&bytes, anchor).unwrap_or(0)))
}

/// The last line of `bytes` when they end in a newline, without it.
fn last_line(bytes: &[u8]) -> Option<&[u8]> {
    let body = bytes.strip_suffix(b"\n")?;
    let start = body.iter().rposition(|b| *b == b'\n').map_or(0, |i| i + 1);
    Some(&body[start..])
}

/// A line's name in a cursor: 16 hex digits of its BLAKE3 hash.
fn hash(line: &[u8]) -> String {
    blake3::hash(line).to_hex()[..16].to_string()
}

/// The complete line that ends (with its newline) at byte `offset`, if one
/// does.
fn line_before(file: &mut std::fs::File, offset: usize) -> std::io::Result<Option<Vec<u8>>> {
    let len = file.metadata()?.len();
    if offset == 0 || offset as u64 > len {
        return Ok(None);
    }
    let mut window = 64 * 1024u64;
    loop {
        let start = (offset as u64).saturating_sub(window);
        file.seek(SeekFrom::Start(start))?;
        let mut bytes = vec![0; (offset as u64 - start) as usize];
        file.read_exact(&mut bytes)?;
        if bytes.last() != Some(&b'\n') {
            return Ok(None);
        }
        let body = &bytes[..bytes.len() - 1];
        match body.iter().rposition(|b| *b == b'\n') {
            Some(i) => return Ok(Some(body[i + 1..].to_vec())),
            None if start == 0 => return Ok(Some(body.to_vec())),
            None => window *= 4,
        }
    }
}

/// The offset just past the last line of `bytes` named `anchor`.
fn after_line(bytes: &[u8], anchor: &str) -> Option<usize> {
    let mut at = 0;
    let mut found = None;
    for line in bytes.split_inclusive(|b| *b == b'\n') {
        at += line.len();
        if let Some(body) = line.strip_suffix(b"\n")
            && hash(body) == anchor
        {
            found = Some(at);
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    fn resume(bytes: &[u8], mark: &str) -> Option<usize> {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.jsonl");
        std::fs::write(&path, bytes).unwrap();
        resume_at(&path, Some(mark)).unwrap()
    }

    #[test]
    fn an_anchored_cursor_follows_its_line_and_an_old_one_is_an_offset() {
        let original = b"{\"a\":1}\n{\"b\":2}\n{\"c\":3}\n";
        let c = cursor(16, &original[..16]);
        assert!(c.starts_with("16 line="), "{c}");
        // The same bytes: the offset holds.
        assert_eq!(resume(original, &c), Some(16));
        // Another machine's copy with a different first line: after b.
        let moved = b"{\"start\":\"elsewhere\"}\n{\"b\":2}\n{\"c\":3}\n";
        assert_eq!(resume(moved, &c), Some(30));
        // The line is nowhere: from the start.
        assert_eq!(resume(b"{\"x\":1}\n{\"y\":2}\n", &c), Some(0));
        // A cursor of an earlier version: the offset.
        assert_eq!(resume(moved, "16"), Some(16));
        // Read nothing: no anchor.
        assert_eq!(cursor(0, b""), "0");
    }
}
