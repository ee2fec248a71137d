//! `hipo doctor`'s checks that platforms share: a hooks file's handlers,
//! the programs they run, the memory's sizes. Every finding names the file
//! and the action; a clean project says so.

use super::Hook;
use hipo_core::Config;
use serde::Serialize;
use serde_json::Value;
use std::path::Path;

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

/// After the platforms' checks (`out` holds what they found;
/// `mcp_registered`: whether one registers `hipo mcp`): the MCP server's
/// binary, and a word when no platform is installed at all.
pub fn installation(out: &mut Vec<Finding>, mcp_registered: bool) {
    if mcp_registered && !reachable("hipo mcp") {
        out.push(fix(
            "the MCP server is registered as `hipo mcp`, but `hipo` is not on PATH: install it there (cargo install --path .)".into(),
        ));
    }
    if out.is_empty() {
        out.push(warn(
            "no agent platform is installed: run `hipo init --platform claude-code` (or codex, opencode, openclaw)"
                .into(),
        ));
    }
}

/// The memory's own checks: the sizes of ROOT.md and the hot files, and
/// whether a compaction is due.
pub fn memory(out: &mut Vec<Finding>, root: &Path, config: &Config, due: &hipo_core::Triggers) {
    sizes(out, root, config);
    if due.due {
        out.push(warn(format!(
            "a compaction is due ({}): run `hipo compact`",
            due.reasons.join("; ")
        )));
    }
}

pub fn ok(what: String) -> Finding {
    Finding { level: "ok", what }
}
pub fn warn(what: String) -> Finding {
    Finding {
        level: "warn",
        what,
    }
}
pub fn fix(what: String) -> Finding {
    Finding { level: "fix", what }
}

pub fn check_hooks(
    out: &mut Vec<Finding>,
    name: &str,
    path: &Path,
    expected: &[Hook],
    review: &dyn Fn(&Installed) -> Option<Finding>,
) {
    let Ok(text) = std::fs::read_to_string(path) else {
        return;
    };
    let shown = path.display();
    let Ok(v) = serde_json::from_str::<Value>(&text) else {
        out.push(fix(format!(
            "{shown} is not valid JSON: fix it, then run `hipo init --platform {name}`"
        )));
        return;
    };
    let marker = super::hook_marker(name);
    let mut missing = Vec::new();
    for h in expected {
        let groups = v
            .pointer(&format!("/hooks/{}", h.event))
            .and_then(Value::as_array);
        let found = groups
            .into_iter()
            .flatten()
            .enumerate()
            .find_map(|(group_at, g)| {
                let handlers = g.get("hooks")?.as_array()?;
                handlers.iter().enumerate().find_map(|(handler_at, hd)| {
                    let cmd = hd.get("command")?.as_str()?;
                    cmd.contains(&marker).then(|| Installed {
                        event: h.event,
                        group_at,
                        handler_at,
                        group: g.clone(),
                        handler: hd.clone(),
                        command: cmd.to_string(),
                    })
                })
            });
        let Some(found) = found else {
            missing.push(h.event);
            continue;
        };
        if !reachable(&found.command) {
            out.push(fix(format!(
                "{name}: the {} hook runs `{}`, but that program is not there: put hipo on PATH or run `hipo init --platform {name}` again",
                h.event, found.command
            )));
        }
        out.extend(review(&found));
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

/// One of hipo's handlers found in a hooks file, where it is.
pub struct Installed {
    pub event: &'static str,
    pub group_at: usize,
    pub handler_at: usize,
    pub group: Value,
    pub handler: Value,
    pub command: String,
}

/// Whether the program a hook command starts exists.
pub fn reachable(cmd: &str) -> bool {
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

fn sizes(out: &mut Vec<Finding>, root: &Path, config: &Config) {
    if let Ok(text) = std::fs::read_to_string(root.join(hipo_core::ROOT_PATH)) {
        let tokens = hipo_core::estimate_tokens(&text);
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
