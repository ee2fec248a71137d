//! OpenClaw: the project is the agent's workspace. hipo installs a
//! workspace hook `hooks/hipo/` ([`hook`]), the protocol in `AGENTS.md`,
//! skills, `MEMORY.md` and `USER.md`, and enables the hook and the MCP
//! server in OpenClaw's own config ([`install`]). OpenClaw keeps each
//! agent's transcripts in an SQLite database under its state directory
//! (older versions: JSONL files per session); its hook gives the agent and
//! the session that ended, not a path.

mod hook;
mod install;

use super::{DoctorEnv, Found, HookGiven, IngestAsk, Platform};
use crate::harness::{Finding, Report};
use hipo_core::{Error, Result};
use hipo_core::{Format, Source, is_openclaw_store as is_store};
use std::path::{Path, PathBuf};

#[derive(Debug)]
pub struct OpenClaw;

const NAME: &str = "openclaw";

impl Platform for OpenClaw {
    fn name(&self) -> &'static str {
        NAME
    }

    /// The files OpenClaw seeds a workspace with, and its state marker;
    /// not AGENTS.md or USER.md, which others write too.
    fn markers(&self) -> &'static [&'static str] {
        &[
            "SOUL.md",
            "IDENTITY.md",
            "HEARTBEAT.md",
            ".openclaw/workspace-state.json",
        ]
    }

    fn instructions(&self) -> &'static str {
        "AGENTS.md"
    }

    fn install(&self, root: &Path, bin: &str) -> Result<Report> {
        install::install(root, bin)
    }

    fn uninstall(&self, root: &Path) -> Result<Report> {
        install::uninstall(root)
    }

    fn installed(&self, root: &Path) -> bool {
        install::installed(root)
    }

    fn doctor(&self, root: &Path, _env: &DoctorEnv, out: &mut Vec<Finding>) {
        install::doctor(root, out);
    }

    /// The session that ended in the agent's database (every session
    /// when the hook names none), or the transcript the hook names.
    fn hook_sources(&self, given: &HookGiven) -> Vec<Source> {
        let paths = match given.transcript_path {
            Some(p) => vec![p.to_path_buf()],
            None => stores(Some(given.agent_id.unwrap_or("main"))),
        };
        paths
            .into_iter()
            .map(|p| source(p, given.session_id))
            .collect()
    }

    /// Every session (or the named ones) of its agents' databases, or of
    /// the databases and session files named.
    fn ingest_sources(&self, _root: &Path, ask: &IngestAsk) -> Result<Found> {
        let paths = match ask.transcripts {
            [] => {
                let found = stores(ask.agent);
                if found.is_empty() {
                    return Err(Error::Usage(format!(
                        "no OpenClaw transcript database under {}: give its path (agents/<agent>/agent/openclaw-agent.sqlite)",
                        state_dir()
                            .map(|d| d.join("agents").display().to_string())
                            .unwrap_or_else(|| "~/.openclaw/agents".into())
                    )));
                }
                found
            }
            given => given.to_vec(),
        };
        let mut sources = Vec::new();
        for p in paths {
            if !is_store(&p) || ask.sessions.is_empty() {
                sources.push(source(p, None));
            } else {
                sources.extend(ask.sessions.iter().map(|id| source(p.clone(), Some(id))));
            }
        }
        Ok(Found {
            sources,
            note: None,
        })
    }

    fn keeps_sessions_in_a_store(&self) -> bool {
        true
    }
}

/// A database's session (or every session), or a JSONL session file.
fn source(path: PathBuf, session: Option<&str>) -> Source {
    if is_store(&path) {
        Source::session(Format::OpenClaw, path, session.map(str::to_string))
    } else {
        Source::file(Format::OpenClaw, path)
    }
}

/// The transcript databases of every agent under OpenClaw's state
/// directory (`OPENCLAW_STATE_DIR`, else `~/.openclaw`), or of one agent.
fn stores(agent: Option<&str>) -> Vec<PathBuf> {
    let Some(state) = state_dir() else {
        return Vec::new();
    };
    let agents = state.join("agents");
    let names: Vec<String> = match agent {
        Some(a) => vec![a.to_string()],
        None => std::fs::read_dir(&agents)
            .map(|rd| {
                rd.flatten()
                    .filter_map(|e| e.file_name().into_string().ok())
                    .collect()
            })
            .unwrap_or_default(),
    };
    let mut out: Vec<PathBuf> = names
        .iter()
        .map(|a| agents.join(a).join("agent/openclaw-agent.sqlite"))
        .filter(|p| p.is_file())
        .collect();
    out.sort();
    out
}

/// OpenClaw's state directory: `OPENCLAW_STATE_DIR`, else `~/.openclaw`.
fn state_dir() -> Option<PathBuf> {
    match std::env::var_os("OPENCLAW_STATE_DIR").filter(|v| !v.is_empty()) {
        Some(dir) => Some(expand_home(&dir.to_string_lossy())),
        None => std::env::var_os("HOME").map(|h| Path::new(&h).join(".openclaw")),
    }
}

fn expand_home(p: &str) -> PathBuf {
    match (p.strip_prefix("~/"), std::env::var_os("HOME")) {
        (Some(rest), Some(home)) => Path::new(&home).join(rest),
        _ => PathBuf::from(p),
    }
}
