//! `hipo index`: the explicit index update.

use super::Ctx;
use super::args::EmbedArgs;
use super::output::{Bar, print_json, report_sync, search_code};
use anyhow::Result;
use hipo_core::{IndexStats, Searcher, SyncReport};
use std::time::Instant;

pub fn run(ctx: &Ctx, embed: &EmbedArgs) -> Result<u8> {
    let start = Instant::now();
    let searcher = ctx
        .hipo()?
        .with_embed(embed.overrides())
        .index(ctx.lock_wait(), &Bar::indexing())?;
    report_sync(&searcher);
    let stats = searcher.stats();
    let took = start.elapsed().as_secs_f64() * 1000.0;
    if ctx.json {
        print_report_json(&searcher, stats, took)?;
    } else {
        print_report(ctx, &searcher, &stats, took);
    }
    Ok(search_code(&searcher))
}

/// The sync's counts, the index's size and the vectors, as one JSON object.
fn print_report_json(searcher: &Searcher, stats: IndexStats, took: f64) -> Result<()> {
    #[derive(serde::Serialize)]
    struct Out<'a> {
        #[serde(flatten)]
        sync: &'a SyncReport,
        fresh: bool,
        index: IndexStats,
        /// With an embedding model: sections embedded now and cached.
        #[serde(skip_serializing_if = "Option::is_none")]
        vectors: Option<Vectors>,
        #[serde(skip_serializing_if = "Option::is_none")]
        semantic: Option<bool>,
        took_ms: f64,
    }
    #[derive(serde::Serialize)]
    struct Vectors {
        new: usize,
        reused: usize,
        cached: usize,
        dropped: usize,
    }
    let empty = SyncReport::default();
    print_json(&Out {
        sync: searcher.sync().unwrap_or(&empty),
        fresh: searcher.is_fresh(),
        index: stats,
        vectors: searcher.embedded().map(|e| Vectors {
            new: e.new,
            reused: e.reused,
            cached: e.cached,
            dropped: e.dropped,
        }),
        semantic: searcher.semantic(),
        took_ms: took,
    })
}

/// What changed, the index's size and the vectors, for people.
fn print_report(ctx: &Ctx, searcher: &Searcher, stats: &IndexStats, took: f64) {
    let empty = SyncReport::default();
    let report = searcher.sync().unwrap_or(&empty);
    if let Some(why) = &report.rebuilt {
        println!("built the index from scratch ({why})");
    }
    if report.changed() {
        println!(
            "indexed {} file(s) ({} section(s) added, {} removed), dropped {} file(s), in {took:.0} ms",
            report.files_indexed,
            report.sections_added,
            report.sections_removed,
            report.files_removed
        );
    } else {
        println!("index is up to date");
    }
    println!(
        "{} {} files, {} passages, {} segment(s), {:.1} MiB",
        ctx.style.bold("index:"),
        report.files,
        stats.windows,
        stats.segments,
        stats.bytes as f64 / (1024.0 * 1024.0)
    );
    if let Some(e) = searcher
        .embedded()
        .filter(|_| searcher.semantic() == Some(true))
    {
        println!(
            "{} {} passage(s) embedded now, {} reused, {} section(s) cached, {} stale row(s) dropped",
            ctx.style.bold("vectors:"),
            e.new,
            e.reused,
            e.cached,
            e.dropped
        );
    }
}
