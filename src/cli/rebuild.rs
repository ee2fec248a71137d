//! `hipo rebuild`: drop `.hipo/` and rebuild it from the Markdown.

use super::args::LlmArgs;
use super::output::{Bar, report_sync};
use super::{Ctx, settings};
use anyhow::Result;
use hipo_core::CompactOptions;

pub fn run(ctx: &Ctx, args: &LlmArgs) -> Result<u8> {
    let hipo = ctx.hipo()?;
    let llm = settings(&hipo, args)?;
    hipo.drop_cache(ctx.lock_wait())?;
    if !ctx.json {
        println!(
            "dropped {}/.hipo; rebuilding from the Markdown",
            hipo.root().display()
        );
    }
    // As `compact` would, with the configured backend: a rebuild must not
    // trade a model's ROOT for the mechanical one.
    let code = {
        let session = hipo.lock(ctx.lock_wait())?;
        if let Some(w) = session.store_warning()? {
            eprintln!("hipo: {w}");
        }
        let done = session.compact(&llm, &Bar::summarising(), CompactOptions::new(ctx.today()))?;
        super::compact::print(ctx, &done)?
    };
    let searcher = hipo.index(ctx.lock_wait(), &Bar::indexing())?;
    report_sync(&searcher);
    if !ctx.json {
        let stats = searcher.stats();
        println!(
            "{} {} passages, {:.1} MiB",
            ctx.style.bold("index:"),
            stats.windows,
            stats.bytes as f64 / (1024.0 * 1024.0)
        );
    }
    Ok(code)
}
