//! `<private>…</private>`: what a person marks as never to be remembered
//! reaches no raw log, node, index, export or model, whichever way it came
//! in: a captured prompt, reply or tool output, a checkpoint's fields or
//! body (CLI and MCP), or a raw log someone wrote by hand and a model
//! summarises.

use crate::common;
use common::fake_ollama::{FakeOllama, Mode};
use common::mcp_client::Client;
use common::{Project, Succeeds};
use serde_json::json;

const TODAY: &str = "2027-01-21";
const LOG: &str = "memory/2027-01-21.md";

/// Every place the words could have gone: the raw logs, the nodes, the
/// export, and a search for them.
fn assert_nowhere(p: &Project, words: &[&str]) {
    let mut text = String::new();
    for rel in ["memory", "memory/daily", "memory/weekly", "memory/monthly"] {
        let Ok(dir) = std::fs::read_dir(p.path().join(rel)) else {
            continue;
        };
        for e in dir.flatten() {
            if e.path().is_file() {
                text.push_str(&std::fs::read_to_string(e.path()).unwrap_or_default());
            }
        }
    }
    let export = p.hipo().args(["export", "--ndjson"]).succeeds();
    text.push_str(&String::from_utf8_lossy(&export.stdout));
    for w in words {
        assert!(!text.contains(w), "{w} is written somewhere:\n{text}");
        let hits = p.hits(&[w]);
        assert!(hits.is_empty(), "{w} is found: {hits:?}");
    }
}

#[test]
fn a_captured_prompt_reply_and_tool_output_keep_no_private_text() {
    let p = Project::sample();
    let line = |kind: &str, uuid: &str, content: serde_json::Value| {
        json!({"type": kind, "uuid": uuid, "sessionId": "s-p", "timestamp": "2027-01-21T09:00:00Z",
               "message": {"role": kind, "content": content}})
        .to_string()
            + "\n"
    };
    let transcript = line(
        "user",
        "u1",
        json!("deploy the ledger <private>my bank pin is 8812zq</private> tomorrow"),
    ) + &line(
        "assistant",
        "a1",
        json!([
            {"type": "text", "text": "Done.\n<PRIVATE>\ninternal host walrusdb7\n</PRIVATE>\nAll good."},
            {"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": "ls"}}
        ]),
    ) + &line(
        "user",
        "u2",
        json!([{"type": "tool_result", "tool_use_id": "t1",
                "content": "<private>token quokka55 printed</private> and more output"}]),
    ) + &line(
        "user",
        "u3",
        json!("and this one never closes <private>the safe code is otter31"),
    );
    p.write("s.jsonl", transcript);
    p.hipo()
        .args(["ingest", "--today", TODAY])
        .arg(p.path().join("s.jsonl"))
        .succeeds();
    let log = p.read(LOG);
    assert!(
        log.contains("User: deploy the ledger [private] tomorrow"),
        "{log}"
    );
    assert!(
        log.contains("Assistant: Done.\n    [private]\n    All good."),
        "{log}"
    );
    assert!(log.contains("Output: [private] and more output"), "{log}");
    assert!(
        log.contains("User: and this one never closes [private]"),
        "{log}"
    );
    assert_nowhere(&p, &["8812zq", "walrusdb7", "quokka55", "otter31"]);
}

#[test]
fn a_checkpoint_from_the_cli_or_mcp_keeps_no_private_text() {
    let p = Project::sample();
    let mut cmd = p.hipo();
    cmd.args([
        "checkpoint",
        "--today",
        TODAY,
        "--type",
        "project",
        "--topic",
        "Vault move <private>codename heron</private>",
        "--field",
        "request=move the vault <private>to 10.9.8.7 kestrel</private>",
        "--field",
        "outcome=done",
        "--stdin",
    ]);
    cmd.write_stdin("notes\n<private>\nthe recovery phrase: plover ibis\n</private>\nend\n")
        .succeeds();
    let log = p.read(LOG);
    assert!(log.contains("## Vault move [private] [project]"), "{log}");
    assert!(
        log.contains("- request: move the vault [private]\n"),
        "{log}"
    );
    assert!(log.contains("notes\n[private]"), "{log}");

    let mut c = Client::start(&p, &[], &[]);
    let done = c.text(
        "checkpoint",
        json!({
            "type": "user",
            "topic": "Preferences",
            "fields": {"likes": "tea <private>and the pass is gannet99</private>"},
            "body": "<private>lives at 12 puffin road</private> works remotely",
        }),
    );
    assert!(done.contains(LOG), "{done}");
    c.close();
    let log = p.read(LOG);
    assert!(
        log.contains("- likes: tea [private]\n[private] works remotely"),
        "{log}"
    );
    assert_nowhere(&p, &["heron", "kestrel", "plover", "gannet99", "puffin"]);
}

/// A raw log written by hand (not through hipo) with private text: the
/// model that summarises it never receives the text, and the node it
/// writes does not hold it.
#[test]
fn a_model_never_receives_private_text() {
    let server = FakeOllama::start(Mode::Ok);
    let p = Project::sample();
    p.write(
        "memory/2027-01-12.md",
        "# 2027-01-12\n\n## Budget review [project]\n- request: review the budget <private>salary of Dana is 93k</private>\n- outcome: approved\n",
    );
    let out = p
        .hipo()
        .args([
            "compact",
            "--today",
            TODAY,
            "--llm",
            "ollama",
            "--model",
            "fake",
            "--host",
            &server.url,
        ])
        .succeeds();
    assert!(out.status.success());
    let sent = serde_json::to_string(&server.generates()).unwrap();
    assert!(
        sent.contains("review the budget"),
        "the log was summarised: {sent}"
    );
    assert!(!sent.contains("93k") && !sent.contains("Dana"), "{sent}");
    let daily = p.read("memory/daily/2027-01-12.md");
    assert!(!daily.contains("93k"), "{daily}");
}

/// A hand-written raw log with private text, searched with local
/// embeddings: the embedding model never receives the text either.
#[test]
fn an_embedding_model_never_receives_private_text() {
    let server = FakeOllama::start(Mode::Ok);
    let p = Project::empty();
    p.write(
        "memory/2026-03-02.md",
        "# 2026-03-02\n\n## Bought a sedan\nUser: picked up the new sedan <private>with loan 4471-cormorant</private> today.\n",
    );
    let out = p
        .hipo()
        .env("OLLAMA_HOST", &server.url)
        .args(["--json", "search", "--embed-model", "fake", "sedan"])
        .succeeds();
    assert!(String::from_utf8_lossy(&out.stdout).contains("sedan"));
    let sent = serde_json::to_string(&server.embeds()).unwrap();
    assert!(sent.contains("sedan"), "the section was embedded: {sent}");
    assert!(!sent.contains("cormorant"), "{sent}");
}

/// A Markdown file a person wrote into the project by hand, with private
/// spans inline, across lines, around a heading, and never closed.
const HAND: &str = "# Vault notes\n\n## Vault move [project]\n\
The vault moved to the north wing <private>combination walrus-4471\n\
## Ptarmigan plans\nmore about ptarmigan\n</private> and the keys are with Sam.\n\n\
## Lunch\nWe ate tacos <private>I owe Kim 40 dollars bittern</private> downtown.\n\n\
## Travel\nThe flight is booked. <private>passport number guillemot9\n";

const HIDDEN: [&str; 4] = ["walrus", "ptarmigan", "bittern", "guillemot"];

/// Text a command printed holds none of the hidden words.
fn clean(what: &str, text: &str) {
    for w in HIDDEN {
        assert!(
            !text.to_lowercase().contains(w),
            "{what} shows {w}:\n{text}"
        );
    }
}

/// `<private>` in a file hipo did not write: absent from the index's
/// terms, the snippets and sections search shows (fresh and stale), `get`
/// by path, line and id, the export, recall, and MCP's search, get and
/// recall.
#[test]
fn a_hand_written_file_keeps_its_private_text_out_of_every_output() {
    let p = Project::sample();
    for rel in ["knowledge/vault.md", "memory/2027-01-19.md"] {
        p.write(rel, HAND);
    }
    for w in HIDDEN {
        assert!(p.hits(&[w]).is_empty(), "{w} is a term of the index");
    }
    let search = |args: &[&str]| {
        let out = p
            .hipo()
            .args(["--json", "search", "--full"])
            .args(args)
            .succeeds();
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    for q in ["vault", "tacos", "flight", "keys with Sam"] {
        let found = search(&[q]);
        assert!(found.contains("knowledge/vault.md"), "{q}: {found}");
        clean("search", &found);
    }
    assert!(search(&["keys with Sam"]).contains("[private]"));
    // A heading inside a span is not shown either.
    let v: serde_json::Value = serde_json::from_str(&search(&["ptarmigan plans"])).unwrap();
    clean("headings", &v["hits"].to_string());
    for target in [
        "knowledge/vault.md",
        "knowledge/vault.md:6",
        "knowledge/vault.md:5:3",
        "memory/2027-01-19.md:13",
    ] {
        let out = p.hipo().args(["get", target]).succeeds();
        clean(target, &String::from_utf8_lossy(&out.stdout));
    }
    let hits = p.hits(&["keys with Sam"]);
    let id = hits[0]["id"].as_str().unwrap();
    let out = p.hipo().args(["get", id]).succeeds();
    let section = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(section.contains("keys are with Sam"), "{section}");
    clean("get #id", &section);
    let export = p
        .hipo()
        .args(["export", "--ndjson", "--windows"])
        .succeeds();
    let export = String::from_utf8_lossy(&export.stdout).into_owned();
    assert!(export.contains("keys are with Sam"), "{export}");
    clean("export", &export);
    let recall = p
        .json(["recall", "--floor", "0", "vault keys tacos flight"])
        .to_string();
    assert!(recall.contains("vault"), "{recall}");
    clean("recall", &recall);
    let mut c = Client::start(&p, &[], &[]);
    clean(
        "mcp search",
        &c.text("search", json!({"query": "vault keys tacos flight"})),
    );
    clean(
        "mcp get",
        &c.text("get", json!({"path": "knowledge/vault.md"})),
    );
    clean(
        "mcp recall",
        &c.text("recall", json!({"request": "vault keys tacos flight"})),
    );
    c.close();

    // Stale: with the lock held and a change it cannot index, each hit is
    // read and stripped afresh.
    let project = hipo_core::Hipo::open(p.path()).unwrap();
    let held = project.lock(std::time::Duration::ZERO).unwrap();
    p.append("memory/2027-01-20.md", "\n## Drill [project]\n- drill\n");
    for q in ["vault", "tacos", "flight", "keys with Sam"] {
        let found = search(&[q]);
        let v: serde_json::Value = serde_json::from_str(&found).unwrap();
        assert_eq!(v["fresh"], false, "{found}");
        assert!(found.contains("knowledge/vault.md"), "{q}: {found}");
        clean("stale search", &found);
    }
    drop(held);
}
