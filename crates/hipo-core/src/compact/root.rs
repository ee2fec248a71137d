//! ROOT, the compaction side: whether to rebuild it, the model's narrative
//! sections, the write and the `MEMORY.md` sync. What ROOT.md holds is
//! [`crate::root`]'s.

use super::inputs::Inputs;
use super::record::Entry;
use super::{Reason, Run, SummaryFailure, plan};
use crate::error::Result;
use crate::layout::{Level, NodeId};
use crate::markdown::{self, Status};
use crate::redact::redact;
use crate::root::{self as root_md, RootInput};
use crate::store::Hash;
use crate::summarize::{RootContext, SourceText, SummaryError, Writer};
use crate::tree::Tree;

/// The dailies' days and topics, oldest first.
type Days = Vec<(chrono::NaiveDate, Vec<markdown::Topic>)>;

impl Run<'_> {
    /// Rebuilds ROOT when the tree below, the day or the backend changed,
    /// or its file did.
    pub(super) fn root_node(&mut self, tree: &Tree) -> Result<()> {
        let id = NodeId::Root;
        let path = id.path();
        if self.unusable.contains(&path) {
            return self.ledger.keep(id);
        }
        self.load_for_root(tree)?;
        let days = self.daily_topics(tree)?;
        let inputs = self.root_inputs(tree, &days);
        let on_disk = self.scan.hash(&path);
        let (Some(reason), was_pending) = self.plan_root(on_disk, &inputs.hash)? else {
            return self.ledger.keep(id);
        };
        let (content, pending) =
            self.root_content(tree, days, &path, on_disk, inputs.hash, was_pending)?;
        let hash = *blake3::hash(content.as_bytes()).as_bytes();
        let written = on_disk != Some(hash);
        let prev = if written && reason == Reason::Adopted {
            self.keep_edited_root(&path, &content)?
        } else {
            None
        };
        let reason = if prev.is_some() {
            Reason::Replaced
        } else {
            reason
        };
        let body_lines = markdown::split_frontmatter(&content)
            .map(|(_, b, _)| markdown::line_count(b))
            .unwrap_or(0);
        let content_hash = super::content_hash(&content);
        if written {
            self.write(&path, content.clone())?;
            self.sink.sync_memory_md(&content)?;
        }
        self.ledger.record(Entry {
            id,
            input_hash: inputs.hash,
            sources: inputs.sources,
            pending: Vec::new(),
            file_hash: hash,
            content: content_hash,
            adopted: false,
            // Pending: the model's narrative is retried by the next run with
            // a model, and by `hipo summarize memory/ROOT.md`.
            status: if pending {
                Status::NeedsSummarization
            } else {
                Status::Tentative
            },
            writer: Writer::Mechanical,
            body_lines,
            source_lines: 0,
            topics: Vec::new(),
            reason: Some(reason),
            written,
            prev,
        });
        Ok(())
    }

    /// The dailies' days with their topics, oldest first: what ROOT lists
    /// and which raw logs it reads.
    fn daily_topics(&self, tree: &Tree) -> Result<Days> {
        let paths: Vec<String> = tree.days.iter().map(|d| NodeId::Daily(*d).path()).collect();
        Ok((tree.days.iter().zip(self.ledger.topics_many(&paths)?))
            .filter_map(|(d, t)| Some((*d, t?)))
            .collect())
    }

    /// ROOT's inputs: its children's, the day (ages, staleness), who
    /// writes its narrative, and the raw logs it carries in words
    /// ([`root_md::notes::days_read`], a log that is gone counted as
    /// such), on which ROOT also depends.
    fn root_inputs(&self, tree: &Tree, days: &Days) -> Inputs {
        let mut inputs = super::inputs::gather(
            tree,
            NodeId::Root,
            self.threshold(Level::Root),
            &self.ledger.states,
            &self.scan,
        );
        let mut hasher = blake3::Hasher::new();
        hasher.update(&inputs.hash);
        hasher.update(self.options.today.to_string().as_bytes());
        hasher.update(self.writer.to_string().as_bytes());
        for day in root_md::notes::days_read(self.options.today, days) {
            hasher.update(day.to_string().as_bytes());
            match self.scan.hash(&crate::tree::raw_path(day)) {
                Some(h) => hasher.update(&h),
                None => hasher.update(b"gone"),
            };
        }
        inputs.hash = *hasher.finalize().as_bytes();
        inputs
    }

    /// ROOT.md's new text, redacted, built over the file as it is (whose
    /// hand-written sections are kept) with the model's narrative or the
    /// kept one; `true` when the narrative is still owed.
    fn root_content(
        &mut self,
        tree: &Tree,
        days: Days,
        path: &str,
        on_disk: Option<Hash>,
        input_hash: Hash,
        was_pending: bool,
    ) -> Result<(String, bool)> {
        let existing = match on_disk {
            Some(_) => self.texts.read(self.root, path).ok().map(str::to_string),
            None => None,
        };
        let (narrative, pending) =
            self.narrative_or_kept(tree, input_hash, existing.as_deref(), was_pending);
        let content = redact(&root_md::build(&self.root_input(
            tree,
            days,
            existing.as_deref(),
            narrative,
        )?))
        .into_owned();
        Ok((content, pending))
    }

    /// The `.prev` of an adopted ROOT.md about to be rewritten: sections
    /// without hipo's marker were kept, but an edit inside one of hipo's
    /// sections is replaced, so the old text is kept. On a shared project a
    /// ROOT.md that is not what this clone wrote is, as a rule, another
    /// clone's (ROOT carries no provenance hash to tell it from an edit),
    /// so no `.prev` is kept of it.
    fn keep_edited_root(&mut self, path: &str, content: &str) -> Result<Option<String>> {
        if self.config.shared {
            return Ok(None);
        }
        let what = "was edited inside sections hipo writes (marked <!-- hipo:auto -->)";
        self.keep_prev(path, content, what)
    }

    /// In a partial run, the states ROOT reads that were not planned: the
    /// months (its inputs) and the last week's dailies (its narrative's);
    /// the topics of the others are read from their records as needed.
    fn load_for_root(&mut self, tree: &Tree) -> Result<()> {
        if self.partial.is_none() {
            return Ok(());
        }
        self.load_children(tree, NodeId::Root)?;
        let today = self.options.today;
        for day in tree.days.iter().rev() {
            if (today - *day).num_days() >= 7 {
                break;
            }
            let id = NodeId::Daily(*day);
            if !self.plans(id) && !self.ledger.states.contains_key(&id.path()) {
                self.ledger.keep(id)?;
            }
        }
        Ok(())
    }

    /// Whether ROOT is rebuilt, and whether its narrative was owed: a
    /// narrative the model failed to write is retried when a model is
    /// called for ROOT this run.
    fn plan_root(
        &self,
        on_disk: Option<Hash>,
        input_hash: &Hash,
    ) -> Result<(Option<Reason>, bool)> {
        let path = NodeId::Root.path();
        let record = self.ledger.records.get(&path)?;
        let record = record.as_ref();
        let was_pending = record.is_some_and(|r| r.status == Status::NeedsSummarization);
        let retry = self.calls_model
            && self
                .options
                .only
                .as_ref()
                .is_none_or(|only| only.contains(&path));
        Ok((
            plan::plan_root(record, on_disk, input_hash, retry),
            was_pending,
        ))
    }

    /// The model's new narrative, or the last one a model wrote: a run
    /// without the model, or one where it failed, does not replace it.
    /// `true` when the narrative is still owed (retried by the next run).
    fn narrative_or_kept(
        &mut self,
        tree: &Tree,
        input_hash: Hash,
        existing: Option<&str>,
        was_pending: bool,
    ) -> (Option<[String; 3]>, bool) {
        match self.root_narrative(tree, input_hash) {
            Narrative::Written(n) => (Some(n), false),
            Narrative::Failed => (kept_narrative(existing), true),
            Narrative::NotAsked => (
                kept_narrative(existing),
                was_pending && self.backend.summarizer.is_active(),
            ),
        }
    }

    /// What [`root_md::build`] is built from: the dailies' topics, the
    /// summaries' (monthly first), the file as it is, the narrative.
    fn root_input<'t>(
        &self,
        tree: &Tree,
        days: Days,
        existing: Option<&'t str>,
        narrative: Option<[String; 3]>,
    ) -> Result<RootInput<'t>> {
        let ledger = &self.ledger;
        // The few raw logs ROOT carries in words (see root::notes).
        let span = crate::timing::span("compact: root's raw logs");
        let texts = &self.texts;
        let notes = root_md::notes::gather(self.options.today, &days, |day| {
            let path = crate::tree::raw_path(day);
            texts
                .read_raw(self.root, &path)
                .ok()
                .map(|t| t.into_owned())
        });
        drop(span);
        let nodes: Vec<NodeId> = tree
            .level(Level::Monthly)
            .into_iter()
            .chain(tree.level(Level::Weekly))
            .collect();
        let paths: Vec<String> = nodes.iter().map(|n| n.path()).collect();
        let summaries = (nodes.into_iter().zip(ledger.topics_many(&paths)?))
            .filter_map(|(n, t)| Some((n, t?)))
            .collect();
        Ok(RootInput {
            today: self.options.today,
            max_tokens: self.config.root_max_tokens,
            days,
            summaries,
            existing,
            narrative,
            notes,
        })
    }

    /// ROOT's narrative sections from the model, when one is called:
    /// written from the monthly nodes and the last 7 days' dailies that
    /// hold a summary or a copy. Nodes still waiting for a summary are
    /// never sent (their text is hipo's stub): they are left out and named.
    fn root_narrative(&mut self, tree: &Tree, input_hash: Hash) -> Narrative {
        if !self.calls_model {
            return Narrative::NotAsked;
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
        let mut context = RootContext {
            today,
            summaries: Vec::new(),
        };
        let mut left_out = Vec::new();
        for path in paths {
            let waiting = self
                .ledger
                .states
                .get(&path)
                .is_none_or(|s| s.status == Status::NeedsSummarization);
            let text = match self.texts.read(self.root, &path) {
                Ok(text) if !waiting => text,
                _ => {
                    left_out.push(path);
                    continue;
                }
            };
            let body = markdown::split_frontmatter(text)
                .map(|(_, b, _)| b)
                .unwrap_or(text);
            let body = body.trim_end().to_string();
            let lines = body.lines().count();
            context.summaries.push(SourceText { path, body, lines });
        }
        if context.summaries.is_empty() {
            return Narrative::NotAsked;
        }
        match self.backend.summarizer.root_sections(input_hash, &context) {
            Some(Ok(sections)) => Narrative::Written(self.signed(sections, &left_out)),
            Some(Err(SummaryError::Failed { reason, hint })) => {
                self.report.summary_failures.push(SummaryFailure {
                    path: NodeId::Root.path(),
                    reason,
                    hint,
                });
                Narrative::Failed
            }
            Some(Err(SummaryError::NotConfigured)) | None => Narrative::NotAsked,
        }
    }

    /// The model's sections, each marked with who wrote it and when (so a
    /// later run without the model keeps them), and the nodes left out.
    fn signed(&self, sections: [String; 3], left_out: &[String]) -> [String; 3] {
        let model = match &self.writer {
            Writer::Model { model, .. } => model.as_str(),
            _ => "a local model",
        };
        let mark = format!("{MODEL_MARK}{model}, {} -->\n", self.options.today);
        let mut out = sections.map(|s| format!("{mark}{s}"));
        if !left_out.is_empty() {
            out[0].push_str(&format!(
                "- not yet in this narrative (waiting for a summary): {}\n",
                left_out.join(", ")
            ));
        }
        out
    }
}

/// What the model was asked for ROOT's narrative, and what came of it.
enum Narrative {
    Written([String; 3]),
    Failed,
    /// No model this run (or nothing to write from).
    NotAsked,
}

/// Opens the line that marks a narrative section a model wrote:
/// `<!-- hipo:model NAME, YYYY-MM-DD -->`.
const MODEL_MARK: &str = "<!-- hipo:model ";

/// The model-written narrative of an existing ROOT.md (all three sections
/// marked with [`MODEL_MARK`] and still hipo's), without hipo's auto marker.
fn kept_narrative(existing: Option<&str>) -> Option<[String; 3]> {
    let text = existing?;
    let body = markdown::split_frontmatter(text)
        .map(|(_, b, _)| b)
        .unwrap_or(text);
    let mut out: [Option<String>; 3] = Default::default();
    for section in markdown::sections(body) {
        let Some(i) = ["Active Context", "Recent Patterns", "Historical Summary"]
            .iter()
            .position(|t| section.title.trim().starts_with(t))
        else {
            continue;
        };
        if !section.body.contains(root_md::AUTO) || !section.body.contains(MODEL_MARK) {
            continue;
        }
        let kept: String = section
            .body
            .lines()
            .filter(|l| l.trim() != root_md::AUTO)
            .map(|l| format!("{l}\n"))
            .collect();
        out[i] = Some(format!("{}\n", kept.trim()));
    }
    let [a, b, c] = out;
    Some([a?, b?, c?])
}
