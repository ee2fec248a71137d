//! `.hipo/index/`: one tantivy index over every level of memory, kept in
//! step with the Markdown by the same kind of scan compaction uses.
//!
//! The unit is a window of a section ([`sections`]). Each section has a key
//! (a hash of its path, place, file metadata and text); the store's
//! `index_files` table remembers each file's keys, so a sync re-indexes only
//! sections whose key changed and deletes the keys of vanished sections and
//! files: no ghosts, and an append costs one section or two. tantivy commits
//! before the store, and every add is preceded by a delete of its key, so a
//! sync interrupted between the two commits is simply redone.
//!
//! The index never holds a secret: section text is redacted before it is
//! tokenised. It does not store the text either (snippets are cut from the
//! Markdown, the source of truth), which keeps it well under the corpus size.

pub mod analyzer;
pub mod sections;

use crate::config::Config;
use crate::error::{Error, Problem, Result};
use crate::fsutil::ProjectLock;
use crate::fsutil::read_utf8;
use crate::layout::{NodeId, PathKind};
use crate::markdown::{self, Status};
use crate::redact::redact;
use crate::scan::{self, ScannedFile};
pub use crate::store::index::{IndexedFile, Key};
use crate::store::{FileRecord, Store};
use chrono::{Datelike, NaiveDate};
use rayon::prelude::*;
use sections::Section;
use serde::{Deserialize, Serialize};
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use tantivy::indexer::NoMergePolicy;
use tantivy::query::{BooleanQuery, Occur, TermQuery};
use tantivy::schema::{
    Field, IndexRecordOption, NumericOptions, STORED, STRING, Schema, TextFieldIndexing,
    TextOptions,
};
use tantivy::{IndexReader, IndexWriter, ReloadPolicy, TantivyDocument, Term};

/// What the index holds and how it is cut; bump with any change to the
/// schema or to [`sections`]. Recorded with [`analyzer::ANALYZER_VERSION`]:
/// a different pair rebuilds the index.
pub const LAYOUT_VERSION: &str = "index-6";

/// The version string recorded in the store.
pub fn version() -> String {
    format!("{LAYOUT_VERSION}+{}", analyzer::ANALYZER_VERSION)
}

/// More segments than this after a sync merges all but the
/// [`KEEP_SEGMENTS`] largest into one, so searches stay fast however many
/// small updates came before, and a merge comes once in several appends.
const MAX_SEGMENTS: usize = 8;
const KEEP_SEGMENTS: usize = 3;

/// Where a searchable file sits, as search filters and ranks it.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, Default,
)]
#[serde(rename_all = "lowercase")]
pub enum DocLevel {
    #[default]
    Raw,
    Daily,
    Weekly,
    Monthly,
    Root,
    Knowledge,
    Plans,
    Other,
}

impl DocLevel {
    /// Every level, most specific first.
    pub const ALL: [DocLevel; 8] = [
        DocLevel::Raw,
        DocLevel::Daily,
        DocLevel::Weekly,
        DocLevel::Monthly,
        DocLevel::Root,
        DocLevel::Knowledge,
        DocLevel::Plans,
        DocLevel::Other,
    ];

    /// The name used in filters and output.
    pub fn as_str(self) -> &'static str {
        match self {
            DocLevel::Raw => "raw",
            DocLevel::Daily => "daily",
            DocLevel::Weekly => "weekly",
            DocLevel::Monthly => "monthly",
            DocLevel::Root => "root",
            DocLevel::Knowledge => "knowledge",
            DocLevel::Plans => "plans",
            DocLevel::Other => "other",
        }
    }

    /// Parses a filter value.
    pub fn parse(s: &str) -> Option<DocLevel> {
        DocLevel::ALL.into_iter().find(|l| l.as_str() == s)
    }

    /// Lower is more specific: where a duplicated passage is shown.
    pub fn rank(self) -> u64 {
        self as u64
    }

    /// The level of a scanned path.
    pub fn of(kind: PathKind) -> DocLevel {
        match kind {
            PathKind::Raw(_) => DocLevel::Raw,
            PathKind::Node(NodeId::Daily(_)) => DocLevel::Daily,
            PathKind::Node(NodeId::Weekly(_)) => DocLevel::Weekly,
            PathKind::Node(NodeId::Monthly(_)) => DocLevel::Monthly,
            PathKind::Node(NodeId::Root) => DocLevel::Root,
            PathKind::Knowledge => DocLevel::Knowledge,
            PathKind::Plans => DocLevel::Plans,
            PathKind::Other => DocLevel::Other,
        }
    }
}

/// Dates are indexed as days since 0001-01-01 (chrono's day 1).
pub fn day_number(d: NaiveDate) -> u64 {
    d.num_days_from_ce().max(0) as u64
}

/// The inverse of [`day_number`].
pub fn day_of(n: u64) -> Option<NaiveDate> {
    NaiveDate::from_num_days_from_ce_opt(i32::try_from(n).ok()?)
}

/// The index's fields, looked up once.
#[derive(Debug, Clone, Copy)]
pub struct Fields {
    /// Window text, redacted; positions for phrases.
    pub body: Field,
    /// `title › heading` of the section: indexed (boosted) and stored.
    pub heading: Field,
    /// Lines of the window a user wrote (`User:` turns).
    pub user: Field,
    pub path: Field,
    /// Hex of the section key; shared by a section's windows.
    pub key: Field,
    /// [`sections::fingerprint`]: equal for verbatim copies.
    pub fp: Field,
    /// The section key's first 8 bytes, to group windows fast.
    pub sec: Field,
    /// Window ordinal within its section.
    pub win: Field,
    pub level: Field,
    pub level_rank: Field,
    /// Entry type tag.
    pub kind: Field,
    pub status: Field,
    pub date_lo: Field,
    pub date_hi: Field,
    pub period: Field,
    pub sec_lo: Field,
    pub sec_hi: Field,
    pub win_lo: Field,
    pub win_hi: Field,
    pub sbyte_lo: Field,
    pub sbyte_hi: Field,
    pub wbyte_lo: Field,
    pub wbyte_hi: Field,
    /// 1 when the section held a secret (redacted in the index): only such
    /// sections need redacting again when shown.
    pub secret: Field,
}

fn schema() -> Schema {
    let mut b = Schema::builder();
    let text = |positions: bool| {
        TextOptions::default().set_indexing_options(
            TextFieldIndexing::default()
                .set_tokenizer(analyzer::NAME)
                .set_index_option(if positions {
                    IndexRecordOption::WithFreqsAndPositions
                } else {
                    IndexRecordOption::WithFreqs
                }),
        )
    };
    let fast_u64 = NumericOptions::default()
        .set_indexed()
        .set_fast()
        .set_stored();
    b.add_text_field("body", text(true));
    b.add_text_field("heading", text(false).set_stored());
    b.add_text_field("user", text(false));
    b.add_text_field("path", STRING | STORED);
    b.add_text_field("key", STRING | STORED);
    b.add_u64_field("fp", NumericOptions::default().set_indexed().set_fast());
    b.add_u64_field("sec", NumericOptions::default().set_fast());
    b.add_u64_field("win", NumericOptions::default().set_fast());
    b.add_text_field("level", STRING | STORED);
    b.add_u64_field("level_rank", NumericOptions::default().set_fast());
    b.add_text_field("kind", STRING | STORED);
    b.add_text_field("status", STORED);
    b.add_u64_field("date_lo", fast_u64.clone());
    b.add_u64_field("date_hi", fast_u64);
    b.add_text_field("period", STORED);
    for f in [
        "sec_lo", "sec_hi", "win_lo", "win_hi", "sbyte_lo", "sbyte_hi", "wbyte_lo", "wbyte_hi",
        "secret",
    ] {
        b.add_u64_field(f, STORED);
    }
    b.build()
}

impl Fields {
    fn of(schema: &Schema) -> Result<Fields> {
        let f = |name: &str| {
            schema.get_field(name).map_err(|_| {
                Error::IndexLayout(format!("field `{name}` missing; run `hipo rebuild`"))
            })
        };
        Ok(Fields {
            body: f("body")?,
            heading: f("heading")?,
            user: f("user")?,
            path: f("path")?,
            key: f("key")?,
            fp: f("fp")?,
            sec: f("sec")?,
            win: f("win")?,
            level: f("level")?,
            level_rank: f("level_rank")?,
            kind: f("kind")?,
            status: f("status")?,
            date_lo: f("date_lo")?,
            date_hi: f("date_hi")?,
            period: f("period")?,
            sec_lo: f("sec_lo")?,
            sec_hi: f("sec_hi")?,
            win_lo: f("win_lo")?,
            win_hi: f("win_hi")?,
            sbyte_lo: f("sbyte_lo")?,
            sbyte_hi: f("sbyte_hi")?,
            wbyte_lo: f("wbyte_lo")?,
            wbyte_hi: f("wbyte_hi")?,
            secret: f("secret")?,
        })
    }
}

/// An open index and a reader on it.
pub struct SearchIndex {
    pub index: tantivy::Index,
    pub fields: Fields,
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

    /// Opens the index under `root` as it is, for reading.
    pub fn open(root: &Path) -> Result<SearchIndex> {
        let dir = Self::dir_in(root);
        let index = tantivy::Index::open_in_dir(&dir).map_err(Error::index("opening"))?;
        Self::wrap(index, dir)
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
        let index =
            tantivy::Index::create_in_dir(&dir, schema()).map_err(Error::index("creating"))?;
        Self::wrap(index, dir)
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
    pub fn searcher(&self) -> tantivy::Searcher {
        self.reader.searcher()
    }

    /// Documents (windows), segments and bytes on disk.
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
        IndexStats {
            windows: searcher.num_docs(),
            segments: searcher.segment_readers().len(),
            bytes,
        }
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

/// Size of the index.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct IndexStats {
    /// Indexed windows (a short section is one window).
    pub windows: u64,
    pub segments: usize,
    /// Bytes of `.hipo/index/`.
    pub bytes: u64,
}

/// What a sync did.
#[derive(Debug, Default, Serialize)]
pub struct SyncReport {
    /// Set when the whole index was rebuilt, with why.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rebuilt: Option<String>,
    /// Files searched.
    pub files: usize,
    /// Files (re)indexed.
    pub files_indexed: usize,
    /// Files gone from the index.
    pub files_removed: usize,
    pub sections_added: usize,
    pub sections_removed: usize,
    /// Files skipped, with why.
    pub problems: Vec<Problem>,
}

impl SyncReport {
    /// True when the index changed.
    pub fn changed(&self) -> bool {
        self.files_indexed + self.files_removed > 0 || self.rebuilt.is_some()
    }
}

/// Progress of a sync, for a bar.
pub trait SyncProgress: Sync {
    /// `total` files are about to be indexed.
    fn begin(&self, _total: usize) {}
    /// One more file is done.
    fn file_done(&self) {}
}

/// Progress that shows nothing.
pub struct NoSyncProgress;
impl SyncProgress for NoSyncProgress {}

/// What a sync starts from: what the index recorded of each file, and a
/// scan of the tree against it.
struct Look {
    known: HashMap<String, IndexedFile>,
    scan: scan::Scan,
}

/// Brings the index under `root` up to date with the Markdown and returns
/// it open. The caller holds the project lock.
pub fn sync(
    root: &Path,
    store: &Store,
    config: &Config,
    progress: &dyn SyncProgress,
) -> Result<(SearchIndex, SyncReport)> {
    sync_from(root, store, config, None, progress)
}

/// [`sync`], from a look already taken (under the same lock) if any.
fn sync_from(
    root: &Path,
    store: &Store,
    config: &Config,
    look: Option<Look>,
    progress: &dyn SyncProgress,
) -> Result<(SearchIndex, SyncReport)> {
    let mut report = SyncReport::default();
    let index = match open_current(root, store)? {
        Ok(index) => index,
        Err(why) => {
            report.rebuilt = Some(why);
            store.clear_index_files()?;
            SearchIndex::create(root)?
        }
    };
    let Look { known, mut scan } = match look {
        Some(look) if report.rebuilt.is_none() => look,
        _ => {
            let known = match report.rebuilt {
                Some(_) => HashMap::new(),
                None => store.index_files()?,
            };
            let scan = scan_against(root, &known, config)?;
            Look { known, scan }
        }
    };
    report.files = scan.files.len();
    report.problems = std::mem::take(&mut scan.problems);
    let mut updates: Vec<(String, Option<IndexedFile>)> = Vec::new();
    // A file touched but not changed (same hash) only gets a new record.
    let mut changed: Vec<(&String, &ScannedFile)> = Vec::new();
    for (rel, file) in scan.files.iter().filter(|(_, f)| f.changed) {
        match known.get(rel) {
            Some(old) if old.hash == file.record.hash => updates.push((
                rel.clone(),
                Some(IndexedFile {
                    size: file.record.size,
                    mtime_ns: file.record.mtime_ns,
                    ..old.clone()
                }),
            )),
            _ => changed.push((rel, file)),
        }
    }
    if changed.is_empty() && scan.removed.is_empty() {
        if report.rebuilt.is_some() || !updates.is_empty() {
            store.save_index_files(&updates, &version())?;
        }
        return Ok((index, report));
    }

    progress.begin(changed.len());
    let empty = Vec::new();
    let prepare_one = |(rel, file): &(&String, &ScannedFile)| {
        let old = known.get(*rel).map(|f| &f.keys).unwrap_or(&empty);
        let p = prepare(root, rel, file, old, &index.fields);
        progress.file_done();
        p
    };
    // A few files are read in less time than starting a thread pool takes.
    let prepared: Vec<std::result::Result<Prepared, Problem>> = if changed.len() <= 4 {
        changed.iter().map(prepare_one).collect()
    } else {
        changed.par_iter().map(prepare_one).collect()
    };
    let bytes: u64 = changed.iter().map(|(_, f)| f.record.size).sum();
    let threads = if bytes > 4 << 20 {
        std::thread::available_parallelism().map_or(1, |n| n.get().min(4))
    } else {
        1
    };
    let mut writer = index.writer(threads)?;
    let f = index.fields;
    let key_term = |k: &Key| Term::from_field_text(f.key, &hex(k));
    let path_term = |rel: &str| Term::from_field_text(f.path, rel);
    for rel in &scan.removed {
        writer.delete_term(path_term(rel));
        if let Some(old) = known.get(rel) {
            report.sections_removed += old.keys.len();
            report.files_removed += 1;
        }
        updates.push((rel.clone(), None));
    }
    for p in prepared {
        let p = match p {
            Ok(p) => p,
            Err(problem) => {
                report.problems.push(problem);
                continue;
            }
        };
        // Whatever the index holds of this file that is not one of its
        // sections now goes, whether or not the store remembered it (a sync
        // cut short after tantivy's commit leaves no ghosts behind).
        let mut stale: Vec<(Occur, Box<dyn tantivy::query::Query>)> = vec![(
            Occur::Must,
            Box::new(TermQuery::new(path_term(&p.rel), IndexRecordOption::Basic)),
        )];
        stale.extend(p.record.keys.iter().map(|k| {
            let q: Box<dyn tantivy::query::Query> =
                Box::new(TermQuery::new(key_term(k), IndexRecordOption::Basic));
            (Occur::MustNot, q)
        }));
        writer
            .delete_query(Box::new(BooleanQuery::new(stale)))
            .map_err(Error::index("deleting old sections"))?;
        let new: HashSet<&Key> = p.record.keys.iter().collect();
        if let Some(old) = known.get(&p.rel) {
            report.sections_removed += old.keys.iter().filter(|k| !new.contains(k)).count();
        }
        for (key, docs) in p.docs {
            writer.delete_term(key_term(&key));
            for doc in docs {
                writer
                    .add_document(doc)
                    .map_err(Error::index("adding a document"))?;
            }
            report.sections_added += 1;
        }
        report.files_indexed += 1;
        updates.push((p.rel, Some(p.record)));
    }
    writer.commit().map_err(Error::index("committing"))?;
    compact_segments(&index, &mut writer)?;
    writer
        .wait_merging_threads()
        .map_err(Error::index("finishing"))?;
    index.reader.reload().map_err(Error::index("reloading"))?;
    store.save_index_files(&updates, &version())?;
    report.problems.sort_by(|a, b| a.path.cmp(&b.path));
    Ok((index, report))
}

/// Stats every searchable file against what the index recorded.
fn scan_against(
    root: &Path,
    known: &HashMap<String, IndexedFile>,
    config: &Config,
) -> Result<scan::Scan> {
    let records: HashMap<String, FileRecord> = known
        .iter()
        .map(|(k, v)| {
            let rec = FileRecord {
                size: v.size,
                mtime_ns: v.mtime_ns,
                hash: v.hash,
            };
            (k.clone(), rec)
        })
        .collect();
    scan::scan_with_globs(root, &records, &config.search.extra_globs)
}

/// What a read-only look at the store says.
enum Check {
    /// The index is this version and no file changed since it was synced.
    Fresh(Box<(SearchIndex, SyncReport)>),
    /// Files changed: the look, for [`sync_from`] to start from.
    Stale(Look),
    /// No usable store or index: a full [`sync`] decides.
    Unknown,
}

/// The common case costs not a single disk write: the store opened read
/// only says the index is current and a stat of the tree finds no change.
fn check(root: &Path, config: &Config) -> Result<Check> {
    let Some(db) = Store::open_read_only(root) else {
        return Ok(Check::Unknown);
    };
    if db.index_version().as_deref() != Some(version().as_str()) || !SearchIndex::exists(root) {
        return Ok(Check::Unknown);
    }
    let Some(known) = db.index_files() else {
        return Ok(Check::Unknown);
    };
    drop(db);
    let mut scan = scan_against(root, &known, config)?;
    if scan.any_change() {
        return Ok(Check::Stale(Look { known, scan }));
    }
    let Ok(index) = SearchIndex::open(root) else {
        return Ok(Check::Unknown);
    };
    let report = SyncReport {
        files: scan.files.len(),
        problems: std::mem::take(&mut scan.problems),
        ..Default::default()
    };
    Ok(Check::Fresh(Box::new((index, report))))
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

/// Opens the index if it exists and was built by this version; `Err(why)`
/// when it must be rebuilt.
fn open_current(root: &Path, store: &Store) -> Result<std::result::Result<SearchIndex, String>> {
    let recorded = store.index_version()?;
    if !SearchIndex::exists(root) {
        return Ok(Err(match recorded {
            Some(_) => "the index was missing".into(),
            None => "no index yet".into(),
        }));
    }
    if recorded.as_deref() != Some(version().as_str()) {
        return Ok(Err(format!(
            "the index was built by {}, not {}",
            recorded.as_deref().unwrap_or("an unknown version"),
            version()
        )));
    }
    Ok(SearchIndex::open(root).map_err(|e| format!("{e}")))
}

/// One changed file, ready to index.
struct Prepared {
    rel: String,
    record: IndexedFile,
    /// Documents for sections the index does not have yet, by key.
    docs: Vec<(Key, Vec<TantivyDocument>)>,
}

/// What a file contributes to every one of its documents.
struct FileMeta {
    level: DocLevel,
    status: Option<Status>,
    /// First and last day the file covers.
    dates: Option<(NaiveDate, NaiveDate)>,
    period: Option<String>,
}

fn prepare(
    root: &Path,
    rel: &str,
    file: &ScannedFile,
    old: &[Key],
    fields: &Fields,
) -> std::result::Result<Prepared, Problem> {
    let text = read_utf8(root, rel).map_err(|e| Problem {
        path: rel.to_string(),
        line: None,
        message: format!("{e}; not searchable until fixed"),
    })?;
    let meta = file_meta(file.kind, &text);
    let record = |keys| IndexedFile {
        size: file.record.size,
        mtime_ns: file.record.mtime_ns,
        hash: file.record.hash,
        keys,
    };
    // A node still waiting for its summary holds only hipo's instructions.
    if meta.status == Some(Status::NeedsSummarization) {
        return Ok(Prepared {
            rel: rel.to_string(),
            record: record(Vec::new()),
            docs: Vec::new(),
        });
    }
    let old: HashSet<&Key> = old.iter().collect();
    let mut keys = Vec::new();
    let mut docs = Vec::new();
    for section in sections::split(&text) {
        let raw = &text[section.bytes.clone()];
        let redacted = redact(raw);
        let fp = sections::fingerprint(&redacted);
        let key = section_key(rel, &meta, &section, fp);
        keys.push(key);
        if !old.contains(&key) {
            let passage = Passage {
                raw,
                redacted: &redacted,
                secret: matches!(redacted, std::borrow::Cow::Owned(_)),
                fp,
                key: &key,
            };
            docs.push((key, documents(rel, &meta, &section, &passage, fields)));
        }
    }
    Ok(Prepared {
        rel: rel.to_string(),
        record: record(keys),
        docs,
    })
}

fn file_meta(kind: PathKind, text: &str) -> FileMeta {
    let status = markdown::parse_document(text)
        .ok()
        .and_then(|d| d.frontmatter)
        .and_then(|f| f.parsed_status().ok().flatten());
    let (dates, period) = match kind {
        PathKind::Raw(d) => (Some((d, d)), Some(d.to_string())),
        PathKind::Node(id) if id != NodeId::Root => (id.date_range(), Some(id.period())),
        _ => (None, None),
    };
    FileMeta {
        level: DocLevel::of(kind),
        status,
        dates,
        period,
    }
}

/// A section's identity: where it is, what its file says of it, and its
/// [`sections::fingerprint`] (its redacted text, as indexed). Anything that
/// changes a document changes the key; a change the index cannot see (a
/// secret replaced by another, trailing spaces) does not.
fn section_key(rel: &str, meta: &FileMeta, s: &Section, fp: u64) -> Key {
    let mut h = blake3::Hasher::new();
    for part in [
        rel,
        meta.status.map_or("", Status::as_str),
        &s.heading_path(),
        &format!("{:?} {:?} {fp}", s.lines, s.bytes),
    ] {
        h.update(part.as_bytes());
        h.update(&[0]);
    }
    let mut key = [0u8; 16];
    key.copy_from_slice(&h.finalize().as_bytes()[..16]);
    key
}

/// Lowercase hex.
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// A section's text as read and as indexed.
struct Passage<'a> {
    raw: &'a str,
    redacted: &'a str,
    /// The redacted text differs from the raw.
    secret: bool,
    fp: u64,
    key: &'a Key,
}

/// The documents (one per window) of a section.
fn documents(
    rel: &str,
    meta: &FileMeta,
    s: &Section,
    p: &Passage,
    f: &Fields,
) -> Vec<TantivyDocument> {
    let secret = p.secret;
    let lines = section_lines(p.redacted, p.raw, s.lines.1 - s.lines.0 + 1);
    let (fp, key) = (p.fp, p.key);
    let mut sec = [0u8; 8];
    sec.copy_from_slice(&key[..8]);
    let sec = u64::from_le_bytes(sec);
    // A weekly or monthly concatenation files each day under `# YYYY-MM-DD`.
    // A monthly holds whole ISO weeks, so a day may sit up to six days
    // outside its month (2026-12-28 in 2027-01); it is still that day.
    let dates = s
        .title
        .as_deref()
        .and_then(|t| NaiveDate::parse_from_str(t, "%Y-%m-%d").ok())
        .filter(|d| {
            meta.dates.is_some_and(|(lo, hi)| {
                let slack = chrono::Days::new(6);
                lo.checked_sub_days(slack).unwrap_or(lo) <= *d
                    && *d <= hi.checked_add_days(slack).unwrap_or(hi)
            })
        })
        .map(|d| (d, d))
        .or(meta.dates);
    let key_hex = hex(key);
    // The `#` title is context for every section under it: a knowledge
    // file titled "Postgres migration" answers "postgres" in each part.
    // Headings are indexed and shown, so they are redacted like the text.
    let heading_path = redact(&s.heading_path()).into_owned();
    s.windows
        .iter()
        .enumerate()
        .map(|(i, w)| {
            let at = |n: usize| n - s.lines.0;
            let body: String = lines[at(w.lines.0)..=at(w.lines.1)].concat();
            let user: String = w.user.iter().map(|&n| lines[at(n)]).collect();
            let mut doc = TantivyDocument::default();
            doc.add_text(f.body, &body);
            doc.add_text(f.heading, &heading_path);
            if !user.is_empty() {
                doc.add_text(f.user, &user);
            }
            doc.add_text(f.path, rel);
            doc.add_text(f.key, &key_hex);
            doc.add_u64(f.fp, fp);
            doc.add_u64(f.sec, sec);
            doc.add_u64(f.win, i as u64);
            doc.add_text(f.level, meta.level.as_str());
            doc.add_u64(f.level_rank, meta.level.rank());
            doc.add_text(f.kind, s.kind.as_str());
            if let Some(st) = meta.status {
                doc.add_text(f.status, st.as_str());
            }
            if let Some((lo, hi)) = dates {
                doc.add_u64(f.date_lo, day_number(lo));
                doc.add_u64(f.date_hi, day_number(hi));
            }
            if let Some(p) = &meta.period {
                doc.add_text(f.period, p);
            }
            for (field, v) in [
                (f.sec_lo, s.lines.0),
                (f.sec_hi, s.lines.1),
                (f.win_lo, w.lines.0),
                (f.win_hi, w.lines.1),
                (f.sbyte_lo, s.bytes.start),
                (f.sbyte_hi, s.bytes.end),
                (f.wbyte_lo, w.bytes.start),
                (f.wbyte_hi, w.bytes.end),
                (f.secret, usize::from(secret)),
            ] {
                doc.add_u64(field, v as u64);
            }
            doc
        })
        .collect()
}

/// The redacted section's lines, one per line of the file. Redaction keeps
/// line breaks; should it ever not, the raw lines' count is kept by
/// redacting line by line instead.
pub fn section_lines<'a>(redacted: &'a str, raw: &'a str, expected: usize) -> Vec<&'a str> {
    let lines: Vec<&str> = redacted.split_inclusive('\n').collect();
    if lines.len() == expected {
        return lines;
    }
    raw.split_inclusive('\n')
        .map(|l| match redact(l) {
            std::borrow::Cow::Borrowed(_) => l,
            std::borrow::Cow::Owned(_) => "[REDACTED]\n",
        })
        .collect()
}

/// An index as a search gets it.
pub struct Fresh {
    pub index: SearchIndex,
    /// What the sync did; `None` when another hipo process held the
    /// project lock and the index was searched as it was.
    pub sync: Option<SyncReport>,
    /// Things to tell the user (a rebuilt store, a stale index).
    pub warnings: Vec<String>,
}

/// Opens the index under `root`, brought up to date first. If another hipo
/// process holds the project lock longer than `wait` (a long model-backed
/// compaction), an existing index is searched as it is, with a warning,
/// rather than making the caller wait; with no index yet it waits up to
/// `max_wait`. With `wait` equal to `max_wait` (`hipo index`, the explicit
/// update) a lock held that long is an [`Error::Busy`], never a stale index.
pub fn fresh(
    root: &Path,
    wait: std::time::Duration,
    max_wait: std::time::Duration,
    progress: &dyn SyncProgress,
) -> Result<Fresh> {
    let config = Config::load(root)?;
    let _lock = match ProjectLock::acquire(root, wait, || {}) {
        Ok(lock) => lock,
        Err(e @ Error::Busy { .. }) if wait >= max_wait => return Err(e),
        Err(Error::Busy { .. }) if SearchIndex::exists(root) => {
            return Ok(Fresh {
                index: SearchIndex::open(root)?,
                sync: None,
                warnings: vec![
                    "another hipo process is updating this project; results may miss its latest changes".into(),
                ],
            });
        }
        Err(Error::Busy { .. }) => ProjectLock::acquire(root, max_wait, || {})?,
        Err(e) => return Err(e),
    };
    let look = match check(root, &config)? {
        Check::Fresh(found) => {
            let (index, report) = *found;
            return Ok(Fresh {
                index,
                sync: Some(report),
                warnings: Vec::new(),
            });
        }
        Check::Stale(look) => Some(look),
        Check::Unknown => None,
    };
    let (store, warning) = Store::open(root)?;
    let (index, report) = sync_from(root, &store, &config, look, progress)?;
    Ok(Fresh {
        index,
        sync: Some(report),
        warnings: warning.into_iter().collect(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn day_numbers_round_trip() {
        let d = NaiveDate::from_ymd_opt(2026, 3, 15).unwrap();
        assert_eq!(day_of(day_number(d)), Some(d));
    }

    #[test]
    fn levels_parse_and_rank() {
        for l in DocLevel::ALL {
            assert_eq!(DocLevel::parse(l.as_str()), Some(l));
        }
        assert!(DocLevel::Raw.rank() < DocLevel::Daily.rank());
        assert_eq!(DocLevel::parse("hourly"), None);
    }
}
