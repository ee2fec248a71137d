//! `hipo status`, seeing the tree as `compact` with these settings would.

use super::args::LlmArgs;
use super::output::print_json;
use super::{Ctx, exit, settings};
use anyhow::Result;

pub fn run(ctx: &Ctx, args: &LlmArgs) -> Result<u8> {
    let hipo = ctx.hipo()?;
    let llm = settings(&hipo, args)?;
    let today = ctx.today();
    let now = hipo_core::clock_on(today);
    let report = hipo.status(&llm, today, now, ctx.lock_wait())?;
    if let Some(w) = &report.store.warning {
        eprintln!("hipo: {w}");
    }
    if ctx.json {
        print_json(&report)?;
    } else {
        print!("{}", crate::render::status(ctx.style, &report));
    }
    Ok(if report.problems.is_empty() {
        exit::OK
    } else {
        exit::PROBLEMS
    })
}
