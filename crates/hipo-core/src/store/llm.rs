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

/// Tokens a model counts per token hipo estimated: key = model name;
/// value = the ratio (f64 bits). Learned from cut prompts and reported
/// counts, so the next chunks fit the first time.
const RATIOS: TableDefinition<&str, u64> = TableDefinition::new("llm_token_ratio");

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
            crate::failpoint::hit("store.commit", &self.path.display()).map_err(redb::Error::Io)?;
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
            crate::failpoint::hit("store.commit", &self.path.display()).map_err(redb::Error::Io)?;
            txn.commit()?;
            Ok(())
        };
        let _ = write();
    }
}

impl Store {
    /// A model's learned tokens-per-estimate ratio.
    pub(crate) fn token_ratio(&self, model: &str) -> Option<f64> {
        let txn = self.db.begin_read().ok()?;
        let table = txn.open_table(RATIOS).ok()?;
        let bits = table.get(model).ok()??.value();
        Some(f64::from_bits(bits)).filter(|r| r.is_finite() && *r > 0.0)
    }

    /// Records a model's ratio, synced: it is learned rarely and saves a
    /// cut prompt next time.
    pub(crate) fn put_token_ratio(&self, model: &str, ratio: f64) {
        let write = || -> std::result::Result<(), redb::Error> {
            let txn = self.db.begin_write()?;
            txn.open_table(RATIOS)?.insert(model, ratio.to_bits())?;
            crate::failpoint::hit("store.commit", &self.path.display()).map_err(redb::Error::Io)?;
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
        assert_eq!(store.token_ratio("m"), None);
        store.put_token_ratio("m", 1.75);
        assert_eq!(store.token_ratio("m"), Some(1.75));
    }
}
