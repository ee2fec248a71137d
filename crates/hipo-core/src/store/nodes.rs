//! Node records read one at a time, or many in one pass in path order
//! (what ROOT reads), through one read transaction.

use super::{NODES, NodeRecord, Store, Table};
use crate::codec;
use crate::error::Result;
use crate::markdown::{Status, Topic};
use crate::store::Hash;
use crate::summarize::Writer;
use serde::Deserialize;
use std::cell::OnceCell;

/// The head of a [`NodeRecord`]: its fields in the same order, up to its
/// topics ([`crate::codec::decode_head`]).
#[derive(Deserialize)]
struct TopicsHead {
    _input_hash: Hash,
    _written_hash: Hash,
    _content_hash: Hash,
    _adopted: bool,
    _status: Status,
    _writer: Writer,
    _body_lines: usize,
    _source_lines: usize,
    topics: Vec<Topic>,
}

/// The node records, read one at a time: a compaction asks for a node's
/// record as it plans it (and a kept child's topics when a parent is
/// rebuilt) instead of holding them all (at ten years, 4,295 records with
/// their topics were 11 MB of a no-op compaction's 14 MB peak heap).
///
/// Reads go through one read transaction, opened at the first read and
/// let go by [`NodeRecords::release`] before each commit: redb cannot
/// reuse the pages a commit frees while a reader older than it is open,
/// and a run that kept one snapshot for all its commits left the store
/// twice its size after rewriting a year's nodes.
pub struct NodeRecords<'s> {
    store: &'s Store,
    table: OnceCell<Table>,
}

impl NodeRecords<'_> {
    /// A node's record; one that does not decode is as good as absent (the
    /// node is rebuilt or adopted).
    pub fn get(&self, node: &str) -> Result<Option<NodeRecord>> {
        let value = self.table()?.get(node).map_err(|e| self.store.err(e))?;
        Ok(value.and_then(|v| codec::decode(v.value())))
    }

    /// A node's topics, as [`NodeRecords::get`] would give them: only the
    /// record's fields up to its topics are decoded. ROOT reads every
    /// node's topics (4,295 records at ten years), and their sources and
    /// pending children were as much again to decode and drop.
    pub fn topics(&self, node: &str) -> Result<Option<Vec<Topic>>> {
        Ok(self.topics_of(&[node])?.pop().flatten())
    }

    /// [`NodeRecords::topics`] of each of `paths` (in any order), read in
    /// one pass over the table in path order rather than a lookup each:
    /// ROOT reads thousands, and each lookup walked the tree from its root.
    pub fn topics_of(&self, paths: &[&str]) -> Result<Vec<Option<Vec<Topic>>>> {
        let mut out = vec![None; paths.len()];
        let mut order: Vec<usize> = (0..paths.len()).collect();
        order.sort_unstable_by_key(|&i| paths[i]);
        let (Some(&first), Some(&last)) = (order.first(), order.last()) else {
            return Ok(out);
        };
        let table = self.table()?;
        let err = |e| self.store.err(e);
        let mut range = table.range(paths[first]..=paths[last]).map_err(err)?;
        let mut current = range.next().transpose().map_err(err)?;
        for i in order {
            while let Some((k, _)) = &current
                && k.value() < paths[i]
            {
                current = range.next().transpose().map_err(err)?;
            }
            if let Some((k, v)) = &current
                && k.value() == paths[i]
            {
                out[i] = codec::decode_head::<TopicsHead>(v.value()).map(|h| h.topics);
            }
        }
        Ok(out)
    }

    /// Lets go of the read transaction: the next read sees every commit
    /// made before it.
    pub fn release(&mut self) {
        self.table = OnceCell::new();
    }

    fn table(&self) -> Result<&Table> {
        if let Some(table) = self.table.get() {
            return Ok(table);
        }
        let table = self.store.read(NODES)?;
        Ok(self.table.get_or_init(|| table))
    }
}

impl Store {
    /// The node records, to be looked up one at a time.
    pub fn node_records(&self) -> NodeRecords<'_> {
        NodeRecords {
            store: self,
            table: OnceCell::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::Batch;

    #[test]
    fn a_nodes_topics_read_alone_are_its_records() {
        let dir = tempfile::tempdir().unwrap();
        let (store, _) = Store::open(dir.path()).unwrap();
        let node = NodeRecord {
            input_hash: [1; 32],
            written_hash: [2; 32],
            content_hash: [3; 32],
            adopted: true,
            status: Status::Fixed,
            writer: Writer::Model {
                model: "m".into(),
                prompt_version: "v".into(),
            },
            body_lines: 4,
            source_lines: 5,
            topics: vec![Topic {
                keyword: "deploy".into(),
                kind: crate::markdown::EntryType::Project,
            }],
            sources: vec!["memory/2026-01-01.md".into()],
            pending: vec!["memory/daily/2026-01-02.md".into()],
        };
        let batch = Batch {
            nodes: vec![("memory/weekly/2026-W01.md".into(), Some(node.clone()))],
            ..Default::default()
        };
        store.commit(&batch).unwrap();
        let records = store.node_records();
        let path = "memory/weekly/2026-W01.md";
        assert_eq!(records.get(path).unwrap(), Some(node.clone()));
        assert_eq!(records.topics(path).unwrap(), Some(node.topics));
        assert_eq!(records.topics("memory/weekly/2026-W02.md").unwrap(), None);
    }

    #[test]
    fn topics_read_in_one_pass_are_those_read_one_at_a_time() {
        let dir = tempfile::tempdir().unwrap();
        let (store, _) = Store::open(dir.path()).unwrap();
        let node = |keyword: &str| NodeRecord {
            input_hash: [1; 32],
            written_hash: [2; 32],
            content_hash: [3; 32],
            adopted: false,
            status: Status::Tentative,
            writer: Writer::Copy,
            body_lines: 1,
            source_lines: 1,
            topics: vec![Topic {
                keyword: keyword.into(),
                kind: crate::markdown::EntryType::Project,
            }],
            sources: Vec::new(),
            pending: Vec::new(),
        };
        let days = ["2026-01-01", "2026-01-03", "2026-01-04", "2026-02-01"];
        let batch = Batch {
            nodes: days
                .iter()
                .map(|d| (format!("memory/daily/{d}.md"), Some(node(d))))
                .chain([("memory/ROOT.md".to_string(), Some(node("root")))])
                .collect(),
            ..Default::default()
        };
        store.commit(&batch).unwrap();
        let records = store.node_records();
        // Unordered, with gaps, a repeat, and paths before and after all.
        let paths = [
            "memory/daily/2026-01-04.md",
            "memory/daily/2026-01-02.md",
            "memory/ROOT.md",
            "memory/daily/2026-01-01.md",
            "memory/daily/2026-01-04.md",
            "memory/daily/2027-01-01.md",
            "memory/daily/2026-02-01.md",
            "memory/a.md",
        ];
        let one_pass = records.topics_of(&paths).unwrap();
        let each: Vec<_> = paths.iter().map(|p| records.topics(p).unwrap()).collect();
        assert_eq!(one_pass, each);
        assert_eq!(one_pass.iter().filter(|t| t.is_some()).count(), 5);
        assert_eq!(
            records.topics_of(&[]).unwrap(),
            Vec::<Option<Vec<Topic>>>::new()
        );
    }
}
