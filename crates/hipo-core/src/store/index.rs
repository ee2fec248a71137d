//! The search index's bookkeeping: `index_files` (what the index holds of
//! each file, so a sync re-indexes only what changed) and `index_meta`
//! (the layout version it was built with).

use super::{Hash, Store, StoreReader};
use crate::codec;
use crate::error::{Error, Result};
use redb::{ReadableDatabase, ReadableTable, ReadableTableMetadata, TableDefinition};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;

const FILES: TableDefinition<&str, &[u8]> = TableDefinition::new("index_files");
/// Each file's [`Stamp`] alone, written with [`FILES`] in the same
/// transaction: what a search reads to learn that nothing changed, a
/// quarter of the pages of the full records (which hold every section's
/// key). A store written before this table existed fills it at its next
/// save; until then the full records decide, as they always can.
const STAMPS: TableDefinition<&str, &[u8]> = TableDefinition::new("index_stamps");
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
        txn.delete_table(STAMPS).map_err(|e| self.err(e))?;
        crate::failpoint::hit("store.commit", &self.path.display())
            .map_err(|e| Error::io(&self.path, e))?;
        txn.commit().map_err(|e| self.err(e))
    }

    /// Rewrites the stamps table from the records: for a store older than
    /// the table, or one whose records another hipo updated alone.
    pub(crate) fn restamp_index_files(&self) -> Result<()> {
        let mut txn = self.db.begin_write().map_err(|e| self.err(e))?;
        // As for `save_index_files`: a lost rewrite is redone.
        txn.set_durability(redb::Durability::None)
            .map_err(|e| self.err(e))?;
        txn.delete_table(STAMPS).map_err(|e| self.err(e))?;
        {
            let files = txn.open_table(FILES).map_err(|e| self.err(e))?;
            let mut stamps = txn.open_table(STAMPS).map_err(|e| self.err(e))?;
            backfill(&files, &mut stamps).map_err(|e| self.err(e))?;
        }
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
        // Not synced here (the store syncs when it closes): records lost to
        // a crash only make the next sync redo work that is idempotent.
        self.write_index_files(updates, version, redb::Durability::None)
    }

    /// [`Store::save_index_files`], synced before it returns: the records
    /// of a batch a long build committed, kept through a kill so that the
    /// next sync goes on from there instead of building anew.
    pub(crate) fn checkpoint_index_files(
        &self,
        updates: &[(String, Option<IndexedFile>)],
        version: &str,
    ) -> Result<()> {
        self.write_index_files(updates, version, redb::Durability::Immediate)
    }

    fn write_index_files(
        &self,
        updates: &[(String, Option<IndexedFile>)],
        version: &str,
        durability: redb::Durability,
    ) -> Result<()> {
        let mut txn = self.db.begin_write().map_err(|e| self.err(e))?;
        txn.set_durability(durability).map_err(|e| self.err(e))?;
        {
            let mut files = txn.open_table(FILES).map_err(|e| self.err(e))?;
            let mut stamps = txn.open_table(STAMPS).map_err(|e| self.err(e))?;
            if stamps.is_empty().map_err(|e| self.err(e))? {
                backfill(&files, &mut stamps).map_err(|e| self.err(e))?;
            }
            for (rel, rec) in updates {
                match rec {
                    Some(r) => files
                        .insert(rel.as_str(), codec::encode(r).as_slice())
                        .and_then(|_| {
                            stamps.insert(rel.as_str(), codec::encode(&Stamp::of(r)).as_slice())
                        })
                        .map(drop),
                    None => files
                        .remove(rel.as_str())
                        .and_then(|_| stamps.remove(rel.as_str()))
                        .map(drop),
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

/// What says whether a file changed: its size and change stamp, the head
/// of its [`IndexedFile`] record, stored alone in [`STAMPS`].
#[derive(Serialize, Deserialize)]
struct Stamp {
    size: u64,
    mtime_ns: i128,
}

impl Stamp {
    fn of(rec: &IndexedFile) -> Stamp {
        Stamp {
            size: rec.size,
            mtime_ns: rec.mtime_ns,
        }
    }
}

/// Fills [`STAMPS`] from [`FILES`]: a store written before the stamps
/// had their own table, at its first save.
fn backfill(
    files: &redb::Table<&str, &[u8]>,
    stamps: &mut redb::Table<&str, &[u8]>,
) -> std::result::Result<(), redb::Error> {
    for item in files.iter()? {
        let (k, v) = item?;
        // A record that does not decode has no stamp: the file is re-indexed.
        if let Some(stamp) = codec::decode_head::<Stamp>(v.value()) {
            stamps.insert(k.value(), codec::encode(&stamp).as_slice())?;
        }
    }
    Ok(())
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
        // No stamps table (a store older than it, not saved since): `None`,
        // and the full records decide.
        let table = txn.open_table(STAMPS).ok()?;
        // A stamp for every record, or the full records decide: a binary
        // older than the stamps clears and rebuilds the records alone.
        let records = txn.open_table(FILES).ok()?;
        if records.len().ok()? != table.len().ok()? {
            return None;
        }
        for item in table.iter().ok()? {
            let (k, v) = item.ok()?;
            let stamp = codec::decode::<Stamp>(v.value()).map(|s| (s.size, s.mtime_ns));
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
        drop(store);
        assert!(
            stamps(dir.path()).is_none(),
            "the stamps go with the records"
        );
    }

    fn rec(size: u64) -> IndexedFile {
        IndexedFile {
            size,
            mtime_ns: 7,
            hash: [1; 32],
            keys: vec![[2; 16]; 3],
        }
    }

    type Stamps = Vec<(String, Option<(u64, i128)>)>;

    fn stamps(root: &std::path::Path) -> Option<Stamps> {
        let db = Store::open_read_only(root).unwrap();
        let mut out = Vec::new();
        db.visit_index_stamps(|rel, stamp| {
            out.push((rel.to_string(), stamp));
            true
        })
        .map(|()| out)
    }

    #[test]
    fn stamps_follow_the_records_and_an_older_store_fills_them_at_its_next_save() {
        let dir = tempfile::tempdir().unwrap();
        let (store, _) = Store::open(dir.path()).unwrap();
        // A store written before the stamps had a table: records only.
        let txn = store.db.begin_write().unwrap();
        {
            let mut files = txn.open_table(FILES).unwrap();
            for (rel, size) in [("memory/b.md", 2), ("memory/a.md", 1)] {
                files
                    .insert(rel, codec::encode(&rec(size)).as_slice())
                    .unwrap();
            }
        }
        txn.commit().unwrap();
        drop(store);
        assert!(stamps(dir.path()).is_none(), "no table: the records decide");
        let (store, _) = Store::open(dir.path()).unwrap();
        let updates = vec![
            ("memory/c.md".to_string(), Some(rec(3))),
            ("memory/b.md".to_string(), None),
        ];
        store.save_index_files(&updates, "v").unwrap();
        drop(store);
        let expected = vec![
            ("memory/a.md".to_string(), Some((1, 7))),
            ("memory/c.md".to_string(), Some((3, 7))),
        ];
        assert_eq!(stamps(dir.path()), Some(expected));
        // Another hipo updates the records alone: a restamp catches up.
        let (store, _) = Store::open(dir.path()).unwrap();
        let txn = store.db.begin_write().unwrap();
        {
            let mut files = txn.open_table(FILES).unwrap();
            files.remove("memory/a.md").unwrap();
            files
                .insert("memory/d.md", codec::encode(&rec(4)).as_slice())
                .unwrap();
        }
        txn.commit().unwrap();
        store.restamp_index_files().unwrap();
        drop(store);
        let expected = vec![
            ("memory/c.md".to_string(), Some((3, 7))),
            ("memory/d.md".to_string(), Some((4, 7))),
        ];
        assert_eq!(stamps(dir.path()), Some(expected));
    }
}
