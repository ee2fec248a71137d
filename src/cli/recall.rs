//! `hipo recall QUERY… [--budget TOKENS] [--floor RELEVANCE]`

use super::Ctx;
use super::args::RecallArgs;
use super::output::{Bar, print_json, report_sync, search_code};
use anyhow::Result;

pub fn run(ctx: &Ctx, args: &RecallArgs) -> Result<u8> {
    let hipo = ctx.hipo()?;
    let opts = hipo::recall::Options {
        budget: args.budget,
        floor: args.floor.unwrap_or(hipo.config().recall.floor),
        today: ctx.today(),
    };
    let (pack, searcher) = hipo.recall(
        &args.query.join(" "),
        &opts,
        ctx.lock_wait(),
        &Bar::indexing(),
    )?;
    report_sync(&searcher);
    if ctx.json {
        print_json(&pack)?;
    } else {
        print!("{}", hipo::render::recall(&pack));
    }
    Ok(search_code(&searcher))
}
