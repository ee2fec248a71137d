//! The transcript formats capture reads, and a capture's source.
//!
//! The engine knows how to *read* a transcript; which agent platform
//! writes which format, and where it keeps its transcripts, is the front
//! end's knowledge (the binary's `platforms/` folder). A fifth platform
//! writing one of these formats is a folder there and nothing here; a new
//! format is a reader beside the others in this folder.

use std::path::PathBuf;

/// A transcript format, named for the platform that writes it. The name
/// is also the namespace of the watermarks in the raw logs, so it never
/// changes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Format {
    /// Claude Code's JSONL, a file per session.
    ClaudeCode,
    /// Codex's rollout JSONL, a file per session.
    Codex,
    /// OpenCode's SQLite database, every session in one file.
    OpenCode,
    /// OpenClaw's JSONL session files or its per-agent SQLite database.
    OpenClaw,
}

impl Format {
    /// The name in watermarks and entry titles.
    pub fn as_str(self) -> &'static str {
        match self {
            Format::ClaudeCode => "claude-code",
            Format::Codex => "codex",
            Format::OpenCode => "opencode",
            Format::OpenClaw => "openclaw",
        }
    }
}

/// What one capture reads: a transcript file (or database) in a format,
/// and for a database the one session to read (`None` reads every
/// session of an OpenClaw database; OpenCode's needs one).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Source {
    pub format: Format,
    pub path: PathBuf,
    pub session: Option<String>,
}

impl Source {
    /// A transcript file of one session.
    pub fn file(format: Format, path: impl Into<PathBuf>) -> Source {
        Source {
            format,
            path: path.into(),
            session: None,
        }
    }

    /// One session (or, with `None`, every session) of a database.
    pub fn session(format: Format, path: impl Into<PathBuf>, session: Option<String>) -> Source {
        Source {
            format,
            path: path.into(),
            session,
        }
    }
}
