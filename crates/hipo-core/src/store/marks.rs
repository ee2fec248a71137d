//! Capture watermarks, cached: `ingest_scanned` (how far each raw log has
//! been read for watermark comments) and `ingest_marks` (each
//! transcript's newest watermark, and the raw log holding it). The
//! comments in the raw logs stay the truth; this only saves reading every
//! raw log when a new session is captured (at ten years, half a gigabyte).

use super::{Store, StoreReader};
use crate::error::Result;
use redb::{ReadableDatabase, ReadableTable, TableDefinition};
use std::collections::HashMap;

const SCANNED: TableDefinition<&str, u64> = TableDefinition::new("ingest_scanned");
const MARKS: TableDefinition<&str, (&str, &str)> = TableDefinition::new("ingest_marks");

/// A watermark as cached: the raw log's file name and the cursor.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Mark {
    pub day: String,
    pub cursor: String,
}

/// The cache as read: bytes scanned per raw log, marks per transcript.
#[derive(Debug, Default)]
pub(crate) struct Marks {
    pub scanned: HashMap<String, u64>,
    pub marks: HashMap<String, Mark>,
}

impl Store {
    /// Writes changes to the cache (`None` deletes). Not synced: a cache
    /// lost to a crash is behind the raw logs, and being behind only means
    /// reading more of them next time.
    pub(crate) fn save_ingest_marks(
        &self,
        scanned: &[(String, Option<u64>)],
        marks: &[(String, Option<Mark>)],
    ) -> Result<()> {
        let write = || -> std::result::Result<(), redb::Error> {
            let mut txn = self.db.begin_write()?;
            txn.set_durability(redb::Durability::None)?;
            {
                let mut table = txn.open_table(SCANNED)?;
                for (day, len) in scanned {
                    match len {
                        Some(len) => table.insert(day.as_str(), *len).map(drop)?,
                        None => table.remove(day.as_str()).map(drop)?,
                    }
                }
                let mut table = txn.open_table(MARKS)?;
                for (key, m) in marks {
                    match m {
                        Some(m) => table
                            .insert(key.as_str(), (m.day.as_str(), m.cursor.as_str()))
                            .map(drop)?,
                        None => table.remove(key.as_str()).map(drop)?,
                    }
                }
            }
            txn.commit()?;
            Ok(())
        };
        write().map_err(|e| self.err(e))
    }
}

impl StoreReader {
    /// The cached watermarks (empty when never written); `None` when they
    /// cannot be read. Read without a write: see [`Store::save_ingest_marks`].
    pub(crate) fn ingest_marks(&self) -> Option<Marks> {
        load(&self.db).ok()
    }
}

fn load(db: &impl ReadableDatabase) -> std::result::Result<Marks, redb::Error> {
    let txn = db.begin_read()?;
    let mut out = Marks::default();
    match txn.open_table(SCANNED) {
        Ok(t) => {
            for item in t.iter()? {
                let (k, v) = item?;
                out.scanned.insert(k.value().to_string(), v.value());
            }
        }
        Err(redb::TableError::TableDoesNotExist(_)) => return Ok(out),
        Err(e) => return Err(e.into()),
    }
    match txn.open_table(MARKS) {
        Ok(t) => {
            for item in t.iter()? {
                let (k, v) = item?;
                let (day, cursor) = v.value();
                let mark = Mark {
                    day: day.to_string(),
                    cursor: cursor.to_string(),
                };
                out.marks.insert(k.value().to_string(), mark);
            }
        }
        Err(redb::TableError::TableDoesNotExist(_)) => {}
        Err(e) => return Err(e.into()),
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn marks_round_trip() {
        let dir = tempfile::tempdir().unwrap();
        let read = || {
            Store::open_read_only(dir.path())
                .unwrap()
                .ingest_marks()
                .unwrap()
        };
        let (store, _) = Store::open(dir.path()).unwrap();
        let mark = Mark {
            day: "2027-01-02.md".into(),
            cursor: "77".into(),
        };
        store
            .save_ingest_marks(
                &[("2027-01-02.md".into(), Some(120))],
                &[("codex k1".into(), Some(mark.clone()))],
            )
            .unwrap();
        drop(store);
        let back = read();
        assert_eq!(back.scanned["2027-01-02.md"], 120);
        assert_eq!(back.marks["codex k1"], mark);
        let (store, _) = Store::open(dir.path()).unwrap();
        store
            .save_ingest_marks(
                &[("2027-01-02.md".into(), None)],
                &[("codex k1".into(), None)],
            )
            .unwrap();
        drop(store);
        assert!(read().marks.is_empty() && read().scanned.is_empty());
    }
}
