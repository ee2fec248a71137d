//! `hipo llm check`: one line on whether Ollama answers and the model is
//! pulled.

use super::args::LlmArgs;
use super::output::print_json;
use super::{Ctx, exit};
use anyhow::Result;
use hipo_core::{LlmBackend as Backend, LlmLayer};

pub fn run(ctx: &Ctx, args: &LlmArgs) -> Result<u8> {
    // Outside a project the config's defaults apply.
    let config = match ctx.hipo() {
        Ok(hipo) => hipo.config().clone(),
        Err(e) if matches!(e.downcast_ref(), Some(hipo_core::Error::NoProject(_))) => {
            hipo_core::Config::default()
        }
        Err(e) => return Err(e),
    };
    // Resolve as `none` so a missing model is reported, not an error.
    let overrides = LlmLayer {
        backend: Some(Backend::None),
        ..args.overrides()
    };
    let mut settings = hipo_core::resolve_llm(&config.llm, &overrides)?;
    settings.backend = Backend::Ollama;
    let mut report = hipo_core::check_llm(&settings)?;
    if settings.model.is_empty() {
        const HOW: &str =
            "no model configured: pass --model NAME or set llm.model in hipocampus.config.json";
        report.message = if report.reachable {
            format!("ollama at {} is up, but {HOW}", report.host)
        } else {
            format!("{}; and {HOW}", report.message)
        };
    }
    if ctx.json {
        print_json(&report)?;
    } else {
        println!("{}", report.message);
    }
    Ok(if report.reachable && report.model_present {
        exit::OK
    } else {
        exit::SUMMARY_FAILED
    })
}
