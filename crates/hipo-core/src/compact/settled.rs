//! A compaction that left the tree with nothing to do, remembered so that
//! the next one can say so without planning, or plan only what changed.
//!
//! Hooks run `hipo compact` many times a day on a tree that has not moved.
//! Planning that tree holds a listing of every file, a record map and a
//! state per node: at ten years about half a kilobyte a file. A clean run
//! (no problem, no failed summary, no warning; see [`remember`]) therefore
//! leaves a `settled` record in the store: the run's key (the binary, the
//! store's schema, the config, the day, who writes summaries), an
//! order-free [`Digest`] of every file's path, size and change stamp as
//! the run left the tree (its store's file records, the files it wrote at
//! their new stamps), and its report's node list. The next run with the
//! same key first stats the files most likely to have changed (today's raw
//! log, the files changed last), then walks the tree folding each file
//! into a digest, holding none of them; equal digests mean the slow path
//! would plan the same tree from the same store to the same nothing, so
//! the report is the one remembered. A run that finds the tree moved
//! plans only what the changed files reach when its store's records are
//! the ones the record vouches for ([`since`], `compact::since`), and in
//! full otherwise; a run that is not clean forgets the record.
//!
//! The key names the binary itself (its version, size and change stamp,
//! the later of mtime and ctime, so a package manager's fixed mtimes do
//! not hide a new binary): a new hipo, or a developer's rebuild, plans once
//! in full before it trusts a record, since its planning may differ from
//! the one that settled.

use super::since::{Dirty, Files, Partial, Remembered};
use super::{NodeInfo, Options, Report};
use crate::codec;
use crate::config::CompactionConfig;
use crate::error::Result;
use crate::layout::Level;
use crate::markdown::Status;
use crate::scan::{self, Digest, Listing, Scan};
use crate::store::{Batch, Hash, Store};
use crate::summarize::Summarizer;
use serde::{Deserialize, Serialize};
use std::path::Path;

/// The store's meta keys: the record, and its report's nodes apart, so a
/// run that finds the tree moved reads a few hundred bytes, not the
/// nodes (300 KB at ten years). Both are written in one transaction.
const META_KEY: &str = "settled";
const NODES_KEY: &str = "settled-nodes";

/// How many of the files changed last are stat'ed before the walk.
const WATCHED: usize = 8;

/// A file's size and change stamp, `None` when it does not exist.
type Stamp = Option<(u64, i128)>;

/// What a settled run left for the next.
#[derive(Serialize, Deserialize)]
struct Settled {
    key: Hash,
    digest: Digest,
    /// Stat'ed before the walk: a change there is told without walking.
    watched: Vec<(String, Stamp)>,
}

/// The report's nodes, as [`NodeInfo`] (which skips empty fields when
/// serialised, which postcard cannot read back).
type Nodes = Vec<(String, Level, Status, u64, u64, Vec<String>)>;

/// [`Nodes`] borrowed from a report: encoded alike, without a copy of
/// every path.
type NodesRef<'a> = Vec<(&'a str, Level, Status, u64, u64, &'a [String])>;

/// What a run must match to be answered from a [`Settled`] record; `None`
/// for a run that is never answered so (a dry run plans for its own
/// report, `--resummarize` and `summarize PATH` ask for work).
pub(super) fn key(
    config: &CompactionConfig,
    options: &Options,
    summarizer: &dyn Summarizer,
) -> Option<Hash> {
    if options.dry_run || options.resummarize || options.only.is_some() {
        return None;
    }
    let exe = std::env::current_exe().and_then(std::fs::metadata).ok()?;
    let mut h = blake3::Hasher::new();
    h.update(b"hipo-settled-v2\0");
    h.update(env!("CARGO_PKG_VERSION").as_bytes());
    h.update(b"\0");
    h.update(&exe.len().to_le_bytes());
    h.update(&scan::mtime_ns(&exe).to_le_bytes());
    h.update(&crate::store::SCHEMA_VERSION.to_le_bytes());
    // The config as serialized, not its `Debug` text: a field's value,
    // not how Rust prints it, decides (a float printed alike is the same).
    let config = codec::encode(config);
    h.update(&(config.len() as u64).to_le_bytes());
    h.update(&config);
    h.update(format!("{}\0", options.today).as_bytes());
    h.update(summarizer.writer().to_string().as_bytes());
    h.update(&[u8::from(summarizer.is_active())]);
    Some(*h.finalize().as_bytes())
}

/// The report of a run on a tree that has not moved since a run with the
/// same key settled it; `None` when the run must plan. The store is opened
/// read only for this, so an answered run writes nothing to it (redb syncs
/// its header on a writable open and its allocator on close).
pub fn answer(
    root: &Path,
    config: &CompactionConfig,
    summarizer: &dyn Summarizer,
    options: &Options,
) -> Option<Report> {
    let key = key(config, options, summarizer)?;
    let _span = crate::timing::span("compact: settled record");
    let store = Store::open_read_only(root)?;
    let settled: Settled = store.meta(META_KEY)?;
    drop(_span);
    if !settled.holds(root, &key) {
        return None;
    }
    let nodes: Nodes = store.meta(NODES_KEY)?;
    Some(report(nodes, options))
}

/// Where a run with `key` on the store's file records (their `digest`)
/// starts when a settled record vouches for them: only the nodes the
/// files `scan` found changed can reach are planned ([`super::since`]);
/// `None` plans in full.
pub(super) fn since(
    store: &Store,
    key: &Hash,
    digest: Digest,
    scan: &Scan,
) -> Result<Option<Partial>> {
    let Some(settled) = store.meta::<Settled>(META_KEY)? else {
        return Ok(None);
    };
    if settled.key != *key || settled.digest != digest {
        return Ok(None);
    }
    let Some(dirty) = Dirty::of(scan) else {
        return Ok(None);
    };
    let Some(nodes) = store.meta::<Nodes>(NODES_KEY)? else {
        return Ok(None);
    };
    let remembered = Remembered::new(infos(nodes).collect());
    Ok(Some(Partial { dirty, remembered }))
}

/// Whether the store holds a record to forget.
fn recorded(store: &Store) -> Result<bool> {
    store.has_meta(META_KEY)
}

impl Settled {
    /// Whether a run with `key` finds the tree as this record left it.
    fn holds(&self, root: &Path, key: &Hash) -> bool {
        let _span = crate::timing::span("compact: settled check");
        &self.key == key
            && self
                .watched
                .iter()
                .all(|(rel, was)| stamp(root, rel) == *was)
            && scan::digest(root) == Some(self.digest)
    }
}

/// The remembered report, for `options`' day.
fn report(nodes: Nodes, options: &Options) -> Report {
    Report {
        today: options.today.to_string(),
        nodes: infos(nodes).collect(),
        ..Report::default()
    }
}

/// The remembered report's nodes.
fn infos(nodes: Nodes) -> impl Iterator<Item = NodeInfo> {
    nodes.into_iter().map(
        |(path, level, status, lines, source_lines, pending)| NodeInfo {
            path,
            level,
            status,
            lines: lines as usize,
            source_lines: source_lines as usize,
            pending,
        },
    )
}

/// After a run: leaves a record when the run was clean (no problem, no
/// failed summary, no warning, and with a model called, nothing left
/// waiting for one), so that the next run with the same key on the same
/// tree finds nothing to do, and one on a changed tree plans only what
/// changed; forgets an older one otherwise. `files` is the store's file
/// records as the run left them: the tree as listed, with the files the
/// run wrote at their stamps after the write.
pub(super) fn remember(
    store: &Store,
    root: &Path,
    key: Option<Hash>,
    files: &Files,
    listing: &Listing,
    report: &Report,
    summarizer: &dyn Summarizer,
) -> Result<()> {
    let waiting = summarizer.is_active()
        && report
            .nodes
            .iter()
            .any(|n| n.status == Status::NeedsSummarization);
    let clean = report.problems.is_empty()
        && report.summary_failures.is_empty()
        && report.warnings.is_empty()
        && !waiting;
    let (Some(key), true) = (key, clean) else {
        return forget(store);
    };
    let _span = crate::timing::span("compact: settle");
    let settled = Settled {
        key,
        digest: files.digest(),
        watched: watched(root, newest(files, listing), report),
    };
    let nodes: NodesRef = report
        .nodes
        .iter()
        .map(|n| {
            (
                n.path.as_str(),
                n.level,
                n.status,
                n.lines as u64,
                n.source_lines as u64,
                n.pending.as_slice(),
            )
        })
        .collect();
    // Unsynced: the store's close syncs it (one `fdatasync` fewer, of the
    // dozen an append's compaction waits for). A kill before the close
    // loses the record and nothing else, and a run without it plans in
    // full, as after an unclean run (`tests/compact_settled.rs`, the
    // record lost to a kill).
    store.commit_unsynced(&meta(codec::encode(&settled), codec::encode(&nodes)))
}

/// Forgets the record, if there is one.
pub(super) fn forget(store: &Store) -> Result<()> {
    if recorded(store)? {
        store.commit(&meta(Vec::new(), Vec::new()))?;
    }
    Ok(())
}

/// The meta entries that forget the record, to commit with other changes.
pub(super) fn forgotten() -> Vec<(String, Vec<u8>)> {
    // An empty value does not decode: the record is forgotten.
    meta(Vec::new(), Vec::new()).meta
}

/// The [`WATCHED`] files changed last, newest first: of the files the run
/// wrote (at their stamps now) and the others as listed.
fn newest(files: &Files, listing: &Listing) -> Vec<(String, u64, i128)> {
    let mut out: Vec<(String, u64, i128)> = files
        .committed()
        .map(|(rel, size, mtime)| (rel.to_string(), size, mtime))
        .collect();
    let written: std::collections::HashSet<String> = out.iter().map(|f| f.0.clone()).collect();
    let listed = listing.newest(WATCHED + written.len());
    out.extend(listed.into_iter().filter(|f| !written.contains(&f.0)));
    out.sort_unstable_by(|a, b| b.2.cmp(&a.2).then(a.0.cmp(&b.0)));
    out.truncate(WATCHED);
    out
}

/// Today's raw log (where an agent appends) and the files changed last,
/// with their stamps now.
fn watched(root: &Path, newest: Vec<(String, u64, i128)>, report: &Report) -> Vec<(String, Stamp)> {
    let mut out: Vec<(String, Stamp)> = newest
        .into_iter()
        .map(|(rel, size, mtime)| (rel, Some((size, mtime))))
        .collect();
    if let Ok(today) = report.today.parse() {
        let raw = crate::tree::raw_path(today);
        if !out.iter().any(|(rel, _)| *rel == raw) {
            let now = stamp(root, &raw);
            out.push((raw, now));
        }
    }
    out
}

/// A file's size and change stamp as the walk sees them (through a
/// symlink).
fn stamp(root: &Path, rel: &str) -> Stamp {
    let meta = std::fs::metadata(root.join(rel)).ok()?;
    meta.is_file().then(|| (meta.len(), scan::mtime_ns(&meta)))
}

fn meta(settled: Vec<u8>, nodes: Vec<u8>) -> Batch {
    Batch {
        meta: vec![
            (META_KEY.to_string(), settled),
            (NODES_KEY.to_string(), nodes),
        ],
        ..Batch::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::summarize::NoneSummarizer;

    #[test]
    fn the_nodes_borrowed_are_encoded_as_the_nodes_read_back() {
        let owned: Nodes = vec![(
            "memory/weekly/2026-W09.md".into(),
            Level::Weekly,
            Status::NeedsSummarization,
            3,
            40,
            vec!["memory/daily/2026-03-01.md".into()],
        )];
        let borrowed: NodesRef = owned
            .iter()
            .map(|n| (n.0.as_str(), n.1, n.2, n.3, n.4, n.5.as_slice()))
            .collect();
        assert_eq!(codec::encode(&borrowed), codec::encode(&owned));
        assert_eq!(
            codec::decode::<Nodes>(&codec::encode(&borrowed)),
            Some(owned)
        );
    }

    #[test]
    fn the_key_follows_the_serialized_config_and_the_day() {
        let day = chrono::NaiveDate::from_ymd_opt(2027, 1, 21).unwrap();
        let options = Options::new(day);
        let config = CompactionConfig::default();
        let k = |c: &CompactionConfig, o: &Options| key(c, o, &NoneSummarizer);
        assert_eq!(k(&config, &options), k(&config.clone(), &options));
        let cooler = CompactionConfig {
            cooldown_hours: 3.000001,
            ..config.clone()
        };
        assert_ne!(k(&config, &options), k(&cooler, &options));
        let tighter = CompactionConfig {
            daily_threshold: 201,
            ..config.clone()
        };
        assert_ne!(k(&config, &options), k(&tighter, &options));
        let tomorrow = Options::new(day.succ_opt().unwrap());
        assert_ne!(k(&config, &options), k(&config, &tomorrow));
        let dry = Options {
            dry_run: true,
            ..options.clone()
        };
        assert_eq!(k(&config, &dry), None, "a dry run is never settled");
    }
}
