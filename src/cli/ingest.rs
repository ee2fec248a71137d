//! `hipo ingest [--platform P] TRANSCRIPT…`: the capture hooks run, by hand.

use super::output::print_json;
use super::{Ctx, exit};
use anyhow::Result;
use hipo::ingest::{Ingested, openclaw};
use hipo::platform::Platform;
use std::path::PathBuf;

pub fn run(
    ctx: &Ctx,
    platform: Platform,
    transcripts: &[PathBuf],
    session: Option<&str>,
    agent: Option<&str>,
) -> Result<u8> {
    let openclaw = platform == Platform::OpenClaw;
    if !openclaw && (session.is_some() || agent.is_some()) {
        anyhow::bail!("--session and --agent are for --platform openclaw");
    }
    let found;
    let transcripts = match transcripts {
        [] if openclaw => {
            found = openclaw::stores(agent);
            if found.is_empty() {
                anyhow::bail!(
                    "no OpenClaw transcript database under {}: give its path (agents/<agent>/agent/openclaw-agent.sqlite)",
                    openclaw::state_dir()
                        .map(|d| d.join("agents").display().to_string())
                        .unwrap_or_else(|| "~/.openclaw/agents".into())
                );
            }
            &found[..]
        }
        [] => anyhow::bail!("give the transcript files to ingest"),
        given => given,
    };
    let hipo = ctx.hipo()?;
    let lock = hipo.lock(ctx.lock_wait())?;
    let mut reports: Vec<Ingested> = Vec::new();
    for t in transcripts {
        if openclaw && openclaw::is_store(t) {
            reports.extend(lock.ingest_openclaw_store(t, session, ctx.today())?);
        } else {
            reports.push(lock.ingest(platform, t, ctx.today())?);
        }
    }
    if ctx.json {
        print_json(&reports)?;
    } else {
        let mut unchanged = 0;
        for r in &reports {
            match &r.at {
                Some(at) => println!(
                    "{}: {} message(s) appended at {at}",
                    r.transcript, r.messages
                ),
                // A store's many sessions: one line for all that had nothing new.
                None if openclaw && reports.len() > 1 => unchanged += 1,
                None => println!("{}: nothing new", r.transcript),
            }
        }
        if unchanged > 0 {
            println!("{unchanged} session(s): nothing new");
        }
    }
    let skipped = reports.iter().any(|r| r.skipped > 0);
    for r in reports.iter().filter(|r| r.skipped > 0) {
        let what = if openclaw {
            "unreadable or compressed entries"
        } else {
            "unreadable line(s)"
        };
        eprintln!("hipo: skipped {} {what} of {}", r.skipped, r.transcript);
    }
    Ok(if skipped { exit::PROBLEMS } else { exit::OK })
}
