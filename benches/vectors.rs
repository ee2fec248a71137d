//! Brute-force cosine over the vector cache: the question's vector against
//! 10k and 100k section vectors of 384 dimensions (all-minilm's), stored
//! as f16 and memory-mapped, as `hipo search --mode hybrid` reads them.
//! The issue asks whether brute force holds up to ~100k vectors.
//!
//! Run: `cargo bench --bench vectors`.

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use hipo::embed::cache::VectorCache;

const DIM: usize = 384;

/// Deterministic pseudo-random vectors (xorshift), no extra crate.
fn vectors(n: usize, seed: u64) -> Vec<(u64, Vec<f32>)> {
    let mut x = seed | 1;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        (x >> 40) as f32 / (1u64 << 24) as f32 - 0.5
    };
    (0..n as u64)
        .map(|id| (id, (0..DIM).map(|_| next()).collect()))
        .collect()
}

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("vectors");
    group.sample_size(20);
    for n in [10_000usize, 100_000] {
        let dir = tempfile::tempdir().unwrap();
        let mut cache = VectorCache::open(dir.path(), "bench").unwrap();
        let lock = cache.lock().unwrap();
        for batch in vectors(n, 42).chunks(1000) {
            cache.append(&lock, batch).unwrap();
        }
        drop(lock);
        let cache = VectorCache::open(dir.path(), "bench").unwrap();
        assert_eq!(cache.len(), n);
        let query = vectors(1, 7).pop().unwrap().1;
        group.bench_with_input(BenchmarkId::new("nearest_100", n), &n, |b, _| {
            b.iter(|| cache.nearest(&query, 100))
        });
        group.bench_with_input(BenchmarkId::new("open", n), &n, |b, _| {
            b.iter(|| VectorCache::open(dir.path(), "bench").unwrap().len())
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
