//! The real agent clients, headless against a fake model endpoint on
//! 127.0.0.1 (`tests/fakes/`): after `hipo init --platform …` the client
//! runs hipo's real hooks, and its request log and transcript show what
//! reached the model and what was captured.
//!
//! Skipped, with a message, when the clients are not installed: set
//! `HIPO_AGENT_CLIENTS` to the directory given to
//! `tests/fakes/install-clients.sh` (`.ci/run` does; default
//! `/work/agents`).

use crate::common;
use common::{Project, Succeeds};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The fake model servers and helper scripts, in the repository.
fn tools() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fakes")
}

/// The client's binary, if installed.
fn client(name: &str) -> Option<PathBuf> {
    let dir = std::env::var_os("HIPO_AGENT_CLIENTS")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/work/agents"));
    let bin = dir.join("node_modules/.bin").join(name);
    if !bin.is_file() {
        eprintln!(
            "skipped: {name} is not installed (run tests/fakes/install-clients.sh DIR and set HIPO_AGENT_CLIENTS=DIR)"
        );
        return None;
    }
    // The fake model servers are Python scripts.
    let python = Command::new("python3").arg("--version").output();
    if !python.is_ok_and(|o| o.status.success()) {
        eprintln!("skipped: {name} needs python3 for the fake model server");
        return None;
    }
    Some(bin)
}

/// How long to wait for something a client or a fake does in the
/// background (a detached capture, a server's start): generous, as six
/// clients start at once on a busy 2-core CI machine; it only bounds how
/// long a failure takes to show.
const PATIENCE: Duration = Duration::from_secs(60);

/// A fake model server; killed on drop.
struct Fake {
    child: Child,
    port: String,
    log: PathBuf,
}

impl Fake {
    fn start(script: &str, dir: &Path) -> Fake {
        let (port_file, log) = (dir.join("port"), dir.join("requests.jsonl"));
        let child = Command::new("python3")
            .arg(tools().join(script))
            .arg("--port-file")
            .arg(&port_file)
            .arg("--log")
            .arg(&log)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let start = Instant::now();
        while !port_file.exists() && start.elapsed() < PATIENCE {
            std::thread::sleep(Duration::from_millis(50));
        }
        let port = std::fs::read_to_string(&port_file)
            .unwrap_or_else(|e| panic!("{script} wrote no port file: {e}"))
            .trim()
            .to_string();
        Fake { child, port, log }
    }

    fn requests(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }
}

impl Drop for Fake {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `PATH` with this build's `hipo` first, as after `cargo install`.
fn path_with_hipo() -> std::ffi::OsString {
    let bin = Path::new(env!("CARGO_BIN_EXE_hipo"))
        .parent()
        .unwrap()
        .to_path_buf();
    let rest = std::env::var_os("PATH").unwrap_or_default();
    std::env::join_paths(std::iter::once(bin).chain(std::env::split_paths(&rest))).unwrap()
}

/// The first prompt of each client's run: the question the sample's
/// Postgres 16 cutover entry (`memory/2027-01-08.md`) answers, followed by
/// a test marker and the fake's directive lines (`FAKE_TOOL: …`,
/// `FAKE_USAGE: …`): words the memory has never seen, as real prompts
/// carry file names, identifiers and pasted errors. The default recall
/// floor must let it through all the same.
const CUTOVER: &str = "When did we cut over to Postgres 16, and what was the read-only window? zqx-cx-marker-one-23562";

/// The first model request that carries the user's first prompt holds
/// the recall of the cutover entry.
fn assert_first_request_recalls_cutover(requests: &str) {
    let first = requests
        .lines()
        .find(|l| l.contains("zqx-cx-marker-one-23562"))
        .expect("the prompt reached no request");
    assert!(
        first.contains("Passages from hipo memory"),
        "no prompt recall in the first request: {first}"
    );
    assert!(
        first.contains("memory/2027-01-08.md"),
        "the cutover entry is not recalled in the first request: {first}"
    );
}

/// Claude Code, headless in `p` against `fake`, with `home` as its
/// `HOME` and the test's hipo on `PATH`.
fn claude_code(claude: &Path, p: &Project, home: &Path, fake: &Fake) -> Command {
    let mut cmd = Command::new(claude);
    cmd.current_dir(p.path())
        .env("HOME", home)
        .env("ANTHROPIC_API_KEY", "sk-ant-dummy")
        .env(
            "ANTHROPIC_BASE_URL",
            format!("http://127.0.0.1:{}", fake.port),
        )
        // No traffic but the fake's: no telemetry, error reports or
        // update checks, which would wait on the network.
        .env("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
        .env("DISABLE_TELEMETRY", "1")
        .env("DISABLE_AUTOUPDATER", "1")
        // List MCP tools in the request instead of deferring them behind
        // ToolSearch.
        .env("ENABLE_TOOL_SEARCH", "false")
        .env("PATH", path_with_hipo())
        .env_remove("HIPO_DIR")
        .stdin(Stdio::null());
    cmd
}

/// `codex exec` in `root` with `home` and `codex_home`, the test's hipo
/// on `PATH`.
fn codex_exec(codex: &Path, root: &Path, home: &Path, codex_home: &Path) -> Command {
    let mut cmd = Command::new(codex);
    cmd.arg("exec")
        .current_dir(root)
        .env("HOME", home)
        .env("CODEX_HOME", codex_home)
        .env("FAKE_API_KEY", "dummy")
        .env("PATH", path_with_hipo())
        .env_remove("HIPO_DIR")
        .stdin(Stdio::null());
    cmd
}

fn today() -> String {
    chrono::Local::now().date_naive().to_string()
}

#[test]
fn claude_code_loads_memory_recalls_and_captures_each_message_once() {
    let Some(claude) = client("claude") else {
        return;
    };
    let p = Project::sample();
    assert_eq!(p.compact("2027-01-21").0, 0);
    let init = p
        .hipo()
        .args(["init", "--platform", "claude-code"])
        .env("PATH", path_with_hipo())
        .output()
        .unwrap();
    assert!(init.status.success());
    assert!(
        p.read(".claude/settings.local.json")
            .contains("\"hipo hook claude-code stop\"")
    );
    let work = tempfile::tempdir().unwrap();
    let home = work.path().join("home");
    std::fs::create_dir(&home).unwrap();
    let fake = Fake::start("fake_anthropic.py", work.path());
    let run = |args: &[&str]| {
        let out = claude_code(&claude, &p, &home, &fake)
            .args(args)
            .args(["--output-format", "json", "--allowedTools", "Bash"])
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        assert!(
            out.status.success(),
            "{text}{}",
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_str::<serde_json::Value>(&text).unwrap()
    };
    // A prompt the memory answers, a tool call, and usage that makes
    // Claude Code compact its context once.
    let prompt = format!("{CUTOVER}\nFAKE_TOOL: echo tool-ran\nFAKE_USAGE: 990000");
    let first = run(&["-p", &prompt]);
    let requests = fake.requests();
    assert_first_request_recalls_cutover(&requests);
    // ROOT's Topics Index reached the model (CLAUDE.md imports it), and
    // again after the compaction (the session-start hook loads it fresh).
    assert!(
        requests.contains("postgres-16"),
        "ROOT topics not in any request"
    );
    assert!(
        requests.contains("=== memory/ROOT.md ==="),
        "no session-start context after compaction"
    );
    assert!(
        requests.contains("Passages from hipo memory"),
        "no prompt recall"
    );

    let log_path = format!("memory/{}.md", today());
    let wait_for = |what: &str| {
        // Stop runs in the background: give it a moment.
        let start = Instant::now();
        while start.elapsed() < PATIENCE {
            if p.exists(&log_path) && p.read(&log_path).contains(what) {
                return;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        panic!("{what} never reached {log_path}");
    };
    wait_for(&format!("User: {CUTOVER}"));
    let session = first["session_id"].as_str().unwrap().to_string();
    run(&[
        "-p",
        "and who signed off the cutover?",
        "--resume",
        &session,
    ]);
    wait_for("User: and who signed off the cutover?");
    std::thread::sleep(Duration::from_millis(500));
    let log = p.read(&log_path);
    assert_eq!(log.matches(&format!("User: {CUTOVER}")).count(), 1, "{log}");
    assert_eq!(
        log.matches("User: and who signed off the cutover?").count(),
        1,
        "{log}"
    );
    assert!(log.contains("Tool: Bash echo tool-ran"), "{log}");
}

#[test]
fn codex_loads_memory_recalls_and_captures_each_message_once() {
    let Some(codex) = client("codex") else {
        return;
    };
    let p = Project::sample();
    assert_eq!(p.compact("2027-01-21").0, 0);
    let (code, out, err) = p.run(["init", "--platform", "codex"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("/hooks"), "the review step is named: {out}");
    let work = tempfile::tempdir().unwrap();
    let codex_home = work.path().join("home/.codex");
    std::fs::create_dir_all(&codex_home).unwrap();
    let fake = Fake::start("fake_openai.py", work.path());
    let root = p.path().canonicalize().unwrap();
    // The user's review of the project and of each hook, as Codex's
    // /hooks screen records it.
    let hashes = Command::new("python3")
        .arg(tools().join("codex_hook_hash.py"))
        .arg(root.join(".codex/hooks.json"))
        .output()
        .unwrap();
    assert!(hashes.status.success());
    let config = format!(
        "model = \"fake-model\"\nmodel_provider = \"fake\"\nmodel_auto_compact_token_limit = 5000\n\n[model_providers.fake]\nname = \"fake\"\nbase_url = \"http://127.0.0.1:{}/v1\"\nwire_api = \"responses\"\nenv_key = \"FAKE_API_KEY\"\n\n[projects.\"{}\"]\ntrust_level = \"trusted\"\n\n{}",
        fake.port,
        root.display(),
        String::from_utf8_lossy(&hashes.stdout)
    );
    let doctor = |p: &Project| {
        let out = p
            .hipo()
            .arg("doctor")
            .env("CODEX_HOME", &codex_home)
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    std::fs::write(
        codex_home.join("config.toml"),
        &config[..config.find("[hooks.state").unwrap_or(config.len())],
    )
    .unwrap();
    assert!(doctor(&p).contains("not reviewed"), "{}", doctor(&p));
    std::fs::write(codex_home.join("config.toml"), config).unwrap();
    assert!(!doctor(&p).contains("not reviewed"), "{}", doctor(&p));
    let run = |args: &[&str]| {
        codex_exec(&codex, &root, &work.path().join("home"), &codex_home)
            .args([
                "--skip-git-repo-check",
                "--dangerously-bypass-approvals-and-sandbox",
            ])
            .args(args)
            .succeeds();
    };
    run(&[&format!(
        "{CUTOVER}\nFAKE_TOOL: echo tool-ran\nFAKE_USAGE: 50000"
    )]);
    let requests = fake.requests();
    assert_first_request_recalls_cutover(&requests);
    assert!(
        requests.contains("=== memory/ROOT.md ==="),
        "no session-start context"
    );
    assert!(
        requests.contains("postgres-16"),
        "ROOT topics not in any request"
    );
    assert!(
        requests.contains("Passages from hipo memory"),
        "no prompt recall"
    );
    run(&["resume", "--last", "and who signed off the cutover?"]);
    let log = p.read(&format!("memory/{}.md", today()));
    assert_eq!(log.matches(&format!("User: {CUTOVER}")).count(), 1, "{log}");
    assert_eq!(
        log.matches("User: and who signed off the cutover?").count(),
        1,
        "{log}"
    );
    assert!(log.contains("Tool: exec_command echo tool-ran"), "{log}");
}

/// `opencode run` headless in `project` against `fake`, the prompt on
/// stdin (an argument with spaces reaches the model quoted), every
/// OpenCode directory under `home`, npm failing at once instead of
/// retrying offline. Returns the session id from the first JSON event.
fn opencode_run(
    opencode: &Path,
    project: &Path,
    home: &Path,
    prompt: &str,
    session: Option<&str>,
) -> String {
    let mut cmd = Command::new(opencode);
    cmd.args(["run", "--format", "json"]);
    if let Some(id) = session {
        cmd.args(["--session", id]);
    }
    let mut child = cmd
        .current_dir(project)
        // OpenCode takes its directory from PWD, not from its cwd.
        .env("PWD", project)
        .env("HOME", home)
        .env("XDG_CONFIG_HOME", home.join(".config"))
        .env("XDG_DATA_HOME", home.join(".local/share"))
        .env("XDG_CACHE_HOME", home.join(".cache"))
        .env("XDG_STATE_HOME", home.join(".local/state"))
        .env("OPENCODE_DISABLE_MODELS_FETCH", "1")
        .env("OPENCODE_DISABLE_AUTOUPDATE", "1")
        .env("OPENCODE_DISABLE_SHARE", "1")
        .env("OPENCODE_DISABLE_LSP_DOWNLOAD", "1")
        .env("npm_config_registry", "http://127.0.0.1:9/")
        .env("npm_config_fetch_retries", "0")
        .env("PATH", path_with_hipo())
        .env_remove("HIPO_DIR")
        .env_remove("HIPO_BIN")
        .env_remove("OPENCODE_DB")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    {
        use std::io::Write;
        let mut stdin = child.stdin.take().unwrap();
        stdin.write_all(prompt.as_bytes()).unwrap();
    }
    let out = child.wait_with_output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    text.lines()
        .find_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .and_then(|v| v["sessionID"].as_str().map(str::to_string))
        .unwrap_or_else(|| panic!("no session id in {text}"))
}

/// The project's `opencode.json` pointed at the fake: hipo's own entries
/// (written by `hipo init`) merged with a provider whose small context
/// makes OpenCode compact once.
fn opencode_config(p: &Project, port: &str) {
    let provider = format!(
        r#"{{"fake": {{"npm": "@ai-sdk/openai-compatible", "name": "Fake", "options": {{"baseURL": "http://127.0.0.1:{port}/v1", "apiKey": "dummy"}}, "models": {{"fake-model": {{"name": "Fake Model", "limit": {{"context": 8000, "output": 1000}}}}}}}}}}"#
    );
    p.write(
        "opencode.json",
        format!(
            "{{\n  \"model\": \"fake/fake-model\",\n  \"small_model\": \"fake/fake-model\",\n  \"autoupdate\": false,\n  \"share\": \"disabled\",\n  \"provider\": {provider}\n}}\n"
        ),
    );
}

/// Waits for `what` in `rel` (OpenCode's capture runs detached).
fn wait_for(p: &Project, rel: &str, what: &str) {
    let start = Instant::now();
    while start.elapsed() < PATIENCE {
        if p.exists(rel) && p.read(rel).contains(what) {
            return;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    panic!("{what} never reached {rel}");
}

#[test]
fn opencode_loads_memory_recalls_and_captures_each_message_once() {
    let Some(opencode) = client("opencode") else {
        return;
    };
    let p = Project::sample();
    assert_eq!(p.compact("2027-01-21").0, 0);
    let work = tempfile::tempdir().unwrap();
    let home = work.path().join("home");
    std::fs::create_dir(&home).unwrap();
    let fake = Fake::start("fake_openai.py", work.path());
    opencode_config(&p, &fake.port);
    let (code, out, err) = p.run(["init"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        out.contains("opencode: created .opencode/plugins/hipo.js"),
        "{out}"
    );
    let root = p.path().canonicalize().unwrap();
    // A prompt the memory answers, a tool call, and usage over the
    // model's context: OpenCode compacts once, then continues by itself.
    let session = opencode_run(
        &opencode,
        &root,
        &home,
        &format!("{CUTOVER}\nFAKE_TOOL: echo tool-ran\nFAKE_USAGE: 50000\n"),
        None,
    );
    let requests: Vec<serde_json::Value> = fake
        .requests()
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect();
    let text = |r: &serde_json::Value| r["body"].to_string();
    assert_first_request_recalls_cutover(&fake.requests());
    assert!(
        requests.iter().any(|r| text(r).contains("postgres-16")),
        "ROOT topics not in any request"
    );
    assert!(
        requests
            .iter()
            .any(|r| text(r).contains("Passages from hipo memory")),
        "no prompt recall"
    );
    // The compaction summary request, and the turn after it.
    let compaction = requests
        .iter()
        .position(|r| text(r).contains("summarization agent") || text(r).contains("<conversation>"))
        .expect("OpenCode did not compact");
    assert!(
        text(&requests[compaction]).contains("=== memory/ROOT.md ==="),
        "the memory is not in the compaction prompt"
    );
    let after = &requests[compaction + 1..];
    assert!(
        after
            .iter()
            .any(|r| text(r).contains("Continue if you have next steps")
                && text(r).contains("=== memory/ROOT.md ===")),
        "the memory is not back after the compaction"
    );

    let log_path = format!("memory/{}.md", today());
    wait_for(&p, &log_path, &format!("User: {CUTOVER}"));
    opencode_run(
        &opencode,
        &root,
        &home,
        "and who signed off the cutover?\n",
        Some(&session),
    );
    wait_for(&p, &log_path, "User: and who signed off the cutover?");
    std::thread::sleep(Duration::from_millis(500));
    // By hand, after the hooks: nothing new.
    let db = home.join(".local/share/opencode/opencode.db");
    let v = p.json(["ingest", "--platform", "opencode", db.to_str().unwrap()]);
    assert!(
        v.as_array().unwrap().iter().all(|r| r["messages"] == 0),
        "{v}"
    );
    let log = p.read(&log_path);
    let asked = format!("User: {CUTOVER}");
    for said in [
        asked.as_str(),
        "User: and who signed off the cutover?",
        "Tool: bash echo tool-ran",
    ] {
        assert_eq!(log.matches(said).count(), 1, "{said}:\n{log}");
    }
    assert!(!log.contains("Continue if you have next steps"), "{log}");
}

/// A phrase of the search tool's description, and of the timeline
/// tool's: what a model deciding to call them reads.
const DESC_SEARCH: &str = "Search the project's long-term memory";
const DESC_TIMELINE: &str = "What happened in a date range";

/// Checks the `tools` of the requests a client sent (not its prompt,
/// where AGENTS.md or a hook could name them too).
fn assert_tools_listed(requests: &str, names: &[&str]) {
    let tools: String = requests
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .map(|r| r["body"]["tools"].to_string())
        .collect();
    for name in names.iter().chain(&[DESC_SEARCH, DESC_TIMELINE]) {
        assert!(
            tools.contains(name),
            "{name} is not in the tools the client sent to the model"
        );
    }
}

#[test]
fn claude_code_lists_hipos_mcp_tools_after_init() {
    let Some(claude) = client("claude") else {
        return;
    };
    let p = Project::sample();
    let (code, out, err) = p.run(["init", "--platform", "claude-code"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(p.read(".mcp.json").contains("\"hipo\""));
    let work = tempfile::tempdir().unwrap();
    let home = work.path().join("home");
    std::fs::create_dir(&home).unwrap();
    let fake = Fake::start("fake_anthropic.py", work.path());
    claude_code(&claude, &p, &home, &fake)
        .args([
            "-p",
            "what did we decide about postgres?",
            "--output-format",
            "json",
        ])
        .succeeds();
    assert_tools_listed(
        &fake.requests(),
        &["mcp__hipo__search", "mcp__hipo__timeline"],
    );
}

#[test]
fn codex_lists_hipos_mcp_tools_after_init() {
    let Some(codex) = client("codex") else {
        return;
    };
    let p = Project::sample();
    let (code, out, err) = p.run(["init", "--platform", "codex"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(p.read(".codex/config.toml").contains("[mcp_servers.hipo]"));
    let work = tempfile::tempdir().unwrap();
    let codex_home = work.path().join("home/.codex");
    std::fs::create_dir_all(&codex_home).unwrap();
    let fake = Fake::start("fake_openai.py", work.path());
    let root = p.path().canonicalize().unwrap();
    // Codex reads a project's .codex/config.toml once the project is trusted.
    std::fs::write(
        codex_home.join("config.toml"),
        format!(
            "model = \"fake-model\"\nmodel_provider = \"fake\"\n\n[model_providers.fake]\nname = \"fake\"\nbase_url = \"http://127.0.0.1:{}/v1\"\nwire_api = \"responses\"\nenv_key = \"FAKE_API_KEY\"\n\n[projects.\"{}\"]\ntrust_level = \"trusted\"\n",
            fake.port,
            root.display()
        ),
    )
    .unwrap();
    codex_exec(&codex, &root, &work.path().join("home"), &codex_home)
        // --strict-config: an unknown key hipo wrote would fail here
        // instead of being ignored.
        .args([
            "--strict-config",
            "--skip-git-repo-check",
            "--dangerously-bypass-approvals-and-sandbox",
            "what did we decide about postgres?",
        ])
        .succeeds();
    // Codex sends a server's tools as one namespace tool.
    assert_tools_listed(
        &fake.requests(),
        &["\"mcp__hipo\"", "\"search\"", "\"timeline\""],
    );
}

#[test]
fn opencode_lists_hipos_mcp_tools_after_init() {
    let Some(opencode) = client("opencode") else {
        return;
    };
    let p = Project::sample();
    let work = tempfile::tempdir().unwrap();
    let home = work.path().join("home");
    std::fs::create_dir(&home).unwrap();
    let fake = Fake::start("fake_openai.py", work.path());
    opencode_config(&p, &fake.port);
    let (code, out, err) = p.run(["init", "--platform", "opencode"]);
    assert_eq!(code, 0, "{out}{err}");
    let root = p.path().canonicalize().unwrap();
    opencode_run(
        &opencode,
        &root,
        &home,
        "what did we decide about postgres?\n",
        None,
    );
    assert_tools_listed(&fake.requests(), &["hipo_search", "hipo_timeline"]);
}
