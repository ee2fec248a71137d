//! What an agent platform's hooks get from hipo: the memory to load when
//! a session starts, the passages that may bear on a prompt, and the
//! capture of a session's transcript. Each platform's hook JSON is read
//! here; the front end (`hipo hook`) only passes stdin in and prints what
//! comes out. A hook must never fail the agent: the front end exits 0
//! whatever happens and reports problems on stderr.

use crate::platforms::{HookGiven, PlatformRef};
use chrono::{DateTime, NaiveDate, Utc};
use hipo_core::Hipo;
use hipo_core::Ingested;
use hipo_core::NoProgress;
use hipo_core::{Error, Result};
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
pub const RECALL_FLOOR: f32 = hipo_core::DEFAULT_FLOOR;

/// The files loaded at session start, in order, after ROOT.md.
pub const HOT_FILES: [&str; 3] = ["SCRATCHPAD.md", "WORKING.md", "TASK-QUEUE.md"];

/// Runs `event` for `platform` on the project at `hipo`.
pub fn run(
    hipo: &Hipo,
    platform: PlatformRef,
    event: Event,
    input: &Input,
    settings: &Settings,
) -> Result<Outcome> {
    let mut out = Outcome::default();
    match event {
        Event::SessionStart => {
            if !platform.loads_root_itself(hipo.root(), input.source.as_deref()) {
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
        Event::Stop | Event::SessionEnd | Event::PreCompact => {
            out.ingested = capture(hipo, platform, input, settings)?;
            out.compact_in_background = event == Event::PreCompact;
        }
    }
    Ok(out)
}

/// A capture: what is new in the transcripts the platform says the hook
/// points at, summed in one report; `None` when it points at none.
fn capture(
    hipo: &Hipo,
    platform: PlatformRef,
    input: &Input,
    settings: &Settings,
) -> Result<Option<Ingested>> {
    let sources = platform.hook_sources(&HookGiven {
        transcript_path: input.transcript_path.as_deref(),
        session_id: input.session_id.as_deref(),
        agent_id: input.agent_id.as_deref(),
    });
    if sources.is_empty() {
        return Ok(None);
    }
    let session = hipo.lock(settings.lock_wait)?;
    let mut total = Ingested::default();
    for source in &sources {
        for r in session.capture(source, settings.today)? {
            total.messages += r.messages;
            total.skipped += r.skipped;
            total.lines += r.lines;
            total.at = r.at.or(total.at);
            total.transcript = r.transcript;
        }
    }
    Ok(Some(total))
}

/// ROOT.md and the hot files that exist, each under a line naming it,
/// cut to `limit` characters (ROOT first: it is the index of the rest; cut
/// by [`hipo_core::root_for_context`], it keeps its rules longest).
pub fn session_context(root: &Path, limit: usize) -> String {
    let mut out = String::from(
        "hipo memory for this project (memory/ROOT.md and the working files). Search it with `hipo search QUERY`; record outcomes with `hipo checkpoint`.\n",
    );
    for rel in std::iter::once(hipo_core::ROOT_PATH).chain(HOT_FILES) {
        let Ok(text) = std::fs::read_to_string(root.join(rel)) else {
            continue;
        };
        if text.trim().is_empty() {
            continue;
        }
        let room = limit.saturating_sub(out.chars().count());
        // ROOT is cut by what matters least, not at its end, where its
        // standing rules are (see root::for_context).
        let text = if rel == hipo_core::ROOT_PATH {
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
    if hipo_core::parse_query(prompt).is_err() {
        return Ok(String::new());
    }
    let opts = hipo_core::RecallOptions {
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
        hipo_core::render_pack(&pack)
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
    fn hook_stdin_is_read_loosely() {
        let i = Input::parse(r#"{"session_id":"s","cwd":"/p","hook_event_name":"Stop","extra":1}"#)
            .unwrap();
        assert_eq!(i.cwd.as_deref(), Some(Path::new("/p")));
        assert!(Input::parse("").unwrap().prompt.is_none());
        assert!(Input::parse("not json").is_err());
    }
}
