//! The vector cache: one unit vector per passage of a section, under
//! `.hipo/vectors/`, keyed by the section's fingerprint, the passage's
//! text fingerprint and the model.
//!
//! A sidecar of files rather than rows in the redb store: vectors are
//! written by searches, which must not wait on (or hold) the store a
//! compaction writes, and brute-force cosine wants contiguous arrays it
//! can memory-map, not a million small values to decode.
//!
//! - `meta.json`: the model, the vectors' dimension and the generation `G`
//!   of the files below. Another model means another space: the files are
//!   dropped and rebuilt. Rewriting `meta.json` (temp + rename) is what
//!   makes a compacted generation current.
//! - `vectors.G.f16`: rows of `dim` little-endian f16, L2-normalised, so a
//!   cosine is a dot product: the exact vectors, to rescore the best.
//! - `vectors.G.i8`: the same rows quantised to `dim` i8 (scale per row):
//!   half the bytes for the scan over every row ([`super::scan`]).
//! - `rows.G.bin`: per row, [`ROW_BYTES`]: the section's fingerprint, the
//!   passage text's fingerprint (u64 each), the passage's place and the
//!   section's count of passages (u16 each) and the i8 scale (f32).
//!
//! Rows are appended a batch at a time, vectors before rows, and the
//! number of valid rows is the smallest count of the three files, less a
//! section whose last passage is missing: a run interrupted mid-batch
//! leaves a torn tail that the next writer cuts off, and what was written
//! before it is kept, so the run resumes where it stopped. Appends and
//! compactions happen only under `lock`.

use super::scan;
use crate::error::{Error, Result};
use format::{FpHash, Record, decode, encode, encode_vector};
use memmap2::Mmap;
use std::cell::OnceCell;
use std::collections::{HashMap, HashSet};
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};

/// The cache's directory under `.hipo/`.
pub const DIR: &str = "vectors";
const META: &str = "meta.json";
const LOCK: &str = "lock";
/// Bumped when the files' layout changes, or what a section's passages
/// are (`embed::text`): an old cache is dropped. 3: a session's opening
/// turn is a passage of its own.
const FORMAT: u32 = 3;
pub use format::ROW_BYTES;
/// Rows of sections the index no longer holds are dropped once they are
/// more than this share of all rows: rewriting the files costs a pass over
/// them, so not for every edited section (a live log changes its last
/// section at every turn), yet the files never grow past a third more
/// than what is live.
pub const STALE_SHARE: f64 = 0.25;

#[derive(serde::Serialize, serde::Deserialize, PartialEq)]
struct Meta {
    format: u32,
    model: String,
    dim: usize,
    #[serde(default)]
    generation: u64,
}

/// One passage's vector, to append.
#[derive(Debug, Clone)]
pub struct Row {
    pub section: u64,
    pub text: u64,
    /// Its place among the section's passages, and their count.
    pub piece: u16,
    pub count: u16,
    pub vector: Vec<f32>,
}

/// The vectors of one model, as on disk when last loaded.
pub struct VectorCache {
    dir: PathBuf,
    model: String,
    /// 0 until the first vector is known.
    dim: usize,
    generation: u64,
    records: Vec<Record>,
    /// Each section's rows: `[start, end)`, first copy only.
    groups: Vec<(u64, usize, usize)>,
    known: HashSet<u64, FpHash>,
    /// Passage text fingerprint → a row holding its vector: built on first
    /// use, which only a writer makes (a search's open stays cheap).
    texts: OnceCell<HashMap<u64, usize, FpHash>>,
    f16: Option<Mmap>,
    i8: Option<Mmap>,
}

/// Holds `.hipo/vectors/lock`: the one process writing.
pub struct WriteLock {
    _file: File,
}

fn names(generation: u64) -> [String; 3] {
    [
        format!("vectors.{generation}.f16"),
        format!("vectors.{generation}.i8"),
        format!("rows.{generation}.bin"),
    ]
}

impl VectorCache {
    /// The cache for `model` under `hipo_dir` (`.hipo/`). A cache of another
    /// model or format, or one whose meta cannot be read, is dropped.
    pub fn open(hipo_dir: &Path, model: &str) -> Result<VectorCache> {
        let dir = hipo_dir.join(DIR);
        std::fs::create_dir_all(&dir).map_err(|e| Error::io(&dir, e))?;
        let mut cache = VectorCache {
            dir,
            model: model.to_string(),
            dim: 0,
            generation: 0,
            records: Vec::new(),
            groups: Vec::new(),
            known: HashSet::default(),
            texts: OnceCell::new(),
            f16: None,
            i8: None,
        };
        // Another model's vectors (or none yet) read as an empty cache;
        // they are removed only by a writer, under the lock, when it
        // starts this model's rows ([`VectorCache::append`]): a reader
        // removing them could cut the files under a writer still
        // appending to them.
        cache.load()?;
        Ok(cache)
    }

    /// `meta.json` when it is this model's and format.
    fn read_meta(&self) -> Option<Meta> {
        std::fs::read(self.dir.join(META))
            .ok()
            .and_then(|b| serde_json::from_slice::<Meta>(&b).ok())
            .filter(|m| m.model == self.model && m.format == FORMAT)
    }

    /// Takes the write lock, waiting for another writer to finish.
    pub fn lock(&self) -> Result<WriteLock> {
        let path = self.dir.join(LOCK);
        let file = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&path)
            .map_err(|e| Error::io(&path, e))?;
        file.lock().map_err(|e| Error::io(&path, e))?;
        Ok(WriteLock { _file: file })
    }

    /// Removes every file but the lock.
    fn clear(&mut self) -> Result<()> {
        let entries = std::fs::read_dir(&self.dir).map_err(|e| Error::io(&self.dir, e))?;
        for entry in entries.flatten() {
            let p = entry.path();
            if entry.file_name() == LOCK {
                continue;
            }
            match std::fs::remove_file(&p) {
                Ok(()) => {}
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => return Err(Error::io(p, e)),
            }
        }
        self.dim = 0;
        self.generation = 0;
        self.forget();
        Ok(())
    }

    fn forget(&mut self) {
        self.records.clear();
        self.groups.clear();
        self.known.clear();
        self.texts = OnceCell::new();
        self.f16 = None;
        self.i8 = None;
    }

    /// Reads the current generation's rows and maps its vectors: the rows
    /// all three files hold whole, less a trailing section cut short.
    pub fn load(&mut self) -> Result<()> {
        let done = self.load_once();
        // A compaction made another generation current (and removed this
        // one's files) between reading the meta and the files: whether
        // that failed or read as empty, the new generation is read.
        let moved = |c: &Self| c.read_meta().is_some_and(|m| m.generation != c.generation);
        match done {
            Err(_) if self.read_meta().map(|m| m.generation) != Some(self.generation) => {
                self.load_once()
            }
            Ok(()) if moved(self) => self.load_once(),
            done => done,
        }
    }

    fn load_once(&mut self) -> Result<()> {
        self.forget();
        let Some(meta) = self.read_meta() else {
            self.dim = 0;
            return Ok(());
        };
        self.dim = meta.dim;
        self.generation = meta.generation;
        let [f16_name, i8_name, rows_name] = names(self.generation);
        let rows_path = self.dir.join(rows_name);
        let bytes = match std::fs::read(&rows_path) {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
            Err(e) => return Err(Error::io(rows_path, e)),
        };
        let len = |name: &str| std::fs::metadata(self.dir.join(name)).map_or(0, |m| m.len());
        let mut rows = bytes.len() / ROW_BYTES;
        if self.dim > 0 {
            rows = rows
                .min(len(&f16_name) as usize / (2 * self.dim))
                .min(len(&i8_name) as usize / self.dim);
        } else {
            rows = 0;
        }
        self.records = bytes
            .chunks_exact(ROW_BYTES)
            .take(rows)
            .map(decode)
            .collect();
        // A section whose last passage is missing was torn: cut it off.
        // (Checked: a corrupt record must not wrap or underflow; it cuts
        // the whole tail it claims, or everything.)
        if let Some(last) = self.records.last().copied()
            && u32::from(last.piece) + 1 != u32::from(last.count)
        {
            let keep = self
                .records
                .len()
                .saturating_sub(usize::from(last.piece) + 1);
            self.records.truncate(keep);
        }
        self.index_records();
        let rows = self.records.len();
        if rows > 0 {
            self.f16 = Some(map(&self.dir.join(&f16_name), rows * 2 * self.dim)?);
            self.i8 = Some(map(&self.dir.join(&i8_name), rows * self.dim)?);
        }
        Ok(())
    }

    /// Builds the sections' row ranges and the text lookup from `records`.
    fn index_records(&mut self) {
        self.groups.clear();
        self.known.clear();
        self.texts = OnceCell::new();
        self.index_rows(0);
    }

    /// Adds rows `from..` to the lookups (an append adds only its own, so
    /// a first run of many batches stays linear). A section's rows are
    /// contiguous; a second run of the same section (which no writer
    /// makes) is not looked at.
    fn index_rows(&mut self, from: usize) {
        for i in from..self.records.len() {
            let r = self.records[i];
            if let Some(texts) = self.texts.get_mut() {
                texts.entry(r.text).or_insert(i);
            }
            match self.groups.last_mut() {
                Some(g) if g.0 == r.section && g.2 == i => g.2 = i + 1,
                _ => {
                    if self.known.insert(r.section) {
                        self.groups.push((r.section, i, i + 1));
                    }
                }
            }
        }
    }

    /// Rows (passages) held.
    #[cfg(any(test, feature = "internals"))]
    pub fn len(&self) -> usize {
        self.records.len()
    }

    /// Sections held.
    pub fn sections(&self) -> usize {
        self.groups.len()
    }

    /// No rows yet.
    #[cfg(any(test, feature = "internals"))]
    pub fn is_empty(&self) -> bool {
        self.records.is_empty()
    }

    /// Whether the section with this fingerprint has its vectors.
    pub fn contains(&self, section: u64) -> bool {
        self.known.contains(&section)
    }

    fn texts(&self) -> &HashMap<u64, usize, FpHash> {
        self.texts.get_or_init(|| {
            let mut texts = HashMap::default();
            for (i, r) in self.records.iter().enumerate() {
                texts.entry(r.text).or_insert(i);
            }
            texts
        })
    }

    /// Whether a passage with this text fingerprint has a vector.
    pub fn has_text(&self, text: u64) -> bool {
        self.texts().contains_key(&text)
    }

    /// The vector of a passage text already embedded (any section's).
    pub fn vector_of_text(&self, text: u64) -> Option<Vec<f32>> {
        let row = *self.texts().get(&text)?;
        Some(self.exact(row))
    }

    /// Row `i`'s vector from the f16 file.
    fn exact(&self, i: usize) -> Vec<f32> {
        let Some(map) = &self.f16 else {
            return vec![0.0; self.dim];
        };
        scan::f16_row(map, self.dim, i)
    }

    /// Appends rows (under [`VectorCache::lock`]): vectors first, then
    /// their records, each flushed, so an interruption loses this batch
    /// at most. A section's rows are given together and in order (they may
    /// span batches: a section cut short is dropped when read back).
    pub fn append(&mut self, _lock: &WriteLock, rows: &[Row]) -> Result<()> {
        let Some(first) = rows.first() else {
            return Ok(());
        };
        if self.dim == 0 {
            self.start(first.vector.len())?;
        }
        let (mut halves, mut bytes, mut recs) = (Vec::new(), Vec::new(), Vec::new());
        let mut added = Vec::with_capacity(rows.len());
        for row in rows {
            if row.vector.len() != self.dim {
                return Err(Error::Llm(format!(
                    "embedding model `{}` answered vectors of {} and {} dimensions; delete .hipo/vectors and try again",
                    self.model,
                    self.dim,
                    row.vector.len()
                )));
            }
            let unit = normalized(&row.vector);
            let record = Record {
                section: row.section,
                text: row.text,
                piece: row.piece,
                count: row.count,
                scale: encode_vector(&unit, &mut halves, &mut bytes),
            };
            recs.extend_from_slice(&encode(&record));
            added.push(record);
        }
        self.cut_torn_tail()?;
        let [f16_name, i8_name, rows_name] = names(self.generation);
        append_file(&self.dir.join(f16_name), &halves)?;
        append_file(&self.dir.join(i8_name), &bytes)?;
        append_file(&self.dir.join(rows_name), &recs)?;
        let from = self.records.len();
        self.records.extend(added);
        self.index_rows(from);
        // The new rows are read through a fresh mapping.
        self.remap()
    }

    /// Maps the files again (after an append or a compaction).
    fn remap(&mut self) -> Result<()> {
        let rows = self.records.len();
        let [f16_name, i8_name, _] = names(self.generation);
        (self.f16, self.i8) = if rows == 0 {
            (None, None)
        } else {
            (
                Some(map(&self.dir.join(f16_name), rows * 2 * self.dim)?),
                Some(map(&self.dir.join(i8_name), rows * self.dim)?),
            )
        };
        Ok(())
    }

    /// Records the model and dimension of a new cache.
    fn start(&mut self, dim: usize) -> Result<()> {
        if dim == 0 {
            return Err(Error::Llm(format!(
                "embedding model `{}` answered an empty vector",
                self.model
            )));
        }
        self.clear()?;
        self.dim = dim;
        self.write_meta()
    }

    fn write_meta(&self) -> Result<()> {
        let meta = Meta {
            format: FORMAT,
            model: self.model.clone(),
            dim: self.dim,
            generation: self.generation,
        };
        let json = serde_json::to_vec(&meta).map_err(|e| Error::Llm(e.to_string()))?;
        crate::fsutil::write_atomic(&self.dir.join(META), &json)
    }

    /// Cuts the files to the rows this cache knows whole (a batch torn by
    /// an interruption), so new rows line up with their records.
    fn cut_torn_tail(&self) -> Result<()> {
        let rows = self.records.len();
        let [f16_name, i8_name, rows_name] = names(self.generation);
        for (name, len) in [
            (f16_name, rows * 2 * self.dim),
            (i8_name, rows * self.dim),
            (rows_name, rows * ROW_BYTES),
        ] {
            let p = self.dir.join(name);
            let Ok(m) = std::fs::metadata(&p) else {
                continue;
            };
            if m.len() as usize > len {
                let f = OpenOptions::new()
                    .write(true)
                    .open(&p)
                    .map_err(|e| Error::io(&p, e))?;
                f.set_len(len as u64).map_err(|e| Error::io(&p, e))?;
            }
        }
        Ok(())
    }

    /// Rows whose section `live` does not hold (or a second copy of a
    /// section's rows).
    pub fn stale(&self, live: &HashSet<u64>) -> usize {
        let kept: usize = self
            .groups
            .iter()
            .filter(|g| live.contains(&g.0))
            .map(|g| g.2 - g.1)
            .sum();
        self.records.len() - kept
    }

    /// Whether [`VectorCache::compact`] would rewrite the files.
    pub fn needs_compaction(&self, live: &HashSet<u64>) -> bool {
        let stale = self.stale(live);
        stale > 0 && stale as f64 > STALE_SHARE * self.records.len() as f64
    }

    /// Drops the rows of sections `live` does not hold, when they are over
    /// [`STALE_SHARE`] of all: writes the kept rows as the next generation,
    /// makes it current by rewriting `meta.json` (temp + rename), then
    /// removes the old files (a reader that mapped them keeps its view).
    /// Returns the rows dropped. Call under the lock, after [`load`].
    ///
    /// [`load`]: VectorCache::load
    pub fn compact(&mut self, _lock: &WriteLock, live: &HashSet<u64>) -> Result<usize> {
        if !self.needs_compaction(live) {
            return Ok(0);
        }
        let (Some(f16m), Some(i8m)) = (&self.f16, &self.i8) else {
            return Ok(0);
        };
        let dim = self.dim;
        let (mut halves, mut bytes, mut recs) = (Vec::new(), Vec::new(), Vec::new());
        let mut kept = Vec::new();
        for &(section, start, end) in &self.groups {
            if !live.contains(&section) {
                continue;
            }
            halves.extend_from_slice(&f16m[start * 2 * dim..end * 2 * dim]);
            bytes.extend_from_slice(&i8m[start * dim..end * dim]);
            for r in &self.records[start..end] {
                recs.extend_from_slice(&encode(r));
                kept.push(*r);
            }
        }
        let dropped = self.records.len() - kept.len();
        let generation = self.generation + 1;
        for (name, data) in names(generation).iter().zip([&halves, &bytes, &recs]) {
            crate::fsutil::write_atomic(&self.dir.join(name), data)?;
        }
        self.generation = generation;
        self.write_meta()?;
        self.remove_other_generations();
        self.records = kept;
        self.index_records();
        self.remap()?;
        Ok(dropped)
    }

    /// Removes every generation's files but the current one: the one just
    /// replaced, and any a compaction killed after its meta was written
    /// left behind. A reader that mapped them keeps its mapping.
    fn remove_other_generations(&self) {
        let current = names(self.generation);
        let Ok(entries) = std::fs::read_dir(&self.dir) else {
            return;
        };
        for entry in entries.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            let generational = name.starts_with("vectors.") || name.starts_with("rows.");
            if generational && !current.contains(&name) {
                let _ = std::fs::remove_file(entry.path());
            }
        }
    }

    /// The `k` sections most similar to `query`, each scored by its best
    /// passage (cosine), best first, ties by row order. A query of another
    /// dimension than the rows (the model behind the name was replaced) is
    /// an error: no cosine with them means anything.
    pub fn nearest(&self, query: &[f32], k: usize) -> Result<Vec<(u64, f32)>> {
        let (Some(f16m), Some(i8m)) = (&self.f16, &self.i8) else {
            return Ok(Vec::new());
        };
        if query.len() != self.dim {
            return Err(Error::Llm(format!(
                "embedding model `{}` answered {} dimensions but .hipo/vectors holds {}; delete .hipo/vectors to embed again",
                self.model,
                query.len(),
                self.dim
            )));
        }
        if k == 0 {
            return Ok(Vec::new());
        }
        let view = scan::View {
            dim: self.dim,
            f16: f16m,
            i8: i8m,
            records: &self.records,
            groups: &self.groups,
        };
        Ok(view.nearest(&normalized(query), k))
    }
}

fn map(path: &Path, len: usize) -> Result<Mmap> {
    let file = File::open(path).map_err(|e| Error::io(path, e))?;
    // SAFETY: a generation's files are only ever appended to (under the
    // lock) or removed, never truncated below the valid rows nor rewritten
    // in place, so the mapped bytes do not change while mapped.
    let map = unsafe { memmap2::MmapOptions::new().len(len).map(&file) };
    map.map_err(|e| Error::io(path, e))
}

fn append_file(path: &Path, bytes: &[u8]) -> Result<()> {
    let mut f = OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .map_err(|e| Error::io(path, e))?;
    f.write_all(bytes).map_err(|e| Error::io(path, e))?;
    f.sync_data().map_err(|e| Error::io(path, e))
}

/// `v` scaled to length 1 (a zero vector stays zero).
pub fn normalized(v: &[f32]) -> Vec<f32> {
    let norm = scan::dot(v, v).sqrt();
    if norm > 0.0 && norm.is_finite() {
        v.iter().map(|x| x / norm).collect()
    } else {
        vec![0.0; v.len()]
    }
}

pub(super) mod format;
#[cfg(test)]
mod tests;
