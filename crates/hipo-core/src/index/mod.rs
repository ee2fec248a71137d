//! `.hipo/index/`: one tantivy index over every level of memory, kept in
//! step with the Markdown by the same kind of scan compaction uses.
//!
//! The unit is a window of a section (`sections`), cut and turned into
//! documents by `documents`, under the `schema`; [`sync`] keeps the
//! index in step with the files and `fresh` looks whether it must (the
//! facade decides under which lock). This module opens, creates and
//! measures the index.
//!
//! The index never holds a secret: section text is redacted before it is
//! tokenised. It does not store the text either (snippets are cut from the
//! Markdown, the source of truth), which keeps it well under the corpus size.

pub(crate) mod analyzer;
mod documents;
mod export;
mod fresh;
mod parts;
pub(crate) mod postings;
mod report;
pub(crate) mod schema;
pub(crate) mod sections;
mod sync;
mod tier;
mod unlocked;
mod write;

use crate::error::{Error, Result};
use serde::Serialize;
use std::path::{Path, PathBuf};
use tantivy::indexer::NoMergePolicy;
use tantivy::{IndexReader, IndexWriter, ReloadPolicy};

pub use crate::layout::DocLevel;
pub(crate) use crate::layout::{day_number, day_of};
pub(crate) use documents::section_lines;
pub use export::{ExportOptions, ExportReport, export};
pub use fresh::{Fresh, Patience};
pub(crate) use fresh::{Stat, check, current, update};
pub(crate) use parts::{LinesBetween, line_count, lines_between, section_from};

pub use report::RebuildReason;
pub use report::SyncReport;
pub(crate) use schema::Fields;

/// What the index holds and how it is cut; bump with any change to the
/// schema or to [`sections`]. Recorded with [`analyzer::ANALYZER_VERSION`]:
/// a different pair rebuilds the index.
/// (index-9: `<private>` spans of hand-written files are no longer indexed.)
pub(crate) const LAYOUT_VERSION: &str = "index-9";

/// The version string recorded in the store.
pub(crate) fn version() -> String {
    format!("{LAYOUT_VERSION}+{}", analyzer::ANALYZER_VERSION)
}

/// An open index and a reader on it.
pub struct SearchIndex {
    pub(crate) index: tantivy::Index,
    pub(crate) fields: Fields,
    reader: IndexReader,
    dir: PathBuf,
}

impl SearchIndex {
    /// Where the index lives under a project root.
    pub fn dir_in(root: &Path) -> PathBuf {
        root.join(crate::layout::HIPO_DIR).join("index")
    }

    /// True if an index has been built under `root`.
    pub fn exists(root: &Path) -> bool {
        Self::dir_in(root).join("meta.json").is_file()
    }

    /// Opens the index under `root` as it is, for reading. On a disk
    /// that refuses writes, where tantivy's reader cannot take its lock
    /// file, it is opened without one ([`unlocked`]).
    pub fn open(root: &Path) -> Result<SearchIndex> {
        let dir = Self::dir_in(root);
        let index = if crate::failpoint::is_armed() {
            tantivy::Index::open(Self::fail_directory(&dir)?)
        } else {
            tantivy::Index::open_in_dir(&dir)
        }
        .map_err(Error::index("opening"))?;
        match Self::wrap(index, dir.clone()) {
            Err(e) if e.refusal() == Some(crate::error::Refusal::ReadOnly) => {
                let unlocked = tantivy::directory::MmapDirectory::open(&dir)
                    .map(unlocked::Unlocked)
                    .map_err(|e| Error::index("opening")(e.into()))?;
                let index = tantivy::Index::open(unlocked).map_err(Error::index("opening"))?;
                Self::wrap(index, dir)
            }
            done => done,
        }
    }

    /// Deletes any index under `root` and creates an empty one.
    fn create(root: &Path) -> Result<SearchIndex> {
        let dir = Self::dir_in(root);
        match std::fs::remove_dir_all(&dir) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(Error::io(&dir, e)),
        }
        std::fs::create_dir_all(&dir).map_err(|e| Error::io(&dir, e))?;
        let index = if crate::failpoint::is_armed() {
            tantivy::Index::create(
                Self::fail_directory(&dir)?,
                schema::schema(),
                tantivy::IndexSettings::default(),
            )
        } else {
            tantivy::Index::create_in_dir(&dir, schema::schema())
        }
        .map_err(Error::index("creating"))?;
        Self::wrap(index, dir)
    }

    /// The index directory with failpoints on tantivy's writes, for a
    /// build where `HIPO_FAILPOINT` is armed.
    fn fail_directory(dir: &Path) -> Result<crate::failpoint::FailDirectory> {
        tantivy::directory::MmapDirectory::open(dir)
            .map(crate::failpoint::FailDirectory)
            .map_err(|e| Error::index("opening")(e.into()))
    }

    fn wrap(index: tantivy::Index, dir: PathBuf) -> Result<SearchIndex> {
        index
            .tokenizers()
            .register(analyzer::NAME, analyzer::analyzer());
        let fields = Fields::of(&index.schema())?;
        let reader = index
            .reader_builder()
            .reload_policy(ReloadPolicy::Manual)
            .try_into()
            .map_err(Error::index("reading"))?;
        Ok(SearchIndex {
            index,
            fields,
            reader,
            dir,
        })
    }

    /// A searcher on the latest commit.
    pub(crate) fn searcher(&self) -> tantivy::Searcher {
        self.reader.searcher()
    }

    /// Windows (not counting the sections' ranking documents), segments and bytes on disk.
    pub fn stats(&self) -> IndexStats {
        let searcher = self.searcher();
        let bytes = std::fs::read_dir(&self.dir)
            .map(|entries| {
                entries
                    .flatten()
                    .filter_map(|e| e.metadata().ok())
                    .filter(|m| m.is_file())
                    .map(|m| m.len())
                    .sum()
            })
            .unwrap_or(0);
        let window = tantivy::query::TermQuery::new(
            tantivy::Term::from_field_text(self.fields.unit, schema::UNIT_WINDOW),
            tantivy::schema::IndexRecordOption::Basic,
        );
        IndexStats {
            windows: searcher
                .search(&window, &tantivy::collector::Count)
                .map_or(0, |n| n as u64),
            segments: searcher.segment_readers().len(),
            bytes,
        }
    }

    /// Files in the index directory that no commit refers to: what a
    /// killed update leaves behind (its new segments, the delete files it
    /// wrote before `meta.json`, tantivy's `.tmp*` files). A leftover
    /// `<segment>.<opstamp>.del` makes every later commit fail, so they go
    /// before any write ([`SearchIndex::remove_leftovers`]).
    pub(crate) fn leftovers(&self) -> Result<Vec<PathBuf>> {
        let metas = self
            .index
            .searchable_segment_metas()
            .map_err(Error::index("listing segments"))?;
        leftovers_among(&self.dir, &metas)
    }

    /// Deletes [`SearchIndex::leftovers`]; returns how many went. The
    /// caller holds the project lock.
    pub(crate) fn remove_leftovers(&self) -> Result<usize> {
        let found = self.leftovers()?;
        for path in &found {
            match std::fs::remove_file(path) {
                Ok(()) => {}
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => return Err(Error::io(path, e)),
            }
        }
        Ok(found.len())
    }

    fn writer(&self, threads: usize) -> Result<IndexWriter> {
        // One merge thread: merges are small and run in the foreground
        // (see `compact_segments`); every thread started costs an append.
        let options = tantivy::indexer::IndexWriterOptions::builder()
            .num_worker_threads(threads)
            .num_merge_threads(1)
            .memory_budget_per_thread(40_000_000)
            .build();
        let writer: IndexWriter = self
            .index
            .writer_with_options(options)
            .map_err(Error::index("opening a writer"))?;
        writer.set_merge_policy(Box::new(NoMergePolicy));
        Ok(writer)
    }
}

/// Leftovers of interrupted updates under `root`'s index, as paths
/// relative to the root; empty when there is no index or it cannot be
/// read (a search rebuilds that one anyway). For `hipo status`.
pub fn leftovers_in(root: &Path) -> Vec<String> {
    let dir = SearchIndex::dir_in(root);
    if !SearchIndex::exists(root) {
        return Vec::new();
    }
    let Ok(metas) = tantivy::Index::open_in_dir(&dir).and_then(|i| i.searchable_segment_metas())
    else {
        return Vec::new();
    };
    leftovers_among(&dir, &metas)
        .unwrap_or_default()
        .into_iter()
        .map(|p| {
            p.strip_prefix(root)
                .unwrap_or(&p)
                .to_string_lossy()
                .into_owned()
        })
        .collect()
}

/// The leftovers that would make the next commit fail: a delete file of a
/// living segment for an opstamp past the last commit (what a commit
/// killed halfway leaves; tantivy refuses to write it again). The rest of
/// [`leftovers_in`] is ordinary garbage of earlier commits that the next
/// write removes, and not worth a problem.
pub fn blocking_leftovers_in(root: &Path) -> Vec<String> {
    let Ok(index) = tantivy::Index::open_in_dir(SearchIndex::dir_in(root)) else {
        return Vec::new();
    };
    let Ok(metas) = index.load_metas() else {
        return Vec::new();
    };
    let living: std::collections::HashSet<String> = metas
        .segments
        .iter()
        .map(|m| m.id().uuid_string())
        .collect();
    let past_commit = |name: &str| {
        let mut parts = name.split('.');
        let (Some(uuid), Some(stamp), Some("del"), None) =
            (parts.next(), parts.next(), parts.next(), parts.next())
        else {
            return false;
        };
        living.contains(uuid) && stamp.parse::<u64>().is_ok_and(|s| s > metas.opstamp)
    };
    leftovers_in(root)
        .into_iter()
        .filter(|rel| {
            Path::new(rel)
                .file_name()
                .is_some_and(|n| past_commit(&n.to_string_lossy()))
        })
        .collect()
}

/// The files of `dir` that none of `metas` uses: tantivy's temporary
/// files, and segment files of a segment no commit lists or a delete file
/// of another opstamp than the committed one. Anything else (meta.json,
/// the lock files, a file hipo does not know) is left alone.
fn leftovers_among(dir: &Path, metas: &[tantivy::index::SegmentMeta]) -> Result<Vec<PathBuf>> {
    use std::collections::HashMap;
    use tantivy::index::SegmentComponent;
    let living: HashMap<String, Option<String>> = metas
        .iter()
        .map(|m| {
            let del = m
                .delete_opstamp()
                .map(|_| m.relative_path(SegmentComponent::Delete))
                .map(|p| p.to_string_lossy().into_owned());
            (m.id().uuid_string(), del)
        })
        .collect();
    let entries = std::fs::read_dir(dir).map_err(|e| Error::io(dir, e))?;
    let mut out = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|e| Error::io(dir, e))?;
        let name = entry.file_name().to_string_lossy().into_owned();
        let leftover = if name.starts_with(".tmp") {
            true
        } else if let Some((uuid, _)) = name
            .split_once('.')
            .filter(|(u, _)| u.len() == 32 && u.bytes().all(|b| b.is_ascii_hexdigit()))
        {
            match living.get(uuid) {
                None => true,
                Some(del) => name.ends_with(".del") && del.as_deref() != Some(name.as_str()),
            }
        } else {
            false
        };
        if leftover && entry.file_type().is_ok_and(|t| t.is_file()) {
            out.push(entry.path());
        }
    }
    out.sort();
    Ok(out)
}

/// Size of the index.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct IndexStats {
    /// Indexed windows (a short section is one window).
    pub windows: u64,
    pub segments: usize,
    /// Bytes of `.hipo/index/`.
    pub bytes: u64,
}
