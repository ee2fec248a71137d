//! `hipo recall QUERY… [--budget TOKENS] [--floor RELEVANCE]`

use super::Ctx;
use super::args::RecallArgs;
use super::output::{Bar, print_json, report_sync, search_code};
use anyhow::Result;

pub fn run(ctx: &Ctx, args: &RecallArgs) -> Result<u8> {
    let hipo = ctx.hipo()?;
    let opts = hipo_core::RecallOptions {
        budget: args.budget,
        floor: args.floor.unwrap_or(hipo.config().recall.floor),
        today: ctx.today(),
    };
    let (pack, searcher) = hipo.with_embed(args.embed.overrides()).recall(
        &args.query.join(" "),
        &opts,
        ctx.lock_wait(),
        &Bar::indexing(),
    )?;
    report_sync(&searcher);
    if ctx.json {
        #[derive(serde::Serialize)]
        struct Out<'a> {
            #[serde(flatten)]
            pack: &'a hipo_core::Pack,
            /// With a mode other than lexical: whether vectors ranked.
            #[serde(skip_serializing_if = "Option::is_none")]
            semantic: Option<bool>,
        }
        print_json(&Out {
            pack: &pack,
            semantic: searcher.semantic(),
        })?;
    } else {
        print!("{}", hipo_core::render_pack(&pack));
    }
    Ok(search_code(&searcher))
}
