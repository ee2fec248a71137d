//! Claude Code: hooks in `.claude/settings.local.json` (personal, never
//! committed), the protocol and the imports of ROOT.md and the hot files
//! in `CLAUDE.md`, skills in `.claude/skills/`, the MCP server in
//! `.mcp.json`. Its transcripts are JSONL files, one per session, whose
//! path every hook is given.

use super::{DoctorEnv, Found, HookGiven, IngestAsk, Platform};
use crate::harness::files::{json_object, json_text, put, read};
use crate::harness::{self, Finding, Hook, HooksFile, HooksFilePlatform, Protocol, Report, texts};
use hipo_core::ROOT_PATH;
use hipo_core::{Error, Result};
use hipo_core::{Format, Source};
use serde_json::{Value, json};
use std::path::Path;

#[derive(Debug)]
pub struct ClaudeCode;

const NAME: &str = "claude-code";

const PROTOCOL: Protocol = Protocol {
    instructions: "CLAUDE.md",
    imports: Some(texts::CLAUDE_IMPORTS),
    skills_dir: ".claude/skills",
};

const HOOKS: [Hook; 5] = [
    harness::SESSION_START,
    harness::PROMPT,
    Hook {
        event: "Stop",
        matcher: None,
        hipo_event: "stop",
        timeout_s: 60,
        background: true,
    },
    harness::PRE_COMPACT,
    Hook {
        event: "SessionEnd",
        matcher: None,
        hipo_event: "session-end",
        timeout_s: 10,
        background: false,
    },
];

/// Personal and not committed: a machine path may go here.
const HOOKS_FILE: HooksFile = HooksFile {
    path: ".claude/settings.local.json",
    personal: true,
    hooks: &HOOKS,
};

/// The project's MCP config, shared: the command is `hipo` on PATH.
const MCP_FILE: &str = ".mcp.json";

const SETUP: HooksFilePlatform = HooksFilePlatform {
    name: NAME,
    protocol: PROTOCOL,
    hooks: HOOKS_FILE,
    mcp_file: MCP_FILE,
    set_mcp,
};

impl Platform for ClaudeCode {
    fn name(&self) -> &'static str {
        NAME
    }

    fn aliases(&self) -> &'static [&'static str] {
        &["claude"]
    }

    fn markers(&self) -> &'static [&'static str] {
        &[".claude", "CLAUDE.md"]
    }

    fn instructions(&self) -> &'static str {
        PROTOCOL.instructions
    }

    fn personal_file(&self) -> Option<&'static str> {
        Some(HOOKS_FILE.path)
    }

    fn install(&self, root: &Path, bin: &str) -> Result<Report> {
        SETUP.set(root, Some(bin), false)
    }

    fn uninstall(&self, root: &Path) -> Result<Report> {
        SETUP.set(root, None, super::shares_instructions(root, self))
    }

    fn mcp_file(&self) -> Option<&'static str> {
        Some(MCP_FILE)
    }

    fn installed(&self, root: &Path) -> bool {
        SETUP.installed(root)
    }

    fn doctor(&self, root: &Path, _env: &DoctorEnv, out: &mut Vec<Finding>) {
        let path = root.join(HOOKS_FILE.path);
        harness::doctor::check_hooks(out, NAME, &path, &HOOKS, &|_| None);
    }

    /// Claude Code imports ROOT.md and the hot files through CLAUDE.md at
    /// launch, when CLAUDE.md holds the import (hooks installed another
    /// way, the block removed or a global install leave it out); later
    /// (after a compaction, a resume) a background compaction may have
    /// rewritten them, so they are loaded fresh.
    fn loads_root_itself(&self, root: &Path, source: Option<&str>) -> bool {
        source.is_none_or(|s| s == "startup") && claude_imports_root(root)
    }

    fn hook_sources(&self, given: &HookGiven) -> Vec<Source> {
        given
            .transcript_path
            .map(|p| Source::file(Format::ClaudeCode, p))
            .into_iter()
            .collect()
    }

    fn ingest_sources(&self, _root: &Path, ask: &IngestAsk) -> Result<Found> {
        files_named(Format::ClaudeCode, ask)
    }
}

/// The transcripts `hipo ingest` names, for a platform with a file per
/// session.
pub(super) fn files_named(format: Format, ask: &IngestAsk) -> Result<Found> {
    ask.no_agent()?;
    if !ask.sessions.is_empty() {
        return Err(Error::Usage(
            "--session is for OpenCode's and OpenClaw's databases; other platforms' transcripts are one file per session".into(),
        ));
    }
    if ask.transcripts.is_empty() {
        return Err(Error::Usage("name the transcript file(s) to ingest".into()));
    }
    Ok(Found {
        sources: ask
            .transcripts
            .iter()
            .map(|t| Source::file(format, t))
            .collect(),
        note: None,
    })
}

/// Adds or removes hipo's server in `.mcp.json`; a file that held only
/// it goes.
fn set_mcp(root: &Path, on: bool) -> Result<harness::Change> {
    let path = root.join(MCP_FILE);
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
    put(&path, old.as_deref(), new.as_deref())
}

/// Whether Claude Code's project memory (`CLAUDE.md`, `.claude/CLAUDE.md`,
/// `CLAUDE.local.md`) imports `memory/ROOT.md`: an `@memory/ROOT.md`
/// outside code, as Claude Code reads imports.
fn claude_imports_root(root: &Path) -> bool {
    ["CLAUDE.md", ".claude/CLAUDE.md", "CLAUDE.local.md"]
        .iter()
        .filter_map(|f| std::fs::read_to_string(root.join(f)).ok())
        .any(|text| imports_root(&text, root))
}

fn imports_root(text: &str, root: &Path) -> bool {
    let target = root.join(ROOT_PATH);
    let mut fence: Option<&str> = None;
    for line in text.lines() {
        let t = line.trim_start();
        for f in ["```", "~~~"] {
            if t.starts_with(f) {
                fence = match fence {
                    Some(open) if open == f => None,
                    None => Some(f),
                    other => other,
                };
            }
        }
        if fence.is_some() || t.starts_with("```") || t.starts_with("~~~") {
            continue;
        }
        // Outside inline code: every other piece between backticks.
        let outside = t.split('`').step_by(2);
        let found = outside
            .flat_map(str::split_whitespace)
            .filter_map(|w| w.strip_prefix('@'))
            .any(|p| {
                let p = p.trim_start_matches("./");
                p == ROOT_PATH || Path::new(p) == target
            });
        if found {
            return true;
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::harness::Change;

    #[test]
    fn only_a_real_import_of_root_counts() {
        let root = Path::new("/p");
        assert!(imports_root(
            "# Me\n\n@memory/ROOT.md\n@SCRATCHPAD.md\n",
            root
        ));
        assert!(imports_root("see @./memory/ROOT.md", root));
        assert!(imports_root("@/p/memory/ROOT.md", root));
        assert!(!imports_root("# Me\nrules\n", root));
        assert!(!imports_root("run `@memory/ROOT.md` by hand", root));
        assert!(!imports_root("```\n@memory/ROOT.md\n```\n", root));
        assert!(!imports_root("@memory/ROOT.md.bak", root));
    }

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
        let first = ClaudeCode.install(root, "hipo").unwrap();
        assert!(first.files.iter().any(|(_, c)| *c == Change::Updated));
        let again = ClaudeCode.install(root, "hipo").unwrap();
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
        ClaudeCode.uninstall(root).unwrap();
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
