//! The one place a node's outcome is recorded: the store record for the
//! next run, the state its parent is built from in this one, and the
//! report's action.

use super::{Action, Reason};
use crate::layout::NodeId;
use crate::markdown::{Status, Topic};
use crate::store::{Batch, Hash, NodeRecord};
use crate::summarize::Writer;
use std::collections::HashMap;

/// What the tree knows of a node after this run: what its parent needs.
#[derive(Debug, Clone)]
pub(crate) struct NodeState {
    /// [`super::content_hash`] of the node's text.
    pub content: Hash,
    pub status: Status,
    pub topics: Vec<Topic>,
    pub body_lines: usize,
    pub source_lines: usize,
    pub pending: Vec<String>,
}

impl From<&NodeRecord> for NodeState {
    fn from(rec: &NodeRecord) -> NodeState {
        NodeState {
            content: rec.content_hash,
            status: rec.status,
            topics: rec.topics.clone(),
            body_lines: rec.body_lines,
            source_lines: rec.source_lines,
            pending: rec.pending.clone(),
        }
    }
}

/// A node done this run, built or adopted.
pub(crate) struct Entry {
    pub id: NodeId,
    /// Hash of the inputs it now stands for.
    pub input_hash: Hash,
    pub sources: Vec<String>,
    pub pending: Vec<String>,
    /// Hash of its file's bytes now (or in a dry run, as they would be).
    pub file_hash: Hash,
    /// [`super::content_hash`] of its text.
    pub content: Hash,
    /// Someone else wrote the text.
    pub adopted: bool,
    pub status: Status,
    pub writer: Writer,
    pub body_lines: usize,
    pub source_lines: usize,
    pub topics: Vec<Topic>,
    /// Why it was touched; `None` for a node adopted as it was.
    pub reason: Option<Reason>,
    /// Its bytes changed (or would).
    pub written: bool,
    /// Where someone else's replaced text was kept.
    pub prev: Option<String>,
}

/// Records of the last run, states and records of this one.
pub(crate) struct Ledger {
    /// The store's records as the run began.
    pub records: HashMap<String, NodeRecord>,
    /// Nodes done this run, kept or not.
    pub states: HashMap<String, NodeState>,
    /// What the next commit writes to the store.
    pub batch: Batch,
    pub actions: Vec<Action>,
}

impl Ledger {
    pub fn new(records: HashMap<String, NodeRecord>) -> Ledger {
        Ledger {
            records,
            states: HashMap::new(),
            batch: Batch::default(),
            actions: Vec::new(),
        }
    }

    /// A node left as it is: its parent sees it as last recorded (nothing,
    /// when it never was).
    pub fn keep(&mut self, id: NodeId) {
        let path = id.path();
        if let Some(rec) = self.records.get(&path) {
            let state = NodeState::from(rec);
            self.states.insert(path, state);
        }
    }

    /// Records a node built or adopted this run. A node is reported when
    /// there is a reason and either its bytes changed or the reason is more
    /// than the store not knowing it (which a rebuilt store would not be
    /// told about).
    pub fn record(&mut self, e: Entry) {
        let path = e.id.path();
        if let Some(reason) = e.reason
            && (e.written || reason != Reason::Unrecorded)
        {
            self.actions.push(Action {
                path: path.clone(),
                level: e.id.level(),
                reason,
                status: e.status,
                written: e.written,
                prev: e.prev,
            });
        }
        let record = NodeRecord {
            input_hash: e.input_hash,
            written_hash: e.file_hash,
            content_hash: e.content,
            adopted: e.adopted,
            status: e.status,
            summarizer: e.writer.to_string(),
            body_lines: e.body_lines,
            source_lines: e.source_lines,
            topics: e.topics,
            sources: e.sources,
            pending: e.pending,
        };
        self.states.insert(path.clone(), NodeState::from(&record));
        self.batch.nodes.push((path, Some(record)));
    }
}
