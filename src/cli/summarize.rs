//! `hipo summarize [PATH…]`: fill pending nodes with the local model.

use super::args::LlmArgs;
use super::output::Bar;
use super::{Ctx, settings};
use anyhow::Result;

pub fn run(ctx: &Ctx, args: &LlmArgs, paths: &[String]) -> Result<u8> {
    let hipo = ctx.hipo()?;
    let llm = settings(&hipo, args)?;
    let session = hipo.lock(ctx.lock_wait())?;
    if let Some(w) = session.store_warning()? {
        eprintln!("hipo: {w}");
    }
    let done = session.summarize(&llm, paths, &Bar::summarising(), ctx.today())?;
    super::compact::print(ctx, &done)
}
