//! `hipo eval FIXTURE.jsonl [-k 1,5,10] [--baseline FILE]`

use super::Ctx;
use super::args::EvalArgs;
use super::output::{Bar, print_json, report_sync, search_code};
use anyhow::Result;
use hipo_core::{EvalChange as Change, EvalMetrics as Metrics, EvalReport as Report};
use std::collections::BTreeMap;

/// The report, and its change against a baseline when given.
#[derive(serde::Serialize)]
struct Json<'a> {
    #[serde(flatten)]
    report: &'a Report,
    #[serde(skip_serializing_if = "Option::is_none")]
    change: Option<&'a BTreeMap<String, Change>>,
    /// With a mode other than lexical: whether vectors ranked.
    #[serde(skip_serializing_if = "Option::is_none")]
    semantic: Option<bool>,
}

pub fn run(ctx: &Ctx, args: &EvalArgs) -> Result<u8> {
    let cases = hipo_core::load_eval_cases(&args.fixture)?;
    let hipo = ctx.hipo()?.with_embed(args.embed.overrides());
    let mut ks = args.k.clone();
    ks.retain(|k| *k > 0);
    ks.sort();
    ks.dedup();
    if ks.is_empty() {
        anyhow::bail!("-k needs at least one cut-off above 0, such as 1,5,10");
    }
    let (report, searcher) = hipo.eval(&cases, &ks, ctx.lock_wait(), &Bar::indexing())?;
    report_sync(&searcher);
    let change = match &args.baseline {
        Some(path) => Some(hipo_core::compare_eval(&report, path)?),
        None => None,
    };
    if ctx.json {
        print_json(&Json {
            report: &report,
            change: change.as_ref(),
            semantic: searcher.semantic(),
        })?;
        return Ok(search_code(&searcher));
    }
    print_table(&report, change.as_ref());
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
    Ok(search_code(&searcher))
}

/// One row per group, `all` first; with a baseline, each figure is
/// followed by its change.
fn print_table(report: &Report, change: Option<&BTreeMap<String, Change>>) {
    let ks = &report.ks;
    let width = if change.is_some() { 14 } else { 6 };
    let header: String = ks
        .iter()
        .map(|k| format!("{:>width$}", format!("R@{k}")))
        .collect();
    println!(
        "{:<16} {:>5}  {header}  {:>width$}",
        "group", "cases", "MRR"
    );
    let cell = |now: f64, then: Option<f64>| match then {
        Some(then) => format!("{now:>6.3} ({:+.3})", now - then),
        None if change.is_some() => format!("{now:>6.3}        "),
        None => format!("{now:>6.3}"),
    };
    let row = |name: &str, m: &Metrics| {
        let c = change.and_then(|c| c.get(name));
        let r: String = ks
            .iter()
            .map(|k| {
                let now = m.recall.get(k).copied().unwrap_or(0.0);
                let then = c.and_then(|c| c.recall.get(k)).map(|x| x.0);
                format!("{:>width$}", cell(now, then))
            })
            .collect();
        let mrr = cell(m.mrr, c.map(|c| c.mrr.0));
        println!("{name:<16} {:>5}  {r}  {mrr:>width$}", m.cases);
    };
    row(hipo_core::EVAL_ALL, &report.overall);
    for (g, m) in &report.groups {
        row(g, m);
    }
}
