//! `hipo ingest [--platform P] TRANSCRIPT…`: the capture hooks run, by hand.

use super::output::print_json;
use super::{Ctx, exit};
use anyhow::Result;
use hipo::platform::Platform;
use std::path::PathBuf;

pub fn run(ctx: &Ctx, platform: Platform, transcripts: &[PathBuf]) -> Result<u8> {
    let hipo = ctx.hipo()?;
    let session = hipo.lock(ctx.lock_wait())?;
    let mut reports = Vec::new();
    for t in transcripts {
        reports.push(session.ingest(platform, t, ctx.today())?);
    }
    if ctx.json {
        print_json(&reports)?;
    } else {
        for r in &reports {
            match &r.at {
                Some(at) => println!(
                    "{}: {} message(s) appended at {at}",
                    r.transcript, r.messages
                ),
                None => println!("{}: nothing new", r.transcript),
            }
        }
    }
    let skipped = reports.iter().any(|r| r.skipped > 0);
    for r in reports.iter().filter(|r| r.skipped > 0) {
        eprintln!(
            "hipo: skipped {} unreadable line(s) of {}",
            r.skipped, r.transcript
        );
    }
    Ok(if skipped { exit::PROBLEMS } else { exit::OK })
}
