//! Capture: what is new in an agent's session transcript becomes one
//! `## Session … [project]` entry in today's raw log, so a later search
//! finds the user's own words, the assistant's answers and the commands
//! run, without thinking blocks, injected context or whole tool outputs.
//!
//! **Never twice.** Each entry ends with a watermark comment naming the
//! transcript and the byte offset read up to. The next capture of the
//! same transcript starts there, so re-running, a hook firing twice, two
//! hooks at once (they serialise on the project lock) or a deleted
//! `.hipo/` never duplicates a message, and a transcript that grew adds
//! only its new part. The watermark lives in the Markdown, the source of
//! truth, not in the cache.

mod anchor;
mod claude;
mod codex;
mod format;
mod marks;
pub mod openclaw;
pub mod opencode;
pub(crate) mod torn;

use crate::error::{Error, Result};
use crate::journal::Entry;
use crate::markdown::EntryType;
pub use format::{Format, Source};
use std::path::Path;

/// Who said it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    User,
    Assistant,
    /// A tool call: its name and a short argument.
    Tool,
    /// A tool's output, kept to one line.
    ToolOutput,
}

/// One message of a transcript.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Message {
    pub role: Role,
    pub text: String,
    /// RFC 3339, when the transcript says.
    pub at: Option<String>,
}

/// A transcript read from some offset.
#[derive(Debug, Default)]
pub struct Parsed {
    pub messages: Vec<Message>,
    /// Bytes read up to the last complete line.
    pub consumed: usize,
    /// Lines that were not JSON (a partial last line is not counted).
    pub skipped: usize,
    /// The session id the transcript names.
    pub session: Option<String>,
}

impl Parsed {
    /// The JSON objects of the complete lines of `bytes`, a transcript
    /// read from some offset: what they span is `consumed`, lines that are
    /// not JSON are `skipped`, and a partial last line waits for the next
    /// capture.
    fn json_lines(&mut self, bytes: &[u8]) -> Vec<serde_json::Value> {
        let complete = bytes.iter().rposition(|b| *b == b'\n').map_or(0, |i| i + 1);
        self.consumed = complete;
        let mut out = Vec::new();
        for line in bytes[..complete].split(|b| *b == b'\n') {
            if line.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            match serde_json::from_slice(line) {
                Ok(v) => out.push(v),
                Err(_) => self.skipped += 1,
            }
        }
        out
    }

    /// Adds a message unless it has no text. Private spans go first, before
    /// a long message is cut (which could cut a closing tag away).
    fn push(&mut self, role: Role, text: &str, at: Option<String>) {
        let text = crate::private::strip(text);
        let text = text.trim();
        if !text.is_empty() {
            self.messages.push(Message {
                role,
                text: text.to_string(),
                at,
            });
        }
    }
}

/// What a capture did.
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct Ingested {
    pub transcript: String,
    /// Messages appended (0 when nothing was new).
    pub messages: usize,
    /// Lines of the transcript that could not be read, skipped.
    pub skipped: usize,
    /// Where the entry landed, `path:line`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub at: Option<String>,
    /// Lines appended to the raw log.
    pub lines: usize,
}

/// The longest an assistant answer is kept: the gist, not the essay.
const ASSISTANT_CHARS: usize = 1500;
/// A tool call or its output, on one line.
const TOOL_CHARS: usize = 160;

/// What a capture read: the new messages of one transcript, and the
/// watermark that says how far it was read.
#[derive(Debug)]
pub(crate) struct Capture {
    format: Format,
    parsed: Parsed,
    /// The transcript's name in watermarks.
    key: String,
    /// Where the next capture starts (see [`read_since`]).
    cursor: String,
    /// The transcript as the report names it.
    transcript: String,
}

impl Capture {
    pub(crate) fn new(
        format: Format,
        parsed: Parsed,
        key: &str,
        cursor: &str,
        transcript: String,
    ) -> Capture {
        Capture {
            format,
            parsed,
            key: key.to_string(),
            cursor: cursor.to_string(),
            transcript,
        }
    }

    /// The report, before anything is written.
    pub(crate) fn report(&self) -> Ingested {
        Ingested {
            transcript: self.transcript.clone(),
            messages: self.parsed.messages.len(),
            skipped: self.parsed.skipped,
            ..Default::default()
        }
    }

    /// The entry for the messages after the first `skip` (those a killed
    /// capture already wrote whole), ending in the watermark; `None` when
    /// the capture read no message at all.
    pub(crate) fn entry(&self, skip: usize) -> Option<Entry> {
        if self.parsed.messages.is_empty() {
            return None;
        }
        let messages = &self.parsed.messages[skip.min(self.parsed.messages.len())..];
        Some(Entry {
            kind: EntryType::Project,
            topic: title(messages, self.format),
            fields: Vec::new(),
            body: format!("{}{}\n", body(messages), self.watermark()),
        })
    }

    /// The watermark comment this capture's entry ends in.
    fn watermark(&self) -> String {
        format!(
            "{MARK_PREFIX}{} {} {} -->",
            self.format.as_str(),
            self.key,
            self.cursor
        )
    }
}

/// How every watermark comment starts.
pub(crate) const MARK_PREFIX: &str = "<!-- hipo:ingest ";

/// What is new in `transcript` since its watermark. `session` names one
/// session of a store that holds many (OpenCode's database); a file per
/// session (Claude Code, Codex) is keyed by the session id it holds, so a
/// copy of it under another name, or the same session at another path,
/// continues from the same watermark (watermarks keyed by the file name,
/// as earlier versions wrote them, are still read). The store caches
/// where watermarks are (see [`marks`]); `store` opens it for writing,
/// called only when the cache is worth updating.
pub(crate) fn read_new<'s>(
    root: &Path,
    store: &dyn Fn() -> Option<&'s crate::store::Store>,
    format: Format,
    transcript: &Path,
    session: Option<&str>,
) -> Result<Capture> {
    let (key, legacy) = match session {
        Some(s) => (session_key(s), None),
        None => {
            let stem = transcript_key(transcript);
            match session_in(format, transcript).map(|id| session_key(&id)) {
                Some(key) if key != stem => (key, Some(stem)),
                _ => (stem, None),
            }
        }
    };
    let mut mark = marks::find(root, store, format, &key)?;
    if mark.is_none()
        && let Some(legacy) = &legacy
    {
        mark = marks::find(root, store, format, legacy)?;
    }
    let (parsed, cursor) = read_since(format, transcript, session, mark.as_deref())?;
    let transcript = match session {
        Some(s) => format!("{}#{s}", transcript.display()),
        None => transcript.display().to_string(),
    };
    Ok(Capture::new(format, parsed, &key, &cursor, transcript))
}

/// The session id a JSONL transcript names in its first lines (Claude
/// Code's `sessionId`, Codex's `session_meta`), when it does.
fn session_in(format: Format, transcript: &Path) -> Option<String> {
    use std::io::Read;
    const HEAD: u64 = 64 * 1024;
    let parse = match format {
        Format::ClaudeCode => claude::parse,
        Format::Codex => codex::parse,
        _ => return None,
    };
    let mut head = Vec::new();
    std::fs::File::open(transcript)
        .ok()?
        .take(HEAD)
        .read_to_end(&mut head)
        .ok()?;
    parse(&head).session.filter(|s| !s.trim().is_empty())
}

/// A transcript read from its cursor on, with the cursor to store next.
/// The cursor is opaque to everything but the platform's reader: a byte
/// offset for the JSONL transcripts (Claude Code, Codex); a store's own
/// order (the last row's id or sequence number) for platforms that keep
/// transcripts in a database. It holds no `--`; a JSONL cursor adds, after
/// a space, the line it ends at (see [`anchor`]).
fn read_since(
    format: Format,
    transcript: &Path,
    session: Option<&str>,
    mark: Option<&str>,
) -> Result<(Parsed, String)> {
    match format {
        Format::ClaudeCode | Format::Codex => {
            let offset = anchor::resume_at(transcript, mark)?;
            let (from, bytes) = read_from(transcript, offset)?;
            let parsed = match format {
                Format::ClaudeCode => claude::parse(&bytes),
                _ => codex::parse(&bytes),
            };
            let cursor = anchor::cursor(from + parsed.consumed, &bytes[..parsed.consumed]);
            Ok((parsed, cursor))
        }
        Format::OpenCode => {
            let session = session.ok_or_else(|| {
                Error::Usage(format!(
                    "{} holds many OpenCode sessions: name one with --session ID",
                    transcript.display()
                ))
            })?;
            opencode::read(transcript, session, mark.unwrap_or(""))
        }
        Format::OpenClaw if openclaw::is_store(transcript) => Err(Error::Usage(format!(
            "{} is OpenClaw's transcript database: ingest it with `hipo ingest --platform openclaw` (every session in it, or --session ID)",
            transcript.display()
        ))),
        Format::OpenClaw => openclaw::read_jsonl(transcript, mark),
    }
}

/// The transcript from the watermark on (from the start when there is
/// none, or when the file is now shorter: a new transcript by that name).
/// Only the new part is read: a long session's transcript is not read
/// whole at every turn.
fn read_from(transcript: &Path, mark: Option<usize>) -> Result<(usize, Vec<u8>)> {
    use std::io::{Read, Seek, SeekFrom};
    let err = |e| Error::io(transcript, e);
    let mut file = std::fs::File::open(transcript).map_err(err)?;
    let len = file.metadata().map_err(err)?.len();
    let from = mark.filter(|at| *at as u64 <= len).unwrap_or(0);
    file.seek(SeekFrom::Start(from as u64)).map_err(err)?;
    let mut bytes = Vec::new();
    file.read_to_end(&mut bytes).map_err(err)?;
    Ok((from, bytes))
}

/// The transcript's name in watermarks: its file stem (Claude Code's and
/// Codex's are the session's id), with nothing that would end a comment.
fn transcript_key(path: &Path) -> String {
    key_of(&path.file_stem().unwrap_or_default().to_string_lossy())
}

fn key_of(name: &str) -> String {
    name.replace(['-', ' '], "_").replace("__", "_")
}

/// A session id as a watermark key (the same rule as file names).
fn session_key(session: &str) -> String {
    key_of(session)
}

/// `Session <time> <first words of the user>`.
fn title(messages: &[Message], format: Format) -> String {
    let when = messages
        .iter()
        .find_map(|m| m.at.as_deref())
        .and_then(|t| chrono::DateTime::parse_from_rfc3339(t).ok())
        .map(|t| t.format("%Y-%m-%d %H:%M").to_string());
    let first = messages
        .iter()
        .find(|m| m.role == Role::User)
        .map(|m| one_line(&m.text, 60))
        .unwrap_or_default();
    let mut t = String::from("Session");
    for part in [when.as_deref(), Some(first.as_str())]
        .into_iter()
        .flatten()
    {
        if !part.is_empty() {
            t.push(' ');
            t.push_str(part);
        }
    }
    // A bracket would read as the entry's type tag.
    let t = t.replace(['[', ']'], "");
    format!("{t} ({})", format.as_str())
}

/// The messages as lines: `User: …`, `Assistant: …`, `Tool: …`,
/// `Output: …`. Continuation lines are indented four spaces, so nothing
/// a user pasted (a `## ` line, a code fence) becomes a heading or opens
/// a block in the raw log.
fn body(messages: &[Message]) -> String {
    let mut out = String::new();
    for m in messages {
        let (label, text) = match m.role {
            Role::User => ("User", m.text.clone()),
            Role::Assistant => ("Assistant", cut(&m.text, ASSISTANT_CHARS)),
            Role::Tool => ("Tool", one_line(&m.text, TOOL_CHARS)),
            Role::ToolOutput => ("Output", one_line(&m.text, TOOL_CHARS)),
        };
        let mut lines = text.lines().filter(|l| !l.trim().is_empty());
        out.push_str(label);
        out.push_str(": ");
        out.push_str(lines.next().unwrap_or_default().trim_end());
        out.push('\n');
        for l in lines {
            out.push_str("    ");
            out.push_str(l.trim_end());
            out.push('\n');
        }
    }
    out
}

fn one_line(text: &str, max: usize) -> String {
    let first = text
        .lines()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("")
        .trim();
    cut(first, max)
}

fn cut(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((i, _)) => format!("{}…", &text[..i]),
        None => text.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pasted_headings_and_fences_stay_inside_the_entry() {
        let body = body(&[Message {
            role: Role::User,
            text: "look:\n```sh\n## not a heading\n```".into(),
            at: None,
        }]);
        assert_eq!(
            body,
            "User: look:\n    ```sh\n    ## not a heading\n    ```\n"
        );
        assert!(crate::markdown::headings(&body).is_empty());
    }

    #[test]
    fn keys_never_end_a_comment() {
        assert_eq!(transcript_key(Path::new("/x/ab--c d.jsonl")), "ab_c_d");
    }
}
