//! `hipo export --ndjson`: the documents the index holds, with their text,
//! one JSON object a line, for a search service shared by many agents
//! (Quickwit reads tantivy's own field types; `docs/quickwit/`).
//!
//! The documents are made by the same code that feeds the index
//! ([`super::documents::prepare`]), so an export never disagrees with what
//! `hipo search` sees: redacted, cut the same way, with the same keys and
//! fingerprints. Unlike the index, which keeps no text (snippets come from
//! the Markdown), the export carries it: a remote index has no Markdown.
//! Files are read one at a time and each line is written as it is made,
//! so memory does not grow with the history.

use super::documents::{Outcome, hex, prepare};
use super::schema::{self, name};
use super::{Fields, day_of};
use crate::config::Config;
use crate::error::{Error, Problem, Result};
use crate::progress::{Event, Progress, Task};
use crate::scan;
use serde::Serialize;
use serde_json::{Map, Value};
use std::collections::HashMap;
use std::io::Write;
use std::path::Path;
use tantivy::TantivyDocument;
use tantivy::schema::{Document as _, OwnedValue, Schema};

/// What to export.
#[derive(Debug, Clone, Copy, Default)]
pub struct ExportOptions {
    /// Also the windows (the passages search shows), not only each
    /// section's one document with its whole text.
    pub windows: bool,
}

/// What an export wrote.
#[derive(Debug, Default, Serialize)]
pub struct ExportReport {
    /// Files read.
    pub files: usize,
    /// Section documents written (one per section).
    pub sections: usize,
    /// Window documents written (with `windows` only).
    pub windows: usize,
    /// Files skipped, with why.
    pub problems: Vec<Problem>,
}

/// Writes every searchable file's documents to `out` as NDJSON, in path
/// order. Reads the Markdown only: no lock, no index needed.
pub fn export(
    root: &Path,
    config: &Config,
    options: ExportOptions,
    out: &mut dyn Write,
    progress: &dyn Progress,
) -> Result<ExportReport> {
    let mut scan = scan::scan_with_globs(root, &HashMap::new(), &config.search.extra_globs)?;
    let schema = schema::schema();
    let fields = Fields::of(&schema)?;
    let mut report = ExportReport {
        files: scan.files.len(),
        problems: std::mem::take(&mut scan.problems),
        ..ExportReport::default()
    };
    progress.event(Event::Begin {
        task: Task::Index,
        total: scan.files.len(),
    });
    let mut line = Vec::with_capacity(4096);
    for (rel, file) in &scan.files {
        let mut sink = |key: [u8; 16], docs: Vec<TantivyDocument>| {
            let key = hex(&key);
            for (i, doc) in docs.iter().enumerate() {
                if i > 0 && !options.windows {
                    break;
                }
                line.clear();
                serde_json::to_writer(&mut line, &record(doc, &schema, &key))
                    .map_err(|e| Error::Export(std::io::Error::other(e)))?;
                line.push(b'\n');
                out.write_all(&line).map_err(Error::Export)?;
                match i {
                    0 => report.sections += 1,
                    _ => report.windows += 1,
                }
            }
            Ok(())
        };
        if let Err(problem) = prepare(root, rel, file, &[], &fields, &mut sink)? as Outcome {
            report.problems.push(problem);
        }
        progress.event(Event::Done);
    }
    out.flush().map_err(Error::Export)?;
    Ok(report)
}

/// One document as a flat JSON object: a field with one value is that
/// value, one with several (none has today) an array. The day numbers are
/// joined by `date` (`YYYY-MM-DD`) and `timestamp` (its midnight UTC, in
/// seconds), which a search service can use as its time field.
fn record(doc: &TantivyDocument, schema: &Schema, key: &str) -> Map<String, Value> {
    let mut map = Map::new();
    for (name, mut values) in doc.to_named_doc(schema).0 {
        let value = match values.len() {
            1 => json(values.remove(0)),
            _ => Value::Array(values.into_iter().map(json).collect()),
        };
        map.insert(name, value);
    }
    debug_assert_eq!(map.get(name::KEY).and_then(Value::as_str), Some(key));
    if let Some(day) = map
        .get(name::DATE_LO)
        .and_then(Value::as_u64)
        .and_then(day_of)
    {
        map.insert("date".into(), Value::String(day.to_string()));
        let midnight = day.and_hms_opt(0, 0, 0).map(|t| t.and_utc().timestamp());
        if let Some(ts) = midnight {
            map.insert("timestamp".into(), Value::from(ts));
        }
    }
    map
}

fn json(v: OwnedValue) -> Value {
    serde_json::to_value(v).unwrap_or(Value::Null)
}
