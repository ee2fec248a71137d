//! Hybrid search through the real binary against a fake Ollama embedding
//! server on 127.0.0.1: vectors rank, are cached by section and model,
//! resume after an interruption, and a missing model leaves the search
//! lexical (exit 0, `"semantic": false`).

use crate::common;

use common::fake_ollama::{FakeOllama, Mode, closed_port_url};
use common::{Project, Succeeds};

/// A day of three entries no query word of the tests shares with the one
/// it means: only vectors connect "automobile" to the sedan.
fn project() -> Project {
    let p = Project::empty();
    p.write(
        "memory/2026-03-02.md",
        "# 2026-03-02\n\n## Bought a sedan\nUser: picked up the new sedan today, blue.\nAssistant: Congratulations!\n\n## Walks\nUser: a long walk with the puppy by the river.\n\n## Lessons\nUser: started piano lessons on Monday.\n",
    );
    p
}

fn search(p: &Project, server: &str, args: &[&str]) -> (i32, serde_json::Value, String) {
    let out = p
        .hipo()
        .env("OLLAMA_HOST", server)
        .arg("--json")
        .arg("search")
        .args(args)
        .output()
        .unwrap();
    let json = serde_json::from_slice(&out.stdout).unwrap_or(serde_json::Value::Null);
    (
        out.status.code().unwrap_or(-1),
        json,
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn headings(json: &serde_json::Value) -> Vec<String> {
    json["hits"]
        .as_array()
        .map(|h| {
            h.iter()
                .map(|h| h["heading"].as_str().unwrap_or("").to_string())
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn vectors_find_by_meaning_and_are_embedded_once() {
    let p = project();
    let server = FakeOllama::start(Mode::Ok);
    // Lexically nothing says "automobile".
    let (code, lexical, _) = search(&p, &server.url, &["automobile"]);
    assert_eq!((code, headings(&lexical).len()), (0, 0));
    assert!(lexical.get("semantic").is_none());
    assert!(
        server.embeds().is_empty(),
        "lexical by default: no model named"
    );

    let (code, hybrid, err) = search(&p, &server.url, &["--embed-model", "fake", "automobile"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(hybrid["semantic"], true);
    assert_eq!(headings(&hybrid)[0], "2026-03-02 › Bought a sedan");
    assert!(hybrid["hits"][0]["cosine"].as_f64().unwrap() > 0.5);
    // Three sections and the question.
    assert_eq!(server.embedded_inputs(), 4);
    // What was embedded: the heading and the user's words, unlabelled.
    let first = &server.embeds()[0]["input"];
    assert!(
        first
            .as_array()
            .unwrap()
            .iter()
            .any(|t| t == "Bought a sedan\npicked up the new sedan today, blue."),
        "{first}"
    );

    // Unchanged sections are not embedded again: only the question is.
    let (_, vector, _) = search(
        &p,
        &server.url,
        &["--embed-model", "fake", "--mode", "vector", "canine"],
    );
    assert_eq!(headings(&vector)[0], "2026-03-02 › Walks");
    assert_eq!(server.embedded_inputs(), 5);

    // A new section is embedded alone.
    p.append(
        "memory/2026-03-02.md",
        "\n## Savings\nUser: put some cash aside for the trip.\n",
    );
    let (_, hybrid, _) = search(&p, &server.url, &["--embed-model", "fake", "money"]);
    assert_eq!(headings(&hybrid)[0], "2026-03-02 › Savings");
    assert_eq!(server.embedded_inputs(), 7);

    // Another model means other vectors: all sections again.
    let (_, other, _) = search(&p, &server.url, &["--embed-model", "fake2", "money"]);
    assert_eq!(other["semantic"], true);
    assert_eq!(server.embedded_inputs(), 7 + 4 + 1);
}

#[test]
fn a_missing_model_or_server_leaves_the_search_lexical() {
    let p = project();
    let server = FakeOllama::start(Mode::NotFound);
    for url in [server.url.clone(), closed_port_url()] {
        let (code, json, err) = search(&p, &url, &["--embed-model", "fake", "piano"]);
        assert_eq!(code, 0, "{err}");
        assert_eq!(json["semantic"], false);
        assert_eq!(headings(&json), ["2026-03-02 › Lessons"]);
        assert!(err.contains("searching lexically"), "{err}");
        assert_eq!(err.lines().count(), 1, "said once: {err}");
    }
    assert!(
        String::from_utf8_lossy(
            &p.hipo()
                .env("OLLAMA_HOST", &server.url)
                .args(["search", "--embed-model", "fake", "piano"])
                .output()
                .unwrap()
                .stderr
        )
        .contains("ollama pull fake")
    );
    // A mode that needs a model without one is a usage error.
    let (code, _, err) = p.run(["search", "--mode", "hybrid", "piano"]);
    assert_eq!(code, 2);
    assert!(err.contains("--embed-model"), "{err}");
}

/// The model behind a name replaced by one of other dimensions: with
/// nothing new to embed, the search still says why vectors are off and
/// answers lexically, rather than silently finding nothing by vector.
#[test]
fn a_model_of_other_dimensions_is_said_and_the_search_stays_lexical() {
    let p = project();
    let server = FakeOllama::start(Mode::Ok);
    let (code, json, err) = search(&p, &server.url, &["--embed-model", "fake", "piano"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(json["semantic"], true);
    server.set_mode(Mode::WideEmbed);
    let (code, json, err) = search(&p, &server.url, &["--embed-model", "fake", "piano"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(json["semantic"], false, "{json}");
    assert_eq!(headings(&json), ["2026-03-02 › Lessons"]);
    assert!(err.contains("delete .hipo/vectors"), "{err}");
}

#[test]
fn an_interrupted_first_run_resumes_where_it_stopped() {
    let p = Project::empty();
    let mut day = String::from("# 2026-03-03\n");
    for i in 0..40 {
        day.push_str(&format!(
            "\n## Note {i}\nUser: remark number {i} about the garden.\n"
        ));
    }
    p.write("memory/2026-03-03.md", &day);
    // The server answers one batch of sections, then fails.
    let server = FakeOllama::start(Mode::FailAfter(1));
    let (code, json, err) = search(&p, &server.url, &["--embed-model", "fake", "garden"]);
    assert_eq!(
        (code, &json["semantic"]),
        (0, &serde_json::Value::Bool(false)),
        "{err}"
    );
    assert_eq!(headings(&json).len(), 10, "answered lexically");
    let first = server.embedded_inputs();
    assert!(first > 32, "{first}");
    // The first batch was kept: the rest and the question are embedded.
    server.set_mode(Mode::Ok);
    let (_, json, _) = search(&p, &server.url, &["--embed-model", "fake", "garden"]);
    assert_eq!(json["semantic"], true);
    assert_eq!(
        server.embedded_inputs() - first,
        40 - hipo_core::EMBED_BATCH + 1
    );
}

/// A fact stated late in a long session: a vector of the session's start
/// never saw it; the passage holding it does, and the section scores as
/// its best passage.
#[test]
fn a_fact_deep_in_a_long_section_is_found_by_its_passage() {
    let p = Project::empty();
    let mut day = String::from("# 2026-03-04\n\n## Garden log\n");
    for i in 0..60 {
        day.push_str(&format!(
            "User: row {i} of tomatoes staked, mulch spread, beds weeded and watered.\n"
        ));
    }
    day.push_str("User: also sold the old sedan to a neighbour.\n");
    day.push_str("\n## Walks\nUser: a long walk with the puppy by the river.\n");
    p.write("memory/2026-03-04.md", &day);
    let server = FakeOllama::start(Mode::Ok);
    let (code, json, err) = search(
        &p,
        &server.url,
        &["--embed-model", "fake", "--mode", "vector", "automobile"],
    );
    assert_eq!(code, 0, "{err}");
    assert_eq!(headings(&json)[0], "2026-03-04 › Garden log", "{json}");
    let cosine = json["hits"][0]["cosine"].as_f64().unwrap();
    assert!(
        cosine > 0.5,
        "the passage's cosine, not the session's: {cosine}"
    );
    // The long section went as several passages, each within the window.
    let inputs: Vec<String> = server
        .embeds()
        .iter()
        .flat_map(|e| e["input"].as_array().cloned().unwrap_or_default())
        .filter_map(|t| t.as_str().map(str::to_string))
        .filter(|t| t.starts_with("Garden log"))
        .collect();
    assert!(inputs.len() > 3, "{}", inputs.len());
    assert!(
        inputs
            .iter()
            .all(|t| t.len() <= hipo_core::internals::PIECE_BYTES)
    );
    // Hybrid too: lexically nothing says automobile.
    let (_, json, _) = search(&p, &server.url, &["--embed-model", "fake", "automobile"]);
    assert_eq!(headings(&json)[0], "2026-03-04 › Garden log");
}

/// An edited section is embedded again only in its changed passages, and
/// rows of sections gone are dropped from the cache.
#[test]
fn unchanged_passages_are_reused_and_stale_rows_dropped() {
    let p = Project::empty();
    let mut day = String::from("# 2026-03-05\n\n## Long chat\n");
    for i in 0..30 {
        day.push_str(&format!("User: point {i} about the budget for the trip.\n"));
    }
    p.write("memory/2026-03-05.md", &day);
    let server = FakeOllama::start(Mode::Ok);
    let index = |p: &Project| {
        let out = p
            .hipo()
            .env("OLLAMA_HOST", &server.url)
            .args(["--json", "index", "--embed-model", "fake"])
            .succeeds();
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        v["vectors"].clone()
    };
    let first = index(&p);
    let pieces = first["new"].as_u64().unwrap();
    assert!(pieces > 1, "{first}");
    // A turn appended: only the last passage is new text.
    p.append("memory/2026-03-05.md", "User: one more point.\n");
    let second = index(&p);
    assert_eq!(second["new"], 1, "{second}");
    assert_eq!(second["reused"].as_u64().unwrap(), pieces - 1, "{second}");
    // The old copy of the section is stale: over a quarter of the rows.
    assert_eq!(second["dropped"].as_u64().unwrap(), pieces, "{second}");
    let third = index(&p);
    assert_eq!(
        (third["new"].as_u64(), third["dropped"].as_u64()),
        (Some(0), Some(0))
    );
}
