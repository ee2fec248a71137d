//! `hipo compact`

use super::args::CompactArgs;
use super::output::{Bar, compact_code, print_json, report_problems};
use super::{Ctx, settings};
use anyhow::Result;
use hipo_core::CompactOptions;
use hipo_core::Compacted;

pub fn run(ctx: &Ctx, args: &CompactArgs) -> Result<u8> {
    let hipo = ctx.hipo()?;
    let llm = settings(&hipo, &args.llm)?;
    let session = hipo.lock(ctx.lock_wait())?;
    let options = CompactOptions {
        dry_run: args.dry_run,
        resummarize: args.resummarize,
        ..CompactOptions::new(ctx.today())
    };
    let done = session.compact(&llm, &Bar::summarising(), options)?;
    // After the run: one answered from its settled record never opens the
    // store for writing (and only a store that reads cleanly answers).
    if let Some(w) = session.store_warning_if_opened() {
        eprintln!("hipo: {w}");
    }
    print(ctx, &done)
}

/// Prints a compaction (also `summarize`'s and `rebuild`'s) and returns
/// its exit code.
pub fn print(ctx: &Ctx, done: &Compacted) -> Result<u8> {
    if ctx.json {
        print_json(done)?;
    } else {
        print!("{}", crate::render::compact_report(ctx.style, &done.report));
        if let Some(s) = &done.llm {
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
    report_problems(&done.report);
    Ok(compact_code(&done.report))
}
