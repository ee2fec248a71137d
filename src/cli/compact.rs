//! `init`, `compact`, `status`, `rebuild`.

use super::output::print_json;
use super::{Ctx, exit};
use anyhow::{Context, Result};
use hipo::compact::{Options, Report};
use hipo::layout::Level;
use hipo::markdown::Status;
use hipo::project::{self, Project};
use hipo::summarize::{Progress, Summarizer};
use std::process::ExitCode;
use std::time::Duration;

/// How long a command waits for another hipo process before giving up:
/// `HIPO_LOCK_WAIT` seconds, default 60.
pub fn lock_wait() -> Duration {
    std::env::var("HIPO_LOCK_WAIT")
        .ok()
        .and_then(|v| v.parse::<f64>().ok())
        .filter(|s| s.is_finite() && *s >= 0.0)
        .map(Duration::from_secs_f64)
        .unwrap_or(Duration::from_secs(60))
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
    pub llm: super::llm::LlmArgs,
}

pub fn open(ctx: &Ctx) -> Result<Project> {
    let root = ctx.root()?;
    let project = Project::open(&root, lock_wait(), || {
        eprintln!(
            "hipo: waiting for another hipo process to finish in {}…",
            root.display()
        )
    })?;
    if let Some(w) = &project.store_warning {
        eprintln!("hipo: {w}");
    }
    Ok(project)
}

pub fn init(ctx: &Ctx) -> Result<ExitCode> {
    let cwd = std::env::current_dir()?;
    let root = ctx.dir.clone().unwrap_or(cwd);
    std::fs::create_dir_all(&root).with_context(|| format!("creating {}", root.display()))?;
    let report = project::init(&root, ctx.today())?;
    if ctx.json {
        print_json(&report)?;
    } else if report.created.is_empty() {
        println!(
            "{} is already a hipo project; nothing changed",
            root.display()
        );
    } else {
        println!("initialised {}", root.display());
        for c in &report.created {
            println!("  created {c}");
        }
    }
    Ok(ExitCode::from(exit::OK))
}

pub fn compact(ctx: &Ctx, args: &CompactArgs) -> Result<ExitCode> {
    let options = Options {
        dry_run: args.dry_run,
        resummarize: args.resummarize,
        ..Options::new(ctx.today())
    };
    super::llm::compact(ctx, &args.llm, options)
}

/// Runs a compaction with the given summarizer and prints its report.
pub fn run_compaction(
    ctx: &Ctx,
    project: &Project,
    summarizer: &dyn Summarizer,
    progress: &dyn Progress,
    options: Options,
    llm_stats: Option<&dyn Fn() -> hipo::llm::Stats>,
) -> Result<ExitCode> {
    let scan = hipo::scan::scan(&project.root, &project.store.files()?);
    let dry_run = options.dry_run;
    let mut report = hipo::compact::compact(
        &project.root,
        &project.config.compaction,
        &project.store,
        scan,
        summarizer,
        progress,
        options,
    )?;
    if !dry_run {
        // A state file hipo cannot read is reported and left as it is:
        // rewriting it from defaults would lose what other tools keep there.
        match project::load_state(&project.root) {
            Ok(mut state) => {
                state.last_compaction_run =
                    Some(chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true));
                state.raw_lines_since_last_compaction = 0;
                state.checkpoints_since_last_compaction = 0;
                state.save(&project.root)?;
            }
            Err(problem) => report.problems.push(problem),
        }
    }
    let stats = llm_stats.map(|f| f());
    if ctx.json {
        #[derive(serde::Serialize)]
        struct Out<'a> {
            #[serde(flatten)]
            report: &'a Report,
            #[serde(skip_serializing_if = "Option::is_none")]
            llm: Option<hipo::llm::Stats>,
        }
        print_json(&Out {
            report: &report,
            llm: stats,
        })?;
    } else {
        print_report(ctx, &report);
        if let Some(s) = stats {
            println!(
                "llm: {} call(s), {} cached, {} prompt + {} output tokens, {:.1} s in the model",
                s.calls,
                s.cache_hits,
                s.prompt_tokens,
                s.output_tokens,
                s.model_us as f64 / 1e6
            );
        }
    }
    for w in &report.warnings {
        eprintln!("hipo: {w}");
    }
    for p in &report.problems {
        eprintln!("hipo: skipped {p}");
    }
    for f in &report.summary_failures {
        eprintln!("hipo: {}: summary failed: {}; {}", f.path, f.reason, f.hint);
    }
    Ok(ExitCode::from(if !report.summary_failures.is_empty() {
        exit::SUMMARY_FAILED
    } else if !report.problems.is_empty() {
        exit::PROBLEMS
    } else {
        exit::OK
    }))
}

fn print_report(ctx: &Ctx, report: &Report) {
    let s = ctx.style;
    let verb = if report.dry_run {
        "would write"
    } else {
        "wrote"
    };
    let written: Vec<_> = report
        .actions
        .iter()
        .filter(|a| a.written || a.reason == hipo::compact::Reason::Adopted)
        .collect();
    if written.is_empty() {
        println!(
            "tree is up to date ({} nodes, today {})",
            report.nodes.len(),
            report.today
        );
    } else {
        println!(
            "{} {} node(s) (today {}):",
            verb,
            report.written(),
            report.today
        );
        for a in &written {
            println!(
                "  {:<16} {:<44} {}",
                a.reason.describe(),
                a.path,
                s.dim(a.status.as_str())
            );
        }
    }
    print_tree(ctx, &report.nodes);
}

/// Prints node counts per level and the summary backlog.
pub fn print_tree(ctx: &Ctx, nodes: &[hipo::compact::NodeInfo]) {
    let s = ctx.style;
    println!("{}", s.bold("tree:"));
    for level in [Level::Daily, Level::Weekly, Level::Monthly, Level::Root] {
        let of_level: Vec<_> = nodes.iter().filter(|n| n.level == level).collect();
        let count = |st: Status| of_level.iter().filter(|n| n.status == st).count();
        println!(
            "  {:<8} {:>4}  (fixed {}, tentative {}, needs-summarization {})",
            level.as_str(),
            of_level.len(),
            count(Status::Fixed),
            count(Status::Tentative),
            count(Status::NeedsSummarization)
        );
    }
    let backlog: Vec<_> = nodes
        .iter()
        .filter(|n| n.status == Status::NeedsSummarization)
        .collect();
    if !backlog.is_empty() {
        println!(
            "{}",
            s.bold(&format!("needs summarization ({}):", backlog.len()))
        );
        for n in backlog.iter().take(20) {
            println!("  {}", n.path);
        }
        if backlog.len() > 20 {
            println!("  … and {} more (see --json)", backlog.len() - 20);
        }
    }
}

/// Prints `hipo status` for an open project, planned with `summarizer`.
pub fn status(ctx: &Ctx, project: &Project, summarizer: &dyn Summarizer) -> Result<ExitCode> {
    let scan = hipo::scan::scan(&project.root, &project.store.files()?);
    let report = hipo::status::status(project, scan, summarizer, ctx.today(), chrono::Utc::now())?;
    if ctx.json {
        print_json(&report)?;
        return Ok(ExitCode::from(if report.problems.is_empty() {
            exit::OK
        } else {
            exit::PROBLEMS
        }));
    }
    let s = ctx.style;
    println!(
        "{} {} (today {})",
        s.bold("project"),
        report.root,
        report.today
    );
    println!("{}", s.bold("tree:"));
    for (level, c) in &report.levels {
        println!(
            "  {:<8} {:>4}  (fixed {}, tentative {}, needs-summarization {})",
            level.as_str(),
            c.total,
            c.fixed,
            c.tentative,
            c.needs_summarization
        );
    }
    if !report.backlog.is_empty() {
        println!(
            "{}",
            s.bold(&format!("needs summarization ({}):", report.backlog.len()))
        );
        for n in &report.backlog {
            println!("  {} ({} source lines)", n.path, n.source_lines);
        }
    }
    if !report.changed_files.is_empty() {
        println!(
            "{} {} since the last compaction:",
            s.bold("changed files:"),
            report.changed_files.len()
        );
        for f in report.changed_files.iter().take(20) {
            println!("  {f}");
        }
    }
    if report.out_of_date.is_empty() {
        println!("{} tree is up to date", s.bold("changes:"));
    } else {
        println!(
            "{} {} node(s) to rewrite on the next compact:",
            s.bold("changes:"),
            report.out_of_date.len()
        );
        for a in report.out_of_date.iter().take(20) {
            println!("  {:<16} {}", a.reason.describe(), a.path);
        }
    }
    let t = &report.triggers;
    let due = if t.due {
        format!("yes ({})", t.reasons.join("; "))
    } else {
        "no".into()
    };
    println!(
        "{} {due}; last run {}, {} raw lines and {} checkpoints since",
        s.bold("compaction due:"),
        t.last_compaction_run.as_deref().unwrap_or("never"),
        t.raw_lines_since_last_compaction,
        t.checkpoints_since_last_compaction
    );
    println!(
        "{} {} ({} KiB, schema {}, {} files, {} nodes){}",
        s.bold("store:"),
        report.store.path,
        report.store.bytes / 1024,
        report.store.schema,
        report.store.files,
        report.store.nodes,
        report
            .store
            .warning
            .as_deref()
            .map(|w| format!("; {w}"))
            .unwrap_or_default()
    );
    if report.problems.is_empty() {
        println!("{} none", s.bold("problems:"));
    } else {
        println!("{} {}", s.bold("problems:"), report.problems.len());
        for p in &report.problems {
            println!("  {p}");
        }
    }
    Ok(ExitCode::from(if report.problems.is_empty() {
        exit::OK
    } else {
        exit::PROBLEMS
    }))
}

pub fn rebuild(ctx: &Ctx, llm: &super::llm::LlmArgs) -> Result<ExitCode> {
    let root = ctx.root()?;
    {
        // Hold the lock while deleting so a concurrent run never sees half a cache.
        let _lock = hipo::fsutil::ProjectLock::acquire(&root, lock_wait(), || {
            eprintln!("hipo: waiting for another hipo process to finish…")
        })?;
        project::drop_cache(&root)?;
    }
    if !ctx.json {
        println!(
            "dropped {}/.hipo; rebuilding from the Markdown",
            root.display()
        );
    }
    // As `compact` would, with the configured backend: a rebuild must not
    // trade a model's ROOT for the mechanical one.
    let code = super::llm::compact(ctx, llm, Options::new(ctx.today()))?;
    let fresh = super::search::open_fresh(ctx, true)?;
    if !ctx.json {
        let stats = fresh.1.index.stats();
        println!(
            "{} {} passages, {:.1} MiB",
            ctx.style.bold("index:"),
            stats.windows,
            stats.bytes as f64 / (1024.0 * 1024.0)
        );
    }
    Ok(code)
}
