//! The vector cache: one unit vector per section text, under
//! `.hipo/vectors/`, keyed by the section's fingerprint and the model.
//!
//! A sidecar of three files rather than rows in the redb store: vectors are
//! written by searches, which must not wait on (or hold) the store a
//! compaction writes, and brute-force cosine wants one contiguous array it
//! can memory-map, not a million small values to decode.
//!
//! - `meta.json`: the model and the vectors' dimension. Another model means
//!   another space: the files are dropped and rebuilt.
//! - `vectors.f16`: rows of `dim` little-endian f16, L2-normalised, so a
//!   cosine is a dot product. f16 halves the size of f32 and costs nothing
//!   a ranking can see (about 3 significant digits).
//! - `ids.u64`: the fingerprint of each row, little-endian, in row order.
//!
//! Rows are appended a batch at a time, vectors before ids, and the number
//! of valid rows is the smaller count of the two files: a run interrupted
//! mid-batch leaves a torn tail that the next writer cuts off, and what was
//! written before it is kept, so the run resumes where it stopped. Appends
//! happen only under `lock`, so two searches never interleave rows.

use crate::error::{Error, Result};
use half::f16;
use half::slice::{HalfBitsSliceExt, HalfFloatSliceExt};
use memmap2::Mmap;
use std::collections::HashSet;
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};

/// The cache's directory under `.hipo/`.
pub const DIR: &str = "vectors";
const META: &str = "meta.json";
const VECTORS: &str = "vectors.f16";
const IDS: &str = "ids.u64";
const LOCK: &str = "lock";
/// Bumped when the files' layout changes: an old cache is dropped.
const FORMAT: u32 = 1;

#[derive(serde::Serialize, serde::Deserialize, PartialEq)]
struct Meta {
    format: u32,
    model: String,
    dim: usize,
}

/// The vectors of one model, as on disk when opened.
pub struct VectorCache {
    dir: PathBuf,
    model: String,
    /// 0 until the first vector is known.
    dim: usize,
    ids: Vec<u64>,
    known: HashSet<u64>,
    map: Option<Mmap>,
}

/// Holds `.hipo/vectors/lock`: the one process appending.
pub struct WriteLock {
    _file: File,
}

impl VectorCache {
    /// The cache for `model` under `hipo_dir` (`.hipo/`). A cache of another
    /// model, or one whose meta cannot be read, is dropped.
    pub fn open(hipo_dir: &Path, model: &str) -> Result<VectorCache> {
        let dir = hipo_dir.join(DIR);
        std::fs::create_dir_all(&dir).map_err(|e| Error::io(&dir, e))?;
        let meta: Option<Meta> = std::fs::read(dir.join(META))
            .ok()
            .and_then(|b| serde_json::from_slice(&b).ok());
        let mut cache = VectorCache {
            dir,
            model: model.to_string(),
            dim: 0,
            ids: Vec::new(),
            known: HashSet::new(),
            map: None,
        };
        match meta {
            Some(m) if m.model == model && m.format == FORMAT => {
                cache.dim = m.dim;
                cache.load()?;
            }
            // Another model's vectors (or none yet): start afresh. Removing
            // (not truncating) keeps another process's mapping valid.
            _ => cache.clear()?,
        }
        Ok(cache)
    }

    /// Takes the append lock, waiting for another writer to finish.
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

    fn clear(&mut self) -> Result<()> {
        for name in [META, VECTORS, IDS] {
            let p = self.dir.join(name);
            match std::fs::remove_file(&p) {
                Ok(()) => {}
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => return Err(Error::io(p, e)),
            }
        }
        self.dim = 0;
        self.ids.clear();
        self.known.clear();
        self.map = None;
        Ok(())
    }

    /// Reads the ids and maps the vectors: the rows both files hold whole.
    pub fn load(&mut self) -> Result<()> {
        let ids_path = self.dir.join(IDS);
        let bytes = match std::fs::read(&ids_path) {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
            Err(e) => return Err(Error::io(ids_path, e)),
        };
        let vec_path = self.dir.join(VECTORS);
        let vec_len = std::fs::metadata(&vec_path).map_or(0, |m| m.len() as usize);
        let rows = match self.row_bytes() {
            0 => 0,
            rb => (bytes.len() / 8).min(vec_len / rb),
        };
        self.ids = bytes
            .chunks_exact(8)
            .take(rows)
            .map(|c| u64::from_le_bytes(c.try_into().unwrap_or([0; 8])))
            .collect();
        self.known = self.ids.iter().copied().collect();
        self.map = if rows == 0 {
            None
        } else {
            let file = File::open(&vec_path).map_err(|e| Error::io(&vec_path, e))?;
            // SAFETY: the file is only ever appended to (under the lock) or
            // removed, never truncated below the valid rows nor rewritten in
            // place, so the mapped bytes do not change while mapped.
            let map = unsafe {
                memmap2::MmapOptions::new()
                    .len(rows * self.row_bytes())
                    .map(&file)
            };
            Some(map.map_err(|e| Error::io(&vec_path, e))?)
        };
        Ok(())
    }

    fn row_bytes(&self) -> usize {
        self.dim * 2
    }

    /// The model the vectors are of.
    pub fn model(&self) -> &str {
        &self.model
    }

    /// Rows held.
    pub fn len(&self) -> usize {
        self.ids.len()
    }

    /// No rows yet.
    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }

    /// Whether the section with this fingerprint has a vector.
    pub fn contains(&self, id: u64) -> bool {
        self.known.contains(&id)
    }

    /// Appends a batch (under [`VectorCache::lock`]): vectors first, then
    /// their ids, each flushed, so an interruption loses this batch at most.
    pub fn append(&mut self, _lock: &WriteLock, rows: &[(u64, Vec<f32>)]) -> Result<()> {
        let Some((_, first)) = rows.first() else {
            return Ok(());
        };
        if self.dim == 0 {
            self.start(first.len())?;
        }
        let mut vecs = Vec::with_capacity(rows.len() * self.row_bytes());
        let mut ids = Vec::with_capacity(rows.len() * 8);
        for (id, v) in rows {
            if v.len() != self.dim {
                return Err(Error::Llm(format!(
                    "embedding model `{}` answered vectors of {} and {} dimensions; delete .hipo/vectors and try again",
                    self.model,
                    self.dim,
                    v.len()
                )));
            }
            let unit = normalized(v);
            let mut half = vec![f16::ZERO; unit.len()];
            half.convert_from_f32_slice(&unit);
            for h in half {
                vecs.extend_from_slice(&h.to_bits().to_le_bytes());
            }
            ids.extend_from_slice(&id.to_le_bytes());
        }
        self.cut_torn_tail()?;
        append_file(&self.dir.join(VECTORS), &vecs)?;
        append_file(&self.dir.join(IDS), &ids)?;
        for (id, _) in rows {
            self.ids.push(*id);
            self.known.insert(*id);
        }
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
        self.dim = dim;
        let meta = Meta {
            format: FORMAT,
            model: self.model.clone(),
            dim,
        };
        let json = serde_json::to_vec(&meta).map_err(|e| Error::Llm(e.to_string()))?;
        crate::fsutil::write_atomic(&self.dir.join(META), &json)
    }

    /// Cuts both files to the rows this cache knows whole (a batch torn by
    /// an interruption), so new rows line up with their ids.
    fn cut_torn_tail(&self) -> Result<()> {
        for (name, len) in [
            (VECTORS, self.ids.len() * self.row_bytes()),
            (IDS, self.ids.len() * 8),
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

    /// The `k` rows most similar to `query` (cosine), best first, ties by
    /// row order. Brute force over the mapped rows.
    pub fn nearest(&self, query: &[f32], k: usize) -> Vec<(u64, f32)> {
        let Some(map) = &self.map else {
            return Vec::new();
        };
        if query.len() != self.dim || k == 0 {
            return Vec::new();
        }
        let q = normalized(query);
        let mut bits = vec![0u16; self.dim];
        let mut row = vec![0f32; self.dim];
        let mut scored: Vec<(f32, usize)> = Vec::with_capacity(self.ids.len());
        for (i, bytes) in map.chunks_exact(self.row_bytes()).enumerate() {
            for (b, c) in bits.iter_mut().zip(bytes.chunks_exact(2)) {
                *b = u16::from_le_bytes([c[0], c[1]]);
            }
            let halves: &[f16] = bits.reinterpret_cast();
            halves.convert_to_f32_slice(&mut row);
            scored.push((dot(&row, &q), i));
        }
        let k = k.min(scored.len());
        if k < scored.len() {
            scored.select_nth_unstable_by(k - 1, |a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
            scored.truncate(k);
        }
        scored.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
        scored.into_iter().map(|(s, i)| (self.ids[i], s)).collect()
    }
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
    let norm = dot(v, v).sqrt();
    if norm > 0.0 && norm.is_finite() {
        v.iter().map(|x| x / norm).collect()
    } else {
        vec![0.0; v.len()]
    }
}

/// Written as four running sums so the compiler vectorises it.
fn dot(a: &[f32], b: &[f32]) -> f32 {
    let mut acc = [0f32; 8];
    let (ca, cb) = (a.chunks_exact(8), b.chunks_exact(8));
    let tail: f32 = ca
        .remainder()
        .iter()
        .zip(cb.remainder())
        .map(|(x, y)| x * y)
        .sum();
    for (x, y) in ca.zip(cb) {
        for i in 0..8 {
            acc[i] += x[i] * y[i];
        }
    }
    acc.iter().sum::<f32>() + tail
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(x: f32, y: f32) -> Vec<f32> {
        vec![x, y, 0.0, 0.0]
    }

    #[test]
    fn nearest_ranks_by_cosine_and_survives_reopening() {
        let dir = tempfile::tempdir().unwrap();
        let mut c = VectorCache::open(dir.path(), "m").unwrap();
        let lock = c.lock().unwrap();
        c.append(&lock, &[(1, v(1.0, 0.0)), (2, v(0.0, 3.0))])
            .unwrap();
        c.append(&lock, &[(3, v(1.0, 1.0))]).unwrap();
        drop(lock);
        let c = VectorCache::open(dir.path(), "m").unwrap();
        assert_eq!(c.len(), 3);
        let top = c.nearest(&v(0.1, 1.0), 2);
        assert_eq!(top.iter().map(|t| t.0).collect::<Vec<_>>(), [2, 3]);
        assert!((top[0].1 - 0.995).abs() < 0.01);
    }

    #[test]
    fn another_model_drops_the_vectors_and_a_torn_batch_is_cut() {
        let dir = tempfile::tempdir().unwrap();
        let mut c = VectorCache::open(dir.path(), "m").unwrap();
        let lock = c.lock().unwrap();
        c.append(&lock, &[(1, v(1.0, 0.0))]).unwrap();
        drop(lock);
        // An interrupted batch: vectors written, ids not.
        append_file(&dir.path().join(DIR).join(VECTORS), &[0u8; 5]).unwrap();
        let mut c = VectorCache::open(dir.path(), "m").unwrap();
        assert_eq!(c.len(), 1);
        let lock = c.lock().unwrap();
        c.append(&lock, &[(2, v(0.0, 1.0))]).unwrap();
        drop(lock);
        let c = VectorCache::open(dir.path(), "m").unwrap();
        assert_eq!(c.nearest(&v(0.0, 1.0), 1)[0].0, 2);
        let c = VectorCache::open(dir.path(), "other").unwrap();
        assert!(c.is_empty() && !c.contains(1));
    }
}
