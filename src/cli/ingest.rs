//! `hipo ingest [--platform P] TRANSCRIPT…`: the capture hooks run, by hand.
//! OpenCode keeps every session in one database:
//! `hipo ingest --platform opencode [--session ID]… [DB]`.

use super::output::print_json;
use super::{Ctx, exit};
use anyhow::{Result, bail};
use hipo::ingest::opencode;
use hipo::platform::Platform;
use std::path::PathBuf;

pub fn run(
    ctx: &Ctx,
    platform: Platform,
    sessions: &[String],
    transcripts: &[PathBuf],
) -> Result<u8> {
    let hipo = ctx.hipo()?;
    // (transcript, session) pairs, checked before the lock is taken.
    let sources: Vec<(PathBuf, Option<String>)> = match platform {
        Platform::OpenCode => {
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
            ids.into_iter().map(|id| (db.clone(), Some(id))).collect()
        }
        _ if !sessions.is_empty() => {
            bail!(
                "--session is for OpenCode's database; other platforms' transcripts are one file per session"
            )
        }
        _ if transcripts.is_empty() => bail!("name the transcript file(s) to ingest"),
        _ => transcripts.iter().map(|t| (t.clone(), None)).collect(),
    };
    let session = hipo.lock(ctx.lock_wait())?;
    let mut reports = Vec::new();
    for (t, id) in &sources {
        reports.push(session.ingest(platform, t, id.as_deref(), ctx.today())?);
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
