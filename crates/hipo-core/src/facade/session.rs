//! A locked project: the operations that write.

use super::Hipo;
use crate::compact::{self, Options, Report};
use crate::config::{CompactionState, Config};
use crate::error::{Error, Problem, Result};
use crate::fsutil::ProjectLock;
use crate::ingest::{self, Ingested};
use crate::ingest::{Format, Source};
use crate::journal::{self, Entry};
use crate::layout::PathKind;
use crate::llm::{self, Backend, OllamaSummarizer, Settings};
use crate::progress::Progress;
use crate::project;
use crate::status::StatusReport;
use crate::store::Store;
use crate::summarize::{NoneSummarizer, Summarizer};
use chrono::{DateTime, NaiveDate, Utc};
use std::path::Path;
use std::time::Duration;

/// The project lock, held, and the store, opened when first needed (an
/// append or a capture never needs it: opening redb costs more than the
/// append). Dropping it releases the lock.
pub struct Session<'h> {
    hipo: &'h Hipo,
    store: std::sync::OnceLock<(Store, Option<String>)>,
    _lock: ProjectLock,
}

/// A compaction's report, with what the model calls cost when a model
/// was used.
#[derive(Debug, serde::Serialize)]
pub struct Compacted {
    #[serde(flatten)]
    pub report: Report,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub llm: Option<llm::Stats>,
}

/// Where an appended entry landed.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Appended {
    /// The raw log, project-relative.
    pub path: String,
    /// 1-based line of the entry's heading.
    pub line: usize,
    /// Lines appended.
    pub lines: usize,
    /// Set when the trigger counters could not be updated (a state file
    /// hipo cannot read is left as it is); the entry itself was written.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub problem: Option<Problem>,
}

impl<'h> Session<'h> {
    pub(super) fn open(hipo: &'h Hipo, wait: Duration) -> Result<Session<'h>> {
        let lock = ProjectLock::acquire(&hipo.root, wait, hipo.notice())?;
        Ok(Session {
            hipo,
            store: std::sync::OnceLock::new(),
            _lock: lock,
        })
    }

    /// The lock if it is free now: no wait and no notice, for a read
    /// that answers without it when another process holds it.
    pub(super) fn open_now(hipo: &'h Hipo) -> Result<Session<'h>> {
        let lock = ProjectLock::acquire(&hipo.root, Duration::ZERO, || {})?;
        Ok(Session {
            hipo,
            store: std::sync::OnceLock::new(),
            _lock: lock,
        })
    }

    /// The project root.
    pub fn root(&self) -> &Path {
        &self.hipo.root
    }

    /// The project's config.
    pub fn config(&self) -> &Config {
        &self.hipo.config
    }

    /// The store, opened on first use (rebuilt with a warning when it
    /// cannot be read).
    pub(crate) fn store(&self) -> Result<&Store> {
        Ok(&self.opened()?.0)
    }

    pub(super) fn opened(&self) -> Result<&(Store, Option<String>)> {
        if let Some(s) = self.store.get() {
            return Ok(s);
        }
        let opened = Store::open(self.root())?;
        Ok(self.store.get_or_init(|| opened))
    }

    /// Opens the store; set when it could not be read and was rebuilt.
    pub fn store_warning(&self) -> Result<Option<&str>> {
        Ok(self.opened()?.1.as_deref())
    }

    /// [`Session::store_warning`] if this session opened the store, without
    /// opening it: a compaction answered from its settled record reads the
    /// store read only, which it could not have done from a store that
    /// needed a rebuild.
    pub fn store_warning_if_opened(&self) -> Option<&str> {
        self.store.get().and_then(|(_, warning)| warning.as_deref())
    }

    /// Brings the tree up to date with the backend `llm` names, then
    /// records the run in `memory/.compaction-state.json` (not for a dry
    /// run). A dry run plans with the model's summarizer too (never
    /// calling it), so nodes a model wrote are planned as `compact` would.
    pub fn compact(
        &self,
        llm: &Settings,
        progress: &dyn Progress,
        options: Options,
    ) -> Result<Compacted> {
        if llm.backend == Backend::None {
            let report = self.compact_with(&NoneSummarizer, progress, options)?;
            return Ok(Compacted { report, llm: None });
        }
        let dry_run = options.dry_run;
        // Without the store: enough to ask whether the tree settled (the
        // key names the model), and the store stays closed if it did.
        let probe = OllamaSummarizer::new(llm.clone(), None)?;
        if let Some(report) = self.settled(&probe, &options) {
            return Ok(Compacted {
                report: self.recorded(report, &options),
                llm: Some(probe.stats()),
            });
        }
        let mut summarizer = OllamaSummarizer::new(llm.clone(), Some(self.store()?))?;
        summarizer.resummarize = options.resummarize;
        let report = self.compact_with(&summarizer, progress, options)?;
        Ok(Compacted {
            report,
            llm: (!dry_run).then(|| summarizer.stats()),
        })
    }

    /// [`Session::compact`] with any summarizer (a library user's own, or
    /// a test double).
    pub fn compact_with(
        &self,
        summarizer: &dyn Summarizer,
        progress: &dyn Progress,
        options: Options,
    ) -> Result<Report> {
        let report = match self.settled(summarizer, &options) {
            Some(report) => report,
            None => compact::compact_tree(
                self.root(),
                &self.config().compaction,
                self.store()?,
                summarizer,
                progress,
                options.clone(),
            )?,
        };
        Ok(self.recorded(report, &options))
    }

    /// The report of a run on a tree that has not moved since a run found
    /// nothing to do ([`compact::settled`]). Asked before the store is
    /// opened for writing; a session that already opened it plans in full.
    fn settled(&self, summarizer: &dyn Summarizer, options: &Options) -> Option<Report> {
        if self.store.get().is_some() {
            return None;
        }
        compact::settled::answer(self.root(), &self.config().compaction, summarizer, options)
    }

    /// The run recorded in `memory/.compaction-state.json` (not for a dry
    /// run); a failure to write it is one of the report's problems.
    fn recorded(&self, mut report: Report, options: &Options) -> Report {
        if !options.dry_run {
            let now = clock_on(options.today);
            report.problems.extend(self.record_compaction_run(now));
        }
        report
    }

    /// Fills `needs-summarization` nodes with the model: all of them, or
    /// the node `paths` given (as typed, `./`-prefixed, or absolute
    /// inside the project). A path that is not an existing node is an
    /// error, not a silent plain compaction.
    pub fn summarize(
        &self,
        llm: &Settings,
        paths: &[String],
        progress: &dyn Progress,
        today: NaiveDate,
    ) -> Result<Compacted> {
        if llm.backend == Backend::None {
            return Err(Error::Llm(
                "summarize needs a local model: pass --llm ollama --model NAME, or set llm.backend and llm.model in hipocampus.config.json".into(),
            ));
        }
        let only = if paths.is_empty() {
            None
        } else {
            Some(node_paths(self.root(), paths)?)
        };
        self.compact(
            llm,
            progress,
            Options {
                only,
                ..Options::new(today)
            },
        )
    }

    /// What the tree looks like and whether a compaction is due, planned
    /// as a compaction with `llm` would plan it.
    pub fn status(
        &self,
        llm: &Settings,
        today: NaiveDate,
        now: DateTime<Utc>,
    ) -> Result<StatusReport> {
        let (store, warning) = self.opened()?;
        super::read::status_of(self.hipo, store, warning.clone(), llm, today, now)
    }

    /// Appends a typed entry to the raw log of `today` (created with its
    /// `# YYYY-MM-DD` title if missing) in one write, redacted, and counts
    /// it in hipocampus's triggers. The lock this session holds keeps two
    /// hipo processes from interleaving; the single `O_APPEND` write keeps
    /// an agent platform writing the same file from tearing it.
    pub fn append(&self, entry: &Entry, today: NaiveDate) -> Result<Appended> {
        self.append_counted(entry, today, true)
    }

    /// Appends what is new in an agent's session transcript to today's
    /// raw log, once: each entry carries a watermark, and this session's
    /// lock keeps two captures of one transcript from both reading the old
    /// one. Nothing new appends nothing. A database source reads its one
    /// session, or every session of an OpenClaw database when it names
    /// none: one report per session read.
    pub fn capture(&self, source: &Source, today: NaiveDate) -> Result<Vec<Ingested>> {
        let store = || self.store().ok();
        if source.format == Format::OpenClaw && ingest::openclaw::is_store(&source.path) {
            let session = source.session.as_deref();
            let found =
                ingest::openclaw::read_new_store(self.root(), &store, &source.path, session)?;
            return found
                .iter()
                .map(|capture| self.write_capture(capture, today))
                .collect();
        }
        let capture = ingest::read_new(
            self.root(),
            &store,
            source.format,
            &source.path,
            source.session.as_deref(),
        )?;
        Ok(vec![self.write_capture(&capture, today)?])
    }

    /// Appends a capture's entry, or, where an earlier capture of the same
    /// messages was killed in the middle of its write, what that one did
    /// not write ([`ingest::torn`]).
    fn write_capture(&self, capture: &ingest::Capture, today: NaiveDate) -> Result<Ingested> {
        self.remove_stale_temps();
        let mut report = capture.report();
        let Some(entry) = capture.entry(0) else {
            return Ok(report);
        };
        let text = entry.render()?;
        let rel = crate::tree::raw_path(today);
        let written = match ingest::torn::plan(&self.root().join(&rel), &text)? {
            ingest::torn::Plan::Fresh => journal::append_rendered(self.root(), &text, today)?,
            ingest::torn::Plan::Finish { held, line } => {
                journal::finish(self.root(), &rel, line, &text.as_bytes()[held..])?
            }
            ingest::torn::Plan::Skip { messages } => {
                report.messages -= messages.min(report.messages);
                let rest = capture.entry(messages).map(|e| e.render()).transpose()?;
                journal::append_rendered(self.root(), &rest.unwrap_or_default(), today)?
            }
        };
        let appended = self.counted(written, false);
        report.at = Some(format!("{}:{}", appended.path, appended.line));
        report.lines = appended.lines;
        Ok(report)
    }

    /// Appends `entry` and counts its lines (and, for an agent's own
    /// checkpoint, the checkpoint) in hipocampus's triggers.
    fn append_counted(
        &self,
        entry: &Entry,
        today: NaiveDate,
        checkpoint: bool,
    ) -> Result<Appended> {
        self.remove_stale_temps();
        let written = journal::append(self.root(), entry, today)?;
        Ok(self.counted(written, checkpoint))
    }

    /// The temp files a capture or checkpoint killed while saving the
    /// counters left go at the next one, not at the next compaction.
    fn remove_stale_temps(&self) {
        crate::fsutil::remove_stale_temps(&self.root().join(crate::layout::MEMORY_DIR));
    }

    /// What was written, counted in hipocampus's triggers (and, for an
    /// agent's own checkpoint, the checkpoint).
    fn counted(&self, written: journal::Written, checkpoint: bool) -> Appended {
        let problem = match project::load_state(self.root()) {
            Ok(mut state) => {
                state.raw_lines_since_last_compaction += written.lines as u64;
                state.checkpoints_since_last_compaction += u64::from(checkpoint);
                state.save(self.root()).err().map(|e| problem_of_state(&e))
            }
            Err(problem) => Some(problem),
        };
        Appended {
            path: written.path,
            line: written.line,
            lines: written.lines,
            problem,
        }
    }

    /// Records a finished compaction in `memory/.compaction-state.json`:
    /// the time, and the counters back to 0. A state file hipo cannot
    /// read is returned as a problem and left as it is: rewriting it from
    /// defaults would lose what other tools keep there.
    pub(crate) fn record_compaction_run(&self, now: DateTime<Utc>) -> Option<Problem> {
        let mut state: CompactionState = match project::load_state(self.root()) {
            Ok(state) => state,
            Err(problem) => return Some(problem),
        };
        state.last_compaction_run = Some(now.to_rfc3339_opts(chrono::SecondsFormat::Secs, true));
        state.raw_lines_since_last_compaction = 0;
        state.checkpoints_since_last_compaction = 0;
        state.save(self.root()).err().map(|e| problem_of_state(&e))
    }
}

/// The time now, moved to `today` if that is not the local date (`--today`,
/// `HIPO_TODAY`): the time of day stays, so `lastCompactionRun` and the
/// cooldown agree with the date the run was told it is.
pub fn clock_on(today: NaiveDate) -> DateTime<Utc> {
    let now = Utc::now();
    let local = chrono::Local::now().date_naive();
    now + chrono::Duration::days((today - local).num_days())
}

fn problem_of_state(e: &Error) -> Problem {
    Problem {
        path: crate::layout::STATE_FILE.into(),
        line: None,
        message: format!("cannot write: {e}"),
    }
}

/// The project-relative paths of the nodes `summarize` was given.
fn node_paths(root: &Path, paths: &[String]) -> Result<Vec<String>> {
    const SHAPE: &str = "a node path looks like memory/daily/2026-03-15.md, memory/weekly/2026-W11.md or memory/monthly/2026-03.md";
    paths
        .iter()
        .map(|p| {
            let rel = match Path::new(p).strip_prefix(root) {
                Ok(inside) => inside.to_string_lossy().into_owned(),
                Err(_) => p.trim_start_matches("./").to_string(),
            };
            match crate::layout::classify(&rel) {
                Ok(PathKind::Node(id)) if root.join(&rel).is_file() => Ok(id.path()),
                Ok(PathKind::Node(_)) => Err(Error::Usage(format!(
                    "{p} does not exist; run `hipo compact` first, or pass an existing node (`hipo status` lists those waiting for a summary)"
                ))),
                _ => Err(Error::Usage(format!(
                    "{p} is not a node of the summary tree; {SHAPE}"
                ))),
            }
        })
        .collect()
}
