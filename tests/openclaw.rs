//! hipo in an OpenClaw workspace through the real binary, with a temp
//! `HOME`: what `hipo init --platform openclaw` writes into the workspace
//! and into `~/.openclaw/openclaw.json`, that it keeps everyone else's
//! settings and uninstalls cleanly, and the capture from OpenClaw's
//! SQLite transcript store through `hipo hook openclaw …` and `hipo
//! ingest`. The real gateway runs in `benches/openclaw.sh` (too slow for
//! the test suite).

use crate::common;
use common::Project;
use serde_json::{Value, json};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

const TODAY: &str = "2027-01-21";

/// A workspace as OpenClaw seeds it, and a HOME with an OpenClaw config
/// holding settings and a hook of the user's own.
fn workspace() -> (Project, tempfile::TempDir) {
    let p = Project::empty();
    p.write("SOUL.md", "# Soul\nbe kind\n");
    p.write("AGENTS.md", "# Agents\nthe user's rules\n");
    p.write("USER.md", "# User\nAda, prefers short answers\n");
    let home = tempfile::tempdir().unwrap();
    std::fs::create_dir(home.path().join(".openclaw")).unwrap();
    std::fs::write(
        home.path().join(".openclaw/openclaw.json"),
        serde_json::to_string_pretty(&foreign()).unwrap(),
    )
    .unwrap();
    (p, home)
}

fn foreign() -> Value {
    json!({
        "models": {"mode": "merge"},
        "hooks": {"internal": {"enabled": true, "entries": {"command-logger": {"enabled": true}}}},
        "mcp": {"servers": {"docs": {"command": "uvx", "args": ["docs-mcp"]}}},
        "agents": {"defaults": {"workspace": "/somewhere"}}
    })
}

fn run(p: &Project, home: &Path, args: &[&str]) -> (i32, String, String) {
    let out = p
        .hipo()
        .env("HOME", home)
        .env_remove("OPENCLAW_STATE_DIR")
        .env_remove("OPENCLAW_CONFIG_PATH")
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn config(home: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(home.join(".openclaw/openclaw.json")).unwrap())
        .unwrap()
}

#[test]
fn init_installs_into_the_workspace_and_openclaw_json_and_uninstall_leaves_the_rest() {
    let (p, home) = workspace();
    // Detected from SOUL.md (an AGENTS.md alone would decide nothing).
    let (code, out, err) = run(&p, home.path(), &["init"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("openclaw: created hooks/hipo/handler.ts"),
        "{out}"
    );
    for rel in [
        "MEMORY.md",
        "SCRATCHPAD.md",
        "skills/hipo-recall/SKILL.md",
        "hooks/hipo/HOOK.md",
    ] {
        assert!(p.exists(rel), "{rel}");
    }
    assert_eq!(
        p.read("USER.md"),
        "# User\nAda, prefers short answers\n",
        "never overwritten"
    );
    assert!(
        p.read("AGENTS.md")
            .starts_with("# Agents\nthe user's rules\n\n<!-- hipo:begin")
    );
    assert!(
        p.read("MEMORY.md")
            .contains("## Compaction Root\n### Active Context")
    );
    let hook_md = p.read("hooks/hipo/HOOK.md");
    assert!(
        hook_md.contains(
            r#"metadata: {"openclaw": {"emoji": "🧠", "events": ["agent:bootstrap", "command:new""#
        ),
        "{hook_md}"
    );
    let handler = p.read("hooks/hipo/handler.ts");
    assert!(
        handler.contains("ctx.bootstrapFiles.push({ name: \"hipo memory\"")
            && !handler.contains("execSync(")
    );
    let skill = p.read("skills/hipo-recall/SKILL.md");
    assert!(skill.starts_with("---\nname: hipo-recall\ndescription: "));

    let cfg = config(home.path());
    assert_eq!(cfg["hooks"]["internal"]["entries"]["hipo"]["enabled"], true);
    assert_eq!(
        cfg["hooks"]["internal"]["entries"]["command-logger"]["enabled"],
        true
    );
    assert_eq!(cfg["mcp"]["servers"]["hipo"]["args"], json!(["mcp"]));
    assert_eq!(
        cfg["mcp"]["servers"]["hipo"]["cwd"],
        p.path().display().to_string()
    );
    assert_eq!(cfg["mcp"]["servers"]["docs"]["command"], "uvx");
    let keys: Vec<&String> = cfg.as_object().unwrap().keys().collect();
    assert_eq!(
        keys,
        ["models", "hooks", "mcp", "agents"],
        "the user's order kept"
    );

    let (code, out, _) = run(&p, home.path(), &["init", "--platform", "openclaw"]);
    assert_eq!(code, 0);
    assert!(
        out.contains("nothing changed"),
        "re-running is a no-op: {out}"
    );

    let (_, out, _) = run(&p, home.path(), &["doctor"]);
    assert!(
        out.contains("ok   openclaw: hook hooks/hipo enabled"),
        "{out}"
    );
    // The config gives the agents another workspace: its gateway would not load this hook.
    assert!(out.contains("the workspace /somewhere, not"), "{out}");

    let (code, _, err) = run(&p, home.path(), &["uninstall", "--platform", "openclaw"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(p.read("AGENTS.md"), "# Agents\nthe user's rules\n");
    assert!(!p.exists("hooks/hipo") && !p.exists("skills/hipo-recall"));
    assert!(
        p.exists("MEMORY.md") && p.exists("USER.md"),
        "memory files stay"
    );
    assert_eq!(config(home.path()), foreign());
    let (_, out, _) = run(&p, home.path(), &["doctor"]);
    assert!(!out.contains("openclaw:"), "{out}");
}

#[test]
fn a_json5_config_or_open_hook_discovery_is_left_alone_with_the_command_to_run() {
    let (p, home) = workspace();
    let path = home.path().join(".openclaw/openclaw.json");
    let json5 = "{\n  // mine\n  models: {mode: 'merge'},\n}\n";
    std::fs::write(&path, json5).unwrap();
    let (code, out, err) = run(&p, home.path(), &["init", "--platform", "openclaw"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("run `openclaw hooks enable hipo`"), "{out}");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), json5);
    let (code, out, _) = run(&p, home.path(), &["doctor"]);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("fix  openclaw:") && out.contains("openclaw hooks enable hipo"),
        "{out}"
    );

    // Every eligible hook on, none named: a first named entry would turn the others off.
    std::fs::write(&path, r#"{"hooks": {"internal": {"enabled": true}}}"#).unwrap();
    let (_, out, _) = run(&p, home.path(), &["init", "--platform", "openclaw"]);
    assert!(out.contains("would switch the others off"), "{out}");
    assert!(
        config(home.path())
            .pointer("/hooks/internal/entries")
            .is_none()
    );
}

/// OpenClaw's transcript database for agent `main` under `home`, with the
/// columns hipo reads and one session's rows.
fn store(home: &Path, rows: &[Value]) -> PathBuf {
    let dir = home.join(".openclaw/agents/main/agent");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("openclaw-agent.sqlite");
    let db = rusqlite::Connection::open(&path).unwrap();
    db.execute_batch(
        "PRAGMA journal_mode = WAL;
         CREATE TABLE IF NOT EXISTS transcript_events (session_id TEXT NOT NULL, seq INTEGER NOT NULL,
           event_json TEXT, created_at INTEGER NOT NULL, event_zstd BLOB, event_utf8_bytes INTEGER,
           navigation_json TEXT, PRIMARY KEY (session_id, seq)) STRICT;",
    )
    .unwrap();
    let next: i64 = db
        .query_row(
            "SELECT COALESCE(MAX(seq) + 1, 0) FROM transcript_events",
            [],
            |r| r.get(0),
        )
        .unwrap();
    for (i, r) in rows.iter().enumerate() {
        db.execute(
            "INSERT INTO transcript_events VALUES ('sess-1', ?1, ?2, 0, NULL, NULL, NULL)",
            rusqlite::params![next + i as i64, r.to_string()],
        )
        .unwrap();
    }
    path
}

fn turn(n: usize, parent: &str, words: &str) -> Vec<Value> {
    vec![
        json!({"type":"message","id":format!("u{n}"),"parentId":parent,"timestamp":"2027-01-21T09:30:00Z","message":{"role":"user","content":words}}),
        json!({"type":"message","id":format!("a{n}"),"parentId":format!("u{n}"),"message":{"role":"assistant","content":[{"type":"thinking","thinking":"private"},{"type":"text","text":format!("noted {n}")}]}}),
        json!({"type":"custom","customType":"openclaw:bootstrap-context:full","data":{},"id":format!("c{n}"),"parentId":format!("a{n}")}),
    ]
}

/// `hipo hook openclaw EVENT` as the hook's handler runs it.
fn hook(p: &Project, home: &Path, event: &str, stdin: &Value) -> (i32, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_hipo"))
        .args(["--today", TODAY, "hook", "openclaw", event])
        .current_dir(home)
        .env("HOME", home)
        .env_remove("HIPO_DIR")
        .env_remove("OPENCLAW_STATE_DIR")
        .env("HIPO_LOCK_WAIT", "20")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin_json = stdin.clone();
    stdin_json["cwd"] = json!(p.path());
    child
        .stdin
        .take()
        .unwrap()
        .write_all(stdin_json.to_string().as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.is_empty(), "{err}");
    (
        out.status.code().unwrap(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

#[test]
fn the_hooks_capture_each_turn_of_the_store_once_and_load_root_at_bootstrap() {
    let (p, home) = workspace();
    run(&p, home.path(), &["init", "--platform", "openclaw"]);
    let mut first = vec![
        json!({"type":"session","version":4,"id":"sess-1","timestamp":"2027-01-21T09:29:00Z","cwd":"/ws"}),
    ];
    first.extend(turn(1, "x", "the ledger moves to postgres 16 on saturday"));
    first[1]["parentId"] = Value::Null;
    store(home.path(), &first);

    let (code, out) = hook(
        &p,
        home.path(),
        "session-start",
        &json!({"agent_id":"main","session_id":"sess-1"}),
    );
    assert_eq!(code, 0);
    assert!(out.contains("=== memory/ROOT.md ==="), "{out}");

    // The bootstrap's capture (every session of the agent) and a reset's
    // (one session) of the same rows: one entry.
    for stdin in [
        json!({"agent_id":"main"}),
        json!({"agent_id":"main","session_id":"sess-1"}),
    ] {
        let (code, out) = hook(&p, home.path(), "stop", &stdin);
        assert_eq!((code, out.as_str()), (0, ""));
    }
    let log = p.read("memory/2027-01-21.md");
    assert_eq!(
        log.matches("User: the ledger moves to postgres 16 on saturday\n")
            .count(),
        1,
        "{log}"
    );
    assert!(log.contains("Assistant: noted 1\n") && !log.contains("private"));
    assert!(
        log.contains("<!-- hipo:ingest openclaw sess_1 seq:3 -->"),
        "{log}"
    );

    // The next turn: only it is added, by the hook or by hand.
    store(
        home.path(),
        &turn(2, "c1", "and the cutover window is two hours"),
    );
    let (code, out, err) = run(
        &p,
        home.path(),
        &["--today", TODAY, "ingest", "--platform", "openclaw"],
    );
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("2 message(s) appended"), "{out}");
    hook(
        &p,
        home.path(),
        "session-end",
        &json!({"agent_id":"main","session_id":"sess-1"}),
    );
    let (_, out, _) = run(
        &p,
        home.path(),
        &[
            "--today",
            TODAY,
            "ingest",
            "--platform",
            "openclaw",
            "--session",
            "sess-1",
        ],
    );
    assert!(out.contains("nothing new"), "{out}");
    let log = p.read("memory/2027-01-21.md");
    assert_eq!(log.matches("User: the ledger moves").count(), 1, "{log}");
    assert_eq!(
        log.matches("User: and the cutover window is two hours\n")
            .count(),
        1,
        "{log}"
    );
    assert_eq!(log.matches("## Session").count(), 2, "{log}");
}

#[test]
fn eight_captures_at_once_append_each_turn_once() {
    let (p, home) = workspace();
    run(&p, home.path(), &["init", "--platform", "openclaw"]);
    let mut rows = turn(1, "x", "the ledger moves to postgres 16 on saturday");
    rows[0]["parentId"] = Value::Null;
    store(home.path(), &rows);
    std::thread::scope(|s| {
        for i in 0..8 {
            let (p, home) = (&p, home.path());
            s.spawn(move || {
                let stdin = if i % 2 == 0 {
                    json!({"agent_id": "main"})
                } else {
                    json!({"agent_id": "main", "session_id": "sess-1"})
                };
                assert_eq!(hook(p, home, "stop", &stdin).0, 0);
            });
        }
    });
    let log = p.read("memory/2027-01-21.md");
    assert_eq!(log.matches("User: the ledger moves").count(), 1, "{log}");
    assert_eq!(log.matches("## Session").count(), 1, "{log}");
}
