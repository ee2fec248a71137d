//! Compaction on the MemAware corpus (91 days, 16 MB): from nothing, a
//! no-op answered from the settled record (nothing moved since a run found
//! nothing to do), a no-op planned in full (a file outside the tree
//! touched, so the tree's digest moved), and after appending one 10 KB
//! entry to the latest day.
//!
//! Run: `cargo bench --bench compaction`. The corpus is read from
//! `../shared/data/memaware-sessions` (or `HIPO_BENCH_CORPUS`).

use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use hipo_core::CompactOptions;
use hipo_core::Hipo;
use hipo_core::NoProgress;
use hipo_core::NoneSummarizer;
use std::path::Path;
use std::time::Duration;

mod common;
use common::{corpus, project};

/// One `hipo compact`, as the CLI runs it: open, lock, scan, compact,
/// record the run.
fn run(root: &Path) {
    let hipo = Hipo::open(root).unwrap();
    let session = hipo.lock(Duration::from_secs(5)).unwrap();
    let today = chrono::NaiveDate::from_ymd_opt(2023, 7, 15).unwrap();
    session
        .compact_with(&NoneSummarizer, &NoProgress, CompactOptions::new(today))
        .unwrap();
}

fn bench(c: &mut Criterion) {
    let Some(corpus) = corpus() else {
        eprintln!("MemAware corpus not found; skipping compaction benches");
        return;
    };
    let mut group = c.benchmark_group("compaction");
    group.sample_size(20);
    group.bench_function("full_from_nothing", |b| {
        b.iter_batched(
            || project(&corpus),
            |dir| run(dir.path()),
            BatchSize::PerIteration,
        )
    });
    let warm = project(&corpus);
    run(warm.path());
    run(warm.path());
    group.bench_function("no_op", |b| b.iter(|| run(warm.path())));
    let touched = warm.path().join("knowledge/bench-touch.md");
    std::fs::create_dir_all(touched.parent().unwrap()).unwrap();
    let mut touches = 0usize;
    group.bench_function("no_op_planned", |b| {
        b.iter_batched(
            || {
                // A new size each time: two writes within one clock tick
                // could share a stamp.
                touches += 1;
                std::fs::write(&touched, "x".repeat(touches)).unwrap();
            },
            |()| run(warm.path()),
            BatchSize::PerIteration,
        )
    });
    let latest = warm.path().join("memory/2023-06-30.md");
    let original = std::fs::read(&latest).unwrap();
    let entry = format!(
        "\n## Session bench [project]\n{}\n",
        "User: appended line of about fifty characters here.\n".repeat(200)
    );
    group.bench_function("append_10kb_entry", |b| {
        b.iter_batched(
            // Untimed: put the day back as it was and bring the tree in line.
            || {
                std::fs::write(&latest, &original).unwrap();
                run(warm.path());
            },
            |()| {
                use std::io::Write;
                let mut f = std::fs::OpenOptions::new()
                    .append(true)
                    .open(&latest)
                    .unwrap();
                f.write_all(entry.as_bytes()).unwrap();
                drop(f);
                run(warm.path());
            },
            BatchSize::PerIteration,
        )
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
