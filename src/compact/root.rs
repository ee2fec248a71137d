//! ROOT, the compaction side: whether to rebuild it, the model's narrative
//! sections, the write and the `MEMORY.md` sync. What ROOT.md holds is
//! [`crate::root`]'s.

use super::record::Entry;
use super::{Reason, Run, SummaryFailure, plan};
use crate::error::Result;
use crate::layout::{Level, NodeId};
use crate::markdown::{self, Status};
use crate::redact::redact;
use crate::root::{self as root_md, RootInput};
use crate::store::Hash;
use crate::summarize::{SummaryError, Writer};
use crate::tree::Tree;

impl Run<'_> {
    /// Rebuilds ROOT when the tree below, the day or the backend changed,
    /// or its file did.
    pub(super) fn root_node(&mut self, tree: &Tree) -> Result<()> {
        let id = NodeId::Root;
        let path = id.path();
        if self.unusable.contains(&path) {
            self.ledger.keep(id);
            return Ok(());
        }
        let mut inputs = super::inputs::gather(
            tree,
            id,
            self.threshold(Level::Root),
            &self.ledger.states,
            &self.scan,
        );
        // ROOT also depends on the day (ages, staleness) and on who writes
        // its narrative.
        let mut hasher = blake3::Hasher::new();
        hasher.update(&inputs.hash);
        hasher.update(self.options.today.to_string().as_bytes());
        hasher.update(self.writer.to_string().as_bytes());
        inputs.hash = *hasher.finalize().as_bytes();
        let on_disk = self.scan.hash(&path);
        let Some(reason) = plan::plan_root(self.ledger.records.get(&path), on_disk, &inputs.hash)
        else {
            self.ledger.keep(id);
            return Ok(());
        };
        let narrative = self.root_narrative(tree, inputs.hash);
        let existing = match on_disk {
            Some(_) => self.texts.read(self.root, &path).ok().map(str::to_string),
            None => None,
        };
        let content = redact(&root_md::build(&self.root_input(
            tree,
            existing.as_deref(),
            narrative,
        )))
        .into_owned();
        let hash = *blake3::hash(content.as_bytes()).as_bytes();
        let written = on_disk != Some(hash);
        let mut prev = None;
        if written && reason == Reason::Adopted {
            // Sections without hipo's marker were kept; an edit inside one
            // of hipo's sections is replaced, so keep the old text.
            let what = "was edited inside sections hipo writes (marked <!-- hipo:auto -->)";
            prev = self.keep_prev(&path, &content, what)?;
        }
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
            status: Status::Tentative,
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

    /// What [`root_md::build`] is built from: the dailies' topics, the
    /// summaries' (monthly first), the file as it is, the narrative.
    fn root_input<'t>(
        &self,
        tree: &Tree,
        existing: Option<&'t str>,
        narrative: Option<[String; 3]>,
    ) -> RootInput<'t> {
        let states = &self.ledger.states;
        RootInput {
            today: self.options.today,
            max_tokens: self.config.root_max_tokens,
            days: tree
                .days
                .iter()
                .filter_map(|d| {
                    let s = states.get(&NodeId::Daily(*d).path())?;
                    Some((*d, s.topics.clone()))
                })
                .collect(),
            summaries: tree
                .level(Level::Monthly)
                .into_iter()
                .chain(tree.level(Level::Weekly))
                .filter_map(|n| {
                    let s = states.get(&n.path())?;
                    Some((n, s.topics.clone()))
                })
                .collect(),
            existing,
            narrative,
        }
    }

    /// ROOT's narrative sections from the model, when one is called:
    /// written from the monthly nodes and the last 7 days' dailies.
    fn root_narrative(&mut self, tree: &Tree, input_hash: Hash) -> Option<[String; 3]> {
        if !self.calls_model {
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
            let text = self.texts.read(self.root, &path).ok()?;
            let body = markdown::split_frontmatter(text)
                .map(|(_, b, _)| b)
                .unwrap_or(text);
            context.push_str(&format!("\n===== {path} =====\n{}\n", body.trim_end()));
        }
        match self
            .backend
            .summarizer
            .root_sections(input_hash, &context)?
        {
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
}
