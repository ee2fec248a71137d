//! `hipo init`

use super::Ctx;
use super::exit;
use super::output::print_json;
use anyhow::Result;
use hipo::Hipo;

pub fn run(ctx: &Ctx) -> Result<u8> {
    let root = match &ctx.dir {
        Some(dir) => dir.clone(),
        None => std::env::current_dir()?,
    };
    let (_, report) = Hipo::init(&root, ctx.today())?;
    if ctx.json {
        print_json(&report)?;
    } else if report.created.is_empty() {
        println!(
            "{} is already a hipo project; nothing changed",
            root.display()
        );
    } else {
        println!("initialised {}", root.display());
        for c in &report.created {
            println!("  created {c}");
        }
    }
    Ok(exit::OK)
}
