//! `hipo hook PLATFORM EVENT`: an agent platform's hook. Reads the hook's
//! JSON on stdin, prints what the platform adds to the agent's context,
//! and always exits 0: a memory problem must never stop the agent (it is
//! reported on stderr, which the platforms log).

use super::{Ctx, exit};
use crate::hook::{self, Event, Input, Outcome, Settings};
use crate::platforms::PlatformRef;
use hipo_core::Hipo;
use std::io::Read;
use std::path::{Path, PathBuf};

pub fn run(ctx: &Ctx, platform: PlatformRef, event: Event) -> u8 {
    if let Err(e) = try_run(ctx, platform, event) {
        eprintln!("hipo hook: {e:#}");
    }
    exit::OK
}

fn try_run(ctx: &Ctx, platform: PlatformRef, event: Event) -> anyhow::Result<()> {
    let mut stdin = String::new();
    std::io::stdin().read_to_string(&mut stdin)?;
    let input = Input::parse(&stdin)?;
    let Some(hipo) = project(ctx, &input) else {
        // Not a hipo project: a hook installed for the user stays quiet.
        return Ok(());
    };
    let recall = &hipo.config().recall;
    let settings = Settings {
        lock_wait: ctx.lock_wait().min(std::time::Duration::from_secs(10)),
        recall_tokens: recall.budget_tokens,
        recall_floor: recall.floor,
        ..Settings::new(ctx.today(), hipo_core::clock_on(ctx.today()))
    };
    let outcome = hook::run(&hipo, platform, event, &input, &settings)?;
    finish(&hipo, &outcome, settings.today);
    Ok(())
}

/// The project: `--dir`/`HIPO_DIR`, else the hook's `cwd`, else
/// `CLAUDE_PROJECT_DIR`, else the working directory.
fn project(ctx: &Ctx, input: &Input) -> Option<Hipo> {
    let cwd = input
        .cwd
        .clone()
        .or_else(|| std::env::var_os("CLAUDE_PROJECT_DIR").map(PathBuf::from))
        .or_else(|| std::env::current_dir().ok())?;
    Hipo::find(ctx.dir.as_deref(), &cwd).ok()
}

fn finish(hipo: &Hipo, outcome: &Outcome, today: chrono::NaiveDate) {
    if !outcome.stdout.is_empty() {
        print!("{}", outcome.stdout);
    }
    if let Some(i) = &outcome.ingested
        && i.skipped > 0
    {
        eprintln!(
            "hipo hook: skipped {} unreadable line(s) of {}",
            i.skipped, i.transcript
        );
    }
    if outcome.compact_in_background
        && let Err(e) = compact_detached(hipo.root(), today)
    {
        eprintln!("hipo hook: could not start a background compaction: {e}");
    }
}

/// Starts `hipo compact` in a process group of its own, its output
/// discarded, so the hook returns at once and the platform killing the
/// hook's group does not kill the compaction. It compacts for the hook's
/// date, so a hook run with `--today` is followed by a compaction that
/// agrees with it.
fn compact_detached(root: &Path, today: chrono::NaiveDate) -> std::io::Result<()> {
    let mut cmd = std::process::Command::new(std::env::current_exe()?);
    cmd.arg("--dir")
        .arg(root)
        .arg("--today")
        .arg(today.to_string())
        .arg("compact")
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null());
    #[cfg(unix)]
    std::os::unix::process::CommandExt::process_group(&mut cmd, 0);
    cmd.spawn().map(drop)
}
