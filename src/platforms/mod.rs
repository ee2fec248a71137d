//! The agent platforms hipo plugs into, one folder each behind
//! [`Platform`]: the hooks it installs and in what format, how it is
//! installed and removed, what `hipo doctor` checks, where the platform
//! keeps its transcripts and which transcript format it writes (the
//! engine reads the formats: `hipo_core::ingest`). Adding a platform is a
//! folder here and a line in [`ALL`]; `hook.rs` and `cli/` hold no
//! platform's name.

mod claude_code;
mod codex;
mod openclaw;
mod opencode;

use crate::harness::{self, Finding, Report};
use hipo_core::Source;
use hipo_core::{Error, Result};
use std::path::{Path, PathBuf};

/// An agent platform.
pub trait Platform: Sync + std::fmt::Debug {
    /// Its name on the command line, in hook commands, in watermarks.
    fn name(&self) -> &'static str;

    /// Other names `--platform` takes.
    fn aliases(&self) -> &'static [&'static str] {
        &[]
    }

    /// Files that say a project uses this platform.
    fn markers(&self) -> &'static [&'static str];

    /// The instruction file the protocol block goes in.
    fn instructions(&self) -> &'static str;

    /// A hooks file that is the user's own and must stay out of git.
    fn personal_file(&self) -> Option<&'static str> {
        None
    }

    /// Installs hipo under `root`; `bin` is the command that runs hipo
    /// from a personal file (shared files call `hipo` on PATH).
    fn install(&self, root: &Path, bin: &str) -> Result<Report>;

    /// Removes what [`Platform::install`] added; memory files stay.
    fn uninstall(&self, root: &Path) -> Result<Report>;

    /// Whether hipo's hooks (or plugin) are installed under `root`.
    fn installed(&self, root: &Path) -> bool;

    /// `hipo doctor`'s checks of this platform's install (nothing when it
    /// is not installed).
    fn doctor(&self, root: &Path, env: &DoctorEnv, out: &mut Vec<Finding>);

    /// The project file registering `hipo mcp` for this platform, if it
    /// has one (doctor checks `hipo` is on PATH when one names it).
    fn mcp_file(&self) -> Option<&'static str> {
        None
    }

    /// Whether the platform loads ROOT.md by itself at the start of this
    /// session (`source` is the hook's `source`), so the session-start
    /// hook need not print it.
    fn loads_root_itself(&self, _root: &Path, _source: Option<&str>) -> bool {
        false
    }

    /// What a capture hook reads, from what the hook was given.
    fn hook_sources(&self, given: &HookGiven) -> Vec<Source>;

    /// What `hipo ingest` reads: the transcripts named, or the platform's
    /// own stores when none is; with a note for the user when none is
    /// found.
    fn ingest_sources(&self, root: &Path, ask: &IngestAsk) -> Result<Found>;

    /// Whether a transcript holds many sessions (how a report words it).
    fn keeps_sessions_in_a_store(&self) -> bool {
        false
    }
}

/// A platform, as the command line holds it.
pub type PlatformRef = &'static dyn Platform;

/// Every platform, in the order `doctor` reports them.
pub static ALL: [PlatformRef; 4] = [
    &claude_code::ClaudeCode,
    &codex::Codex,
    &opencode::OpenCode,
    &openclaw::OpenClaw,
];

/// What a capture hook got on stdin that says where the transcript is.
#[derive(Debug, Default)]
pub struct HookGiven<'a> {
    pub transcript_path: Option<&'a Path>,
    pub session_id: Option<&'a str>,
    pub agent_id: Option<&'a str>,
}

/// What `hipo ingest` was asked for.
#[derive(Debug, Default)]
pub struct IngestAsk<'a> {
    pub sessions: &'a [String],
    pub transcripts: &'a [PathBuf],
    pub agent: Option<&'a str>,
}

impl IngestAsk<'_> {
    /// Refuses `--agent`, which only OpenClaw has.
    fn no_agent(&self) -> Result<()> {
        match self.agent {
            Some(_) => Err(Error::Usage("--agent is for --platform openclaw".into())),
            None => Ok(()),
        }
    }
}

/// The sources `hipo ingest` reads, and what to tell the user when there
/// are none.
#[derive(Debug, Default)]
pub struct Found {
    pub sources: Vec<Source>,
    pub note: Option<String>,
}

/// What `hipo doctor` knows of the machine.
#[derive(Debug, Default)]
pub struct DoctorEnv {
    /// Where Codex keeps its `config.toml` (its hook reviews).
    pub codex_home: Option<PathBuf>,
}

/// The platform `--platform NAME` names.
pub fn parse(name: &str) -> std::result::Result<PlatformRef, String> {
    ALL.iter()
        .copied()
        .find(|p| p.name() == name || p.aliases().contains(&name))
        .ok_or_else(|| {
            format!(
                "`{name}` is not a platform; use {}",
                names().replace(", openclaw", " or openclaw")
            )
        })
}

fn names() -> String {
    ALL.map(|p| p.name()).join(", ")
}

/// The one platform `root` shows signs of. An `AGENTS.md` alone says
/// nothing: Codex, OpenCode and OpenClaw all read it. None found, or
/// several, is an error asking for `--platform`.
pub fn detect(root: &Path) -> Result<PlatformRef> {
    let found: Vec<PlatformRef> = ALL
        .iter()
        .copied()
        .filter(|p| p.markers().iter().any(|m| root.join(m).exists()))
        .collect();
    match found.as_slice() {
        [one] => Ok(*one),
        [] => Err(Error::Usage(format!(
            "no agent platform found in {} (looked for .claude/, .codex/, opencode.json, OpenClaw's SOUL.md); pass --platform ({})",
            root.display(),
            names()
        ))),
        several => Err(Error::Usage(format!(
            "several agent platforms found in {} ({}); pass --platform for each to install",
            root.display(),
            several
                .iter()
                .map(|p| p.name())
                .collect::<Vec<_>>()
                .join(", ")
        ))),
    }
}

/// Whether a platform other than `me` that reads the same instruction
/// file is installed: then uninstalling `me` keeps the block.
fn shares_instructions(root: &Path, me: &dyn Platform) -> bool {
    ALL.iter().any(|other| {
        other.name() != me.name()
            && other.instructions() == me.instructions()
            && other.installed(root)
    })
}

/// The hooks files that are personal, for a shared project's
/// `.gitignore`.
pub fn personal_files() -> Vec<&'static str> {
    ALL.iter().filter_map(|p| p.personal_file()).collect()
}

/// `hipo doctor`: every platform's checks, then the common ones.
pub fn doctor(
    root: &Path,
    config: &hipo_core::Config,
    due: &hipo_core::Triggers,
    env: &DoctorEnv,
) -> Vec<Finding> {
    let mut out = Vec::new();
    for p in ALL {
        p.doctor(root, env, &mut out);
    }
    let registered = ALL
        .iter()
        .filter_map(|p| p.mcp_file())
        .any(|rel| std::fs::read_to_string(root.join(rel)).is_ok_and(|t| t.contains("hipo")));
    harness::doctor::installation(&mut out, registered);
    harness::share_check(root, config.share, &mut out);
    harness::doctor::memory(&mut out, root, config, due);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn detection_needs_exactly_one_platform() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("AGENTS.md"), "x").unwrap();
        assert!(detect(dir.path()).is_err());
        std::fs::create_dir(dir.path().join(".claude")).unwrap();
        assert_eq!(detect(dir.path()).unwrap().name(), "claude-code");
        std::fs::create_dir(dir.path().join(".codex")).unwrap();
        let err = detect(dir.path()).unwrap_err().to_string();
        assert!(err.contains("claude-code, codex"), "{err}");
        for p in ALL {
            assert_eq!(parse(p.name()).unwrap().name(), p.name());
        }
        assert_eq!(parse("claude").unwrap().name(), "claude-code");
        let bad = parse("cursor").unwrap_err();
        assert_eq!(
            bad,
            "`cursor` is not a platform; use claude-code, codex, opencode or openclaw"
        );
    }

    #[test]
    fn every_platform_has_its_own_name_and_markers() {
        let mut names: Vec<&str> = ALL.iter().map(|p| p.name()).collect();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), ALL.len());
        assert!(ALL.iter().all(|p| !p.markers().is_empty()));
    }
}
