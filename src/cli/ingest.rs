//! `hipo ingest [--platform P] TRANSCRIPT…`: the capture hooks run, by hand.
//! OpenCode keeps every session in one database:
//! `hipo ingest --platform opencode [--session ID]… [DB]`; OpenClaw one
//! per agent: `hipo ingest --platform openclaw [--agent A] [--session ID]…
//! [DB|SESSION.jsonl…]`. Which sources a platform has is its folder's
//! business (`platforms/`).

use super::output::print_json;
use super::{Ctx, exit};
use crate::platforms::{IngestAsk, PlatformRef};
use anyhow::Result;
use hipo_core::Ingested;
use std::path::PathBuf;

pub fn run(
    ctx: &Ctx,
    platform: PlatformRef,
    sessions: &[String],
    transcripts: &[PathBuf],
    agent: Option<&str>,
) -> Result<u8> {
    let ask = IngestAsk {
        sessions,
        transcripts,
        agent,
    };
    let hipo = ctx.hipo()?;
    let found = platform.ingest_sources(hipo.root(), &ask)?;
    if let Some(note) = found.note.filter(|_| !ctx.json) {
        println!("{note}");
    }
    let lock = hipo.lock(ctx.lock_wait())?;
    let mut reports = Vec::new();
    for source in &found.sources {
        reports.extend(lock.capture(source, ctx.today())?);
    }
    print(ctx, platform, &reports)?;
    Ok(if reports.iter().any(|r| r.skipped > 0) {
        exit::PROBLEMS
    } else {
        exit::OK
    })
}

fn print(ctx: &Ctx, platform: PlatformRef, reports: &[Ingested]) -> Result<()> {
    if ctx.json {
        return print_json(&reports);
    }
    let store = platform.keeps_sessions_in_a_store();
    let mut unchanged = 0;
    for r in reports {
        match &r.at {
            Some(at) => println!(
                "{}: {} message(s) appended at {at}",
                r.transcript, r.messages
            ),
            // A store's many sessions: one line for all that had nothing new.
            None if store && reports.len() > 1 => unchanged += 1,
            None => println!("{}: nothing new", r.transcript),
        }
    }
    if unchanged > 0 {
        println!("{unchanged} session(s): nothing new");
    }
    for r in reports.iter().filter(|r| r.skipped > 0) {
        let what = if store {
            "unreadable or compressed entries"
        } else {
            "unreadable line(s)"
        };
        eprintln!("hipo: skipped {} {what} of {}", r.skipped, r.transcript);
    }
    Ok(())
}
