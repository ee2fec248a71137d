//! Codex: hooks in `.codex/hooks.json` (the project layer, which a
//! repository commits and Codex hashes for its trust review, so they call
//! `hipo` on PATH), the protocol in `AGENTS.md`, skills in
//! `.agents/skills/`, the MCP server in `.codex/config.toml`. Codex has no
//! background hooks and clamps SessionEnd to 3 s. Its transcripts are
//! rollout JSONL files, one per session, whose path every hook is given.

mod review;

use super::{DoctorEnv, Found, HookGiven, IngestAsk, Platform};
use crate::harness::doctor::fix;
use crate::harness::files::{put, read, with_marked};
use crate::harness::{self, Change, Finding, Hook, HooksFile, HooksFilePlatform, Protocol, Report};
use hipo_core::Result;
use hipo_core::{Format, Source};
use std::path::Path;

#[derive(Debug)]
pub struct Codex;

const NAME: &str = "codex";

const PROTOCOL: Protocol = Protocol {
    instructions: "AGENTS.md",
    imports: None,
    skills_dir: ".agents/skills",
};

const HOOKS: [Hook; 4] = [
    harness::SESSION_START,
    harness::PROMPT,
    Hook {
        event: "Stop",
        matcher: None,
        hipo_event: "stop",
        timeout_s: 30,
        background: false,
    },
    harness::PRE_COMPACT,
];

const HOOKS_FILE: HooksFile = HooksFile {
    path: ".codex/hooks.json",
    personal: false,
    hooks: &HOOKS,
};

/// Read once the project is trusted.
const MCP_FILE: &str = ".codex/config.toml";

const SETUP: HooksFilePlatform = HooksFilePlatform {
    name: NAME,
    protocol: PROTOCOL,
    hooks: HOOKS_FILE,
    mcp_file: MCP_FILE,
    set_mcp,
};

impl Platform for Codex {
    fn name(&self) -> &'static str {
        NAME
    }

    fn markers(&self) -> &'static [&'static str] {
        &[".codex"]
    }

    fn instructions(&self) -> &'static str {
        PROTOCOL.instructions
    }

    fn install(&self, root: &Path, bin: &str) -> Result<Report> {
        let mut report = SETUP.set(root, Some(bin), false)?;
        report.next_steps.push(
            "Codex runs a hook only once you have reviewed it: open Codex, run /hooks and trust hipo's hooks (the project must be trusted too)".into(),
        );
        Ok(report)
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

    fn doctor(&self, root: &Path, env: &DoctorEnv, out: &mut Vec<Finding>) {
        let path = root.join(HOOKS_FILE.path);
        let unreviewed = |h: &harness::doctor::Installed| {
            (!review::trusted(&path, h, env.codex_home.as_deref())).then(|| {
                fix(format!(
                    "codex: the {} hook is installed but not reviewed; Codex skips it silently until you open Codex, run /hooks and trust it",
                    h.event
                ))
            })
        };
        harness::doctor::check_hooks(out, NAME, &path, &HOOKS, &unreviewed);
    }

    fn hook_sources(&self, given: &HookGiven) -> Vec<Source> {
        given
            .transcript_path
            .map(|p| Source::file(Format::Codex, p))
            .into_iter()
            .collect()
    }

    fn ingest_sources(&self, _root: &Path, ask: &IngestAsk) -> Result<Found> {
        super::claude_code::files_named(Format::Codex, ask)
    }
}

/// Adds or removes hipo's `[mcp_servers.hipo]` in a marked block.
fn set_mcp(root: &Path, on: bool) -> Result<Change> {
    let path = root.join(MCP_FILE);
    let old = read(&path)?;
    let text = old.as_deref().unwrap_or("");
    let begin = "# hipo:begin (written by `hipo init`; `hipo uninstall` removes it)";
    let end = "# hipo:end";
    // Someone else's [mcp_servers.hipo]: a second one would make the
    // file invalid TOML, so theirs stays.
    let outside = with_marked(text, begin, end, None);
    if on && outside.contains("[mcp_servers.hipo]") {
        return Ok(Change::Unchanged);
    }
    let block = on.then_some("[mcp_servers.hipo]\ncommand = \"hipo\"\nargs = [\"mcp\"]");
    let new = with_marked(text, begin, end, block);
    let new = (!new.trim().is_empty()).then_some(new);
    put(&path, old.as_deref(), new.as_deref())
}
