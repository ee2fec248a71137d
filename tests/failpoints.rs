//! Crash consistency by failpoints, not by timing: every write boundary of
//! a compaction, an index update and an ingest is made, in turn, to kill
//! the process (`HIPO_FAILPOINT=*:N:abort`, a SIGKILL just before that
//! write) or to fail it with a full disk (`*:N:error`). N walks from 1
//! until a run passes every boundary, so a boundary added later is walked
//! too. After each: every file is old or new byte for byte, no raw-log
//! byte is lost, and the next plain run converges to what a clean run
//! writes, opening (or rebuilding) redb and tantivy on its own.

use crate::common;
use common::{Project, copy_dir};
use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::process::{Command, Output};

type Snapshot = BTreeMap<PathBuf, Vec<u8>>;

#[derive(Clone, Copy, Debug)]
enum Mode {
    Abort,
    Error,
}

impl Mode {
    fn as_str(self) -> &'static str {
        match self {
            Mode::Abort => "abort",
            Mode::Error => "error",
        }
    }
}

/// `hipo ARGS` in `p`, with `HIPO_FAILPOINT` set when `spec` is.
fn hipo(p: &Project, args: &[&str], spec: Option<&str>) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_hipo"));
    cmd.arg("--dir")
        .arg(p.path())
        .args(args)
        .current_dir(p.path())
        .env("NO_COLOR", "1")
        .env("HIPO_LOCK_WAIT", "5")
        .env_remove("HIPO_DIR")
        .env_remove("HIPO_TODAY")
        .env_remove("HIPO_FAILPOINT");
    if let Some(spec) = spec {
        cmd.env("HIPO_FAILPOINT", spec);
    }
    cmd.output().unwrap()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// The boundary a failpoint fired at, as its announcement names it.
fn fired(out: &Output) -> Option<String> {
    let err = stderr(out);
    let line = err.lines().find(|l| l.starts_with("hipo: failpoint "))?;
    Some(line.split_whitespace().nth(2)?.to_string())
}

/// A fresh copy of `template` (its cache included): each faulted run starts
/// from the same state without paying for the setup again.
fn clone_of(template: &Project) -> Project {
    let p = Project {
        dir: tempfile::tempdir().unwrap(),
    };
    copy_dir(template.path(), p.path());
    p
}

/// hipo's temp files anywhere in the project but the cache.
fn temp_files(dir: &std::path::Path) -> Vec<String> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        if name.starts_with(".hipo-tmp-") {
            out.push(e.path().display().to_string());
        } else if e.file_type().is_ok_and(|t| t.is_dir()) && name != ".hipo" {
            out.extend(temp_files(&e.path()));
        }
    }
    out
}

fn snapshot(p: &Project) -> Snapshot {
    p.snapshot().into_iter().collect()
}

/// Runs `args` with the Nth boundary faulted, for N = 1, 2, … until a run
/// passes them all; `check` sees each faulted project. Returns the
/// boundaries' names and the faulted runs.
fn walk(
    what: &str,
    mode: Mode,
    setup: &dyn Fn() -> Project,
    args: &[&str],
    check: &dyn Fn(&Project, &Output),
) -> (BTreeSet<String>, usize) {
    let mut names = BTreeSet::new();
    let mut runs = 0;
    for n in 1.. {
        let spec = format!("*:{n}:{}", mode.as_str());
        let Some(name) = fault_once(what, mode, setup, args, check, &spec) else {
            break;
        };
        names.insert(name);
        runs += 1;
        assert!(n < 500, "{what}: a run passes more than 500 boundaries");
    }
    assert!(runs > 0, "{what}: no boundary was hit");
    (names, runs)
}

/// One run with `spec` armed, checked: the boundary that fired, or `None`
/// when the run passed them all (and then it must have succeeded).
fn fault_once(
    what: &str,
    mode: Mode,
    setup: &dyn Fn() -> Project,
    args: &[&str],
    check: &dyn Fn(&Project, &Output),
    spec: &str,
) -> Option<String> {
    let p = setup();
    let out = hipo(&p, args, Some(spec));
    let err = stderr(&out);
    // A Rust panic says "panicked at"; tantivy's own message for a
    // killed writer says "…or panicked." and is not one.
    assert!(!err.contains("panicked at"), "{what} {spec}: {err}");
    let Some(name) = fired(&out) else {
        assert_eq!(out.status.code(), Some(0), "{what} unfaulted: {err}");
        return None;
    };
    match mode {
        Mode::Abort => {
            #[cfg(unix)]
            {
                use std::os::unix::process::ExitStatusExt;
                assert_eq!(out.status.signal(), Some(9), "{what} {spec}: {err}");
            }
        }
        Mode::Error => {
            let code = out.status.code();
            assert!(code.is_some() && code != Some(101), "{what} {spec}: {err}");
            if code != Some(0) {
                assert!(
                    err.contains("No space left on device"),
                    "{what} {spec}: the failure is said: {err}"
                );
            }
        }
    }
    check(&p, &out);
    Some(name)
}

/// Walks one scenario in both modes, printing what was covered.
fn walk_both(
    what: &str,
    setup: &dyn Fn() -> Project,
    args: &[&str],
    check: &dyn Fn(&Project, &Output),
    must_cover: &[&str],
) {
    let mut total = 0;
    for mode in [Mode::Abort, Mode::Error] {
        let (mut names, mut runs) = walk(what, mode, setup, args, check);
        // tantivy's writer threads cut a varying number of segment files,
        // so a walk may end before a late boundary: fault it by name.
        let missed: Vec<&str> = must_cover
            .iter()
            .copied()
            .filter(|n| !names.contains(*n))
            .collect();
        for name in missed {
            let spec = format!("{name}:1:{}", mode.as_str());
            let hit = fault_once(what, mode, setup, args, check, &spec);
            assert_eq!(hit.as_deref(), Some(name), "{what} {spec}");
            names.insert(name.to_string());
            runs += 1;
        }
        eprintln!(
            "failpoints: {what} ({}): {runs} boundaries, each faulted once: {}",
            mode.as_str(),
            names.iter().cloned().collect::<Vec<_>>().join(", ")
        );
        for name in must_cover {
            assert!(names.contains(*name), "{what}: {name} never hit: {names:?}");
        }
        total += runs;
    }
    eprintln!("failpoints: {what}: {total} faulted runs, each followed by a converging run");
}

fn raw_log(date: &str, topic: &str, lines: usize) -> String {
    let mut s = format!("# {date}\n\n## {topic} [project]\n");
    for i in 0..lines {
        s.push_str(&format!("- {topic} step {i}: changed the retry budget\n"));
    }
    s
}

/// Nine days over two weeks, compacted on the 12th: tentative nodes that
/// the run under test (a month later, with one log grown and one new)
/// replaces, fixes and builds on.
fn compaction_setup() -> Project {
    let p = Project::empty();
    for day in 2..=10 {
        let date = format!("2026-02-{day:02}");
        let filler = if day % 4 == 0 { 120 } else { 6 };
        p.write(
            &format!("memory/{date}.md"),
            raw_log(&date, &format!("Deploy {day}"), filler),
        );
    }
    let out = hipo(&p, &["compact", "--today", "2026-02-12"], None);
    assert!(out.status.success(), "{}", stderr(&out));
    // A node edited by hand, then rebuilt (its sources grew): kept as
    // `.prev`. Edited again, so the run under test rebuilds it once more,
    // moving that `.prev` aside (`.prev.1`) before writing the new one.
    p.append("memory/daily/2026-02-10.md", "\nA note added by hand.\n");
    p.append("memory/2026-02-10.md", "- early fix\n");
    let out = hipo(&p, &["compact", "--today", "2026-02-12"], None);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(p.exists("memory/daily/2026-02-10.md.prev"));
    p.append("memory/daily/2026-02-10.md", "\nAnother note by hand.\n");
    p.append(
        "memory/2026-02-10.md",
        "\n## Late fix [project]\n- rolled back\n",
    );
    p.write(
        "memory/2026-02-11.md",
        raw_log("2026-02-11", "Pager rota", 4),
    );
    p
}

const COMPACT: &[&str] = &["compact", "--today", "2026-03-20"];

#[test]
fn every_boundary_of_a_compaction_survives_a_kill_or_a_full_disk() {
    compaction();
}

#[test]
fn every_boundary_of_an_index_update_survives_a_kill_or_a_full_disk() {
    index_update();
}

#[test]
fn every_boundary_of_an_ingest_survives_a_kill_or_a_full_disk() {
    ingest();
}

fn compaction() {
    let template = compaction_setup();
    let setup = || clone_of(&template);
    let old = snapshot(&template);
    let clean = setup();
    let out = hipo(&clean, COMPACT, None);
    assert!(out.status.success(), "{}", stderr(&out));
    let new = snapshot(&clean);
    assert_ne!(old, new, "the run under test changes the tree");
    assert!(
        new.keys()
            .any(|p| p.to_string_lossy().ends_with(".md.prev")),
        "the hand-edited node is kept as .prev"
    );
    let check = |p: &Project, out: &Output| {
        let what = fired(out).unwrap_or_default();
        let now = snapshot(p);
        for (path, bytes) in &now {
            assert!(
                old.get(path) == Some(bytes) || new.get(path) == Some(bytes),
                "after {what}: {} is neither old nor new",
                path.display()
            );
        }
        for (path, bytes) in &old {
            if is_raw(path) {
                assert_eq!(now.get(path), Some(bytes), "raw log {}", path.display());
            }
        }
        let again = hipo(p, COMPACT, None);
        assert_eq!(
            again.status.code(),
            Some(0),
            "after {what}: {}",
            stderr(&again)
        );
        assert_eq!(snapshot(p), new, "after {what}: converges to a clean run");
        assert_eq!(temp_files(p.path()), Vec::<String>::new(), "after {what}");
        let search = hipo(p, &["--json", "search", "retry budget"], None);
        assert_eq!(search.status.code(), Some(0), "{}", stderr(&search));
    };
    walk_both(
        "compaction",
        &setup,
        COMPACT,
        &check,
        &["write_atomic", "rename", "store.commit"],
    );
}

fn is_raw(path: &std::path::Path) -> bool {
    let name = path.file_name().unwrap_or_default().to_string_lossy();
    path.parent().and_then(|d| d.file_name()) == Some("memory".as_ref())
        && name.len() == "2026-02-02.md".len()
        && name.as_bytes()[4] == b'-'
}

/// A compacted, indexed tree that then changes: a log grows, a knowledge
/// file arrives, another goes.
fn index_setup() -> Project {
    let p = compaction_setup();
    p.write(
        "knowledge/old-runbook.md",
        "# Runbook\n\n## Failover\nuse the walrus cluster\n",
    );
    let out = hipo(&p, COMPACT, None);
    assert!(out.status.success(), "{}", stderr(&out));
    let out = hipo(&p, &["index"], None);
    assert!(out.status.success(), "{}", stderr(&out));
    p.append(
        "memory/2026-02-11.md",
        "\n## Quokka migration [project]\n- moved the quokka shards\n",
    );
    p.write(
        "knowledge/new-runbook.md",
        "# Runbook\n\n## Failover\nuse the zebra cluster\n",
    );
    std::fs::remove_file(p.path().join("knowledge/old-runbook.md")).unwrap();
    p
}

/// The paths a search finds, in a set: scores may move with a rebuild.
fn found(p: &Project, query: &str) -> BTreeSet<String> {
    let out = hipo(p, &["--json", "search", query, "-n", "20"], None);
    assert_eq!(out.status.code(), Some(0), "{query}: {}", stderr(&out));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    v["hits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["path"].as_str().unwrap().to_string())
        .collect()
}

const QUERIES: [&str; 4] = ["quokka shards", "zebra", "walrus", "retry budget"];

fn index_update() {
    let template = index_setup();
    let setup = || clone_of(&template);
    let clean = setup();
    let markdown = snapshot(&clean);
    let out = hipo(&clean, &["index"], None);
    assert!(out.status.success(), "{}", stderr(&out));
    let expected: Vec<_> = QUERIES.iter().map(|q| found(&clean, q)).collect();
    assert!(expected[0].contains("memory/2026-02-11.md"), "{expected:?}");
    assert!(
        expected[2].is_empty(),
        "a deleted file is not found: {expected:?}"
    );
    let check = |p: &Project, out: &Output| {
        let what = fired(out).unwrap_or_default();
        assert_eq!(
            snapshot(p),
            markdown,
            "after {what}: indexing writes no Markdown"
        );
        let again = hipo(p, &["index"], None);
        assert_eq!(
            again.status.code(),
            Some(0),
            "after {what}: {}",
            stderr(&again)
        );
        let got: Vec<_> = QUERIES.iter().map(|q| found(p, q)).collect();
        assert_eq!(got, expected, "after {what}: converges to a clean index");
        let leftovers: Vec<_> = std::fs::read_dir(p.path().join(".hipo/index"))
            .unwrap()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.starts_with(".tmp"))
            .collect();
        assert!(
            leftovers.is_empty(),
            "after {what}: tantivy's temp files cleaned: {leftovers:?}"
        );
    };
    walk_both(
        "index update",
        &setup,
        &["index"],
        &check,
        &["index.commit", "index.write", "index.meta", "store.commit"],
    );
}

const TODAY: &str = "2027-01-21";

fn transcript(session: &str, said: &str) -> String {
    let line = |uuid: &str, kind: &str, content: &str| {
        format!(
            r#"{{"type":"{kind}","uuid":"{uuid}","sessionId":"{session}","timestamp":"2027-01-21T09:30:00Z","message":{{"role":"{kind}","content":{content}}}}}"#
        ) + "\n"
    };
    line("u1", "user", &format!("\"{said}\""))
        + &line(
            "a1",
            "assistant",
            r#"[{"type":"text","text":"Noted, I will remember it."}]"#,
        )
}

/// Today's log already holds a line; two sessions wait to be captured.
fn ingest_setup() -> Project {
    let p = Project::empty();
    p.write(
        &format!("memory/{TODAY}.md"),
        format!("# {TODAY}\n\nsomething noted by hand\n"),
    );
    p.write(
        "sess-a.jsonl",
        transcript("sess-a", "the canary goes out on Tuesday"),
    );
    p.write(
        "sess-b.jsonl",
        transcript("sess-b", "the freeze starts on Thursday"),
    );
    p
}

/// Relative to the project, where [`hipo`] runs.
const INGEST: &[&str] = &["ingest", "--today", TODAY, "sess-a.jsonl", "sess-b.jsonl"];

fn ingest() {
    let log = format!("memory/{TODAY}.md");
    let old = ingest_setup().read(&log);
    let clean = ingest_setup();
    let out = hipo(&clean, INGEST, None);
    assert!(out.status.success(), "{}", stderr(&out));
    let new = clean.read(&log);
    assert!(new.contains("canary") && new.contains("freeze"), "{new}");
    let check = |p: &Project, out: &Output| {
        let what = fired(out).unwrap_or_default();
        let now = p.read(&log);
        assert!(
            now.starts_with(&old),
            "after {what}: a raw-log byte was lost: {now}"
        );
        assert!(
            new.starts_with(&now),
            "after {what}: only whole entries, in order: {now}"
        );
        let again = hipo(p, INGEST, None);
        assert_eq!(
            again.status.code(),
            Some(0),
            "after {what}: {}",
            stderr(&again)
        );
        assert_eq!(p.read(&log), new, "after {what}: nothing lost or doubled");
    };
    walk_both("ingest", &ingest_setup, INGEST, &check, &["journal.append"]);
}
