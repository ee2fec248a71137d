//! ROOT's narrative with a local model (fake server): a failed narrative
//! is retried, pending nodes and hipo's own markers are never sent, and a
//! run without the model keeps the model's narrative.

use crate::common;

use common::Project;
use common::fake_ollama::{FakeOllama, Mode, closed_port_url};

const TODAY: &str = "2027-01-21";

/// The sample with thresholds so high that only ROOT calls the model.
fn only_root() -> Project {
    let p = Project::sample();
    p.write(
        "hipocampus.config.json",
        r#"{"compaction":{"dailyThreshold":1000,"weeklyThreshold":2000,"monthlyThreshold":3000,"rootMaxTokens":3000}}"#,
    );
    p
}

fn compact(p: &Project, host: &str, today: &str, extra: &[&str]) -> (i32, String, String) {
    let mut args = vec![
        "compact", "--today", today, "--llm", "ollama", "--model", "fake",
    ];
    // A context large enough for ROOT's input in one call.
    args.extend(["--host", host, "--num-ctx", "32768"]);
    args.extend(extra);
    p.run(args)
}

#[test]
fn a_failed_root_narrative_is_retried_by_the_next_run() {
    let p = only_root();
    let (code, _, err) = compact(&p, &closed_port_url(), TODAY, &[]);
    assert_eq!(code, 4, "{err}");
    assert!(err.contains("memory/ROOT.md"), "{err}");
    let server = FakeOllama::start(Mode::Ok);
    let (code, out, err) = compact(&p, &server.url, TODAY, &[]);
    assert_eq!(code, 0, "{out}{err}");
    assert_eq!(server.generates().len(), 1, "ROOT is retried: {out}");
    let root = p.read("memory/ROOT.md");
    assert!(root.contains("- fake model: current work on"), "{root}");
    assert!(
        root.contains("<!-- hipo:model fake, 2027-01-21 -->"),
        "{root}"
    );
    // Written now: the next run has nothing to do.
    let (code, _, _) = compact(&p, &server.url, TODAY, &[]);
    assert_eq!(code, 0);
    assert_eq!(server.generates().len(), 1);
}

#[test]
fn summarize_root_retries_a_failed_narrative() {
    let p = only_root();
    let (code, _, _) = compact(&p, &closed_port_url(), TODAY, &[]);
    assert_eq!(code, 4);
    let server = FakeOllama::start(Mode::Ok);
    let (code, out, err) = p.run([
        "summarize",
        "memory/ROOT.md",
        "--today",
        TODAY,
        "--llm",
        "ollama",
        "--model",
        "fake",
        "--host",
        &server.url,
        "--num-ctx",
        "32768",
    ]);
    assert_eq!(code, 0, "{out}{err}");
    assert_eq!(server.generates().len(), 1);
    assert!(p.read("memory/ROOT.md").contains("- fake model:"));
}

#[test]
fn a_run_without_the_model_keeps_its_narrative() {
    let p = only_root();
    let server = FakeOllama::start(Mode::Ok);
    let (code, _, _) = compact(&p, &server.url, TODAY, &[]);
    assert_eq!(code, 0);
    let with_model = p.read("memory/ROOT.md");
    assert!(with_model.contains("- fake model:"), "{with_model}");
    // A hook's plain `hipo compact`, a day later: the narrative stays (with
    // its date), the computed sections move on.
    let (code, out, err) = p.run(["compact", "--today", "2027-01-22"]);
    assert_eq!(code, 0, "{out}{err}");
    let without = p.read("memory/ROOT.md");
    assert!(
        without.contains("- fake model: current work on")
            && without.contains("<!-- hipo:model fake, 2027-01-21 -->"),
        "{without}"
    );
    assert!(without.contains("last-updated: 2027-01-22"), "{without}");
    assert_eq!(server.generates().len(), 1);
}

#[test]
fn pending_nodes_and_hipo_markers_are_never_sent() {
    // The long day stays pending (the model refuses dailies); its week is
    // a copy holding hipo's "waiting for summaries" marker; ROOT is written
    // from what is summarised or copied, and names the day it left out.
    let p = Project::sample();
    let server = FakeOllama::start(Mode::RefuseDaily);
    let (code, _, err) = compact(&p, &server.url, "2027-01-14", &[]);
    assert_eq!(code, 4, "{err}");
    let week = p.read("memory/weekly/2027-W02.md");
    assert!(
        week.contains("<!-- hipo: waiting for summaries of"),
        "{week}"
    );
    let calls = server.generates();
    let root_calls: Vec<_> = calls
        .iter()
        .filter(|g| g["system"].as_str().unwrap_or("").contains("ROOT.md"))
        .collect();
    assert_eq!(root_calls.len(), 1, "{calls:?}");
    for c in &calls {
        let prompt = c["prompt"].as_str().unwrap_or("");
        assert!(!prompt.contains("<!-- hipo"), "a marker was sent: {prompt}");
        assert!(
            !prompt.contains("could not write it") && !prompt.contains("needs summarization"),
            "a stub was sent: {prompt}"
        );
    }
    let root_prompt = root_calls[0]["prompt"].as_str().unwrap();
    assert!(!root_prompt.contains("===== memory/daily/2027-01-12.md"));
    let root = p.read("memory/ROOT.md");
    assert!(
        root.contains(
            "not yet in this narrative (waiting for a summary): memory/daily/2027-01-12.md"
        ),
        "{root}"
    );
}
