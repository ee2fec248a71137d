//! The `hipo` command line: each subcommand is a file that parses its
//! flags, calls the [`hipo_core::Hipo`] facade, and prints. No engine logic
//! lives here.

mod args;
mod checkpoint;
mod compact;
mod eval;
mod export;
mod get;
mod hook;
mod index;
mod ingest;
mod init;
mod llm_check;
mod mcp;
mod merge_driver;
mod output;
mod rebuild;
mod recall;
mod search;
mod status;
mod summarize;

pub use args::Cli;
use args::{Command, LlmArgs, LlmCommand};

use crate::render::Style;
use anyhow::Result;
use chrono::NaiveDate;
use hipo_core::Hipo;
use hipo_core::LlmSettings as Settings;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

/// Exit codes, documented in the README.
pub mod exit {
    /// Everything worked.
    pub const OK: u8 = 0;
    /// The work was done, but some files were skipped (bad input).
    pub const PROBLEMS: u8 = 1;
    /// A usage error or a fatal error: nothing, or nothing more, was done.
    pub const ERROR: u8 = 2;
    /// Another hipo process held the project lock for too long.
    pub const BUSY: u8 = 3;
    /// Some nodes could not be summarised by the local model.
    pub const SUMMARY_FAILED: u8 = 4;
}

/// What every command needs to know.
pub struct Ctx {
    pub dir: Option<PathBuf>,
    pub json: bool,
    /// `--today`, if given; see [`Ctx::today`].
    pub today_flag: Option<NaiveDate>,
    pub style: Style,
}

impl Ctx {
    /// The date that decides tentative/fixed and ages: `--today`, else the
    /// local date (read only by commands that need it: finding the time
    /// zone costs a search a tenth of its time).
    pub fn today(&self) -> NaiveDate {
        self.today_flag
            .unwrap_or_else(|| chrono::Local::now().date_naive())
    }

    /// The project, for commands that need an existing one; waits for the
    /// lock are announced on stderr.
    pub fn hipo(&self) -> Result<Hipo> {
        let cwd = std::env::current_dir()?;
        let hipo = Hipo::find(self.dir.as_deref(), &cwd)?.on_wait(|root| {
            eprintln!(
                "hipo: waiting for another hipo process to finish in {}…",
                root.display()
            )
        });
        for w in &hipo.config().warnings {
            eprintln!("hipo: {w}");
        }
        Ok(hipo)
    }

    /// How long a command waits for another hipo process before giving
    /// up: `HIPO_LOCK_WAIT` seconds, default 60.
    /// A value that is not a number of seconds is said once on stderr.
    pub fn lock_wait(&self) -> Duration {
        const DEFAULT: Duration = Duration::from_secs(60);
        let Ok(raw) = std::env::var("HIPO_LOCK_WAIT") else {
            return DEFAULT;
        };
        match raw
            .trim()
            .parse::<f64>()
            .ok()
            .filter(|s| s.is_finite() && *s >= 0.0)
            .and_then(|s| Duration::try_from_secs_f64(s).ok())
        {
            Some(wait) => wait,
            None => {
                static SAID: std::sync::Once = std::sync::Once::new();
                SAID.call_once(|| {
                    eprintln!(
                        "hipo: HIPO_LOCK_WAIT={raw:?} is not a number of seconds (such as 5 or 0.5); waiting the default {} s",
                        DEFAULT.as_secs()
                    )
                });
                DEFAULT
            }
        }
    }
}

/// The model settings for this run: the project's config merged with the
/// flags and their environment variables.
pub fn settings(hipo: &Hipo, llm: &LlmArgs) -> Result<Settings> {
    Ok(hipo_core::resolve_llm(
        &hipo.config().llm,
        &llm.overrides(),
    )?)
}

/// Parses and runs; the caller maps errors to exit code 2.
pub fn run(cli: Cli) -> Result<ExitCode> {
    let ctx = Ctx {
        dir: cli.dir,
        json: cli.json,
        today_flag: cli.today,
        style: output::detect_style(),
    };
    let code = match cli.command {
        Command::Init { platform, share } => init::run(&ctx, &platform, share)?,
        Command::Uninstall { platform } => init::uninstall(&ctx, &platform)?,
        Command::Doctor => init::doctor(&ctx)?,
        Command::Compact(args) => compact::run(&ctx, &args)?,
        Command::Status { llm } => status::run(&ctx, &llm)?,
        Command::Rebuild { llm } => rebuild::run(&ctx, &llm)?,
        Command::Summarize { paths, llm } => summarize::run(&ctx, &llm, &paths)?,
        Command::Llm(LlmCommand::Check(args)) => llm_check::run(&ctx, &args)?,
        Command::Checkpoint(args) => checkpoint::run(&ctx, &args)?,
        Command::Hook { platform, event } => hook::run(&ctx, platform, event),
        Command::Ingest {
            platform,
            sessions,
            transcripts,
            agent,
        } => ingest::run(&ctx, platform, &sessions, &transcripts, agent.as_deref())?,
        Command::Search(args) => search::run(&ctx, &args)?,
        Command::Get { target } => get::run(&ctx, &target)?,
        Command::Index { embed } => index::run(&ctx, &embed)?,
        Command::Export(args) => export::run(&ctx, &args)?,
        Command::Eval(args) => eval::run(&ctx, &args)?,
        Command::Mcp { llm, embed_model } => mcp::run(&ctx, &llm, embed_model)?,
        Command::Recall(args) => recall::run(&ctx, &args)?,
        Command::MergeDriver {
            kind,
            base,
            ours,
            theirs,
            path,
        } => merge_driver::run(kind, &base, &ours, &theirs, &path)?,
    };
    Ok(ExitCode::from(code))
}

/// Maps a library error to its exit code.
pub fn exit_code_of(err: &anyhow::Error) -> u8 {
    match err.downcast_ref::<hipo_core::Error>() {
        Some(hipo_core::Error::Busy { .. }) => exit::BUSY,
        _ => exit::ERROR,
    }
}
