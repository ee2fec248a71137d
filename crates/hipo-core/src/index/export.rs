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
//!
//! Each line speaks a reader's terms, not the index's: `id`, `unit`
//! (`section` or `window`), `path`, `line_start`, `line_end` (1-based,
//! inclusive), `heading`, `level`, `type`, `date`, `period`, `timestamp`,
//! `text`. The `id` names the section by its file, heading and place
//! among the file's sections of that heading (a window adds `-wN`), not by
//! its text: an edited section keeps its id, so a service that upserts by
//! id (Elasticsearch, OpenSearch) replaces it instead of keeping both.

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
    let mut scan = scan::scan_with_globs(root, &[], &config.search.extra_globs)?;
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
        let mut seen: HashMap<String, usize> = HashMap::new();
        let mut sink = |_key: [u8; 16], docs: Vec<TantivyDocument>| {
            let mut id = None;
            for (i, doc) in docs.iter().enumerate() {
                if i > 0 && !options.windows {
                    break;
                }
                let record = record(doc, &schema);
                let id = id.get_or_insert_with(|| section_id(rel, &record, &mut seen));
                line.clear();
                serde_json::to_writer(&mut line, &public(record, id, i))
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

/// One document as a flat JSON object of the index's fields: a field with
/// one value is that value, one with several (none has today) an array.
fn record(doc: &TantivyDocument, schema: &Schema) -> Map<String, Value> {
    let mut map = Map::new();
    for (name, mut values) in doc.to_named_doc(schema).0 {
        let value = match values.len() {
            1 => json(values.remove(0)),
            _ => Value::Array(values.into_iter().map(json).collect()),
        };
        map.insert(name, value);
    }
    map
}

/// A section's id: its file, heading path and how many sections of the
/// file had that heading path before it, hashed (32 hex digits).
fn section_id(rel: &str, doc: &Map<String, Value>, seen: &mut HashMap<String, usize>) -> String {
    let heading = doc.get(name::HEADING).and_then(Value::as_str).unwrap_or("");
    let n = seen.entry(heading.to_string()).or_default();
    let mut h = blake3::Hasher::new();
    for part in [rel, heading, &n.to_string()] {
        h.update(part.as_bytes());
        h.update(&[0]);
    }
    *n += 1;
    hex(&h.finalize().as_bytes()[..16])
}

/// The document in a reader's terms (see the module's doc): document `i`
/// of its section (0 the section itself, then its windows).
fn public(doc: Map<String, Value>, id: &str, i: usize) -> Map<String, Value> {
    let get = |k: &str| doc.get(k).cloned().unwrap_or(Value::Null);
    let (unit, id, lo, hi, text) = match i {
        0 => (
            "section",
            id.to_string(),
            name::SEC_LO,
            name::SEC_HI,
            name::SBODY,
        ),
        _ => (
            "window",
            format!("{id}-w{i}"),
            name::WIN_LO,
            name::WIN_HI,
            name::BODY,
        ),
    };
    let day = doc
        .get(name::DATE_LO)
        .and_then(Value::as_u64)
        .and_then(day_of);
    let mut map = Map::new();
    map.insert("id".into(), Value::String(id));
    map.insert("unit".into(), Value::String(unit.into()));
    map.insert("path".into(), get(name::PATH));
    map.insert("line_start".into(), get(lo));
    map.insert("line_end".into(), get(hi));
    map.insert("heading".into(), without_private(get(name::HEADING)));
    map.insert("level".into(), get(name::LEVEL));
    map.insert("type".into(), get(name::KIND));
    map.insert(
        "date".into(),
        day.map_or(Value::Null, |d| Value::String(d.to_string())),
    );
    map.insert("period".into(), get(name::PERIOD));
    map.insert(
        "timestamp".into(),
        day.and_then(|d| d.and_hms_opt(0, 0, 0))
            .map_or(Value::Null, |t| Value::from(t.and_utc().timestamp())),
    );
    map.insert("text".into(), without_private(get(text)));
    map
}

/// A text field without `<private>` spans, even in a file hipo did not
/// write (what hipo writes never holds them).
fn without_private(v: Value) -> Value {
    match v {
        Value::String(s) => Value::String(crate::private::strip(&s).into_owned()),
        other => other,
    }
}

fn json(v: OwnedValue) -> Value {
    serde_json::to_value(v).unwrap_or(Value::Null)
}
