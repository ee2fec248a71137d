//! From a changed file to the tantivy documents of its new sections: one
//! ranking document per section (its whole text, scored) and one document
//! per window (a passage, to show and mark), each carrying what search
//! filters by, so a result needs no second look at the file to be placed.

use super::Fields;
use super::parts;
use super::schema::{UNIT_SECTION, UNIT_WINDOW};
use super::sections::{self, Section, Window};
use crate::error::Problem;
use crate::layout::{DocLevel, NodeId, PathKind, day_number};
use crate::markdown::{self, Status};
use crate::redact::redact;
use crate::scan::ScannedFile;
use crate::store::index::{IndexedFile, Key};
use chrono::NaiveDate;
use std::collections::HashSet;
use std::path::Path;
use tantivy::TantivyDocument;

/// One changed file, its documents handed on.
pub(super) struct Prepared {
    pub rel: String,
    pub record: IndexedFile,
    /// Sections whose documents were handed to the sink.
    pub added: usize,
}

/// Where [`prepare`] hands each new section's documents (its key, then its
/// ranking document and windows) as soon as they are made: the index
/// writer, or an export. Nothing is kept after, so a build holds one file
/// per worker, never the corpus.
pub(super) type Sink<'a> = dyn FnMut(Key, Vec<TantivyDocument>) -> crate::error::Result<()> + 'a;

/// A file prepared, or the reason it was skipped.
pub(super) type Outcome = std::result::Result<Prepared, Problem>;

/// What a file contributes to every one of its documents.
struct FileMeta {
    level: DocLevel,
    status: Option<Status>,
    /// First and last day the file covers.
    dates: Option<(NaiveDate, NaiveDate)>,
    period: Option<String>,
}

/// Reads and cuts one file, handing `sink` the documents of each section
/// whose key is not in `old` (what the index holds of the file): an append
/// costs one or two. An unreadable file is an `Ok(Err(problem))`; an error
/// of the sink ends the work.
pub(super) fn prepare(
    root: &Path,
    rel: &str,
    file: &ScannedFile,
    old: &[Key],
    fields: &Fields,
    sink: &mut Sink,
) -> crate::error::Result<Outcome> {
    let unreadable = |e: crate::error::Error| Problem {
        path: rel.to_string(),
        line: None,
        message: format!("{e}; not searchable until fixed"),
    };
    let parts = match parts::open(root, rel) {
        Ok(parts) => parts,
        Err(e) => return Ok(Err(unreadable(e))),
    };
    let record = |keys| IndexedFile {
        size: file.record.size,
        mtime_ns: file.record.mtime_ns,
        hash: file.record.hash,
        keys,
    };
    let old: HashSet<&Key> = old.iter().collect();
    let mut meta = None;
    let mut keys = Vec::new();
    let mut added = 0;
    // A `#` title written inside a `<private>` span, hidden in the heading
    // of every section under it.
    let mut private_title = None;
    for part in parts {
        let part = match part {
            Ok(part) => part,
            Err(e) => return Ok(Err(unreadable(e))),
        };
        // The frontmatter is in the first part.
        let meta = meta.get_or_insert_with(|| file_meta(file.kind, &part.text));
        // A node still waiting for its summary holds only hipo's instructions.
        if meta.status == Some(Status::NeedsSummarization) {
            break;
        }
        let mut cursor = part.cursor();
        for section in part.sections() {
            let raw = part.slice(&section.bytes);
            let inside = cursor.at(&part.text, section.bytes.start - part.offset);
            if inside && section.heading.is_empty() {
                private_title.clone_from(&section.title);
            }
            // What a person marked private is neither indexed nor shown.
            let stripped = crate::private::strip_from(raw, inside);
            let redacted = redact(&stripped);
            let fp = sections::fingerprint(&redacted);
            let key = section_key(rel, meta, &section, fp);
            keys.push(key);
            if !old.contains(&key) {
                let passage = Passage {
                    raw: &stripped,
                    redacted: &redacted,
                    secret: redacted != raw,
                    heading: shown_heading(&section, inside, private_title.as_deref()),
                    fp,
                    key: &key,
                };
                sink(key, documents(rel, meta, &section, &passage, fields))?;
                added += 1;
            }
        }
    }
    Ok(Ok(Prepared {
        rel: rel.to_string(),
        record: record(keys),
        added,
    }))
}

fn file_meta(kind: PathKind, text: &str) -> FileMeta {
    let status = markdown::parse_document(text)
        .ok()
        .and_then(|d| d.frontmatter)
        .and_then(|f| f.status());
    let (dates, period) = match kind {
        PathKind::Raw(d) => (Some((d, d)), Some(d.to_string())),
        PathKind::Node(id) if id != NodeId::Root => (id.date_range(), Some(id.period())),
        _ => (None, None),
    };
    FileMeta {
        level: DocLevel::of(kind),
        status,
        dates,
        period,
    }
}

/// A section's identity: where it is, what its file says of it, and its
/// [`sections::fingerprint`] (its redacted text, as indexed). Anything that
/// changes a document changes the key; a change the index cannot see (a
/// secret replaced by another, trailing spaces) does not.
fn section_key(rel: &str, meta: &FileMeta, s: &Section, fp: u64) -> Key {
    let mut h = blake3::Hasher::new();
    for part in [
        rel,
        meta.status.map_or("", Status::as_str),
        &s.heading_path(),
        &format!("{:?} {:?} {fp}", s.lines, s.bytes),
    ] {
        h.update(part.as_bytes());
        h.update(&[0]);
    }
    let mut key = [0u8; 16];
    key.copy_from_slice(&h.finalize().as_bytes()[..16]);
    key
}

/// Lowercase hex.
pub(super) fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// A heading as shown: its `<private>` spans dropped, and `[private]`
/// for a heading (or `#` title) written inside a span.
fn shown_heading(s: &Section, inside: bool, private_title: Option<&str>) -> String {
    use crate::private::{MARK, strip};
    let title = match s.title.as_deref() {
        Some(t) if private_title == Some(t) => Some(MARK.into()),
        t => t.map(strip),
    };
    let heading = if inside && !s.heading.is_empty() {
        MARK.into()
    } else {
        strip(&s.heading)
    };
    let path = match (title, heading.is_empty()) {
        (Some(t), false) => format!("{t} › {heading}"),
        (Some(t), true) => t.into_owned(),
        (None, _) => heading.into_owned(),
    };
    // Headings are indexed and shown, so they are redacted like the text.
    redact(&path).into_owned()
}

/// A section's text as read and as indexed.
struct Passage<'a> {
    /// As read, but for its `<private>` spans.
    raw: &'a str,
    redacted: &'a str,
    /// The redacted text differs from the text as read (a secret or a
    /// private span): search must read it again to show it.
    secret: bool,
    /// The heading path as shown.
    heading: String,
    fp: u64,
    key: &'a Key,
}

/// What every window of a section shares.
struct SectionDoc<'a> {
    rel: &'a str,
    meta: &'a FileMeta,
    section: &'a Section,
    passage: &'a Passage<'a>,
    /// One redacted line per line of the section.
    lines: Vec<&'a str>,
    /// The key's first 8 bytes.
    sec: u64,
    key_hex: String,
    heading_path: String,
    dates: Option<(NaiveDate, NaiveDate)>,
}

/// The documents of a section: its ranking document, then its windows.
fn documents(
    rel: &str,
    meta: &FileMeta,
    s: &Section,
    p: &Passage,
    f: &Fields,
) -> Vec<TantivyDocument> {
    let mut sec = [0u8; 8];
    sec.copy_from_slice(&p.key[..8]);
    let shared = SectionDoc {
        rel,
        meta,
        section: s,
        passage: p,
        lines: section_lines(p.redacted, p.raw, s.lines.1 - s.lines.0 + 1),
        sec: u64::from_le_bytes(sec),
        key_hex: hex(p.key),
        // The `#` title is context for every section under it: a knowledge
        // file titled "Postgres migration" answers "postgres" in each part.
        heading_path: p.heading.clone(),
        dates: section_dates(s, meta),
    };
    let mut docs = vec![section_doc(&shared, f)];
    docs.extend(
        s.windows
            .iter()
            .enumerate()
            .map(|(i, w)| window_doc(&shared, i, w, f)),
    );
    docs
}

/// The days a section is about. A weekly or monthly concatenation files
/// each day under `# YYYY-MM-DD`. A monthly holds whole ISO weeks, so a day
/// may sit up to six days outside its month (2026-12-28 in 2027-01); it is
/// still that day. Any other section covers its file's days.
fn section_dates(s: &Section, meta: &FileMeta) -> Option<(NaiveDate, NaiveDate)> {
    s.title
        .as_deref()
        .and_then(|t| NaiveDate::parse_from_str(t, "%Y-%m-%d").ok())
        .filter(|d| {
            meta.dates.is_some_and(|(lo, hi)| {
                let slack = chrono::Days::new(6);
                lo.checked_sub_days(slack).unwrap_or(lo) <= *d
                    && *d <= hi.checked_add_days(slack).unwrap_or(hi)
            })
        })
        .map(|d| (d, d))
        .or(meta.dates)
}

/// The section's ranking document: its whole text and every line its user
/// wrote, so a section is scored on all its evidence at once, not on its
/// best window alone. It is never shown: its windows are.
fn section_doc(d: &SectionDoc, f: &Fields) -> TantivyDocument {
    let s = d.section;
    let mut user: Vec<usize> = s
        .windows
        .iter()
        .flat_map(|w| w.user.iter().copied())
        .collect();
    user.sort_unstable();
    user.dedup();
    let line = |&n: &usize| d.lines[n - s.lines.0];
    let opening: String = sections::first_turn(&user).iter().map(line).collect();
    let user: String = user.iter().map(line).collect();
    let mut doc = TantivyDocument::default();
    doc.add_text(f.unit, UNIT_SECTION);
    doc.add_text(f.sbody, d.lines.concat());
    if !user.is_empty() {
        doc.add_text(f.suser, &user);
        doc.add_text(f.sopen, &opening);
    }
    shared_fields(&mut doc, d, f);
    doc.add_u64(f.win, 0);
    doc
}

/// The document of the `i`th window of a section.
fn window_doc(d: &SectionDoc, i: usize, w: &Window, f: &Fields) -> TantivyDocument {
    let s = d.section;
    let at = |n: usize| n - s.lines.0;
    let body: String = d.lines[at(w.lines.0)..=at(w.lines.1)].concat();
    let user: String = w.user.iter().map(|&n| d.lines[at(n)]).collect();
    let mut doc = TantivyDocument::default();
    doc.add_text(f.unit, UNIT_WINDOW);
    doc.add_text(f.body, &body);
    if !user.is_empty() {
        doc.add_text(f.user, &user);
    }
    shared_fields(&mut doc, d, f);
    doc.add_u64(f.win, i as u64);
    for (field, v) in [
        (f.win_lo, w.lines.0),
        (f.win_hi, w.lines.1),
        (f.wbyte_lo, w.bytes.start),
        (f.wbyte_hi, w.bytes.end),
    ] {
        doc.add_u64(field, v as u64);
    }
    doc
}

/// What a section's ranking document and its windows share: where it is,
/// what it is, and the filters' fields.
fn shared_fields(doc: &mut TantivyDocument, d: &SectionDoc, f: &Fields) {
    let (s, meta) = (d.section, d.meta);
    doc.add_text(f.heading, &d.heading_path);
    doc.add_text(f.path, d.rel);
    doc.add_text(f.key, &d.key_hex);
    doc.add_u64(f.fp, d.passage.fp);
    doc.add_u64(f.sec, d.sec);
    doc.add_text(f.level, meta.level.as_str());
    doc.add_u64(f.level_rank, meta.level.rank());
    doc.add_text(f.kind, s.kind.as_str());
    if let Some(st) = meta.status {
        doc.add_text(f.status, st.as_str());
    }
    if let Some((lo, hi)) = d.dates {
        doc.add_u64(f.date_lo, day_number(lo));
        doc.add_u64(f.date_hi, day_number(hi));
    }
    if let Some(p) = &meta.period {
        doc.add_text(f.period, p);
    }
    for (field, v) in [
        (f.sec_lo, s.lines.0),
        (f.sec_hi, s.lines.1),
        (f.sbyte_lo, s.bytes.start),
        (f.sbyte_hi, s.bytes.end),
        (f.secret, usize::from(d.passage.secret)),
    ] {
        doc.add_u64(field, v as u64);
    }
}

/// The redacted section's lines, one per line of the file. Redaction keeps
/// line breaks; should it ever not, the raw lines' count is kept by
/// redacting line by line instead.
pub(crate) fn section_lines<'a>(redacted: &'a str, raw: &'a str, expected: usize) -> Vec<&'a str> {
    let lines: Vec<&str> = redacted.split_inclusive('\n').collect();
    if lines.len() == expected {
        return lines;
    }
    raw.split_inclusive('\n')
        .map(|l| match redact(l) {
            std::borrow::Cow::Borrowed(_) => l,
            std::borrow::Cow::Owned(_) => "[REDACTED]\n",
        })
        .collect()
}
