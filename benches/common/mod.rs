//! The MemAware corpus, copied into a temp project, for every bench.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

/// `../shared/data/memaware-sessions` (or `HIPO_BENCH_CORPUS`), if present.
pub fn corpus() -> Option<PathBuf> {
    let dir = std::env::var_os("HIPO_BENCH_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/data/memaware-sessions")
        });
    dir.is_dir().then_some(dir)
}

/// A temp project whose `memory/` holds the corpus's day files.
pub fn project(corpus: &Path) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let mem = dir.path().join("memory");
    std::fs::create_dir_all(&mem).unwrap();
    for e in std::fs::read_dir(corpus).unwrap().flatten() {
        let name = e.file_name();
        if name.to_string_lossy().starts_with("20") {
            std::fs::copy(e.path(), mem.join(name)).unwrap();
        }
    }
    dir
}
