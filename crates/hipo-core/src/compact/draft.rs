//! A node to build, drafted: a verbatim copy below its level's threshold,
//! else a request for a summary. A level's requests go to the summarizer as
//! one batch; each that fails becomes a stub for the agent to fill in.

use super::apply::{Finished, problem_of};
use super::inputs::{self, Inputs};
use super::{Run, SummaryFailure};
use crate::error::Problem;
use crate::layout::{Level, NodeId};
use crate::markdown::{self, Status, Topic};
use crate::redact::redact;
use crate::summarize::{SourceText, SummaryError, SummaryRequest};
use std::borrow::Cow;

/// A node whose content is decided except for a summary.
pub(crate) struct Draft {
    pub id: NodeId,
    pub reason: super::Reason,
    pub keep_prev: bool,
    pub inputs: Inputs,
    pub topics: Vec<Topic>,
    /// Lines of its ready sources' bodies.
    pub source_lines: usize,
    pub body: DraftBody,
}

pub(crate) enum DraftBody {
    Ready(String),
    NeedsSummary(SummaryRequest),
}

impl Run<'_> {
    /// Reads the sources and decides between a copy and a summary. A source
    /// that cannot be read is the problem returned (the node is held back);
    /// a store that cannot be read is the run's error.
    pub(super) fn draft(
        &mut self,
        id: NodeId,
        inputs: Inputs,
        reason: super::Reason,
        keep_prev: bool,
    ) -> crate::error::Result<Result<Draft, Problem>> {
        let (mut sources, raw_topics) = match self.read_sources(id, &inputs) {
            Ok(read) => read,
            Err(problem) => return Ok(Err(problem)),
        };
        // A daily's topics come from the raw log just read; a parent's
        // from its children's states.
        let topics = if id.level() == Level::Daily {
            inputs::dedup(raw_topics)
        } else {
            let (ledger, texts) = (&self.ledger, &mut self.texts);
            inputs::topics_of_sources(id, &inputs, ledger, texts, self.root)?
        };
        let source_lines: usize = sources.iter().map(|s| s.lines).sum();
        let body = if source_lines > self.threshold(id.level()) {
            // Only text a model will read needs redacting now; a node's own
            // text is redacted as a whole when it is written.
            for s in &mut sources {
                if !self.calls_model {
                    // No model will read it, and the stub names only paths
                    // and line counts: a level's requests would otherwise
                    // hold every raw log of the history at once (a 10-year
                    // first compaction peaked at ~1 GB for 500 MB of logs).
                    s.body = String::new();
                } else if let std::borrow::Cow::Owned(r) = redact(&s.body) {
                    s.body = r;
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
        Ok(Ok(Draft {
            id,
            reason,
            keep_prev,
            inputs,
            topics,
            source_lines,
            body,
        }))
    }

    /// A node's ready sources, read and parsed, and the topics of a raw
    /// log's entries.
    fn read_sources(
        &mut self,
        id: NodeId,
        inputs: &Inputs,
    ) -> Result<(Vec<SourceText>, Vec<Topic>), Problem> {
        let mut sources = Vec::new();
        let mut topics = Vec::new();
        for src in &inputs.ready {
            let text = match id.level() {
                Level::Daily => self.texts.read_raw(self.root, src),
                _ => self.texts.read(self.root, src).map(Cow::Borrowed),
            }
            .map_err(|e| problem_of(src, e))?;
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
        Ok((sources, topics))
    }

    /// Summarises a level's drafts as one batch, then writes each.
    pub(super) fn summarize_and_write(&mut self, drafts: Vec<Draft>) -> crate::error::Result<()> {
        let requests: Vec<SummaryRequest> = drafts
            .iter()
            .filter_map(|d| match &d.body {
                DraftBody::NeedsSummary(r) => Some(r.clone()),
                DraftBody::Ready(_) => None,
            })
            .collect();
        let summarizer = self.backend.summarizer;
        let mut results = if requests.is_empty() || !self.calls_model {
            requests
                .iter()
                .map(|_| Err(SummaryError::NotConfigured))
                .collect()
        } else {
            summarizer.summarize(&requests, self.backend.progress)
        }
        .into_iter();
        for draft in drafts {
            let (body, summary) = match &draft.body {
                DraftBody::Ready(body) => (body.clone(), None),
                DraftBody::NeedsSummary(request) => match results.next() {
                    Some(Ok(summary)) => (summary.body.clone(), Some(summary)),
                    Some(Err(err)) => (self.stub(draft.id, request, err), None),
                    None => (String::new(), None),
                },
            };
            // Without its summary, a node that needs one waits for it.
            let waits = summary.is_none() && matches!(draft.body, DraftBody::NeedsSummary(_));
            let status = waits.then_some(Status::NeedsSummarization);
            self.finish_node(Finished {
                id: draft.id,
                reason: draft.reason,
                keep_prev: draft.keep_prev,
                inputs: draft.inputs,
                topics: draft.topics,
                source_lines: draft.source_lines,
                body,
                summary,
                status,
            })?;
        }
        Ok(())
    }

    /// The stub written for a node whose summary failed (reported) or was
    /// never asked for.
    fn stub(&mut self, id: NodeId, request: &SummaryRequest, err: SummaryError) -> String {
        if let SummaryError::Failed { reason, hint } = &err {
            self.report.summary_failures.push(SummaryFailure {
                path: id.path(),
                reason: reason.clone(),
                hint: hint.clone(),
            });
        }
        stub(id, request, &err, self.threshold(id.level()))
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
        let mut hint = hint.chars();
        let hint: String = hint
            .next()
            .map(|c| c.to_uppercase().chain(hint).collect::<String>())
            .unwrap_or_default();
        let hint = hint.trim_end_matches('.');
        out.push_str(&format!(
            "\nThe local model could not write it: {reason}. {hint}.\n"
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

#[cfg(test)]
mod tests {
    use super::*;

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
