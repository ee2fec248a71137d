//! Installing into OpenCode (1.18, V1 plugins), beyond the protocol and skills:
//! the plugin `.opencode/plugins/hipo.js`, and hipo's MCP server in the
//! project's `opencode.json`.
//!
//! OpenCode loads a plugin in `.opencode/plugins/` without a trust step,
//! and drops one silently when a run-time import cannot be resolved (it
//! npm-installs `@opencode-ai/plugin` at start, which fails offline), so
//! the plugin imports only `node:child_process`. It is committed with the
//! project, so it runs `hipo` from `PATH` (`HIPO_BIN` overrides it).
//!
//! OpenCode inserts `"$schema"` into a config file it loads when missing:
//! hipo writes it whenever it creates or edits the file, or the next
//! `hipo init` would find a file it did not write. Every other byte of the
//! user's file is kept (`jsonc`: an edit as text, comments included).

use crate::harness::doctor::{fix, ok, reachable, warn};
use crate::harness::files::{Change, put, read};
use crate::harness::jsonc;
use crate::harness::{Finding, Report};
use hipo_core::{Error, Result};
use serde_json::{Value, json};
use std::path::Path;

/// The plugin, relative to the project.
pub const PLUGIN: &str = ".opencode/plugins/hipo.js";
/// Its text.
pub const PLUGIN_JS: &str = include_str!("plugin.js");
/// What OpenCode inserts into a config file that lacks it.
const SCHEMA: &str = "https://opencode.ai/config.json";

/// hipo's entry under `"mcp"`, as written.
const SERVER: &str = r#"{"type": "local", "command": ["hipo", "mcp"]}"#;

fn server() -> Value {
    json!({"type": "local", "command": ["hipo", "mcp"]})
}

/// The project's config file: `opencode.json`, or `opencode.jsonc` when
/// only that one exists.
fn config_file(root: &Path) -> &'static str {
    if !root.join("opencode.json").exists() && root.join("opencode.jsonc").exists() {
        "opencode.jsonc"
    } else {
        "opencode.json"
    }
}

/// Writes the plugin and registers the MCP server.
pub fn install(root: &Path, report: &mut Report) -> Result<()> {
    let path = root.join(PLUGIN);
    let old = read(&path)?;
    report.note(PLUGIN, put(&path, old.as_deref(), Some(PLUGIN_JS))?);
    let rel = config_file(root);
    report.note(rel, set_mcp(root, rel, true)?);
    Ok(())
}

/// Removes the plugin (when it is hipo's) and hipo's MCP entry.
pub fn uninstall(root: &Path, report: &mut Report) -> Result<()> {
    let path = root.join(PLUGIN);
    let old = read(&path)?;
    let ours = old.as_deref().is_some_and(is_hipos_plugin);
    report.note(
        PLUGIN,
        if ours {
            put(&path, old.as_deref(), None)?
        } else {
            Change::Unchanged
        },
    );
    if let Some(dir) = path.parent() {
        // Only if hipo's plugin was all it held.
        let _ = std::fs::remove_dir(dir);
    }
    let rel = config_file(root);
    report.note(rel, set_mcp(root, rel, false)?);
    Ok(())
}

pub(super) fn is_hipos_plugin(text: &str) -> bool {
    text.contains("written by `hipo init --platform opencode`")
}

/// Adds (`on`) or removes hipo's `mcp.hipo` entry and, when adding,
/// `$schema`. An entry named `hipo` that hipo did not write stays: it is
/// the user's registration.
fn set_mcp(root: &Path, rel: &str, on: bool) -> Result<Change> {
    let path = root.join(rel);
    let old = read(&path)?;
    let text = old.as_deref().unwrap_or("");
    let bad = |what: &str| {
        Error::bad_input(
            &path,
            None,
            format!("{what}; fix it, then run `hipo init --platform opencode` again"),
        )
    };
    let new = if on {
        let mut t = if text.trim().is_empty() {
            "{}\n".to_string()
        } else {
            text.to_string()
        };
        let top = jsonc::object_at(&t, 0).ok_or_else(|| bad("is not a JSON object"))?;
        if top.get("$schema").is_none() {
            t = jsonc::insert(&t, &top, "$schema", &json!(SCHEMA).to_string(), true);
        }
        let top = jsonc::object_at(&t, 0).ok_or_else(|| bad("is not a JSON object"))?;
        let entry = format!("{{\"hipo\": {SERVER}}}");
        match top.get("mcp") {
            None => t = jsonc::insert(&t, &top, "mcp", &entry, false),
            Some(m) => {
                let mcp = jsonc::object_at(&t, m.value.0)
                    .ok_or_else(|| bad("has an \"mcp\" that is not an object"))?;
                if mcp.get("hipo").is_none() {
                    t = jsonc::insert(&t, &mcp, "hipo", SERVER, false);
                }
            }
        }
        Some(t)
    } else {
        let Some(top) = jsonc::object_at(text, 0) else {
            return Ok(Change::Unchanged);
        };
        let Some(m) = top.get("mcp") else {
            return Ok(Change::Unchanged);
        };
        let Some(mcp) = jsonc::object_at(text, m.value.0) else {
            return Ok(Change::Unchanged);
        };
        let ours = mcp.get("hipo").filter(|h| {
            serde_json::from_str::<Value>(&text[h.value.0..h.value.1]).ok() == Some(server())
        });
        let Some(h) = ours else {
            return Ok(Change::Unchanged);
        };
        let mut t = jsonc::remove(text, &mcp, h);
        let top = jsonc::object_at(&t, 0).ok_or_else(|| bad("is not a JSON object"))?;
        if let Some(m) = top.get("mcp")
            && jsonc::object_at(&t, m.value.0).is_some_and(|o| o.members.is_empty())
        {
            t = jsonc::remove(&t, &top, m);
        }
        // A file that holds only what hipo wrote goes with it.
        let left: Option<Value> = serde_json::from_str(&t).ok();
        (left != Some(json!({"$schema": SCHEMA}))).then_some(t)
    };
    put(&path, old.as_deref(), new.as_deref())
}

/// `hipo doctor` for OpenCode: the plugin is hipo's current one, the MCP
/// server is registered, and `hipo` is on PATH for both.
pub fn doctor(root: &Path, out: &mut Vec<Finding>) {
    let Ok(plugin) = std::fs::read_to_string(root.join(PLUGIN)) else {
        return;
    };
    if !is_hipos_plugin(&plugin) {
        out.push(warn(format!(
            "opencode: {PLUGIN} is not hipo's plugin; move it aside and run `hipo init --platform opencode`"
        )));
        return;
    }
    if plugin != PLUGIN_JS {
        out.push(fix(format!(
            "opencode: {PLUGIN} is not this hipo's plugin (edited, or from another version): run `hipo init --platform opencode` again"
        )));
    } else {
        out.push(ok(format!("opencode: plugin installed in {PLUGIN}")));
    }
    let rel = config_file(root);
    let registered = std::fs::read_to_string(root.join(rel))
        .ok()
        .is_some_and(|t| {
            jsonc::object_at(&t, 0)
                .and_then(|top| top.get("mcp").map(|m| m.value.0))
                .and_then(|at| jsonc::object_at(&t, at))
                .is_some_and(|mcp| mcp.get("hipo").is_some())
        });
    if !registered {
        out.push(fix(format!(
            "opencode: no \"mcp\": {{\"hipo\": …}} in {rel}: run `hipo init --platform opencode`"
        )));
    }
    let bin = std::env::var("HIPO_BIN").unwrap_or_else(|_| "hipo".into());
    if !reachable(&bin) {
        out.push(fix(format!(
            "opencode: the plugin runs `{bin}`, which is not on PATH: install hipo there (cargo install --path .)"
        )));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_mcp_entry_is_merged_into_the_users_file_and_taken_out_again() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let mine = "{\n  // my model\n  \"model\": \"anthropic/claude\",\n  \"mcp\": {\n    \"other\": {\"type\": \"remote\", \"url\": \"https://x\"}\n  }\n}\n";
        std::fs::write(root.join("opencode.json"), mine).unwrap();
        assert_eq!(
            set_mcp(root, "opencode.json", true).unwrap(),
            Change::Updated
        );
        let t = std::fs::read_to_string(root.join("opencode.json")).unwrap();
        assert_eq!(
            t,
            "{\n  \"$schema\": \"https://opencode.ai/config.json\",\n  // my model\n  \"model\": \"anthropic/claude\",\n  \"mcp\": {\n    \"other\": {\"type\": \"remote\", \"url\": \"https://x\"},\n    \"hipo\": {\"type\": \"local\", \"command\": [\"hipo\", \"mcp\"]}\n  }\n}\n"
        );
        assert_eq!(
            set_mcp(root, "opencode.json", true).unwrap(),
            Change::Unchanged
        );
        assert_eq!(
            set_mcp(root, "opencode.json", false).unwrap(),
            Change::Updated
        );
        let t = std::fs::read_to_string(root.join("opencode.json")).unwrap();
        // $schema stays: OpenCode would have written it anyway.
        assert_eq!(
            t,
            mine.replacen(
                "{\n",
                "{\n  \"$schema\": \"https://opencode.ai/config.json\",\n",
                1
            )
        );
    }

    #[test]
    fn a_file_hipo_created_goes_and_a_users_hipo_entry_stays() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        assert_eq!(
            set_mcp(root, "opencode.json", true).unwrap(),
            Change::Created
        );
        let t = std::fs::read_to_string(root.join("opencode.json")).unwrap();
        let v: Value = serde_json::from_str(&t).unwrap();
        assert_eq!(v["mcp"]["hipo"], server());
        assert_eq!(v["$schema"], SCHEMA);
        assert_eq!(
            set_mcp(root, "opencode.json", false).unwrap(),
            Change::Removed
        );
        assert!(!root.join("opencode.json").exists());
        let theirs = "{\"$schema\": \"https://opencode.ai/config.json\", \"mcp\": {\"hipo\": {\"type\": \"local\", \"command\": [\"/opt/hipo\", \"mcp\"]}}}";
        std::fs::write(root.join("opencode.json"), theirs).unwrap();
        assert_eq!(
            set_mcp(root, "opencode.json", true).unwrap(),
            Change::Unchanged
        );
        assert_eq!(
            set_mcp(root, "opencode.json", false).unwrap(),
            Change::Unchanged
        );
        std::fs::write(root.join("opencode.json"), "[1]").unwrap();
        let err = set_mcp(root, "opencode.json", true)
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("opencode.json") && err.contains("hipo init"),
            "{err}"
        );
    }
}
