//! `hipo export --ndjson [--windows]`: the index's documents on stdout.

use super::args::ExportArgs;
use super::output::Bar;
use super::{Ctx, exit};
use anyhow::Result;
use hipo_core::ExportOptions;

pub fn run(ctx: &Ctx, args: &ExportArgs) -> Result<u8> {
    let options = ExportOptions {
        windows: args.windows,
    };
    let mut out = std::io::BufWriter::with_capacity(1 << 16, std::io::stdout().lock());
    let report = ctx.hipo()?.export(options, &mut out, &Bar::exporting())?;
    for p in &report.problems {
        let line = p.line.map(|l| format!(":{l}")).unwrap_or_default();
        eprintln!("hipo: {}{line}: {}", p.path, p.message);
    }
    let windows = match args.windows {
        true => format!(" and {} window(s)", report.windows),
        false => String::new(),
    };
    eprintln!(
        "hipo: exported {} section(s){windows} from {} file(s)",
        report.sections, report.files
    );
    Ok(match report.problems.is_empty() {
        true => exit::OK,
        false => exit::PROBLEMS,
    })
}
