//! `search`, `get`, `index`, `eval`.

use super::output::{Style, print_json};
use super::{Ctx, exit};
use anyhow::Result;
use hipo::index::{self, Fresh, SyncProgress, SyncReport};
use hipo::search::{self, Hit, get, query};
use indicatif::{ProgressBar, ProgressStyle};
use std::process::ExitCode;
use std::time::{Duration, Instant};

/// How long a search waits for a running hipo before searching the index
/// as it is.
const SEARCH_WAIT: Duration = Duration::from_millis(1500);

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
    #[arg(long, value_name = "X")]
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
}

impl SearchArgs {
    /// The query with the flag filters applied as if written inline.
    fn parse(&self) -> hipo::Result<query::Query> {
        let mut q = query::parse(&self.query.join(" "))?;
        let one = |v: &Option<String>| v.iter().cloned().collect::<Vec<_>>();
        for (name, values) in [
            ("type", self.kind.clone()),
            ("level", self.level.clone()),
            ("after", one(&self.after)),
            ("before", one(&self.before)),
            ("week", one(&self.week)),
            ("month", one(&self.month)),
            ("path", self.path.clone()),
        ] {
            for v in values {
                q.filters.apply(name, &v)?;
            }
        }
        Ok(q)
    }
}

/// A bar for a big index build (hidden when stderr is not a terminal).
struct Bar(ProgressBar);

impl Bar {
    fn new() -> Bar {
        let bar = ProgressBar::hidden();
        bar.set_style(
            ProgressStyle::with_template("{spinner} indexing {pos}/{len} files {elapsed}")
                .unwrap_or_else(|_| ProgressStyle::default_bar()),
        );
        Bar(bar)
    }
}

impl SyncProgress for Bar {
    fn begin(&self, total: usize) {
        // A handful of changed files takes milliseconds: no bar for that.
        if total >= 20 {
            self.0
                .set_draw_target(indicatif::ProgressDrawTarget::stderr());
        }
        self.0.set_length(total as u64);
    }
    fn file_done(&self) {
        self.0.inc(1);
    }
}

impl Drop for Bar {
    fn drop(&mut self) {
        self.0.finish_and_clear();
    }
}

/// Opens the index brought up to date. A search waits [`SEARCH_WAIT`] for
/// another hipo before answering from the index as it is; `hipo index`
/// (`explicit`) waits the whole lock wait and fails if it cannot update.
pub fn open_fresh(ctx: &Ctx, explicit: bool) -> Result<(std::path::PathBuf, Fresh)> {
    let root = ctx.root()?;
    let max_wait = super::compact::lock_wait();
    let wait = if explicit { max_wait } else { SEARCH_WAIT };
    let fresh = index::fresh(&root, wait, max_wait, &Bar::new())?;
    for w in &fresh.warnings {
        eprintln!("hipo: {w}");
    }
    if let Some(report) = &fresh.sync {
        if let Some(why) = report.rebuilt.as_ref().filter(|w| !w.is_first_build()) {
            eprintln!("hipo: rebuilt the search index: {why}");
        }
        for p in &report.problems {
            eprintln!("hipo: not searchable: {p}");
        }
    }
    Ok((root, fresh))
}

/// Exit code for a command that searched: 1 when files were skipped.
fn code(fresh: &Fresh) -> ExitCode {
    let skipped = fresh.sync.as_ref().is_some_and(|s| !s.problems.is_empty());
    ExitCode::from(if skipped { exit::PROBLEMS } else { exit::OK })
}

/// Parses `-n`: a count of results, 1 or more.
fn at_least_one(s: &str) -> std::result::Result<usize, String> {
    match s.parse::<usize>() {
        Ok(n) if n > 0 => Ok(n),
        _ => Err(format!("`{s}` is not a count of results (1 or more)")),
    }
}

pub fn search(ctx: &Ctx, args: &SearchArgs) -> Result<ExitCode> {
    let start = Instant::now();
    let q = args.parse()?;
    let (root, fresh) = open_fresh(ctx, false)?;
    let opts = search::Options {
        limit: args.limit,
        min_score: args.min_score,
        full: args.full,
        trust_index: fresh.sync.is_some(),
        snippets: !args.files,
    };
    let hits = search::search(&fresh.index, &root, &q, &opts)?;
    if ctx.json {
        #[derive(serde::Serialize)]
        struct Out<'a> {
            query: String,
            took_ms: f64,
            /// False when another hipo held the lock and the index was not updated.
            fresh: bool,
            hits: &'a [Hit],
        }
        print_json(&Out {
            query: args.query.join(" "),
            took_ms: start.elapsed().as_secs_f64() * 1000.0,
            fresh: fresh.sync.is_some(),
            hits: &hits,
        })?;
    } else if args.files {
        let mut seen = std::collections::HashSet::new();
        for h in hits.iter().filter(|h| seen.insert(h.path.clone())) {
            println!("{}", h.path);
        }
    } else {
        print_hits(ctx.style, &hits);
    }
    Ok(code(&fresh))
}

fn print_hits(s: Style, hits: &[Hit]) {
    if hits.is_empty() {
        println!("no results");
        return;
    }
    for (i, h) in hits.iter().enumerate() {
        if i > 0 {
            println!();
        }
        let mut about = vec![h.level.as_str().to_string()];
        about.extend(h.date.clone());
        about.push(h.kind.as_str().to_string());
        about.extend(h.status.clone());
        println!(
            "{}  {}  {}",
            s.bold(&format!("{}:{}", h.path, h.line)),
            h.heading,
            s.dim(&format!("[{}] {:.2} {}", about.join(", "), h.score, h.id))
        );
        if !h.snippet.is_empty() {
            println!("    {}", highlighted(s, h));
        }
        if !h.also_in.is_empty() {
            let places: Vec<String> = h
                .also_in
                .iter()
                .map(|p| format!("{}:{}", p.path, p.lines[0]))
                .collect();
            let more = match h.also_in_more {
                0 => String::new(),
                n => format!(" and {n} more"),
            };
            println!(
                "    {}",
                s.dim(&format!("also in: {}{more}", places.join(", ")))
            );
        }
        if let Some(text) = &h.text {
            println!();
            for line in text.lines() {
                println!("    {line}");
            }
        }
    }
}

/// Matches in bold on a terminal; `**…**` otherwise (Markdown, which an
/// agent reading the output understands).
fn highlighted(s: Style, h: &Hit) -> String {
    if !s.color {
        return h.snippet.clone();
    }
    let mut out = String::new();
    let mut at = 0;
    for [a, b] in &h.highlights {
        let (Some(before), Some(mark)) = (h.snippet_text.get(at..*a), h.snippet_text.get(*a..*b))
        else {
            return h.snippet.clone();
        };
        out.push_str(before);
        out.push_str(&s.bold(mark));
        at = *b;
    }
    out.push_str(h.snippet_text.get(at..).unwrap_or_default());
    out
}

pub fn get_cmd(ctx: &Ctx, target: &str) -> Result<ExitCode> {
    let root = ctx.root()?;
    let slice = get::get(&root, &get::parse(target)?)?;
    if ctx.json {
        print_json(&slice)?;
        return Ok(ExitCode::from(exit::OK));
    }
    let width = (slice.first + slice.lines.len()).to_string().len();
    let mut out = std::io::stdout().lock();
    use std::io::Write;
    for (i, line) in slice.lines.iter().enumerate() {
        let n = (slice.first + i).to_string();
        writeln!(out, "{}  {line}", ctx.style.dim(&format!("{n:>width$}")))?;
    }
    Ok(ExitCode::from(exit::OK))
}

pub fn index_cmd(ctx: &Ctx) -> Result<ExitCode> {
    let start = Instant::now();
    let (_, fresh) = open_fresh(ctx, true)?;
    let stats = fresh.index.stats();
    let took = start.elapsed().as_secs_f64() * 1000.0;
    let empty = SyncReport::default();
    let report = fresh.sync.as_ref().unwrap_or(&empty);
    if ctx.json {
        #[derive(serde::Serialize)]
        struct Out<'a> {
            #[serde(flatten)]
            sync: &'a SyncReport,
            fresh: bool,
            index: index::IndexStats,
            took_ms: f64,
        }
        print_json(&Out {
            sync: report,
            fresh: fresh.sync.is_some(),
            index: stats,
            took_ms: took,
        })?;
    } else {
        if let Some(why) = &report.rebuilt {
            println!("built the index from scratch ({why})");
        }
        if report.changed() {
            println!(
                "indexed {} file(s) ({} section(s) added, {} removed), dropped {} file(s), in {took:.0} ms",
                report.files_indexed,
                report.sections_added,
                report.sections_removed,
                report.files_removed
            );
        } else {
            println!("index is up to date");
        }
        println!(
            "{} {} files, {} passages, {} segment(s), {:.1} MiB",
            ctx.style.bold("index:"),
            report.files,
            stats.windows,
            stats.segments,
            stats.bytes as f64 / (1024.0 * 1024.0)
        );
    }
    Ok(code(&fresh))
}

/// `hipo eval` flags.
#[derive(Debug, clap::Args)]
pub struct EvalArgs {
    /// A JSON Lines fixture: {"query": …, "expected": [paths, path:line or headings], "group": …}.
    pub fixture: std::path::PathBuf,
    /// The cut-offs to report Recall@k at.
    #[arg(short, long, value_delimiter = ',', default_value = "1,5,10")]
    pub k: Vec<usize>,
}

pub fn eval(ctx: &Ctx, args: &EvalArgs) -> Result<ExitCode> {
    let cases = hipo::eval::load(&args.fixture)?;
    let (root, fresh) = open_fresh(ctx, false)?;
    let mut ks = args.k.clone();
    ks.retain(|k| *k > 0);
    ks.sort();
    ks.dedup();
    if ks.is_empty() {
        anyhow::bail!("-k needs at least one cut-off above 0, such as 1,5,10");
    }
    let report = hipo::eval::evaluate(&cases, &ks, |q, limit| {
        let opts = search::Options {
            limit,
            trust_index: fresh.sync.is_some(),
            snippets: false,
            ..Default::default()
        };
        search::search(&fresh.index, &root, &query::parse(q)?, &opts)
    })?;
    if ctx.json {
        print_json(&report)?;
        return Ok(code(&fresh));
    }
    let header: Vec<String> = ks.iter().map(|k| format!("R@{k}")).collect();
    println!(
        "{:<16} {:>5}  {}  {:>6}",
        "group",
        "cases",
        header.iter().map(|h| format!("{h:>6}")).collect::<String>(),
        "MRR"
    );
    let row = |name: &str, m: &hipo::eval::Metrics| {
        let r: String = ks
            .iter()
            .map(|k| format!("{:>6.3}", m.recall.get(k).copied().unwrap_or(0.0)))
            .collect();
        println!("{name:<16} {:>5}  {r}  {:>6.3}", m.cases, m.mrr);
    };
    row("all", &report.overall);
    for (g, m) in &report.groups {
        row(g, m);
    }
    let missed: Vec<_> = report.cases.iter().filter(|c| c.rank.is_none()).collect();
    if !missed.is_empty() {
        println!(
            "{}",
            ctx.style.bold(&format!(
                "not found in the top {} ({}):",
                ks.last().copied().unwrap_or(10),
                missed.len()
            ))
        );
        for c in missed {
            println!(
                "  {}  → {}",
                c.query,
                c.top.first().map_or("-", String::as_str)
            );
        }
    }
    Ok(code(&fresh))
}
