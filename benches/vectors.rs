//! Brute-force nearest sections over the vector cache: the question's
//! vector against 10k and 100k passage vectors of 384 dimensions
//! (all-minilm's), stored as f16 and i8 and memory-mapped, as
//! `hipo search --mode hybrid` reads them: one passage per section (the
//! figure before passages, comparable with it) and four per section
//! (each section scored by its best passage).
//! The issue asks for under 10 ms beyond the lexical search at ~100k.
//!
//! Run: `cargo bench --bench vectors`.

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use hipo_core::internals::{Row, VectorCache};

const DIM: usize = 384;

/// Deterministic pseudo-random rows (xorshift), no extra crate: `n` rows,
/// `per` consecutive passages to a section.
fn rows(n: usize, per: usize, seed: u64) -> Vec<Row> {
    let mut x = seed | 1;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        (x >> 40) as f32 / (1u64 << 24) as f32 - 0.5
    };
    (0..n)
        .map(|i| Row {
            section: (i / per) as u64,
            text: i as u64,
            piece: (i % per) as u16,
            count: per as u16,
            vector: (0..DIM).map(|_| next()).collect(),
        })
        .collect()
}

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("vectors");
    group.sample_size(20);
    for (n, per) in [(10_000usize, 1usize), (100_000, 1), (100_000, 4)] {
        let dir = tempfile::tempdir().unwrap();
        let mut cache = VectorCache::open(dir.path(), "bench").unwrap();
        let lock = cache.lock().unwrap();
        for batch in rows(n, per, 42).chunks(1000) {
            cache.append(&lock, batch).unwrap();
        }
        drop(lock);
        let cache = VectorCache::open(dir.path(), "bench").unwrap();
        assert_eq!(cache.len(), n);
        let query = rows(1, 1, 7).pop().unwrap().vector;
        let id = format!("{n}x{per}");
        group.bench_with_input(BenchmarkId::new("nearest_100", &id), &n, |b, _| {
            b.iter(|| cache.nearest(&query, 100))
        });
        group.bench_with_input(BenchmarkId::new("open", &id), &n, |b, _| {
            b.iter(|| VectorCache::open(dir.path(), "bench").unwrap().len())
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
