//! `hipo ingest [--platform P] TRANSCRIPT…`: the capture hooks run, by hand.
//! OpenCode keeps every session in one database:
//! `hipo ingest --platform opencode [--session ID]… [DB]`; OpenClaw one
//! per agent: `hipo ingest --platform openclaw [--agent A] [--session ID]…
//! [DB|SESSION.jsonl…]`.

use super::output::print_json;
use super::{Ctx, exit};
use anyhow::{Result, bail};
use hipo_core::Hipo;
use hipo_core::ingest::{Ingested, openclaw, opencode};
use hipo_core::platform::Platform;
use std::path::PathBuf;

pub fn run(
    ctx: &Ctx,
    platform: Platform,
    sessions: &[String],
    transcripts: &[PathBuf],
    agent: Option<&str>,
) -> Result<u8> {
    if platform != Platform::OpenClaw && agent.is_some() {
        bail!("--agent is for --platform openclaw");
    }
    let hipo = ctx.hipo()?;
    let reports = match platform {
        Platform::OpenClaw => openclaw_reports(ctx, &hipo, sessions, transcripts, agent)?,
        _ => {
            let sources = sources(ctx, &hipo, platform, sessions, transcripts)?;
            let lock = hipo.lock(ctx.lock_wait())?;
            let mut reports = Vec::new();
            for (t, id) in &sources {
                reports.push(lock.ingest(platform, t, id.as_deref(), ctx.today())?);
            }
            reports
        }
    };
    print(ctx, platform, &reports)?;
    Ok(if reports.iter().any(|r| r.skipped > 0) {
        exit::PROBLEMS
    } else {
        exit::OK
    })
}

/// (transcript, session) pairs for a platform with a file per session, or
/// OpenCode's sessions of this project; checked before the lock is taken.
fn sources(
    ctx: &Ctx,
    hipo: &Hipo,
    platform: Platform,
    sessions: &[String],
    transcripts: &[PathBuf],
) -> Result<Vec<(PathBuf, Option<String>)>> {
    if platform != Platform::OpenCode {
        if !sessions.is_empty() {
            bail!(
                "--session is for OpenCode's and OpenClaw's databases; other platforms' transcripts are one file per session"
            );
        }
        if transcripts.is_empty() {
            bail!("name the transcript file(s) to ingest");
        }
        return Ok(transcripts.iter().map(|t| (t.clone(), None)).collect());
    }
    let db = match transcripts {
        [] => opencode::default_db().ok_or_else(|| {
            anyhow::anyhow!("no HOME or XDG_DATA_HOME: pass OpenCode's database path")
        })?,
        [one] => one.clone(),
        _ => bail!("OpenCode keeps every session in one database: pass one path at most"),
    };
    let ids = if sessions.is_empty() {
        let root = hipo
            .root()
            .canonicalize()
            .map_err(|e| anyhow::anyhow!("{}: {e}", hipo.root().display()))?;
        let found = opencode::sessions_in(&db, &root)?;
        if found.is_empty() && !ctx.json {
            println!("no OpenCode session ran in {}", root.display());
        }
        found.into_iter().map(|s| s.id).collect()
    } else {
        sessions.to_vec()
    };
    Ok(ids.into_iter().map(|id| (db.clone(), Some(id))).collect())
}

/// OpenClaw: every session (or the given ones) of its agents' databases,
/// or of the given databases and session files.
fn openclaw_reports(
    ctx: &Ctx,
    hipo: &Hipo,
    sessions: &[String],
    transcripts: &[PathBuf],
    agent: Option<&str>,
) -> Result<Vec<Ingested>> {
    let found;
    let transcripts = match transcripts {
        [] => {
            found = openclaw::stores(agent);
            if found.is_empty() {
                bail!(
                    "no OpenClaw transcript database under {}: give its path (agents/<agent>/agent/openclaw-agent.sqlite)",
                    openclaw::state_dir()
                        .map(|d| d.join("agents").display().to_string())
                        .unwrap_or_else(|| "~/.openclaw/agents".into())
                );
            }
            &found[..]
        }
        given => given,
    };
    let lock = hipo.lock(ctx.lock_wait())?;
    let mut reports = Vec::new();
    for t in transcripts {
        if !openclaw::is_store(t) {
            reports.push(lock.ingest(Platform::OpenClaw, t, None, ctx.today())?);
        } else if sessions.is_empty() {
            reports.extend(lock.ingest_openclaw_store(t, None, ctx.today())?);
        } else {
            for id in sessions {
                reports.extend(lock.ingest_openclaw_store(t, Some(id), ctx.today())?);
            }
        }
    }
    Ok(reports)
}

fn print(ctx: &Ctx, platform: Platform, reports: &[Ingested]) -> Result<()> {
    if ctx.json {
        return print_json(&reports);
    }
    let store = matches!(platform, Platform::OpenClaw | Platform::OpenCode);
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
