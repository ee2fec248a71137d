//! The seam between the tree and whoever writes summaries.
//!
//! Compaction decides *which* nodes need a summary; a [`Summarizer`] decides
//! *how*. Requests come a whole level at a time so a backend can run them
//! in parallel, and each request succeeds or fails on its own: one bad
//! answer never stops the rest of the tree.

use crate::layout::NodeId;

/// One source a node is built from, already redacted.
#[derive(Debug, Clone)]
pub struct SourceText {
    /// Project-relative path.
    pub path: String,
    /// Body without frontmatter.
    pub body: String,
    /// Lines in `body`.
    pub lines: usize,
}

/// A node that needs a summary.
#[derive(Debug, Clone)]
pub struct SummaryRequest {
    pub node: NodeId,
    /// Hash of everything the summary is made from; a cache key.
    pub input_hash: [u8; 32],
    /// Sources ready to be summarised, in order.
    pub sources: Vec<SourceText>,
}

impl SummaryRequest {
    /// Total lines over all sources.
    pub fn lines(&self) -> usize {
        self.sources.iter().map(|s| s.lines).sum()
    }
}

/// A finished summary body (Markdown without frontmatter).
#[derive(Debug, Clone, PartialEq)]
pub struct Summary {
    pub body: String,
    /// The model that wrote it, recorded in frontmatter.
    pub model: Option<String>,
    /// The prompt version, recorded in frontmatter.
    pub prompt_version: Option<String>,
}

/// Why one node was not summarised. The node stays `needs-summarization`.
#[derive(Debug, Clone, PartialEq)]
pub enum SummaryError {
    /// No backend is configured: the agent is expected to fill the node in.
    NotConfigured,
    /// The backend tried and failed for this node; `hint` says what to do.
    Failed { reason: String, hint: String },
}

/// What a summarizer reports as it goes, for a progress bar.
pub trait Progress: Sync {
    /// A batch of `total` nodes begins.
    fn begin(&self, _total: usize) {}
    /// `node` started.
    fn started(&self, _node: NodeId) {}
    /// `node` finished, successfully or not.
    fn finished(&self, _node: NodeId) {}
}

/// Progress that shows nothing.
pub struct NoProgress;
impl Progress for NoProgress {}

/// A summary backend.
pub trait Summarizer: Sync {
    /// Identifies backend, model and prompt version; recorded per node so a
    /// change of backend can be detected.
    fn id(&self) -> String;

    /// True when the backend can summarise at all (the `none` backend
    /// cannot, so compaction never waits on it).
    fn is_active(&self) -> bool;

    /// Summarises a batch, one result per request, in order.
    fn summarize(
        &self,
        requests: &[SummaryRequest],
        progress: &dyn Progress,
    ) -> Vec<Result<Summary, SummaryError>>;

    /// Writes ROOT's Active Context, Recent Patterns and Historical Summary
    /// from `context` (the tree's summaries, oldest first). `None`: this
    /// backend leaves ROOT mechanical.
    fn root_sections(
        &self,
        _input_hash: [u8; 32],
        _context: &str,
    ) -> Option<Result<[String; 3], SummaryError>> {
        None
    }
}

/// The default backend: summarises nothing, so above-threshold nodes are
/// written as `needs-summarization` stubs for the agent to fill in.
pub struct NoneSummarizer;

impl Summarizer for NoneSummarizer {
    fn id(&self) -> String {
        "none".to_string()
    }

    fn is_active(&self) -> bool {
        false
    }

    fn summarize(
        &self,
        requests: &[SummaryRequest],
        _: &dyn Progress,
    ) -> Vec<Result<Summary, SummaryError>> {
        requests
            .iter()
            .map(|_| Err(SummaryError::NotConfigured))
            .collect()
    }
}
