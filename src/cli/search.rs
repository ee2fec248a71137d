//! `hipo search`

use super::Ctx;
use super::args::SearchArgs;
use super::output::{Bar, print_json, report_sync, search_code};
use anyhow::Result;
use hipo_core::{Hit, Query, SearchOptions};
use std::time::Instant;

/// The query with the flag filters applied as if written inline.
fn parse(args: &SearchArgs) -> hipo_core::Result<Query> {
    let mut q = hipo_core::parse_query(&args.query.join(" "))?;
    let one = |v: &Option<String>| v.iter().cloned().collect::<Vec<_>>();
    for (name, values) in [
        ("type", args.kind.clone()),
        ("level", args.level.clone()),
        ("after", one(&args.after)),
        ("before", one(&args.before)),
        ("week", one(&args.week)),
        ("month", one(&args.month)),
        ("path", args.path.clone()),
    ] {
        for v in values {
            q.filter(name, &v)?;
        }
    }
    Ok(q)
}

pub fn run(ctx: &Ctx, args: &SearchArgs) -> Result<u8> {
    let start = Instant::now();
    let q = parse(args)?;
    let opts = SearchOptions {
        limit: args.limit,
        min_score: args.min_score,
        full: args.full,
        snippets: !args.files,
        ..SearchOptions::default()
    };
    let _all = hipo_core::timing_span("search (command)");
    let hipo = {
        let _s = hipo_core::timing_span("project + config");
        ctx.hipo()?
    };
    let found = hipo.with_embed(args.embed.overrides()).search(
        &q,
        &opts,
        ctx.lock_wait(),
        &Bar::indexing(),
    )?;
    report_sync(&found.searcher);
    let _print = hipo_core::timing_span("render + print");
    if ctx.json {
        #[derive(serde::Serialize)]
        struct Out<'a> {
            query: String,
            took_ms: f64,
            /// False when the index could not be updated (another hipo held
            /// the lock, or the disk is full or read only) and was searched as it was.
            fresh: bool,
            /// With a mode other than lexical: whether vectors ranked
            /// (false when the model failed and the search was lexical).
            #[serde(skip_serializing_if = "Option::is_none")]
            semantic: Option<bool>,
            hits: &'a [Hit],
        }
        print_json(&Out {
            query: args.query.join(" "),
            took_ms: start.elapsed().as_secs_f64() * 1000.0,
            fresh: found.searcher.is_fresh(),
            semantic: found.searcher.semantic(),
            hits: &found.hits,
        })?;
    } else if args.files {
        let mut seen = std::collections::HashSet::new();
        for h in found.hits.iter().filter(|h| seen.insert(h.path.clone())) {
            println!("{}", h.path);
        }
    } else {
        print!("{}", crate::render::hits(ctx.style, &found.hits, None));
        if found.hits.is_empty() && args.query.iter().any(|w| w.contains('"')) {
            // A pasted question in quotes is one phrase that must appear
            // as written: say so, rather than leave "no results" to be
            // read as "the memory holds nothing on it".
            eprintln!(
                "hint: a quoted phrase must appear as written; without the quotes its words are ranked one by one"
            );
        }
    }
    let code = search_code(&found.searcher);
    // The process ends next: unmapping the index's files one by one and
    // freeing the hits is work its exit does at once anyway (about a
    // tenth of a whole-process search's system time went to `munmap`).
    std::mem::forget(found);
    Ok(code)
}
