//! OpenCode's transcript store: the SQLite database
//! `$XDG_DATA_HOME/opencode/opencode.db` (1.18), tables `session`,
//! `message` and `part`, their JSON in `data`.
//!
//! The database belongs to a running OpenCode: it is opened read-only
//! (never created, never written), with a busy timeout, so a capture
//! beside a live session reads a consistent snapshot of its WAL. The
//! `event` table repeats every message and part and is never read.
//!
//! Part ids (`prt_…`) sort in creation order, so the watermark's cursor is
//! the last part id read: the next capture reads the parts after it, and a
//! continued session (`opencode run --session ID`) adds only its new
//! turns. A reply still being written (an assistant message without
//! `time.completed`) stops the read there, to be taken whole next time.
//!
//! What is kept: the user's text verbatim, the assistant's text, each
//! tool call as one line and its output cut to one line. What is not:
//! plugin injections (`synthetic` text parts), reasoning, step and
//! snapshot parts, and OpenCode's compaction (the user message holding a
//! `compaction` part, the summary message with `mode:"compaction"` and
//! `summary: true`, and the synthetic "Continue…" prompt after it).

use super::{Parsed, Role};
use crate::error::{Error, Result};
use rusqlite::{Connection, OpenFlags};
use serde_json::Value;
use std::path::Path;
use std::time::Duration;

/// How long a read waits for OpenCode's writer to let go.
const BUSY_WAIT: Duration = Duration::from_secs(5);

/// A session of the store, as `hipo ingest` lists them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionRow {
    pub id: String,
    pub title: String,
}

fn open(db: &Path) -> Result<Connection> {
    let err = |e| Error::TranscriptDb {
        path: db.to_path_buf(),
        source: Box::new(e),
    };
    if !db.is_file() {
        return Err(Error::Usage(format!(
            "{} does not exist: OpenCode has not run with this HOME/XDG_DATA_HOME, or pass the database's path",
            db.display()
        )));
    }
    let flags = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let conn = Connection::open_with_flags(db, flags).map_err(err)?;
    conn.busy_timeout(BUSY_WAIT).map_err(err)?;
    Ok(conn)
}

fn db_err(db: &Path) -> impl Fn(rusqlite::Error) -> Error + '_ {
    move |e| Error::TranscriptDb {
        path: db.to_path_buf(),
        source: Box::new(e),
    }
}

/// The sessions OpenCode ran in `dir` or below it, oldest first
/// (subagent sessions, which have a parent, included: their work is the
/// project's too).
pub fn sessions_in(db: &Path, dir: &Path) -> Result<Vec<SessionRow>> {
    let conn = open(db)?;
    let err = db_err(db);
    let mut stmt = conn
        .prepare(
            "SELECT id, title FROM session
             WHERE directory = ?1 OR substr(directory, 1, length(?1) + 1) = ?1 || '/'
             ORDER BY time_created, id",
        )
        .map_err(&err)?;
    let rows = stmt
        .query_map([dir.to_string_lossy()], |r| {
            Ok(SessionRow {
                id: r.get(0)?,
                title: r.get::<_, Option<String>>(1)?.unwrap_or_default(),
            })
        })
        .map_err(&err)?;
    rows.collect::<std::result::Result<Vec<_>, _>>()
        .map_err(&err)
}

/// One part row with its message's JSON.
struct Row {
    part_id: String,
    message: Option<Value>,
    part: Option<Value>,
}

/// The session's parts after `cursor` (a part id; empty: from the start),
/// as messages, with the cursor to store next.
pub fn read(db: &Path, session: &str, cursor: &str) -> Result<(Parsed, String)> {
    let conn = open(db)?;
    let err = db_err(db);
    let mut stmt = conn
        .prepare(
            "SELECT p.id, m.data, p.data FROM part p JOIN message m ON m.id = p.message_id
             WHERE p.session_id = ?1 AND p.id > ?2 ORDER BY p.id",
        )
        .map_err(&err)?;
    let rows = stmt
        .query_map([session, cursor], |r| {
            Ok(Row {
                part_id: r.get(0)?,
                message: serde_json::from_str(&r.get::<_, String>(1)?).ok(),
                part: serde_json::from_str(&r.get::<_, String>(2)?).ok(),
            })
        })
        .map_err(&err)?
        .collect::<std::result::Result<Vec<_>, _>>()
        .map_err(&err)?;
    Ok(parse(session, rows, cursor))
}

fn parse(session: &str, rows: Vec<Row>, cursor: &str) -> (Parsed, String) {
    let mut out = Parsed {
        session: Some(session.to_string()),
        ..Parsed::default()
    };
    let mut next = cursor.to_string();
    for row in rows {
        let (Some(message), Some(part)) = (&row.message, &row.part) else {
            out.skipped += 1;
            next = row.part_id;
            continue;
        };
        if unfinished(message) {
            // Taken whole by the next capture.
            break;
        }
        let at = message
            .pointer("/time/created")
            .and_then(Value::as_i64)
            .and_then(chrono::DateTime::from_timestamp_millis)
            .map(|t| t.to_rfc3339());
        read_part(&mut out, message, part, at);
        next = row.part_id;
    }
    (out, next)
}

/// An assistant message still being written.
fn unfinished(message: &Value) -> bool {
    message.get("role").and_then(Value::as_str) == Some("assistant")
        && message.pointer("/time/completed").is_none()
        && message.get("error").is_none()
}

fn read_part(out: &mut Parsed, message: &Value, part: &Value, at: Option<String>) {
    let role = message.get("role").and_then(Value::as_str);
    // `summary` is an object (`{"diffs": []}`) on ordinary user messages:
    // only `true` marks the compaction summary.
    let summary = message.get("summary") == Some(&Value::Bool(true))
        || message.get("mode").and_then(Value::as_str) == Some("compaction");
    if summary {
        return;
    }
    let text = || part.get("text").and_then(Value::as_str).unwrap_or("");
    match (role, part.get("type").and_then(Value::as_str)) {
        (_, Some("text")) if part.get("synthetic") == Some(&Value::Bool(true)) => {}
        (_, Some("text")) if part.get("ignored") == Some(&Value::Bool(true)) => {}
        (Some("user"), Some("text")) => out.push(Role::User, text(), at),
        (Some("assistant"), Some("text")) => out.push(Role::Assistant, text(), at),
        (_, Some("tool")) => {
            let name = part.get("tool").and_then(Value::as_str).unwrap_or("tool");
            let arg = part
                .pointer("/state/input")
                .map(short_input)
                .unwrap_or_default();
            out.push(Role::Tool, format!("{name} {arg}").trim(), at.clone());
            let output = match part.pointer("/state/status").and_then(Value::as_str) {
                Some("error") => part.pointer("/state/error"),
                _ => part.pointer("/state/output"),
            };
            if let Some(o) = output.and_then(Value::as_str) {
                out.push(Role::ToolOutput, o, at);
            }
        }
        (_, Some("subtask")) => {
            let what = part
                .get("description")
                .or_else(|| part.get("prompt"))
                .and_then(Value::as_str)
                .unwrap_or("");
            out.push(Role::Tool, &format!("subtask {what}"), at);
        }
        // reasoning, file, step-start/-finish, snapshot, patch, agent,
        // retry, compaction, and types to come.
        _ => {}
    }
}

/// The argument that says what a tool call did: a shell command, a file
/// path, a pattern or a URL; else the first string argument.
fn short_input(input: &Value) -> String {
    const KEYS: [&str; 7] = [
        "command",
        "filePath",
        "path",
        "pattern",
        "url",
        "query",
        "description",
    ];
    KEYS.iter()
        .find_map(|k| input.get(*k).and_then(Value::as_str))
        .or_else(|| input.as_object()?.values().find_map(Value::as_str))
        .unwrap_or("")
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    /// A message row (id, session, data) and its parts (id, data).
    type Msg<'a> = (&'a str, &'a str, &'a str, &'a [(&'a str, &'a str)]);

    /// A store with OpenCode 1.18's tables and the rows a real session
    /// with a tool call, an auto-compaction and a continued turn wrote
    /// (ids and shapes as seen; texts shortened).
    fn store(dir: &Path) -> PathBuf {
        let db = dir.join("opencode.db");
        let c = Connection::open(&db).unwrap();
        c.execute_batch(
            "PRAGMA journal_mode=WAL;
             CREATE TABLE session (id TEXT PRIMARY KEY, directory TEXT, title TEXT, time_created INTEGER, time_updated INTEGER);
             CREATE TABLE message (id TEXT PRIMARY KEY, session_id TEXT, time_created INTEGER, time_updated INTEGER, data TEXT);
             CREATE TABLE part (id TEXT PRIMARY KEY, message_id TEXT, session_id TEXT, time_created INTEGER, time_updated INTEGER, data TEXT);
             CREATE TABLE event (id TEXT, type TEXT, data TEXT);
             INSERT INTO session VALUES ('ses_a', '/p', 'Postgres cutover', 1, 2), ('ses_b', '/elsewhere', 'x', 3, 4);",
        )
        .unwrap();
        let rows: &[Msg] = &[
            (
                "msg_01",
                "ses_a",
                r#"{"role":"user","time":{"created":1795595343896},"summary":{"diffs":[]}}"#,
                &[
                    (
                        "prt_01",
                        r#"{"type":"text","text":"when did we cut over to postgres 16?\nit was a Friday"}"#,
                    ),
                    (
                        "prt_02",
                        r#"{"type":"text","synthetic":true,"text":"hipo memory: injected by a plugin"}"#,
                    ),
                    (
                        "prt_03",
                        r#"{"type":"file","filename":"notes.md","mime":"text/markdown"}"#,
                    ),
                ],
            ),
            (
                "msg_02",
                "ses_a",
                r#"{"role":"assistant","mode":"build","time":{"created":1795595345101,"completed":1795595347380}}"#,
                &[
                    ("prt_04", r#"{"type":"step-start","snapshot":"4b21"}"#),
                    (
                        "prt_05",
                        r#"{"type":"reasoning","text":"private thoughts"}"#,
                    ),
                    (
                        "prt_06",
                        r#"{"type":"tool","tool":"bash","callID":"c1","state":{"status":"completed","input":{"command":"psql -c 'select version()'","description":"Check"},"output":"PostgreSQL 16.2\n(1 row)\n","title":"psql"}}"#,
                    ),
                    (
                        "prt_07",
                        r#"{"type":"tool","tool":"read","callID":"c2","state":{"status":"error","input":{"filePath":"/p/missing.md"},"error":"File not found"}}"#,
                    ),
                    ("prt_08", "{not json"),
                    (
                        "prt_09",
                        r#"{"type":"text","text":"The cutover was on 2026-03-13."}"#,
                    ),
                    ("prt_10", r#"{"type":"step-finish","reason":"stop"}"#),
                    ("prt_11", r#"{"type":"patch","hash":"abc","files":[]}"#),
                ],
            ),
            (
                "msg_03",
                "ses_a",
                r#"{"role":"user","time":{"created":1795595347400},"summary":{"diffs":[]}}"#,
                &[(
                    "prt_12",
                    r#"{"type":"compaction","auto":true,"overflow":false}"#,
                )],
            ),
            (
                "msg_04",
                "ses_a",
                r#"{"role":"assistant","mode":"compaction","summary":true,"time":{"created":1795595347450,"completed":1795595347500}}"#,
                &[(
                    "prt_13",
                    r#"{"type":"text","text":"Summary: the user asked about postgres 16"}"#,
                )],
            ),
            (
                "msg_05",
                "ses_a",
                r#"{"role":"user","time":{"created":1795595347600}}"#,
                &[(
                    "prt_14",
                    r#"{"type":"text","metadata":{"compaction_continue":true},"synthetic":true,"text":"Continue if you have next steps"}"#,
                )],
            ),
            (
                "msg_06",
                "ses_b",
                r#"{"role":"user","time":{"created":1795595347700}}"#,
                &[("prt_15", r#"{"type":"text","text":"another session"}"#)],
            ),
        ];
        for (mid, sid, mdata, parts) in rows {
            c.execute(
                "INSERT INTO message VALUES (?1, ?2, 0, 0, ?3)",
                [mid, sid, mdata],
            )
            .unwrap();
            c.execute(
                "INSERT INTO event VALUES (?1, 'message.updated.1', ?2)",
                [mid, mdata],
            )
            .unwrap();
            for (pid, pdata) in *parts {
                c.execute(
                    "INSERT INTO part VALUES (?1, ?2, ?3, 0, 0, ?4)",
                    [pid, mid, sid, pdata],
                )
                .unwrap();
            }
        }
        db
    }

    fn lines(p: &Parsed) -> Vec<(Role, &str)> {
        p.messages
            .iter()
            .map(|m| (m.role, m.text.as_str()))
            .collect()
    }

    #[test]
    fn a_session_reads_as_its_words_calls_and_replies_without_injections_or_compaction() {
        let dir = tempfile::tempdir().unwrap();
        let db = store(dir.path());
        let (p, cursor) = read(&db, "ses_a", "").unwrap();
        assert_eq!(
            lines(&p),
            vec![
                (
                    Role::User,
                    "when did we cut over to postgres 16?\nit was a Friday"
                ),
                (Role::Tool, "bash psql -c 'select version()'"),
                (Role::ToolOutput, "PostgreSQL 16.2\n(1 row)"),
                (Role::Tool, "read /p/missing.md"),
                (Role::ToolOutput, "File not found"),
                (Role::Assistant, "The cutover was on 2026-03-13."),
            ]
        );
        assert_eq!(p.skipped, 1, "the malformed row");
        assert_eq!(cursor, "prt_14");
        assert_eq!(
            p.messages[0].at.as_deref(),
            Some("2026-11-25T08:29:03.896+00:00")
        );
        // Nothing new: nothing read, the cursor stays.
        let (again, same) = read(&db, "ses_a", &cursor).unwrap();
        assert!(again.messages.is_empty() && again.skipped == 0);
        assert_eq!(same, cursor);
    }

    #[test]
    fn a_continued_session_adds_only_its_new_turn_and_an_unfinished_reply_waits() {
        let dir = tempfile::tempdir().unwrap();
        let db = store(dir.path());
        let (_, cursor) = read(&db, "ses_a", "").unwrap();
        let c = Connection::open(&db).unwrap();
        c.execute_batch(
            r#"INSERT INTO message VALUES ('msg_07', 'ses_a', 0, 0, '{"role":"user","time":{"created":1795595363000}}');
               INSERT INTO part VALUES ('prt_16', 'msg_07', 'ses_a', 0, 0, '{"type":"text","text":"and who signed off?"}');
               INSERT INTO message VALUES ('msg_08', 'ses_a', 0, 0, '{"role":"assistant","time":{"created":1795595363100}}');
               INSERT INTO part VALUES ('prt_17', 'msg_08', 'ses_a', 0, 0, '{"type":"text","text":"Still typ"}');"#,
        )
        .unwrap();
        let (p, next) = read(&db, "ses_a", &cursor).unwrap();
        assert_eq!(lines(&p), vec![(Role::User, "and who signed off?")]);
        assert_eq!(next, "prt_16");
        c.execute(
            r#"UPDATE message SET data = '{"role":"assistant","time":{"created":1795595363100,"completed":1795595363300}}' WHERE id = 'msg_08'"#,
            [],
        )
        .unwrap();
        let (p, next) = read(&db, "ses_a", &next).unwrap();
        assert_eq!(lines(&p), vec![(Role::Assistant, "Still typ")]);
        assert_eq!(next, "prt_17");
    }

    #[test]
    fn sessions_are_listed_by_directory_and_a_missing_store_says_what_to_do() {
        let dir = tempfile::tempdir().unwrap();
        let db = store(dir.path());
        assert!(sessions_in(&db, Path::new("/else")).unwrap().is_empty());
        let s = sessions_in(&db, Path::new("/p")).unwrap();
        assert_eq!(
            s,
            vec![SessionRow {
                id: "ses_a".into(),
                title: "Postgres cutover".into()
            }]
        );
        let err = read(&dir.path().join("none.db"), "ses_a", "").unwrap_err();
        assert!(err.to_string().contains("does not exist"), "{err}");
        assert!(!dir.path().join("none.db").exists(), "never created");
    }
}
