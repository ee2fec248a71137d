//! `hipo mcp`: memory as tools for any agent, over the Model Context
//! Protocol (stdio, with the `rmcp` SDK).
//!
//! - `server`: the handler: `initialize` (answered at once: the project
//!   is found and opened on the first call that needs it), resources,
//!   and the runtime the server runs on.
//! - `tools`: the tools (search, get, recall, checkpoint, status,
//!   compact, timeline), their argument schemas and descriptions.
//! - `resources`: `memory/ROOT.md` and the hot files, for a client to
//!   attach.
//! - `frames`: the lines between the client and the SDK (parse errors and
//!   a nameless `tools/call` answered as JSON-RPC says).
//! - `progress`: the engine's [`hipo_core::Progress`] events as
//!   MCP progress notifications.
//!
//! The engine's blocking work (search, compact, append) runs on tokio's
//! blocking pool, never on the runtime's one thread. Bad arguments are
//! JSON-RPC errors (invalid params) naming the argument and its valid
//! form; what goes wrong in the engine is a tool result with `isError`
//! and hipo's message.

mod args;
mod frames;
mod page;
mod progress;
mod resources;
pub mod server;
mod tools;

pub use server::{Config, serve_stdio};
