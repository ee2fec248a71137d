//! `hipo mcp` driven as a client would: the real binary spawned on a temp
//! copy of the sample, JSON-RPC lines over its stdin and stdout.

use crate::common;

use common::Project;
use common::fake_ollama::{FakeOllama, Mode};
use common::mcp_client::Client;
use serde_json::{Value, json};
use std::process::Command;
use std::time::Duration;

#[test]
fn initialize_lists_tools_with_schemas_and_closed_stdin_ends_quietly() {
    let p = Project::sample();
    let mut c = Client::start(&p, &[], &[]);
    let tools = c.request("tools/list", json!({}));
    let tools = tools["result"]["tools"].as_array().unwrap().clone();
    let mut names: Vec<&str> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
    names.sort();
    assert_eq!(
        names,
        [
            "checkpoint",
            "compact",
            "get",
            "recall",
            "search",
            "status",
            "timeline"
        ]
    );
    for t in &tools {
        assert!(
            t["description"].as_str().unwrap().len() > 80,
            "a description a model can decide by: {t}"
        );
        assert_eq!(t["inputSchema"]["type"], "object", "{t}");
    }
    let search = tools.iter().find(|t| t["name"] == "search").unwrap();
    assert_eq!(search["inputSchema"]["required"], json!(["query"]));
    for filter in ["type", "level", "after", "before", "week", "month", "path"] {
        assert!(
            search["inputSchema"]["properties"][filter].is_object(),
            "{filter}"
        );
    }
    // An unknown method is an error, never the end of the connection.
    let r = c.request("no/such/method", json!({}));
    assert_eq!(r["error"]["code"], -32601, "{r}");
    assert!(c.text("status", json!({})).contains("tree:"));
    let (code, err) = c.close();
    assert_eq!(code, Some(0), "{err}");
    assert!(err.is_empty(), "quiet: {err}");
}

#[test]
fn each_tool_answers_on_the_sample() {
    let p = Project::sample();
    p.write("SCRATCHPAD.md", "# Scratchpad\n\nnext: read replicas\n");
    let mut c = Client::start(&p, &[], &[]);

    // search: hits with path, line, heading, level, date, snippet, id.
    let r = c.call(
        "search",
        json!({"query": "when did we cut over to postgres 16?", "limit": 3}),
    );
    let found = &r["result"]["structuredContent"];
    assert_eq!(found["fresh"], true, "{r}");
    let hit = &found["hits"][0];
    assert_eq!(hit["path"], "memory/2027-01-08.md", "{r}");
    for key in [
        "path", "line", "heading", "level", "date", "snippet", "id", "type",
    ] {
        assert!(!hit[key].is_null(), "{key}: {hit}");
    }
    let text = r["result"]["content"][0]["text"].as_str().unwrap();
    assert!(text.contains("memory/2027-01-08.md:3"), "{text}");
    // A count sent as text (as the MCP Inspector CLI sends every argument).
    let r = c.call("search", json!({"query": "postgres", "limit": "2"}));
    assert_eq!(
        r["result"]["structuredContent"]["hits"]
            .as_array()
            .map(Vec::len),
        Some(2),
        "{r}"
    );
    let r = c.call(
        "search",
        json!({"query": "postgres", "type": "user", "after": "2027-01-01"}),
    );
    assert_eq!(r["result"]["isError"], false, "{r}");

    // get: by id, and by path and line.
    let id = hit["id"].as_str().unwrap().to_string();
    let section = c.text("get", json!({"id": id}));
    assert!(
        section.contains("3  ## Postgres 16 cutover [project]"),
        "{section}"
    );
    let slice = c.text(
        "get",
        json!({"path": "memory/2027-01-20.md", "line": 3, "count": 2}),
    );
    assert!(
        slice.contains("(lines 3-4 of") && slice.contains("4  - request: draft the Q1 roadmap"),
        "{slice}"
    );

    // recall: within the budget.
    let pack = c.text(
        "recall",
        json!({"request": "postgres cutover", "budget": 120}),
    );
    assert!(pack.contains("memory/2027-01-08.md:3"), "{pack}");
    assert!(
        hipo_core::estimate_tokens(&pack) <= 140,
        "{}: {pack}",
        hipo_core::estimate_tokens(&pack)
    );

    // checkpoint: appended, then found by search and timeline.
    let done = c.text(
        "checkpoint",
        json!({
            "type": "feedback",
            "topic": "Kayak naming rule",
            "fields": {"rule": "name kayaks after rivers", "why": "the user likes it", "how-to-apply": "ask first"},
        }),
    );
    assert!(done.contains("memory/2027-01-21.md:3"), "{done}");
    let log = p.read("memory/2027-01-21.md");
    assert!(
        log.contains("## Kayak naming rule [feedback]\n- rule: name kayaks after rivers\n- why: the user likes it\n- how-to-apply: ask first\n"),
        "fields in the order given: {log}"
    );
    let r = c.call("search", json!({"query": "kayaks rivers"}));
    assert_eq!(
        r["result"]["structuredContent"]["hits"][0]["path"], "memory/2027-01-21.md",
        "{r}"
    );
    let tl = c.text("timeline", json!({"type": "feedback"}));
    assert!(
        tl.contains("2027-01-15..2027-01-21")
            && tl.contains("memory/2027-01-21.md:3  [feedback] Kayak naming rule"),
        "{tl}"
    );

    // status, then compact (no model: long nodes wait for a summary).
    let status = c.text("status", json!({}));
    assert!(status.contains("compaction due:"), "{status}");
    let compacted = c.text("compact", json!({}));
    assert!(compacted.contains("wrote"), "{compacted}");
    assert!(p.exists("memory/ROOT.md"));

    // timeline over two weeks: entries and nodes, newest first, path:line.
    let tl = c.text(
        "timeline",
        json!({"from": "2027-01-11", "to": "2027-01-21"}),
    );
    let lines: Vec<&str> = tl.lines().collect();
    assert!(lines[1].contains("memory/"), "{tl}");
    let at = |needle: &str| {
        lines
            .iter()
            .position(|l| l.contains(needle))
            .unwrap_or_else(|| panic!("{needle}: {tl}"))
    };
    assert!(
        at("memory/2027-01-20.md:3  [project] Q1 roadmap draft") < at("memory/2027-01-12.md:3")
    );
    assert!(at("memory/weekly/2027-W02.md:1  weekly node") > 0);

    // resources: ROOT and the hot file that exists.
    let list = c.request("resources/list", json!({}));
    let uris: Vec<String> = list["result"]["resources"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["uri"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(uris.len(), 2, "{list}");
    assert!(uris[0].ends_with("/memory/ROOT.md") && uris[1].ends_with("/SCRATCHPAD.md"));
    let read = c.request("resources/read", json!({"uri": uris[0]}));
    let root = read["result"]["contents"][0]["text"].as_str().unwrap();
    assert!(root.contains("## Topics Index"), "{read}");
    let r = c.request("resources/read", json!({"uri": "file:///etc/passwd"}));
    assert!(
        r["error"]["message"].as_str().unwrap().contains("`uri`"),
        "{r}"
    );
    let (code, err) = c.close();
    assert_eq!(code, Some(0), "{err}");
}

#[test]
fn bad_arguments_are_invalid_params_naming_the_argument() {
    let p = Project::sample();
    let mut c = Client::start(&p, &[], &[]);
    for (tool, args, says) in [
        (
            "search",
            json!({"query": "x", "type": "bug"}),
            "`type`: unknown type `bug`; use user, feedback",
        ),
        (
            "search",
            json!({"query": "x", "after": "2027-02-30"}),
            "`after`: `2027-02-30` is not a date; write it like",
        ),
        (
            "search",
            json!({"query": "x", "week": "2027-W60"}),
            "`week`:",
        ),
        ("search", json!({"query": "x", "limit": 0}), "`limit`:"),
        (
            "search",
            json!({"query": "x", "limit": "many"}),
            "`many` is not a count",
        ),
        ("search", json!({}), "search: missing field `query`"),
        (
            "search",
            json!({"query": "x", "colour": "red"}),
            "unknown field `colour`",
        ),
        ("get", json!({"path": "../../etc/passwd"}), "`path`:"),
        ("get", json!({"path": "memory/nope.md"}), "`path`:"),
        (
            "get",
            json!({"id": "#abcdef123456"}),
            "`id`: no section has id",
        ),
        ("get", json!({"id": "zz"}), "`id`:"),
        ("get", json!({}), "`path`: missing"),
        (
            "checkpoint",
            json!({"type": "bug", "topic": "t", "body": "b"}),
            "`type`: unknown type `bug`",
        ),
        (
            "checkpoint",
            json!({"type": "user", "topic": "t"}),
            "`fields`:",
        ),
        (
            "timeline",
            json!({"from": "yesterday"}),
            "`from`: `yesterday` is not a date",
        ),
        (
            "timeline",
            json!({"from": "2027-01-20", "to": "2027-01-10"}),
            "`from`:",
        ),
        ("timeline", json!({"type": "bug"}), "`type`:"),
        ("recall", json!({"request": " "}), "`request`:"),
    ] {
        let r = c.call(tool, args.clone());
        assert_eq!(r["error"]["code"], -32602, "{tool} {args}: {r}");
        let msg = r["error"]["message"].as_str().unwrap();
        assert!(msg.contains(says), "{tool} {args}: {msg}");
    }
    assert!(!p.exists("memory/2027-01-21.md"), "nothing written");
    let (code, err) = c.close();
    assert_eq!(code, Some(0), "{err}");
}

#[test]
fn engine_problems_are_tool_errors_and_a_held_lock_is_waited_on_boundedly() {
    // No project at the given directory: a tool error with hipo's message
    // (the server started all the same: nothing is opened before a call).
    let nowhere = Project {
        dir: tempfile::tempdir().unwrap(),
    };
    let mut c = Client::start(&nowhere, &[], &[]);
    let r = c.call("timeline", json!({}));
    assert_eq!(r["result"]["isError"], true, "{r}");
    let msg = r["result"]["content"][0]["text"].as_str().unwrap();
    assert!(msg.starts_with("hipo: "), "{msg}");
    drop(c);

    // Another process holds the lock: writes wait HIPO_LOCK_WAIT and say
    // so; a search answers from the index as it is, not fresh.
    let p = Project::sample();
    let mut c = Client::start(&p, &[], &[("HIPO_LOCK_WAIT", "0.3")]);
    let r = c.call("search", json!({"query": "postgres"}));
    assert_eq!(r["result"]["structuredContent"]["fresh"], true, "{r}");
    let project = hipo_core::Hipo::open(p.path()).unwrap();
    let held = project.lock(Duration::from_secs(5)).unwrap();
    let r = c.call(
        "checkpoint",
        json!({"type": "user", "topic": "t", "body": "b"}),
    );
    assert_eq!(r["result"]["isError"], true, "{r}");
    let msg = r["result"]["content"][0]["text"].as_str().unwrap();
    assert!(
        msg.contains("another hipo process") && msg.contains("waited 0.3 s"),
        "{msg}"
    );
    // Nothing changed: a read-only look says the index is current.
    let r = c.call("search", json!({"query": "postgres"}));
    assert_eq!(r["result"]["structuredContent"]["fresh"], true, "{r}");
    // A file changed: the index as it is answers, without waiting.
    p.append(
        "memory/2027-01-20.md",
        "\n## Walrus drill [project]\n- walrus\n",
    );
    let r = c.call("search", json!({"query": "postgres"}));
    assert_eq!(r["result"]["structuredContent"]["fresh"], false, "{r}");
    assert!(
        r["result"]["content"][0]["text"]
            .as_str()
            .unwrap()
            .starts_with("fresh: false"),
        "{r}"
    );
    drop(held);
    let (code, err) = c.close();
    assert_eq!(code, Some(0), "{err}");
}

#[test]
fn compact_sends_progress_notifications_for_its_token() {
    let server = FakeOllama::start(Mode::Ok);
    let p = Project::sample();
    p.write(
        "hipocampus.config.json",
        r#"{"compaction": {"dailyThreshold": 5, "weeklyThreshold": 10, "monthlyThreshold": 20}}"#,
    );
    let mut c = Client::start(
        &p,
        &["--llm", "ollama", "--model", "fake", "--host", &server.url],
        &[],
    );
    let r = c.request(
        "tools/call",
        json!({"name": "compact", "arguments": {}, "_meta": {"progressToken": "tok-1"}}),
    );
    assert_eq!(r["result"]["isError"], false, "{r}");
    let text = r["result"]["content"][0]["text"].as_str().unwrap();
    assert!(text.contains("wrote") && text.contains("llm: "), "{text}");
    let progress: Vec<&Value> = c
        .notes
        .iter()
        .filter(|n| n["method"] == "notifications/progress")
        .collect();
    assert!(progress.len() >= 5, "{:?}", c.notes);
    let mut last = 0.0;
    for n in &progress {
        assert_eq!(n["params"]["progressToken"], "tok-1", "{n}");
        let v = n["params"]["progress"].as_f64().unwrap();
        assert!(v > last, "progress grows: {progress:?}");
        assert!(v <= n["params"]["total"].as_f64().unwrap(), "{n}");
        last = v;
    }
    assert!(
        progress[0]["params"]["message"]
            .as_str()
            .unwrap()
            .contains("memory/"),
        "{progress:?}"
    );
    // Without a token, no notification.
    c.notes.clear();
    p.append(
        "memory/2027-01-20.md",
        "\n## More [project]\n- a\n- b\n- c\n- d\n- e\n",
    );
    let r = c.call("compact", json!({}));
    assert_eq!(r["result"]["isError"], false, "{r}");
    assert!(c.notes.is_empty(), "{:?}", c.notes);
    assert!(server.generates().len() > 5);
    let (code, err) = c.close();
    assert_eq!(code, Some(0), "{err}");
}

#[test]
fn the_project_is_found_from_claude_project_dir_on_the_first_call() {
    let p = Project::sample();
    let elsewhere = tempfile::tempdir().unwrap();
    let mut cmd = Command::new(assert_cmd::cargo::cargo_bin!("hipo"));
    cmd.current_dir(elsewhere.path());
    let dir = p.path().to_str().unwrap();
    let mut c = Client::spawn(cmd, &[], &[("CLAUDE_PROJECT_DIR", dir)]);
    let tl = c.text(
        "timeline",
        json!({"from": "2027-01-20", "to": "2027-01-20"}),
    );
    assert!(
        tl.contains("memory/2027-01-20.md:3  [project] Q1 roadmap draft"),
        "{tl}"
    );
    let (code, err) = c.close();
    assert_eq!(code, Some(0), "{err}");

    // No project anywhere: resources are an empty list, tools say why.
    let mut cmd = Command::new(assert_cmd::cargo::cargo_bin!("hipo"));
    cmd.current_dir(elsewhere.path());
    let mut c = Client::spawn(cmd, &[], &[]);
    let list = c.request("resources/list", json!({}));
    assert_eq!(list["result"]["resources"], json!([]), "{list}");
    let r = c.call("status", json!({}));
    assert_eq!(r["result"]["isError"], true, "{r}");
}

#[test]
fn search_and_recall_take_a_mode_and_embed_at_ollama_host() {
    let p = Project::empty();
    p.write(
        "memory/2026-03-02.md",
        "# 2026-03-02\n\n## Bought a sedan\nUser: picked up the new sedan today, blue.\n\n## Walks\nUser: a long walk with the puppy by the river.\n",
    );
    let server = FakeOllama::start(Mode::Ok);
    let env = [
        ("OLLAMA_HOST", server.url.as_str()),
        ("HIPO_EMBED_MODEL", "fake"),
    ];
    let mut c = Client::start(&p, &[], &env);
    let first = |r: &Value| r["result"]["structuredContent"]["hits"][0]["heading"].clone();
    // Hybrid by default once a model is named: "automobile" finds the sedan.
    let r = c.call("search", json!({"query": "automobile"}));
    assert_eq!(first(&r), "2026-03-02 › Bought a sedan", "{r}");
    assert_eq!(r["result"]["structuredContent"]["semantic"], true, "{r}");
    assert!(!server.embeds().is_empty(), "embedded at OLLAMA_HOST");
    // Lexical on request: no word of the question is in memory.
    let r = c.call("search", json!({"query": "automobile", "mode": "lexical"}));
    assert_eq!(r["result"]["structuredContent"]["hits"], json!([]), "{r}");
    assert!(r["result"]["structuredContent"].get("semantic").is_none());
    let r = c.call("search", json!({"query": "canine", "mode": "vector"}));
    assert_eq!(first(&r), "2026-03-02 › Walks", "{r}");
    let r = c.call("search", json!({"query": "x", "mode": "fuzzy"}));
    assert_eq!(r["error"]["code"], -32602, "{r}");
    assert!(r["error"]["message"].as_str().unwrap().contains("`mode`"));
    // recall takes the same modes.
    let said = |r: &Value| {
        r["result"]["content"][0]["text"]
            .as_str()
            .unwrap()
            .to_string()
    };
    let r = c.call("recall", json!({"request": "the canine", "mode": "vector"}));
    assert!(said(&r).contains("Walks"), "{r}");
    let r = c.call(
        "recall",
        json!({"request": "automobile", "mode": "lexical"}),
    );
    assert!(said(&r).contains("nothing in memory matches"), "{r}");
    let r = c.call("recall", json!({"request": "automobile", "mode": "fuzzy"}));
    assert_eq!(r["error"]["code"], -32602, "{r}");
    let (code, err) = c.close();
    assert_eq!(code, Some(0), "{err}");

    // Without a model, asking for vectors names what is missing.
    let mut c = Client::start(&p, &[], &[("OLLAMA_HOST", server.url.as_str())]);
    let r = c.call("search", json!({"query": "car", "mode": "hybrid"}));
    assert_eq!(r["error"]["code"], -32602, "{r}");
    let msg = r["error"]["message"].as_str().unwrap();
    assert!(msg.contains("`mode`") && msg.contains("embed"), "{msg}");
    let r = c.call("recall", json!({"request": "car", "mode": "vector"}));
    assert_eq!(r["error"]["code"], -32602, "{r}");
    c.close();
}

/// An agent is handed the whole answer: a big file comes a page at a
/// time, saying where to read on, and a huge line is cut.
#[test]
fn get_gives_a_big_file_a_page_at_a_time() {
    let p = Project::empty();
    let body: String = (1..=2_500).map(|i| format!("- note {i}\n")).collect();
    p.write(
        "memory/2027-01-03.md",
        format!("# 2027-01-03\n\n## Notes\n{body}"),
    );
    p.write(
        "memory/2027-01-04.md",
        format!("# 2027-01-04\n\n## Dump\n{}\n", "x".repeat(100_000)),
    );
    let mut c = Client::start(&p, &[], &[]);
    let page = c.text("get", json!({"path": "memory/2027-01-03.md"}));
    assert!(
        page.starts_with("memory/2027-01-03.md (lines 1-2000 of 2503)\n"),
        "{}",
        &page[..200]
    );
    assert!(
        page.contains("2000  - note 1997\n"),
        "{}",
        &page[page.len() - 300..]
    );
    assert!(
        page.ends_with("… 503 more lines not shown: call get with path memory/2027-01-03.md, line 2001 (and a count) to read on\n"),
        "{}",
        &page[page.len() - 300..]
    );
    let rest = c.text(
        "get",
        json!({"path": "memory/2027-01-03.md", "line": 2001, "count": 600}),
    );
    assert!(
        rest.starts_with("memory/2027-01-03.md (lines 2001-2503 of 2503)\n"),
        "{rest}"
    );
    assert!(!rest.contains("more lines not shown"), "{rest}");
    let dump = c.text(
        "get",
        json!({"path": "memory/2027-01-04.md", "line": 4, "count": 1}),
    );
    assert!(dump.len() < 41_000, "{}", dump.len());
    assert!(
        dump.contains(" … [line cut]\n"),
        "{}",
        &dump[dump.len() - 100..]
    );
}

/// Input that is not JSON gets a JSON-RPC parse error (-32700, id null),
/// and a `tools/call` without a tool name invalid params (-32602); the
/// server goes on answering after either.
#[test]
fn not_json_is_a_parse_error_and_a_nameless_call_invalid_params() {
    let p = Project::sample();
    let mut c = Client::start(&p, &[], &[]);
    for bad in [
        "{",
        "hello",
        "{\"jsonrpc\":\"2.0\",\"id\":",
        "\u{7}",
        "[1, 2",
        "tru",
    ] {
        c.send_line(bad);
        let v = c.next_line();
        assert_eq!(v["error"]["code"], -32700, "{bad}: {v}");
        assert_eq!(v["id"], serde_json::Value::Null, "{bad}: {v}");
    }
    let v = c.request("tools/call", json!({"arguments": {"query": "x"}}));
    assert_eq!(v["error"]["code"], -32602, "{v}");
    let tools = c.request("tools/list", json!({}));
    assert!(tools["result"]["tools"].is_array(), "{tools}");
    let (code, _) = c.close();
    assert_eq!(code, Some(0));
}
