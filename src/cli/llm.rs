//! The local-model flags, `hipo summarize` and `hipo llm check`.

use super::compact::{open, run_compaction};
use super::output::print_json;
use super::{Ctx, exit};
use anyhow::Result;
use hipo::compact::Options;
use hipo::layout::NodeId;
use hipo::llm::{self, Backend, OllamaSummarizer, Overrides, Settings};
use hipo::summarize::{NoneSummarizer, Progress};
use indicatif::{ProgressBar, ProgressStyle};
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
    if settings.backend == Backend::None || options.dry_run {
        return run_compaction(ctx, &project, &NoneSummarizer, &Bar::new(), options, None);
    }
    let mut summarizer = OllamaSummarizer::new(settings, Some(&project.store))?;
    summarizer.resummarize = options.resummarize;
    let bar = Bar::new();
    let code = run_compaction(
        ctx,
        &project,
        &summarizer,
        &bar,
        options,
        Some(&|| summarizer.stats()),
    )?;
    Ok(code)
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
    let only = (!paths.is_empty()).then(|| {
        paths
            .iter()
            .map(|p| p.trim_start_matches("./").to_string())
            .collect()
    });
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
    let report = llm::check(&settings)?;
    if ctx.json {
        print_json(&report)?;
    } else {
        println!("{}", report.message);
    }
    let ok = report.reachable && (report.model_present || settings.model.is_empty());
    Ok(ExitCode::from(if ok {
        exit::OK
    } else {
        exit::SUMMARY_FAILED
    }))
}
