//! Redaction speed: the MemAware corpus (91 days, 16 MB) redacted file by
//! file, the secrets corpus (`tests/data/`, 343 lines) line by line, and
//! the prefilter set's build, which every process pays once on its first
//! redaction. `benches/redact.sh` runs this before and after a change.

use criterion::{Criterion, criterion_group, criterion_main};
use std::hint::black_box;

mod common;
use common::corpus;

fn corpus_lines() -> Vec<String> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data");
    let mut out = Vec::new();
    for (file, column) in [("secrets.tsv", 3), ("lookalikes.tsv", 1)] {
        let text = std::fs::read_to_string(dir.join(file)).unwrap();
        for line in text.lines().filter(|l| !l.starts_with('#')) {
            if let Some(field) = line.split('\t').nth(column) {
                out.push(field.replace("\\n", "\n"));
            }
        }
    }
    out
}

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("redact");
    group.sample_size(20);
    if let Some(dir) = corpus() {
        let days: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .flatten()
            .filter(|e| e.file_name().to_string_lossy().starts_with("20"))
            .map(|e| std::fs::read_to_string(e.path()).unwrap())
            .collect();
        group.bench_function("memaware", |b| {
            b.iter(|| {
                days.iter()
                    .map(|d| hipo_core::redact(black_box(d)).len())
                    .sum::<usize>()
            })
        });
    } else {
        eprintln!("MemAware corpus not found; skipping its redaction bench");
    }
    let lines = corpus_lines();
    group.bench_function("secrets_corpus", |b| {
        b.iter(|| {
            lines
                .iter()
                .map(|l| hipo_core::redact(black_box(l)).len())
                .sum::<usize>()
        })
    });
    group.bench_function("build_rule_set", |b| {
        b.iter(hipo_core::internals::build_rule_set)
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
