//! `hipo index`: the explicit index update.

use super::Ctx;
use super::output::{Bar, print_json, report_sync, search_code};
use anyhow::Result;
use hipo::index::{IndexStats, SyncReport};
use std::time::Instant;

pub fn run(ctx: &Ctx) -> Result<u8> {
    let start = Instant::now();
    let searcher = ctx.hipo()?.index(ctx.lock_wait(), &Bar::indexing())?;
    report_sync(&searcher);
    let stats = searcher.stats();
    let took = start.elapsed().as_secs_f64() * 1000.0;
    let empty = SyncReport::default();
    let report = searcher.sync().unwrap_or(&empty);
    if ctx.json {
        #[derive(serde::Serialize)]
        struct Out<'a> {
            #[serde(flatten)]
            sync: &'a SyncReport,
            fresh: bool,
            index: IndexStats,
            took_ms: f64,
        }
        print_json(&Out {
            sync: report,
            fresh: searcher.is_fresh(),
            index: stats,
            took_ms: took,
        })?;
        return Ok(search_code(&searcher));
    }
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
    Ok(search_code(&searcher))
}
