//! OpenClaw transcripts, in Pi's session format: since 2026.9 rows of
//! `$OPENCLAW_STATE_DIR/agents/<agent>/agent/openclaw-agent.sqlite`
//! (table `transcript_events`: `session_id`, `seq`, `event_json`, or
//! `event_zstd` for a compressed row), earlier one JSONL file a session
//! (`agents/<agent>/sessions/<id>.jsonl`).
//!
//! Entries form a tree through `id`/`parentId`: a rewind continues from
//! an earlier entry and leaves the abandoned branch in place. Only the
//! active branch is what was said, so the reader walks it from the last
//! entry up. A parent is always written before its child, so the new part
//! of the active branch (after the watermark) is found by walking up
//! through the new entries alone: a session is never read whole again.
//!
//! Compressed rows are skipped and counted: reading them would need a
//! zstd decoder, and OpenClaw only compresses large events (pasted files,
//! big tool outputs), whose gist the capture cuts to a line anyway.

use super::Format;
use super::{Capture, Parsed, Role};
use crate::error::{Error, Result};
use rusqlite::{OpenFlags, OptionalExtension};
use serde_json::Value;
use std::collections::{HashMap, HashSet};
use std::path::Path;
use std::time::Duration;

/// The cursor of a database session: the last `seq` read.
const SEQ: &str = "seq:";

/// How long a read waits for OpenClaw's own writer to finish a commit.
const BUSY_WAIT: Duration = Duration::from_secs(3);

/// The messages of Pi entries read in file (or `seq`) order: the active
/// branch among them, from the last entry with an id up through parents
/// that are among them too. Entries without ids (older, linear sessions)
/// are all taken.
pub(super) fn messages(entries: &[Value], out: &mut Parsed) {
    let branch = active_branch(entries);
    for (i, e) in entries.iter().enumerate() {
        if out.session.is_none() && str_at(e, "/type") == Some("session") {
            out.session = str_at(e, "/id").map(str::to_string);
        }
        if branch.as_ref().is_some_and(|b| !b.contains(&i)) {
            continue;
        }
        if str_at(e, "/type") == Some("message") {
            message(e, out);
        }
        // session, model_change, thinking_level_change, custom,
        // custom_message, compaction, branch_summary, session_info, label
        // and types to come: not the conversation.
    }
}

/// The indices on the active branch, or `None` when the entries carry no
/// tree (no `parentId` anywhere: read them in order).
fn active_branch(entries: &[Value]) -> Option<HashSet<usize>> {
    if !entries.iter().any(|e| e.get("parentId").is_some()) {
        return None;
    }
    let by_id: HashMap<&str, usize> = entries
        .iter()
        .enumerate()
        .filter_map(|(i, e)| Some((str_at(e, "/id")?, i)))
        .collect();
    let mut on = HashSet::new();
    let mut at = entries.iter().rposition(|e| e.get("parentId").is_some());
    while let Some(i) = at {
        if !on.insert(i) {
            break; // a cycle: a broken file, not a reason to loop
        }
        at = str_at(&entries[i], "/parentId").and_then(|p| by_id.get(p).copied());
    }
    Some(on)
}

fn message(e: &Value, out: &mut Parsed) {
    let at = str_at(e, "/timestamp").map(str::to_string);
    let Some(m) = e.get("message") else { return };
    match str_at(m, "/role") {
        Some("user") => out.push(Role::User, &text(m.get("content")), at),
        Some("assistant") => {
            let Some(Value::Array(blocks)) = m.get("content") else {
                out.push(Role::Assistant, &text(m.get("content")), at);
                return;
            };
            for b in blocks {
                match str_at(b, "/type") {
                    Some("text") => out.push(
                        Role::Assistant,
                        str_at(b, "/text").unwrap_or(""),
                        at.clone(),
                    ),
                    Some("toolCall") => {
                        let name = str_at(b, "/name").unwrap_or("tool");
                        let arg = b.get("arguments").map(short_argument).unwrap_or_default();
                        out.push(Role::Tool, &format!("{name} {arg}"), at.clone());
                    }
                    // Thinking is not what was said; images have no text.
                    _ => {}
                }
            }
        }
        Some("toolResult") => out.push(Role::ToolOutput, &text(m.get("content")), at),
        // A command the user ran himself (`!ls`): the call and its output.
        Some("bashExecution") => {
            let cmd = str_at(m, "/command").unwrap_or_default();
            out.push(Role::Tool, &format!("bash {cmd}"), at.clone());
            out.push(Role::ToolOutput, str_at(m, "/output").unwrap_or(""), at);
        }
        // custom, branchSummary, compactionSummary: written by OpenClaw or
        // its extensions, not by the user or the model.
        _ => {}
    }
}

/// A content string, or its text blocks joined.
fn text(content: Option<&Value>) -> String {
    match content {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(blocks)) => blocks
            .iter()
            .filter(|b| str_at(b, "/type") == Some("text"))
            .filter_map(|b| str_at(b, "/text"))
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}

/// The argument a call is recognised by: a command, a path, a query,
/// else the arguments as JSON.
fn short_argument(args: &Value) -> String {
    for key in [
        "command",
        "cmd",
        "path",
        "file_path",
        "query",
        "url",
        "pattern",
    ] {
        if let Some(s) = args.get(key).and_then(Value::as_str) {
            return s.to_string();
        }
    }
    args.to_string()
}

fn str_at<'a>(v: &'a Value, pointer: &str) -> Option<&'a str> {
    v.pointer(pointer).and_then(Value::as_str)
}

/// An older OpenClaw's session JSONL file from the byte offset `mark` on
/// (its complete lines), with the cursor to store next.
pub(super) fn read_jsonl(transcript: &Path, mark: Option<&str>) -> Result<(Parsed, String)> {
    let offset = mark.and_then(|m| m.split(' ').next()?.parse().ok());
    let (from, bytes) = super::read_from(transcript, offset)?;
    let mut parsed = Parsed::default();
    let entries = parsed.json_lines(&bytes);
    messages(&entries, &mut parsed);
    let cursor = (from + parsed.consumed).to_string();
    Ok((parsed, cursor))
}

/// Whether `path` is an SQLite database (its header says so), rather
/// than a JSONL transcript.
pub fn is_store(path: &Path) -> bool {
    use std::io::Read;
    let mut head = [0u8; 16];
    std::fs::File::open(path)
        .and_then(|mut f| f.read_exact(&mut head))
        .is_ok_and(|()| &head == b"SQLite format 3\0")
}

/// What is new in each session of an OpenClaw transcript database (or
/// only in `session`), one entry per session that has something new.
pub(crate) fn read_new_store<'s>(
    root: &Path,
    cache: &dyn Fn() -> Option<&'s crate::store::Store>,
    store: &Path,
    session: Option<&str>,
) -> Result<Vec<Capture>> {
    let db = open(store)?;
    let sessions = match session {
        Some(s) => vec![(s.to_string(), i64::MAX)],
        None => all_sessions(&db).map_err(sql(store))?,
    };
    // One session (a hook's case): its newest watermark. Every session:
    // all of them, from one look at the raw logs (cached in the store).
    let marks = match session {
        Some(_) => HashMap::new(),
        None => super::marks::find_all(root, cache, Format::OpenClaw)?,
    };
    let mut out = Vec::new();
    for (id, newest) in sessions {
        let key = super::transcript_key(Path::new(&id));
        let mark = match session {
            Some(_) => super::marks::find(root, cache, Format::OpenClaw, &key)?,
            None => marks.get(&key).cloned(),
        };
        let mark: i64 = mark
            .as_deref()
            .and_then(|m| m.strip_prefix(SEQ))
            .and_then(|n| n.parse().ok())
            .unwrap_or(-1);
        if newest <= mark {
            // Read up to its last row already: nothing to query.
            out.push(Capture::new(
                Format::OpenClaw,
                Parsed::default(),
                &key,
                "",
                format!("{}#{id}", store.display()),
            ));
            continue;
        }
        let (mut parsed, last) = read_session(&db, &id, mark).map_err(sql(store))?;
        parsed.session.get_or_insert(id.clone());
        let transcript = format!("{}#{id}", store.display());
        let cursor = format!("{SEQ}{}", last.unwrap_or(mark));
        out.push(Capture::new(
            Format::OpenClaw,
            parsed,
            &key,
            &cursor,
            transcript,
        ));
    }
    Ok(out)
}

/// Opens the database read-only, waiting a little for OpenClaw's writer.
fn open(store: &Path) -> Result<rusqlite::Connection> {
    let flags = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let db = rusqlite::Connection::open_with_flags(store, flags).map_err(sql(store))?;
    db.busy_timeout(BUSY_WAIT).map_err(sql(store))?;
    let has_table: Option<String> = db
        .query_row(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'transcript_events'",
            [],
            |r| r.get(0),
        )
        .optional()
        .map_err(sql(store))?;
    if has_table.is_none() {
        return Err(Error::bad_input(
            store,
            None,
            "has no transcript_events table: give OpenClaw's agents/<agent>/agent/openclaw-agent.sqlite or a session .jsonl",
        ));
    }
    Ok(db)
}

fn sql(store: &Path) -> impl Fn(rusqlite::Error) -> Error + '_ {
    move |e| Error::TranscriptStore {
        path: store.to_path_buf(),
        source: Box::new(e),
    }
}

/// Every session of the store with its last `seq` (one pass over the
/// primary key), so a session read to its end costs no query.
fn all_sessions(db: &rusqlite::Connection) -> rusqlite::Result<Vec<(String, i64)>> {
    let mut stmt = db.prepare(
        "SELECT session_id, MAX(seq) FROM transcript_events GROUP BY session_id ORDER BY 1",
    )?;
    let rows = stmt.query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, i64>(1)?)))?;
    rows.collect()
}

/// The rows of `session` after `mark`, parsed, and the last `seq` read.
fn read_session(
    db: &rusqlite::Connection,
    session: &str,
    mark: i64,
) -> rusqlite::Result<(Parsed, Option<i64>)> {
    let mut stmt = db.prepare_cached(
        "SELECT seq, event_json FROM transcript_events WHERE session_id = ?1 AND seq > ?2 ORDER BY seq",
    )?;
    let mut rows = stmt.query(rusqlite::params![session, mark])?;
    let mut parsed = Parsed::default();
    let mut entries = Vec::new();
    let mut last = None;
    while let Some(row) = rows.next()? {
        last = Some(row.get::<_, i64>(0)?);
        // NULL: a compressed row (event_zstd); else JSON, or a broken row.
        match row
            .get::<_, Option<String>>(1)?
            .and_then(|t| serde_json::from_str::<Value>(&t).ok())
        {
            Some(v) => entries.push(v),
            None => parsed.skipped += 1,
        }
    }
    messages(&entries, &mut parsed);
    Ok((parsed, last))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use std::path::PathBuf;

    /// Pi rows as OpenClaw 2026.9.6 wrote them (shapes copied from a real
    /// gateway run), with a tool call, thinking, a rewind that abandons a
    /// branch, a compaction and extension entries.
    fn rows() -> Vec<Value> {
        vec![
            json!({"type":"session","version":4,"id":"s-1","timestamp":"2026-11-25T08:30:04.750Z","cwd":"/ws"}),
            json!({"type":"model_change","provider":"fake","modelId":"m","id":"e1","parentId":null,"timestamp":"2026-11-25T08:30:04.968Z"}),
            json!({"type":"thinking_level_change","thinkingLevel":"off","id":"e2","parentId":"e1"}),
            json!({"type":"custom","customType":"model-snapshot","data":{},"id":"e3","parentId":"e2"}),
            json!({"type":"message","id":"u1","parentId":"e3","timestamp":"2026-11-25T08:30:05.896Z","message":{"role":"user","content":"the deploy key is in vault","__openclaw":{"senderIsOwner":true}}}),
            json!({"type":"message","id":"a1","parentId":"u1","timestamp":"2026-11-25T08:30:06.986Z","message":{"role":"assistant","content":[{"type":"thinking","thinking":"secret musing"},{"type":"text","text":"Checking."},{"type":"toolCall","id":"c1","name":"exec","arguments":{"command":"vault kv get deploy"}}],"stopReason":"toolUse"}}),
            json!({"type":"message","id":"t1","parentId":"a1","message":{"role":"toolResult","toolCallId":"c1","toolName":"exec","content":[{"type":"text","text":"key: present\nversion: 3"}],"isError":false}}),
            json!({"type":"message","id":"a2","parentId":"t1","message":{"role":"assistant","content":[{"type":"text","text":"abandoned answer"}]}}),
            // The user rewound to t1 and the model answered again.
            json!({"type":"message","id":"a3","parentId":"t1","message":{"role":"assistant","content":[{"type":"text","text":"The key is there (version 3)."}]}}),
            json!({"type":"compaction","summary":"the user asked about keys","firstKeptEntryId":"u1","id":"k1","parentId":"a3"}),
            json!({"type":"message","id":"u2","parentId":"k1","message":{"role":"user","content":[{"type":"text","text":"thanks"},{"type":"image","data":"…"}]}}),
            json!({"type":"custom","customType":"openclaw:bootstrap-context:full","data":{},"id":"e9","parentId":"u2"}),
        ]
    }

    fn said(p: &Parsed) -> Vec<(Role, &str)> {
        p.messages
            .iter()
            .map(|m| (m.role, m.text.as_str()))
            .collect()
    }

    #[test]
    fn the_active_branch_is_read_without_thinking_or_injected_entries() {
        let mut p = Parsed::default();
        messages(&rows(), &mut p);
        assert_eq!(
            said(&p),
            vec![
                (Role::User, "the deploy key is in vault"),
                (Role::Assistant, "Checking."),
                (Role::Tool, "exec vault kv get deploy"),
                (Role::ToolOutput, "key: present\nversion: 3"),
                (Role::Assistant, "The key is there (version 3)."),
                (Role::User, "thanks"),
            ]
        );
        assert_eq!(p.session.as_deref(), Some("s-1"));
        assert_eq!(
            p.messages[0].at.as_deref(),
            Some("2026-11-25T08:30:05.896Z")
        );
    }

    #[test]
    fn a_tail_of_new_entries_gives_only_its_part_of_the_branch() {
        let all = rows();
        let mut p = Parsed::default();
        messages(&all[8..], &mut p);
        assert_eq!(
            said(&p),
            vec![
                (Role::Assistant, "The key is there (version 3)."),
                (Role::User, "thanks"),
            ]
        );
    }

    #[test]
    fn entries_without_a_tree_are_read_in_order() {
        let mut p = Parsed::default();
        messages(
            &[
                json!({"type":"message","message":{"role":"user","content":"one"}}),
                json!({"type":"message","message":{"role":"assistant","content":"two"}}),
            ],
            &mut p,
        );
        assert_eq!(
            said(&p),
            vec![(Role::User, "one"), (Role::Assistant, "two")]
        );
    }

    #[test]
    fn a_jsonl_tree_is_read_from_its_offset_and_a_partial_line_waits() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s-1.jsonl");
        let mut text: String = rows().iter().map(|r| format!("{r}\n")).collect();
        text.push_str("not json\n{\"type\":\"message\",\"id\":\"u3\"");
        std::fs::write(&path, &text).unwrap();
        let (p, cursor) = read_jsonl(&path, None).unwrap();
        assert_eq!(p.messages.len(), 6);
        assert_eq!(p.skipped, 1);
        let at: usize = cursor.parse().unwrap();
        assert_eq!(&text[at..], "{\"type\":\"message\",\"id\":\"u3\"");
        let (again, same) = read_jsonl(&path, Some(&cursor)).unwrap();
        assert!(again.messages.is_empty());
        assert_eq!(same, cursor);
    }

    /// A database shaped like OpenClaw's (the columns hipo reads, with
    /// the real CHECK that a row holds JSON or compressed bytes).
    fn store(dir: &Path, rows: &[Value]) -> PathBuf {
        let path = dir.join("openclaw-agent.sqlite");
        let db = rusqlite::Connection::open(&path).unwrap();
        db.execute_batch(
            "PRAGMA journal_mode = WAL;
             CREATE TABLE transcript_events (session_id TEXT NOT NULL, seq INTEGER NOT NULL,
               event_json TEXT, created_at INTEGER NOT NULL, event_zstd BLOB,
               event_utf8_bytes INTEGER, navigation_json TEXT, PRIMARY KEY (session_id, seq),
               CHECK ((event_json IS NOT NULL AND event_zstd IS NULL)
                   OR (event_json IS NULL AND event_zstd IS NOT NULL))) STRICT;",
        )
        .unwrap();
        for (seq, r) in rows.iter().enumerate() {
            db.execute(
                "INSERT INTO transcript_events VALUES ('s-1', ?1, ?2, 0, NULL, NULL, NULL)",
                rusqlite::params![seq as i64, r.to_string()],
            )
            .unwrap();
        }
        path
    }

    fn add(path: &Path, session: &str, seq: i64, json: Option<&str>) {
        let db = rusqlite::Connection::open(path).unwrap();
        let zstd: Option<Vec<u8>> = json.is_none().then(|| vec![0x28, 0xb5, 0x2f, 0xfd]);
        db.execute(
            "INSERT INTO transcript_events VALUES (?1, ?2, ?3, 0, ?4, NULL, NULL)",
            rusqlite::params![session, seq, json, zstd],
        )
        .unwrap();
    }

    #[test]
    fn a_store_is_read_per_session_from_its_watermark_with_bad_rows_counted() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir(root.join("memory")).unwrap();
        let db = store(root, &rows());
        add(&db, "s-1", 12, None); // compressed
        add(&db, "s-1", 13, Some("{not json"));
        add(
            &db,
            "s-2",
            0,
            Some(
                r#"{"type":"message","id":"x","parentId":null,"message":{"role":"user","content":"other session"}}"#,
            ),
        );
        let got = read_new_store(root, &|| None, &db, None).unwrap();
        assert_eq!(got.len(), 2);
        let (entry, report) = (got[0].entry(0), got[0].report());
        assert_eq!((report.messages, report.skipped), (6, 2));
        let body = &entry.as_ref().unwrap().body;
        assert!(
            body.contains("User: the deploy key is in vault\n"),
            "{body}"
        );
        assert!(!body.contains("musing") && !body.contains("abandoned"));
        assert!(
            body.ends_with("<!-- hipo:ingest openclaw s_1 seq:13 -->\n"),
            "{body}"
        );
        // Once in the raw log, the same rows are not read again; a new one is.
        std::fs::write(
            root.join("memory/2026-11-25.md"),
            format!("# 2026-11-25\n{body}"),
        )
        .unwrap();
        let again = read_new_store(root, &|| None, &db, Some("s-1")).unwrap();
        assert!(again[0].entry(0).is_none());
        add(
            &db,
            "s-1",
            14,
            Some(
                r#"{"type":"message","id":"u9","parentId":"e9","message":{"role":"user","content":"one more"}}"#,
            ),
        );
        let more = read_new_store(root, &|| None, &db, Some("s-1")).unwrap();
        let body = &more[0].entry(0).unwrap().body;
        assert!(body.starts_with("User: one more\n"), "{body}");
        assert!(body.contains("seq:14"));
    }

    #[test]
    fn a_file_that_is_not_a_transcript_store_is_named() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("other.sqlite");
        rusqlite::Connection::open(&path)
            .unwrap()
            .execute_batch("CREATE TABLE t (x)")
            .unwrap();
        assert!(is_store(&path));
        let err = read_new_store(dir.path(), &|| None, &path, None)
            .unwrap_err()
            .to_string();
        assert!(err.contains("transcript_events"), "{err}");
    }
}
