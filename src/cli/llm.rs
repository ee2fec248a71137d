//! The local-model flags, `hipo summarize` and `hipo llm check`.

use super::compact::{open, run_compaction};
use super::output::print_json;
use super::{Ctx, exit};
use anyhow::Result;
use hipo::compact::Options;
use hipo::layout::{NodeId, PathKind};
use hipo::llm::{self, Backend, OllamaSummarizer, Overrides, Settings};
use hipo::summarize::{NoneSummarizer, Progress};
use indicatif::{ProgressBar, ProgressStyle};
use std::path::Path;
use std::process::ExitCode;

/// Local-model options; each overrides `llm.*` in hipocampus.config.json.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct LlmArgs {
    /// Summary backend: none (leave nodes for the agent) or ollama.
    #[arg(long = "llm", env = "HIPO_LLM", value_name = "BACKEND", value_parser = ["none", "ollama"])]
    pub backend: Option<String>,
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
}

impl LlmArgs {
    fn overrides(&self) -> Overrides {
        Overrides {
            backend: self.backend.clone(),
            host: self.host.clone(),
            model: self.model.clone(),
            timeout_s: self.timeout_s,
            num_ctx: self.num_ctx,
            temperature: self.temperature,
            keep_alive: self.keep_alive.clone(),
            concurrency: self.concurrency,
        }
    }

    /// The settings for this run: config merged with flags and environment.
    pub fn settings(&self, config: &hipo::config::Config) -> Result<Settings> {
        Ok(llm::resolve(&config.llm, &self.overrides())?)
    }
}

/// `hipo llm …`
#[derive(Debug, clap::Subcommand)]
pub enum LlmCommand {
    /// Say in one line whether Ollama answers and the model is pulled.
    Check(LlmArgs),
}

/// A progress bar on stderr (hidden when stderr is not a terminal).
pub struct Bar(ProgressBar);

impl Bar {
    pub fn new() -> Bar {
        let bar = ProgressBar::new(0);
        let style =
            ProgressStyle::with_template("{spinner} summarising {pos}/{len} {wide_msg} {elapsed}")
                .unwrap_or_else(|_| ProgressStyle::default_bar());
        bar.set_style(style);
        Bar(bar)
    }
}

impl Progress for Bar {
    fn begin(&self, total: usize) {
        self.0.set_length(total as u64);
        self.0.set_position(0);
    }
    fn started(&self, node: NodeId) {
        self.0.set_message(node.path());
    }
    fn finished(&self, _node: NodeId) {
        self.0.inc(1);
    }
}

impl Drop for Bar {
    fn drop(&mut self) {
        self.0.finish_and_clear();
    }
}

/// Runs a compaction with the configured backend.
pub fn compact(ctx: &Ctx, args: &LlmArgs, options: Options) -> Result<ExitCode> {
    let project = open(ctx)?;
    let settings = args.settings(&project.config)?;
    if settings.backend == Backend::None {
        return run_compaction(ctx, &project, &NoneSummarizer, &Bar::new(), options, None);
    }
    // A dry run gets the model's summarizer too (it is never called then),
    // so nodes the model wrote are planned as `compact` would plan them.
    let dry_run = options.dry_run;
    let mut summarizer = OllamaSummarizer::new(settings, Some(&project.store))?;
    summarizer.resummarize = options.resummarize;
    let bar = Bar::new();
    let stats = || summarizer.stats();
    run_compaction(
        ctx,
        &project,
        &summarizer,
        &bar,
        options,
        (!dry_run).then_some(&stats as &dyn Fn() -> llm::Stats),
    )
}

/// `hipo status`, seeing the tree as `compact` with these settings would.
pub fn status(ctx: &Ctx, args: &LlmArgs) -> Result<ExitCode> {
    let project = open(ctx)?;
    let settings = args.settings(&project.config)?;
    if settings.backend == Backend::None {
        return super::compact::status(ctx, &project, &NoneSummarizer);
    }
    let summarizer = OllamaSummarizer::new(settings, Some(&project.store))?;
    super::compact::status(ctx, &project, &summarizer)
}

/// `hipo summarize [PATH…]`: fill pending nodes with the local model.
pub fn summarize(ctx: &Ctx, args: &LlmArgs, paths: &[String]) -> Result<ExitCode> {
    let project = open(ctx)?;
    let settings = args.settings(&project.config)?;
    if settings.backend == Backend::None {
        anyhow::bail!(
            "summarize needs a local model: pass --llm ollama --model NAME, or set llm.backend and llm.model in hipocampus.config.json"
        );
    }
    let only = if paths.is_empty() {
        None
    } else {
        Some(node_paths(&project.root, paths)?)
    };
    drop(project);
    compact(
        ctx,
        args,
        Options {
            only,
            ..Options::new(ctx.today())
        },
    )
}

/// The project-relative paths of the nodes `summarize` was given (as
/// typed, `./`-prefixed, or absolute inside the project). Anything that is
/// not an existing node of the tree is a usage error: it would otherwise
/// match nothing and run a plain compaction.
fn node_paths(root: &Path, paths: &[String]) -> Result<Vec<String>> {
    const SHAPE: &str = "a node path looks like memory/daily/2026-03-15.md, memory/weekly/2026-W11.md or memory/monthly/2026-03.md";
    paths
        .iter()
        .map(|p| {
            let rel = match Path::new(p).strip_prefix(root) {
                Ok(inside) => inside.to_string_lossy().into_owned(),
                Err(_) => p.trim_start_matches("./").to_string(),
            };
            match hipo::layout::classify(&rel) {
                Ok(PathKind::Node(id)) if root.join(&rel).is_file() => Ok(id.path()),
                Ok(PathKind::Node(_)) => anyhow::bail!(
                    "{p} does not exist; run `hipo compact` first, or pass an existing node (`hipo status` lists those waiting for a summary)"
                ),
                _ => anyhow::bail!("{p} is not a node of the summary tree; {SHAPE}"),
            }
        })
        .collect()
}

/// `hipo llm check`
pub fn check(ctx: &Ctx, args: &LlmArgs) -> Result<ExitCode> {
    let config = match ctx.root() {
        Ok(root) => hipo::config::Config::load(&root)?,
        Err(_) => hipo::config::Config::default(),
    };
    // Resolve as `none` so a missing model is reported, not an error.
    let overrides = Overrides {
        backend: Some("none".into()),
        ..args.overrides()
    };
    let mut settings = llm::resolve(&config.llm, &overrides)?;
    settings.backend = Backend::Ollama;
    let mut report = llm::check(&settings)?;
    if settings.model.is_empty() {
        const HOW: &str =
            "no model configured: pass --model NAME or set llm.model in hipocampus.config.json";
        report.message = if report.reachable {
            format!("ollama at {} is up, but {HOW}", report.host)
        } else {
            format!("{}; and {HOW}", report.message)
        };
    }
    if ctx.json {
        print_json(&report)?;
    } else {
        println!("{}", report.message);
    }
    let ok = report.reachable && report.model_present;
    Ok(ExitCode::from(if ok {
        exit::OK
    } else {
        exit::SUMMARY_FAILED
    }))
}
