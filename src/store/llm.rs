//! The LLM summary cache: `llm_summaries` (a summary by input hash, model
//! and prompt version, so a rebuild of an unchanged node makes no call)
//! and `llm_previous` (a single-source node's last summary, so an append
//! costs one call). Both are caches: a failed read is a miss and a failed
//! write only costs a call next time, so neither reports errors.

use super::Store;
use crate::codec;
use redb::{ReadableDatabase, TableDefinition};
use serde::Serialize;
use serde::de::DeserializeOwned;

/// Cached summaries: key = input hash hex + model + prompt version.
const SUMMARIES: TableDefinition<&str, &str> = TableDefinition::new("llm_summaries");

/// Last summary of a single-source node: key = node path + model + prompt
/// version; value = what the summariser encodes (its `Previous`).
const PREVIOUS: TableDefinition<&str, &[u8]> = TableDefinition::new("llm_previous");

impl Store {
    /// A cached summary.
    pub(crate) fn cached_summary(&self, key: &str) -> Option<String> {
        let txn = self.db.begin_read().ok()?;
        let table = txn.open_table(SUMMARIES).ok()?;
        let value = table.get(key).ok()??;
        Some(value.value().to_string())
    }

    /// Caches a summary; `sync` writes it to disk before returning (else
    /// it reaches the disk with a later synced write or when the store
    /// closes).
    pub(crate) fn put_summary(&self, key: &str, body: &str, sync: bool) {
        let write = || -> std::result::Result<(), redb::Error> {
            let mut txn = self.db.begin_write()?;
            txn.set_durability(durability(sync))?;
            txn.open_table(SUMMARIES)?.insert(key, body)?;
            txn.commit()?;
            Ok(())
        };
        let _ = write();
    }

    /// A node's previous summary record, if stored and of layout `T`.
    pub(crate) fn previous_summary<T: DeserializeOwned>(&self, key: &str) -> Option<T> {
        let txn = self.db.begin_read().ok()?;
        let table = txn.open_table(PREVIOUS).ok()?;
        let stored = table.get(key).ok()??;
        codec::decode(stored.value())
    }

    /// Records a node's previous summary; `sync` as in [`Store::put_summary`].
    pub(crate) fn put_previous_summary<T: Serialize>(&self, key: &str, previous: &T, sync: bool) {
        let write = || -> std::result::Result<(), redb::Error> {
            let mut txn = self.db.begin_write()?;
            txn.set_durability(durability(sync))?;
            txn.open_table(PREVIOUS)?
                .insert(key, codec::encode(previous).as_slice())?;
            txn.commit()?;
            Ok(())
        };
        let _ = write();
    }
}

fn durability(sync: bool) -> redb::Durability {
    if sync {
        redb::Durability::Immediate
    } else {
        redb::Durability::None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summary_cache_round_trips() {
        let dir = tempfile::tempdir().unwrap();
        let (store, _) = Store::open(dir.path()).unwrap();
        assert_eq!(store.cached_summary("k"), None);
        store.put_summary("k", "body", true);
        store.put_summary("k2", "other", false);
        assert_eq!(store.cached_summary("k").as_deref(), Some("body"));
        assert_eq!(store.cached_summary("k2").as_deref(), Some("other"));
        assert_eq!(store.previous_summary::<(u64, String)>("p"), None);
        store.put_previous_summary("p", &(3u64, "s".to_string()), false);
        assert_eq!(
            store.previous_summary::<(u64, String)>("p"),
            Some((3, "s".to_string()))
        );
    }
}
