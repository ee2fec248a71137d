//! Codex runs a project's hook only once the user reviewed it (`/hooks`):
//! the review is a `trusted_hash` in Codex's `config.toml` that must equal
//! the hash of the hook's definition. `hipo doctor` recomputes it.

use crate::harness::doctor::Installed;
use serde_json::Value;
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};

/// Whether Codex's review of hook `h` in `hooks_json` is recorded in
/// `codex_home`'s config.
pub(super) fn trusted(hooks_json: &Path, h: &Installed, codex_home: Option<&Path>) -> bool {
    codex_trusted(
        hooks_json,
        h.event,
        h.group_at,
        h.handler_at,
        &h.group,
        &h.handler,
        codex_home,
    )
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

#[cfg(test)]
mod tests {
    use super::*;
    use sha2::{Digest, Sha256};

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
