//! What long work reports as it goes, for a progress bar, an MCP client's
//! progress notifications, or nothing. One trait for every kind of work,
//! so a front end writes one implementation.

/// The kinds of work that report progress.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Task {
    /// Nodes summarised by a model.
    Summarize,
    /// Files read and cut into the search index.
    Index,
    /// Sections given a vector by an embedding model.
    Embed,
}

/// One step of the work.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Event<'a> {
    /// `total` units of `task` are about to be done.
    Begin { task: Task, total: usize },
    /// A unit started (a node's path, for summaries).
    Started(&'a str),
    /// A unit finished, successfully or not.
    Done,
}

/// Receives [`Event`]s; called from several threads at once.
pub trait Progress: Sync {
    fn event(&self, _event: Event<'_>) {}
}

/// Progress that shows nothing.
pub struct NoProgress;
impl Progress for NoProgress {}
