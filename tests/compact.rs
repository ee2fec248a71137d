//! The compaction tree, driven through the real binary.

use crate::common;

use common::{Project, raw_log};

fn small_week(p: &Project) {
    // 2026-W11: Mon 2026-03-09 .. Sun 2026-03-15.
    p.write(
        "memory/2026-03-09.md",
        raw_log(
            "2026-03-09",
            &[("Deploy plan [project]", "- decisions: ship friday")],
            0,
        ),
    );
    p.write(
        "memory/2026-03-10.md",
        raw_log(
            "2026-03-10",
            &[("Terse answers [feedback]", "- rule: be brief")],
            0,
        ),
    );
}

#[test]
fn builds_daily_weekly_monthly_root() {
    let p = Project::empty();
    small_week(&p);
    let (code, out, err) = p.compact("2026-03-11");
    assert_eq!(code, 0, "{out}{err}");
    let daily = p.read("memory/daily/2026-03-09.md");
    assert!(
        daily.starts_with("---\ntype: daily\nstatus: fixed\nperiod: 2026-03-09\n"),
        "{daily}"
    );
    assert!(daily.contains("- deploy-plan [project]"));
    assert!(
        daily.ends_with(&p.read("memory/2026-03-09.md")),
        "daily below threshold is the raw log verbatim"
    );
    insta::assert_snapshot!(p.read("memory/weekly/2026-W11.md"), @"
    ---
    type: weekly
    status: tentative
    period: 2026-W11
    source-files:
    - memory/daily/2026-03-09.md
    - memory/daily/2026-03-10.md
    topics:
    - deploy-plan [project]
    - terse-answers [feedback]
    source-hash: d605bdb964e96a6b
    body-hash: 38a1d13ce3f27618
    ---
    # 2026-03-09

    ## Deploy plan [project]
    - decisions: ship friday

    # 2026-03-10

    ## Terse answers [feedback]
    - rule: be brief
    ");
    let monthly = p.read("memory/monthly/2026-03.md");
    assert!(monthly.contains("# 2026-W11"));
    let root = p.read("memory/ROOT.md");
    assert!(root.contains("- terse-answers [feedback, 1d]"), "{root}");
    assert!(root.contains("## Active Context"));
}

#[test]
fn no_op_rewrites_nothing() {
    let p = Project::empty();
    small_week(&p);
    p.compact("2026-03-11");
    let before = p.snapshot();
    let mtimes = || -> Vec<_> {
        let modified = |f: &std::path::PathBuf| {
            std::fs::metadata(p.path().join(f))
                .unwrap()
                .modified()
                .unwrap()
        };
        before.iter().map(|(f, _)| modified(f)).collect()
    };
    let first = mtimes();
    let (code, out, _) = p.compact("2026-03-11");
    assert_eq!(code, 0);
    assert!(out.starts_with("tree is up to date"), "{out}");
    assert_eq!(first, mtimes());
}

#[test]
fn late_append_rebuilds_fixed_node_and_ancestors() {
    let p = Project::empty();
    small_week(&p);
    p.compact("2026-03-25");
    assert!(
        p.read("memory/weekly/2026-W11.md")
            .contains("status: fixed")
    );
    p.append(
        "memory/2026-03-09.md",
        "\n## Late note [user]\n- prefers tabs\n",
    );
    let (code, out, _) = p
        .hipo()
        .args(["compact", "--today", "2026-03-25", "--json"])
        .output()
        .map(|o| {
            (
                o.status.code().unwrap(),
                String::from_utf8(o.stdout).unwrap(),
                (),
            )
        })
        .unwrap();
    assert_eq!(code, 0);
    let report: serde_json::Value = serde_json::from_str(&out).unwrap();
    let written: Vec<&str> = report["actions"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|a| a["written"] == true)
        .map(|a| a["path"].as_str().unwrap())
        .collect();
    assert_eq!(
        written,
        [
            "memory/daily/2026-03-09.md",
            "memory/weekly/2026-W11.md",
            "memory/monthly/2026-03.md",
            "memory/ROOT.md"
        ]
    );
    assert!(report["actions"][0]["reason"] == "source-changed");
    assert!(p.read("memory/weekly/2026-W11.md").contains("prefers tabs"));
    assert!(p.read("memory/ROOT.md").contains("late-note [user"));
}

#[test]
fn deleting_the_store_gives_identical_markdown() {
    let p = Project::empty();
    small_week(&p);
    p.write(
        "memory/2026-03-31.md",
        raw_log("2026-03-31", &[("Quarter end [project]", "- x")], 0),
    );
    p.write(
        "memory/2026-04-02.md",
        raw_log("2026-04-02", &[("Kickoff [project]", "- y")], 250),
    );
    p.compact("2026-04-03");
    let before = p.snapshot();
    std::fs::remove_dir_all(p.path().join(".hipo")).unwrap();
    let (code, out, err) = p.compact("2026-04-03");
    assert_eq!(code, 0, "{out}{err}");
    assert_eq!(before, p.snapshot());
    let (code, _, _) = p
        .hipo()
        .args(["rebuild", "--today", "2026-04-03"])
        .output()
        .map(|o| (o.status.code().unwrap(), (), ()))
        .unwrap();
    assert_eq!(code, 0);
    assert_eq!(before, p.snapshot());
}

#[test]
fn week_spanning_two_months_feeds_both() {
    let p = Project::empty();
    // 2026-W14: Mon 2026-03-30 .. Sun 2026-04-05.
    p.write(
        "memory/2026-03-31.md",
        raw_log(
            "2026-03-31",
            &[("Quarter end [project]", "- closed books")],
            0,
        ),
    );
    p.write(
        "memory/2026-04-01.md",
        raw_log("2026-04-01", &[("New quarter [project]", "- planning")], 0),
    );
    p.compact("2026-04-02");
    for m in ["memory/monthly/2026-03.md", "memory/monthly/2026-04.md"] {
        let text = p.read(m);
        assert!(text.contains("memory/weekly/2026-W14.md"), "{m}: {text}");
        assert!(
            text.contains("closed books") && text.contains("planning"),
            "{m}"
        );
    }
}

#[test]
fn above_threshold_needs_summary_then_adopts_agent_text() {
    let p = Project::empty();
    p.write(
        "memory/2026-03-09.md",
        raw_log("2026-03-09", &[("Long debug [project]", "- x")], 250),
    );
    p.write(
        "memory/2026-03-10.md",
        raw_log("2026-03-10", &[("Short [project]", "- y")], 0),
    );
    p.compact("2026-03-11");
    let daily = p.read("memory/daily/2026-03-09.md");
    assert!(daily.contains("status: needs-summarization"), "{daily}");
    assert!(
        daily.contains("- memory/2026-03-09.md (255 lines)"),
        "{daily}"
    );
    let weekly = p.read("memory/weekly/2026-W11.md");
    assert!(
        weekly.contains("pending:\n- memory/daily/2026-03-09.md"),
        "{weekly}"
    );
    let status = p
        .hipo()
        .args(["status", "--today", "2026-03-11"])
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&status.stdout).contains("memory/daily/2026-03-09.md ("));

    // The agent fills the node in.
    let filled = "---\ntype: daily\nstatus: tentative\nperiod: 2026-03-09\ntopics:\n- long-debug [project]\n---\n## Topics\n- long-debug: flaky CI fixed by pinning the runner\n";
    p.write("memory/daily/2026-03-09.md", filled);
    let (code, out, _) = p.compact("2026-03-11");
    assert_eq!(code, 0);
    assert!(out.contains("adopted edit"), "{out}");
    let daily = p.read("memory/daily/2026-03-09.md");
    assert!(
        daily.contains("status: fixed") && daily.contains("flaky CI fixed"),
        "status moved on, text kept: {daily}"
    );
    let weekly = p.read("memory/weekly/2026-W11.md");
    assert!(
        weekly.contains("flaky CI fixed") && !weekly.contains("pending:"),
        "{weekly}"
    );

    // Compacting again leaves the adopted node alone.
    p.compact("2026-03-11");
    assert!(
        p.read("memory/daily/2026-03-09.md")
            .contains("flaky CI fixed")
    );

    // Its source changes: a fresh node, and the agent's text is kept aside.
    p.append("memory/2026-03-09.md", "\n## One more [project]\n- z\n");
    let (code, _, err) = p.compact("2026-03-11");
    assert_eq!(code, 0);
    assert!(
        err.contains("old text kept in memory/daily/2026-03-09.md.prev"),
        "{err}"
    );
    assert!(
        p.read("memory/daily/2026-03-09.md.prev")
            .contains("flaky CI fixed")
    );
    assert!(
        p.read("memory/daily/2026-03-09.md")
            .contains("status: needs-summarization")
    );
}

#[test]
fn hipocampus_tree_is_adopted_unchanged() {
    // A node written by hipocampus (invalid-YAML flow topics) and no store.
    let p = Project::empty();
    p.write(
        "memory/2026-03-09.md",
        raw_log("2026-03-09", &[("Big [project]", "- x")], 250),
    );
    let summary = "---\ntype: daily\nstatus: fixed\nperiod: 2026-03-09\nsource-files: [memory/2026-03-09.md]\ntopics: [big [project], tone [feedback]]\n---\n## Topics\n- big: done\n";
    p.write("memory/daily/2026-03-09.md", summary);
    p.write(
        "hipocampus.config.json",
        r#"{"compaction": {"cooldownHours": 3}, "search": {"vector": false}}"#,
    );
    let (code, out, err) = p.compact("2026-03-20");
    assert_eq!(code, 0, "{out}{err}");
    assert_eq!(p.read("memory/daily/2026-03-09.md"), summary);
    assert!(p.read("memory/ROOT.md").contains("tone [feedback"));
}

#[test]
fn status_moves_to_fixed_with_time() {
    let p = Project::empty();
    small_week(&p);
    let status = |rel: &str| {
        p.read(rel)
            .lines()
            .find_map(|l| l.strip_prefix("status: ").map(str::to_string))
            .unwrap()
    };
    let (day, week, month) = (
        "memory/daily/2026-03-10.md",
        "memory/weekly/2026-W11.md",
        "memory/monthly/2026-03.md",
    );
    p.compact("2026-03-10");
    assert_eq!(status(day), "tentative");
    p.compact("2026-03-11");
    assert_eq!([status(day), status(week)], ["fixed", "tentative"]);
    p.compact("2026-03-23");
    assert_eq!([status(week), status(month)], ["fixed", "tentative"]);
    p.compact("2026-04-08");
    assert_eq!(
        [status(month), status("memory/ROOT.md")],
        ["fixed", "tentative"]
    );
}

#[test]
fn dry_run_writes_nothing() {
    let p = Project::empty();
    small_week(&p);
    let out = p
        .hipo()
        .args(["compact", "--dry-run", "--today", "2026-03-11"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    insta::assert_snapshot!(String::from_utf8_lossy(&out.stdout), @"
    would write 5 node(s) (today 2026-03-11):
      new              memory/daily/2026-03-09.md                   fixed
      new              memory/daily/2026-03-10.md                   fixed
      new              memory/weekly/2026-W11.md                    tentative
      new              memory/monthly/2026-03.md                    tentative
      new              memory/ROOT.md                               tentative
    tree:
      daily       2  (fixed 2, tentative 0, needs-summarization 0)
      weekly      1  (fixed 0, tentative 1, needs-summarization 0)
      monthly     1  (fixed 0, tentative 1, needs-summarization 0)
      root        1  (fixed 0, tentative 1, needs-summarization 0)
    ");
    assert!(!p.exists("memory/daily"));
    assert!(!p.exists(".hipo/store.redb") || !p.exists("memory/ROOT.md"));
}

#[test]
fn bad_input_is_reported_and_the_rest_compacted() {
    let p = Project::empty();
    small_week(&p);
    p.write("memory/2026-02-30.md", "# not a date\n");
    p.write("memory/2026-03-11.md", b"## ok\n\xff\xfe broken\n");
    p.write(
        "memory/daily/2026-03-12.md",
        "---\ntype: daily\nstatus: [oops\n---\n## x\n",
    );
    let (code, out, err) = p.compact("2026-03-13");
    assert_eq!(code, 1, "{out}{err}");
    assert!(
        err.contains(
            "memory/2026-02-30.md: `2026-02-30` is named like a date but is not a real date"
        ),
        "{err}"
    );
    assert!(
        err.contains("memory/2026-03-11.md:2: is not valid UTF-8"),
        "{err}"
    );
    assert!(
        err.contains("memory/daily/2026-03-12.md:3: malformed YAML frontmatter"),
        "{err}"
    );
    assert!(p.read("memory/weekly/2026-W11.md").contains("Deploy plan"));
    assert_eq!(
        std::fs::read(p.path().join("memory/2026-03-11.md")).unwrap(),
        b"## ok\n\xff\xfe broken\n",
        "raw untouched"
    );
}

#[test]
fn missing_dir_and_empty_memory() {
    let out = assert_cmd::Command::cargo_bin("hipo")
        .unwrap()
        .args(["--dir", "/nonexistent/hipo-x", "compact"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("/nonexistent/hipo-x does not exist"));
    let p = Project::empty();
    let (code, _, err) = p.compact("2026-03-11");
    assert_eq!(code, 0);
    assert!(err.contains("no raw logs"), "{err}");
}

#[test]
fn busy_lock_exits_3_and_parallel_runs_agree() {
    let p = Project::empty();
    small_week(&p);
    std::fs::create_dir_all(p.path().join(".hipo")).unwrap();
    let lock = std::fs::File::create(p.path().join(".hipo/lock")).unwrap();
    lock.lock().unwrap();
    let out = p
        .hipo()
        .env("HIPO_LOCK_WAIT", "0.2")
        .args(["compact", "--today", "2026-03-11"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3));
    assert!(String::from_utf8_lossy(&out.stderr).contains("another hipo process"));
    drop(lock);

    let runs: Vec<_> = (0..4)
        .map(|_| {
            std::process::Command::new(assert_cmd::cargo::cargo_bin("hipo"))
                .arg("--dir")
                .arg(p.path())
                .args(["compact", "--today", "2026-03-11"])
                .stdout(std::process::Stdio::null())
                .spawn()
                .unwrap()
        })
        .collect();
    for mut r in runs {
        assert!(r.wait().unwrap().success());
    }
    let after_parallel = p.snapshot();
    std::fs::remove_dir_all(p.path().join(".hipo")).unwrap();
    p.compact("2026-03-11");
    assert_eq!(after_parallel, p.snapshot());
}

#[test]
fn init_is_idempotent() {
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("proj");
    let run = || {
        assert_cmd::Command::cargo_bin("hipo")
            .unwrap()
            .arg("--dir")
            .arg(&target)
            .arg("init")
            .output()
            .unwrap()
    };
    let first = run();
    assert_eq!(first.status.code(), Some(0));
    for d in [
        "memory/daily",
        "memory/weekly",
        "memory/monthly",
        "knowledge",
        "plans",
    ] {
        assert!(target.join(d).is_dir(), "{d}");
    }
    let root = std::fs::read_to_string(target.join("memory/ROOT.md")).unwrap();
    for s in [
        "## Active Context",
        "## Recent Patterns",
        "## Historical Summary",
        "## Topics Index",
    ] {
        assert!(root.contains(s));
    }
    std::fs::write(target.join("hipocampus.config.json"), "{}").unwrap();
    let second = run();
    assert!(String::from_utf8_lossy(&second.stdout).contains("nothing changed"));
    assert_eq!(
        std::fs::read_to_string(target.join("hipocampus.config.json")).unwrap(),
        "{}"
    );
}

/// `hipo status | true` used to panic ("failed printing to stdout: Broken
/// pipe") and exit 101.
#[cfg(unix)]
#[test]
fn closed_stdout_ends_quietly_without_a_panic() {
    use std::os::unix::process::ExitStatusExt;
    let p = Project::empty();
    small_week(&p);
    p.compact("2026-03-11");
    for args in [&["status"][..], &["compact", "--json"], &["rebuild"]] {
        let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("hipo"))
            .arg("--dir")
            .arg(p.path())
            .args(["--today", "2026-03-11"])
            .args(args)
            .env("NO_COLOR", "1")
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        // The reader goes away before hipo prints anything.
        drop(child.stdout.take());
        let out = child.wait_with_output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!err.contains("panicked"), "{args:?}: {err}");
        assert!(
            out.status.success() || out.status.signal() == Some(libc::SIGPIPE),
            "{args:?}: {:?} {err}",
            out.status
        );
    }
}

/// A malformed state file used to be overwritten with defaults by
/// `compact` (losing other tools' keys) and to abort `status`.
#[test]
fn malformed_state_file_is_reported_and_left_alone() {
    let p = Project::empty();
    small_week(&p);
    let bad = "{\"lastCompactionRun\": \"x\", \"theirKey\": 1,,}\n";
    p.write("memory/.compaction-state.json", bad);
    let (code, out, err) = p.compact("2026-03-11");
    assert_eq!(code, 1, "{out}{err}");
    assert!(p.exists("memory/weekly/2026-W11.md"), "compaction ran");
    assert_eq!(p.read("memory/.compaction-state.json"), bad);
    let warning: Vec<&str> = err
        .lines()
        .filter(|l| l.contains(".compaction-state.json"))
        .collect();
    assert_eq!(warning.len(), 1, "{err}");
    assert!(
        warning[0].starts_with("hipo: skipped memory/.compaction-state.json: line 1:"),
        "{err}"
    );
    assert!(warning[0].ends_with("fix or delete the file"), "{err}");
}

/// `hipo status` with a malformed state file lists it as a problem and
/// prints everything else (it used to abort with exit 2).
#[test]
fn status_lists_a_malformed_state_file_as_a_problem() {
    let p = Project::empty();
    small_week(&p);
    p.compact("2026-03-11");
    p.write("memory/.compaction-state.json", "{,}\n");
    let out = p
        .hipo()
        .args(["status", "--today", "2026-03-11"])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    insta::assert_snapshot!(common::text::masked(&p, &stdout), @"
    project [PROJECT] (today 2026-03-11)
    tree:
      daily       2  (fixed 2, tentative 0, needs-summarization 0)
      weekly      1  (fixed 0, tentative 1, needs-summarization 0)
      monthly     1  (fixed 0, tentative 1, needs-summarization 0)
      root        1  (fixed 0, tentative 1, needs-summarization 0)
    changes: tree is up to date
    compaction due: yes (never compacted); last run never, 0 raw lines and 0 checkpoints since
    store: [PROJECT]/.hipo/store.redb ([SIZE], schema 3, 7 files, 5 nodes)
    problems: 1
      memory/.compaction-state.json: line 1: key must be a string at line 1 column 2; fix or delete the file
    ");
    assert_eq!(p.read("memory/.compaction-state.json"), "{,}\n");
}

/// `hipo --dir EMPTY compact` used to turn any directory into a project.
#[test]
fn a_dir_that_is_not_a_project_is_refused_except_by_init() {
    let dir = tempfile::tempdir().unwrap();
    let shown = dir.path().display().to_string();
    let hipo = || {
        let mut cmd = assert_cmd::Command::cargo_bin("hipo").unwrap();
        cmd.env_remove("HIPO_DIR").env_remove("HIPO_TODAY");
        cmd
    };
    for cmd in [
        hipo().arg("--dir").arg(dir.path()).arg("compact").output(),
        hipo().env("HIPO_DIR", dir.path()).arg("status").output(),
        hipo().arg("--dir").arg(dir.path()).arg("rebuild").output(),
    ] {
        let out = cmd.unwrap();
        assert_eq!(out.status.code(), Some(2));
        assert_eq!(
            String::from_utf8_lossy(&out.stderr),
            format!(
                "hipo: {shown} is not a hipo project (no hipocampus.config.json or memory/); run `hipo init --dir {shown}`\n"
            )
        );
    }
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    let init = hipo().arg("--dir").arg(dir.path()).arg("init").output();
    assert_eq!(init.unwrap().status.code(), Some(0));
    let compact = hipo().arg("--dir").arg(dir.path()).arg("compact").output();
    assert_eq!(compact.unwrap().status.code(), Some(0));
}
