//! `hipo checkpoint --type T --topic "…" [--field KEY=VALUE…] [--stdin]`: append a typed
//! entry to today's raw log, counted in hipocampus's triggers.

use super::args::CheckpointArgs;
use super::output::print_json;
use super::{Ctx, exit};
use anyhow::{Context, Result};
use hipo_core::Entry;
use hipo_core::EntryType;
use std::io::Read;

pub fn run(ctx: &Ctx, args: &CheckpointArgs) -> Result<u8> {
    let entry = entry(args)?;
    let hipo = ctx.hipo()?;
    let session = hipo.lock(ctx.lock_wait())?;
    let appended = session.append(&entry, ctx.today())?;
    if ctx.json {
        print_json(&appended)?;
    } else {
        println!(
            "appended {} line(s) to {}:{}",
            appended.lines, appended.path, appended.line
        );
    }
    Ok(match &appended.problem {
        Some(p) => {
            eprintln!("hipo: {p}");
            exit::PROBLEMS
        }
        None => exit::OK,
    })
}

fn entry(args: &CheckpointArgs) -> Result<Entry> {
    let kind = EntryType::parse(&args.kind).with_context(|| {
        format!(
            "`{}` is not an entry type; use user, feedback, project or reference",
            args.kind
        )
    })?;
    let fields = args
        .fields
        .iter()
        .map(|f| match f.split_once('=') {
            Some((k, v)) => Ok((k.to_string(), v.to_string())),
            None => anyhow::bail!(
                "`{f}` is not a field; write it as KEY=VALUE, such as outcome=shipped"
            ),
        })
        .collect::<Result<Vec<_>>>()?;
    let mut body = String::new();
    if args.stdin {
        std::io::stdin()
            .read_to_string(&mut body)
            .context("reading the entry's body from standard input")?;
    }
    Ok(Entry {
        kind,
        topic: args.topic.clone(),
        fields,
        body,
    })
}
