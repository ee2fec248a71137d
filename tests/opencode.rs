//! OpenCode through the real binary: `hipo init --platform opencode` on a
//! project with someone else's config and plugin, `hipo uninstall`, and
//! the capture (`hipo hook opencode stop`, `hipo ingest --platform
//! opencode`) from a store shaped as OpenCode 1.18 writes it. The real
//! OpenCode runs in tests/agents.rs.

use crate::common;
use common::Project;
use std::path::Path;
use std::process::Command;

const TODAY: &str = "2027-01-21";

const USERS_CONFIG: &str = "{\n  \"$schema\": \"https://opencode.ai/config.json\",\n  // the team's model\n  \"model\": \"anthropic/claude-sonnet-4-5\",\n  \"mcp\": {\n    \"docs\": {\"type\": \"remote\", \"url\": \"https://docs.example\"}\n  }\n}\n";

#[test]
fn init_installs_the_plugin_mcp_and_skills_keeps_the_users_files_and_uninstall_undoes_it() {
    let p = Project::empty();
    p.write("opencode.json", USERS_CONFIG);
    p.write(
        ".opencode/plugins/theirs.js",
        "export const Theirs = async () => ({})\n",
    );
    p.write("AGENTS.md", "# Team rules\nUse tabs.\n");
    // Detected from opencode.json alone.
    let (code, out, err) = p.run(["init"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        out.contains("opencode: created .opencode/plugins/hipo.js"),
        "{out}"
    );
    let plugin = p.read(".opencode/plugins/hipo.js");
    assert!(plugin.contains("export const HipoPlugin = async"));
    assert!(plugin.contains("\"hook\", \"opencode\""));
    assert!(
        !plugin.contains("execSync") && !plugin.contains("@opencode-ai/plugin\""),
        "never blocks, imports nothing OpenCode must install"
    );
    let config = p.read("opencode.json");
    assert!(
        config.starts_with(&USERS_CONFIG[..USERS_CONFIG.find("  \"mcp\"").unwrap()]),
        "the user's bytes come first, unchanged:\n{config}"
    );
    let v: serde_json::Value =
        serde_json::from_str(&config.replace("// the team's model\n", "")).unwrap();
    assert_eq!(
        v["mcp"]["hipo"]["command"],
        serde_json::json!(["hipo", "mcp"])
    );
    assert_eq!(v["mcp"]["hipo"]["type"], "local");
    assert_eq!(v["mcp"]["docs"]["url"], "https://docs.example");
    for skill in ["hipo-memory", "hipo-recall", "hipo-flush"] {
        let text = p.read(&format!(".opencode/skills/{skill}/SKILL.md"));
        assert!(
            text.starts_with(&format!("---\nname: {skill}\ndescription: ")),
            "OpenCode wants name == folder: {text}"
        );
    }
    assert!(
        p.read("AGENTS.md")
            .starts_with("# Team rules\nUse tabs.\n\n<!-- hipo:begin")
    );
    let installed = p.snapshot();
    let (code, out, _) = p.run(["init", "--platform", "opencode"]);
    assert_eq!(code, 0);
    assert!(out.contains("nothing changed"), "{out}");
    assert_eq!(installed, p.snapshot(), "a re-run writes nothing");

    // doctor: the plugin and MCP entry, and `hipo` on PATH for both.
    let doctor = |path: &std::ffi::OsStr| {
        let out = p
            .hipo()
            .arg("doctor")
            .env("PATH", path)
            .env_remove("HIPO_BIN")
            .output()
            .unwrap();
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
        )
    };
    let bin_dir = Path::new(env!("CARGO_BIN_EXE_hipo")).parent().unwrap();
    let (code, out) = doctor(bin_dir.as_os_str());
    insta::assert_snapshot!(out, @"
    ok   opencode: plugin installed in .opencode/plugins/hipo.js
    warn a compaction is due (never compacted): run `hipo compact`
    ");
    assert_eq!(code, Some(0), "{out}");
    let (code, out) = doctor(std::ffi::OsStr::new("/nowhere"));
    insta::assert_snapshot!(out, @"
    ok   opencode: plugin installed in .opencode/plugins/hipo.js
    fix  opencode: the plugin runs `hipo`, which is not on PATH: install hipo there (cargo install --path .)
    fix  the MCP server is registered as `hipo mcp`, but `hipo` is not on PATH: install it there (cargo install --path .)
    warn a compaction is due (never compacted): run `hipo compact`
    ");
    assert_eq!(code, Some(1));
    p.append(".opencode/plugins/hipo.js", "// edited\n");
    let (_, out) = doctor(bin_dir.as_os_str());
    insta::assert_snapshot!(out, @"
    fix  opencode: .opencode/plugins/hipo.js is not this hipo's plugin (edited, or from another version): run `hipo init --platform opencode` again
    warn a compaction is due (never compacted): run `hipo compact`
    ");
    p.run(["init", "--platform", "opencode"]);

    let (code, out, err) = p.run(["uninstall", "--platform", "opencode"]);
    assert_eq!(code, 0, "{out}{err}");
    assert_eq!(p.read("opencode.json"), USERS_CONFIG);
    assert_eq!(p.read("AGENTS.md"), "# Team rules\nUse tabs.\n");
    assert_eq!(
        p.read(".opencode/plugins/theirs.js"),
        "export const Theirs = async () => ({})\n"
    );
    assert!(!p.exists(".opencode/plugins/hipo.js"));
    assert!(!p.exists(".opencode/skills/hipo-recall"));
    assert!(p.exists("WORKING.md"), "memory files stay");
}

/// OpenCode 1.18's tables with one session in `dir`: a prompt, a tool
/// call, an answer, a plugin's synthetic part and an auto-compaction.
fn store(db: &Path, dir: &Path) {
    let c = rusqlite::Connection::open(db).unwrap();
    c.execute_batch(
        "PRAGMA journal_mode=WAL;
         CREATE TABLE session (id TEXT PRIMARY KEY, directory TEXT, title TEXT, time_created INTEGER, time_updated INTEGER);
         CREATE TABLE message (id TEXT PRIMARY KEY, session_id TEXT, time_created INTEGER, time_updated INTEGER, data TEXT);
         CREATE TABLE part (id TEXT PRIMARY KEY, message_id TEXT, session_id TEXT, time_created INTEGER, time_updated INTEGER, data TEXT);",
    )
    .unwrap();
    c.execute(
        "INSERT INTO session VALUES ('ses_1', ?1, 'Frankfurt', 1, 2)",
        [dir.to_string_lossy()],
    )
    .unwrap();
    let rows = [
        (
            "msg_1",
            r#"{"role":"user","time":{"created":1800000000000},"summary":{"diffs":[]}}"#,
            "prt_1",
            r#"{"type":"text","text":"the staging database moves to Frankfurt on Friday"}"#,
        ),
        (
            "msg_1",
            "",
            "prt_2",
            r#"{"type":"text","synthetic":true,"text":"injected context"}"#,
        ),
        (
            "msg_2",
            r#"{"role":"assistant","time":{"created":1800000001000,"completed":1800000002000}}"#,
            "prt_3",
            r#"{"type":"tool","tool":"bash","callID":"c","state":{"status":"completed","input":{"command":"terraform plan"},"output":"Plan: 1 to change\nmore"}}"#,
        ),
        (
            "msg_2",
            "",
            "prt_4",
            r#"{"type":"text","text":"Noted: staging moves to eu-central-1."}"#,
        ),
        (
            "msg_3",
            r#"{"role":"user","time":{"created":1800000003000}}"#,
            "prt_5",
            r#"{"type":"compaction","auto":true}"#,
        ),
        (
            "msg_4",
            r#"{"role":"assistant","mode":"compaction","summary":true,"time":{"created":1800000004000,"completed":1800000005000}}"#,
            "prt_6",
            r#"{"type":"text","text":"SUMMARY-TEXT"}"#,
        ),
    ];
    for (mid, mdata, pid, pdata) in rows {
        if !mdata.is_empty() {
            c.execute(
                "INSERT INTO message VALUES (?1, 'ses_1', 0, 0, ?2)",
                [mid, mdata],
            )
            .unwrap();
        }
        c.execute(
            "INSERT INTO part VALUES (?1, ?2, 'ses_1', 0, 0, ?3)",
            [pid, mid, pdata],
        )
        .unwrap();
    }
}

fn hook(p: &Project, db: &Path, event: &str, stdin: &str) -> String {
    let out = common::run_with_stdin(
        Command::new(env!("CARGO_BIN_EXE_hipo"))
            .args(["--today", TODAY, "hook", "opencode", event])
            .current_dir(p.path().parent().unwrap())
            .env_remove("HIPO_DIR")
            .env("OPENCODE_DB", db),
        stdin,
    );
    assert!(out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.is_empty(), "{err}");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn the_plugins_calls_load_memory_and_capture_a_session_once() {
    let p = Project::sample();
    assert_eq!(p.compact(TODAY).0, 0);
    let work = tempfile::tempdir().unwrap();
    let db = work.path().join("opencode.db");
    store(&db, &p.path().canonicalize().unwrap());
    let input = format!(
        r#"{{"session_id":"ses_1","cwd":"{}","hook_event_name":"session.idle"}}"#,
        p.path().display()
    );
    let context = hook(&p, &db, "session-start", &input);
    assert!(context.contains("=== memory/ROOT.md ==="), "{context}");
    assert_eq!(hook(&p, &db, "stop", &input), "", "capture prints nothing");
    assert_eq!(hook(&p, &db, "stop", &input), "");
    let log = p.read(&format!("memory/{TODAY}.md"));
    assert_eq!(
        log.matches("User: the staging database moves to Frankfurt on Friday")
            .count(),
        1,
        "{log}"
    );
    assert!(
        log.contains("Tool: bash terraform plan\nOutput: Plan: 1 to change\n"),
        "{log}"
    );
    assert!(
        log.contains("Assistant: Noted: staging moves to eu-central-1."),
        "{log}"
    );
    assert!(
        !log.contains("injected context") && !log.contains("SUMMARY-TEXT"),
        "{log}"
    );
    // By hand: every session run in the project, nothing new.
    let v = p.json([
        "ingest",
        "--today",
        TODAY,
        "--platform",
        "opencode",
        db.to_str().unwrap(),
    ]);
    assert_eq!(v[0]["messages"], 0, "{v}");
    assert_eq!(p.read(&format!("memory/{TODAY}.md")), log);
    let (code, _, err) = p.run([
        "ingest",
        "--platform",
        "opencode",
        "--session",
        "ses_1",
        "/nowhere/opencode.db",
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("/nowhere/opencode.db does not exist"), "{err}");
}

#[test]
fn codex_and_opencode_share_agents_md_until_both_are_uninstalled() {
    let p = Project::empty();
    for platform in ["codex", "opencode"] {
        let (code, out, err) = p.run(["init", "--platform", platform]);
        assert_eq!(code, 0, "{out}{err}");
    }
    let (code, _, _) = p.run(["uninstall", "--platform", "opencode"]);
    assert_eq!(code, 0);
    assert!(
        p.read("AGENTS.md").contains("<!-- hipo:begin"),
        "Codex still reads it"
    );
    assert!(!p.exists(".opencode/plugins/hipo.js"));
    let (code, _, _) = p.run(["uninstall", "--platform", "codex"]);
    assert_eq!(code, 0);
    assert!(!p.exists("AGENTS.md"), "it held only hipo's block");
}
