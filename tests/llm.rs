//! Summaries through a fake Ollama server, driven through the real binary.

use crate::common;

use common::fake_ollama::{FakeOllama, Mode, closed_port_url};
use common::{Project, raw_log};
use std::time::Duration;

const TODAY: &str = "2027-01-21";
const PLANTED: &str = "AKIAQQQQQQQQQQQQQQQQ";

/// The sample with a secret planted in the long (summarised) day.
fn sample() -> Project {
    let p = Project::sample();
    p.append(
        "memory/2027-01-12.md",
        &format!("\n## Leaked key [project]\n- the old key was {PLANTED}\n"),
    );
    p
}

/// `--llm ollama --host URL`: the fake server as the backend.
fn ollama(url: &str) -> [&str; 4] {
    ["--llm", "ollama", "--host", url]
}

fn run(p: &Project, host: &str, extra: &[&str]) -> (i32, String, String) {
    let out = p
        .hipo()
        .args([
            "compact", "--today", TODAY, "--llm", "ollama", "--model", "fake", "--host", host,
        ])
        .args(extra)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into(),
        String::from_utf8_lossy(&out.stderr).into(),
    )
}

#[test]
fn summarises_with_the_model_and_never_sends_secrets() {
    let server = FakeOllama::start(Mode::Ok);
    let p = sample();
    let (code, out, err) = run(
        &p,
        &server.url,
        &["--num-ctx", "16384", "--temperature", "0.1"],
    );
    assert_eq!(code, 0, "{out}{err}");
    let daily = p.read("memory/daily/2027-01-12.md");
    assert!(daily.contains("status: fixed"), "{daily}");
    assert!(
        daily.contains("model: fake") && daily.contains("prompt-version: hipo-v3"),
        "{daily}"
    );
    assert!(
        daily.contains("## Key Decisions\n- decided things about Deadlock in invoice splitting"),
        "{daily}"
    );
    let weekly = p.read("memory/weekly/2027-W02.md");
    assert!(
        !weekly.contains("pending:") && weekly.contains("fake-summary"),
        "{weekly}"
    );
    let root = p.read("memory/ROOT.md");
    assert!(root.contains("- fake model: current work on"), "{root}");
    assert!(root.contains("## Topics Index\n"), "topics stay computed");

    let calls = server.generates();
    assert_eq!(calls.len(), 2, "one node and ROOT: {calls:?}");
    let node = &calls[0];
    assert_eq!(node["model"], "fake");
    assert_eq!(node["stream"], false);
    assert_eq!(node["options"]["num_ctx"], 16384);
    assert!((node["options"]["temperature"].as_f64().unwrap() - 0.1).abs() < 1e-6);
    let system = node["system"].as_str().unwrap();
    assert!(
        system.contains("This is a DAILY node")
            && system.contains("[feedback] entries: keep rule, why and how-to-apply whole")
    );
    let prompt = node["prompt"].as_str().unwrap();
    assert!(
        prompt.contains("## Deadlock in invoice splitting [project]")
            && prompt.contains("log 8.17")
    );
    for c in &calls {
        assert!(
            !c.to_string().contains(PLANTED),
            "a secret reached the model"
        );
    }
    assert!(out.contains("llm: 2 call(s)"), "{out}");

    // Unchanged inputs: no call at all. A status-driven rebuild hits the cache.
    let (code, _, _) = run(&p, &server.url, &[]);
    assert_eq!(code, 0);
    assert_eq!(server.generates().len(), 2);
}

#[test]
fn cache_serves_a_rebuilt_node() {
    let server = FakeOllama::start(Mode::Ok);
    let p = sample();
    // On its own day the daily is tentative; the next day it is rebuilt as fixed.
    p.hipo()
        .args(["compact", "--today", "2027-01-12", "--model", "fake"])
        .args(ollama(&server.url))
        .assert()
        .success();
    let node_calls = |s: &FakeOllama| {
        s.generates()
            .iter()
            .filter(|g| g["system"].as_str().unwrap().contains("DAILY"))
            .count()
    };
    assert_eq!(node_calls(&server), 1);
    let (code, out, _) = run(&p, &server.url, &[]);
    assert_eq!(code, 0);
    assert_eq!(node_calls(&server), 1, "served from the cache");
    assert!(out.contains("1 cached"), "{out}");
    assert!(
        p.read("memory/daily/2027-01-12.md")
            .contains("status: fixed")
    );
    // --resummarize with another model calls again.
    let out = p
        .hipo()
        .args(["compact", "--today", TODAY, "--model", "fake2"])
        .args(ollama(&server.url))
        .args(["--resummarize"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(node_calls(&server), 2);
    assert!(
        p.read("memory/daily/2027-01-12.md")
            .contains("model: fake2")
    );
}

#[test]
fn failures_keep_the_node_pending_with_a_hint() {
    let cases: Vec<(Option<Mode>, Vec<&str>, &str)> = vec![
        (None, vec![], "ollama serve"),
        (Some(Mode::NotFound), vec![], "ollama pull fake"),
        (
            Some(Mode::Slow(Duration::from_secs(3))),
            vec!["--timeout-s", "1"],
            "timeout_s",
        ),
        (Some(Mode::Garbage), vec![], "malformed response"),
        (Some(Mode::Empty), vec![], "empty response"),
        (Some(Mode::Short), vec![], "too short"),
    ];
    for (mode, extra, hint) in cases {
        let server = mode.clone().map(FakeOllama::start);
        let host = server
            .as_ref()
            .map(|s| s.url.clone())
            .unwrap_or_else(closed_port_url);
        let p = sample();
        let (code, out, err) = run(&p, &host, &extra);
        assert_eq!(code, 4, "{mode:?}: {out}{err}");
        assert!(
            err.contains("memory/daily/2027-01-12.md: summary failed") && err.contains(hint),
            "{mode:?}: {err}"
        );
        let daily = p.read("memory/daily/2027-01-12.md");
        assert!(
            daily.contains("status: needs-summarization") && daily.contains(hint),
            "{mode:?}: {daily}"
        );
        assert!(
            p.read("memory/daily/2027-01-14.md")
                .contains("status: fixed"),
            "other nodes continue"
        );
    }
}

#[test]
fn a_rerun_resumes_where_it_stopped() {
    let p = sample();
    let (code, _, _) = run(&p, &closed_port_url(), &[]);
    assert_eq!(code, 4);
    let server = FakeOllama::start(Mode::Ok);
    let out = p
        .hipo()
        .args(["summarize", "--today", TODAY, "--model", "fake"])
        .args(ollama(&server.url))
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(p.read("memory/daily/2027-01-12.md").contains("model: fake"));
    assert!(!p.read("memory/weekly/2027-W02.md").contains("pending:"));
}

#[test]
fn long_inputs_are_chunked_not_truncated() {
    let server = FakeOllama::start(Mode::Ok);
    let p = sample();
    let (code, out, err) = run(&p, &server.url, &["--num-ctx", "3072"]);
    assert_eq!(code, 0, "{out}{err}");
    let calls = server.generates();
    let parts: Vec<&str> = calls
        .iter()
        .filter_map(|c| c["prompt"].as_str())
        .filter(|p| p.contains("(part "))
        .collect();
    assert!(parts.len() >= 2, "{} parts", parts.len());
    let merges = calls
        .iter()
        .filter(|c| c["prompt"].as_str().unwrap().contains("partial summaries"))
        .count();
    assert!(merges >= 1);
    let raw = p.read("memory/2027-01-12.md");
    let sent: String = parts.concat();
    for line in raw.lines().filter(|l| l.starts_with("- log ")) {
        assert!(sent.contains(line), "line not sent: {line}");
    }
}

#[test]
fn concurrency_overlaps_requests() {
    let server = FakeOllama::start(Mode::Slow(Duration::from_millis(300)));
    let p = Project::empty();
    for day in 1..=4 {
        let date = format!("2026-03-0{day}");
        p.write(
            &format!("memory/{date}.md"),
            raw_log(&date, &[("Long day [project]", "- x")], 250),
        );
    }
    let out = p
        .hipo()
        .args(["compact", "--today", "2026-03-20", "--model", "fake"])
        .args(ollama(&server.url))
        .args(["--concurrency", "4"])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        server.max_in_flight() >= 2,
        "max in flight {}",
        server.max_in_flight()
    );
}

#[test]
fn llm_check_says_it_in_one_line() {
    let server = FakeOllama::start(Mode::Ok);
    let p = Project::sample();
    let check = |model: &str, host: &str| {
        p.hipo()
            .args(["llm", "check", "--model", model, "--host", host])
            .output()
            .unwrap()
    };
    let ok = check("fake", &server.url);
    assert_eq!(ok.status.code(), Some(0));
    assert_eq!(
        String::from_utf8_lossy(&ok.stdout),
        format!(
            "ollama at {} is up and model `fake` is pulled\n",
            server.url
        )
    );
    let missing = check("llama9", &server.url);
    assert_eq!(missing.status.code(), Some(4));
    assert!(String::from_utf8_lossy(&missing.stdout).contains("run `ollama pull llama9`"));
    let down = check("fake", &closed_port_url());
    assert_eq!(down.status.code(), Some(4));
    assert!(String::from_utf8_lossy(&down.stdout).contains("cannot connect"));
}

#[test]
fn config_and_bad_values() {
    let server = FakeOllama::start(Mode::Ok);
    let p = sample();
    p.write(
        "hipocampus.config.json",
        format!(r#"{{"llm": {{"backend": "ollama", "model": "fake", "host": "{}", "keep_alive": "5m"}}}}"#, server.url),
    );
    let out = p
        .hipo()
        .args(["compact", "--today", TODAY])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(server.generates()[0]["keep_alive"], "5m");
    let bad = p.hipo().args(["compact", "--llm", "gpt"]).output().unwrap();
    assert_eq!(bad.status.code(), Some(2));
    p.write("hipocampus.config.json", "{}");
    let none = p.hipo().args(["summarize"]).output().unwrap();
    assert_eq!(none.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&none.stderr).contains("--llm ollama --model NAME"));
}

/// Figures for the README: calls and tokens for the MemAware corpus, and
/// the time hipo adds around instant model answers.
/// `cargo test --release --test llm -- --ignored --nocapture`
#[test]
#[ignore]
fn measure_memaware() {
    let corpus =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/data/memaware-sessions");
    let p = Project::empty();
    for e in std::fs::read_dir(&corpus).unwrap().flatten() {
        if e.file_name().to_string_lossy().starts_with("20") {
            std::fs::copy(e.path(), p.path().join("memory").join(e.file_name())).unwrap();
        }
    }
    let server = FakeOllama::start(Mode::Ok);
    let compact = |label: &str| {
        let start = std::time::Instant::now();
        let out = p
            .hipo()
            .args([
                "compact",
                "--json",
                "--today",
                "2023-07-15",
                "--model",
                "fake",
            ])
            .args(ollama(&server.url))
            .output()
            .unwrap();
        let wall = start.elapsed();
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let llm = &v["llm"];
        println!(
            "{label}: {} calls, {} prompt tokens, {} output tokens, model time {:.1} ms, wall {} ms, hipo's own time {:.1} ms",
            llm["calls"],
            llm["prompt_tokens"],
            llm["output_tokens"],
            llm["model_us"].as_f64().unwrap() / 1000.0,
            wall.as_millis(),
            wall.as_micros() as f64 / 1000.0 - llm["model_us"].as_f64().unwrap() / 1000.0
        );
    };
    compact("full compaction");
    p.append(
        "memory/2023-06-30.md",
        "\n## Session appended\nUser: I adopted a cat named Miso last week.\n",
    );
    let before = server.generates().len();
    compact("after one appended entry");
    for g in &server.generates()[before..] {
        let prompt = g["prompt"].as_str().unwrap_or("");
        println!(
            "  call: {}",
            prompt
                .lines()
                .next()
                .unwrap_or("")
                .chars()
                .take(90)
                .collect::<String>()
        );
    }
}

#[test]
fn an_append_costs_one_call_per_node() {
    let server = FakeOllama::start(Mode::Ok);
    let p = sample();
    let (code, _, _) = run(&p, &server.url, &["--num-ctx", "3072"]);
    assert_eq!(code, 0);
    let before = server.generates().len();
    assert!(before > 3, "chunked first time: {before}");
    p.append(
        "memory/2027-01-12.md",
        "\n## Hotfix shipped [project]\n- outcome: v3.9.1 live\n",
    );
    let (code, out, err) = run(&p, &server.url, &["--num-ctx", "3072"]);
    assert_eq!(code, 0, "{out}{err}");
    let after = server.generates();
    let new: Vec<&serde_json::Value> = after[before..]
        .iter()
        .filter(|g| g["system"].as_str().unwrap().contains("DAILY"))
        .collect();
    assert_eq!(new.len(), 1, "one call for the daily");
    let prompt = new[0]["prompt"].as_str().unwrap();
    assert!(
        prompt.contains("===== current summary =====")
            && prompt.contains("## Hotfix shipped [project]")
    );
    assert!(
        !prompt.contains("## Deadlock in invoice splitting [project]"),
        "old text not resent"
    );
}

/// `hipo summarize memory/daily/does-not-exist.md` used to exit 0 after a
/// full compaction that summarised nothing it was asked for.
#[test]
fn summarize_rejects_paths_that_are_not_existing_nodes() {
    let server = FakeOllama::start(Mode::Ok);
    let p = sample();
    let summarize = |path: &str| {
        p.hipo()
            .args(["summarize", "--today", TODAY, "--model", "fake", path])
            .args(ollama(&server.url))
            .output()
            .unwrap()
    };
    for (path, says) in [
        (
            "memory/daily/does-not-exist.md",
            "memory/daily/does-not-exist.md is not a node of the summary tree; a node path looks like memory/daily/2026-03-15.md",
        ),
        (
            "memory/2027-01-12.md",
            "memory/2027-01-12.md is not a node of the summary tree",
        ),
        (
            "./memory/weekly/2030-W01.md",
            "./memory/weekly/2030-W01.md does not exist; run `hipo compact` first",
        ),
    ] {
        let out = summarize(path);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{path}: {err}");
        assert!(err.starts_with(&format!("hipo: {says}")), "{err}");
        assert_eq!(err.lines().count(), 1, "{err}");
    }
    assert!(!p.exists("memory/daily"), "no compaction ran");
    assert!(server.received().is_empty());
    // An existing node, relative or absolute, is accepted.
    let (code, _, err) = run(&p, &closed_port_url(), &[]);
    assert_eq!(code, 4, "{err}");
    let absolute = p.path().join("memory/daily/2027-01-12.md");
    let out = summarize(absolute.to_str().unwrap());
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(p.read("memory/daily/2027-01-12.md").contains("model: fake"));
}

/// `hipo llm check` with no model configured used to exit 0.
#[test]
fn llm_check_without_a_model_exits_4() {
    let server = FakeOllama::start(Mode::Ok);
    let p = Project::sample();
    for host in [server.url.clone(), closed_port_url()] {
        let out = p
            .hipo()
            .env_remove("HIPO_MODEL")
            .args(["llm", "check", "--host", &host])
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert_eq!(out.status.code(), Some(4), "{stdout}");
        assert_eq!(stdout.lines().count(), 1, "{stdout}");
        assert!(
            stdout.trim_end().ends_with(
                "no model configured: pass --model NAME or set llm.model in hipocampus.config.json"
            ),
            "{stdout}"
        );
    }
}

/// A context small enough that the sample's long day takes several calls.
const SMALL: &[&str] = &["--num-ctx", "3072"];

#[test]
fn a_rerun_after_the_server_went_away_resumes_where_it_stopped() {
    // How many calls the sample needs from scratch, with a small context
    // (the long day is summarised in several chunks).
    let whole = FakeOllama::start(Mode::Ok);
    let (code, out, err) = run(&Project::sample(), &whole.url, SMALL);
    assert_eq!(code, 0, "{out}{err}");
    let needed = whole.generates().len();
    assert!(needed > 4, "{needed}");

    // The server answers 3 calls, then goes away.
    let p = Project::sample();
    let flaky = FakeOllama::start(Mode::FailAfter(3));
    let (code, _, err) = run(&p, &flaky.url, SMALL);
    assert_eq!(code, 4, "summary failures exit 4: {err}");
    // Back again: the 3 answered calls are not made again.
    let back = FakeOllama::start(Mode::Ok);
    let (code, out, err) = run(&p, &back.url, SMALL);
    assert_eq!(code, 0, "{out}{err}");
    assert_eq!(back.generates().len(), needed - 3);
}

#[test]
fn an_agents_edit_with_a_secret_is_redacted_before_the_root_prompt() {
    let server = FakeOllama::start(Mode::Ok);
    let p = Project::sample();
    run(&p, &server.url, SMALL);
    // An agent adds a line with a key to a recent daily; hipo adopts the
    // edit as it is (raw logs and agent text are never rewritten).
    let secret = "AKIAZZZZZZZZZZZZZZZZ";
    p.append(
        "memory/daily/2027-01-20.md",
        &format!("\n- note: key {secret}\n"),
    );
    let before = server.generates().len();
    let (code, out, err) = run(&p, &server.url, SMALL);
    assert_eq!(code, 0, "{out}{err}");
    let sent = &server.generates()[before..];
    // ROOT's input is merged down first (a small context); the merges see
    // the edited day. The last call may be served from the cache: the fake
    // merges to the same text.
    assert!(!sent.is_empty(), "ROOT's input was sent to the model again");
    for g in sent {
        assert!(!g.to_string().contains(secret), "sent: {g}");
    }
}

#[test]
fn status_and_dry_run_after_a_model_run_say_up_to_date() {
    let server = FakeOllama::start(Mode::Ok);
    let p = Project::sample();
    let (code, out, err) = run(&p, &server.url, SMALL);
    assert_eq!(code, 0, "{out}{err}");
    let model = ["--llm", "ollama", "--model", "fake", "--host", &server.url];
    let calls = server.generates().len();
    let status = p
        .hipo()
        .args(["status", "--today", TODAY])
        .args(model)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&status.stdout);
    assert!(text.contains("changes: tree is up to date"), "{text}");
    let dry = p
        .hipo()
        .args(["compact", "--dry-run", "--today", TODAY])
        .args(model)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&dry.stdout);
    assert!(text.starts_with("tree is up to date"), "{text}");
    assert_eq!(server.generates().len(), calls, "neither calls the model");
}
