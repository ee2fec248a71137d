//! `hipo doctor`: checks an installation and says what to fix. Every
//! finding names the file and the action; a clean project says so.

use super::{Hook, layout};
use hipo_core::config::Config;
use hipo_core::platform::Platform;
use serde::Serialize;
use serde_json::Value;
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};

/// One thing found.
#[derive(Debug, Clone, Serialize)]
pub struct Finding {
    /// `ok`, `warn` (works, could be better) or `fix` (does not work).
    pub level: &'static str,
    pub what: String,
}

/// The size targets hipocampus gives the hot files, in lines.
const HOT_LIMITS: [(&str, usize); 3] = [
    ("SCRATCHPAD.md", 150),
    ("WORKING.md", 100),
    ("TASK-QUEUE.md", 50),
];

/// Checks the platforms installed under `root`, the memory's sizes and
/// whether a compaction is due. `codex_home` is where Codex keeps its
/// `config.toml` (its hook reviews).
pub fn check(
    root: &Path,
    config: &Config,
    due: &hipo_core::status::Triggers,
    codex_home: Option<&Path>,
) -> Vec<Finding> {
    let mut out = Vec::new();
    for platform in Platform::ALL {
        if platform == Platform::OpenCode {
            super::opencode::doctor(root, &mut out);
            continue;
        }
        let Ok(l) = layout(platform) else { continue };
        let path = root.join(l.hooks_file);
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        check_hooks(&mut out, platform, &path, &text, l.hooks, codex_home);
    }
    let registered = [".mcp.json", ".codex/config.toml", "opencode.json"]
        .iter()
        .any(|rel| std::fs::read_to_string(root.join(rel)).is_ok_and(|t| t.contains("hipo")));
    if registered && !reachable("hipo mcp") {
        out.push(fix(
            "the MCP server is registered as `hipo mcp`, but `hipo` is not on PATH: install it there (cargo install --path .)".into(),
        ));
    }
    super::openclaw::doctor(root, &mut out);
    if out.is_empty() {
        out.push(warn(
            "no agent platform is installed: run `hipo init --platform claude-code` (or codex, opencode, openclaw)"
                .into(),
        ));
    }
    super::share::check(root, config.share, &mut out);
    sizes(&mut out, root, config);
    if due.due {
        out.push(warn(format!(
            "a compaction is due ({}): run `hipo compact`",
            due.reasons.join("; ")
        )));
    }
    out
}

pub(super) fn ok(what: String) -> Finding {
    Finding { level: "ok", what }
}
pub(super) fn warn(what: String) -> Finding {
    Finding {
        level: "warn",
        what,
    }
}
pub(super) fn fix(what: String) -> Finding {
    Finding { level: "fix", what }
}

fn check_hooks(
    out: &mut Vec<Finding>,
    platform: Platform,
    path: &Path,
    text: &str,
    expected: &[Hook],
    codex_home: Option<&Path>,
) {
    let name = platform.as_str();
    let shown = path.display();
    let Ok(v) = serde_json::from_str::<Value>(text) else {
        out.push(fix(format!(
            "{shown} is not valid JSON: fix it, then run `hipo init --platform {name}`"
        )));
        return;
    };
    let marker = format!(" hook {name} ");
    let mut missing = Vec::new();
    for h in expected {
        let groups = v
            .pointer(&format!("/hooks/{}", h.event))
            .and_then(Value::as_array);
        let found = groups
            .into_iter()
            .flatten()
            .enumerate()
            .find_map(|(gi, g)| {
                let handlers = g.get("hooks")?.as_array()?;
                handlers.iter().enumerate().find_map(|(hi, hd)| {
                    let cmd = hd.get("command")?.as_str()?;
                    cmd.contains(&marker)
                        .then(|| (gi, hi, g.clone(), hd.clone(), cmd.to_string()))
                })
            });
        let Some((gi, hi, group, handler, cmd)) = found else {
            missing.push(h.event);
            continue;
        };
        if !reachable(&cmd) {
            out.push(fix(format!(
                "{name}: the {} hook runs `{cmd}`, but that program is not there: put hipo on PATH or run `hipo init --platform {name}` again",
                h.event
            )));
        }
        if platform == Platform::Codex
            && !codex_trusted(path, h.event, gi, hi, &group, &handler, codex_home)
        {
            out.push(fix(format!(
                "codex: the {} hook is installed but not reviewed; Codex skips it silently until you open Codex, run /hooks and trust it",
                h.event
            )));
        }
    }
    if missing.is_empty() {
        out.push(ok(format!("{name}: hooks installed in {shown}")));
    } else {
        out.push(fix(format!(
            "{name}: no hipo hook for {} in {shown}: run `hipo init --platform {name}`",
            missing.join(", ")
        )));
    }
}

/// Whether the program a hook command starts exists.
pub(super) fn reachable(cmd: &str) -> bool {
    let program = match cmd.strip_prefix('\'') {
        Some(rest) => rest.split('\'').next().unwrap_or(""),
        None => cmd.split_whitespace().next().unwrap_or(""),
    };
    if program.contains('/') {
        return Path::new(program).is_file();
    }
    std::env::var_os("PATH")
        .is_some_and(|paths| std::env::split_paths(&paths).any(|d| d.join(program).is_file()))
}

/// Codex's review of one hook: `trusted_hash` under
/// `[hooks.state."<hooks.json>:<snake event>:<group>:<handler>"]` in its
/// `config.toml`, equal to the hash of the hook's definition.
fn codex_trusted(
    hooks_json: &Path,
    event: &str,
    gi: usize,
    hi: usize,
    group: &Value,
    handler: &Value,
    codex_home: Option<&Path>,
) -> bool {
    let Some(home) = codex_home else { return false };
    let Ok(config) = std::fs::read_to_string(home.join("config.toml")) else {
        return false;
    };
    let abs: PathBuf = hooks_json
        .canonicalize()
        .unwrap_or_else(|_| hooks_json.to_path_buf());
    let key = format!("{}:{}:{gi}:{hi}", abs.display(), snake(event));
    let want = codex_hash(event, group, handler);
    config.find(&format!("\"{key}\"")).is_some_and(|at| {
        config[at..]
            .lines()
            .find(|l| l.trim_start().starts_with("trusted_hash"))
            .is_some_and(|l| l.contains(&want))
    })
}

fn snake(event: &str) -> String {
    let mut s = String::new();
    for (i, c) in event.chars().enumerate() {
        if c.is_ascii_uppercase() && i > 0 {
            s.push('_');
        }
        s.push(c.to_ascii_lowercase());
    }
    s
}

/// The hash Codex 0.169 records for a reviewed hook: SHA-256 of the
/// compact, key-sorted JSON of the hook's identity.
fn codex_hash(event: &str, group: &Value, handler: &Value) -> String {
    const MATCHER_EVENTS: [&str; 8] = [
        "PreToolUse",
        "PostToolUse",
        "PermissionRequest",
        "SessionStart",
        "PreCompact",
        "PostCompact",
        "SubagentStart",
        "SubagentStop",
    ];
    let timeout = handler
        .get("timeout")
        .and_then(Value::as_u64)
        .unwrap_or(600)
        .max(1);
    let mut h = serde_json::json!({
        "type": "command",
        "command": handler.get("command").cloned().unwrap_or(Value::Null),
        "timeout": timeout,
        "async": false,
    });
    if let Some(m) = handler.get("statusMessage") {
        h["statusMessage"] = m.clone();
    }
    let mut ident = serde_json::json!({ "event_name": snake(event), "hooks": [h] });
    if MATCHER_EVENTS.contains(&event)
        && let Some(m) = group.get("matcher").filter(|m| !m.is_null())
    {
        ident["matcher"] = m.clone();
    }
    let canonical = sorted(&ident).to_string();
    let digest = Sha256::digest(canonical.as_bytes());
    format!(
        "sha256:{}",
        digest
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect::<String>()
    )
}

/// `v` with object keys sorted at every depth.
fn sorted(v: &Value) -> Value {
    match v {
        Value::Object(m) => {
            let mut keys: Vec<&String> = m.keys().collect();
            keys.sort();
            let mut out = serde_json::Map::new();
            for k in keys {
                out.insert(k.clone(), sorted(&m[k]));
            }
            Value::Object(out)
        }
        Value::Array(a) => Value::Array(a.iter().map(sorted).collect()),
        other => other.clone(),
    }
}

fn sizes(out: &mut Vec<Finding>, root: &Path, config: &Config) {
    if let Ok(text) = std::fs::read_to_string(root.join(hipo_core::layout::ROOT_PATH)) {
        let tokens = hipo_core::markdown::estimate_tokens(&text);
        if tokens > config.compaction.root_max_tokens {
            out.push(warn(format!(
                "memory/ROOT.md is about {tokens} tokens, over rootMaxTokens {}: run `hipo compact`",
                config.compaction.root_max_tokens
            )));
        }
    }
    for (rel, max) in HOT_LIMITS {
        if let Ok(text) = std::fs::read_to_string(root.join(rel)) {
            let lines = text.lines().count();
            if lines > max {
                out.push(warn(format!(
                    "{rel} has {lines} lines, over its target of {max}: archive what is done"
                )));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_codex_hash_matches_codexs_own() {
        // From codex 0.169's hooks/list for this definition (the recipe in
        // ../shared/tools/agent-clients/codex_hook_hash.py, checked there
        // against Codex itself).
        let group = serde_json::json!({"matcher": "startup|resume"});
        let handler = serde_json::json!({"type": "command", "command": "hipo hook codex session-start", "timeout": 10});
        let h = codex_hash("SessionStart", &group, &handler);
        let ident = r#"{"event_name":"session_start","hooks":[{"async":false,"command":"hipo hook codex session-start","timeout":10,"type":"command"}],"matcher":"startup|resume"}"#;
        let want = Sha256::digest(ident.as_bytes());
        assert_eq!(
            h,
            format!(
                "sha256:{}",
                want.iter().map(|b| format!("{b:02x}")).collect::<String>()
            )
        );
        assert_eq!(snake("UserPromptSubmit"), "user_prompt_submit");
    }
}
