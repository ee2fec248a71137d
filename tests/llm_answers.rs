//! What hipo asks a local model for and what it accepts back (fake
//! server): structured answers, the text fallback, grounded acceptance,
//! cut prompts and cut answers.

use crate::common;

use common::Project;
use common::fake_ollama::{FakeOllama, Mode};

const TODAY: &str = "2027-01-21";

fn compact(p: &Project, host: &str, extra: &[&str]) -> (i32, String, String) {
    let mut args = vec![
        "compact", "--today", TODAY, "--llm", "ollama", "--model", "fake",
    ];
    args.extend(["--host", host, "--num-ctx", "16384"]);
    args.extend(extra);
    p.run(args)
}

fn is_root(g: &serde_json::Value) -> bool {
    g["system"].as_str().unwrap_or("").contains("ROOT.md")
}

#[test]
fn answers_are_asked_as_json_and_rendered_by_hipo() {
    let server = FakeOllama::start(Mode::Ok);
    let p = Project::sample();
    let (code, out, err) = compact(&p, &server.url, &[]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(!err.contains("refused"), "{err}");
    let calls = server.generates();
    assert_eq!(calls.len(), 2, "{calls:?}");
    let node = &calls[0];
    assert_eq!(node["format"]["type"], "object");
    assert_eq!(node["format"]["required"][4], "open_items");
    assert!(
        node["system"]
            .as_str()
            .unwrap()
            .contains("Answer with one JSON object")
    );
    assert_eq!(calls[1]["format"]["required"][0], "active_context");
    let daily = p.read("memory/daily/2027-01-12.md");
    assert!(
        daily.contains("## Topics\n- fake-summary [project]: Deadlock in invoice splitting [project]\n")
            && daily.contains("- Write the lock order down [feedback] [project]\n")
            && daily.contains("## Key Decisions\n- decided things about Deadlock in invoice splitting [project]\n## Tasks Completed\n- none\n")
            && daily.contains("prompt-version: hipo-v3"),
        "{daily}"
    );
    assert!(
        p.read("memory/ROOT.md")
            .contains("- fake model: current work on")
    );
}

#[test]
fn a_server_refusing_format_gets_the_text_prompt_and_it_is_said_once() {
    let server = FakeOllama::start(Mode::NoFormat);
    let p = Project::sample();
    let (code, out, err) = compact(&p, &server.url, &[]);
    assert_eq!(code, 0, "{out}{err}");
    assert_eq!(
        err.matches("refused structured (JSON) answers").count(),
        1,
        "{err}"
    );
    let calls = server.generates();
    // The first call is refused, asked again in text; ROOT goes as text.
    assert_eq!(calls.len(), 3, "{calls:?}");
    assert!(calls[0]["format"].is_object());
    for c in &calls[1..] {
        assert!(c["format"].is_null(), "{c}");
        assert!(c["system"].as_str().unwrap().contains("## Open Items"));
    }
    assert!(p.read("memory/daily/2027-01-12.md").contains("model: fake"));
    assert!(p.read("memory/ROOT.md").contains("- fake model:"));
}

#[test]
fn structured_false_sends_the_text_prompt() {
    let server = FakeOllama::start(Mode::Ok);
    let p = Project::sample();
    let (code, _, err) = compact(&p, &server.url, &["--structured", "false"]);
    assert_eq!(code, 0, "{err}");
    let calls = server.generates();
    assert!(calls.iter().all(|c| c["format"].is_null()), "{calls:?}");
    assert!(calls.iter().any(is_root));
    assert!(
        p.read("memory/daily/2027-01-12.md")
            .contains("- decided things about Deadlock in invoice splitting")
    );
}

#[test]
fn well_formed_answers_about_something_else_are_refused() {
    let server = FakeOllama::start(Mode::Ungrounded);
    let p = Project::sample();
    let (code, out, err) = compact(&p, &server.url, &["--json"]);
    assert_eq!(code, 4, "{out}{err}");
    let report: serde_json::Value = serde_json::from_str(&out).unwrap();
    // Each refused answer is asked for again once, with why.
    assert_eq!(report["llm"]["ungrounded"], 4, "{out}");
    let calls = server.generates();
    assert!(
        calls[1]["prompt"]
            .as_str()
            .unwrap()
            .contains("Your previous answer was refused: the answer drops user or feedback items"),
        "{calls:?}"
    );
    assert!(
        err.contains("memory/daily/2027-01-12.md: summary failed: the answer drops user or feedback items of its sources: Write the lock order down"),
        "{err}"
    );
    assert!(
        err.contains("memory/ROOT.md: summary failed: the answer is not about its sources"),
        "{err}"
    );
    let daily = p.read("memory/daily/2027-01-12.md");
    assert!(
        daily.contains("status: needs-summarization") && !daily.contains("LeSanti"),
        "{daily}"
    );
    assert!(!p.read("memory/ROOT.md").contains("LeSanti"));
}

/// A day long enough to overflow a 4096-token context for a tokenizer
/// twice as dense as hipo's estimate.
fn long_day(p: &Project) {
    let mut text = String::from("# 2027-01-19\n\n## Cache warmup incident [project]\n");
    for i in 0..260 {
        text.push_str(&format!(
            "- warmup step {i}: the cache node replayed keys for shard {i} and reported latency back to normal\n"
        ));
    }
    text.push_str(
        "\n## Prefers numbered steps [user]\n- the user wants runbooks as numbered steps\n",
    );
    p.write("memory/2027-01-19.md", text);
}

#[test]
fn a_silently_cut_prompt_is_rechunked_and_the_ratio_is_kept() {
    for mode in [Mode::CutPrompts, Mode::RefuseLongPrompts] {
        let server = FakeOllama::start(mode.clone());
        let p = Project::sample();
        long_day(&p);
        let (code, out, err) = p.run([
            "compact",
            "--today",
            TODAY,
            "--llm",
            "ollama",
            "--model",
            "fake",
            "--host",
            &server.url,
            "--num-ctx",
            "4096",
            "--json",
        ]);
        assert_eq!(code, 0, "{mode:?}: {out}{err}");
        assert!(server.cut() >= 1, "{mode:?}: nothing was cut");
        let report: serde_json::Value = serde_json::from_str(&out).unwrap();
        assert_eq!(report["llm"]["cuts"], server.cut() as u64, "{out}");
        let daily = p.read("memory/daily/2027-01-19.md");
        assert!(
            daily.contains("model: fake") && daily.contains("numbered"),
            "{daily}"
        );
        // Learned and kept: a new long day fits the first time.
        let cuts = server.cut();
        p.append(
            "memory/2027-01-20.md",
            &(0..230)
                .map(|i| {
                    format!("\n- later note {i}: replica lag checked again after warmup step {i}\n")
                })
                .collect::<String>(),
        );
        let (code, out, err) = p.run([
            "compact",
            "--today",
            TODAY,
            "--llm",
            "ollama",
            "--model",
            "fake",
            "--host",
            &server.url,
            "--num-ctx",
            "4096",
        ]);
        assert_eq!(code, 0, "{out}{err}");
        assert_eq!(server.cut(), cuts, "{mode:?}: the kept ratio was not used");
    }
}

#[test]
fn an_answer_cut_at_num_predict_is_asked_again_once_then_refused() {
    let server = FakeOllama::start(Mode::CutAnswers(1));
    let p = Project::sample();
    let (code, out, err) = compact(&p, &server.url, &[]);
    assert_eq!(code, 0, "{out}{err}");
    let calls = server.generates();
    let first = calls[0]["options"]["num_predict"].as_u64().unwrap();
    assert_eq!(
        calls[1]["options"]["num_predict"].as_u64().unwrap(),
        2 * first
    );
    assert_eq!(calls[1]["prompt"], calls[0]["prompt"]);

    let server = FakeOllama::start(Mode::CutAnswers(usize::MAX));
    let p = Project::sample();
    let (code, _, err) = compact(&p, &server.url, &[]);
    assert_eq!(code, 4);
    assert!(
        err.contains("the answer was cut off at num_predict"),
        "{err}"
    );
    assert!(
        p.read("memory/daily/2027-01-12.md")
            .contains("status: needs-summarization")
    );
}

#[test]
fn status_says_who_wrote_the_nodes_and_why_others_wait() {
    let server = FakeOllama::start(Mode::RefuseDaily);
    let p = Project::sample();
    let (code, _, err) = compact(&p, &server.url, &[]);
    assert_eq!(code, 4);
    // One failure line names the node once; the body's hint is a sentence.
    let line = err
        .lines()
        .find(|l| l.contains("memory/daily/2027-01-12.md"))
        .unwrap();
    assert_eq!(
        line.matches("memory/daily/2027-01-12.md").count(),
        1,
        "{line}"
    );
    let daily = p.read("memory/daily/2027-01-12.md");
    assert!(daily.contains(". Re-run `hipo summarize`"), "{daily}");
    let (code, out, err) = p.run([
        "status",
        "--today",
        TODAY,
        "--llm",
        "ollama",
        "--model",
        "fake",
        "--host",
        &server.url,
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("memory/daily/2027-01-12.md (227 source lines)\n    the model could not write it: the answer is too short"),
        "{out}"
    );
    assert!(
        out.contains("written by:") && out.contains("fake:hipo-v3 "),
        "{out}"
    );
    let json = p.json([
        "status",
        "--today",
        TODAY,
        "--llm",
        "ollama",
        "--model",
        "fake",
        "--host",
        &server.url,
    ]);
    assert!(json["writers"]["copy"].as_u64().unwrap() > 0, "{json}");
}

#[test]
fn a_part_refused_twice_is_written_by_hipo_and_the_node_completes() {
    let server = FakeOllama::start(Mode::RefusePart(2));
    let p = Project::sample();
    long_day(&p);
    let args = [
        "--today",
        TODAY,
        "--llm",
        "ollama",
        "--model",
        "fake",
        "--host",
        &server.url,
        "--num-ctx",
        "4096",
    ];
    let (code, out, err) = p.run([&["compact"][..], &args].concat());
    assert_eq!(code, 0, "{out}{err}");
    // Part 2 was asked again once, with why its answer was refused.
    let part2: Vec<String> = server
        .generates()
        .iter()
        .filter_map(|c| c["prompt"].as_str().map(str::to_string))
        .filter(|p| p.contains("daily 2027-01-19 (part 2 of"))
        .collect();
    assert_eq!(part2.len(), 2, "{part2:?}");
    assert!(part2[1].contains("Your previous answer was refused: the answer"));
    let daily = p.read("memory/daily/2027-01-19.md");
    assert!(
        !daily.contains("needs-summarization")
            && daily.contains("model: fake")
            && daily.contains("<!-- hipo:mechanical-parts 1 of ")
            && daily.contains("by hipo: part 2 (the answer")
            && !daily.contains("LeSanti"),
        "{daily}"
    );
    let (code, out, err) = p.run([&["status"][..], &args].concat());
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("  memory/daily/2027-01-19.md: 1 of ")
            && out.contains("; the rest by the model"),
        "{out}"
    );
    let json = p.json([&["status"][..], &args].concat());
    assert!(
        json["parts_by_hipo"]["memory/daily/2027-01-19.md"]
            .as_str()
            .unwrap()
            .contains("part 2"),
        "{json}"
    );
}
