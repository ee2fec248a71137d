//! `hipo init [--platform P]… [--share]`, `hipo uninstall --platform P…`
//! and `hipo doctor`

use super::Ctx;
use super::exit;
use super::output::print_json;
use crate::harness::{self, Change, Report};
use crate::platforms::{self, DoctorEnv, PlatformRef};
use anyhow::Result;
use hipo_core::Hipo;
use std::path::Path;

pub fn run(ctx: &Ctx, chosen: &[PlatformRef], share: bool) -> Result<u8> {
    let root = match &ctx.dir {
        Some(dir) => dir.clone(),
        None => std::env::current_dir()?,
    };
    let chosen = match chosen {
        [] => match platforms::detect(&root) {
            Ok(p) => vec![p],
            Err(hipo_core::Error::Usage(why)) if why.starts_with("several") => anyhow::bail!(why),
            Err(_) => Vec::new(),
        },
        given => given.to_vec(),
    };
    let (_, report) = Hipo::init(&root, ctx.today())?;
    let bin = hook_command();
    let mut installed = chosen
        .iter()
        .map(|p| p.install(&root, &bin))
        .collect::<hipo_core::Result<Vec<Report>>>()?;
    if bin != "hipo" {
        // Shared files (Codex's project hooks, the MCP registrations)
        // call `hipo` on PATH, which is not this binary yet.
        for r in &mut installed {
            r.next_steps.push(format!(
                "put hipo on PATH (cargo install --path . or a link to {bin}): the hooks and the MCP server in shared files run `hipo`"
            ));
        }
    }
    if share {
        // This clone's drivers and hooks: they may run this binary's path.
        installed.push(harness::share(&root, &bin, &platforms::personal_files())?);
    }
    if ctx.json {
        #[derive(serde::Serialize)]
        struct Out<'a> {
            #[serde(flatten)]
            layout: &'a hipo_core::InitReport,
            platforms: &'a [Report],
        }
        print_json(&Out {
            layout: &report,
            platforms: &installed,
        })?;
        return Ok(exit::OK);
    }
    if report.created.is_empty() && installed.iter().all(unchanged) {
        println!(
            "{} is already a hipo project; nothing changed",
            root.display()
        );
        return Ok(exit::OK);
    }
    println!("initialised {}", root.display());
    for c in &report.created {
        println!("  created {c}");
    }
    installed.iter().for_each(print_report);
    Ok(exit::OK)
}

pub fn uninstall(ctx: &Ctx, chosen: &[PlatformRef]) -> Result<u8> {
    let hipo = ctx.hipo()?;
    let reports = chosen
        .iter()
        .map(|p| p.uninstall(hipo.root()))
        .collect::<hipo_core::Result<Vec<Report>>>()?;
    if ctx.json {
        print_json(&reports)?;
    } else {
        reports.iter().for_each(print_report);
    }
    Ok(exit::OK)
}

pub fn doctor(ctx: &Ctx) -> Result<u8> {
    let hipo = ctx.hipo()?;
    let codex_home = std::env::var_os("CODEX_HOME")
        .map(std::path::PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| Path::new(&h).join(".codex")));
    let due = hipo.compaction_due(hipo_core::clock_on(ctx.today()));
    let env = DoctorEnv { codex_home };
    let findings = platforms::doctor(hipo.root(), hipo.config(), &due, &env);
    if ctx.json {
        print_json(&findings)?;
    } else {
        for f in &findings {
            println!("{:<4} {}", f.level, f.what);
        }
    }
    Ok(if findings.iter().any(|f| f.level == "fix") {
        exit::PROBLEMS
    } else {
        exit::OK
    })
}

fn unchanged(r: &Report) -> bool {
    r.files.iter().all(|(_, c)| *c == Change::Unchanged)
}

fn print_report(r: &Report) {
    for (path, change) in r.files.iter().filter(|(_, c)| *c != Change::Unchanged) {
        let verb = match change {
            Change::Created => "created",
            Change::Updated => "updated",
            Change::Removed => "removed",
            Change::Unchanged => "kept",
        };
        println!("  {}: {verb} {path}", r.platform);
    }
    for step in &r.next_steps {
        println!("  {}: next: {step}", r.platform);
    }
}

/// How a hook runs hipo: `hipo` when the `hipo` on PATH is this binary
/// (it survives reinstalls), else this binary's absolute path.
fn hook_command() -> String {
    let me = std::env::current_exe().and_then(|p| p.canonicalize()).ok();
    let on_path = std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|d| d.join("hipo"))
            .find(|p| p.is_file())
            .and_then(|p| p.canonicalize().ok())
    });
    match (me, on_path) {
        (Some(me), Some(found)) if me == found => "hipo".into(),
        (Some(me), _) => quote(&me),
        (None, _) => "hipo".into(),
    }
}

fn quote(p: &Path) -> String {
    let s = p.display().to_string();
    if s.contains([' ', '\'', '"']) {
        format!("'{}'", s.replace('\'', r"'\''"))
    } else {
        s
    }
}
