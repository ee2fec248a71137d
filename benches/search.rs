//! Search on the MemAware corpus (91 days, 16 MB): the full index build,
//! a no-change freshness check, ten-hit searches with snippets, and an
//! appended entry picked up by the next sync.
//!
//! Run: `cargo bench --bench search`. The corpus is read from
//! `../shared/data/memaware-sessions` (or `HIPO_BENCH_CORPUS`).

use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use hipo_core::Hipo;
use hipo_core::NoProgress;
use hipo_core::SearchOptions as Options;
use hipo_core::Searcher;
use std::path::Path;
use std::time::Duration;

mod common;
use common::{corpus, project};

/// Questions from `fixtures/eval/memaware.jsonl`.
const QUERIES: [&str; 4] = [
    "which national park did I camp in alone?",
    "what breakfast did I freeze on Saturday morning?",
    "what online course have I been taking for two weeks?",
    "kayak",
];

fn sync(root: &Path) -> Searcher {
    let hipo = Hipo::open(root).unwrap();
    hipo.index(Duration::from_secs(5), &NoProgress).unwrap()
}

fn bench(c: &mut Criterion) {
    let Some(corpus) = corpus() else {
        eprintln!("MemAware corpus not found; skipping search benches");
        return;
    };
    let mut group = c.benchmark_group("search");
    group.sample_size(10);
    group.bench_function("index_from_nothing", |b| {
        b.iter_batched(
            || project(&corpus),
            |dir| sync(dir.path()),
            BatchSize::PerIteration,
        )
    });
    let warm = project(&corpus);
    let searcher = sync(warm.path());
    group.bench_function("sync_no_change", |b| b.iter(|| sync(warm.path())));
    let opts = Options {
        limit: 10,
        ..Default::default()
    };
    for q in QUERIES {
        let parsed = hipo_core::parse_query(q).unwrap();
        group.bench_function(format!("query/{q}"), |b| {
            b.iter(|| searcher.search(&parsed, &opts).unwrap())
        });
    }
    let latest = warm.path().join("memory/2023-06-30.md");
    group.bench_function("append_then_sync", |b| {
        b.iter_batched(
            || (),
            |()| {
                use std::io::Write;
                let mut f = std::fs::OpenOptions::new()
                    .append(true)
                    .open(&latest)
                    .unwrap();
                writeln!(f, "\n## Session bench [project]\nUser: I bought a kayak.\n").unwrap();
                drop(f);
                sync(warm.path())
            },
            BatchSize::PerIteration,
        )
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
