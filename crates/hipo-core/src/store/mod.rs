//! `.hipo/store.redb`: what hipo knows about every file and node, so a run
//! does work proportional to what changed.
//!
//! The store is a cache. Everything in it can be rebuilt from the Markdown;
//! a corrupt store, or one from another schema version, is deleted and
//! rebuilt with a one-line warning, never a crash. Every table lives here,
//! behind typed methods: the search index's bookkeeping in `index`, the
//! LLM summary cache in `llm`. Values are encoded by [`crate::codec`]
//! only, so a layout change is one place to look at (and one
//! [`SCHEMA_VERSION`] to bump).

pub(crate) mod index;
pub(crate) mod llm;
pub(crate) mod marks;
mod nodes;

pub use nodes::NodeRecords;

use crate::codec;
use crate::error::{Error, Result};
use crate::markdown::{Status, Topic};
use crate::summarize::Writer;
use redb::{
    Database, ReadOnlyDatabase, ReadableDatabase, ReadableTable, ReadableTableMetadata,
    TableDefinition,
};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// Bump on any change to a stored layout; an older or newer store is rebuilt.
pub const SCHEMA_VERSION: u32 = 3;

/// Memory redb may keep of the store's pages (read cache and write buffer
/// together). Its default, 1 GiB, keeps every page a command reads, and a
/// no-op compaction reads every record once (ten years' history: an
/// 8.7 MB store; peak heap 14.9 → 13.7 MB with this bound, then 6.1 MB
/// once records were read one at a time, see [`NodeRecords`]). Past this
/// many bytes pages are read from the file (the OS caches it) and writes
/// are flushed as they go.
const CACHE_BYTES: usize = 2 << 20;

const META: TableDefinition<&str, &[u8]> = TableDefinition::new("meta");
const FILES: TableDefinition<&str, &[u8]> = TableDefinition::new("files");
const NODES: TableDefinition<&str, &[u8]> = TableDefinition::new("nodes");

/// A 32-byte blake3 hash.
pub type Hash = [u8; 32];

/// What a source or node file looked like when last hashed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileRecord {
    pub size: u64,
    /// Change stamp in nanoseconds since the epoch: the later of mtime and
    /// ctime ([`crate::scan::mtime_ns`]).
    pub mtime_ns: i128,
    pub hash: Hash,
}

/// File records by path, in path (byte) order ([`Store::files_in_order`]).
pub type Files = Vec<(String, FileRecord)>;

/// What hipo knows about a compaction node.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NodeRecord {
    /// Hash of the node's inputs when it was last built or adopted.
    pub input_hash: Hash,
    /// Hash of the file as hipo wrote it (or as adopted).
    pub written_hash: Hash,
    /// [`crate::compact::content_hash`] of that file: what a parent is built
    /// from, blind to the `status:` line, so a child becoming fixed does
    /// not make its parent stale.
    pub content_hash: Hash,
    /// True when the current text was written by someone else.
    pub adopted: bool,
    pub status: Status,
    /// Who wrote its text (the run's summarizer, or someone else).
    pub writer: Writer,
    /// Lines of the node's body (without frontmatter).
    pub body_lines: usize,
    /// Lines of the sources it was built from (what a summary must cover).
    pub source_lines: usize,
    pub topics: Vec<Topic>,
    pub sources: Vec<String>,
    pub pending: Vec<String>,
}

/// A table read: every table of the store maps a path or name to bytes.
type Table = redb::ReadOnlyTable<&'static str, &'static [u8]>;

/// The open store.
pub struct Store {
    db: Database,
    path: PathBuf,
}

impl Store {
    /// Path of the store under a project root.
    pub fn path_in(root: &Path) -> PathBuf {
        root.join(crate::layout::HIPO_DIR).join("store.redb")
    }

    /// Opens (or creates) the store. A store that cannot be read or has
    /// another schema version is deleted and recreated; the returned
    /// warning says so.
    pub fn open(root: &Path) -> Result<(Store, Option<String>)> {
        let path = Self::path_in(root);
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
        }
        match Self::open_checked(&path) {
            Ok(store) => Ok((store, None)),
            // A full or read-only disk is no reason to delete the store:
            // it is said, and the store stays for a later run.
            Err(unusable) if unusable.is_refusal() => Err(unusable.into_error(&path)),
            Err(unusable) => {
                let reason = unusable.describe(&path);
                let _ = std::fs::remove_file(&path);
                let store = Self::open_checked(&path).map_err(|u| u.into_error(&path))?;
                Ok((
                    store,
                    Some(format!(
                        "warning: {reason}; rebuilt {} from the Markdown",
                        path.display()
                    )),
                ))
            }
        }
    }

    /// Opens the store for reading only, if it exists, is this schema and
    /// was closed cleanly. Writes nothing (no header update, no sync), so
    /// a command that finds nothing to change costs no disk write.
    pub(crate) fn open_read_only(root: &Path) -> Option<StoreReader> {
        let path = Self::path_in(root);
        if !path.is_file() {
            return None;
        }
        let db = redb::Builder::new()
            .set_cache_size(CACHE_BYTES)
            .open_read_only(&path)
            .ok()?;
        let txn = db.begin_read().ok()?;
        let schema = txn
            .open_table(META)
            .ok()?
            .get("schema")
            .ok()??
            .value()
            .to_vec();
        drop(txn);
        (codec::decode::<u32>(&schema) == Some(SCHEMA_VERSION)).then_some(StoreReader { db })
    }

    /// The store read into memory, for a command that only reads where
    /// the disk refuses writes (a read-only mount): whatever redb or the
    /// command writes (a repair, a schema) lands in memory, and the file
    /// is never touched. A store that is missing or unusable reads as an
    /// empty one, with a warning saying so.
    pub(crate) fn open_in_memory(root: &Path) -> Result<(Store, Option<String>)> {
        let path = Self::path_in(root);
        let bytes = match std::fs::read(&path) {
            Ok(bytes) => bytes,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
            Err(e) => return Err(Error::io(&path, e)),
        };
        let copy = |bytes: &[u8]| -> std::result::Result<Store, Unusable> {
            use redb::StorageBackend;
            let backend = redb::backends::InMemoryBackend::new();
            let fill = backend
                .set_len(bytes.len() as u64)
                .and_then(|()| backend.write(0, bytes));
            fill.map_err(|e| Unusable::Unreadable(redb::Error::Io(e)))?;
            let db = redb::Builder::new()
                .set_cache_size(CACHE_BYTES)
                .create_with_backend(backend)
                .map_err(|e| Unusable::Unreadable(e.into()))?;
            Self::checked(db, &path)
        };
        match copy(&bytes) {
            Ok(store) => Ok((store, None)),
            Err(unusable) => {
                let reason = unusable.describe(&path);
                let store = copy(&[]).map_err(|u| u.into_error(&path))?;
                Ok((
                    store,
                    Some(format!(
                        "warning: {reason}; read as empty (the disk is read only, nothing was rebuilt)"
                    )),
                ))
            }
        }
    }

    fn open_checked(path: &Path) -> std::result::Result<Store, Unusable> {
        let db = redb::Builder::new()
            .set_cache_size(CACHE_BYTES)
            .create(path)
            .map_err(|e| Unusable::Unreadable(e.into()))?;
        Self::checked(db, path)
    }

    /// `db` as the store, if it is of this schema (a new one is given it).
    fn checked(db: Database, path: &Path) -> std::result::Result<Store, Unusable> {
        let store = Store {
            db,
            path: path.to_path_buf(),
        };
        match store.schema().map_err(Unusable::Failed)? {
            Some(v) if v == SCHEMA_VERSION => Ok(store),
            Some(v) => Err(Unusable::Schema(v)),
            None => {
                store.set_schema().map_err(Unusable::Failed)?;
                Ok(store)
            }
        }
    }

    fn schema(&self) -> Result<Option<u32>> {
        let txn = self.db.begin_read().map_err(|e| self.err(e))?;
        let table = match txn.open_table(META) {
            Ok(t) => t,
            Err(redb::TableError::TableDoesNotExist(_)) => return Ok(None),
            Err(e) => return Err(self.err(e)),
        };
        let value = table.get("schema").map_err(|e| self.err(e))?;
        Ok(value.and_then(|v| codec::decode::<u32>(v.value())))
    }

    fn set_schema(&self) -> Result<()> {
        let txn = self.db.begin_write().map_err(|e| self.err(e))?;
        {
            let mut meta = txn.open_table(META).map_err(|e| self.err(e))?;
            meta.insert("schema", codec::encode(&SCHEMA_VERSION).as_slice())
                .map_err(|e| self.err(e))?;
            txn.open_table(FILES).map_err(|e| self.err(e))?;
            txn.open_table(NODES).map_err(|e| self.err(e))?;
        }
        crate::failpoint::hit("store.commit", &self.path.display())
            .map_err(|e| Error::io(&self.path, e))?;
        txn.commit().map_err(|e| self.err(e))
    }

    /// Wraps a redb error with the store's path.
    pub(crate) fn err(&self, e: impl Into<redb::Error>) -> Error {
        Error::Store {
            path: self.path.clone(),
            source: Box::new(e.into()),
        }
    }

    /// Every file record, in path (byte) order: what a scan merges with
    /// its sorted listing ([`crate::scan::Listing::scan`]), no map built.
    pub fn files_in_order(&self) -> Result<Files> {
        let table = self.read(FILES)?;
        let mut out = Vec::new();
        for item in table.iter().map_err(|e| self.err(e))? {
            let (k, v) = item.map_err(|e| self.err(e))?;
            // A record that does not decode is as good as absent: the
            // scan rehashes that file.
            if let Some(rec) = codec::decode(v.value()) {
                out.push((k.value().to_string(), rec));
            }
        }
        Ok(out)
    }

    /// How many file records the store holds.
    pub fn file_count(&self) -> Result<usize> {
        let table = self.read(FILES)?;
        let count = table.len().map_err(|e| self.err(e))?;
        Ok(usize::try_from(count).unwrap_or(usize::MAX))
    }

    /// Calls `each` with every node record in path order, one decoded at a
    /// time (a record that does not decode is skipped); returns how many
    /// the table holds.
    pub fn visit_nodes(&self, mut each: impl FnMut(&str, NodeRecord)) -> Result<usize> {
        let table = self.read(NODES)?;
        let mut count = 0;
        for item in table.iter().map_err(|e| self.err(e))? {
            let (k, v) = item.map_err(|e| self.err(e))?;
            count += 1;
            if let Some(rec) = codec::decode(v.value()) {
                each(k.value(), rec);
            }
        }
        Ok(count)
    }

    /// A small value from the meta table.
    pub fn meta<T: serde::de::DeserializeOwned>(&self, key: &str) -> Result<Option<T>> {
        let value = self.read(META)?.get(key).map_err(|e| self.err(e))?;
        Ok(value.and_then(|v| codec::decode(v.value())))
    }

    /// Whether the meta table holds a non-empty value under `key`, read
    /// without decoding it.
    pub fn has_meta(&self, key: &str) -> Result<bool> {
        let value = self.read(META)?.get(key).map_err(|e| self.err(e))?;
        Ok(value.is_some_and(|v| !v.value().is_empty()))
    }

    /// A table of the store as it is now, in a read transaction of its own
    /// (the table keeps it open until dropped).
    fn read(&self, def: TableDefinition<&str, &[u8]>) -> Result<Table> {
        let txn = self.db.begin_read().map_err(|e| self.err(e))?;
        txn.open_table(def).map_err(|e| self.err(e))
    }

    /// Applies a batch of changes in one transaction (`None` deletes).
    pub fn commit(&self, batch: &Batch) -> Result<()> {
        self.commit_as(batch, redb::Durability::Immediate)
    }

    /// [`Store::commit`] without syncing the disk: the batch is durable
    /// once the store closes (redb's close makes a durable commit of its
    /// own) or at the next durable commit, and a kill before then loses
    /// it, never anything committed before it. Only for what is worth
    /// less than a sync: a cache that a later run rebuilds when it is
    /// missing (the settled record, `compact::settled`).
    pub fn commit_unsynced(&self, batch: &Batch) -> Result<()> {
        self.commit_as(batch, redb::Durability::None)
    }

    fn commit_as(&self, batch: &Batch, durability: redb::Durability) -> Result<()> {
        if batch.is_empty() {
            return Ok(());
        }
        let mut txn = self.db.begin_write().map_err(|e| self.err(e))?;
        txn.set_durability(durability).map_err(|e| self.err(e))?;
        {
            let mut files = txn.open_table(FILES).map_err(|e| self.err(e))?;
            for (k, v) in &batch.files {
                match v {
                    Some(rec) => files
                        .insert(k.as_str(), codec::encode(rec).as_slice())
                        .map(drop),
                    None => files.remove(k.as_str()).map(drop),
                }
                .map_err(|e| self.err(e))?;
            }
            let mut nodes = txn.open_table(NODES).map_err(|e| self.err(e))?;
            for (k, v) in &batch.nodes {
                match v {
                    Some(rec) => nodes
                        .insert(k.as_str(), codec::encode(rec).as_slice())
                        .map(drop),
                    None => nodes.remove(k.as_str()).map(drop),
                }
                .map_err(|e| self.err(e))?;
            }
            let mut meta = txn.open_table(META).map_err(|e| self.err(e))?;
            for (k, v) in &batch.meta {
                meta.insert(k.as_str(), v.as_slice())
                    .map_err(|e| self.err(e))?;
            }
        }
        crate::failpoint::hit("store.commit", &self.path.display())
            .map_err(|e| Error::io(&self.path, e))?;
        txn.commit().map_err(|e| self.err(e))
    }
}

/// Why [`Store::open_checked`] could not use a store file: the first two
/// are cured by deleting it, and all are told to the user.
enum Unusable {
    /// redb cannot open the file (corrupt, not a redb file).
    Unreadable(redb::Error),
    /// The store is of another [`SCHEMA_VERSION`].
    Schema(u32),
    /// Reading or writing the schema failed.
    Failed(Error),
}

impl Unusable {
    /// The reason given in the rebuild warning.
    fn describe(&self, path: &Path) -> String {
        match self {
            Unusable::Unreadable(e) => format!("store {} unreadable ({e})", path.display()),
            Unusable::Schema(v) => format!("store schema {v} is not {SCHEMA_VERSION}"),
            Unusable::Failed(e) => e.to_string(),
        }
    }

    /// True when the disk refused a write (full, read only): the file
    /// may be perfectly good.
    fn is_refusal(&self) -> bool {
        match self {
            Unusable::Unreadable(e) => crate::error::Refusal::under(e).is_some(),
            Unusable::Schema(_) => false,
            Unusable::Failed(e) => e.refusal().is_some(),
        }
    }

    /// The error when even a new store cannot be used.
    fn into_error(self, path: &Path) -> Error {
        match self {
            Unusable::Unreadable(e) => Error::Store {
                path: path.to_path_buf(),
                source: Box::new(e),
            },
            Unusable::Schema(_) => Error::StoreLayout {
                path: path.to_path_buf(),
                message: self.describe(path),
            },
            Unusable::Failed(e) => e,
        }
    }
}

/// A store opened read only ([`Store::open_read_only`]): reads without a
/// single disk write.
pub(crate) struct StoreReader {
    db: ReadOnlyDatabase,
}

impl StoreReader {
    /// Calls `each` with the size and change stamp compaction last saw
    /// (or wrote) of every file it records, in path (byte) order; a record
    /// that does not decode is skipped. `None` when the records cannot be
    /// read.
    pub(crate) fn visit_file_stamps(&self, mut each: impl FnMut(&str, (u64, i128))) -> Option<()> {
        /// The head of a [`FileRecord`]: its hash is not decoded.
        #[derive(Deserialize)]
        struct Head {
            size: u64,
            mtime_ns: i128,
        }
        let txn = self.db.begin_read().ok()?;
        let table = txn.open_table(FILES).ok()?;
        for item in table.iter().ok()? {
            let (k, v) = item.ok()?;
            if let Some(head) = codec::decode_head::<Head>(v.value()) {
                each(k.value(), (head.size, head.mtime_ns));
            }
        }
        Some(())
    }

    /// [`Store::meta`]; `None` also when it cannot be read.
    pub(crate) fn meta<T: serde::de::DeserializeOwned>(&self, key: &str) -> Option<T> {
        let txn = self.db.begin_read().ok()?;
        let table = txn.open_table(META).ok()?;
        let value = table.get(key).ok()??;
        codec::decode(value.value())
    }
}

/// Changes to write in one transaction.
#[derive(Debug, Default)]
pub struct Batch {
    pub files: Vec<(String, Option<FileRecord>)>,
    pub nodes: Vec<(String, Option<NodeRecord>)>,
    pub meta: Vec<(String, Vec<u8>)>,
}

impl Batch {
    /// True when there is nothing to write.
    pub fn is_empty(&self) -> bool {
        self.files.is_empty() && self.nodes.is_empty() && self.meta.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec() -> FileRecord {
        FileRecord {
            size: 3,
            mtime_ns: 9,
            hash: [7; 32],
        }
    }

    #[test]
    fn records_persist() {
        let dir = tempfile::tempdir().unwrap();
        {
            let (store, warn) = Store::open(dir.path()).unwrap();
            assert!(warn.is_none());
            let batch = Batch {
                files: vec![("memory/a.md".into(), Some(rec()))],
                ..Default::default()
            };
            store.commit(&batch).unwrap();
        }
        let (store, _) = Store::open(dir.path()).unwrap();
        assert_eq!(
            store.files_in_order().unwrap(),
            vec![("memory/a.md".to_string(), rec())]
        );
    }

    #[test]
    fn corrupt_store_is_rebuilt_with_warning() {
        let dir = tempfile::tempdir().unwrap();
        let path = Store::path_in(dir.path());
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, b"this is not a redb file at all, just garbage bytes").unwrap();
        let (store, warn) = Store::open(dir.path()).unwrap();
        assert!(warn.unwrap().contains("rebuilt"));
        assert!(store.files_in_order().unwrap().is_empty());
    }

    #[test]
    fn other_schema_is_rebuilt() {
        let dir = tempfile::tempdir().unwrap();
        {
            let (store, _) = Store::open(dir.path()).unwrap();
            let batch = Batch {
                meta: vec![("schema".into(), codec::encode(&99u32))],
                ..Default::default()
            };
            store.commit(&batch).unwrap();
        }
        let (_, warn) = Store::open(dir.path()).unwrap();
        assert!(warn.unwrap().contains("schema 99"));
    }
}
