//! `hipo get PATH[:LINE[:COUNT]]` or `hipo get '#ID'`

use super::output::print_json;
use super::{Ctx, exit};
use anyhow::Result;
use std::io::Write;

pub fn run(ctx: &Ctx, target: &str) -> Result<u8> {
    let slice = ctx.hipo()?.get(target)?;
    if ctx.json {
        print_json(&slice)?;
        return Ok(exit::OK);
    }
    let width = (slice.first + slice.lines.len()).to_string().len();
    let mut out = std::io::stdout().lock();
    for (i, line) in slice.lines.iter().enumerate() {
        let n = (slice.first + i).to_string();
        writeln!(out, "{}  {line}", ctx.style.dim(&format!("{n:>width$}")))?;
    }
    Ok(exit::OK)
}
