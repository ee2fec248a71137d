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

use crate::config::CompactionConfig;
use crate::error::{Error, Problem, Result};
use crate::fsutil::{read_utf8, write_atomic};
use crate::layout::{Level, NodeId, PathKind};
use crate::markdown::{self, Frontmatter, Status, Topic};
use crate::redact::redact;
use crate::root::{self, RootInput};
use crate::scan::Scan;
use crate::store::{Batch, FileRecord, Hash, NodeRecord, Store};
use crate::summarize::{Progress, SourceText, Summarizer, SummaryError, SummaryRequest, Writer};
use crate::tree::{self, Tree};
use chrono::NaiveDate;
use serde::Serialize;
use std::collections::{BTreeSet, HashMap, HashSet};
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

/// What the tree knows of a node after this run.
#[derive(Debug, Clone)]
struct NodeState {
    /// [`content_hash`] of the node's text.
    content: Hash,
    status: Status,
    topics: Vec<Topic>,
    body_lines: usize,
    source_lines: usize,
    pending: Vec<String>,
}

/// What a node file's frontmatter says about its origin.
struct Provenance {
    /// Its body is what hipo wrote (`body-hash` matches).
    own: bool,
    /// It was built from the inputs there are now (`source-hash` matches).
    sources_match: bool,
    /// It is a summary (of a model or an agent), not a copy or a stub.
    summary: bool,
}

/// The decision for one node.
enum Plan {
    Keep,
    /// Keep the file's text; `own` when it is hipo's own (a model's summary
    /// recognised by its `body-hash` after the store was lost).
    Adopt {
        reason: Option<Reason>,
        own: bool,
    },
    Build {
        reason: Reason,
        keep_prev: bool,
    },
}

/// A node's inputs this run.
struct Inputs {
    hash: Hash,
    sources: Vec<String>,
    ready: Vec<String>,
    pending: Vec<String>,
    child_statuses: Vec<Status>,
}

/// A node whose content is decided except for a summary.
struct Draft {
    id: NodeId,
    reason: Reason,
    keep_prev: bool,
    inputs: Inputs,
    topics: Vec<Topic>,
    source_lines: usize,
    body: DraftBody,
}

enum DraftBody {
    Ready(String),
    NeedsSummary(SummaryRequest),
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
    let records = store.nodes()?;
    let (today, dry_run) = (options.today, options.dry_run);
    if !dry_run {
        // The caller holds the lock: no other hipo is mid-write.
        for rel in &scan.stale_temp {
            let _ = std::fs::remove_file(root.join(rel));
        }
    }
    let mut run = Run {
        root,
        config,
        options,
        summarizer,
        progress,
        records,
        states: HashMap::new(),
        built: HashMap::new(),
        unusable: HashSet::new(),
        batch: Batch::default(),
        report: Report {
            today: today.to_string(),
            dry_run,
            ..Default::default()
        },
        scan,
    };
    run.report.problems = std::mem::take(&mut run.scan.problems);
    run.unusable = run.report.problems.iter().map(|p| p.path.clone()).collect();
    if !dry_run {
        run.batch.files = std::mem::take(&mut run.scan.updates);
    }
    let tree = run.tree();
    if tree.days.is_empty() {
        run.report.warnings.push(format!(
            "no raw logs in {}/memory/ (files named YYYY-MM-DD.md); only ROOT.md was built",
            root.display()
        ));
    }
    for level in [Level::Daily, Level::Weekly, Level::Monthly] {
        run.level(&tree, level)?;
        run.commit(store)?;
    }
    run.root_node(&tree)?;
    run.commit(store)?;
    run.finish(&tree);
    Ok(run.report)
}

struct Run<'a> {
    root: &'a Path,
    config: &'a CompactionConfig,
    options: Options,
    summarizer: &'a dyn Summarizer,
    progress: &'a dyn Progress,
    scan: Scan,
    records: HashMap<String, NodeRecord>,
    states: HashMap<String, NodeState>,
    /// Text of nodes built this run, so parents (and dry runs) need not
    /// read them back from disk.
    built: HashMap<String, String>,
    /// Files that exist but could not be read (bad UTF-8, unreadable): a
    /// node among them is left untouched, never rebuilt over.
    unusable: HashSet<String>,
    batch: Batch,
    report: Report,
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
        if self.options.dry_run {
            return Ok(());
        }
        store.commit(&std::mem::take(&mut self.batch))
    }

    fn inputs(&self, tree: &Tree, id: NodeId) -> Inputs {
        let mut hasher = blake3::Hasher::new();
        hasher.update(b"hipo-node-v2\0");
        hasher.update(id.level().as_str().as_bytes());
        hasher.update(&(self.threshold(id.level()) as u64).to_le_bytes());
        let sources: Vec<String> = match id {
            NodeId::Daily(d) => {
                let raw = tree::raw_path(d);
                if self.scan.files.contains_key(&raw) {
                    vec![raw]
                } else {
                    Vec::new()
                }
            }
            _ => tree
                .children(id)
                .into_iter()
                .map(NodeId::path)
                .filter(|p| self.states.contains_key(p))
                .collect(),
        };
        let (mut ready, mut pending, mut child_statuses) = (Vec::new(), Vec::new(), Vec::new());
        for src in &sources {
            hasher.update(src.as_bytes());
            // A child node counts by its content and whether it waits for a
            // summary, not by its status line; a raw log by its bytes.
            match self.states.get(src) {
                Some(s) => {
                    hasher.update(&s.content);
                    hasher.update(&[u8::from(s.status == Status::NeedsSummarization)]);
                }
                None => {
                    hasher.update(&self.scan.hash(src).unwrap_or_default());
                }
            }
            match self.states.get(src) {
                Some(s) if s.status == Status::NeedsSummarization => pending.push(src.clone()),
                Some(s) => {
                    child_statuses.push(s.status);
                    ready.push(src.clone());
                }
                None => ready.push(src.clone()),
            }
        }
        Inputs {
            hash: *hasher.finalize().as_bytes(),
            sources,
            ready,
            pending,
            child_statuses,
        }
    }

    fn plan(&self, id: NodeId, inputs: &Inputs) -> Plan {
        let path = id.path();
        let on_disk = self.scan.hash(&path);
        let Some(rec) = self.records.get(&path) else {
            return self.plan_unrecorded(id, inputs, on_disk.is_some());
        };
        if inputs.sources.is_empty() && on_disk.is_some() {
            return Plan::Adopt {
                reason: None,
                own: false,
            };
        }
        let Some(disk) = on_disk else {
            return Plan::Build {
                reason: Reason::Missing,
                keep_prev: false,
            };
        };
        let sources_changed = rec.input_hash != inputs.hash;
        if disk != rec.written_hash {
            return if sources_changed {
                Plan::Build {
                    reason: Reason::SourceChanged,
                    keep_prev: true,
                }
            } else {
                Plan::Adopt {
                    reason: Some(Reason::Adopted),
                    own: false,
                }
            };
        }
        if sources_changed {
            return Plan::Build {
                reason: Reason::SourceChanged,
                keep_prev: rec.adopted,
            };
        }
        if rec.adopted {
            return Plan::Adopt {
                reason: None,
                own: false,
            };
        }
        let may_retry = self.summarizer.is_active()
            && !self.options.dry_run
            && self
                .options
                .only
                .as_ref()
                .is_none_or(|only| only.contains(&path));
        let other_writer = matches!(Writer::parse(&rec.summarizer),
            Some(w @ Writer::Model { .. }) if w != self.summarizer.writer());
        if may_retry && self.options.resummarize && other_writer {
            return Plan::Build {
                reason: Reason::Retry,
                keep_prev: false,
            };
        }
        if rec.status == Status::NeedsSummarization && may_retry {
            return Plan::Build {
                reason: Reason::Retry,
                keep_prev: false,
            };
        }
        let want = tree::desired_status(
            id,
            self.options.today,
            rec.status == Status::NeedsSummarization,
            &inputs.child_statuses,
            inputs.pending.len(),
        );
        if want != rec.status {
            return Plan::Build {
                reason: Reason::StatusChange,
                keep_prev: false,
            };
        }
        Plan::Keep
    }

    /// A node the store knows nothing of (`.hipo/` deleted, or a hipocampus
    /// tree): what its file says about itself decides. With `source-hash`
    /// and `body-hash` in its frontmatter, hipo knows whether it wrote the
    /// text and whether the sources moved on since; without them, the file
    /// is rebuilt, its text kept as `.prev` if it differs, except that a
    /// summary covering as many source lines as there are now is adopted.
    fn plan_unrecorded(&self, id: NodeId, inputs: &Inputs, exists: bool) -> Plan {
        let build = |reason, keep_prev| Plan::Build { reason, keep_prev };
        if !exists {
            return build(Reason::New, false);
        }
        if inputs.sources.is_empty() {
            // A daily whose raw log is gone can only be kept as it is.
            return Plan::Adopt {
                reason: None,
                own: false,
            };
        }
        match self.provenance(id, &inputs.hash) {
            None => build(Reason::Unrecorded, true),
            Some(p) if !p.sources_match => build(Reason::SourceChanged, !p.own),
            Some(p) if !p.own => Plan::Adopt {
                reason: None,
                own: false,
            },
            Some(p) if p.summary => Plan::Adopt {
                reason: None,
                own: true,
            },
            Some(_) => build(Reason::Unrecorded, false),
        }
    }

    /// Reads a node file's own record of where it came from.
    fn provenance(&self, id: NodeId, inputs_hash: &Hash) -> Option<Provenance> {
        let (fm, body_hash) = self.frontmatter_on_disk(id)?;
        let summary = fm.source_lines.is_some() && summarised(&fm);
        Some(Provenance {
            own: fm.body_hash? == body_hash,
            sources_match: fm.source_hash? == short_hex(inputs_hash),
            summary,
        })
    }

    /// A node file's frontmatter and the [`short_hash`] of its body.
    fn frontmatter_on_disk(&self, id: NodeId) -> Option<(Frontmatter, String)> {
        let text = read_utf8(self.root, &id.path()).ok()?;
        let doc = markdown::parse_document(&text).ok()?;
        Some((doc.frontmatter?, short_hash(doc.body.as_bytes())))
    }

    fn level(&mut self, tree: &Tree, level: Level) -> Result<()> {
        let mut drafts = Vec::new();
        for id in tree.level(level) {
            if self.unusable.contains(&id.path()) {
                // Reported by the scan; what someone wrote there stays.
                self.keep(id);
                continue;
            }
            let inputs = self.inputs(tree, id);
            match self.plan(id, &inputs) {
                Plan::Keep => self.keep(id),
                Plan::Adopt { reason, own } => self.adopt(id, &inputs, reason, own)?,
                Plan::Build { reason, keep_prev } => {
                    match self.draft(id, inputs, reason, keep_prev) {
                        // With no record and no provenance (a hipocampus tree), a
                        // node that needs a summary and has one that covers as many
                        // source lines as there are now is adopted.
                        Ok(d)
                            if reason == Reason::Unrecorded
                                && matches!(d.body, DraftBody::NeedsSummary(_))
                                && self.summary_on_disk(id).is_some_and(|lines| {
                                    lines.is_none_or(|n| n == d.source_lines)
                                }) =>
                        {
                            self.adopt(id, &d.inputs, None, false)?
                        }
                        Ok(d) => drafts.push(d),
                        Err(p) => {
                            // A source that cannot be read holds its parent back:
                            // say which, so "up to date" is never claimed for it.
                            let held = Problem {
                                path: id.path(),
                                line: None,
                                message: format!(
                                    "not rebuilt: its source {} cannot be read; fix that file and run `hipo compact` again",
                                    p.path
                                ),
                            };
                            self.skip(id, p);
                            self.report.problems.push(held);
                        }
                    }
                }
            }
        }
        self.summarize_and_write(drafts)
    }

    /// `Some` when the node's file carries a status other than
    /// `needs-summarization` (someone already summarised it), with the
    /// source lines its frontmatter says the summary covers.
    fn summary_on_disk(&self, id: NodeId) -> Option<Option<usize>> {
        let (fm, _) = self.frontmatter_on_disk(id)?;
        summarised(&fm).then_some(fm.source_lines)
    }

    fn keep(&mut self, id: NodeId) {
        let path = id.path();
        if let Some(rec) = self.records.get(&path) {
            let state = NodeState {
                content: rec.content_hash,
                status: rec.status,
                topics: rec.topics.clone(),
                body_lines: rec.body_lines,
                source_lines: rec.source_lines,
                pending: rec.pending.clone(),
            };
            self.states.insert(path, state);
        }
    }

    /// A node that cannot be built this run keeps its last known state, so
    /// its parent neither loses it nor treats it as new.
    fn skip(&mut self, id: NodeId, problem: Problem) {
        self.report.problems.push(problem);
        self.keep(id);
    }

    fn adopt(
        &mut self,
        id: NodeId,
        inputs: &Inputs,
        reason: Option<Reason>,
        own: bool,
    ) -> Result<()> {
        let path = id.path();
        let text = match read_utf8(self.root, &path) {
            Ok(t) => t,
            Err(e) => {
                self.skip(id, problem_of(&path, e));
                return Ok(());
            }
        };
        let doc = match markdown::parse_document(&text) {
            Ok(d) => d,
            Err(e) => {
                self.skip(
                    id,
                    Problem {
                        path: path.clone(),
                        line: Some(e.line),
                        message: e.message,
                    },
                );
                return Ok(());
            }
        };
        let fm = doc.frontmatter.clone().unwrap_or_default();
        let want = tree::desired_status(
            id,
            self.options.today,
            false,
            &inputs.child_statuses,
            inputs.pending.len(),
        );
        // A file without a status (its frontmatter was dropped) is judged
        // by its period and sources, as hipo would judge its own node, so
        // it does not hold its parents tentative for ever.
        let declared = fm.parsed_status().ok().flatten();
        let status = declared.unwrap_or(want);
        let mut topics: Vec<Topic> = fm.topics.iter().filter_map(|t| Topic::parse(t)).collect();
        if topics.is_empty() {
            topics = self.topics_of_sources(id, inputs);
            if reason.is_some() {
                self.report.warnings.push(format!(
                    "{path} has no `topics:` in its frontmatter; hipo took its topics from its sources (keep the frontmatter when you edit a node)"
                ));
            }
        }
        let body_lines = markdown::line_count(doc.body);
        let source_lines = fm.source_lines.unwrap_or(body_lines);
        let mut hash = *blake3::hash(text.as_bytes()).as_bytes();
        let mut new_status = status;
        let mut written = false;
        // Fixed is hipo's to grant: an adopted tentative node whose period
        // and sources are final gets only its `status:` line changed.
        if declared == Some(Status::Tentative)
            && !inputs.sources.is_empty()
            && want == Status::Fixed
            && let Some(updated) = set_status_line(&text, Status::Fixed)
        {
            hash = self.write(&path, &updated)?;
            new_status = Status::Fixed;
            written = true;
        }
        let reason = reason.or(written.then_some(Reason::StatusChange));
        if let Some(reason) = reason {
            self.report.actions.push(Action {
                path: path.clone(),
                level: id.level(),
                reason,
                status: new_status,
                written,
                prev: None,
            });
        }
        let content = content_hash(&text);
        let summarizer = match (own, &fm.model, &fm.prompt_version) {
            (true, Some(model), Some(version)) => Writer::Model {
                model: model.clone(),
                prompt_version: version.clone(),
            },
            _ => Writer::External,
        }
        .to_string();
        let record = NodeRecord {
            input_hash: inputs.hash,
            written_hash: hash,
            content_hash: content,
            adopted: !own,
            status: new_status,
            summarizer,
            body_lines,
            source_lines,
            topics: topics.clone(),
            sources: inputs.sources.clone(),
            pending: inputs.pending.clone(),
        };
        self.batch.nodes.push((path.clone(), Some(record)));
        self.states.insert(
            path,
            NodeState {
                content,
                status: new_status,
                topics,
                body_lines,
                source_lines,
                pending: inputs.pending.clone(),
            },
        );
        Ok(())
    }

    /// The topics a node's sources hold: a daily's raw log entries, or the
    /// children's topics. For a node whose own file does not list them.
    fn topics_of_sources(&self, id: NodeId, inputs: &Inputs) -> Vec<Topic> {
        let mut topics = Vec::new();
        for src in &inputs.sources {
            match self.states.get(src) {
                Some(state) => topics.extend(state.topics.iter().cloned()),
                None if id.level() == Level::Daily => {
                    if let Ok(text) = read_utf8(self.root, src) {
                        topics.extend(markdown::topics_of(&text));
                    }
                }
                None => {}
            }
        }
        dedup(topics)
    }

    /// Reads the sources and decides between a copy and a summary.
    fn draft(
        &self,
        id: NodeId,
        inputs: Inputs,
        reason: Reason,
        keep_prev: bool,
    ) -> std::result::Result<Draft, Problem> {
        let mut sources = Vec::new();
        let mut topics = Vec::new();
        for src in &inputs.ready {
            let text = match self.built.get(src) {
                Some(t) => t.clone(),
                None => read_utf8(self.root, src).map_err(|e| problem_of(src, e))?,
            };
            let doc = markdown::parse_document(&text).map_err(|e| Problem {
                path: src.clone(),
                line: Some(e.line),
                message: e.message,
            })?;
            let body = doc.body.to_string();
            if id.level() == Level::Daily {
                topics.extend(markdown::topics_of(&body));
            }
            sources.push(SourceText {
                path: src.clone(),
                lines: markdown::line_count(&body),
                body,
            });
        }
        // A daily's topics come from the raw log just read; a parent's
        // from its children's states.
        let topics = if id.level() == Level::Daily {
            dedup(topics)
        } else {
            self.topics_of_sources(id, &inputs)
        };
        let source_lines: usize = sources.iter().map(|s| s.lines).sum();
        let body = if source_lines > self.threshold(id.level()) {
            // Only text a model will read needs redacting now; a node's own
            // text is redacted as a whole when it is written.
            if self.summarizer.is_active() && !self.options.dry_run {
                for s in &mut sources {
                    if let std::borrow::Cow::Owned(r) = redact(&s.body) {
                        s.body = r;
                    }
                }
            }
            DraftBody::NeedsSummary(SummaryRequest {
                node: id,
                input_hash: inputs.hash,
                sources,
            })
        } else {
            DraftBody::Ready(concat(id, &sources, &inputs.pending))
        };
        Ok(Draft {
            id,
            reason,
            keep_prev,
            inputs,
            topics,
            source_lines,
            body,
        })
    }

    fn summarize_and_write(&mut self, drafts: Vec<Draft>) -> Result<()> {
        let requests: Vec<SummaryRequest> = drafts
            .iter()
            .filter_map(|d| match &d.body {
                DraftBody::NeedsSummary(r) => Some(r.clone()),
                DraftBody::Ready(_) => None,
            })
            .collect();
        let mut results =
            if requests.is_empty() || self.options.dry_run || !self.summarizer.is_active() {
                requests
                    .iter()
                    .map(|_| Err(SummaryError::NotConfigured))
                    .collect()
            } else {
                self.summarizer.summarize(&requests, self.progress)
            }
            .into_iter();
        for draft in drafts {
            let (body, summary, status_override) = match &draft.body {
                DraftBody::Ready(body) => (body.clone(), None, None),
                DraftBody::NeedsSummary(request) => match results.next() {
                    Some(Ok(summary)) => (summary.body.clone(), Some(summary), None),
                    Some(Err(err)) => {
                        if let SummaryError::Failed { reason, hint } = &err {
                            self.report.summary_failures.push(SummaryFailure {
                                path: draft.id.path(),
                                reason: reason.clone(),
                                hint: hint.clone(),
                            });
                        }
                        (
                            stub(draft.id, request, &err, self.threshold(draft.id.level())),
                            None,
                            Some(Status::NeedsSummarization),
                        )
                    }
                    None => (String::new(), None, Some(Status::NeedsSummarization)),
                },
            };
            self.finish_node(draft, body, summary, status_override)?;
        }
        Ok(())
    }

    fn finish_node(
        &mut self,
        draft: Draft,
        body: String,
        summary: Option<crate::summarize::Summary>,
        status_override: Option<Status>,
    ) -> Result<()> {
        let Draft {
            id,
            reason,
            keep_prev,
            inputs,
            topics,
            source_lines,
            ..
        } = draft;
        let status = status_override.unwrap_or_else(|| {
            tree::desired_status(
                id,
                self.options.today,
                false,
                &inputs.child_statuses,
                inputs.pending.len(),
            )
        });
        let summarized = summary.is_some() || status == Status::NeedsSummarization;
        let body = redact(&body).into_owned();
        let fm = Frontmatter {
            kind: Some(id.level().as_str().into()),
            status: Some(status.as_str().into()),
            period: Some(id.period()),
            source_files: inputs.sources.clone(),
            pending: inputs.pending.clone(),
            source_lines: summarized.then_some(source_lines),
            model: summary.as_ref().and_then(|s| s.model.clone()),
            prompt_version: summary.as_ref().and_then(|s| s.prompt_version.clone()),
            topics: topics.iter().map(Topic::render).collect(),
            source_hash: Some(short_hex(&inputs.hash)),
            body_hash: Some(short_hash(body.as_bytes())),
            ..Default::default()
        };
        let content = format!("{}{body}", redact(&fm.render()));
        let path = id.path();
        let new_hash = *blake3::hash(content.as_bytes()).as_bytes();
        let on_disk = self.scan.hash(&path);
        let written = on_disk != Some(new_hash);
        let mut prev = None;
        if written && keep_prev && on_disk.is_some() {
            prev = self.keep_prev(&path, &content, "was edited and its sources changed")?;
        }
        if written {
            self.write(&path, &content)?;
        }
        let content_hash = content_hash(&content);
        self.built.insert(path.clone(), content);
        let body_lines = markdown::line_count(&body);
        if written || reason != Reason::Unrecorded {
            self.report.actions.push(Action {
                path: path.clone(),
                level: id.level(),
                reason,
                status,
                written,
                prev,
            });
        }
        let record = NodeRecord {
            input_hash: inputs.hash,
            written_hash: new_hash,
            content_hash,
            adopted: false,
            status,
            summarizer: if summarized {
                self.summarizer.writer()
            } else {
                Writer::Copy
            }
            .to_string(),
            body_lines,
            source_lines,
            topics: topics.clone(),
            sources: inputs.sources,
            pending: inputs.pending.clone(),
        };
        self.batch.nodes.push((path.clone(), Some(record)));
        self.states.insert(
            path,
            NodeState {
                content: content_hash,
                status,
                topics,
                body_lines,
                source_lines,
                pending: inputs.pending,
            },
        );
        Ok(())
    }

    /// Saves text someone else wrote before hipo replaces it, unless its
    /// body is what hipo is about to write anyway. An older `.prev` holding
    /// other text is moved aside to `.prev.N`, never overwritten.
    fn keep_prev(&mut self, path: &str, new_content: &str, what: &str) -> Result<Option<String>> {
        let Ok(old) = read_utf8(self.root, path) else {
            return Ok(None);
        };
        let body_of = |t: &str| {
            markdown::split_frontmatter(t)
                .map(|(_, b, _)| b.trim().to_string())
                .unwrap_or_default()
        };
        if body_of(&old) == body_of(new_content) {
            return Ok(None);
        }
        let prev = format!("{path}.prev");
        if self.options.dry_run {
            self.report.warnings.push(format!(
                "{path} {what}; compact would rewrite it, keeping the old text in {prev}"
            ));
            return Ok(Some(prev));
        }
        let prev_abs = self.root.join(&prev);
        let mut moved = String::new();
        if let Ok(earlier) = std::fs::read(&prev_abs)
            && earlier != old.as_bytes()
        {
            let older = (1..)
                .map(|n| format!("{prev}.{n}"))
                .find(|p| !self.root.join(p).exists())
                .unwrap_or_else(|| format!("{prev}.old"));
            let to = self.root.join(&older);
            std::fs::rename(&prev_abs, &to).map_err(|e| Error::io(&to, e))?;
            moved = format!(" (the earlier {prev} is now {older})");
        }
        write_atomic(&prev_abs, old.as_bytes())?;
        self.report.warnings.push(format!(
            "{path} {what}; rewrote it, old text kept in {prev}{moved}"
        ));
        Ok(Some(prev))
    }

    /// Writes a node file (unless dry-run) and records its new stat.
    fn write(&mut self, path: &str, content: &str) -> Result<Hash> {
        let hash = *blake3::hash(content.as_bytes()).as_bytes();
        if self.options.dry_run {
            return Ok(hash);
        }
        let abs = self.root.join(path);
        write_atomic(&abs, content.as_bytes())?;
        let meta = std::fs::metadata(&abs).map_err(|e| Error::io(&abs, e))?;
        let mtime_ns = crate::scan::mtime_ns(&meta);
        self.batch.files.push((
            path.to_string(),
            Some(FileRecord {
                size: meta.len(),
                mtime_ns,
                hash,
            }),
        ));
        Ok(hash)
    }

    fn root_node(&mut self, tree: &Tree) -> Result<()> {
        let id = NodeId::Root;
        let path = id.path();
        if self.unusable.contains(&path) {
            self.keep(id);
            return Ok(());
        }
        let mut inputs = self.inputs(tree, id);
        let mut hasher = blake3::Hasher::new();
        hasher.update(&inputs.hash);
        hasher.update(self.options.today.to_string().as_bytes());
        hasher.update(self.summarizer.writer().to_string().as_bytes());
        inputs.hash = *hasher.finalize().as_bytes();
        let on_disk = self.scan.hash(&path);
        let rec = self.records.get(&path);
        let reason = match (rec, on_disk) {
            (Some(r), Some(d)) if r.input_hash == inputs.hash && r.written_hash == d => {
                self.keep(id);
                return Ok(());
            }
            (Some(r), Some(d)) if r.written_hash != d => Reason::Adopted,
            (Some(_), Some(_)) => Reason::SourceChanged,
            (Some(_), None) => Reason::Missing,
            (None, Some(_)) => Reason::Unrecorded,
            (None, None) => Reason::New,
        };
        let narrative = self.root_narrative(tree, inputs.hash);
        let existing = match on_disk {
            Some(_) => read_utf8(self.root, &path).ok(),
            None => None,
        };
        let input = RootInput {
            today: self.options.today,
            max_tokens: self.config.root_max_tokens,
            days: tree
                .days
                .iter()
                .filter_map(|d| {
                    let s = self.states.get(&NodeId::Daily(*d).path())?;
                    Some((*d, s.topics.clone()))
                })
                .collect(),
            summaries: tree
                .level(Level::Monthly)
                .into_iter()
                .chain(tree.level(Level::Weekly))
                .filter_map(|n| {
                    let s = self.states.get(&n.path())?;
                    Some((n, s.topics.clone()))
                })
                .collect(),
            existing: existing.as_deref(),
            narrative,
        };
        let content = redact(&root::build(&input)).into_owned();
        let hash = *blake3::hash(content.as_bytes()).as_bytes();
        let written = on_disk != Some(hash);
        let mut prev = None;
        if written && reason == Reason::Adopted {
            // Sections without hipo's marker were kept; an edit inside one
            // of hipo's sections is replaced, so keep the old text.
            prev = self.keep_prev(
                &path,
                &content,
                "was edited inside sections hipo writes (marked <!-- hipo:auto -->)",
            )?;
        }
        let reason = if prev.is_some() {
            Reason::Replaced
        } else {
            reason
        };
        if written {
            self.write(&path, &content)?;
            if !self.options.dry_run {
                root::sync_memory_md(self.root, &content)?;
            }
        }
        if written || reason != Reason::Unrecorded {
            self.report.actions.push(Action {
                path: path.clone(),
                level: Level::Root,
                reason,
                status: Status::Tentative,
                written,
                prev,
            });
        }
        let body_lines = markdown::split_frontmatter(&content)
            .map(|(_, b, _)| markdown::line_count(b))
            .unwrap_or(0);
        let record = NodeRecord {
            input_hash: inputs.hash,
            written_hash: hash,
            content_hash: content_hash(&content),
            adopted: false,
            status: Status::Tentative,
            summarizer: Writer::Mechanical.to_string(),
            body_lines,
            source_lines: 0,
            topics: Vec::new(),
            sources: inputs.sources,
            pending: Vec::new(),
        };
        self.batch.nodes.push((path.clone(), Some(record)));
        self.states.insert(
            path,
            NodeState {
                content: content_hash(&content),
                status: Status::Tentative,
                topics: Vec::new(),
                body_lines,
                source_lines: 0,
                pending: Vec::new(),
            },
        );
        Ok(())
    }

    /// ROOT's narrative sections from the model, when one is configured:
    /// written from the monthly nodes and the last 7 days' dailies.
    fn root_narrative(&mut self, tree: &Tree, input_hash: Hash) -> Option<[String; 3]> {
        if !self.summarizer.is_active() || self.options.dry_run {
            return None;
        }
        let today = self.options.today;
        let recent = tree
            .days
            .iter()
            .filter(|d| (0..7).contains(&(today - **d).num_days()));
        let paths: Vec<String> = tree
            .level(Level::Monthly)
            .into_iter()
            .map(NodeId::path)
            .chain(recent.map(|d| NodeId::Daily(*d).path()))
            .collect();
        let mut context = format!("Today is {today}.\n");
        for path in paths {
            let text = match self.built.get(&path) {
                Some(t) => t.clone(),
                None => read_utf8(self.root, &path).ok()?,
            };
            let body = markdown::split_frontmatter(&text)
                .map(|(_, b, _)| b.to_string())
                .unwrap_or(text);
            context.push_str(&format!("\n===== {path} =====\n{}\n", body.trim_end()));
        }
        match self.summarizer.root_sections(input_hash, &context)? {
            Ok(sections) => Some(sections),
            Err(SummaryError::Failed { reason, hint }) => {
                self.report.summary_failures.push(SummaryFailure {
                    path: NodeId::Root.path(),
                    reason,
                    hint,
                });
                None
            }
            Err(SummaryError::NotConfigured) => None,
        }
    }

    fn finish(&mut self, tree: &Tree) {
        for level in [Level::Daily, Level::Weekly, Level::Monthly, Level::Root] {
            for id in tree.level(level) {
                if let Some(s) = self.states.get(&id.path()) {
                    self.report.nodes.push(NodeInfo {
                        path: id.path(),
                        level,
                        status: s.status,
                        lines: s.body_lines,
                        source_lines: s.source_lines,
                        pending: s.pending.clone(),
                    });
                }
            }
        }
        self.report.problems.sort_by(|a, b| a.path.cmp(&b.path));
        self.report.problems.dedup();
    }
}

fn problem_of(path: &str, e: Error) -> Problem {
    match e {
        Error::BadInput { line, message, .. } => Problem {
            path: path.to_string(),
            line,
            message,
        },
        other => Problem {
            path: path.to_string(),
            line: None,
            message: other.to_string(),
        },
    }
}

/// The body of a node below its threshold: a daily is its raw log
/// verbatim; a weekly or monthly is its ready children under their periods.
fn concat(id: NodeId, sources: &[SourceText], pending: &[String]) -> String {
    if let NodeId::Daily(_) = id {
        return sources.first().map(|s| s.body.clone()).unwrap_or_default();
    }
    let mut out = String::new();
    for src in sources {
        let period = period_of(&src.path);
        let title = format!("# {period}");
        let body = src.body.trim_start_matches(['\n', '\r']);
        let body = match body.strip_prefix(&title) {
            Some(rest) if rest.starts_with('\n') || rest.is_empty() => {
                rest.trim_start_matches(['\n', '\r'])
            }
            _ => body,
        };
        if !out.is_empty() {
            out.push('\n');
        }
        out.push_str(&title);
        out.push_str("\n\n");
        out.push_str(body.trim_end());
        out.push('\n');
    }
    if !pending.is_empty() {
        if !out.is_empty() {
            out.push('\n');
        }
        out.push_str("<!-- hipo: waiting for summaries of ");
        out.push_str(&pending.join(", "));
        out.push_str(" -->\n");
    }
    out
}

fn period_of(path: &str) -> String {
    path.rsplit('/')
        .next()
        .and_then(|n| n.strip_suffix(".md"))
        .unwrap_or(path)
        .to_string()
}

/// The body of a node that still needs a summary: what it covers and how
/// to fill it in.
fn stub(id: NodeId, request: &SummaryRequest, err: &SummaryError, threshold: usize) -> String {
    let level = id.level().as_str();
    let mut out = format!(
        "# {}: needs summarization\n\nThis {level} node covers {} lines from {} source file(s), over the {threshold}-line threshold, so it needs a summary instead of a verbatim copy.\n",
        id.period(),
        request.lines(),
        request.sources.len()
    );
    if let SummaryError::Failed { reason, hint } = err {
        out.push_str(&format!(
            "\nThe local model could not write it: {reason}. {hint}\n"
        ));
    }
    out.push_str("\nSources:\n");
    for s in &request.sources {
        out.push_str(&format!("- {} ({} lines)\n", s.path, s.lines));
    }
    out.push_str(
        "\nTo fill it in: replace this body with a keyword-dense summary under `## Topics`, `## Key Decisions`, `## Tasks Completed`, `## Lessons Learned` and `## Open Items`; keep `user` entries' content and `feedback` rule/why/how-to-apply whole; keep the frontmatter and set `status: tentative`. `hipo compact` adopts the new text and never overwrites it while its sources are unchanged.\n",
    );
    out
}

/// Topics without repeats, first mention first.
fn dedup(mut topics: Vec<Topic>) -> Vec<Topic> {
    let mut seen = HashSet::new();
    topics.retain(|t| seen.insert(t.clone()));
    topics
}

/// True when a node's frontmatter says it holds a summary someone wrote
/// (tentative or fixed, not `needs-summarization`).
fn summarised(fm: &Frontmatter) -> bool {
    matches!(
        fm.parsed_status(),
        Ok(Some(Status::Tentative | Status::Fixed))
    )
}

/// The 16 hex digits of a hash that a node's frontmatter records.
fn short_hex(hash: &Hash) -> String {
    blake3::Hash::from(*hash).to_hex()[..16].to_string()
}

/// [`short_hex`] of the blake3 hash of `bytes`.
fn short_hash(bytes: &[u8]) -> String {
    short_hex(blake3::hash(bytes).as_bytes())
}

/// Frontmatter lines a parent does not depend on: the status (moving from
/// tentative to fixed changes nothing a parent holds) and the provenance
/// hashes (which change whenever anything below changes; counting them
/// would rewrite every ancestor up to ROOT on each append).
const NOT_CONTENT: [&str; 3] = ["status:", "source-hash:", "body-hash:"];

/// A node file's hash without the [`NOT_CONTENT`] lines of its
/// frontmatter: what its parent is built from.
pub fn content_hash(text: &str) -> Hash {
    let mut h = blake3::Hasher::new();
    match markdown::split_frontmatter(text) {
        Ok((Some(yaml), body, _)) => {
            for line in yaml.split_inclusive('\n') {
                if !NOT_CONTENT.iter().any(|k| line.starts_with(k)) {
                    h.update(line.as_bytes());
                }
            }
            h.update(b"---\n");
            h.update(body.as_bytes());
        }
        _ => {
            h.update(text.as_bytes());
        }
    }
    *h.finalize().as_bytes()
}

/// Rewrites only the `status:` line of a file's frontmatter.
fn set_status_line(text: &str, status: Status) -> Option<String> {
    let (yaml, _, _) = markdown::split_frontmatter(text).ok()?;
    let yaml = yaml?;
    let start = text.find(yaml)?;
    let mut out = String::with_capacity(text.len());
    out.push_str(&text[..start]);
    let mut replaced = false;
    for line in yaml.split_inclusive('\n') {
        if !replaced && line.starts_with("status:") {
            out.push_str(&format!("status: {}\n", status.as_str()));
            replaced = true;
        } else {
            out.push_str(line);
        }
    }
    out.push_str(&text[start + yaml.len()..]);
    replaced.then_some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_parent_depends_on_neither_status_nor_provenance() {
        let a =
            "---\ntype: daily\nstatus: tentative\nsource-hash: 1111\nbody-hash: 2222\n---\nbody\n";
        let b = "---\ntype: daily\nstatus: fixed\nsource-hash: 3333\nbody-hash: 4444\n---\nbody\n";
        assert_eq!(content_hash(a), content_hash(b));
        assert_ne!(
            content_hash(a),
            content_hash(&a.replace("body\n", "other\n"))
        );
        assert_ne!(content_hash(a), content_hash(&a.replace("daily", "weekly")));
    }

    #[test]
    fn status_line_only() {
        let t = "---\ntype: daily\nstatus: tentative\ntopics: []\n---\nbody status: tentative\n";
        assert_eq!(
            set_status_line(t, Status::Fixed).unwrap(),
            "---\ntype: daily\nstatus: fixed\ntopics: []\n---\nbody status: tentative\n"
        );
    }

    #[test]
    fn concat_strips_matching_titles_only() {
        let src = |p: &str, b: &str| SourceText {
            path: p.into(),
            body: b.into(),
            lines: 1,
        };
        let week = NodeId::Weekly(crate::layout::Week {
            year: 2026,
            week: 11,
        });
        let out = concat(
            week,
            &[
                src("memory/daily/2026-03-09.md", "# 2026-03-09\n\n## A\nx\n"),
                src("memory/daily/2026-03-10.md", "# Notes\n## B\n"),
            ],
            &["memory/daily/2026-03-11.md".into()],
        );
        assert_eq!(
            out,
            "# 2026-03-09\n\n## A\nx\n\n# 2026-03-10\n\n# Notes\n## B\n\n<!-- hipo: waiting for summaries of memory/daily/2026-03-11.md -->\n"
        );
    }
}
