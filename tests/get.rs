//! `hipo get`, `files` and `eval`, through the real binary on temp copies
//! of the sample memory.

use crate::common;

use common::Project;

#[test]
fn get_prints_numbered_lines_and_resolves_hit_ids() {
    let p = Project::compacted_sample();
    let out = p
        .hipo()
        .args(["get", "memory/2026-12-14.md:3:2"])
        .output()
        .unwrap();
    insta::assert_snapshot!(String::from_utf8_lossy(&out.stdout), @"
    3  ## Postgres 16 migration kickoff [project]
    4  - request: plan the move of the orders service from Postgres 13 to 16
    ");
    let h = &p.hits(&["cutover rehearsal"])[0];
    let id = h["id"].as_str().unwrap();
    let out = p.hipo().args(["get", id]).output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    let first = h["lines"][0].as_u64().unwrap();
    assert!(
        text.starts_with(&format!("{first}  ## Cutover rehearsal")),
        "{text}"
    );
}

#[test]
fn files_lists_unique_paths() {
    let p = Project::compacted_sample();
    let out = p
        .hipo()
        .args(["search", "postgres", "--files", "-n", "20"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    let lines: Vec<&str> = text.lines().collect();
    let mut unique = lines.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(lines.len(), unique.len());
    assert!(lines.iter().all(|l| l.ends_with(".md")), "{text}");
}

#[test]
fn eval_scores_a_fixture() {
    let p = Project::compacted_sample();
    p.write(
        "eval.jsonl",
        concat!(
            r#"{"query": "when did we switch writes to the new database?", "expected": ["memory/2027-01-08.md:3"], "group": "fact"}"#,
            "\n",
            r#"{"query": "배포 일정", "expected": ["배포 일정 회의"], "group": "fact"}"#,
            "\n",
            r#"{"query": "zzzz nothing matches", "expected": ["memory/2026-12-14.md"]}"#,
            "\n"
        ),
    );
    let v = p.json([
        std::ffi::OsStr::new("eval"),
        p.path().join("eval.jsonl").as_os_str(),
    ]);
    assert_eq!(v["overall"]["cases"], 3);
    let r10 = v["overall"]["recall"]["10"].as_f64().unwrap();
    assert!((r10 - 2.0 / 3.0).abs() < 1e-9, "{v}");
    assert_eq!(v["groups"]["fact"]["cases"], 2);
    // The report saved is a baseline: the change per group and k.
    p.write("base.json", v.to_string());
    let fixture = p.path().join("eval.jsonl");
    let base = p.path().join("base.json");
    let args = [
        std::ffi::OsStr::new("eval"),
        fixture.as_os_str(),
        std::ffi::OsStr::new("--baseline"),
        base.as_os_str(),
    ];
    let v = p.json(args);
    assert_eq!(v["change"]["all"]["recall"]["10"][0].as_f64(), Some(r10));
    assert_eq!(v["change"]["fact"]["recall"]["10"][1].as_f64(), Some(1.0));
    let out = p.hipo().args(args).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("0.667 (+0.000)"), "{text}");
    p.write("bad.jsonl", "{\"query\": \"x\", \"expected\": []}\n");
    let out = p
        .hipo()
        .arg("eval")
        .arg(p.path().join("bad.jsonl"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("bad.jsonl:1"));
}

#[test]
fn a_stale_hit_id_says_search_again() {
    let p = Project::compacted_sample();
    let id = p.hits(&["cutover rehearsal"])[0]["id"]
        .as_str()
        .unwrap()
        .to_string();
    let path = "memory/2027-01-05.md";
    let text = p.read(path);
    p.write(
        path,
        format!("# 2027-01-05\n\nA new first paragraph.\n\n{text}"),
    );
    let (code, _, err) = p.run(["get", &id]);
    assert_eq!(code, 2);
    assert!(err.contains("search again"), "{err}");
}

#[test]
fn odd_counts_and_line_numbers_are_refused_clearly() {
    let p = Project::compacted_sample();
    let (code, _, err) = p.run(["search", "postgres", "-n", "0"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("1 or more"), "{err}");
    assert!(!p.hits(&["postgres", "-n", "1000000000"]).is_empty());
    let (code, _, err) = p.run(["get", "memory/2027-01-12.md:abc"]);
    assert_eq!(code, 2);
    assert!(err.contains("PATH:LINE"), "{err}");
    let (code, _, err) = p.run(["get", "memory/2027-01-12.md:3:0"]);
    assert_eq!(code, 2);
    assert!(err.contains("1 or more"), "{err}");
}

#[cfg(unix)]
#[test]
fn a_symlinked_file_search_finds_can_be_read_with_get() {
    let p = Project::compacted_sample();
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(
        outside.path().join("n.md"),
        "# Linked\n\nlinkedmarker here\n",
    )
    .unwrap();
    std::os::unix::fs::symlink(
        outside.path().join("n.md"),
        p.path().join("knowledge/linked.md"),
    )
    .unwrap();
    let h = p.hits(&["linkedmarker"]);
    assert_eq!(h[0]["path"], "knowledge/linked.md");
    let (code, out, err) = p.run(["get", "knowledge/linked.md:3"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("linkedmarker"));
    let (code, _, _) = p.run(["get", "../n.md"]);
    assert_eq!(code, 2, "a path out of the project is refused");
}

#[test]
fn an_eval_case_that_cannot_be_searched_is_named_by_line() {
    let p = Project::compacted_sample();
    p.write(
        "cases.jsonl",
        "{\"query\": \"postgres\", \"expected\": [\"x\"]}\n{\"query\": \"the\", \"expected\": [\"x\"]}\n",
    );
    let fixture = p.path().join("cases.jsonl");
    let (code, _, err) = p.run(["eval", fixture.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(err.contains("line 2"), "{err}");
}

/// `get PATH` prints as it reads, so the file is checked first: a line
/// that is not UTF-8 is named, with nothing printed before it, and a
/// file printed whole has its line numbers aligned to its last.
#[test]
fn a_bad_line_is_refused_before_any_output_and_numbers_align() {
    let p = Project::empty();
    let mut bytes = b"# 2026-01-04\n\n## Notes\nfine\n".to_vec();
    bytes.extend_from_slice(b"\xff\xfe not text\nafter\n");
    p.write("memory/2026-01-04.md", bytes);
    let (code, out, err) = p.run(["get", "memory/2026-01-04.md"]);
    assert_eq!(code, 2, "{err}");
    assert!(out.is_empty(), "printed before the error: {out}");
    assert!(
        err.contains("memory/2026-01-04.md:5") && err.contains("UTF-8"),
        "{err}"
    );
    let body: String = (1..=11).map(|i| format!("- line {i}\n")).collect();
    p.write(
        "memory/2026-01-05.md",
        format!("# 2026-01-05\n\n## Long\n{body}"),
    );
    let (code, out, err) = p.run(["get", "memory/2026-01-05.md"]);
    assert_eq!(code, 0, "{err}");
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 14, "{out}");
    assert_eq!(lines[0], " 1  # 2026-01-05");
    assert_eq!(lines[13], "14  - line 11");
}
