//! The agent harness through the real binary: `hipo hook` and `hipo
//! ingest` fed Claude Code's hook JSON and transcripts.

use crate::common;
use common::Project;
use std::io::Write;
use std::process::{Command, Stdio};

const TODAY: &str = "2027-01-21";

fn line(uuid: &str, kind: &str, content: &str) -> String {
    format!(
        r#"{{"type":"{kind}","uuid":"{uuid}","sessionId":"sess-1","timestamp":"2027-01-21T09:30:00Z","message":{{"role":"{kind}","content":{content}}}}}"#
    ) + "\n"
}

fn first_turn() -> String {
    [
        r#"{"type":"file-history-snapshot","messageId":"m0"}"#.to_string() + "\n",
        line("u1", "user", r#""the staging database moves to the Frankfurt region on Friday""#),
        r#"{"type":"queue-operation","operation":"enqueue","content":"the staging database moves to the Frankfurt region on Friday"}"#.to_string() + "\n",
        line(
            "a1",
            "assistant",
            r#"[{"type":"thinking","thinking":"private"},{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"terraform plan -target=module.staging_db"}}]"#,
        ),
        line("u2", "user", r#"[{"type":"tool_result","tool_use_id":"t1","content":"Plan: 1 to change"}]"#),
        line("a2", "assistant", r#"[{"type":"text","text":"Noted: staging moves to Frankfurt (eu-central-1) on Friday."}]"#),
    ]
    .concat()
}

/// Runs `hipo hook claude-code EVENT` with `stdin`, returning (code, stdout).
fn hook(p: &Project, event: &str, stdin: &str) -> (i32, String) {
    let out = common::run_with_stdin(
        Command::new(env!("CARGO_BIN_EXE_hipo"))
            .args(["--today", TODAY, "hook", "claude-code", event])
            // The project comes from the stdin's `cwd`, not from here.
            .current_dir(p.path().parent().unwrap())
            .env_remove("HIPO_DIR")
            .env("HIPO_LOCK_WAIT", "20"),
        stdin,
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.is_empty(), "{err}");
    (
        out.status.code().unwrap(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

fn hook_json(p: &Project, event: &str, transcript: &std::path::Path, extra: &str) -> String {
    format!(
        r#"{{"session_id":"sess-1","transcript_path":"{}","cwd":"{}","hook_event_name":"{event}"{extra}}}"#,
        transcript.display(),
        p.path().display()
    )
}

#[test]
fn a_transcript_is_captured_once_even_when_it_grows_and_the_cache_is_gone() {
    let p = Project::sample();
    let t = p.path().join("sess-1.jsonl");
    std::fs::write(
        &t,
        first_turn() + r#"{"type":"user","uuid":"u9","message":{"#,
    )
    .unwrap();
    let v = p.json(["ingest", "--today", TODAY, t.to_str().unwrap()]);
    assert_eq!(v[0]["messages"], 4);
    let log = p.read("memory/2027-01-21.md");
    assert!(log.contains("## Session 2027-01-21 09:30 the staging database moves to the Frankfurt region on Friday (claude-code) [project]\n"), "{log}");
    assert!(log.contains("User: the staging database moves to the Frankfurt region on Friday\n"));
    assert!(log.contains(
        "Tool: Bash terraform plan -target=module.staging_db\nOutput: Plan: 1 to change\n"
    ));
    assert!(!log.contains("private"), "{log}");
    assert_eq!(
        log.matches("Frankfurt region on Friday").count(),
        2,
        "{log}"
    );

    // Again: nothing new. Without the cache: still nothing new.
    assert_eq!(
        p.json(["ingest", "--today", TODAY, t.to_str().unwrap()])[0]["messages"],
        0
    );
    std::fs::remove_dir_all(p.path().join(".hipo")).unwrap();
    assert_eq!(
        p.json(["ingest", "--today", TODAY, t.to_str().unwrap()])[0]["messages"],
        0
    );
    assert_eq!(p.read("memory/2027-01-21.md"), log);

    // The partial line completed and a new turn: only that is added.
    let mut grown = first_turn();
    grown.push_str(&line(
        "u9",
        "user",
        r#""and the DNS TTL goes down to 60 seconds""#,
    ));
    std::fs::write(&t, grown).unwrap();
    assert_eq!(
        p.json(["ingest", "--today", TODAY, t.to_str().unwrap()])[0]["messages"],
        1
    );
    let log = p.read("memory/2027-01-21.md");
    assert_eq!(
        log.matches("Frankfurt region on Friday").count(),
        2,
        "{log}"
    );
    assert_eq!(log.matches("DNS TTL goes down").count(), 2, "{log}");
}

#[test]
fn hooks_firing_at_once_capture_a_session_exactly_once() {
    let p = Project::sample();
    let t = p.path().join("sess-1.jsonl");
    std::fs::write(&t, first_turn()).unwrap();
    let input = hook_json(&p, "Stop", &t, "");
    std::thread::scope(|s| {
        let handles: Vec<_> = (0..8)
            .map(|_| s.spawn(|| hook(&p, "stop", &input)))
            .collect();
        for h in handles {
            // Stop prints nothing: on Claude Code any output there makes the
            // conversation go on.
            assert_eq!(h.join().unwrap(), (0, String::new()));
        }
    });
    let log = p.read("memory/2027-01-21.md");
    assert_eq!(
        log.matches("User: the staging database").count(),
        1,
        "{log}"
    );
}

#[test]
fn session_start_loads_root_and_prompts_recall_what_bears_on_them() {
    let p = Project::sample();
    assert_eq!(p.compact(TODAY).0, 0);
    let t = p.path().join("sess-1.jsonl");
    std::fs::write(&t, first_turn()).unwrap();
    let (code, out) = hook(
        &p,
        "session-start",
        &hook_json(&p, "SessionStart", &t, r#","source":"compact""#),
    );
    assert_eq!(code, 0);
    assert!(out.contains("=== memory/ROOT.md ==="), "{out}");
    assert!(out.contains("## Topics Index"), "{out}");
    assert!(out.chars().count() <= 10_000);

    assert_eq!(
        hook(&p, "session-end", &hook_json(&p, "SessionEnd", &t, "")).0,
        0
    );
    let prompt = r#","prompt":"which region does the staging database move to on Friday?""#;
    let (_, out) = hook(&p, "prompt", &hook_json(&p, "UserPromptSubmit", &t, prompt));
    assert!(out.contains("memory/2027-01-21.md:"), "{out}");
    assert!(out.contains("Frankfurt"), "{out}");
    let unrelated = r#","prompt":"write a haiku about autumn leaves""#;
    let (_, out) = hook(
        &p,
        "prompt",
        &hook_json(&p, "UserPromptSubmit", &t, unrelated),
    );
    assert_eq!(out, "", "nothing clears the floor, so nothing is injected");
}

#[test]
fn a_hook_outside_a_project_or_with_bad_input_stays_quiet_and_exits_0() {
    let dir = tempfile::tempdir().unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_hipo"))
        .args(["hook", "claude-code", "session-start"])
        .env_remove("HIPO_DIR")
        .env_remove("CLAUDE_PROJECT_DIR")
        .current_dir(dir.path())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(b"{not json").unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert!(out.stdout.is_empty());
    assert!(String::from_utf8_lossy(&out.stderr).contains("not the JSON a hook gets"));
}

#[test]
fn init_and_ingest_refuse_what_they_cannot_do_and_write_nothing() {
    let p = Project::empty();
    std::fs::create_dir(p.path().join(".claude")).unwrap();
    std::fs::create_dir(p.path().join(".codex")).unwrap();
    let t = p.path().join("t.jsonl");
    std::fs::write(&t, "{}\n").unwrap();
    let before = p.snapshot();
    let (code, _, err) = p.run(["init"]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("several agent platforms found") && err.contains("--platform"),
        "{err}"
    );
    let (code, _, err) = p.run(["init", "--platform", "vscode"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("is not a platform"), "{err}");
    let (code, _, err) = p.run(["ingest", "--platform", "opencode", t.to_str().unwrap()]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("is not a database"), "{err}");
    let (code, _, err) = p.run([
        "ingest",
        "--platform",
        "codex",
        "--session",
        "x",
        t.to_str().unwrap(),
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("--session is for"), "{err}");
    let (code, _, err) = p.run([
        "ingest",
        "--platform",
        "codex",
        "--agent",
        "x",
        t.to_str().unwrap(),
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("--agent is for --platform openclaw"), "{err}");
    assert_eq!(before, p.snapshot());
}

/// On Claude Code's `startup`, the context is printed unless CLAUDE.md
/// really imports ROOT.md (hooks installed another way, the block removed,
/// a global install): a session never starts without its memory.
#[test]
fn startup_prints_the_context_unless_claude_md_imports_root() {
    let p = Project::sample();
    assert_eq!(p.compact(TODAY).0, 0);
    let t = p.path().join("sess-1.jsonl");
    std::fs::write(&t, first_turn()).unwrap();
    let startup = hook_json(&p, "SessionStart", &t, r#","source":"startup""#);
    p.write(
        "CLAUDE.md",
        "# My project\nrules, and `@memory/ROOT.md` in code\n",
    );
    let (code, out) = hook(&p, "session-start", &startup);
    assert_eq!(code, 0);
    assert!(out.contains("=== memory/ROOT.md ==="), "{out}");
    p.write(
        "CLAUDE.md",
        "# My project\n\n@memory/ROOT.md\n@SCRATCHPAD.md\n",
    );
    let (code, out) = hook(&p, "session-start", &startup);
    assert_eq!(code, 0);
    assert_eq!(out, "", "Claude Code imports it itself");
}
