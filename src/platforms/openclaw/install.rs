//! Installing hipo into an OpenClaw workspace (the project root is the
//! agent's workspace): the hot files with `MEMORY.md` and `USER.md`, the
//! protocol block in `AGENTS.md`, skills in `skills/`, a workspace hook
//! `hooks/hipo/{HOOK.md,handler.ts}`, and, in OpenClaw's own config
//! (`~/.openclaw/openclaw.json`, personal, never in the workspace), the
//! entry that enables the hook and the MCP server.
//!
//! OpenClaw's config is JSON5 and shared with everything else the user
//! set: hipo edits it only when it is plain JSON (keys kept in order, only
//! `hooks.internal.entries.hipo` and `mcp.servers.hipo` touched), and only
//! when its entry would not narrow which other hooks load (a master switch
//! on with no named entries means "every eligible hook"; a first named
//! entry turns that into a list of one). Otherwise the report says which
//! `openclaw` command to run instead.

use super::hook::{HANDLER_TS, hook_md};
use super::{NAME, state_dir};
use crate::harness::doctor::{fix, warn};
use crate::harness::files::{self, json_text, put, read};
use crate::harness::{Change, Finding, Report, texts};
use hipo_core::Result;
use serde_json::{Map, Value, json};
use std::path::{Path, PathBuf};

/// The hook's name: its directory and its config key.
pub const HOOK: &str = "hipo";
const HOOK_MD: &str = "hooks/hipo/HOOK.md";
const HANDLER: &str = "hooks/hipo/handler.ts";
const SKILLS_DIR: &str = "skills";

/// OpenClaw's curated memory file, bootstrapped in private sessions; hipo
/// keeps its `## Compaction Root` in step with ROOT.md.
const MEMORY_MD: &str = "# Memory\n\nLong-lived facts and rules for this agent. The `## Compaction Root` section below is a copy of hipo's `memory/ROOT.md`, refreshed by `hipo compact`; write your own notes outside it.\n\n## Compaction Root\n";
const USER_MD: &str =
    "# User\n\nWho the user is: name, role, preferences, how they like to work.\n";

/// OpenClaw's config file: `OPENCLAW_CONFIG_PATH`, else `openclaw.json`
/// in its state directory.
pub fn config_path() -> Option<PathBuf> {
    match std::env::var_os("OPENCLAW_CONFIG_PATH").filter(|v| !v.is_empty()) {
        Some(p) => Some(PathBuf::from(p)),
        None => state_dir().map(|d| d.join("openclaw.json")),
    }
}

/// Installs hipo into the OpenClaw workspace `root`; `bin` runs hipo.
pub fn install(root: &Path, bin: &str) -> Result<Report> {
    let mut report = Report::new(NAME);
    for (rel, text) in texts::HOT_FILES
        .iter()
        .copied()
        .chain([("MEMORY.md", MEMORY_MD), ("USER.md", USER_MD)])
    {
        report.note(rel, files::create_once(&root.join(rel), text)?);
    }
    // An existing MEMORY.md gains the section, filled from ROOT.md now
    // rather than at the next compaction.
    if let Ok(root_md) = std::fs::read_to_string(root.join(hipo_core::ROOT_PATH)) {
        let before = read(&root.join("MEMORY.md"))?;
        hipo_core::sync_memory_md(root, &root_md)?;
        let created = report
            .files
            .iter()
            .any(|(f, c)| f == "MEMORY.md" && *c == Change::Created);
        if !created && before != read(&root.join("MEMORY.md"))? {
            report.note("MEMORY.md", Change::Updated);
        }
    }
    report.note("AGENTS.md", set_block(root, Some(texts::PROTOCOL))?);
    for skill in &texts::SKILLS {
        let rel = format!("{SKILLS_DIR}/{}/SKILL.md", skill.name);
        let path = root.join(&rel);
        let old = read(&path)?;
        report.note(&rel, put(&path, old.as_deref(), Some(skill.text))?);
    }
    for (rel, text) in [(HOOK_MD, hook_md()), (HANDLER, HANDLER_TS.to_string())] {
        let path = root.join(rel);
        let old = read(&path)?;
        report.note(rel, put(&path, old.as_deref(), Some(&text))?);
    }
    config(&mut report, root, Some(bin))?;
    Ok(report)
}

/// Removes what [`install`] added; memory files (MEMORY.md, USER.md, the
/// hot files) stay.
pub fn uninstall(root: &Path) -> Result<Report> {
    let mut report = Report::new(NAME);
    report.note("AGENTS.md", set_block(root, None)?);
    let skills = texts::SKILLS
        .iter()
        .map(|s| format!("{SKILLS_DIR}/{}/SKILL.md", s.name));
    for rel in skills.chain([HOOK_MD.to_string(), HANDLER.to_string()]) {
        let path = root.join(&rel);
        let old = read(&path)?;
        report.note(&rel, put(&path, old.as_deref(), None)?);
        if let Some(dir) = path.parent() {
            // Only if hipo's files were all it held.
            let _ = std::fs::remove_dir(dir);
        }
    }
    config(&mut report, root, None)?;
    Ok(report)
}

fn set_block(root: &Path, block: Option<&str>) -> Result<Change> {
    crate::harness::set_block(root, "AGENTS.md", block)
}

/// Sets (`bin` given) or removes hipo's hook entry and MCP server in
/// OpenClaw's config, or says what to run when hipo must not edit it.
fn config(report: &mut Report, root: &Path, bin: Option<&str>) -> Result<()> {
    let Some(path) = config_path() else {
        report
            .next_steps
            .push(manual_steps(root, bin, "HOME is not set"));
        return Ok(());
    };
    let shown = path.display().to_string();
    let old = read(&path)?;
    let mut cfg = match old.as_deref().map(str::trim) {
        None | Some("") => Map::new(),
        Some(text) => match serde_json::from_str::<Value>(text) {
            Ok(Value::Object(m)) => m,
            _ => {
                let why = format!(
                    "{shown} is JSON5 (comments or trailing commas), which hipo does not rewrite"
                );
                if bin.is_some() || old.as_deref().is_some_and(|t| t.contains("\"hipo\"")) {
                    report.next_steps.push(manual_steps(root, bin, &why));
                }
                return Ok(());
            }
        },
    };
    if bin.is_none() && old.is_none() {
        return Ok(());
    }
    if let Some(bin) = bin {
        if narrows(&cfg) {
            report.next_steps.push(format!(
                "enable the hook yourself: {shown} turns every eligible hook on (hooks.internal.enabled with no named entries), and a named entry for hipo would switch the others off; list the hooks you use with `openclaw hooks list`, then `openclaw hooks enable hipo` and enable those too"
            ));
        } else {
            set_hook_entry(&mut cfg, bin);
        }
        set_mcp(&mut cfg, Some(mcp_server(root)));
    } else {
        remove_hook_entry(&mut cfg);
        set_mcp(&mut cfg, None);
    }
    let new = json_text(&cfg);
    let change = put(&path, old.as_deref(), Some(&new))?;
    if change != Change::Unchanged && bin.is_some() {
        report.next_steps.push(
            "OpenClaw reads hook files when its gateway starts: restart a running gateway (`openclaw gateway restart`, or stop and start it) so it loads hooks/hipo".into(),
        );
    }
    report.note(&shown, change);
    Ok(())
}

fn manual_steps(root: &Path, bin: Option<&str>, why: &str) -> String {
    match bin {
        Some(_) => format!(
            "{why}: run `openclaw hooks enable hipo` and `openclaw mcp set hipo '{}'`, then restart the gateway",
            mcp_server(root)
        ),
        None => format!("{why}: run `openclaw hooks disable hipo` and `openclaw mcp unset hipo`"),
    }
}

/// Whether adding a named entry would turn open-ended discovery (master
/// switch on, no named entries) into a list of one.
fn narrows(cfg: &Map<String, Value>) -> bool {
    let internal = cfg.get("hooks").and_then(|h| h.get("internal"));
    let master_on = internal
        .and_then(|i| i.get("enabled"))
        .and_then(Value::as_bool)
        == Some(true);
    let named = internal
        .and_then(|i| i.get("entries"))
        .and_then(Value::as_object)
        .is_some_and(|m| !m.is_empty());
    master_on && !named
}

/// `hooks.internal.entries.hipo = {enabled: true}`, with the binary's
/// path in the entry's `env` when `hipo` is not on PATH (the handler reads
/// it there: the workspace's handler.ts may be committed, so it holds no
/// machine path).
fn set_hook_entry(cfg: &mut Map<String, Value>, bin: &str) {
    let entries = object_at(cfg, &["hooks", "internal", "entries"]);
    let mut entry = match entries.remove(HOOK) {
        Some(Value::Object(m)) => m,
        _ => Map::new(),
    };
    entry.insert("enabled".into(), json!(true));
    let env = entry
        .entry("env")
        .or_insert_with(|| Value::Object(Map::new()));
    if let Some(env) = env.as_object_mut() {
        env.remove("HIPO_BIN");
        if bin != "hipo" {
            env.insert("HIPO_BIN".into(), json!(bin.trim_matches('\'')));
        }
    }
    if entry
        .get("env")
        .and_then(Value::as_object)
        .is_some_and(Map::is_empty)
    {
        entry.remove("env");
    }
    entries.insert(HOOK.into(), Value::Object(entry));
}

fn remove_hook_entry(cfg: &mut Map<String, Value>) {
    if let Some(entries) = cfg
        .get_mut("hooks")
        .and_then(|h| h.get_mut("internal"))
        .and_then(|i| i.get_mut("entries"))
        .and_then(Value::as_object_mut)
    {
        entries.remove(HOOK);
    }
    prune(cfg, &["hooks", "internal", "entries"]);
}

/// The MCP server as OpenClaw's registry holds it: `hipo mcp` started
/// in the workspace, so it finds the project there.
fn mcp_server(root: &Path) -> Value {
    json!({"command": "hipo", "args": ["mcp"], "cwd": root.display().to_string()})
}

fn set_mcp(cfg: &mut Map<String, Value>, server: Option<Value>) {
    match server {
        Some(s) => {
            let servers = object_at(cfg, &["mcp", "servers"]);
            // A server the user wrote under another command stays theirs.
            let theirs = servers
                .get(HOOK)
                .and_then(|v| v.get("command"))
                .and_then(Value::as_str)
                .is_some_and(|c| c != "hipo" && !c.ends_with("/hipo"));
            if !theirs {
                servers.insert(HOOK.into(), s);
            }
        }
        None => {
            if let Some(servers) = cfg
                .get_mut("mcp")
                .and_then(|m| m.get_mut("servers"))
                .and_then(Value::as_object_mut)
            {
                servers.remove(HOOK);
            }
            prune(cfg, &["mcp", "servers"]);
        }
    }
}

/// The object at `keys`, created (and a non-object replaced) on the way.
fn object_at<'a>(cfg: &'a mut Map<String, Value>, keys: &[&str]) -> &'a mut Map<String, Value> {
    let mut at = cfg;
    for k in keys {
        let v = at
            .entry(k.to_string())
            .or_insert_with(|| Value::Object(Map::new()));
        if !v.is_object() {
            *v = Value::Object(Map::new());
        }
        at = match v {
            Value::Object(m) => m,
            _ => unreachable!("made an object above"),
        };
    }
    at
}

/// Removes the empty objects along `keys`, deepest first.
fn prune(cfg: &mut Map<String, Value>, keys: &[&str]) {
    for depth in (1..=keys.len()).rev() {
        let (last, parents) = keys[..depth].split_last().expect("depth >= 1");
        let mut at = Some(&mut *cfg);
        for k in parents {
            at = at
                .and_then(|m| m.get_mut(*k))
                .and_then(Value::as_object_mut);
        }
        if let Some(m) = at
            && m.get(*last)
                .and_then(Value::as_object)
                .is_some_and(Map::is_empty)
        {
            m.remove(*last);
        }
    }
}

/// Whether hipo's hook folder is in `root`.
pub fn installed(root: &Path) -> bool {
    root.join(HOOK_MD).is_file()
}

/// `hipo doctor`'s checks of an OpenClaw install.
pub fn doctor(root: &Path, out: &mut Vec<Finding>) {
    if !installed(root) {
        return;
    }
    if read(&root.join(HANDLER)).ok().flatten().as_deref() != Some(HANDLER_TS)
        || read(&root.join(HOOK_MD)).ok().flatten() != Some(hook_md())
    {
        out.push(warn(format!(
            "openclaw: {HOOK_MD} or {HANDLER} is not what this hipo writes: run `hipo init --platform openclaw`, then restart the gateway"
        )));
    }
    let Some(path) = config_path() else {
        out.push(fix(
            "openclaw: HOME is not set, so OpenClaw's config cannot be checked".into(),
        ));
        return;
    };
    let shown = path.display().to_string();
    let cfg = read(&path)
        .ok()
        .flatten()
        .and_then(|t| serde_json::from_str::<Value>(&t).ok());
    let Some(cfg) = cfg else {
        out.push(fix(format!(
            "openclaw: {shown} is missing or not plain JSON, so the hook cannot be seen enabled: run `openclaw hooks enable hipo` (and `openclaw hooks list` to check)"
        )));
        return;
    };
    if let Some(found) = workspace_elsewhere(&cfg, root) {
        out.push(warn(format!(
            "openclaw: {shown} gives the agents the workspace {found}, not {}: the gateway loads hooks/hipo only from its agents' workspaces",
            root.display()
        )));
    }
    doctor_hook(root, &cfg, &shown, out);
    doctor_mcp(root, &cfg, &shown, out);
}

/// The hook: enabled in OpenClaw's config `shown`, loaded by the running
/// gateway, and able to find hipo.
fn doctor_hook(root: &Path, cfg: &Value, shown: &str, out: &mut Vec<Finding>) {
    let entry = cfg.pointer("/hooks/internal/entries/hipo");
    let enabled = entry
        .and_then(|e| e.get("enabled"))
        .and_then(Value::as_bool)
        == Some(true);
    let master_off = cfg
        .pointer("/hooks/internal/enabled")
        .and_then(Value::as_bool)
        == Some(false);
    if !enabled || master_off {
        out.push(fix(format!(
            "openclaw: the hipo hook is not enabled in {shown} (workspace hooks stay off until enabled): run `openclaw hooks enable hipo`, then restart the gateway"
        )));
    } else {
        out.push(Finding {
            level: "ok",
            what: format!("openclaw: hook hooks/hipo enabled in {shown} (a gateway started before `hipo init` must be restarted to load it)"),
        });
    }
    if let Some((pid, started)) = running_gateway()
        && let Some(changed) = hook_changed(root)
        && started < changed
    {
        out.push(fix(format!(
            "openclaw: the running gateway (pid {pid}) started before hooks/hipo was last written, and reads hook files only at start: restart it (`openclaw gateway restart`)"
        )));
    }
    let bin = entry
        .and_then(|e| e.pointer("/env/HIPO_BIN"))
        .and_then(Value::as_str)
        .unwrap_or("hipo");
    if !crate::harness::doctor::reachable(bin) {
        out.push(fix(format!(
            "openclaw: the hook runs `{bin}`, which is not there: put hipo on PATH or run `hipo init --platform openclaw` again"
        )));
    }
}

/// The MCP server: registered in `shown`, its command on PATH, serving
/// this workspace.
fn doctor_mcp(root: &Path, cfg: &Value, shown: &str, out: &mut Vec<Finding>) {
    let Some(server) = cfg
        .pointer("/mcp/servers/hipo")
        .filter(|s| s.get("command").and_then(Value::as_str).is_some())
    else {
        out.push(fix(format!(
            "openclaw: no MCP server hipo in {shown}: run `hipo init --platform openclaw`"
        )));
        return;
    };
    let cmd = server
        .get("command")
        .and_then(Value::as_str)
        .unwrap_or("hipo");
    if !crate::harness::doctor::reachable(cmd) {
        out.push(fix(format!(
            "openclaw: the MCP server hipo runs `{cmd}`, which is not on PATH: install hipo there (cargo install --path .)"
        )));
    }
    let cwd = server.get("cwd").and_then(Value::as_str).map(Path::new);
    if cwd.is_some_and(|c| c != root) {
        out.push(warn(format!(
            "openclaw: the MCP server hipo in {shown} serves {}, not this workspace",
            cwd.map(|c| c.display().to_string()).unwrap_or_default()
        )));
    }
}

/// The newest gateway boot OpenClaw recorded (`state/openclaw.sqlite`,
/// table `gateway_boot_lifecycle`) whose process is still alive: its pid
/// and start time.
fn running_gateway() -> Option<(i64, std::time::SystemTime)> {
    let db = state_dir()?.join("state/openclaw.sqlite");
    let flags =
        rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY | rusqlite::OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let conn = rusqlite::Connection::open_with_flags(&db, flags).ok()?;
    conn.busy_timeout(std::time::Duration::from_millis(500))
        .ok()?;
    let (pid, ms): (i64, i64) = conn
        .query_row(
            "SELECT pid, started_at_ms FROM gateway_boot_lifecycle ORDER BY started_at_ms DESC LIMIT 1",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .ok()?;
    // Only where /proc tells whether the process lives (Linux).
    if !Path::new(&format!("/proc/{pid}")).exists() {
        return None;
    }
    let started = std::time::UNIX_EPOCH + std::time::Duration::from_millis(u64::try_from(ms).ok()?);
    Some((pid, started))
}

/// The workspace OpenClaw's config gives its agents (the default, or
/// `~/.openclaw/workspace` when none is set), when `root` is not one of
/// them (nor a per-agent one).
fn workspace_elsewhere(cfg: &Value, root: &Path) -> Option<String> {
    let same = |p: &str| {
        let p = Path::new(p);
        p == root || p.canonicalize().ok().as_deref() == root.canonicalize().ok().as_deref()
    };
    let per_agent = cfg
        .pointer("/agents/list")
        .or_else(|| cfg.pointer("/agents/entries"))
        .into_iter()
        .flat_map(|v| match v {
            Value::Array(a) => a.iter().collect::<Vec<_>>(),
            Value::Object(m) => m.values().collect(),
            _ => Vec::new(),
        })
        .filter_map(|a| a.get("workspace").and_then(Value::as_str));
    if per_agent.into_iter().any(same) {
        return None;
    }
    let default = match cfg
        .pointer("/agents/defaults/workspace")
        .and_then(Value::as_str)
    {
        Some(w) => w.to_string(),
        None => state_dir()?.join("workspace").display().to_string(),
    };
    (!same(&default)).then_some(default)
}

/// When hipo's hook files last changed.
fn hook_changed(root: &Path) -> Option<std::time::SystemTime> {
    [HOOK_MD, HANDLER]
        .iter()
        .filter_map(|rel| {
            std::fs::metadata(root.join(rel))
                .and_then(|m| m.modified())
                .ok()
        })
        .max()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_config_entry_is_merged_and_removed_keeping_the_rest() {
        let mut cfg: Map<String, Value> = serde_json::from_str(
            r#"{"models": {"mode": "merge"}, "hooks": {"internal": {"entries": {"command-logger": {"enabled": true}}}}, "zeta": 1}"#,
        )
        .unwrap();
        let before = cfg.clone();
        assert!(!narrows(&cfg));
        set_hook_entry(&mut cfg, "/opt/hipo");
        set_mcp(&mut cfg, Some(mcp_server(Path::new("/ws"))));
        assert_eq!(
            cfg["hooks"]["internal"]["entries"]["hipo"]["env"]["HIPO_BIN"],
            "/opt/hipo"
        );
        assert_eq!(cfg["mcp"]["servers"]["hipo"]["cwd"], "/ws");
        let keys: Vec<&String> = cfg.keys().collect();
        assert_eq!(keys, ["models", "hooks", "zeta", "mcp"], "order kept");
        remove_hook_entry(&mut cfg);
        set_mcp(&mut cfg, None);
        assert_eq!(cfg, before);
    }

    #[test]
    fn a_first_named_entry_under_open_discovery_is_not_written() {
        let open: Map<String, Value> =
            serde_json::from_str(r#"{"hooks": {"internal": {"enabled": true}}}"#).unwrap();
        assert!(narrows(&open));
        let named: Map<String, Value> = serde_json::from_str(
            r#"{"hooks": {"internal": {"enabled": true, "entries": {"x": {"enabled": true}}}}}"#,
        )
        .unwrap();
        assert!(!narrows(&named));
    }

    #[test]
    fn hook_md_names_every_event() {
        let md = hook_md();
        let front = md.split("---").nth(1).unwrap();
        let meta = front.lines().find(|l| l.starts_with("metadata: ")).unwrap();
        let v: Value = serde_json::from_str(&meta["metadata: ".len()..]).unwrap();
        assert_eq!(
            v["openclaw"]["events"].as_array().unwrap().len(),
            super::super::hook::EVENTS.len()
        );
        assert!(front.contains("name: hipo\n"));
    }
}
