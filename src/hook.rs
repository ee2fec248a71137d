//! What an agent platform's hooks get from hipo: the memory to load when
//! a session starts, the passages that may bear on a prompt, and the
//! capture of a session's transcript. Each platform's hook JSON is read
//! here; the front end (`hipo hook`) only passes stdin in and prints what
//! comes out. A hook must never fail the agent: the front end exits 0
//! whatever happens and reports problems on stderr.

use chrono::{DateTime, NaiveDate, Utc};
use hipo_core::error::{Error, Result};
use hipo_core::facade::Hipo;
use hipo_core::ingest::Ingested;
use hipo_core::platform::Platform;
use hipo_core::progress::NoProgress;
use hipo_core::render;
use hipo_core::search::query;
use serde::Deserialize;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The hook events hipo handles.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Event {
    /// Load ROOT.md and the hot files (also after the platform compacted
    /// its context).
    SessionStart,
    /// Recall what may bear on the user's prompt.
    Prompt,
    /// A turn ended: capture the transcript, say nothing.
    Stop,
    /// The platform is about to compact its context: capture, then compact.
    PreCompact,
    /// The session ends: capture.
    SessionEnd,
}

impl std::str::FromStr for Event {
    type Err = String;

    fn from_str(s: &str) -> std::result::Result<Event, String> {
        match s {
            "session-start" => Ok(Event::SessionStart),
            "prompt" | "user-prompt" => Ok(Event::Prompt),
            "stop" => Ok(Event::Stop),
            "pre-compact" => Ok(Event::PreCompact),
            "session-end" => Ok(Event::SessionEnd),
            other => Err(format!(
                "`{other}` is not a hook event; use session-start, prompt, stop, pre-compact or session-end"
            )),
        }
    }
}

/// The fields of a hook's stdin hipo reads; the platforms send more.
#[derive(Debug, Default, Deserialize)]
pub struct Input {
    #[serde(default)]
    pub cwd: Option<PathBuf>,
    #[serde(default)]
    pub transcript_path: Option<PathBuf>,
    #[serde(default)]
    pub prompt: Option<String>,
    /// Why a session started: startup, resume, clear, compact.
    #[serde(default)]
    pub source: Option<String>,
    /// The session, where the transcript is a store of many (OpenCode's
    /// plugin sends its `sessionID` here; OpenClaw's hook the session that
    /// ended, or none: every session of the agent).
    #[serde(default)]
    pub session_id: Option<String>,
    /// OpenClaw: the agent whose transcript database to read.
    #[serde(default)]
    pub agent_id: Option<String>,
}

impl Input {
    /// Parses a hook's stdin; empty stdin is an empty input.
    pub fn parse(stdin: &str) -> Result<Input> {
        if stdin.trim().is_empty() {
            return Ok(Input::default());
        }
        serde_json::from_str(stdin)
            .map_err(|e| Error::Usage(format!("the hook's stdin is not the JSON a hook gets: {e}")))
    }
}

/// What the front end does after a hook ran.
#[derive(Debug, Default)]
pub struct Outcome {
    /// Printed on stdout: the platform adds it to the agent's context.
    pub stdout: String,
    /// Start `hipo compact` detached: the hook never waits for it.
    pub compact_in_background: bool,
    /// What a capture did.
    pub ingested: Option<Ingested>,
}

/// Settings a hook runs with.
#[derive(Debug, Clone)]
pub struct Settings {
    pub today: NaiveDate,
    pub now: DateTime<Utc>,
    /// How long a capture waits for the project lock.
    pub lock_wait: Duration,
    /// The most the session-start context may hold, in characters
    /// (Claude Code spills anything over 10,000 to a file).
    pub context_chars: usize,
    /// The most a prompt's recall may hold, in tokens.
    pub recall_tokens: usize,
    /// A search hit scoring below this is not recalled.
    pub recall_floor: f32,
}

impl Settings {
    pub fn new(today: NaiveDate, now: DateTime<Utc>) -> Settings {
        Settings {
            today,
            now,
            lock_wait: Duration::from_secs(10),
            context_chars: 10_000,
            recall_tokens: 800,
            recall_floor: RECALL_FLOOR,
        }
    }
}

/// The score a passage needs to be recalled unasked: an unrelated prompt
/// shares a word or two with any large memory, and injecting that noise
/// on every prompt distracts the agent more than it helps.
pub const RECALL_FLOOR: f32 = hipo_core::recall::DEFAULT_FLOOR;

/// The files loaded at session start, in order, after ROOT.md.
pub const HOT_FILES: [&str; 3] = ["SCRATCHPAD.md", "WORKING.md", "TASK-QUEUE.md"];

/// Runs `event` for `platform` on the project at `hipo`.
pub fn run(
    hipo: &Hipo,
    platform: Platform,
    event: Event,
    input: &Input,
    settings: &Settings,
) -> Result<Outcome> {
    let mut out = Outcome::default();
    match event {
        Event::SessionStart => {
            // Claude Code imports ROOT.md and the hot files through
            // CLAUDE.md at launch, when CLAUDE.md holds the import (hooks
            // installed another way, the block removed or a global install
            // leave it out); later (after a compaction, a resume) a
            // background compaction may have rewritten them, so they are
            // loaded fresh.
            let imported = platform == Platform::ClaudeCode
                && input.source.as_deref().is_none_or(|s| s == "startup")
                && claude_imports_root(hipo.root());
            if !imported {
                out.stdout = session_context(hipo.root(), settings.context_chars);
            }
            // A shared project's raw logs may have been merged by a pull
            // whose hook did not run (another git client, a clone without
            // `init --share`): a compaction of a tree that has not moved is
            // a settled no-op, so one is always started.
            out.compact_in_background =
                hipo.config().share || hipo.compaction_due(settings.now).due;
        }
        Event::Prompt => {
            if let Some(prompt) = &input.prompt {
                out.stdout = recall(hipo, prompt, settings)?;
            }
        }
        Event::Stop | Event::SessionEnd | Event::PreCompact if platform == Platform::OpenClaw => {
            out.ingested = capture_openclaw(hipo, input, settings)?;
            out.compact_in_background = event == Event::PreCompact;
        }
        Event::Stop | Event::SessionEnd | Event::PreCompact => {
            let (transcript, id) = transcript_of(platform, input);
            if let Some(path) = transcript {
                let session = hipo.lock(settings.lock_wait)?;
                out.ingested = Some(session.ingest(platform, &path, id, settings.today)?);
            }
            out.compact_in_background = event == Event::PreCompact;
        }
    }
    Ok(out)
}

/// Where a capture reads: the hook's `transcript_path`, or for OpenCode
/// (whose plugin sends only the session id) the session in the store
/// OpenCode's environment names, which the plugin's child inherits.
fn transcript_of(platform: Platform, input: &Input) -> (Option<PathBuf>, Option<&str>) {
    match platform {
        Platform::OpenCode => match input.session_id.as_deref() {
            Some(id) => (
                input
                    .transcript_path
                    .clone()
                    .or_else(hipo_core::ingest::opencode::default_db),
                Some(id),
            ),
            None => (None, None),
        },
        _ => (input.transcript_path.clone(), None),
    }
}

/// OpenClaw's capture: its hook gives the agent (and the session, when
/// one ended), not a transcript path; the transcripts are the rows of the
/// agent's database. All of them are summed in one report.
fn capture_openclaw(hipo: &Hipo, input: &Input, settings: &Settings) -> Result<Option<Ingested>> {
    use hipo_core::ingest::openclaw;
    let sources = match &input.transcript_path {
        Some(p) => vec![p.clone()],
        None => openclaw::stores(Some(input.agent_id.as_deref().unwrap_or("main"))),
    };
    if sources.is_empty() {
        return Ok(None);
    }
    let session = hipo.lock(settings.lock_wait)?;
    let mut total = Ingested::default();
    for source in sources {
        let reports = if openclaw::is_store(&source) {
            session.ingest_openclaw_store(&source, input.session_id.as_deref(), settings.today)?
        } else {
            vec![session.ingest(Platform::OpenClaw, &source, None, settings.today)?]
        };
        for r in reports {
            total.messages += r.messages;
            total.skipped += r.skipped;
            total.lines += r.lines;
            total.at = r.at.or(total.at);
            total.transcript = r.transcript;
        }
    }
    Ok(Some(total))
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
    let target = root.join(hipo_core::layout::ROOT_PATH);
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
                p == hipo_core::layout::ROOT_PATH || Path::new(p) == target
            });
        if found {
            return true;
        }
    }
    false
}

/// ROOT.md and the hot files that exist, each under a line naming it,
/// cut to `limit` characters (ROOT first: it is the index of the rest; cut
/// by [`hipo_core::root_for_context`], it keeps its rules longest).
pub fn session_context(root: &Path, limit: usize) -> String {
    let mut out = String::from(
        "hipo memory for this project (memory/ROOT.md and the working files). Search it with `hipo search QUERY`; record outcomes with `hipo checkpoint`.\n",
    );
    for rel in std::iter::once(hipo_core::layout::ROOT_PATH).chain(HOT_FILES) {
        let Ok(text) = std::fs::read_to_string(root.join(rel)) else {
            continue;
        };
        if text.trim().is_empty() {
            continue;
        }
        let room = limit.saturating_sub(out.chars().count());
        // ROOT is cut by what matters least, not at its end, where its
        // standing rules are (see root::for_context).
        let text = if rel == hipo_core::layout::ROOT_PATH {
            hipo_core::root_for_context(&text, room.saturating_sub(rel.len() + 10))
        } else {
            text
        };
        let piece = format!("\n=== {rel} ===\n{}\n", text.trim_end());
        if piece.chars().count() > room {
            let cut: String = piece.chars().take(room.saturating_sub(40)).collect();
            out.push_str(&cut);
            out.push_str(&format!("\n[… cut; read {rel} for the rest]\n"));
            break;
        }
        out.push_str(&piece);
    }
    out
}

/// The context pack for `prompt` (ROOT topics it names, the best
/// passages, within the budget), or nothing when no result clears the
/// floor.
fn recall(hipo: &Hipo, prompt: &str, settings: &Settings) -> Result<String> {
    if query::parse(prompt).is_err() {
        return Ok(String::new());
    }
    let opts = hipo_core::recall::Options {
        budget: settings.recall_tokens,
        floor: settings.recall_floor,
        today: settings.today,
    };
    let (pack, _) = hipo.recall(prompt, &opts, settings.lock_wait, &NoProgress)?;
    if pack.abstained || pack.passages.is_empty() {
        return Ok(String::new());
    }
    Ok(format!(
        "Passages from hipo memory that may bear on this prompt (hipo get PATH:LINE for more):\n{}",
        render::recall(&pack)
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_context_keeps_root_first_and_respects_the_limit() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("memory")).unwrap();
        std::fs::write(dir.path().join("memory/ROOT.md"), "# ROOT\n- topic-a\n").unwrap();
        std::fs::write(dir.path().join("WORKING.md"), "x".repeat(20_000)).unwrap();
        let text = session_context(dir.path(), 10_000);
        assert!(text.contains("=== memory/ROOT.md ===\n# ROOT\n- topic-a\n"));
        assert!(text.chars().count() <= 10_000, "{}", text.len());
        assert!(text.ends_with("[… cut; read WORKING.md for the rest]\n"));
    }

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
    fn hook_stdin_is_read_loosely() {
        let i = Input::parse(r#"{"session_id":"s","cwd":"/p","hook_event_name":"Stop","extra":1}"#)
            .unwrap();
        assert_eq!(i.cwd.as_deref(), Some(Path::new("/p")));
        assert!(Input::parse("").unwrap().prompt.is_none());
        assert!(Input::parse("not json").is_err());
    }
}
