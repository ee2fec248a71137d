//! What `hipo init --platform codex` installs, checked against the
//! contract in Codex's source (`codex-rs/hooks/schema/generated/` and
//! `codex-rs/config/src/hook_config.rs`, read for this test): the
//! `hooks.json` shape Codex parses, and hooks that accept the stdin
//! Codex's input schemas require and answer in a form its output schemas
//! allow. Codex drops a hook's JSON output when it has a field the schema
//! does not know (`additionalProperties: false`), so hipo answers in
//! plain text, which Codex adds to the context as it is.

use crate::common;
use common::Project;
use serde_json::Value;
use std::process::Command;

const TODAY: &str = "2027-01-21";

/// The events Codex 0.169's `hooks.json` knows (PascalCase keys).
const CODEX_EVENTS: [&str; 12] = [
    "PreToolUse",
    "PermissionRequest",
    "PostToolUse",
    "PreCompact",
    "PostCompact",
    "SessionStart",
    "UserPromptSubmit",
    "Stop",
    "StopFailure",
    "SubagentStart",
    "SubagentStop",
    "SessionEnd",
];

/// The fields each event's input schema requires, with values of the
/// types it gives them (`transcript_path` may be null).
fn stdin(p: &Project, event: &str, transcript: Value) -> String {
    let mut v = serde_json::json!({
        "session_id": "019a0000-0000-7000-8000-000000000000",
        "transcript_path": transcript,
        "cwd": p.path().display().to_string(),
        "hook_event_name": event,
        "model": "gpt-5-codex",
        "permission_mode": "default",
    });
    match event {
        "SessionStart" => v["source"] = "startup".into(),
        "UserPromptSubmit" => {
            v["turn_id"] = "turn-1".into();
            v["prompt"] = "when did we cut over to postgres 16?".into();
        }
        "Stop" => {
            v["turn_id"] = "turn-1".into();
            v["stop_hook_active"] = false.into();
            v["last_assistant_message"] = Value::Null;
        }
        "PreCompact" => {
            v["turn_id"] = "turn-1".into();
            v["trigger"] = "auto".into();
        }
        _ => {}
    }
    v.to_string()
}

/// Runs the installed command line (its arguments after the program) with
/// `input` on stdin; returns (exit code, stdout, stderr).
fn run_installed(command: &str, input: &str) -> (i32, String, String) {
    let mut words = command.split_whitespace();
    assert_eq!(words.next(), Some("hipo"), "{command}");
    let out = common::run_with_stdin(
        Command::new(env!("CARGO_BIN_EXE_hipo"))
            .arg("--today")
            .arg(TODAY)
            .args(words)
            .env_remove("HIPO_DIR"),
        input,
    );
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn codex_hooks_follow_codexs_schemas() {
    let p = Project::sample();
    assert_eq!(p.compact(TODAY).0, 0);
    let (code, _, err) = p.run(["init", "--platform", "codex"]);
    assert_eq!(code, 0, "{err}");
    let hooks: Value = serde_json::from_str(&p.read(".codex/hooks.json")).unwrap();
    let events = hooks["hooks"].as_object().unwrap();
    assert!(!events.is_empty());
    let transcript = p.path().join("rollout.jsonl");
    std::fs::write(&transcript, "").unwrap();
    for (event, groups) in events {
        assert!(CODEX_EVENTS.contains(&event.as_str()), "{event}");
        for group in groups.as_array().unwrap() {
            let keys: Vec<&String> = group.as_object().unwrap().keys().collect();
            assert!(
                keys.iter()
                    .all(|k| ["matcher", "hooks"].contains(&k.as_str())),
                "{group}"
            );
            if let Some(m) = group.get("matcher") {
                // Codex reads matchers on these events only.
                assert!(["SessionStart", "PreToolUse", "PostToolUse"].contains(&event.as_str()));
                assert!(m.is_string());
            }
            for handler in group["hooks"].as_array().unwrap() {
                assert_eq!(handler["type"], "command", "{handler}");
                // Seconds, at least 1 (Codex clamps SessionEnd to 3).
                let t = handler["timeout"].as_u64().unwrap();
                assert!((1..=600).contains(&t), "{handler}");
                assert!(handler.get("async").is_none(), "Codex has no async hooks");
                // A shared file: `hipo` on PATH, never a machine path.
                let command = handler["command"].as_str().unwrap();
                assert!(command.starts_with("hipo hook codex "), "{command}");
                for path in [Value::Null, transcript.display().to_string().into()] {
                    let (code, out, err) = run_installed(command, &stdin(&p, event, path));
                    assert_eq!((code, err.as_str()), (0, ""), "{event}");
                    // Plain text (or nothing): never JSON the output
                    // schema could refuse.
                    assert!(
                        serde_json::from_str::<Value>(&out).is_err() || out.is_empty(),
                        "{event}: {out}"
                    );
                    if event == "SessionStart" {
                        assert!(out.contains("=== memory/ROOT.md ==="), "{out}");
                    }
                    if event == "UserPromptSubmit" {
                        assert!(out.contains("Postgres 16 cutover"), "{out}");
                    }
                }
            }
        }
    }
}
