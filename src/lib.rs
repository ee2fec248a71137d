//! hipo: long-term memory for AI agents, as plain Markdown.
//!
//! Data flows one way: [`scan`] (what changed) → [`compact`] (plan, build,
//! write, record in [`store`]) → [`index`] (search). See ARCHITECTURE.md.

pub mod codec;
pub mod config;
pub mod error;
pub mod eval;
pub mod facade;
pub mod fsutil;
pub mod index;
pub mod journal;
pub mod layout;
pub mod markdown;
pub mod summarize;

pub use error::{Error, Problem, Result};
pub use facade::{Hipo, Session};
pub mod compact;
pub mod llm;
pub mod project;
pub mod redact;
pub mod render;
pub mod root;
pub mod scan;
pub mod search;
pub mod status;
pub mod store;
pub mod tree;
