//! `hipo get`: a file, a slice of it, or a search hit's section, by line.
//!
//! `PATH` is the whole file; `PATH:LINE` runs from LINE to the end of the
//! section holding it (what a search hit points at); `PATH:LINE:COUNT` is
//! COUNT lines; `#id` (a hit's `id`) is that hit's section. Paths are
//! project-relative and must stay inside the project. Output is redacted
//! like everything else hipo shows; line numbers are the file's.

use crate::error::{Error, Result};
use crate::index::{SearchIndex, sections};
use crate::redact::redact;
use serde::Serialize;
use std::path::Path;
use tantivy::TantivyDocument;
use tantivy::collector::TopDocs;
use tantivy::query::RegexQuery;
use tantivy::schema::Value;

/// Lines of a file.
#[derive(Debug, Clone, Serialize)]
pub struct Slice {
    pub path: String,
    /// Number of the first line.
    pub first: usize,
    /// The lines, without their newlines.
    pub lines: Vec<String>,
    /// Lines in the whole file.
    pub total: usize,
}

/// A [`Slice`] being read: where it is, then its lines one at a time, so
/// a front end can print a 200 MB log without holding it.
pub struct Lines {
    pub path: String,
    /// Number of the first line.
    pub first: usize,
    /// How many lines it gives.
    pub count: usize,
    /// Lines in the whole file.
    pub total: usize,
    rest: Rest,
}

enum Rest {
    Held(std::vec::IntoIter<String>),
    Read(Box<crate::index::LinesBetween<std::io::BufReader<std::fs::File>>>),
}

impl Iterator for Lines {
    type Item = Result<String>;

    fn next(&mut self) -> Option<Result<String>> {
        match &mut self.rest {
            Rest::Held(lines) => lines.next().map(Ok),
            Rest::Read(lines) => lines.next(),
        }
    }
}

impl Lines {
    fn held(slice: Slice) -> Lines {
        Lines {
            path: slice.path,
            first: slice.first,
            count: slice.lines.len(),
            total: slice.total,
            rest: Rest::Held(slice.lines.into_iter()),
        }
    }

    /// The lines read whole.
    pub fn slice(self) -> Result<Slice> {
        let (path, first, total) = (self.path.clone(), self.first, self.total);
        let lines = self.collect::<Result<Vec<_>>>()?;
        Ok(Slice {
            path,
            first,
            lines,
            total,
        })
    }
}

/// What to get.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    Id(String),
    Path {
        path: String,
        line: Option<usize>,
        count: Option<usize>,
    },
}

/// Parses `#id`, `PATH`, `PATH:LINE` or `PATH:LINE:COUNT`.
pub fn parse(target: &str) -> Result<Target> {
    if let Some(id) = target.strip_prefix('#') {
        if id.len() < 6 || !id.chars().all(|c| c.is_ascii_hexdigit()) {
            return Err(Error::Query(format!(
                "`{target}` is not a hit id; ids look like #1a2b3c4d5e6f (from `hipo search --json`)"
            )));
        }
        return Ok(Target::Id(id.to_ascii_lowercase()));
    }
    let mut parts: Vec<&str> = target.rsplitn(3, ':').collect();
    parts.reverse();
    let numbers: Vec<Option<usize>> = parts.iter().map(|p| p.parse().ok()).collect();
    let (path, line, count) = match (parts.as_slice(), numbers.as_slice()) {
        ([p, _, _], [_, Some(l), Some(c)]) => (p.to_string(), Some(*l), Some(*c)),
        ([p, l, _], [_, _, Some(n)]) if !l.is_empty() => (format!("{p}:{l}"), Some(*n), None),
        ([p, _], [_, Some(n)]) => (p.to_string(), Some(*n), None),
        _ => (target.to_string(), None, None),
    };
    if line == Some(0) {
        return Err(Error::Query(format!(
            "`{target}`: lines are numbered from 1"
        )));
    }
    if count == Some(0) {
        return Err(Error::Query(format!(
            "`{target}`: COUNT in PATH:LINE:COUNT is a number of lines, 1 or more"
        )));
    }
    Ok(Target::Path { path, line, count })
}

/// Resolves and reads a target under `root`.
pub fn get(root: &Path, target: &Target) -> Result<Slice> {
    lines(root, target)?.slice()
}

/// [`get`] a line at a time: the file's errors (a line that is not UTF-8)
/// come before the first line.
pub fn lines(root: &Path, target: &Target) -> Result<Lines> {
    match target {
        Target::Id(id) => by_id(root, id).map(Lines::held),
        Target::Path { path, line, count } => {
            by_path(root, path, *line, *count).map_err(|e| match bad_numbers(root, path) {
                Some(better) => better,
                None => e,
            })
        }
    }
}

/// When `PATH:…` names no file but `PATH` is one, what is wrong with the
/// numbers after it (`notes.md:5:x`, `notes.md:5:99999999999999999999`),
/// rather than "no such file".
fn bad_numbers(root: &Path, target: &str) -> Option<Error> {
    let (file, rest) = target.split_once(':')?;
    if !root.join(file.trim_start_matches("./")).is_file() || root.join(target).exists() {
        return None;
    }
    let is_count = |s: &str| s.parse::<usize>().is_ok_and(|n| n > 0);
    let parts: Vec<&str> = rest.split(':').collect();
    let message = match parts.as_slice() {
        [line] => format!("`{line}` is not a line number (1 or more)"),
        [line, _] if !is_count(line) => format!("`{line}` is not a line number (1 or more)"),
        [_, count] => format!("`{count}` is not a count of lines (1 or more)"),
        _ => "too many `:` parts".to_string(),
    };
    Some(Error::Query(format!(
        "`{target}`: {message}; write PATH, PATH:LINE or PATH:LINE:COUNT"
    )))
}

fn by_path(root: &Path, rel: &str, line: Option<usize>, count: Option<usize>) -> Result<Lines> {
    let rel = inside(root, rel)?;
    if let (Some(l), None) = (line, count) {
        // A search hit's section, read in parts: a 200 MB log is not held.
        let (lines, total) = crate::index::section_from(root, &rel, l)?;
        if let Some(lines) = lines {
            return Ok(Lines::held(Slice {
                path: rel,
                first: l,
                lines,
                total,
            }));
        }
    }
    // Counted first (which checks every line is UTF-8), then read in
    // parts as the lines are asked for. A line outside every section
    // (frontmatter, a blank line between sections) runs to the end of the
    // file.
    let total = crate::index::line_count(root, &rel)?;
    let first = line.unwrap_or(1);
    if first > total.max(1) {
        return Err(Error::bad_input(
            &rel,
            Some(first),
            format!("the file has {total} lines"),
        ));
    }
    // Lines appended since the count are left for the next read, so the
    // slice is the file as counted.
    let last = count
        .map_or(total, |c| first.saturating_add(c - 1))
        .min(total);
    let shown = (last + 1).saturating_sub(first);
    let rest = if shown == 0 {
        Rest::Held(Vec::new().into_iter())
    } else {
        Rest::Read(Box::new(crate::index::lines_between(
            root,
            &rel,
            first,
            Some(last),
        )?))
    };
    Ok(Lines {
        path: rel,
        first,
        count: shown,
        total,
        rest,
    })
}

/// A project-relative path that stays inside the project. A path without
/// `..` is taken as written, so a symlink the user put in the project (and
/// search serves) can be read; one with `..` must resolve inside.
fn inside(root: &Path, rel: &str) -> Result<String> {
    use std::path::Component;
    let rel = rel.trim_start_matches("./");
    let outside = || {
        Error::bad_input(
            rel,
            None,
            "is not a file inside the project; give a project-relative path such as memory/2026-03-15.md",
        )
    };
    let not_found = |e: std::io::Error| {
        if e.kind() != std::io::ErrorKind::NotFound {
            return Error::io(root.join(rel), e);
        }
        let hint = if rel.contains(':') {
            "no such file (a line is given as PATH:LINE or PATH:LINE:COUNT, in numbers)"
        } else {
            "no such file"
        };
        Error::bad_input(rel, None, hint)
    };
    let path = Path::new(rel);
    let lexical = !path.is_absolute()
        && path
            .components()
            .all(|c| matches!(c, Component::Normal(_) | Component::CurDir));
    let inner = if lexical {
        path.components()
            .filter_map(|c| match c {
                Component::Normal(p) => Some(p.to_string_lossy()),
                _ => None,
            })
            .collect::<Vec<_>>()
            .join("/")
    } else {
        let root_c = root.canonicalize().map_err(|e| Error::io(root, e))?;
        let full = root.join(rel).canonicalize().map_err(not_found)?;
        let inner = full.strip_prefix(&root_c).map_err(|_| outside())?;
        inner.to_string_lossy().replace('\\', "/")
    };
    let meta = std::fs::metadata(root.join(&inner)).map_err(not_found)?;
    if !meta.is_file() {
        return Err(outside());
    }
    Ok(inner)
}

fn by_id(root: &Path, id: &str) -> Result<Slice> {
    let stale = || {
        Error::Query(format!(
            "no section has id #{id}; ids change when a section changes, so search again"
        ))
    };
    if !SearchIndex::exists(root) {
        return Err(stale());
    }
    let index = SearchIndex::open(root)?;
    let f = index.fields;
    let query = RegexQuery::from_pattern(&format!("{id}.*"), f.key)
        .map_err(|e| Error::Query(e.to_string()))?;
    let searcher = index.searcher();
    let top = searcher
        .search(&query, &TopDocs::with_limit(1).order_by_score())
        .map_err(Error::index(""))?;
    let (_, addr) = top.first().ok_or_else(stale)?;
    let doc: TantivyDocument = searcher.doc(*addr).map_err(Error::index(""))?;
    let path = doc
        .get_first(f.path)
        .and_then(|v| v.as_str().map(str::to_string))
        .ok_or_else(stale)?;
    let n = |field| doc.get_first(field).and_then(|v| v.as_u64()).unwrap_or(0) as usize;
    let (lo, hi) = (n(f.sec_lo), n(f.sec_hi));
    // The file may have changed since the index saw it: the section must
    // still be where it was, with the text it had.
    let fp = searcher
        .segment_reader(addr.segment_ord)
        .fast_fields()
        .u64(crate::index::schema::name::FP)
        .ok()
        .and_then(|c| c.first(addr.doc_id));
    let file = root.join(&path);
    let inside = crate::private::open_at(&file, n(f.sbyte_lo)).ok();
    let now = crate::fsutil::read_range(&file, n(f.sbyte_lo), n(f.sbyte_hi))
        .zip(inside)
        .map(|(raw, inside)| {
            sections::fingerprint(&redact(&crate::private::strip_from(&raw, inside)))
        });
    if lo == 0 || hi < lo || fp.is_none() || now != fp {
        return Err(stale());
    }
    // The section, from its first line: what `PATH:LINE` shows there.
    let slice = by_path(root, &path, Some(lo), None)?.slice()?;
    if slice.lines.len() == hi + 1 - lo {
        return Ok(slice);
    }
    by_path(root, &path, Some(lo), Some(hi + 1 - lo))?.slice()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn path(p: &str, line: Option<usize>, count: Option<usize>) -> Target {
        Target::Path {
            path: p.into(),
            line,
            count,
        }
    }

    #[test]
    fn targets_parse() {
        assert_eq!(
            parse("memory/a.md").unwrap(),
            path("memory/a.md", None, None)
        );
        assert_eq!(
            parse("memory/a.md:12").unwrap(),
            path("memory/a.md", Some(12), None)
        );
        assert_eq!(
            parse("memory/a.md:12:5").unwrap(),
            path("memory/a.md", Some(12), Some(5))
        );
        assert_eq!(parse("#A1B2C3D4").unwrap(), Target::Id("a1b2c3d4".into()));
        assert!(parse("#xyz").is_err());
        assert!(parse("memory/a.md:0").is_err());
    }

    #[test]
    fn slices_stay_inside_and_redact() {
        let dir = tempfile::tempdir().unwrap();
        let mem = dir.path().join("memory");
        std::fs::create_dir_all(&mem).unwrap();
        std::fs::write(
            mem.join("2026-03-15.md"),
            "# 2026-03-15\n\n## A [user]\nkey AKIAIOSFODNN7EXAMPLE\nmore\n## B\nb\n",
        )
        .unwrap();
        let s = get(dir.path(), &parse("memory/2026-03-15.md:3").unwrap()).unwrap();
        assert_eq!(s.first, 3);
        assert_eq!(s.lines, vec!["## A [user]", "key [REDACTED]", "more"]);
        let s = get(dir.path(), &parse("memory/2026-03-15.md:6:9").unwrap()).unwrap();
        assert_eq!(s.lines, vec!["## B", "b"]);
        let err = get(dir.path(), &parse("../etc/passwd").unwrap()).unwrap_err();
        assert!(err.to_string().contains("no such file") || err.to_string().contains("inside"));
        let err = get(dir.path(), &parse("memory/2026-03-15.md:99").unwrap()).unwrap_err();
        assert!(err.to_string().contains("has 7 lines"), "{err}");
    }
}
