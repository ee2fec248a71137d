//! The agent platforms hipo plugs into, and how a project says which it
//! uses.

use crate::error::{Error, Result};
use std::path::Path;

/// An agent platform.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Platform {
    ClaudeCode,
    Codex,
    OpenCode,
    OpenClaw,
}

impl Platform {
    pub const ALL: [Platform; 4] = [
        Platform::ClaudeCode,
        Platform::Codex,
        Platform::OpenCode,
        Platform::OpenClaw,
    ];

    /// The name used on the command line and in watermarks.
    pub fn as_str(self) -> &'static str {
        match self {
            Platform::ClaudeCode => "claude-code",
            Platform::Codex => "codex",
            Platform::OpenCode => "opencode",
            Platform::OpenClaw => "openclaw",
        }
    }

    /// The files that say a project uses this platform. An `AGENTS.md`
    /// alone says nothing: Codex, OpenCode and OpenClaw all read it.
    fn markers(self) -> &'static [&'static str] {
        match self {
            Platform::ClaudeCode => &[".claude", "CLAUDE.md"],
            Platform::Codex => &[".codex"],
            Platform::OpenCode => &["opencode.json", "opencode.jsonc", ".opencode"],
            // The files OpenClaw seeds a workspace with, and its state
            // marker; not AGENTS.md or USER.md, which others write too.
            Platform::OpenClaw => &[
                "SOUL.md",
                "IDENTITY.md",
                "HEARTBEAT.md",
                ".openclaw/workspace-state.json",
            ],
        }
    }

    /// The one platform `root` shows signs of. None found, or several, is
    /// an error asking for `--platform`.
    pub fn detect(root: &Path) -> Result<Platform> {
        let found: Vec<Platform> = Platform::ALL
            .into_iter()
            .filter(|p| p.markers().iter().any(|m| root.join(m).exists()))
            .collect();
        let names = || Platform::ALL.map(Platform::as_str).join(", ");
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
                    .map(|p| p.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ))),
        }
    }
}

impl std::str::FromStr for Platform {
    type Err = String;

    fn from_str(s: &str) -> std::result::Result<Platform, String> {
        match s {
            "claude-code" | "claude" => Ok(Platform::ClaudeCode),
            "codex" => Ok(Platform::Codex),
            "opencode" => Ok(Platform::OpenCode),
            "openclaw" => Ok(Platform::OpenClaw),
            other => Err(format!(
                "`{other}` is not a platform; use claude-code, codex, opencode or openclaw"
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn detection_needs_exactly_one_platform() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("AGENTS.md"), "x").unwrap();
        assert!(Platform::detect(dir.path()).is_err());
        std::fs::create_dir(dir.path().join(".claude")).unwrap();
        assert_eq!(Platform::detect(dir.path()).unwrap(), Platform::ClaudeCode);
        std::fs::create_dir(dir.path().join(".codex")).unwrap();
        let err = Platform::detect(dir.path()).unwrap_err().to_string();
        assert!(err.contains("claude-code, codex"), "{err}");
        for p in Platform::ALL {
            assert_eq!(p.as_str().parse::<Platform>(), Ok(p));
        }
    }
}
