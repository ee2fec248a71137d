//! Every flag and subcommand of the `hipo` command line, in one place.

use crate::platforms::PlatformRef;
use chrono::NaiveDate;
use clap::{Parser, Subcommand};
use hipo_core::{LlmBackend as Backend, LlmLayer};
use std::path::PathBuf;

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
    /// Create memory/, knowledge/, plans/, ROOT.md and the config, and install into an agent platform (idempotent).
    Init {
        /// Install hooks, protocol and skills for this platform (default: the one the project shows; none found: the memory layout only).
        #[arg(long, value_parser = parse_platform)]
        platform: Vec<PlatformRef>,
        /// Set the project up for a team sharing it through git: merge drivers, hooks, `share` in the config (once per clone).
        #[arg(long)]
        share: bool,
    },
    /// Check the installation: hooks, the binary they run, Codex's hook review, sizes, a due compaction.
    Doctor,
    /// Remove what `hipo init --platform` installed (never a memory file).
    Uninstall {
        #[arg(long, required = true, value_parser = parse_platform)]
        platform: Vec<PlatformRef>,
    },
    /// Bring the compaction tree up to date.
    Compact(CompactArgs),
    /// Show the tree, the summary backlog, and whether a compaction is due.
    Status {
        #[command(flatten)]
        llm: LlmArgs,
    },
    /// Delete .hipo/ and rebuild it (tree records and search index) from the Markdown.
    Rebuild {
        #[command(flatten)]
        llm: LlmArgs,
    },
    /// Fill needs-summarization nodes with the local model (all, or the given paths).
    Summarize {
        /// Node paths, e.g. memory/daily/2026-03-15.md.
        paths: Vec<String>,
        #[command(flatten)]
        llm: LlmArgs,
    },
    /// Local model tools.
    #[command(subcommand)]
    Llm(LlmCommand),
    /// Append a typed entry to today's raw log (memory/YYYY-MM-DD.md).
    Checkpoint(CheckpointArgs),
    /// Run an agent platform's hook: reads its JSON on stdin, prints what to add to the context.
    Hook {
        /// claude-code, codex, opencode or openclaw.
        #[arg(value_parser = parse_platform)]
        platform: PlatformRef,
        /// session-start, prompt, stop, pre-compact or session-end.
        #[arg(value_parser = parse_event)]
        event: crate::hook::Event,
    },
    /// Append what is new in agent session transcripts to today's raw log (once).
    Ingest {
        /// The transcripts' platform.
        #[arg(long, value_parser = parse_platform, default_value = "claude-code")]
        platform: PlatformRef,
        /// OpenCode and OpenClaw: the session(s) to read (default: every
        /// session OpenCode ran in this project / every session of the
        /// OpenClaw databases).
        #[arg(long = "session", value_name = "ID")]
        sessions: Vec<String>,
        /// Transcript files (OpenCode: its database, default $XDG_DATA_HOME/opencode/opencode.db;
        /// OpenClaw: its agents' openclaw-agent.sqlite or session .jsonl files, default every
        /// agent's database under OPENCLAW_STATE_DIR or ~/.openclaw).
        transcripts: Vec<PathBuf>,
        /// OpenClaw: only this agent's database, when no transcript is given.
        #[arg(long, value_name = "ID")]
        agent: Option<String>,
    },
    /// Search every level of memory (updates the index first).
    Search(SearchArgs),
    /// Print a file, a slice (PATH:LINE[:COUNT]) or a hit's section ('#id'), with line numbers.
    Get {
        /// PATH, PATH:LINE, PATH:LINE:COUNT, or a hit's '#id' (quoted: # starts a shell comment).
        target: String,
    },
    /// Bring the search index (and, with an embedding model, the section
    /// vectors) up to date; search does this itself.
    Index {
        #[command(flatten)]
        embed: EmbedArgs,
    },
    /// Write every section's index document, with its redacted text, as
    /// NDJSON on stdout (for Quickwit or any search service).
    Export(ExportArgs),
    /// Measure retrieval quality: Recall@k and MRR over a JSON Lines fixture.
    Eval(EvalArgs),
    /// Serve memory as MCP tools over stdin/stdout (search, get, recall, checkpoint, status, compact, timeline).
    Mcp {
        #[command(flatten)]
        llm: LlmArgs,
        /// Ollama embedding model for the search tool's hybrid and vector
        /// modes (all-minilm, nomic-embed-text…), at `--host`.
        #[arg(long, env = "HIPO_EMBED_MODEL", value_name = "NAME")]
        embed_model: Option<String>,
    },
    /// The context pack for a prompt: matching ROOT topics and the best
    /// passages, within a token budget; nothing when nothing is relevant.
    Recall(RecallArgs),
    /// Git's merge driver for memory files (registered by `hipo init --share`): merges into OURS, never leaving conflict markers.
    MergeDriver {
        /// raw (a raw log: both sides' entries, each whole) or derived (a node, ROOT.md, the trigger state).
        #[arg(value_parser = clap::value_parser!(hipo_core::ShareKind))]
        kind: hipo_core::ShareKind,
        /// The common ancestor's version (git's %O).
        base: PathBuf,
        /// Ours (%A): the result is written here.
        ours: PathBuf,
        /// Theirs (%B).
        theirs: PathBuf,
        /// The file's path in the repository (%P).
        path: String,
    },
}

/// `hipo export` flags.
#[derive(Debug, clap::Args)]
pub struct ExportArgs {
    /// One JSON object a line (the only format; required so that another can come).
    #[arg(long, required = true)]
    pub ndjson: bool,
    /// Also the windows (the passages search shows), after their section.
    #[arg(long)]
    pub windows: bool,
}

/// `hipo compact` flags.
#[derive(Debug, clap::Args)]
pub struct CompactArgs {
    /// Print the plan (which node, why) and write nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// Re-summarise nodes written by another model or prompt version.
    #[arg(long)]
    pub resummarize: bool,
    #[command(flatten)]
    pub llm: LlmArgs,
}

/// Local-model options; each overrides `llm.*` in hipocampus.config.json.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct LlmArgs {
    /// Summary backend: none (leave nodes for the agent) or ollama.
    #[arg(long = "llm", env = "HIPO_LLM", value_name = "BACKEND", value_parser = parse_backend)]
    pub backend: Option<Backend>,
    /// Ollama model name, e.g. qwen2.5:7b.
    #[arg(long, env = "HIPO_MODEL")]
    pub model: Option<String>,
    /// Ollama address [default: http://127.0.0.1:11434].
    #[arg(long, env = "OLLAMA_HOST", value_name = "URL")]
    pub host: Option<String>,
    /// Seconds to wait for one model answer [default: 120].
    #[arg(long, env = "HIPO_LLM_TIMEOUT", value_name = "SECONDS")]
    pub timeout_s: Option<u64>,
    /// Model context window in tokens; longer inputs are chunked [default: 8192].
    #[arg(long, env = "HIPO_NUM_CTX", value_name = "TOKENS")]
    pub num_ctx: Option<u64>,
    /// Sampling temperature [default: 0.2].
    #[arg(long, env = "HIPO_TEMPERATURE")]
    pub temperature: Option<f32>,
    /// How long Ollama keeps the model loaded: -1, 0, or 30s / 5m / 2h.
    #[arg(long, env = "HIPO_KEEP_ALIVE", allow_hyphen_values = true)]
    pub keep_alive: Option<String>,
    /// Parallel requests to the model [default: 1].
    #[arg(long, env = "HIPO_LLM_CONCURRENCY", value_name = "N")]
    pub concurrency: Option<usize>,
    /// Ask the model for JSON matching a schema; false sends the text
    /// prompt [default: true].
    #[arg(long, env = "HIPO_LLM_STRUCTURED", value_name = "BOOL")]
    pub structured: Option<bool>,
}

impl LlmArgs {
    /// The flags (each over its environment variable) as the layer over
    /// the config's `llm.*`.
    pub fn overrides(&self) -> LlmLayer {
        LlmLayer {
            backend: self.backend,
            host: self.host.clone(),
            model: self.model.clone(),
            timeout_s: self.timeout_s,
            num_ctx: self.num_ctx,
            temperature: self.temperature,
            keep_alive: self.keep_alive.clone(),
            concurrency: self.concurrency,
            structured: self.structured,
        }
    }
}

/// `--llm`: `none` or `ollama`.
fn parse_backend(s: &str) -> std::result::Result<Backend, String> {
    s.parse()
}

fn parse_platform(s: &str) -> std::result::Result<PlatformRef, String> {
    crate::platforms::parse(s)
}

fn parse_event(s: &str) -> std::result::Result<crate::hook::Event, String> {
    s.parse()
}

/// `hipo llm …`
#[derive(Debug, clap::Subcommand)]
pub enum LlmCommand {
    /// Say in one line whether Ollama answers and the model is pulled.
    Check(LlmArgs),
}

/// `hipo checkpoint` arguments.
#[derive(Debug, clap::Args)]
pub struct CheckpointArgs {
    /// The entry's type.
    #[arg(long = "type", value_name = "TYPE", value_parser = ["user", "feedback", "project", "reference"])]
    pub kind: String,
    /// The entry's heading, one line.
    #[arg(long)]
    pub topic: String,
    /// A `- key: value` line, in order (request=…, decisions=…, outcome=…;
    /// for feedback rule=…, why=…, how-to-apply=…).
    #[arg(short, long = "field", value_name = "KEY=VALUE")]
    pub fields: Vec<String>,
    /// Read a free Markdown body from standard input.
    #[arg(long)]
    pub stdin: bool,
}

/// `hipo search` flags.
#[derive(Debug, clap::Args)]
pub struct SearchArgs {
    /// Words, "phrases", +required, -excluded and filters (type:, level:,
    /// after:, before:, week:, month:, path:).
    /// Quote a query holding -excluded terms ("postgres -mysql") or put it after `--`.
    #[arg(required = true, value_name = "QUERY")]
    pub query: Vec<String>,
    /// Number of results.
    #[arg(short = 'n', long, default_value_t = 10, value_parser = at_least_one)]
    pub limit: usize,
    /// Print only the paths of the results, once each.
    #[arg(long)]
    pub files: bool,
    /// Print each result's whole section.
    #[arg(long)]
    pub full: bool,
    /// Drop results scoring below this.
    #[arg(long, value_name = "X", value_parser = a_score)]
    pub min_score: Option<f32>,
    /// Only entries of this type (user, feedback, project, reference).
    #[arg(long = "type", value_name = "TYPE")]
    pub kind: Vec<String>,
    /// Only this level (raw, daily, weekly, monthly, root, knowledge, plans, other).
    #[arg(long)]
    pub level: Vec<String>,
    /// Only on or after this day.
    #[arg(long, value_name = "YYYY-MM-DD")]
    pub after: Option<String>,
    /// Only on or before this day.
    #[arg(long, value_name = "YYYY-MM-DD")]
    pub before: Option<String>,
    /// Only in this ISO week (2026-W11).
    #[arg(long)]
    pub week: Option<String>,
    /// Only in this month (2026-03).
    #[arg(long)]
    pub month: Option<String>,
    /// Only under this path prefix (knowledge/).
    #[arg(long)]
    pub path: Vec<String>,
    #[command(flatten)]
    pub embed: EmbedArgs,
}

/// Parses `-n`: a count of results, 1 or more.
fn at_least_one(s: &str) -> std::result::Result<usize, String> {
    match s.parse::<usize>() {
        Ok(n) if n > 0 => Ok(n),
        _ => Err(format!("`{s}` is not a count of results (1 or more)")),
    }
}

fn a_score(s: &str) -> std::result::Result<f32, String> {
    match s.trim().parse::<f32>() {
        Ok(x) if x.is_finite() => Ok(x),
        _ => Err(format!("`{s}` is not a score (a number such as 2.5)")),
    }
}

/// `hipo eval` flags.
#[derive(Debug, clap::Args)]
pub struct EvalArgs {
    /// A JSON Lines fixture: {"query": …, "expected": [paths, path:line or headings], "group": …}.
    pub fixture: PathBuf,
    /// The cut-offs to report Recall@k at.
    #[arg(short, long, value_delimiter = ',', default_value = "1,5,10")]
    pub k: Vec<usize>,
    /// A report saved with `hipo --json eval … > FILE`: print the change
    /// against it per group and k.
    #[arg(long, value_name = "FILE")]
    pub baseline: Option<PathBuf>,
    #[command(flatten)]
    pub embed: EmbedArgs,
}

/// `hipo recall` flags.
#[derive(Debug, clap::Args)]
pub struct RecallArgs {
    /// The prompt or question (words are joined).
    #[arg(required = true, allow_hyphen_values = true)]
    pub query: Vec<String>,
    /// Tokens the pack may hold (about 4 ASCII bytes a token).
    #[arg(long, default_value_t = hipo_core::DEFAULT_BUDGET)]
    pub budget: usize,
    /// The relevance a passage holding a fifth of the question must reach,
    /// or the pack is empty (default: the config's `recall.floor`, else
    /// 0.18; 0 takes anything). A young memory that holds the prompt's
    /// words well beyond chance, or a little beyond chance when the prompt
    /// points back ("last time", "again", "did we"), takes 0.10 at the
    /// default, in proportion.
    #[arg(long)]
    pub floor: Option<f32>,
    #[command(flatten)]
    pub embed: EmbedArgs,
}

/// Hybrid search flags; each overrides `search.embed.*`.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct EmbedArgs {
    /// lexical (BM25), hybrid (BM25 fused with vectors) or vector
    /// [default: hybrid when an embedding model is set, else lexical].
    #[arg(long, value_name = "MODE")]
    pub mode: Option<hipo_core::SearchMode>,
    /// Ollama embedding model (all-minilm, nomic-embed-text, bge-m3…).
    #[arg(long, env = "HIPO_EMBED_MODEL", value_name = "NAME")]
    pub embed_model: Option<String>,
    /// Ollama address [default: llm.host, else http://127.0.0.1:11434].
    #[arg(long = "host", env = "OLLAMA_HOST", value_name = "URL")]
    pub host: Option<String>,
}

impl EmbedArgs {
    /// The flags (each over its environment variable) as the layer over
    /// the config's `search.embed.*`.
    pub fn overrides(&self) -> hipo_core::EmbedLayer {
        hipo_core::EmbedLayer {
            model: self.embed_model.clone(),
            mode: self.mode,
            host: self.host.clone(),
        }
    }

    /// The embedding flags of a command that has the model flags too
    /// (`hipo mcp`): one `--host` (`OLLAMA_HOST`) serves both, so the
    /// embeddings are asked where the CLI's searches would ask them.
    pub fn with_llm(llm: &LlmArgs, embed_model: Option<String>) -> EmbedArgs {
        EmbedArgs {
            mode: None,
            embed_model,
            host: llm.host.clone(),
        }
    }
}
