//! What every platform's installer shares: the hot files, the memory
//! protocol block in the platform's instruction file, the skills, a hooks
//! file in the shape Claude Code and Codex read, and the checks `hipo
//! doctor` runs on them. Which platform uses which is in its folder under
//! `platforms/`. Re-running changes nothing; uninstalling removes exactly
//! what hipo added and never a memory file.

pub mod doctor;
pub mod files;
pub mod jsonc;
mod share;
pub mod texts;

pub use doctor::Finding;
pub use files::Change;
pub use share::{check as share_check, install as share};

use files::{json_object, json_text, put, read, with_block, with_hooks};
use hipo_core::Result;
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
    pub fn new(platform: &str) -> Report {
        Report {
            platform: platform.into(),
            ..Default::default()
        }
    }

    pub fn note(&mut self, rel: &str, change: Change) {
        self.files.push((rel.to_string(), change));
    }
}

/// A hook: its platform event, matcher, hipo's event name, timeout in
/// seconds, and whether the platform may run it in the background.
pub struct Hook {
    pub event: &'static str,
    pub matcher: Option<&'static str>,
    pub hipo_event: &'static str,
    pub timeout_s: u64,
    pub background: bool,
}

/// Loads memory at start, after a resume, a clear or the platform's own
/// compaction.
pub const SESSION_START: Hook = Hook {
    event: "SessionStart",
    matcher: Some("startup|resume|clear|compact"),
    hipo_event: "session-start",
    timeout_s: 10,
    background: false,
};
pub const PROMPT: Hook = Hook {
    event: "UserPromptSubmit",
    matcher: None,
    hipo_event: "prompt",
    timeout_s: 5,
    background: false,
};
pub const PRE_COMPACT: Hook = Hook {
    event: "PreCompact",
    matcher: None,
    hipo_event: "pre-compact",
    timeout_s: 60,
    background: false,
};

/// Where the protocol and skills go on a platform.
pub struct Protocol {
    /// The instruction file the protocol block goes in.
    pub instructions: &'static str,
    /// Imports appended to the block (Claude Code's `@memory/ROOT.md`).
    pub imports: Option<&'static str>,
    pub skills_dir: &'static str,
}

/// A platform whose hooks live in a JSON hooks file, `{"hooks": {EVENT:
/// [{matcher, hooks: [{type, command, timeout}]}]}}` (Claude Code, Codex).
pub struct HooksFile {
    pub path: &'static str,
    /// The hooks file is the user's own, never committed: the absolute
    /// path of this binary may go there. A file a project shares calls
    /// `hipo` on `PATH`, which works on every teammate's machine.
    pub personal: bool,
    pub hooks: &'static [Hook],
}

/// What Claude Code and Codex share: the protocol, a JSON hooks file and
/// an MCP entry in a project file, set and removed together.
pub struct HooksFilePlatform {
    pub name: &'static str,
    pub protocol: Protocol,
    pub hooks: HooksFile,
    pub mcp_file: &'static str,
    /// Adds (`true`) or removes hipo's entry in `mcp_file`.
    pub set_mcp: fn(&Path, bool) -> Result<Change>,
}

impl HooksFilePlatform {
    /// Installs (`bin` runs hipo) or, with `None`, removes; `keep_block`:
    /// another installed platform reads the same instruction file.
    pub fn set(&self, root: &Path, bin: Option<&str>, keep_block: bool) -> Result<Report> {
        let mut report = Report::new(self.name);
        match bin {
            Some(_) => install_protocol(root, &self.protocol, &mut report)?,
            None => uninstall_protocol(root, &self.protocol, keep_block, &mut report)?,
        }
        let hooks = set_hooks(root, &self.hooks, self.name, bin)?;
        report.note(self.hooks.path, hooks);
        report.note(self.mcp_file, (self.set_mcp)(root, bin.is_some())?);
        Ok(report)
    }

    pub fn installed(&self, root: &Path) -> bool {
        hooks_installed(root, &self.hooks, self.name)
    }
}

/// Writes the hot files (once), the protocol block and the skills.
pub fn install_protocol(root: &Path, p: &Protocol, report: &mut Report) -> Result<()> {
    for (rel, text) in texts::HOT_FILES {
        report.note(rel, files::create_once(&root.join(rel), text)?);
    }
    let block = match p.imports {
        Some(imports) => format!("{}\n\n{imports}", texts::PROTOCOL),
        None => texts::PROTOCOL.to_string(),
    };
    report.note(
        p.instructions,
        set_block(root, p.instructions, Some(&block))?,
    );
    for skill in &texts::SKILLS {
        let rel = format!("{}/{}/SKILL.md", p.skills_dir, skill.name);
        let path = root.join(&rel);
        let old = read(&path)?;
        report.note(&rel, put(&path, old.as_deref(), Some(skill.text))?);
    }
    Ok(())
}

/// Removes the protocol block (unless `keep_block`: another installed
/// platform reads the same file) and the skills; hot files stay.
pub fn uninstall_protocol(
    root: &Path,
    p: &Protocol,
    keep_block: bool,
    report: &mut Report,
) -> Result<()> {
    if !keep_block {
        report.note(p.instructions, set_block(root, p.instructions, None)?);
    }
    for skill in &texts::SKILLS {
        let rel = format!("{}/{}/SKILL.md", p.skills_dir, skill.name);
        let path = root.join(&rel);
        let old = read(&path)?;
        report.note(&rel, put(&path, old.as_deref(), None)?);
        if let Some(dir) = path.parent() {
            // Only if hipo's file was all it held.
            let _ = std::fs::remove_dir(dir);
        }
    }
    Ok(())
}

/// Sets hipo's handlers in the hooks file (`bin` runs hipo; a shared
/// file always calls `hipo`), or removes them with `bin` `None`, keeping
/// every other handler.
pub fn set_hooks(
    root: &Path,
    file: &HooksFile,
    platform: &str,
    bin: Option<&str>,
) -> Result<Change> {
    let bin = bin.map(|b| if file.personal { b } else { "hipo" });
    let groups: Vec<(&str, Value)> = match bin {
        Some(bin) => file
            .hooks
            .iter()
            .map(|h| (h.event, group(h, bin, platform)))
            .collect(),
        None => Vec::new(),
    };
    let path = root.join(file.path);
    let old = read(&path)?;
    let settings = json_object(&path, old.as_deref())?;
    let marker = hook_marker(platform);
    let merged = with_hooks(settings, &groups, |c| c.contains(&marker));
    let new = (!merged.is_empty()).then(|| json_text(&merged));
    put(&path, old.as_deref(), new.as_deref())
}

/// Whether hipo's handlers are in the hooks file.
pub fn hooks_installed(root: &Path, file: &HooksFile, platform: &str) -> bool {
    std::fs::read_to_string(root.join(file.path)).is_ok_and(|t| t.contains(&hook_marker(platform)))
}

/// What every hipo handler's command holds, and nobody else's.
pub fn hook_marker(platform: &str) -> String {
    format!(" hook {platform} ")
}

/// Sets (`block` given) or removes hipo's block in `rel`.
pub fn set_block(root: &Path, rel: &str, block: Option<&str>) -> Result<Change> {
    let path = root.join(rel);
    let old = read(&path)?;
    let new = with_block(old.as_deref().unwrap_or(""), block);
    // A file that held only hipo's block goes with it.
    let new = (!new.trim().is_empty() || block.is_some()).then_some(new);
    put(&path, old.as_deref(), new.as_deref())
}

/// One matcher group holding hipo's handler, in the shape both Claude
/// Code and Codex read (timeouts in seconds).
fn group(h: &Hook, bin: &str, platform: &str) -> Value {
    let mut handler = json!({
        "type": "command",
        "command": format!("{bin} hook {platform} {}", h.hipo_event),
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
