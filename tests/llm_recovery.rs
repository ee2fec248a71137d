//! A model run that stops half-way loses nothing, and nothing secret ever
//! reaches the model: regression tests through the real binary and a fake
//! Ollama server.

mod common;

use common::Project;
use common::fake_ollama::{FakeOllama, Mode};

const TODAY: &str = "2027-01-21";

fn run(p: &Project, host: &str) -> (i32, String, String) {
    let out = p
        .hipo()
        .args([
            "compact", "--today", TODAY, "--llm", "ollama", "--model", "fake",
        ])
        .args(["--host", host, "--num-ctx", "2048"])
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into(),
        String::from_utf8_lossy(&out.stderr).into(),
    )
}

#[test]
fn a_rerun_after_the_server_went_away_resumes_where_it_stopped() {
    // How many calls the sample needs from scratch, with a small context
    // (the long day is summarised in several chunks).
    let whole = FakeOllama::start(Mode::Ok);
    let (code, out, err) = run(&Project::sample(), &whole.url);
    assert_eq!(code, 0, "{out}{err}");
    let needed = whole.generates().len();
    assert!(needed > 4, "{needed}");

    // The server answers 3 calls, then goes away.
    let p = Project::sample();
    let flaky = FakeOllama::start(Mode::FailAfter(3));
    let (code, _, err) = run(&p, &flaky.url);
    assert_eq!(code, 4, "summary failures exit 4: {err}");
    // Back again: the 3 answered calls are not made again.
    let back = FakeOllama::start(Mode::Ok);
    let (code, out, err) = run(&p, &back.url);
    assert_eq!(code, 0, "{out}{err}");
    assert_eq!(back.generates().len(), needed - 3);
}

#[test]
fn an_agents_edit_with_a_secret_is_redacted_before_the_root_prompt() {
    let server = FakeOllama::start(Mode::Ok);
    let p = Project::sample();
    run(&p, &server.url);
    // An agent adds a line with a key to a recent daily; hipo adopts the
    // edit as it is (raw logs and agent text are never rewritten).
    let secret = "AKIAZZZZZZZZZZZZZZZZ";
    p.append(
        "memory/daily/2027-01-20.md",
        &format!("\n- note: key {secret}\n"),
    );
    let before = server.generates().len();
    let (code, out, err) = run(&p, &server.url);
    assert_eq!(code, 0, "{out}{err}");
    let sent = &server.generates()[before..];
    assert!(
        sent.iter()
            .any(|g| g["system"].as_str().unwrap_or("").contains("ROOT")),
        "ROOT was rewritten with the model"
    );
    for g in sent {
        assert!(!g.to_string().contains(secret), "sent: {g}");
    }
}

#[test]
fn status_and_dry_run_after_a_model_run_say_up_to_date() {
    let server = FakeOllama::start(Mode::Ok);
    let p = Project::sample();
    let (code, out, err) = run(&p, &server.url);
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
