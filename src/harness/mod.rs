//! Installing hipo into an agent platform: the hot files, the memory
//! protocol in the platform's instruction file, skills where it reads
//! them, and hooks in its own format and units, so the agent loads memory
//! at session start, gets recall on prompts and has its sessions captured.
//! Re-running changes nothing; `uninstall` removes exactly what hipo
//! added and never a memory file.

mod doctor;
mod files;
mod jsonc;
pub mod openclaw;
mod openclaw_hook;
mod opencode;
mod share;
mod texts;

pub use doctor::{Finding, check as doctor};
pub use files::Change;
pub use share::install as share;

use files::{json_object, json_text, put, read, with_block, with_hooks};
use hipo_core::error::{Error, Result};
use hipo_core::platform::Platform;
use serde_json::{Value, json};
use std::path::Path;

/// What an install or uninstall did, file by file.
#[derive(Debug, Default, serde::Serialize)]
pub struct Report {
    pub platform: String,
    pub files: Vec<(String, Change)>,
    /// What the user still has to do (Codex's hook review).
    pub next_steps: Vec<String>,
}

impl Report {
    fn note(&mut self, rel: &str, change: Change) {
        self.files.push((rel.to_string(), change));
    }
}

/// A hook: its platform event, matcher, hipo's event name, timeout in
/// seconds, and whether the platform may run it in the background.
struct Hook {
    event: &'static str,
    matcher: Option<&'static str>,
    hipo_event: &'static str,
    timeout_s: u64,
    background: bool,
}

/// Loads memory at start, after a resume, a clear or the platform's own
/// compaction.
const SESSION_START: Hook = Hook {
    event: "SessionStart",
    matcher: Some("startup|resume|clear|compact"),
    hipo_event: "session-start",
    timeout_s: 10,
    background: false,
};
const PROMPT: Hook = Hook {
    event: "UserPromptSubmit",
    matcher: None,
    hipo_event: "prompt",
    timeout_s: 5,
    background: false,
};
const PRE_COMPACT: Hook = Hook {
    event: "PreCompact",
    matcher: None,
    hipo_event: "pre-compact",
    timeout_s: 60,
    background: false,
};

const CLAUDE_HOOKS: [Hook; 5] = [
    SESSION_START,
    PROMPT,
    Hook {
        event: "Stop",
        matcher: None,
        hipo_event: "stop",
        timeout_s: 60,
        background: true,
    },
    PRE_COMPACT,
    Hook {
        event: "SessionEnd",
        matcher: None,
        hipo_event: "session-end",
        timeout_s: 10,
        background: false,
    },
];

/// Codex has no background hooks and clamps SessionEnd to 3 s.
const CODEX_HOOKS: [Hook; 4] = [
    SESSION_START,
    PROMPT,
    Hook {
        event: "Stop",
        matcher: None,
        hipo_event: "stop",
        timeout_s: 30,
        background: false,
    },
    PRE_COMPACT,
];

/// Where each platform keeps what hipo installs.
struct Layout {
    instructions: &'static str,
    imports: Option<&'static str>,
    skills_dir: &'static str,
    hooks_file: &'static str,
    /// The hooks file is the user's own, never committed: the absolute
    /// path of this binary may go there. A file a project shares calls
    /// `hipo` on `PATH`, which works on every teammate's machine.
    hooks_personal: bool,
    hooks: &'static [Hook],
}

fn layout(platform: Platform) -> Result<Layout> {
    match platform {
        Platform::ClaudeCode => Ok(Layout {
            instructions: "CLAUDE.md",
            imports: Some(texts::CLAUDE_IMPORTS),
            skills_dir: ".claude/skills",
            // Personal and not committed: a machine path may go here.
            hooks_file: ".claude/settings.local.json",
            hooks_personal: true,
            hooks: &CLAUDE_HOOKS,
        }),
        Platform::Codex => Ok(Layout {
            instructions: "AGENTS.md",
            imports: None,
            skills_dir: ".agents/skills",
            hooks_file: ".codex/hooks.json",
            // The project layer, which a repository commits and Codex
            // hashes for its trust review: a machine path would differ
            // on every machine.
            hooks_personal: false,
            hooks: &CODEX_HOOKS,
        }),
        Platform::OpenCode => Ok(Layout {
            instructions: "AGENTS.md",
            imports: None,
            // `name` in each SKILL.md equals its folder's, as OpenCode checks.
            skills_dir: ".opencode/skills",
            // A plugin, not a hooks file: see `opencode`. It is committed
            // with the project, so it calls `hipo` on PATH (or `HIPO_BIN`).
            hooks_file: opencode::PLUGIN,
            hooks_personal: false,
            hooks: &[],
        }),
        // OpenClaw's workspace and config are laid out by `openclaw`.
        other => Err(Error::Usage(format!(
            "{} has no hooks-file layout; `harness::openclaw` installs it",
            other.as_str()
        ))),
    }
}

/// Whether hipo can install into `platform`: checked before anything is
/// written, so a refused platform leaves the project as it was.
pub fn check_supported(platform: Platform) -> Result<()> {
    if platform == Platform::OpenClaw {
        return Ok(());
    }
    layout(platform).map(drop)
}

/// Installs hipo for `platform` under `root`; `bin` is the command that
/// runs hipo from a personal hooks file (`hipo`, or this binary's path
/// when `hipo` on `PATH` is not it); shared files always call `hipo`.
pub fn install(root: &Path, platform: Platform, bin: &str) -> Result<Report> {
    if platform == Platform::OpenClaw {
        return openclaw::install(root, bin);
    }
    let l = layout(platform)?;
    let bin = if l.hooks_personal { bin } else { "hipo" };
    let mut report = Report {
        platform: platform.as_str().into(),
        ..Default::default()
    };
    for (rel, text) in texts::HOT_FILES {
        report.note(rel, files::create_once(&root.join(rel), text)?);
    }
    let block = match l.imports {
        Some(imports) => format!("{}\n\n{imports}", texts::PROTOCOL),
        None => texts::PROTOCOL.to_string(),
    };
    report.note(
        l.instructions,
        set_block(root, l.instructions, Some(&block))?,
    );
    for skill in &texts::SKILLS {
        let rel = format!("{}/{}/SKILL.md", l.skills_dir, skill.name);
        let path = root.join(&rel);
        let old = read(&path)?;
        report.note(&rel, put(&path, old.as_deref(), Some(skill.text))?);
    }
    if platform == Platform::OpenCode {
        opencode::install(root, &mut report)?;
        return Ok(report);
    }
    let groups: Vec<(&str, Value)> = l
        .hooks
        .iter()
        .map(|h| (h.event, group(h, bin, platform)))
        .collect();
    report.note(
        l.hooks_file,
        set_hooks(root, l.hooks_file, &groups, platform)?,
    );
    let (rel, change) = register_mcp(root, platform, true)?;
    report.note(rel, change);
    if platform == Platform::Codex {
        report.next_steps.push(
            "Codex runs a hook only once you have reviewed it: open Codex, run /hooks and trust hipo's hooks (the project must be trusted too)".into(),
        );
    }
    Ok(report)
}

/// Removes what [`install`] added; hot files and memory stay.
pub fn uninstall(root: &Path, platform: Platform) -> Result<Report> {
    if platform == Platform::OpenClaw {
        return openclaw::uninstall(root);
    }
    let l = layout(platform)?;
    let mut report = Report {
        platform: platform.as_str().into(),
        ..Default::default()
    };
    // Codex and OpenCode share AGENTS.md: the block stays while the other
    // is installed.
    let shared = Platform::ALL.into_iter().any(|other| {
        other != platform
            && layout(other).is_ok_and(|o| o.instructions == l.instructions)
            && installed(root, other)
    });
    if !shared {
        report.note(l.instructions, set_block(root, l.instructions, None)?);
    }
    for skill in &texts::SKILLS {
        let rel = format!("{}/{}/SKILL.md", l.skills_dir, skill.name);
        let path = root.join(&rel);
        let old = read(&path)?;
        report.note(&rel, put(&path, old.as_deref(), None)?);
        if let Some(dir) = path.parent() {
            // Only if hipo's file was all it held.
            let _ = std::fs::remove_dir(dir);
        }
    }
    if platform == Platform::OpenCode {
        opencode::uninstall(root, &mut report)?;
        return Ok(report);
    }
    report.note(l.hooks_file, set_hooks(root, l.hooks_file, &[], platform)?);
    let (rel, change) = register_mcp(root, platform, false)?;
    report.note(rel, change);
    Ok(report)
}

/// Whether hipo's hooks (or OpenCode's plugin) are installed for
/// `platform` under `root`.
fn installed(root: &Path, platform: Platform) -> bool {
    let Ok(l) = layout(platform) else {
        return false;
    };
    let marker = match platform {
        Platform::OpenCode => "written by `hipo init --platform opencode`".to_string(),
        other => format!(" hook {} ", other.as_str()),
    };
    std::fs::read_to_string(root.join(l.hooks_file)).is_ok_and(|t| t.contains(&marker))
}

/// The MCP server in the platform's project config: `.mcp.json` for
/// Claude Code, `.codex/config.toml` for Codex (read once the project is
/// trusted). These files are shared, so the command is `hipo` on `PATH`,
/// never a machine path.
fn register_mcp(root: &Path, platform: Platform, on: bool) -> Result<(&'static str, Change)> {
    match platform {
        Platform::ClaudeCode => {
            let rel = ".mcp.json";
            let path = root.join(rel);
            let old = read(&path)?;
            let mut settings = json_object(&path, old.as_deref())?;
            let servers = settings
                .entry("mcpServers")
                .or_insert_with(|| Value::Object(Default::default()));
            if let Some(servers) = servers.as_object_mut() {
                servers.remove("hipo");
                if on {
                    servers.insert("hipo".into(), json!({"command": "hipo", "args": ["mcp"]}));
                }
            }
            if settings
                .get("mcpServers")
                .and_then(Value::as_object)
                .is_some_and(|m| m.is_empty())
            {
                settings.remove("mcpServers");
            }
            let new = (!settings.is_empty()).then(|| json_text(&settings));
            Ok((rel, put(&path, old.as_deref(), new.as_deref())?))
        }
        Platform::Codex => {
            let rel = ".codex/config.toml";
            let path = root.join(rel);
            let old = read(&path)?;
            let text = old.as_deref().unwrap_or("");
            let begin = "# hipo:begin (written by `hipo init`; `hipo uninstall` removes it)";
            let end = "# hipo:end";
            // Someone else's [mcp_servers.hipo]: a second one would make
            // the file invalid TOML, so theirs stays.
            let outside = files::with_marked(text, begin, end, None);
            if on && outside.contains("[mcp_servers.hipo]") {
                return Ok((rel, Change::Unchanged));
            }
            let block = on.then_some("[mcp_servers.hipo]\ncommand = \"hipo\"\nargs = [\"mcp\"]");
            let new = files::with_marked(text, begin, end, block);
            let new = (!new.trim().is_empty()).then_some(new);
            Ok((rel, put(&path, old.as_deref(), new.as_deref())?))
        }
        _ => Ok(("", Change::Unchanged)),
    }
}

fn set_block(root: &Path, rel: &str, block: Option<&str>) -> Result<Change> {
    let path = root.join(rel);
    let old = read(&path)?;
    let new = with_block(old.as_deref().unwrap_or(""), block);
    // A file that held only hipo's block goes with it.
    let new = (!new.trim().is_empty() || block.is_some()).then_some(new);
    put(&path, old.as_deref(), new.as_deref())
}

fn set_hooks(
    root: &Path,
    rel: &str,
    groups: &[(&str, Value)],
    platform: Platform,
) -> Result<Change> {
    let path = root.join(rel);
    let old = read(&path)?;
    let settings = json_object(&path, old.as_deref())?;
    let marker = format!(" hook {} ", platform.as_str());
    let merged = with_hooks(settings, groups, |c| c.contains(&marker));
    let new = (!merged.is_empty()).then(|| json_text(&merged));
    put(&path, old.as_deref(), new.as_deref())
}

/// One matcher group holding hipo's handler, in the shape both Claude
/// Code and Codex read (timeouts in seconds).
fn group(h: &Hook, bin: &str, platform: Platform) -> Value {
    let mut handler = json!({
        "type": "command",
        "command": format!("{bin} hook {} {}", platform.as_str(), h.hipo_event),
        "timeout": h.timeout_s,
    });
    if h.background {
        handler["async"] = json!(true);
    }
    let mut g = json!({ "hooks": [handler] });
    if let Some(m) = h.matcher {
        g["matcher"] = json!(m);
    }
    g
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn install_is_idempotent_and_uninstall_leaves_only_what_was_there() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::write(root.join("CLAUDE.md"), "# My project\nrules\n").unwrap();
        std::fs::create_dir(root.join(".claude")).unwrap();
        std::fs::write(
            root.join(".claude/settings.local.json"),
            r#"{"permissions": {"allow": ["Bash(ls)"]}, "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "notify-me"}]}]}}"#,
        )
        .unwrap();
        let first = install(root, Platform::ClaudeCode, "hipo").unwrap();
        assert!(first.files.iter().any(|(_, c)| *c == Change::Updated));
        let again = install(root, Platform::ClaudeCode, "hipo").unwrap();
        assert!(
            again.files.iter().all(|(_, c)| *c == Change::Unchanged),
            "{:?}",
            again.files
        );
        let settings = std::fs::read_to_string(root.join(".claude/settings.local.json")).unwrap();
        assert!(settings.contains("notify-me") && settings.contains("hipo hook claude-code stop"));
        let mcp = std::fs::read_to_string(root.join(".mcp.json")).unwrap();
        assert!(mcp.contains(r#""command": "hipo""#), "{mcp}");
        assert!(
            std::fs::read_to_string(root.join("CLAUDE.md"))
                .unwrap()
                .contains("@memory/ROOT.md")
        );
        uninstall(root, Platform::ClaudeCode).unwrap();
        assert_eq!(
            std::fs::read_to_string(root.join("CLAUDE.md")).unwrap(),
            "# My project\nrules\n"
        );
        let settings = std::fs::read_to_string(root.join(".claude/settings.local.json")).unwrap();
        assert!(
            settings.contains("notify-me") && !settings.contains("hipo"),
            "{settings}"
        );
        assert!(!root.join(".claude/skills/hipo-recall").exists());
        assert!(
            !root.join(".mcp.json").exists(),
            "hipo's .mcp.json held only its server"
        );
        assert!(root.join("WORKING.md").exists(), "memory files stay");
    }
}
