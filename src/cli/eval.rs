//! `hipo eval FIXTURE.jsonl [-k 1,5,10]`

use super::Ctx;
use super::args::EvalArgs;
use super::output::{Bar, print_json, report_sync, search_code};
use anyhow::Result;
use hipo::eval::Metrics;

pub fn run(ctx: &Ctx, args: &EvalArgs) -> Result<u8> {
    let cases = hipo::eval::load(&args.fixture)?;
    let hipo = ctx.hipo()?;
    let mut ks = args.k.clone();
    ks.retain(|k| *k > 0);
    ks.sort();
    ks.dedup();
    if ks.is_empty() {
        anyhow::bail!("-k needs at least one cut-off above 0, such as 1,5,10");
    }
    let (report, searcher) = hipo.eval(&cases, &ks, ctx.lock_wait(), &Bar::indexing())?;
    report_sync(&searcher);
    if ctx.json {
        print_json(&report)?;
        return Ok(search_code(&searcher));
    }
    let header: Vec<String> = ks.iter().map(|k| format!("R@{k}")).collect();
    println!(
        "{:<16} {:>5}  {}  {:>6}",
        "group",
        "cases",
        header.iter().map(|h| format!("{h:>6}")).collect::<String>(),
        "MRR"
    );
    let row = |name: &str, m: &Metrics| {
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
    Ok(search_code(&searcher))
}
