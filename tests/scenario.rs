//! The harness end to end, as an agent's day goes, through the real
//! binary and Claude Code's hook JSON: install, a session starts, three
//! tasks are checkpointed, the platform compacts its context (the
//! transcript is captured first), the tree is compacted, and a later
//! session starts with the new topics in ROOT and recalls what was said
//! in the captured transcript.

use crate::common;
use common::Project;
use std::io::Write;
use std::path::Path;
use std::process::Command;

const TODAY: &str = "2027-03-10";

/// `hipo --today TODAY hook claude-code EVENT` with the hook JSON on
/// stdin, run from outside the project (the project comes from `cwd`).
fn hook(p: &Project, event: &str, extra: &str) -> String {
    let stdin = format!(
        r#"{{"session_id":"s-42","transcript_path":"{}","cwd":"{}","hook_event_name":"{event}"{extra}}}"#,
        p.path().join("s-42.jsonl").display(),
        p.path().display()
    );
    hook_stdin(p, event, &stdin)
}

/// `hipo --today TODAY hook claude-code EVENT` with `stdin`.
fn hook_stdin(p: &Project, event: &str, stdin: &str) -> String {
    let out = common::run_with_stdin(
        Command::new(env!("CARGO_BIN_EXE_hipo"))
            .args(["--today", TODAY, "hook", "claude-code", event])
            .current_dir(p.path().parent().unwrap())
            .env_remove("HIPO_DIR")
            .env("HIPO_LOCK_WAIT", "30"),
        stdin,
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success() && err.is_empty(), "{event}: {err}");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// A Claude Code transcript: the user's words, a tool call and its
/// output, thinking that must stay out, and the assistant's answer.
fn transcript(path: &Path) {
    let line = |uuid: &str, kind: &str, content: &str| {
        format!(
            r#"{{"type":"{kind}","uuid":"{uuid}","sessionId":"s-42","timestamp":"{TODAY}T14:05:00Z","message":{{"role":"{kind}","content":{content}}}}}"#
        ) + "\n"
    };
    let text = [
        line(
            "u1",
            "user",
            r#""the invoice exporter must write CSV with semicolons for the Lisbon office""#,
        ),
        line(
            "a1",
            "assistant",
            r#"[{"type":"thinking","thinking":"secret musing"},{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"cargo test -p exporter"}}]"#,
        ),
        line(
            "u2",
            "user",
            r#"[{"type":"tool_result","tool_use_id":"t1","content":"test result: ok. 12 passed"}]"#,
        ),
        line(
            "a2",
            "assistant",
            r#"[{"type":"text","text":"Done: the exporter now writes semicolon-separated CSV for Lisbon."}]"#,
        ),
    ]
    .concat();
    std::fs::write(path, text).unwrap();
}

/// `hipo checkpoint --type project`, as the protocol asks after a task.
fn checkpoint(p: &Project, topic: &str, fields: &[&str]) {
    let mut args = vec![
        "--today",
        TODAY,
        "checkpoint",
        "--type",
        "project",
        "--topic",
        topic,
    ];
    for f in fields {
        args.extend(["-f", f]);
    }
    let (code, _, err) = p.run(&args);
    assert_eq!(code, 0, "{err}");
}

#[test]
fn an_agents_day_from_install_to_recall() {
    let p = Project::empty();
    std::fs::remove_dir(p.path().join("memory")).unwrap();
    let (code, _, err) = p.run(["init", "--platform", "claude-code"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        p.read(".claude/settings.local.json")
            .contains("hook claude-code session-start")
    );

    // A resumed session is given ROOT.md and the hot files.
    let start = hook(&p, "session-start", r#","source":"resume""#);
    assert!(start.contains("=== memory/ROOT.md ==="), "{start}");
    assert!(!start.contains("billing-migration"), "{start}");

    checkpoint(
        &p,
        "billing-migration cutover plan",
        &[
            "request=move billing to the new ledger",
            "outcome=cutover set for March 14",
        ],
    );
    checkpoint(
        &p,
        "flaky-ci retries removed",
        &[
            "decisions=retries hide real failures; removed them",
            "outcome=ci red twice, both real bugs",
        ],
    );
    checkpoint(
        &p,
        "onboarding-docs rewrite",
        &[
            "request=rewrite the onboarding guide",
            "outcome=guide merged",
        ],
    );

    // The platform is about to compact its context: the transcript is
    // captured first (and a compaction started in the background).
    transcript(&p.path().join("s-42.jsonl"));
    assert_eq!(hook(&p, "pre-compact", r#","trigger":"auto""#), "");
    let log = p.read(&format!("memory/{TODAY}.md"));
    assert_eq!(
        log.matches("User: the invoice exporter must write CSV")
            .count(),
        1,
        "{log}"
    );
    assert!(!log.contains("secret musing"), "{log}");

    let (code, _, err) = p.run(["--today", TODAY, "compact"]);
    assert_eq!(code, 0, "{err}");
    let root = p.read("memory/ROOT.md");
    for topic in ["billing-migration", "flaky-ci", "onboarding-docs"] {
        assert!(root.contains(topic), "{topic} missing from ROOT:\n{root}");
    }

    // The context after the platform's compaction has the new topics.
    let later = hook(&p, "session-start", r#","source":"compact""#);
    assert!(later.contains("billing-migration"), "{later}");

    // A later prompt recalls what was said in the captured session.
    let recalled = hook(
        &p,
        "prompt",
        r#","prompt":"which separator does the invoice exporter use for the Lisbon office?""#,
    );
    assert!(
        recalled.contains(&format!("memory/{TODAY}.md:")),
        "{recalled}"
    );
    assert!(recalled.contains("semicolon"), "{recalled}");

    // The capture again (the Stop hook after the same turn): nothing new.
    assert_eq!(hook(&p, "stop", ""), "");
    let again = p.read(&format!("memory/{TODAY}.md"));
    assert_eq!(
        again
            .matches("User: the invoice exporter must write CSV")
            .count(),
        1
    );
}

/// Hooks fire in parallel: eight at once on one project (four
/// checkpoints, four captures of two growing transcripts, each fired
/// twice), for three rounds. Every entry lands exactly once.
#[test]
fn eight_hooks_at_once_lose_and_duplicate_nothing() {
    let p = Project::sample();
    let transcripts = ["t-a", "t-b"].map(|name| p.path().join(format!("{name}.jsonl")));
    for round in 0..3 {
        for (i, t) in transcripts.iter().enumerate() {
            let line = format!(
                r#"{{"type":"user","uuid":"u{round}{i}","sessionId":"s{i}","timestamp":"{TODAY}T10:00:00Z","message":{{"role":"user","content":"round {round} words of transcript {i} zebra{round}x{i}"}}}}"#
            ) + "\n";
            let mut f = std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(t)
                .unwrap();
            f.write_all(line.as_bytes()).unwrap();
        }
        std::thread::scope(|s| {
            for k in 0..4 {
                let p = &p;
                s.spawn(move || checkpoint(p, &format!("parallel-{round}-{k}"), &["outcome=ok"]));
            }
            for t in transcripts.iter().chain(&transcripts) {
                let p = &p;
                s.spawn(move || {
                    let stdin = format!(
                        r#"{{"session_id":"x","transcript_path":"{}","cwd":"{}","hook_event_name":"Stop"}}"#,
                        t.display(),
                        p.path().display()
                    );
                    assert_eq!(hook_stdin(p, "stop", &stdin), "");
                });
            }
        });
    }
    let log = p.read(&format!("memory/{TODAY}.md"));
    for round in 0..3 {
        for k in 0..4 {
            assert_eq!(
                log.matches(&format!("## parallel-{round}-{k} [project]"))
                    .count(),
                1,
                "{log}"
            );
        }
        for i in 0..2 {
            assert_eq!(
                log.matches(&format!("User: round {round} words of transcript {i}"))
                    .count(),
                1,
                "{log}"
            );
        }
    }
}
