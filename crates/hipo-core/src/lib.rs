//! hipo: long-term memory for AI agents, as plain Markdown.
//!
//! Data flows one way: `scan` (what changed) → [`compact`] (plan, build,
//! write, record in the store) → [`index`] (search). Front ends (the CLI,
//! the benches, hooks, an MCP server) go through one door, the [`Hipo`]
//! facade: a [`Hipo`] reads, a locked [`Session`] writes. See
//! ARCHITECTURE.md.
//!
//! ```
//! use hipo_core::Hipo;
//! use hipo_core::compact::Options;
//! use hipo_core::journal::Entry;
//! use hipo_core::markdown::EntryType;
//! use hipo_core::progress::NoProgress;
//! use hipo_core::summarize::NoneSummarizer;
//! use std::time::Duration;
//!
//! # fn main() -> hipo_core::Result<()> {
//! let dir = tempfile::tempdir().expect("a temp dir");
//! let today = chrono::NaiveDate::from_ymd_opt(2027, 1, 21).expect("a date");
//! let (hipo, _created) = Hipo::init(dir.path(), today)?;
//!
//! // Writes hold the project lock: append an entry, then compact.
//! let session = hipo.lock(Duration::from_secs(5))?;
//! let entry = Entry {
//!     kind: EntryType::Project,
//!     topic: "Postgres 16 cutover".into(),
//!     fields: vec![("decisions".into(), "cut over on Saturday night".into())],
//!     body: String::new(),
//! };
//! let appended = session.append(&entry, today)?;
//! assert_eq!(appended.path, "memory/2027-01-21.md");
//! let report = session.compact_with(&NoneSummarizer, &NoProgress, Options::new(today))?;
//! assert!(report.problems.is_empty());
//! drop(session);
//!
//! // Reads never need the lock for long: search brings the index up to date.
//! let query = hipo_core::search::query::parse("when is the postgres cutover?")?;
//! let found = hipo.search(
//!     &query,
//!     &hipo_core::search::Options::default(),
//!     Duration::from_secs(5),
//!     &NoProgress,
//! )?;
//! assert_eq!(found.hits[0].path, "memory/2027-01-21.md");
//! print!("{}", hipo_core::render::hits(hipo_core::render::Style::PLAIN, &found.hits, Some(200)));
//! # Ok(())
//! # }
//! ```

pub(crate) mod codec;
pub mod compact;
pub mod config;
pub mod embed;
pub mod error;
pub mod eval;
pub mod facade;
pub(crate) mod failpoint;
pub(crate) mod fsutil;
pub mod index;
pub mod ingest;
pub mod journal;
pub mod layout;
pub mod llm;
pub mod markdown;
pub(crate) mod private;
pub mod progress;
pub(crate) mod project;
pub mod recall;
pub mod redact;
pub mod render;
pub(crate) mod root;
pub(crate) mod scan;
pub mod search;
pub mod status;
pub(crate) mod store;
pub mod summarize;
pub mod team;
pub(crate) mod timeline;
pub mod timing;
pub(crate) mod tree;

pub use error::{Error, Problem, Result};
pub use facade::{Hipo, Session};
/// The atomic write and the checked UTF-8 read the engine uses, for front
/// ends that write settings files or serve memory files the same way.
pub use fsutil::{read_utf8, write_atomic};
/// ROOT.md cut to a session-start context's size by what matters least
/// (its standing rules last), for the hooks.
pub use root::for_context as root_for_context;
/// OpenClaw's `MEMORY.md` section, filled from ROOT.md (the installer
/// fills it at once rather than at the next compaction).
pub use root::sync_memory_md;
