//! The writes of one sync: the changed files handed to tantivy's writer
//! in batches, each committed whole; the files gone and the stale
//! sections of changed files deleted; small segments merged at the end.

use super::documents::{Outcome, Prepared, hex, prepare};
use super::report::SyncReport;
use super::{SearchIndex, version};
use crate::error::{Error, Result};
use crate::progress::{Event, Progress, Task};
use crate::scan::ScannedFile;
use crate::store::Store;
use crate::store::index::{IndexedFile, Key};
use rayon::prelude::*;
use std::collections::{HashMap, HashSet};
use std::path::Path;
use tantivy::query::{BooleanQuery, Occur, TermQuery, TermSetQuery};
use tantivy::schema::IndexRecordOption;
use tantivy::{IndexWriter, Term};

/// More segments than this after a sync merges all but the
/// [`KEEP_SEGMENTS`] largest into one, so searches stay fast however many
/// small updates came before, and a merge comes once in several appends.
const MAX_SEGMENTS: usize = 8;
const KEEP_SEGMENTS: usize = 3;

/// Bytes of changed files indexed between two commits. tantivy queues up
/// to 10,000 documents for its indexing threads, and files are read and
/// cut faster than they are indexed, so a build that handed every file to
/// the writer before one commit held queued sections in proportion to
/// the history (a 3-year build: 77 MB of its 167 MB heap). A commit
/// waits for the queue to drain; after each batch of this size, what is
/// queued stays bounded whatever the history's size (a single larger
/// file is a batch of its own). 16 MiB: 32 kept a 10-year build's
/// resident memory a third higher, 8 made it slower. Each batch is
/// whole: its files' new sections added and their stale ones deleted,
/// then committed, then its files' records saved, synced: a build cut
/// short keeps every batch it finished, and the next sync goes on from
/// there (a first build of ten years' history takes 15 s, longer than a
/// hook may run; each try now gets further instead of starting over).
pub(super) const BATCH_BYTES: u64 = 16 << 20;

/// A file record to write (`None`: forget the file).
pub(super) type Update = (String, Option<IndexedFile>);

/// A file whose text changed, as scanned.
pub(super) type Changed<'a> = (&'a String, &'a ScannedFile);

/// The index a sync writes to and what it recorded of each file.
pub(super) struct Sync<'a> {
    pub root: &'a Path,
    pub index: &'a SearchIndex,
    /// Where each finished batch's records go.
    pub store: &'a Store,
    pub known: &'a HashMap<String, IndexedFile>,
    /// [`BATCH_BYTES`], but for tests.
    pub batch_bytes: u64,
    /// [`super::tier::ONE_SEGMENT_DOCS`], but for tests (0: a build keeps
    /// the segments its batches left).
    pub one_segment_docs: u32,
}

/// Deletes the files gone, indexes the changed ones batch by batch
/// ([`BATCH_BYTES`]), and commits; each file indexed or removed is
/// accounted for in the report and gets its record update, saved with its
/// batch but for the last batch's, left in `updates` for the caller.
pub(super) fn write(
    s: &Sync,
    changed: &[Changed],
    removed: &[String],
    (report, updates): (&mut SyncReport, &mut Vec<Update>),
    progress: &dyn Progress,
) -> Result<()> {
    let mut writer = s.index.writer(writer_threads(changed))?;
    progress.event(Event::Begin {
        task: Task::Index,
        total: changed.len(),
    });
    // What the index held before this sync: a new section's key is there
    // only if an interrupted sync added it without its record.
    let committed = s.index.searcher();
    let mut apply = Apply {
        sync: s,
        report,
        updates,
    };
    apply.remove(&writer, removed);
    let mut tier = super::tier::Tier::new(s.index)?;
    let one_segment_docs = if tier.builds_from_nothing() {
        s.one_segment_docs
    } else {
        0
    };
    let mut batches = batches(changed, s.batch_bytes).peekable();
    while let Some(batch) = batches.next() {
        let ctx = Batch {
            sync: s,
            committed: &committed,
            writer: &writer,
        };
        for outcome in index_changed(&ctx, batch, progress)? {
            match outcome {
                Ok(p) => apply.add(&writer, p)?,
                Err(problem) => apply.fail(&writer, problem),
            }
        }
        if batches.peek().is_some() {
            commit(s.index, &mut writer)?;
            // tantivy first: a kill between the two commits only makes the
            // next sync index this batch's files again.
            s.store.checkpoint_index_files(apply.updates, &version())?;
            apply.updates.clear();
            tier.merge_when_full(s.index, &mut writer)?;
            give_back_freed_memory();
        }
    }
    finish(s.index, writer, one_segment_docs)
}

/// The changed files in runs of at most `limit` bytes (a larger file is
/// a run of its own), in order.
fn batches<'a, 'b>(
    changed: &'a [Changed<'b>],
    limit: u64,
) -> impl Iterator<Item = &'a [Changed<'b>]> {
    let mut rest = changed;
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        let mut bytes = 0;
        let n = rest
            .iter()
            .take_while(|(_, f)| {
                let first = bytes == 0;
                bytes += f.record.size.max(1);
                first || bytes <= limit
            })
            .count();
        let (batch, after) = rest.split_at(n);
        rest = after;
        Some(batch)
    })
}

/// What indexing a batch of files needs.
struct Batch<'a> {
    sync: &'a Sync<'a>,
    /// The index as it was before this sync.
    committed: &'a tantivy::Searcher,
    writer: &'a IndexWriter,
}

/// Reads and cuts the changed files (in parallel when there are enough)
/// and hands each new section's documents to the writer as soon as they
/// are made, each add preceded by a delete of its key. Nothing of the
/// corpus is kept: memory is a file per worker, the writer's queue (a
/// batch at most, see [`BATCH_BYTES`]) and its budget, whatever the
/// history's size. What is left per file is its record.
fn index_changed(b: &Batch, changed: &[Changed], progress: &dyn Progress) -> Result<Vec<Outcome>> {
    let empty = Vec::new();
    let key_field = b.sync.index.fields.key;
    let (writer, committed) = (b.writer, b.committed);
    let index_one = |(rel, file): &(&String, &ScannedFile)| {
        let old = b.sync.known.get(*rel).map(|f| &f.keys).unwrap_or(&empty);
        let mut sink = |key: Key, docs: Vec<tantivy::TantivyDocument>| {
            // Deleting a key first keeps such a leftover from doubling.
            // Only a key the index holds is deleted: tantivy applies each
            // delete over the whole new segment at commit, so a delete per
            // section made a big file's build quadratic (a 20 MB log: 12.6 s).
            let term = Term::from_field_text(key_field, &hex(&key));
            if committed
                .doc_freq(&term)
                .map_err(Error::index("looking up a section"))?
                > 0
            {
                writer.delete_term(term);
            }
            for doc in docs {
                writer
                    .add_document(doc)
                    .map_err(Error::index("adding a document"))?;
            }
            Ok(())
        };
        let outcome = prepare(b.sync.root, rel, file, old, &b.sync.index.fields, &mut sink);
        progress.event(Event::Done);
        outcome
    };
    // A few files are read in less time than starting a thread pool takes.
    if changed.len() <= 4 {
        changed.iter().map(index_one).collect()
    } else {
        changed.par_iter().map(index_one).collect()
    }
}

/// Indexing threads: more than one only pays for a large batch.
fn writer_threads(changed: &[Changed]) -> usize {
    let bytes: u64 = changed.iter().map(|(_, f)| f.record.size).sum();
    if bytes > 4 << 20 {
        std::thread::available_parallelism().map_or(1, |n| n.get().min(4))
    } else {
        1
    }
}

/// The writes of one sync, and their account.
struct Apply<'a> {
    sync: &'a Sync<'a>,
    report: &'a mut SyncReport,
    updates: &'a mut Vec<Update>,
}

impl Apply<'_> {
    fn key_term(&self, k: &Key) -> Term {
        Term::from_field_text(self.sync.index.fields.key, &hex(k))
    }

    fn path_term(&self, rel: &str) -> Term {
        Term::from_field_text(self.sync.index.fields.path, rel)
    }

    /// Deletes every document of files gone from the tree.
    fn remove(&mut self, writer: &IndexWriter, removed: &[String]) {
        for rel in removed {
            writer.delete_term(self.path_term(rel));
            if let Some(old) = self.sync.known.get(rel) {
                self.report.sections_removed += old.keys.len();
                self.report.files_removed += 1;
            }
            self.updates.push((rel.clone(), None));
        }
    }

    /// A changed file that could not be read to its end (gone, or a line
    /// that is not UTF-8 written since the scan): what the index holds of
    /// it goes, with whatever its read added before it failed, and its
    /// record too, so the next sync reads it again.
    fn fail(&mut self, writer: &IndexWriter, problem: crate::error::Problem) {
        writer.delete_term(self.path_term(&problem.path));
        if let Some(old) = self.sync.known.get(&problem.path) {
            self.report.sections_removed += old.keys.len();
        }
        self.updates.push((problem.path.clone(), None));
        self.report.problems.push(problem);
    }

    /// Deletes what the index holds of a file that is not one of its
    /// sections now, whether or not the store remembered it (a sync cut
    /// short after tantivy's commit leaves no ghosts behind), and accounts
    /// for its new sections, already added by [`index_changed`]. The new
    /// documents' keys are all kept out of the delete, so issuing it after
    /// their adds removes none of them.
    fn add(&mut self, writer: &IndexWriter, p: Prepared) -> Result<()> {
        let mut stale: Vec<(Occur, Box<dyn tantivy::query::Query>)> = vec![(
            Occur::Must,
            Box::new(TermQuery::new(
                self.path_term(&p.rel),
                IndexRecordOption::Basic,
            )),
        )];
        // One set query, not a clause per key: tantivy applies a delete
        // when it commits, seeking every document of the file through the
        // exclusion, and a union of one scorer per section made that
        // quadratic in a big file (a 20 MB log: 10 s of its 12).
        stale.push((
            Occur::MustNot,
            Box::new(TermSetQuery::new(
                p.record.keys.iter().map(|k| self.key_term(k)),
            )),
        ));
        writer
            .delete_query(Box::new(BooleanQuery::new(stale)))
            .map_err(Error::index("deleting old sections"))?;
        let new: HashSet<&Key> = p.record.keys.iter().collect();
        if let Some(old) = self.sync.known.get(&p.rel) {
            self.report.sections_removed += old.keys.iter().filter(|k| !new.contains(k)).count();
        }
        self.report.sections_added += p.added;
        self.report.files_indexed += 1;
        self.updates.push((p.rel, Some(p.record)));
        Ok(())
    }
}

/// Returns the heap a batch freed to the system. glibc keeps what the
/// indexing threads free in their arenas for reuse, and another thread's
/// next batch allocates afresh, so without this a 10-year build's resident
/// memory grew to twice its live heap (263 MiB against 96).
fn give_back_freed_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim only walks glibc's own arenas under their locks;
    // it takes no pointer and touches no live allocation.
    unsafe {
        libc::malloc_trim(0);
    }
}

/// Commits what the writer was given (a failpoint boundary).
fn commit(index: &SearchIndex, writer: &mut IndexWriter) -> Result<()> {
    crate::failpoint::hit("index.commit", &index.dir.display())
        .map_err(|e| Error::io(&index.dir, e))?;
    writer.commit().map_err(Error::index("committing"))?;
    Ok(())
}

/// Commits, merges small segments (all of them when the index was built
/// from nothing and holds at most `one_segment_docs` documents, see
/// [`super::tier::ONE_SEGMENT_DOCS`]), deletes the files the merge
/// replaced, and shows the result to the reader.
fn finish(index: &SearchIndex, mut writer: IndexWriter, one_segment_docs: u32) -> Result<()> {
    commit(index, &mut writer)?;
    if !super::tier::merge_all_if_small(index, &mut writer, one_segment_docs)? {
        compact_segments(index, &mut writer)?;
    }
    // A merge leaves the segments it replaced on disk (a 10-year build:
    // 46 files, 78 MB), which the next run would take for an interrupted
    // update's and remove with a warning. Failing here loses nothing: the
    // next run removes them.
    let _ = writer.garbage_collect_files().wait();
    writer
        .wait_merging_threads()
        .map_err(Error::index("finishing"))?;
    index.reader.reload().map_err(Error::index("reloading"))
}

/// Keeps the segment count at most [`MAX_SEGMENTS`] by merging the small
/// segments. Each sync adds one small segment, so a merge is small: the
/// large segments of a full build are never rewritten by an append.
fn compact_segments(index: &SearchIndex, writer: &mut IndexWriter) -> Result<()> {
    let mut metas = index
        .index
        .searchable_segment_metas()
        .map_err(Error::index("listing segments"))?;
    // A segment a quarter deleted (nodes rewritten, sections re-indexed) is
    // merged too, so deletions do not pile up in the large segments.
    let heavy = |m: &tantivy::index::SegmentMeta| m.num_deleted_docs() * 4 > m.max_doc();
    metas.sort_by_key(|m| m.num_docs());
    let smallest = metas.len().saturating_sub(KEEP_SEGMENTS);
    let too_many = metas.len() > MAX_SEGMENTS;
    let merge: Vec<_> = metas
        .iter()
        .enumerate()
        .filter(|(i, m)| (too_many && *i < smallest) || heavy(m))
        .map(|(_, m)| m.id())
        .collect();
    if merge.is_empty() {
        return Ok(());
    }
    writer
        .merge(&merge)
        .wait()
        .map_err(Error::index("merging segments"))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::sync::{scan_against, triage};
    use crate::progress::NoProgress;
    use crate::scan::Listing;

    /// Writes `days` raw logs of a few sections each under `root`.
    fn tree(root: &Path, days: u32) {
        std::fs::create_dir_all(root.join("memory")).unwrap();
        for d in 1..=days {
            let log = format!(
                "# 2026-01-{d:02}\n\n## Deploy {d} [project]\n- the wombat rollout, step {d}\n\n## Kayak {d} [project]\n- the river trip, day {d}\n"
            );
            std::fs::write(root.join(format!("memory/2026-01-{d:02}.md")), log).unwrap();
        }
    }

    /// A project of `days` raw logs and its store.
    fn project(days: u32) -> (tempfile::TempDir, Store) {
        let dir = tempfile::tempdir().unwrap();
        tree(dir.path(), days);
        let store = Store::open(dir.path()).unwrap().0;
        (dir, store)
    }

    /// The keys of every document the index holds, sorted.
    fn keys(index: &SearchIndex) -> Vec<String> {
        use tantivy::schema::Value;
        let searcher = index.searcher();
        let all = tantivy::collector::DocSetCollector;
        let docs = searcher.search(&tantivy::query::AllQuery, &all).unwrap();
        let mut keys: Vec<String> = docs
            .into_iter()
            .map(|a| {
                let doc: tantivy::TantivyDocument = searcher.doc(a).unwrap();
                let key = doc.get_first(index.fields.key).and_then(|v| v.as_str());
                key.unwrap().to_string()
            })
            .collect();
        keys.sort();
        keys
    }

    /// Starts a first build of the tree in batches of `limit` bytes and
    /// writes its first `files` files, as a build killed before its last
    /// records were saved would have: the index, the report and the
    /// records left unsaved.
    fn build(
        root: &Path,
        store: &Store,
        limit: u64,
        files: usize,
    ) -> (SearchIndex, SyncReport, usize) {
        let index = SearchIndex::create(root).unwrap();
        let known = HashMap::new();
        let scan = scan_against(root, &known, Listing::walk(root, &[]).unwrap());
        let (mut updates, changed) = triage(&scan, &known);
        let mut report = SyncReport::default();
        let s = Sync {
            root,
            index: &index,
            store,
            known: &known,
            batch_bytes: limit,
            one_segment_docs: 0,
        };
        let changed = &changed[..files.min(changed.len())];
        write(&s, changed, &[], (&mut report, &mut updates), &NoProgress).unwrap();
        (index, report, updates.len())
    }

    /// Many commits (a batch per file) index exactly what one does, and
    /// each finished batch's records are saved as it commits.
    #[test]
    fn a_build_in_batches_indexes_what_one_commit_does() {
        let [(a, sa), (b, sb)] = [0, 1].map(|_| project(9));
        let (one, r1, left1) = build(a.path(), &sa, BATCH_BYTES, 9);
        let (many, r9, left9) = build(b.path(), &sb, 1, 9);
        assert_eq!((r1.sections_added, r9.sections_added), (18, 18));
        assert_eq!(r9.files_indexed, 9);
        assert!(!keys(&one).is_empty());
        assert_eq!(keys(&one), keys(&many));
        assert_eq!(
            (left1, left9),
            (9, 1),
            "the last batch's records are the caller's"
        );
        assert_eq!(sa.index_files().unwrap().len(), 0);
        assert_eq!(sb.index_files().unwrap().len(), 8);
    }

    /// Hits of equal score, and a section's windows of equal score, come
    /// back in the same order whatever segments the index was cut into:
    /// ties are ordered by place, not by the index's document order, which
    /// follows its segments (a multi-threaded build of the MemAware corpus
    /// showed one hit at line 1056 or 1024 from one build to the next).
    /// At this size the indexing threads do not split a section's windows
    /// across segments as they did there, so the old order passes too:
    /// `benches/golden.sh NEW NEW` on MemAware is the check that catches it.
    #[test]
    fn ties_come_back_alike_from_one_segment_or_many() {
        let hits = |index: &SearchIndex, root: &Path| -> Vec<(String, usize)> {
            let q = crate::search::query::parse("wombat rollout").unwrap();
            crate::search::search(index, root, &q, &crate::search::Options::default())
                .unwrap()
                .into_iter()
                .map(|h| (h.path, h.line))
                .collect()
        };
        // Each log one long section of like lines: its windows tie.
        let project = || {
            let dir = tempfile::tempdir().unwrap();
            std::fs::create_dir_all(dir.path().join("memory")).unwrap();
            for d in 1..=9 {
                let lines = format!("- the wombat rollout went out to region{d}\n").repeat(400);
                let log = format!("# 2026-01-{d:02}\n\n## Deploy [project]\n{lines}");
                std::fs::write(dir.path().join(format!("memory/2026-01-{d:02}.md")), log).unwrap();
            }
            let store = Store::open(dir.path()).unwrap().0;
            (dir, store)
        };
        let (a, sa) = project();
        let (one, ..) = build(a.path(), &sa, BATCH_BYTES, 9);
        let want = hits(&one, a.path());
        assert_eq!(want.len(), 9, "{want:?}");
        for _ in 0..2 {
            let (b, sb) = project();
            let (many, ..) = build(b.path(), &sb, 1, 9);
            assert_eq!(hits(&many, b.path()), want);
        }
    }

    /// A first build cut short after five of nine files (the fifth
    /// committed, its record not saved) is not thrown away: the next sync
    /// indexes the fifth again and the four never started, and the index
    /// ends as a clean build's, nothing doubled.
    #[test]
    fn a_first_build_cut_short_goes_on_where_it_stopped() {
        let [(a, sa), (b, sb)] = [0, 1].map(|_| project(9));
        let (clean, ..) = build(a.path(), &sa, BATCH_BYTES, 9);
        let (cut, _, left) = build(b.path(), &sb, 1, 5);
        assert_eq!(left, 1);
        drop(cut);
        let config = crate::config::Config::default();
        let (index, report) =
            crate::index::sync::sync(b.path(), &sb, &config, &NoProgress).unwrap();
        assert!(report.rebuilt.is_none(), "{:?}", report.rebuilt);
        assert_eq!(report.files_indexed, 5);
        assert_eq!(keys(&index), keys(&clean));
    }

    /// Runs keep the files' order, hold at most the limit unless one file
    /// is larger, and leave no file out.
    #[test]
    fn batches_split_by_bytes_and_keep_every_file() {
        let dir = tempfile::tempdir().unwrap();
        tree(dir.path(), 9);
        let known = HashMap::new();
        let scan = scan_against(dir.path(), &known, Listing::walk(dir.path(), &[]).unwrap());
        let (_, changed) = triage(&scan, &known);
        let size = changed[0].1.record.size;
        let runs = |limit| batches(&changed, limit).map(<[_]>::len).collect::<Vec<_>>();
        assert_eq!(runs(BATCH_BYTES), [9]);
        assert_eq!(runs(1), [1; 9]);
        assert_eq!(runs(size * 4), [4, 4, 1]);
        let flat: Vec<_> = batches(&changed, size * 2).flatten().map(|c| c.0).collect();
        assert_eq!(flat, changed.iter().map(|c| c.0).collect::<Vec<_>>());
    }

    /// A file that turns bad after the scan (a line that is not UTF-8
    /// appended in between), read past its first part before the bad line
    /// is met: what was handed to the writer goes again, with the file's
    /// record, so nothing half-read stays searchable and the next sync
    /// reads it again.
    #[test]
    fn a_file_bad_past_its_first_part_leaves_nothing_behind() {
        let (dir, store) = project(2);
        let root = dir.path();
        let index = SearchIndex::create(root).unwrap();
        let known = HashMap::new();
        let scan = scan_against(root, &known, Listing::walk(root, &[]).unwrap());
        let (mut updates, changed) = triage(&scan, &known);
        let rel = changed[0].0.clone();
        let mut bytes = std::fs::read(root.join(&rel)).unwrap();
        let filler = format!("\n## More [project]\n- {}\n", "filler ".repeat(4000));
        while bytes.len() < crate::index::parts::PART_BYTES + 1000 {
            bytes.extend_from_slice(filler.as_bytes());
        }
        bytes.extend_from_slice(b"\n## Bad [project]\nnot \xff UTF-8\n");
        std::fs::write(root.join(&rel), bytes).unwrap();
        let s = Sync {
            root,
            index: &index,
            store: &store,
            known: &known,
            batch_bytes: BATCH_BYTES,
            one_segment_docs: 0,
        };
        let mut report = SyncReport::default();
        write(&s, &changed, &[], (&mut report, &mut updates), &NoProgress).unwrap();
        assert_eq!(report.problems.len(), 1, "{:?}", report.problems);
        assert_eq!(report.problems[0].path, rel);
        assert!(updates.iter().any(|(r, f)| *r == rel && f.is_none()));
        let count = |path: &str| {
            let term = Term::from_field_text(index.fields.path, path);
            let query = TermQuery::new(term, IndexRecordOption::Basic);
            index
                .searcher()
                .search(&query, &tantivy::collector::Count)
                .unwrap()
        };
        assert_eq!(count(&rel), 0);
        // The other file is indexed as usual: two sections, one window each.
        assert_eq!(count(&changed[1].0.clone()), 4);
    }
}
