//! hipo: long-term memory for AI agents, as plain Markdown.
//!
//! Data flows one way: `scan` (what changed) → `compact` (plan, build,
//! write, record in the store) → `index` (search). Those modules are
//! private: front ends (the `hipo` CLI, its hooks and MCP server, the
//! benches, a library user) go through one door, the facade re-exported
//! here, and nothing inside the engine imports it. A [`Hipo`] reads; a
//! [`Session`] holds the project lock and writes. See ARCHITECTURE.md.
//!
//! The facade by job:
//! - **Open**: [`Hipo::find`], [`Hipo::open`], [`Hipo::init`]
//!   ([`InitReport`]); [`Hipo::lock`] gives a [`Session`]. [`Error`],
//!   [`Result`], [`Problem`]; [`clock_on`] for a run told another date.
//! - **Write** (a [`Session`]): append an [`Entry`] ([`EntryType`],
//!   [`Appended`]); capture a transcript ([`Source`], [`Format`],
//!   [`Ingested`]); compact ([`CompactOptions`] → [`Compacted`],
//!   [`CompactReport`]) with a [`Summarizer`] ([`NoneSummarizer`], or the
//!   local model [`LlmSettings`] name); status ([`StatusReport`]).
//! - **Read** (a [`Hipo`]): [`parse_query`] → [`Query`], searched with
//!   [`SearchOptions`] → [`Found`] ([`Hit`]s, the [`Searcher`] they came
//!   from); [`parse_target`] → [`Target`] → [`Slice`] or [`Lines`];
//!   [`RecallOptions`] → [`Pack`] ([`render_pack`]: its text, counted
//!   against its budget); a timeline ([`TimelineItem`]); an export
//!   ([`ExportOptions`]); an evaluation ([`load_eval_cases`] →
//!   [`EvalReport`]).
//! - **Configure**: [`Config`] and its sections; [`LlmLayer`]s →
//!   [`resolve_llm`] → [`LlmSettings`] ([`check_llm`]); [`EmbedLayer`]
//!   and [`SearchMode`] for search's vectors. [`Progress`] ([`Event`], [`Task`],
//!   [`NoProgress`]) reports long work.
//! - **Shared with the front ends**, so they do it as the engine does:
//!   [`redact`], [`estimate_tokens`], [`write_atomic`], [`read_utf8`], the
//!   layout's paths ([`ROOT_PATH`], [`CONFIG_FILE`], [`STATE_FILE`]),
//!   [`root_for_context`], [`sync_memory_md`], git's merge driver
//!   ([`merge_files`]), [`timing_span`].
//!
//! Presentation (styled hits, status, reports) is the front end's: the
//! `hipo` binary renders these values.
//!
//! ```
//! use hipo_core::{
//!     CompactOptions, Entry, EntryType, Hipo, NoProgress, NoneSummarizer, SearchOptions,
//! };
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
//! let report = session.compact_with(&NoneSummarizer, &NoProgress, CompactOptions::new(today))?;
//! assert!(report.problems.is_empty());
//! drop(session);
//!
//! // Reads never need the lock for long: search brings the index up to date.
//! let query = hipo_core::parse_query("when is the postgres cutover?")?;
//! let found = hipo.search(&query, &SearchOptions::default(), Duration::from_secs(5), &NoProgress)?;
//! assert_eq!(found.hits[0].path, "memory/2027-01-21.md");
//! for hit in &found.hits {
//!     println!("{}:{}  {}", hit.path, hit.line, hit.heading);
//! }
//! # Ok(())
//! # }
//! ```

// A type a caller can reach (a field, a method's argument or result) but
// not name is a missing re-export below: a warning, so clippy fails on it.
#![warn(unnameable_types)]

mod codec;
mod compact;
mod config;
mod embed;
mod error;
mod eval;
mod facade;
mod failpoint;
mod fsutil;
mod index;
mod ingest;
mod journal;
mod layout;
mod llm;
mod markdown;
mod private;
mod progress;
mod project;
#[cfg(test)]
mod properties;
mod recall;
mod redact;
mod root;
mod scan;
mod search;
mod status;
mod store;
/// The proptest strategies the integration tests use too.
#[cfg(test)]
#[path = "../../../tests/common/props.rs"]
mod strategies;
mod summarize;
mod team;
mod timeline;
mod timing;
mod tree;

// The facade: everything a front end uses, and nothing else. Flat names,
// each saying what it is (`SearchOptions`, not `search::Options`).

// Opening a project; reading (`Hipo`) and writing (`Session`) it.
pub use error::{Error, Problem, Result};
pub use facade::{Appended, Compacted, Found, Hipo, InitReport, Searcher, Session, clock_on};
pub use progress::{Event, NoProgress, Progress, Task};
pub use summarize::{
    NoneSummarizer, RootContext, SourceText, Summarizer, Summary, SummaryError, SummaryRequest,
    Writer,
};

// Configuration and the local models.
pub use config::{CompactionConfig, Config, EmbedConfig, RecallConfig, SearchConfig};
pub use embed::{BATCH as EMBED_BATCH, EmbedLayer, Embedded, Mode as SearchMode};
pub use llm::{
    Backend as LlmBackend, Check as LlmCheck, LlmLayer, Settings as LlmSettings, Stats as LlmStats,
    check as check_llm, resolve as resolve_llm,
};

// What is written: entries, the tree, a compaction's and status's reports.
pub use compact::{
    Action, NodeInfo, Options as CompactOptions, Reason as ActionReason, Report as CompactReport,
    SummaryFailure,
};
pub use journal::Entry;
pub use layout::{CONFIG_FILE, DocLevel, Level, Month, NodeId, ROOT_PATH, STATE_FILE, Week};
pub use markdown::{EntryType, Status as NodeStatus, estimate_tokens};
pub use status::{LevelCounts, StatusReport, StoreHealth, Triggers};
pub use timeline::Item as TimelineItem;

// What is read: searches, a file or section, recall packs, evaluations.
pub use eval::{
    ALL as EVAL_ALL, Case as EvalCase, CaseResult as EvalCaseResult, Change as EvalChange,
    Metrics as EvalMetrics, Report as EvalReport, compare as compare_eval, load as load_eval_cases,
};
pub use index::{ExportOptions, ExportReport, IndexStats, RebuildReason, SyncReport};
pub use recall::{
    DEFAULT_BUDGET, DEFAULT_FLOOR, Options as RecallOptions, Pack, Passage, render as render_pack,
};
pub use search::get::{Lines, Slice, Target, parse as parse_target};
pub use search::query::{Query, parse as parse_query};
pub use search::{Hit, Options as SearchOptions, Place};

// Capture, sharing, and what every front end shows the same way.
pub use ingest::openclaw::is_store as is_openclaw_store;
pub use ingest::opencode::{SessionRow as OpenCodeSession, sessions_in as opencode_sessions_in};
pub use ingest::{Format, Ingested, Source};
pub use redact::{REDACTED, redact};
pub use team::{Kind as ShareKind, merge_files};
pub use timing::{Span as TimingSpan, span as timing_span};

/// The atomic write and the checked UTF-8 read the engine uses, for front
/// ends that write settings files or serve memory files the same way.
pub use fsutil::{read_utf8, write_atomic};
/// ROOT.md cut to a session-start context's size by what matters least
/// (its standing rules last), for the hooks.
pub use root::for_context as root_for_context;
/// OpenClaw's `MEMORY.md` section, filled from ROOT.md (the installer
/// fills it at once rather than at the next compaction).
pub use root::sync_memory_md;

/// Internals hipo's own benches and integration tests measure or check
/// (the vector cache, the redaction rule set's build, the embedding
/// window). Not part of the API: only with the `internals` feature, which
/// only hipo's dev-dependencies turn on.
#[cfg(feature = "internals")]
#[doc(hidden)]
pub mod internals {
    pub use crate::embed::cache::{Row, VectorCache, WriteLock};
    pub use crate::embed::text::PIECE_BYTES;
    pub use crate::redact::build_rule_set;
}
