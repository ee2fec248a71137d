//! `hipo status`, seeing the tree as `compact` with these settings would.

use super::args::LlmArgs;
use super::output::print_json;
use super::{Ctx, exit, settings};
use anyhow::Result;

pub fn run(ctx: &Ctx, args: &LlmArgs) -> Result<u8> {
    let hipo = ctx.hipo()?;
    let llm = settings(&hipo, args)?;
    let session = hipo.lock(ctx.lock_wait())?;
    if let Some(w) = session.store_warning()? {
        eprintln!("hipo: {w}");
    }
    let today = ctx.today();
    let report = session.status(&llm, today, hipo_core::facade::clock_on(today))?;
    if ctx.json {
        print_json(&report)?;
    } else {
        print!("{}", hipo_core::render::status(ctx.style, &report));
    }
    Ok(if report.problems.is_empty() {
        exit::OK
    } else {
        exit::PROBLEMS
    })
}
