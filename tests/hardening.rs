//! Defects found by a black-box run of the binary (kills, held locks,
//! hostile configs and inputs), each pinned by a test named for it.

use crate::common;

use common::Project;
use serde_json::Value;
use std::collections::HashSet;
use std::path::Path;

use common::SAMPLE_TODAY as TODAY;

fn names(dir: &Path) -> HashSet<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect()
}

#[test]
fn a_killed_index_update_leaves_no_stuck_index() {
    let p = Project::compacted_sample();
    p.json(["index"]);
    let hipo = p.path().join(".hipo");
    let saved = p.path().join("saved-cache");
    common::copy_dir(&hipo, &saved);
    // An update that deletes from an existing segment writes
    // `<segment>.<opstamp>.del` before meta.json: run it once to learn the
    // names, then put the cache back as a kill after those writes leaves it.
    std::fs::remove_file(p.path().join("memory/2027-01-20.md")).unwrap();
    p.json(["index"]);
    let index = hipo.join("index");
    let before = names(&saved.join("index"));
    let dels: Vec<String> = names(&index)
        .into_iter()
        .filter(|n| n.ends_with(".del") && !before.contains(n))
        .collect();
    assert!(!dels.is_empty(), "the update wrote no delete file");
    let left: Vec<(String, Vec<u8>)> = dels
        .iter()
        .map(|n| (n.clone(), std::fs::read(index.join(n)).unwrap()))
        .collect();
    std::fs::remove_dir_all(&hipo).unwrap();
    common::copy_dir(&saved, &hipo);
    for (n, bytes) in &left {
        std::fs::write(index.join(n), bytes).unwrap();
    }
    std::fs::write(index.join(".tmpAbC123"), b"half a meta.json").unwrap();

    let (code, out, err) = p.run(["--today", TODAY, "status"]);
    assert_eq!(code, 1, "status names the interrupted update: {out}{err}");
    assert!(out.contains(".hipo/index"), "{out}");

    let out = p.hipo().args(["--json", "index"]).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert_eq!(
        err.lines().filter(|l| l.contains("search index")).count(),
        1,
        "one line of warning: {err}"
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["files_removed"], 1, "{v}");
    assert!(!index.join(".tmpAbC123").exists());
    let (code, out, err) = p.run(["search", "zeppelin"]);
    assert_eq!(code, 0, "{out}{err}");
    let (code, out, err) = p.run(["--today", TODAY, "status"]);
    assert_eq!(code, 0, "{out}{err}");
}

#[test]
fn extra_globs_outside_the_project_are_refused() {
    let p = Project::compacted_sample();
    for glob in ["/etc/*", "../*", "docs/../../*"] {
        p.write(
            "hipocampus.config.json",
            serde_json::json!({"search": {"extraGlobs": ["docs/**/*.md", glob]}}).to_string(),
        );
        let (code, out, err) = p.run(["search", "nologin"]);
        assert_eq!(code, 2, "{glob}: {out}{err}");
        assert!(
            !out.contains("/etc/passwd") && !out.contains("nologin"),
            "{out}"
        );
        assert!(err.contains("hipocampus.config.json"), "{err}");
        assert!(err.contains(&format!("`{glob}`")), "{err}");
        assert!(err.contains("project-relative"), "{err}");
        assert_eq!(err.lines().count(), 1, "{err}");
    }
}

#[test]
fn secrets_in_published_formats_never_show() {
    let p = Project::empty();
    let secrets = [
        "glpat-Xk3vQ9pLm2Rt7Yw1Zb4N",
        "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",
        "dckr_pat_Ab3De5Gh7Jk9Lm1Np3Qr5St7Vw",
        "AccountKey=Zm9vYmFyYmF6cXV4cXV1eGZvb2Jhcg0123456789abcd==",
    ];
    let mut log = String::from("# 2027-01-20\n\n## Rotation day [project]\n");
    for s in secrets {
        log.push_str(&format!("- the old credential was {s} until today\n"));
    }
    log.push_str("- ran curl -u deploy:Pa55word!x https://ci.example.com\n");
    log.push_str("- notes in docs/sk-learn-pipeline-notes.md about Token::Ident(s)\n");
    p.write("memory/2027-01-20.md", &log);
    let (code, out, err) = p.compact(TODAY);
    assert_eq!(code, 0, "{out}{err}");
    let daily = p.read("memory/daily/2027-01-20.md");
    let (_, got, _) = p.run(["get", "memory/2027-01-20.md"]);
    let (_, found, _) = p.run(["search", "--full", "credential rotation"]);
    for shown in [&daily, &got, &found] {
        for s in secrets {
            let tail = s.split_once(['=', '-', '.', '_']).unwrap().1;
            assert!(!shown.contains(tail), "{s} shown:\n{shown}");
        }
        assert!(!shown.contains("Pa55word"), "{shown}");
        assert!(shown.contains("docs/sk-learn-pipeline-notes.md"), "{shown}");
        assert!(shown.contains("Token::Ident(s)"), "{shown}");
    }
}

#[test]
fn root_md_holds_its_cap_after_a_day_of_ten_thousand_entries() {
    let p = Project::empty();
    let kinds = ["user", "feedback", "project", "reference"];
    let mut log = String::from("# 2027-01-20\n\n");
    for i in 0..10_000 {
        log.push_str(&format!(
            "## topic number {i} [{}]\n- detail {i}\n\n",
            kinds[i % 4]
        ));
    }
    p.write("memory/2027-01-20.md", &log);
    let (code, out, err) = p.compact(TODAY);
    assert!(code == 0 || code == 1, "{out}{err}");
    let root = p.read("memory/ROOT.md");
    assert!(
        hipo_core::estimate_tokens(&root) <= 3000,
        "{} tokens, {} bytes",
        hipo_core::estimate_tokens(&root),
        root.len()
    );
    assert!(root.contains("## Active Context"), "{root}");
    assert!(
        root.contains("trimmed to stay under rootMaxTokens"),
        "{root}"
    );
}

#[test]
fn a_search_under_a_held_lock_never_fails_whatever_the_lock_wait() {
    let p = Project::compacted_sample();
    p.json(["index"]);
    let project = hipo_core::Hipo::open(p.path()).unwrap();
    let _held = project.lock(std::time::Duration::ZERO).unwrap();
    // A change the holder's lock keeps a search from indexing (with none,
    // a read-only look answers current: `fresh` true).
    p.append(
        "memory/2027-01-20.md",
        "\n## Walrus drill [project]\n- walrus\n",
    );
    for wait in ["0", "0.2", "1", "1.4"] {
        let start = std::time::Instant::now();
        let out = p
            .hipo()
            .env("HIPO_LOCK_WAIT", wait)
            .args(["--json", "search", "postgres"])
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "HIPO_LOCK_WAIT={wait}: {err}");
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(v["fresh"], false);
        assert!(!v["hits"].as_array().unwrap().is_empty());
        assert!(err.contains("another hipo process"), "{err}");
        // Not a timing test (those are benches): a search that waited for
        // the writer to let go would hang here for good.
        let limit: f64 = wait.parse().unwrap();
        assert!(
            start.elapsed().as_secs_f64() < limit + 30.0,
            "waited for the writer"
        );
    }
    // With no index at all there is nothing to answer from: it waits the
    // lock wait, then says so (exit 3).
    std::fs::remove_dir_all(p.path().join(".hipo/index")).unwrap();
    let out = p
        .hipo()
        .env("HIPO_LOCK_WAIT", "0.2")
        .args(["search", "postgres"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3), "{out:?}");
    assert!(String::from_utf8_lossy(&out.stderr).contains("another hipo process"));
}

#[test]
fn last_compaction_run_follows_today() {
    let p = Project::compacted_sample();
    let state: Value = serde_json::from_str(&p.read("memory/.compaction-state.json")).unwrap();
    let run = state["lastCompactionRun"].as_str().unwrap();
    assert!(run.starts_with("2027-01-2"), "{run}");
    let run = chrono::DateTime::parse_from_rfc3339(run).unwrap();
    let told = chrono::NaiveDate::parse_from_str(TODAY, "%Y-%m-%d").unwrap();
    // The date it was told, give or take the time zone.
    assert!((run.date_naive() - told).num_days().abs() <= 1, "{run}");
    // And status, told the same date, sees the cooldown as not yet passed.
    let v = p.json(["--today", TODAY, "status"]);
    assert_eq!(v["triggers"]["cooldown_elapsed"], false, "{v}");
}

#[test]
fn odd_configs_lock_waits_and_dated_directories_warn() {
    let p = Project::compacted_sample();
    p.write("hipocampus.config.json", "[]");
    let (code, _, err) = p.run(["search", "postgres"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("hipocampus.config.json: is not a JSON object"),
        "{err}"
    );
    p.write(
        "hipocampus.config.json",
        r#"{"compaction": {"dailyTreshold": 5}}"#,
    );
    let (_, _, err) = p.run(["search", "postgres"]);
    assert!(
        err.contains("did you mean `compaction.dailyThreshold`?"),
        "{err}"
    );
    p.write("hipocampus.config.json", "{}");

    let out = p
        .hipo()
        .env("HIPO_LOCK_WAIT", "abc")
        .args(["search", "postgres"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert_eq!(
        err.matches("HIPO_LOCK_WAIT=\"abc\" is not a number")
            .count(),
        1,
        "{err}"
    );

    p.write("memory/2026-01-02.md/notes.md", "# notes\n");
    let (code, out, err) = p.compact(TODAY);
    assert_eq!(code, 1, "{out}{err}");
    assert!(
        format!("{out}{err}").contains("memory/2026-01-02.md: is a directory"),
        "{out}{err}"
    );
}

#[test]
fn equal_scores_are_ordered_by_path_and_line_whatever_the_build() {
    let p = Project::empty();
    let words = [
        "amber", "birch", "cedar", "delta", "ember", "fjord", "grove", "heron", "iris", "jade",
        "kelp", "lotus",
    ];
    for w in words {
        p.write(
            &format!("knowledge/{w}.md"),
            format!("# {w}\n\n## Entry\n- zebra {w}\n"),
        );
    }
    let order = |p: &Project| -> Vec<String> {
        p.json(["search", "zebra", "-n", "5"])["hits"]
            .as_array()
            .unwrap()
            .iter()
            .map(|h| format!("{}:{}", h["path"].as_str().unwrap(), h["line"]))
            .collect()
    };
    let first = order(&p);
    assert_eq!(
        first,
        words[..5]
            .iter()
            .map(|w| format!("knowledge/{w}.md:4"))
            .collect::<Vec<_>>()
    );
    // Re-indexing a file puts its windows in a new segment.
    for w in &words[..3] {
        p.append(&format!("knowledge/{w}.md"), "\n## Other\n- unrelated\n");
        assert_eq!(order(&p), first, "after re-indexing {w}");
    }
    // Over 4 MB the build runs several indexing threads, which share the
    // documents out as they come: ties land in other segments each time.
    let filler = [
        "alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf",
    ];
    for f in 0..6 {
        let mut text = String::new();
        for s in 0..3000 {
            let line: Vec<&str> = (0..40).map(|i| filler[(s * 7 + i * 3 + f) % 7]).collect();
            text.push_str(&format!("## Section {s}\n{}\n\n", line.join(" ")));
        }
        p.write(&format!("knowledge/filler{f}.md"), text);
    }
    for _ in 0..3 {
        std::fs::remove_dir_all(p.path().join(".hipo")).unwrap();
        assert_eq!(order(&p), first);
    }
}

#[test]
fn empty_filters_and_nan_scores_are_usage_errors() {
    let p = Project::compacted_sample();
    for args in [
        vec!["search", "postgres", "type:"],
        vec!["search", "--type", "", "postgres"],
        vec!["search", "--min-score", "NaN", "postgres"],
        vec!["search", "--min-score", "inf", "postgres"],
    ] {
        let (code, out, err) = p.run(&args);
        assert_eq!(code, 2, "{args:?}: {out}{err}");
        assert!(out.is_empty(), "{out}");
        assert!(
            err.contains("needs a value") || err.contains("is not a score"),
            "{args:?}: {err}"
        );
    }
}

#[test]
fn a_deleted_store_is_not_called_an_unknown_version() {
    let p = Project::compacted_sample();
    p.json(["index"]);
    std::fs::remove_file(p.path().join(".hipo/store.redb")).unwrap();
    let (code, _, err) = p.run(["search", "postgres"]);
    assert_eq!(code, 0, "{err}");
    assert!(!err.contains("unknown version"), "{err}");
    assert!(err.contains("the store had no record of it"), "{err}");
}

#[test]
fn get_says_which_number_is_wrong_not_no_such_file() {
    let p = Project::compacted_sample();
    for (target, says) in [
        ("memory/2027-01-20.md:5:x", "`x` is not a count of lines"),
        (
            "memory/2027-01-20.md:5:99999999999999999999",
            "is not a count of lines",
        ),
        ("memory/2027-01-20.md:five", "`five` is not a line number"),
        ("memory/2027-01-20.md:x:3", "`x` is not a line number"),
    ] {
        let (code, _, err) = p.run(["get", target]);
        assert_eq!(code, 2, "{target}: {err}");
        assert!(err.contains(says), "{target}: {err}");
        assert!(!err.contains("no such file"), "{target}: {err}");
    }
    let (code, _, err) = p.run(["get", "memory/nope.md:5"]);
    assert_eq!(code, 2);
    assert!(err.contains("no such file"), "{err}");
}

#[test]
fn an_index_that_cannot_be_committed_to_is_rebuilt_with_a_warning() {
    let p = Project::compacted_sample();
    p.json(["index"]);
    let hipo = p.path().join(".hipo");
    let saved = p.path().join("saved-cache");
    common::copy_dir(&hipo, &saved);
    std::fs::remove_file(p.path().join("memory/2027-01-20.md")).unwrap();
    p.json(["index"]);
    let index = hipo.join("index");
    let before = names(&saved.join("index"));
    let dels: Vec<String> = names(&index)
        .into_iter()
        .filter(|n| n.ends_with(".del") && !before.contains(n))
        .collect();
    assert!(!dels.is_empty());
    std::fs::remove_dir_all(&hipo).unwrap();
    common::copy_dir(&saved, &hipo);
    // Something in the way that is not a file hipo may delete.
    for n in &dels {
        std::fs::create_dir(index.join(n)).unwrap();
    }
    let out = p.hipo().args(["search", "zeppelin"]).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(
        err.contains("hipo: rebuilt the search index: it could not be updated"),
        "{err}"
    );
    assert_eq!(err.lines().count(), 1, "{err}");
    let (code, out, err) = p.run(["search", "zeppelin"]);
    assert_eq!((code, err.as_str()), (0, ""), "{out}");
}
