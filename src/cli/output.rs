//! What every subcommand prints the same way: styling, JSON, the progress
//! bar, and the warnings and problems a run reports on stderr.

use crate::render::Style;
use hipo_core::CompactReport as Report;
use hipo_core::{Event, Progress, Task};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;

/// Color when stdout is a terminal and NO_COLOR is unset or empty.
pub fn detect_style() -> Style {
    let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
    Style {
        color: !no_color && std::io::stdout().is_terminal(),
    }
}

/// Prints a value as pretty JSON on stdout.
pub fn print_json<T: serde::Serialize>(value: &T) -> anyhow::Result<()> {
    println!("{}", serde_json::to_string_pretty(value)?);
    Ok(())
}

/// The one progress bar, on stderr (drawn only when stderr is a
/// terminal): model summaries, and big index builds.
pub struct Bar {
    bar: ProgressBar,
    /// Shown only once the work is big enough to be worth a bar.
    min_total: usize,
}

impl Bar {
    /// For summaries: every call to a model is slow enough to show.
    pub fn summarising() -> Bar {
        Bar::with("{spinner} summarising {pos}/{len} {wide_msg} {elapsed}", 0)
    }

    /// For an index sync: a handful of changed files takes milliseconds,
    /// so no bar for that.
    pub fn indexing() -> Bar {
        Bar::with("{spinner} indexing {pos}/{len} files {elapsed}", 20)
    }

    /// For an export: worth a bar from the same size as an index build.
    pub fn exporting() -> Bar {
        Bar::with("{spinner} exporting {pos}/{len} files {elapsed}", 20)
    }

    fn with(template: &str, min_total: usize) -> Bar {
        let bar = ProgressBar::hidden();
        bar.set_style(
            ProgressStyle::with_template(template).unwrap_or_else(|_| ProgressStyle::default_bar()),
        );
        Bar { bar, min_total }
    }

    fn start(&self, total: usize) {
        if total >= self.min_total {
            self.bar.set_draw_target(ProgressDrawTarget::stderr());
        }
        self.bar.set_length(total as u64);
        self.bar.set_position(0);
    }
}

impl Progress for Bar {
    fn event(&self, event: Event<'_>) {
        match event {
            // Embedding follows the index sync on the same bar: passages,
            // not files, and each batch is a model call, so shown from
            // one batch on.
            Event::Begin {
                task: Task::Embed,
                total,
            } => {
                self.bar.set_style(
                    ProgressStyle::with_template(
                        "{spinner} embedding {pos}/{len} passages {wide_msg} {elapsed}",
                    )
                    .unwrap_or_else(|_| ProgressStyle::default_bar()),
                );
                if total >= hipo_core::EMBED_BATCH {
                    self.bar.set_draw_target(ProgressDrawTarget::stderr());
                }
                self.bar.set_length(total as u64);
                self.bar.set_position(0);
            }
            Event::Begin { total, .. } => self.start(total),
            Event::Started(what) => self.bar.set_message(what.to_string()),
            Event::Done => self.bar.inc(1),
        }
    }
}

impl Drop for Bar {
    fn drop(&mut self) {
        self.bar.finish_and_clear();
    }
}

/// A compaction's warnings, skipped files and failed summaries, on stderr.
pub fn report_problems(report: &Report) {
    for w in &report.warnings {
        eprintln!("hipo: {w}");
    }
    for p in &report.problems {
        eprintln!("hipo: skipped {p}");
    }
    for f in &report.summary_failures {
        eprintln!("hipo: {}: summary failed: {}; {}", f.path, f.reason, f.hint);
    }
}

/// A compaction's exit code: 4 when a summary failed, 1 when files were
/// skipped.
pub fn compact_code(report: &Report) -> u8 {
    use super::exit;
    if !report.summary_failures.is_empty() {
        exit::SUMMARY_FAILED
    } else if !report.problems.is_empty() {
        exit::PROBLEMS
    } else {
        exit::OK
    }
}

/// What a search's index sync has to say, on stderr.
pub fn report_sync(searcher: &hipo_core::Searcher) {
    for w in searcher.warnings() {
        eprintln!("hipo: {w}");
    }
    for why in searcher.semantic_notes() {
        eprintln!("hipo: {why}; searching lexically");
    }
    if let Some(report) = searcher.sync() {
        if let Some(why) = report.rebuilt.as_ref().filter(|w| !w.is_first_build()) {
            eprintln!("hipo: rebuilt the search index: {why}");
        }
        if let Some(what) = &report.repaired {
            eprintln!("hipo: repaired the search index: {what}");
        }
        for p in &report.problems {
            eprintln!("hipo: not searchable: {p}");
        }
    }
}

/// Exit code for a command that searched: 1 when files were skipped.
pub fn search_code(searcher: &hipo_core::Searcher) -> u8 {
    if searcher.skipped_files() {
        super::exit::PROBLEMS
    } else {
        super::exit::OK
    }
}
