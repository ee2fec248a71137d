//! `hipo get PATH[:LINE[:COUNT]]` or `hipo get '#ID'`

use super::output::print_json;
use super::{Ctx, exit};
use anyhow::Result;
use std::io::Write;

pub fn run(ctx: &Ctx, target: &str) -> Result<u8> {
    let lines = ctx.hipo()?.get_lines(&hipo::search::get::parse(target)?)?;
    if ctx.json {
        print_json(&lines.slice()?)?;
        return Ok(exit::OK);
    }
    let (first, width) = (lines.first, (lines.first + lines.count).to_string().len());
    let mut out = std::io::stdout().lock();
    for (i, line) in lines.enumerate() {
        let line = line?;
        let n = (first + i).to_string();
        writeln!(out, "{}  {line}", ctx.style.dim(&format!("{n:>width$}")))?;
    }
    Ok(exit::OK)
}
