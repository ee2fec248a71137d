//! The one place a node's outcome is recorded: the store record for the
//! next run, the state its parent is built from in this one, and the
//! report's action.

use super::{Action, Reason};
use crate::error::Result;
use crate::layout::NodeId;
use crate::markdown::{Status, Topic};
use crate::store::{Batch, Hash, NodeRecord, NodeRecords};
use crate::summarize::Writer;
use std::collections::HashMap;

/// What the tree knows of a node after this run: what its parent needs.
#[derive(Debug, Clone)]
pub(crate) struct NodeState {
    /// [`super::content_hash`] of the node's text.
    pub content: Hash,
    pub status: Status,
    /// Its topics when built or adopted this run; `None` for a node kept
    /// as recorded, whose topics are read from the store when a parent is
    /// rebuilt (see [`Ledger::topics`]), so a run that changes little does
    /// not hold every node's.
    pub topics: Option<Vec<Topic>>,
    pub body_lines: usize,
    pub source_lines: usize,
    pub pending: Vec<String>,
}

impl NodeState {
    /// A node kept as its record says.
    fn kept(rec: NodeRecord) -> NodeState {
        NodeState {
            content: rec.content_hash,
            status: rec.status,
            topics: None,
            body_lines: rec.body_lines,
            source_lines: rec.source_lines,
            pending: rec.pending,
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
pub(crate) struct Ledger<'s> {
    /// The store's records, read as each node is planned. A commit writes
    /// only nodes built or adopted, whose states hold what they were given,
    /// so what is read is what the run began with.
    pub records: NodeRecords<'s>,
    /// Nodes done this run, kept or not.
    pub states: HashMap<String, NodeState>,
    /// What the next commit writes to the store.
    pub batch: Batch,
    pub actions: Vec<Action>,
    /// Only the nodes a change reaches are planned (`compact::since`): a
    /// node with no state may be one not planned, whose topics are its
    /// record's.
    pub partial: bool,
}

impl<'s> Ledger<'s> {
    pub fn new(records: NodeRecords<'s>) -> Ledger<'s> {
        Ledger {
            records,
            states: HashMap::new(),
            batch: Batch::default(),
            actions: Vec::new(),
            partial: false,
        }
    }

    /// A node left as it is: its parent sees it as last recorded (nothing,
    /// when it never was).
    pub fn keep(&mut self, id: NodeId) -> Result<()> {
        let record = self.records.get(&id.path())?;
        self.keep_as(id, record);
        Ok(())
    }

    /// [`Ledger::keep`] with the node's record already read.
    pub fn keep_as(&mut self, id: NodeId, record: Option<NodeRecord>) {
        if let Some(rec) = record {
            self.states.insert(id.path(), NodeState::kept(rec));
        }
    }

    /// The topics of a node done this run (`None` when it was not): its
    /// own when built or adopted, else as recorded.
    pub fn topics(&self, path: &str) -> Result<Option<Vec<Topic>>> {
        Ok(match self.topics_from(path) {
            TopicsFrom::Run(topics) => Some(topics.clone()),
            TopicsFrom::Record { stated } => recorded(stated, self.records.topics(path)?),
            TopicsFrom::Nowhere => None,
        })
    }

    /// [`Ledger::topics`] of each of `paths`, the records among them read
    /// in one pass ([`crate::store::NodeRecords::topics_of`]).
    pub fn topics_many(&self, paths: &[String]) -> Result<Vec<Option<Vec<Topic>>>> {
        let mut out = Vec::with_capacity(paths.len());
        // Where a record is read: (index in `out`, path, whether stated).
        let mut reads: Vec<(usize, &str, bool)> = Vec::new();
        for (i, path) in paths.iter().enumerate() {
            out.push(match self.topics_from(path) {
                TopicsFrom::Run(topics) => Some(topics.clone()),
                TopicsFrom::Record { stated } => {
                    reads.push((i, path, stated));
                    None
                }
                TopicsFrom::Nowhere => None,
            });
        }
        let wanted: Vec<&str> = reads.iter().map(|r| r.1).collect();
        let read = self.records.topics_of(&wanted)?;
        for ((i, _, stated), topics) in reads.into_iter().zip(read) {
            out[i] = recorded(stated, topics);
        }
        Ok(out)
    }

    /// Where a node's topics come from this run: the one rule both
    /// [`Ledger::topics`] and [`Ledger::topics_many`] follow.
    fn topics_from(&self, path: &str) -> TopicsFrom<'_> {
        match self.states.get(path) {
            Some(state) => match &state.topics {
                Some(topics) => TopicsFrom::Run(topics),
                None => TopicsFrom::Record { stated: true },
            },
            // A node planned has a state when it has a record, so the
            // record of one without decides alike in both kinds of run.
            None if self.partial => TopicsFrom::Record { stated: false },
            None => TopicsFrom::Nowhere,
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
            writer: e.writer.clone(),
            body_lines: e.body_lines,
            source_lines: e.source_lines,
            topics: e.topics,
            sources: e.sources,
            pending: e.pending,
        };
        let state = NodeState {
            content: record.content_hash,
            status: record.status,
            topics: Some(record.topics.clone()),
            body_lines: record.body_lines,
            source_lines: record.source_lines,
            pending: record.pending.clone(),
        };
        self.states.insert(path.clone(), state);
        self.batch.nodes.push((path, Some(record)));
    }
}

/// Where a node's topics come from this run ([`Ledger::topics`]).
enum TopicsFrom<'a> {
    /// Built or adopted this run: its own.
    Run(&'a Vec<Topic>),
    /// As recorded. `stated`: the node has a state this run, so no record
    /// means no topics rather than a node not done.
    Record { stated: bool },
    /// Not done this run.
    Nowhere,
}

/// A record's topics as [`TopicsFrom::Record`] gives them.
fn recorded(stated: bool, read: Option<Vec<Topic>>) -> Option<Vec<Topic>> {
    if stated {
        Some(read.unwrap_or_default())
    } else {
        read
    }
}
