//! Captures that are killed, copied, moved or hostile, through the real
//! binary: a kill inside the raw-log write never duplicates a message, the
//! same session under another name or path is captured once, and a FIFO
//! named like a raw log is reported and never read.

use crate::common;
use common::{Project, Succeeds};
use std::collections::HashMap;
use std::process::{Command, Output, Stdio};

const TODAY: &str = "2027-01-21";
const LOG: &str = "memory/2027-01-21.md";

/// A Claude Code transcript of `n` messages (user and assistant in turn),
/// each with a token of its own: `m{i}z`.
fn transcript(session: &str, n: usize, from: usize) -> String {
    let mut out = String::new();
    for i in from..from + n {
        let (kind, content) = if i % 2 == 0 {
            ("user", format!("\"message m{i}z about the rollout plan\""))
        } else {
            (
                "assistant",
                format!(r#"[{{"type":"text","text":"answer m{i}z: noted, step {i} done"}}]"#),
            )
        };
        out.push_str(&format!(
            r#"{{"type":"{kind}","uuid":"{session}-{i}","sessionId":"{session}","timestamp":"2027-01-21T09:30:00Z","message":{{"role":"{kind}","content":{content}}}}}"#
        ));
        out.push('\n');
    }
    out
}

/// `hipo ARGS` in `p`, with `HIPO_FAILPOINT` set when `spec` is.
fn hipo(p: &Project, args: &[&str], spec: Option<&str>) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_hipo"));
    cmd.arg("--dir")
        .arg(p.path())
        .args(args)
        .current_dir(p.path())
        .env("NO_COLOR", "1")
        .env_remove("HIPO_DIR")
        .env_remove("HIPO_TODAY")
        .env_remove("HIPO_FAILPOINT");
    if let Some(spec) = spec {
        cmd.env("HIPO_FAILPOINT", spec);
    }
    cmd.output().unwrap()
}

fn ingest(p: &Project, transcript: &str, spec: Option<&str>) -> Output {
    hipo(p, &["ingest", "--today", TODAY, transcript], spec)
}

/// How many whole lines of the raw log hold each message token `m{i}z`.
fn counts(log: &str) -> HashMap<usize, usize> {
    let mut out: HashMap<usize, usize> = HashMap::new();
    for line in log.lines() {
        let whole = line.starts_with("User: message m") && line.ends_with("rollout plan")
            || line.starts_with("Assistant: answer m") && line.ends_with(" done");
        if !whole {
            continue;
        }
        let token = line
            .split(" m")
            .skip(1)
            .find_map(|t| t.split_once('z')?.0.parse().ok());
        if let Some(i) = token {
            *out.entry(i).or_default() += 1;
        }
    }
    out
}

fn assert_each_once(log: &str, n: usize, what: &str) {
    let c = counts(log);
    let twice: Vec<_> = c.iter().filter(|(_, k)| **k > 1).collect();
    let missing = (0..n).filter(|i| !c.contains_key(i)).count();
    assert!(
        twice.is_empty() && missing == 0,
        "{what}: {} message(s) twice, {missing} missing",
        twice.len()
    );
}

fn project_with(n: usize) -> Project {
    let p = Project::empty();
    p.write("sess.jsonl", transcript("sess-1", n, 0));
    p
}

/// The held-out check of issue 28: 12,000 messages, the write torn at
/// places across the entry (in its heading, in a message, at a line's end,
/// in the watermark), then two more captures: every message exactly once,
/// and the raw log byte for byte what an uninterrupted capture writes.
#[test]
fn a_capture_torn_mid_write_is_finished_not_repeated() {
    const N: usize = 12_000;
    let clean = project_with(N);
    ingest(&clean, "sess.jsonl", None);
    let whole = clean.read(LOG);
    assert_each_once(&whole, N, "clean");
    let entry_at = whole.find("## Session").unwrap();
    let entry_len = whole.len() - entry_at;
    let mark_at = whole.rfind("<!-- hipo:ingest").unwrap() - entry_at;
    let line_end = whole[entry_at + entry_len / 3..].find('\n').unwrap() + entry_len / 3 + 1;
    // "# 2027-01-21\n\n" comes first: the tear counts from there.
    let head = entry_at;
    for keep in [
        None,
        Some(3),
        Some(head + 5),
        Some(head + line_end),
        Some(head + mark_at + 20),
        Some(whole.len() - 2),
    ] {
        let p = project_with(N);
        let spec = match keep {
            Some(k) => format!("journal.append:1:tear={k}"),
            None => "journal.append:1:tear".to_string(),
        };
        let out = ingest(&p, "sess.jsonl", Some(&spec));
        assert!(!out.status.success(), "{spec}: the failpoint fired");
        assert!(
            String::from_utf8_lossy(&out.stderr).contains("tear writing"),
            "{spec}"
        );
        let torn = p.read(LOG);
        assert!(
            torn.len() < whole.len() && whole.starts_with(&torn),
            "{spec}"
        );
        for _ in 0..2 {
            let out = ingest(&p, "sess.jsonl", None);
            assert!(out.status.success(), "{spec}: {out:?}");
        }
        let now = p.read(LOG);
        assert_each_once(&now, N, &spec);
        assert_eq!(now, whole, "{spec}: not what a whole capture writes");
    }
}

/// A torn entry that something else was appended after (another session's
/// capture) is not finished in place: the messages it holds whole are not
/// written again, and the next entry starts at the one it cut.
#[test]
fn a_torn_capture_followed_by_another_entry_resumes_after_its_whole_messages() {
    const N: usize = 400;
    let p = project_with(N);
    p.write("other.jsonl", transcript("sess-2", 2, 100_000));
    let out = ingest(&p, "sess.jsonl", Some("journal.append:1:tear=9000"));
    assert!(!out.status.success());
    assert!(ingest(&p, "other.jsonl", None).status.success());
    for _ in 0..2 {
        assert!(ingest(&p, "sess.jsonl", None).status.success());
    }
    let log = p.read(LOG);
    assert_each_once(&log, N, "resumed");
    assert_eq!(counts(&log).get(&100_000), Some(&1), "{log}");
    // The torn part stays as it was written; the new entry follows.
    assert_eq!(log.matches("## Session").count(), 3, "{log}");
}

/// The issue's reproduction, as a person would run it: the Stop hook killed
/// (SIGKILL) as soon as the raw log starts growing, then run twice more.
/// Where the kill lands is up to the machine; every message is there once
/// wherever it lands.
#[test]
fn the_stop_hook_killed_while_the_log_grows_then_run_twice_captures_each_message_once() {
    const N: usize = 12_000;
    let p = project_with(N);
    let stdin = format!(
        r#"{{"session_id":"sess-1","transcript_path":"{}","cwd":"{}","hook_event_name":"Stop"}}"#,
        p.path().join("sess.jsonl").display(),
        p.path().display()
    );
    let hook = || {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_hipo"));
        cmd.args(["--today", TODAY, "hook", "claude-code", "stop"])
            .current_dir(p.path())
            .env_remove("HIPO_DIR")
            .env_remove("HIPO_FAILPOINT")
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        cmd
    };
    let mut child = hook().spawn().unwrap();
    {
        use std::io::Write;
        child
            .stdin
            .take()
            .unwrap()
            .write_all(stdin.as_bytes())
            .unwrap();
    }
    let log = p.path().join(LOG);
    loop {
        if std::fs::metadata(&log).is_ok_and(|m| m.len() > 0) {
            let _ = child.kill();
            break;
        }
        if child.try_wait().unwrap().is_some() {
            break;
        }
        std::thread::yield_now();
    }
    let _ = child.wait();
    for _ in 0..2 {
        common::run_with_stdin(&mut hook(), &stdin);
    }
    assert_each_once(&p.read(LOG), N, "killed hook");
}

/// The same session copied under another file name, or found at another
/// path with other bytes before the watermark (resumed on another machine),
/// is captured once; a watermark an earlier version keyed by the file name
/// is still honoured.
#[test]
fn a_session_is_keyed_by_its_id_wherever_its_transcript_is() {
    let p = Project::empty();
    let first = transcript("sess-7", 4, 0);
    p.write("a/one.jsonl", &first);
    assert!(ingest(&p, "a/one.jsonl", None).status.success());
    // Copied under another name, then grown.
    p.write("b/copy.jsonl", first.clone() + &transcript("sess-7", 2, 4));
    assert!(ingest(&p, "b/copy.jsonl", None).status.success());
    // On another machine: the same lines after a line this one never had.
    let moved = format!(
        "{{\"type\":\"summary\",\"summary\":\"resumed\"}}\n{first}{}{}",
        transcript("sess-7", 2, 4),
        transcript("sess-7", 2, 6)
    );
    p.write("c/elsewhere.jsonl", &moved);
    assert!(ingest(&p, "c/elsewhere.jsonl", None).status.success());
    let log = p.read(LOG);
    assert_each_once(&log, 8, "moved");
    assert!(
        log.contains("<!-- hipo:ingest claude-code sess_7 "),
        "{log}"
    );

    // Codex names its files after more than the session id: an old
    // watermark keyed by the file stem still counts.
    let p = Project::empty();
    let rollout = "rollout-2027-01-21T09-00-00-th9";
    let meta = r#"{"timestamp":"2027-01-21T09:00:00Z","type":"session_meta","payload":{"id":"th9","cwd":"/p"}}"#;
    let said = |t: &str| {
        format!(
            r#"{{"timestamp":"2027-01-21T09:01:00Z","type":"response_item","payload":{{"type":"message","role":"user","content":[{{"type":"input_text","text":"{t}"}}]}}}}"#
        )
    };
    let old = format!("{meta}\n{}\n", said("message m0z about the rollout plan"));
    p.write(&format!("{rollout}.jsonl"), &old);
    p.write(
        LOG,
        format!(
            "# {TODAY}\n\n## Session (codex) [project]\nUser: message m0z about the rollout plan\n<!-- hipo:ingest codex {} {} -->\n",
            rollout.replace('-', "_"),
            old.len()
        ),
    );
    p.append(
        &format!("{rollout}.jsonl"),
        &format!("{}\n", said("message m2z about the rollout plan")),
    );
    let out = hipo(
        &p,
        &[
            "ingest",
            "--platform",
            "codex",
            "--today",
            TODAY,
            &format!("{rollout}.jsonl"),
        ],
        None,
    );
    assert!(out.status.success(), "{out:?}");
    let log = p.read(LOG);
    assert_eq!(counts(&log).get(&0), Some(&1), "{log}");
    assert_eq!(counts(&log).get(&2), Some(&1), "{log}");
    assert!(log.contains("<!-- hipo:ingest codex th9 "), "{log}");
}

/// A FIFO, or a link to `/dev/zero`, named like a raw log: `status` and
/// `compact` name it, and a capture into it fails with its name at once
/// instead of blocking on the FIFO or reading zeros forever.
#[cfg(unix)]
#[test]
fn a_fifo_or_a_device_named_like_a_raw_log_is_reported_not_read() {
    let p = Project::sample();
    let fifo = p.path().join("memory/2027-01-19.md");
    let made = Command::new("mkfifo").arg(&fifo).status();
    if !made.is_ok_and(|s| s.success()) {
        eprintln!("skipped: mkfifo is not available here");
        return;
    }
    std::os::unix::fs::symlink("/dev/zero", p.path().join(LOG)).unwrap();
    let (_, out, err) = p.run(["--json", "status", "--today", TODAY]);
    let all = format!("{out}{err}");
    assert!(
        all.contains("memory/2027-01-19.md") && all.contains("not a regular file"),
        "{all}"
    );
    assert!(all.contains(LOG), "{all}");
    let (code, out, err) = p.compact(TODAY);
    assert!(
        err.contains("not a regular file") || out.contains("not a regular file"),
        "{code} {out}{err}"
    );
    p.write("sess.jsonl", transcript("sess-1", 2, 0));
    let out = ingest(&p, "sess.jsonl", None);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(LOG) && err.contains("not a regular file"),
        "{err}"
    );
}

/// A capture killed while it saves the trigger counters leaves a temp file;
/// the next capture (even with nothing new) removes it, and so does the
/// next checkpoint.
#[test]
fn a_killed_capture_leaves_no_temp_file_behind_the_next_one() {
    let p = project_with(4);
    let out = ingest(&p, "sess.jsonl", Some("write_atomic:1:abort"));
    assert!(!out.status.success());
    let temps = || {
        std::fs::read_dir(p.path().join("memory"))
            .unwrap()
            .flatten()
            .filter(|e| e.file_name().to_string_lossy().starts_with(".hipo-tmp-"))
            .count()
    };
    assert_eq!(temps(), 1, "the kill left its temp file");
    assert!(ingest(&p, "sess.jsonl", None).status.success());
    assert_eq!(temps(), 0);
    assert_each_once(&p.read(LOG), 4, "after the kill");

    let out = hipo(
        &p,
        &[
            "checkpoint",
            "--today",
            TODAY,
            "--type",
            "project",
            "--topic",
            "T",
            "--field",
            "outcome=ok",
        ],
        Some("write_atomic:1:abort"),
    );
    assert!(!out.status.success());
    assert_eq!(temps(), 1);
    p.hipo()
        .args([
            "checkpoint",
            "--today",
            TODAY,
            "--type",
            "project",
            "--topic",
            "U",
            "--field",
            "outcome=ok",
        ])
        .succeeds();
    assert_eq!(temps(), 0);
}
