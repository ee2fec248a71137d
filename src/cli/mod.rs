//! The `hipo` command line: parses, calls the library, prints. No engine
//! logic lives here.

mod compact;
mod llm;
mod output;
mod search;

use anyhow::Result;
use chrono::NaiveDate;
use clap::{Parser, Subcommand};
use std::path::PathBuf;
use std::process::ExitCode;

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

/// Long-term memory for AI agents: Markdown logs, an incremental summary
/// tree, and fast search.
#[derive(Debug, Parser)]
#[command(name = "hipo", version, about, max_term_width = 100)]
pub struct Cli {
    /// Project root (default: nearest ancestor with hipocampus.config.json or memory/).
    #[arg(long, global = true, env = "HIPO_DIR", value_name = "DIR")]
    pub dir: Option<PathBuf>,

    /// Print machine-readable JSON on stdout.
    #[arg(long, global = true)]
    pub json: bool,

    /// The date that decides tentative/fixed and ages (default: today).
    #[arg(long, global = true, env = "HIPO_TODAY", value_name = "YYYY-MM-DD")]
    pub today: Option<NaiveDate>,

    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Create memory/, knowledge/, plans/, ROOT.md and the config (idempotent).
    Init,
    /// Bring the compaction tree up to date.
    Compact(compact::CompactArgs),
    /// Show the tree, the summary backlog, and whether a compaction is due.
    Status {
        #[command(flatten)]
        llm: llm::LlmArgs,
    },
    /// Delete .hipo/ and rebuild it (tree records and search index) from the Markdown.
    Rebuild {
        #[command(flatten)]
        llm: llm::LlmArgs,
    },
    /// Fill needs-summarization nodes with the local model (all, or the given paths).
    Summarize {
        /// Node paths, e.g. memory/daily/2026-03-15.md.
        paths: Vec<String>,
        #[command(flatten)]
        llm: llm::LlmArgs,
    },
    /// Local model tools.
    #[command(subcommand)]
    Llm(llm::LlmCommand),
    /// Search every level of memory (updates the index first).
    Search(search::SearchArgs),
    /// Print a file, a slice (PATH:LINE[:COUNT]) or a hit's section ('#id'), with line numbers.
    Get {
        /// PATH, PATH:LINE, PATH:LINE:COUNT, or a hit's '#id' (quoted: # starts a shell comment).
        target: String,
    },
    /// Bring the search index up to date (search does this itself).
    Index,
    /// Measure retrieval quality: Recall@k and MRR over a JSON Lines fixture.
    Eval(search::EvalArgs),
}

/// What every command needs to know.
pub struct Ctx {
    pub dir: Option<PathBuf>,
    pub json: bool,
    /// `--today`, if given; see [`Ctx::today`].
    pub today_flag: Option<NaiveDate>,
    pub style: output::Style,
}

impl Ctx {
    /// The date that decides tentative/fixed and ages: `--today`, else the
    /// local date (read only by commands that need it: finding the time
    /// zone costs a search a tenth of its time).
    pub fn today(&self) -> NaiveDate {
        self.today_flag
            .unwrap_or_else(|| chrono::Local::now().date_naive())
    }

    /// The project root for commands that need an existing project.
    pub fn root(&self) -> Result<PathBuf> {
        let cwd = std::env::current_dir()?;
        Ok(hipo::project::find_root(self.dir.as_deref(), &cwd)?)
    }
}

/// Parses and runs; the caller maps errors to exit code 2.
pub fn run(cli: Cli) -> Result<ExitCode> {
    let ctx = Ctx {
        dir: cli.dir,
        json: cli.json,
        today_flag: cli.today,
        style: output::Style::detect(),
    };
    match cli.command {
        Command::Init => compact::init(&ctx),
        Command::Compact(args) => compact::compact(&ctx, &args),
        Command::Status { llm } => llm::status(&ctx, &llm),
        Command::Rebuild { llm } => compact::rebuild(&ctx, &llm),
        Command::Summarize { paths, llm } => llm::summarize(&ctx, &llm, &paths),
        Command::Llm(llm::LlmCommand::Check(args)) => llm::check(&ctx, &args),
        Command::Search(args) => search::search(&ctx, &args),
        Command::Get { target } => search::get_cmd(&ctx, &target),
        Command::Index => search::index_cmd(&ctx),
        Command::Eval(args) => search::eval(&ctx, &args),
    }
}

/// Maps a library error to its exit code.
pub fn exit_code_of(err: &anyhow::Error) -> u8 {
    match err.downcast_ref::<hipo::Error>() {
        Some(hipo::Error::Busy { .. }) => exit::BUSY,
        _ => exit::ERROR,
    }
}
