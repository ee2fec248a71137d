//! `hipo mcp`: serves the project's memory over MCP on stdin/stdout until
//! the client closes stdin. The project is `--dir` (or `HIPO_DIR`), else
//! found from `CLAUDE_PROJECT_DIR` or the working directory, on the first
//! call that needs it.

use super::args::{EmbedArgs, LlmArgs};
use super::{Ctx, exit};
use crate::mcp::{Config, serve_stdio};
use anyhow::Result;

pub fn run(ctx: &Ctx, llm: &LlmArgs, embed_model: Option<String>) -> Result<u8> {
    // Writes wait `HIPO_LOCK_WAIT` if set, else the server's own bound
    // (shorter than the CLI's: an agent waiting on a tool call is stuck).
    let mut config = Config::from_env(ctx.dir.clone());
    if std::env::var_os("HIPO_LOCK_WAIT").is_some() {
        config.lock_wait = ctx.lock_wait();
    }
    let config = Config {
        today: ctx.today_flag,
        llm: llm.overrides(),
        embed: EmbedArgs::with_llm(llm, embed_model).overrides(),
        ..config
    };
    serve_stdio(config)?;
    Ok(exit::OK)
}
