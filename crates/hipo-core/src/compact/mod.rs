//! Brings the compaction tree up to date: raw → daily → weekly → monthly →
//! ROOT, redoing only what changed.
//!
//! Each node's inputs (its sources' paths and current hashes, and the
//! threshold that decides copy versus summary) are hashed; the store keeps
//! that input hash and the hash of the bytes hipo wrote. A node is rebuilt
//! when its input hash changed, its file is missing, its status must move
//! on, or a pending summary can now be written. A node whose file no longer
//! matches what hipo wrote was edited by someone else: it is adopted, and
//! only replaced (its old text kept as `.prev`) when its sources change.
//! Levels run in order so a rebuilt child is seen by its parent in the
//! same run. Deleting the store and running again converges to the same
//! bytes, because every written byte is a function of the Markdown alone.
//!
//! Per node the stages are: `inputs` (what it is built from), `plan` (a
//! pure decision on plain values), `draft` (a copy, or a request for a
//! summary, sent a level at a time), `apply` (every write, through a `Sink`
//! that a dry run swaps for one writing nothing) and `record` (store
//! record, state for the parent, report action). ROOT is its own step
//! (`root`).

mod apply;
mod draft;
mod inputs;
mod plan;
mod record;
mod root;
pub(crate) mod settled;
mod since;

pub use inputs::content_hash;
pub(crate) use inputs::short_hash;

use crate::config::CompactionConfig;
use crate::error::{Problem, Result};
use crate::layout::{Level, NodeId, PathKind};
use crate::markdown::Status;
use crate::progress::Progress;
use crate::scan::Scan;
use crate::store::{NodeRecord, Store};
use crate::summarize::{Summarizer, Writer};
use crate::tree::Tree;
use apply::{Disk, DryRun, Sink};
use chrono::NaiveDate;
use inputs::Texts;
use plan::{Plan, Policy};
use record::Ledger;
use serde::Serialize;
use std::collections::{BTreeSet, HashSet};
use std::path::Path;

/// How to run a compaction.
#[derive(Debug, Clone)]
pub struct Options {
    /// The date that decides tentative versus fixed.
    pub today: NaiveDate,
    /// Plan only: write nothing, call no model.
    pub dry_run: bool,
    /// Re-summarise nodes a different model or prompt version wrote.
    pub resummarize: bool,
    /// Retry pending summaries only for these node paths (all when `None`).
    pub only: Option<Vec<String>>,
}

impl Options {
    /// Plain options for `today`.
    pub fn new(today: NaiveDate) -> Options {
        Options {
            today,
            dry_run: false,
            resummarize: false,
            only: None,
        }
    }
}

/// Why a node was (or would be) written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Reason {
    /// The node did not exist.
    New,
    /// A source changed since the node was written.
    SourceChanged,
    /// The node's file was deleted.
    Missing,
    /// Its status moves on (tentative → fixed).
    StatusChange,
    /// It still needs a summary and a summarizer is now available.
    Retry,
    /// Someone else wrote it; hipo takes it as the node's content.
    Adopted,
    /// The store had no record of it (first run, or `.hipo/` deleted).
    Unrecorded,
    /// Someone edited what hipo writes; hipo rewrote it and kept the edit
    /// as `.prev`.
    Replaced,
}

impl Reason {
    /// Short human description.
    pub fn describe(self) -> &'static str {
        match self {
            Reason::New => "new",
            Reason::SourceChanged => "source changed",
            Reason::Missing => "file was missing",
            Reason::StatusChange => "status change",
            Reason::Retry => "retry summary",
            Reason::Adopted => "adopted edit",
            Reason::Unrecorded => "not in store",
            Reason::Replaced => "edit replaced",
        }
    }
}

/// One node hipo wrote, or would write in a dry run.
#[derive(Debug, Clone, Serialize)]
pub struct Action {
    pub path: String,
    pub level: Level,
    pub reason: Reason,
    /// Status after the action.
    pub status: Status,
    /// True when the file's bytes changed (or would change).
    pub written: bool,
    /// Where the replaced text someone else wrote was kept.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub prev: Option<String>,
}

/// A node the summarizer could not write.
#[derive(Debug, Clone, Serialize)]
pub struct SummaryFailure {
    pub path: String,
    pub reason: String,
    pub hint: String,
}

/// One node of the finished tree.
#[derive(Debug, Clone, Serialize)]
pub struct NodeInfo {
    pub path: String,
    pub level: Level,
    pub status: Status,
    /// Body lines.
    pub lines: usize,
    /// Lines of its ready sources (what a summary must cover).
    pub source_lines: usize,
    /// Children still waiting for a summary.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub pending: Vec<String>,
}

/// What a compaction did.
#[derive(Debug, Default, Serialize)]
pub struct Report {
    pub today: String,
    pub dry_run: bool,
    pub actions: Vec<Action>,
    pub nodes: Vec<NodeInfo>,
    pub problems: Vec<Problem>,
    pub summary_failures: Vec<SummaryFailure>,
    pub warnings: Vec<String>,
}

impl Report {
    /// Nodes whose bytes changed.
    pub fn written(&self) -> usize {
        self.actions.iter().filter(|a| a.written).count()
    }
}

/// Runs one compaction. The caller holds the project lock.
pub fn compact(
    root: &Path,
    config: &CompactionConfig,
    store: &Store,
    scan: Scan,
    summarizer: &dyn Summarizer,
    progress: &dyn Progress,
    options: Options,
) -> Result<Report> {
    let backend = Backend {
        summarizer,
        progress,
    };
    let (report, _) = compact_planned(root, config, store, backend, options, Start::full(scan))?;
    Ok(report)
}

/// What a run starts from: the tree as scanned, and how much of it is
/// planned.
pub(crate) struct Start {
    scan: Scan,
    /// Set when only what changed since a settled record is planned.
    partial: Option<since::Partial>,
    /// Keep the file records the run commits ([`Committed`]).
    track: bool,
}

impl Start {
    /// Every node planned, nothing kept.
    pub(crate) fn full(scan: Scan) -> Self {
        Start {
            scan,
            partial: None,
            track: false,
        }
    }
}

/// The file records a run committed, in order.
pub(crate) type Committed = Vec<(String, Option<crate::store::FileRecord>)>;

/// [`compact`] from `start`, on the disk or (a dry run) on nothing.
fn compact_planned(
    root: &Path,
    config: &CompactionConfig,
    store: &Store,
    backend: Backend<'_>,
    options: Options,
    start: Start,
) -> Result<(Report, Committed)> {
    let (mut disk, mut dry) = (Disk::new(root), DryRun::default());
    let sink: &mut dyn Sink = if options.dry_run { &mut dry } else { &mut disk };
    compact_into(sink, root, config, store, backend, options, start)
}

/// Runs one compaction on the tree as it is on disk, planned in full, and
/// leaves or forgets the record [`settled::answer`] reads (see
/// [`settled`]). The caller holds the project lock.
pub fn compact_tree(
    root: &Path,
    config: &CompactionConfig,
    store: &Store,
    summarizer: &dyn Summarizer,
    progress: &dyn Progress,
    options: Options,
) -> Result<Report> {
    let key = settled::key(config, &options, summarizer);
    let dry_run = options.dry_run;
    // Unsorted, as the walk found the files: their records are written in
    // that order, and redb, given a year's records in path order, left the
    // store twice its size after the next run rewrote them.
    let listing = crate::scan::Listing::roots(root);
    let known = store.files_in_order()?;
    let scan = listing.scan_sorted(root, &known);
    // A run with no key (a dry run, a retry of some nodes) neither starts
    // from a record nor leaves one.
    let mut files = key.map(|_| since::Files::new(&known));
    let partial = match (&key, &files) {
        (Some(key), Some(files)) => settled::since(store, key, files.digest(), &scan)?,
        _ => None,
    };
    let backend = Backend {
        summarizer,
        progress,
    };
    // Named for `HIPO_TIMINGS=1` (and the tests that tell the two apart).
    let span = crate::timing::span(match partial {
        Some(_) => "compact: incremental plan",
        None => "compact: full plan",
    });
    let start = Start {
        scan,
        partial,
        track: files.is_some(),
    };
    let (report, committed) = compact_planned(root, config, store, backend, options, start)?;
    drop(span);
    match &mut files {
        Some(files) => {
            files.fold(&committed);
            settled::remember(store, root, key, files, &listing, &report, summarizer)?;
        }
        // `--resummarize` or `summarize PATH` asked for work: the record
        // is forgotten (a dry run wrote nothing, so it stands).
        None if !dry_run => settled::forget(store)?,
        None => {}
    }
    Ok(report)
}

/// Who summarises, and where it reports progress.
pub(crate) struct Backend<'a> {
    summarizer: &'a dyn Summarizer,
    progress: &'a dyn Progress,
}

/// [`compact`] writing through `sink`: the seam where a test can make any
/// write fail, or a dry run make every write vanish.
pub(crate) fn compact_into<'a>(
    sink: &'a mut dyn Sink,
    root: &Path,
    config: &CompactionConfig,
    store: &'a Store,
    backend: Backend<'_>,
    options: Options,
    start: Start,
) -> Result<(Report, Committed)> {
    let Start {
        mut scan,
        partial,
        track,
    } = start;
    // The caller holds the lock: no other hipo is mid-write.
    for rel in &scan.stale_temp {
        sink.remove(rel);
    }
    let mut ledger = Ledger::new(store.node_records());
    ledger.partial = partial.is_some();
    ledger.batch.files = std::mem::take(&mut scan.updates);
    let report = Report {
        today: options.today.to_string(),
        dry_run: options.dry_run,
        problems: std::mem::take(&mut scan.problems),
        ..Default::default()
    };
    let mut run = Run {
        root,
        config,
        writer: backend.summarizer.writer(),
        calls_model: backend.summarizer.is_active() && !options.dry_run,
        backend,
        options,
        sink,
        unusable: report.problems.iter().map(|p| p.path.clone()).collect(),
        texts: Texts::default(),
        ledger,
        report,
        scan,
        partial,
        committed: track.then(Vec::new),
    };
    let tree = run.tree();
    if tree.days.is_empty() {
        run.report.warnings.push(format!(
            "no raw logs in {}/memory/ (files named YYYY-MM-DD.md); only ROOT.md was built",
            root.display()
        ));
    }
    for level in [Level::Daily, Level::Weekly, Level::Monthly] {
        run.level(&tree, level)?;
        // A partial run that plans a handful of nodes commits its levels
        // with ROOT's, once, as each commit syncs the store to disk. Any
        // other commits a level at a time: that bounds its batch, and
        // redb reuses the pages a commit frees only once no reader older
        // than it is open (`NodeRecords::release`).
        if !run.partial.as_ref().is_some_and(since::Partial::is_small) {
            run.commit(store)?;
        }
    }
    run.root_node(&tree)?;
    run.commit(store)?;
    let notices = run.backend.summarizer.notices();
    run.report.warnings.extend(notices);
    let committed = run.committed.take().unwrap_or_default();
    Ok((run.finish(&tree), committed))
}

/// One compaction in progress.
pub(crate) struct Run<'a> {
    root: &'a Path,
    config: &'a CompactionConfig,
    options: Options,
    backend: Backend<'a>,
    /// What this run records as the writer of a summary: the configured
    /// backend, whether or not it is called.
    writer: Writer,
    /// A model is called this run: an active backend and not a dry run.
    /// The one place a dry run changes what is decided rather than written.
    calls_model: bool,
    sink: &'a mut dyn Sink,
    scan: Scan,
    /// Every file read or written this run, so none is read twice and a
    /// parent sees its children as built (in a dry run too).
    texts: Texts,
    /// Files that exist but could not be read (bad UTF-8, unreadable): a
    /// node among them is left untouched, never rebuilt over.
    unusable: HashSet<String>,
    ledger: Ledger<'a>,
    report: Report,
    /// Set when only what changed since a settled record is planned
    /// ([`since`]).
    partial: Option<since::Partial>,
    /// The file records committed so far, when the caller follows them.
    committed: Option<Committed>,
}

impl Run<'_> {
    fn tree(&self) -> Tree {
        let days: BTreeSet<NaiveDate> = self
            .scan
            .files
            .values()
            .filter_map(|f| match f.kind {
                PathKind::Raw(d) | PathKind::Node(NodeId::Daily(d)) => Some(d),
                _ => None,
            })
            .collect();
        Tree::new(days)
    }

    fn threshold(&self, level: Level) -> usize {
        match level {
            Level::Daily => self.config.daily_threshold,
            Level::Weekly => self.config.weekly_threshold,
            Level::Monthly => self.config.monthly_threshold,
            Level::Root => self.config.root_max_tokens,
        }
    }

    fn commit(&mut self, store: &Store) -> Result<()> {
        self.ledger.records.release();
        if let Some(committed) = &mut self.committed {
            // The first commit that changes the store forgets the settled
            // record with it: the next record is committed unsynced
            // (`settled::remember`), and a kill that loses it must leave
            // no older record vouching for a store this run changed.
            if committed.is_empty() && !self.ledger.batch.is_empty() {
                self.ledger.batch.meta.extend(settled::forgotten());
            }
            committed.extend(self.ledger.batch.files.iter().cloned());
        }
        self.sink
            .commit(store, std::mem::take(&mut self.ledger.batch))
    }

    /// What [`plan::plan`] is told about everything a run decides alike.
    fn policy(&self) -> Policy<'_> {
        Policy {
            today: self.options.today,
            calls_model: self.calls_model,
            resummarize: self.options.resummarize,
            only: self.options.only.as_deref(),
            writer: &self.writer,
            shared: self.config.shared,
        }
    }

    /// Plans, drafts and writes one level; its summaries go out as a batch.
    fn level(&mut self, tree: &Tree, level: Level) -> Result<()> {
        let mut drafts = Vec::new();
        let threshold = self.threshold(level);
        for id in tree.level(level) {
            if !self.plans(id) {
                continue;
            }
            self.load_children(tree, id)?;
            let inputs = inputs::gather(tree, id, threshold, &self.ledger.states, &self.scan);
            let record = self.ledger.records.get(&id.path())?;
            match self.plan(id, &inputs, record.as_ref()) {
                Plan::Skip | Plan::Keep => self.ledger.keep_as(id, record),
                Plan::Adopt { reason, own } => self.adopt(id, &inputs, reason, own)?,
                Plan::Build(build) => {
                    match self.draft(id, inputs, build.reason, build.keep_prev)? {
                        // A hipocampus summary that still covers its sources is
                        // adopted rather than replaced by a stub.
                        Ok(d) if build.covered(d.source_lines, threshold) => {
                            self.adopt(id, &d.inputs, None, false)?
                        }
                        Ok(d) => drafts.push(d),
                        Err(p) => self.held_back(id, p)?,
                    }
                }
            }
        }
        self.summarize_and_write(drafts)
    }

    /// Whether this run plans `id` (a partial run plans only the nodes
    /// its changes reach).
    fn plans(&self, id: NodeId) -> bool {
        self.partial.as_ref().is_none_or(|p| p.dirty.contains(id))
    }

    /// In a partial run, the states of `id`'s children that are not
    /// planned, as their records say (a full run has planned them all).
    fn load_children(&mut self, tree: &Tree, id: NodeId) -> Result<()> {
        if self.partial.is_none() {
            return Ok(());
        }
        for child in tree.children(id) {
            if !self.plans(child) && !self.ledger.states.contains_key(&child.path()) {
                self.ledger.keep(child)?;
            }
        }
        Ok(())
    }

    /// Reads what the plan needs (the node's frontmatter, only when the
    /// store has no record of it, or on a shared project when the file is
    /// not what the store recorded) and plans.
    fn plan(&mut self, id: NodeId, inputs: &inputs::Inputs, record: Option<&NodeRecord>) -> Plan {
        let path = id.path();
        let on_disk = self.scan.hash(&path);
        let front = match (record, on_disk) {
            (None, Some(_)) => self.texts.front(self.root, &path),
            (Some(r), Some(d)) if self.config.shared && r.written_hash != d => {
                self.texts.front(self.root, &path)
            }
            _ => None,
        };
        let node = plan::Node {
            id,
            inputs,
            on_disk,
            record,
            front: front.as_ref(),
            unusable: self.unusable.contains(&path),
        };
        plan::plan(&node, &self.policy())
    }

    /// A source that cannot be read holds its parent back: say which, so
    /// "up to date" is never claimed for it. The node keeps its last known
    /// state, so its parent neither loses it nor treats it as new.
    fn held_back(&mut self, id: NodeId, problem: Problem) -> Result<()> {
        let held = Problem {
            path: id.path(),
            line: None,
            message: format!(
                "not rebuilt: its source {} cannot be read; fix that file and run `hipo compact` again",
                problem.path
            ),
        };
        self.report.problems.push(problem);
        self.ledger.keep(id)?;
        self.report.problems.push(held);
        Ok(())
    }

    fn finish(mut self, tree: &Tree) -> Report {
        for level in [Level::Daily, Level::Weekly, Level::Monthly, Level::Root] {
            for id in tree.level(level) {
                let path = id.path();
                if let Some(s) = self.ledger.states.get(&path) {
                    self.report.nodes.push(NodeInfo {
                        path,
                        level,
                        status: s.status,
                        lines: s.body_lines,
                        source_lines: s.source_lines,
                        pending: s.pending.clone(),
                    });
                } else if let Some(p) = &mut self.partial
                    && !p.dirty.contains(id)
                    && let Some(node) = p.remembered.take(level, &path)
                {
                    // Not planned: as the run the record is from left it.
                    self.report.nodes.push(node);
                }
            }
        }
        self.report.actions = std::mem::take(&mut self.ledger.actions);
        self.report.problems.sort_by(|a, b| a.path.cmp(&b.path));
        self.report.problems.dedup();
        self.report
    }
}
