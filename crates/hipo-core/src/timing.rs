//! `HIPO_TIMINGS=1`: how long each step of a command took, on stderr.
//!
//! Whole-process figures (hyperfine) say a search is slow; these spans say
//! where the time goes (the tree's stat, the store's records, opening
//! tantivy, the query) without a profiler, on the user's own machine.
//! Off, a span costs one check of a flag read once.

use std::sync::OnceLock;
use std::time::Instant;

fn enabled() -> bool {
    static ON: OnceLock<bool> = OnceLock::new();
    *ON.get_or_init(|| std::env::var_os("HIPO_TIMINGS").is_some_and(|v| !v.is_empty() && v != "0"))
}

/// A step being timed: said on stderr when dropped, if timings are on.
pub struct Span {
    name: &'static str,
    start: Option<Instant>,
}

/// Starts timing `name` (a no-op unless `HIPO_TIMINGS` is set).
pub fn span(name: &'static str) -> Span {
    Span {
        name,
        start: enabled().then(Instant::now),
    }
}

impl Drop for Span {
    fn drop(&mut self) {
        if let Some(start) = self.start {
            let ms = start.elapsed().as_secs_f64() * 1000.0;
            eprintln!("hipo timing: {:<24} {ms:8.3} ms", self.name);
        }
    }
}
