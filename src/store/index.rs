//! The search index's bookkeeping: `index_files` (what the index holds of
//! each file, so a sync re-indexes only what changed) and `index_meta`
//! (the layout version it was built with).

use super::{Hash, Store, StoreReader};
use crate::codec;
use crate::error::{Error, Result};
use redb::{ReadableDatabase, ReadableTable, TableDefinition};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;

const FILES: TableDefinition<&str, &[u8]> = TableDefinition::new("index_files");
const META: TableDefinition<&str, &str> = TableDefinition::new("index_meta");

/// A section's identity in the index.
pub(crate) type Key = [u8; 16];

/// What the index knows of one file. Stored: a change of layout bumps
/// [`super::SCHEMA_VERSION`].
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct IndexedFile {
    pub size: u64,
    pub mtime_ns: i128,
    pub hash: Hash,
    /// The keys of its sections, in order.
    pub keys: Vec<Key>,
}

impl Store {
    /// The index layout version recorded by the last sync, if any.
    pub(crate) fn index_version(&self) -> Result<Option<String>> {
        read_version(&self.db).map_err(|e| self.err(e))
    }

    /// What the index recorded of each file.
    pub(crate) fn index_files(&self) -> Result<HashMap<String, IndexedFile>> {
        load_files(&self.db).map_err(|e| self.err(e))
    }

    /// Forgets every file record, before a rebuild.
    pub(crate) fn clear_index_files(&self) -> Result<()> {
        let txn = self.db.begin_write().map_err(|e| self.err(e))?;
        txn.delete_table(FILES).map_err(|e| self.err(e))?;
        crate::failpoint::hit("store.commit", &self.path.display())
            .map_err(|e| Error::io(&self.path, e))?;
        txn.commit().map_err(|e| self.err(e))
    }

    /// Writes file records (`None` deletes) and the index `version`, in
    /// one transaction.
    pub(crate) fn save_index_files(
        &self,
        updates: &[(String, Option<IndexedFile>)],
        version: &str,
    ) -> Result<()> {
        let mut txn = self.db.begin_write().map_err(|e| self.err(e))?;
        // Not synced here (the store syncs when it closes): records lost to
        // a crash only make the next sync redo work that is idempotent.
        txn.set_durability(redb::Durability::None)
            .map_err(|e| self.err(e))?;
        {
            let mut files = txn.open_table(FILES).map_err(|e| self.err(e))?;
            for (rel, rec) in updates {
                match rec {
                    Some(r) => files
                        .insert(rel.as_str(), codec::encode(r).as_slice())
                        .map(drop),
                    None => files.remove(rel.as_str()).map(drop),
                }
                .map_err(|e| self.err(e))?;
            }
            let mut meta = txn.open_table(META).map_err(|e| self.err(e))?;
            meta.insert("version", version).map_err(|e| self.err(e))?;
        }
        crate::failpoint::hit("store.commit", &self.path.display())
            .map_err(|e| Error::io(&self.path, e))?;
        txn.commit().map_err(|e| self.err(e))
    }
}

/// The head of an [`IndexedFile`] record: what says whether the file
/// changed, decoded without the keys (whose vector costs an allocation per
/// file, which an unchanged tree never needs).
#[derive(Deserialize)]
struct Stamp {
    size: u64,
    mtime_ns: i128,
}

impl StoreReader {
    /// Calls `each` with every file the index recorded, in path (byte)
    /// order, with its size and change stamp (`None` for a record that
    /// does not decode, which a sync re-indexes), until `each` returns
    /// false. `None` when the records cannot be read.
    pub(crate) fn visit_index_stamps(
        &self,
        mut each: impl FnMut(&str, Option<(u64, i128)>) -> bool,
    ) -> Option<()> {
        let txn = self.db.begin_read().ok()?;
        let table = match txn.open_table(FILES) {
            Ok(t) => t,
            Err(redb::TableError::TableDoesNotExist(_)) => return Some(()),
            Err(_) => return None,
        };
        for item in table.iter().ok()? {
            let (k, v) = item.ok()?;
            let stamp = codec::decode_head::<Stamp>(v.value()).map(|s| (s.size, s.mtime_ns));
            if !each(k.value(), stamp) {
                break;
            }
        }
        Some(())
    }

    /// [`Store::index_version`]; `None` also when it cannot be read.
    pub(crate) fn index_version(&self) -> Option<String> {
        read_version(&self.db).ok().flatten()
    }

    /// [`Store::index_files`]; `None` when they cannot be read.
    pub(crate) fn index_files(&self) -> Option<HashMap<String, IndexedFile>> {
        load_files(&self.db).ok()
    }
}

fn read_version(db: &impl ReadableDatabase) -> std::result::Result<Option<String>, redb::Error> {
    let txn = db.begin_read()?;
    let table = match txn.open_table(META) {
        Ok(t) => t,
        Err(redb::TableError::TableDoesNotExist(_)) => return Ok(None),
        Err(e) => return Err(e.into()),
    };
    let v = table.get("version")?;
    Ok(v.map(|v| v.value().to_string()))
}

fn load_files(
    db: &impl ReadableDatabase,
) -> std::result::Result<HashMap<String, IndexedFile>, redb::Error> {
    let txn = db.begin_read()?;
    let table = match txn.open_table(FILES) {
        Ok(t) => t,
        Err(redb::TableError::TableDoesNotExist(_)) => return Ok(HashMap::new()),
        Err(e) => return Err(e.into()),
    };
    let mut out = HashMap::new();
    for item in table.iter()? {
        let (k, v) = item?;
        // A record that does not decode is reindexed from scratch.
        if let Some(rec) = codec::decode(v.value()) {
            out.insert(k.value().to_string(), rec);
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn index_records_round_trip_and_clear() {
        let dir = tempfile::tempdir().unwrap();
        let (store, _) = Store::open(dir.path()).unwrap();
        assert_eq!(store.index_version().unwrap(), None);
        assert!(store.index_files().unwrap().is_empty());
        let rec = IndexedFile {
            size: 5,
            mtime_ns: 7,
            hash: [1; 32],
            keys: vec![[2; 16]],
        };
        let updates = vec![("memory/a.md".to_string(), Some(rec))];
        store.save_index_files(&updates, "v1").unwrap();
        assert_eq!(store.index_version().unwrap().as_deref(), Some("v1"));
        assert_eq!(
            store.index_files().unwrap()["memory/a.md"].keys,
            vec![[2; 16]]
        );
        store.clear_index_files().unwrap();
        assert!(store.index_files().unwrap().is_empty());
        assert_eq!(store.index_version().unwrap().as_deref(), Some("v1"));
    }
}
