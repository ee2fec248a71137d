//! OpenCode: a plugin `.opencode/plugins/hipo.js` instead of a hooks
//! file, the protocol in `AGENTS.md`, skills in `.opencode/skills/`, the
//! MCP server in `opencode.json` ([`install`]). OpenCode keeps every
//! session in one SQLite database; its plugin sends only the session id,
//! and the database is the one OpenCode's environment names.

mod install;

use super::{DoctorEnv, Found, HookGiven, IngestAsk, Platform};
use crate::harness::{self, Finding, Protocol, Report};
use hipo_core::{Error, Result};
use hipo_core::{Format, Source};
use std::path::{Path, PathBuf};

#[derive(Debug)]
pub struct OpenCode;

const NAME: &str = "opencode";

/// `name` in each SKILL.md equals its folder's, as OpenCode checks.
const PROTOCOL: Protocol = Protocol {
    instructions: "AGENTS.md",
    imports: None,
    skills_dir: ".opencode/skills",
};

impl Platform for OpenCode {
    fn name(&self) -> &'static str {
        NAME
    }

    fn markers(&self) -> &'static [&'static str] {
        &["opencode.json", "opencode.jsonc", ".opencode"]
    }

    fn instructions(&self) -> &'static str {
        PROTOCOL.instructions
    }

    fn install(&self, root: &Path, _bin: &str) -> Result<Report> {
        let mut report = Report::new(NAME);
        harness::install_protocol(root, &PROTOCOL, &mut report)?;
        install::install(root, &mut report)?;
        Ok(report)
    }

    fn uninstall(&self, root: &Path) -> Result<Report> {
        let mut report = Report::new(NAME);
        let keep = super::shares_instructions(root, self);
        harness::uninstall_protocol(root, &PROTOCOL, keep, &mut report)?;
        install::uninstall(root, &mut report)?;
        Ok(report)
    }

    /// `opencode.json`; an entry in `opencode.jsonc` is checked by
    /// OpenCode's own doctor step.
    fn mcp_file(&self) -> Option<&'static str> {
        Some("opencode.json")
    }

    fn installed(&self, root: &Path) -> bool {
        std::fs::read_to_string(root.join(install::PLUGIN))
            .is_ok_and(|t| install::is_hipos_plugin(&t))
    }

    fn doctor(&self, root: &Path, _env: &DoctorEnv, out: &mut Vec<Finding>) {
        install::doctor(root, out);
    }

    /// The plugin's child inherits OpenCode's environment, so the
    /// database is the one OpenCode uses, unless the hook names one.
    fn hook_sources(&self, given: &HookGiven) -> Vec<Source> {
        let Some(id) = given.session_id else {
            return Vec::new();
        };
        let db = given
            .transcript_path
            .map(Path::to_path_buf)
            .or_else(default_db);
        db.map(|db| Source::session(Format::OpenCode, db, Some(id.to_string())))
            .into_iter()
            .collect()
    }

    /// The sessions named, or every session that ran in this project.
    fn ingest_sources(&self, root: &Path, ask: &IngestAsk) -> Result<Found> {
        ask.no_agent()?;
        let db = match ask.transcripts {
            [] => default_db().ok_or_else(|| {
                Error::Usage("no HOME or XDG_DATA_HOME: pass OpenCode's database path".into())
            })?,
            [one] => one.clone(),
            _ => {
                return Err(Error::Usage(
                    "OpenCode keeps every session in one database: pass one path at most".into(),
                ));
            }
        };
        let mut note = None;
        let ids = if ask.sessions.is_empty() {
            let root = root.canonicalize().map_err(|e| Error::io(root, e))?;
            let found = hipo_core::opencode_sessions_in(&db, &root)?;
            if found.is_empty() {
                note = Some(format!("no OpenCode session ran in {}", root.display()));
            }
            found.into_iter().map(|s| s.id).collect()
        } else {
            ask.sessions.to_vec()
        };
        let sources = ids
            .into_iter()
            .map(|id| Source::session(Format::OpenCode, db.clone(), Some(id)))
            .collect();
        Ok(Found { sources, note })
    }

    fn keeps_sessions_in_a_store(&self) -> bool {
        true
    }
}

/// The database OpenCode uses with this environment: `OPENCODE_DB`, else
/// `$XDG_DATA_HOME/opencode/opencode.db`, else
/// `~/.local/share/opencode/opencode.db`.
fn default_db() -> Option<PathBuf> {
    let var = |k: &str| std::env::var_os(k).filter(|v| !v.is_empty());
    if let Some(db) = var("OPENCODE_DB") {
        return Some(PathBuf::from(db));
    }
    let data = var("XDG_DATA_HOME")
        .map(PathBuf::from)
        .or_else(|| var("HOME").map(|h| Path::new(&h).join(".local/share")))?;
    Some(data.join("opencode/opencode.db"))
}
