//! Finds every Markdown file hipo cares about and tells which changed.
//!
//! A scan stats every file and hashes only those whose size or mtime
//! differ from the store's record, so its cost is a directory walk plus
//! work proportional to what changed. Symlinked files are read through;
//! symlinked directories below the top-level ones are not followed.
//! Problems (a file named like a date that is not one, invalid UTF-8, an
//! unreadable file, a broken symlink) are collected, not fatal, and are
//! remembered in the store so every run reports them until they are fixed.

use crate::error::{Problem, Result};
use crate::layout::{self, PathKind};
use crate::store::{FileRecord, Hash};
use rayon::prelude::*;
use std::collections::{BTreeMap, HashSet};
use std::path::Path;

mod digest;
mod globs;
mod merged;
pub(crate) use digest::{Digest, digest};
use globs::{glob_bases, glob_set};
use merged::scan_merged;

/// Top-level directories searched for Markdown.
pub const ROOT_DIRS: [&str; 3] = ["memory", "knowledge", "plans"];

/// One Markdown file as found on disk.
#[derive(Debug, Clone)]
pub struct ScannedFile {
    pub kind: PathKind,
    pub record: FileRecord,
    /// True when the bytes were (re)hashed this run, i.e. new or changed.
    pub changed: bool,
}

/// The result of a scan.
#[derive(Debug, Default)]
pub struct Scan {
    /// Usable files by project-relative path.
    pub files: BTreeMap<String, ScannedFile>,
    /// Paths the store knew that are gone now.
    pub removed: Vec<String>,
    /// Files skipped, with why.
    pub problems: Vec<Problem>,
    /// File records to write back to the store.
    pub updates: Vec<(String, Option<FileRecord>)>,
    /// Temp files a killed hipo left behind (`.hipo-tmp-…`), found on the
    /// way; a run holding the lock may delete them.
    pub stale_temp: Vec<String>,
}

impl Scan {
    /// Current hash of a file, if it exists and is usable.
    pub fn hash(&self, rel: &str) -> Option<Hash> {
        self.files.get(rel).map(|f| f.record.hash)
    }

    /// True if anything differs from the store.
    pub fn any_change(&self) -> bool {
        !self.updates.is_empty()
    }
}

/// A file as a walk found it: its path and its change stamp.
#[derive(Debug, Clone)]
pub(crate) struct Found {
    pub rel: String,
    pub size: u64,
    /// See [`mtime_ns`].
    pub mtime_ns: i128,
}

/// The change stamp of a file listed without a stat, until
/// [`Listing::vouch`] gives it one (no stat returns it: it is before the
/// epoch by far more than any clock sets).
const UNSTATED: i128 = i128::MIN;

impl Found {
    /// Listed without a stat, its stamp not known yet.
    fn unstated(&self) -> bool {
        self.mtime_ns == UNSTATED
    }
}

/// What a walk collects.
#[derive(Default, Clone)]
struct Walked {
    found: Vec<Found>,
    problems: Vec<Problem>,
    /// Temp files hipo left (see [`Scan::stale_temp`]).
    temp: Vec<String>,
    /// Set when the walk folds its files into a digest instead of
    /// listing them (see [`digest`]).
    digest: Option<Digest>,
}

impl Walked {
    fn add(&mut self, f: Found) {
        match &mut self.digest {
            None => self.found.push(f),
            Some(d) => match layout::classify(&f.rel) {
                Ok(_) => d.add(&f),
                Err(bad) => self.problems.push(Problem {
                    path: f.rel,
                    line: None,
                    message: bad.0,
                }),
            },
        }
    }
}

/// The tree a search covers, walked and stat'ed but not compared with
/// anything yet: [`Listing::scan`] compares it with the records in path
/// order (a merge of two sorted lists, no map built), and a caller can
/// first ask whether they match it exactly, which is all an unchanged
/// tree needs.
pub(crate) struct Listing(Walked);

impl Listing {
    /// Walks `root` as [`scan_with_globs`] does.
    pub fn walk(root: &Path, extra_globs: &[String]) -> Result<Listing> {
        Self::walk_trusting(root, extra_globs, &|_| false)
    }

    /// [`Listing::walk`], but a regular file `trusted` takes is listed
    /// without a stat, and given the size and change stamp `stamps`
    /// visits for its path: every name is still read from its directory
    /// (a file added or gone is seen), only the stat of a file someone
    /// vouches for is saved. `stamps` calls its argument with records in
    /// path (byte) order, merged with the sorted listing (no map is
    /// built); a trusted file it has no record for is stat'ed after all.
    pub fn walk_vouched(
        root: &Path,
        extra_globs: &[String],
        trusted: Trusted,
        stamps: Stamps,
    ) -> Result<Listing> {
        let mut listing = Self::walk_trusting(root, extra_globs, trusted)?;
        listing.vouch(root, stamps);
        Ok(listing)
    }

    fn walk_trusting(root: &Path, extra_globs: &[String], trusted: Trusted) -> Result<Listing> {
        let _span = crate::timing::span("scan: walk + stat");
        let mut walked = Walked::default();
        for dir in ROOT_DIRS {
            let wanted = |rel: &str| rel.ends_with(".md");
            walk(root, dir, usize::MAX, &mut walked, &wanted, trusted);
        }
        if !extra_globs.is_empty() {
            let set = glob_set(extra_globs)?;
            let seen: HashSet<String> = walked.found.iter().map(|f| f.rel.clone()).collect();
            let mut extra = Walked::default();
            for (dir, depth) in glob_bases(extra_globs) {
                walk(
                    root,
                    &dir,
                    depth,
                    &mut extra,
                    &|rel| set.is_match(rel),
                    &|_| false,
                );
            }
            extra.found.sort_by(|a, b| a.rel.cmp(&b.rel));
            extra.found.dedup_by(|a, b| a.rel == b.rel);
            walked
                .found
                .extend(extra.found.into_iter().filter(|f| !seen.contains(&f.rel)));
            walked.problems.extend(extra.problems);
        }
        let _sort = crate::timing::span("scan: sort");
        walked.found.sort_unstable_by(|a, b| a.rel.cmp(&b.rel));
        Ok(Listing(walked))
    }

    /// Gives each file listed without a stat the stamp `stamps` visits for
    /// its path (a merge of two sorted lists), and stats the ones it has
    /// none for; one that cannot be stat'ed now is left out, as the walk
    /// leaves out a file it cannot stat.
    fn vouch(&mut self, root: &Path, stamps: Stamps) {
        let _span = crate::timing::span("scan: vouched stamps");
        let found = &mut self.0.found;
        if !found.iter().any(Found::unstated) {
            return;
        }
        let mut at = 0;
        stamps(&mut |rel, (size, mtime_ns)| {
            while found.get(at).is_some_and(|f| f.rel.as_str() < rel) {
                at += 1;
            }
            if let Some(f) = found.get_mut(at)
                && f.rel == rel
                && f.unstated()
            {
                f.size = size;
                f.mtime_ns = mtime_ns;
            }
        });
        found.retain_mut(|f| {
            if !f.unstated() {
                return true;
            }
            match std::fs::metadata(root.join(&f.rel)) {
                Ok(m) if m.is_file() => {
                    f.size = m.len();
                    f.mtime_ns = mtime_ns(&m);
                    true
                }
                _ => false,
            }
        });
    }

    /// Walks what [`scan`] covers, in the order the directories list it
    /// (only [`Listing::walk`] sorts).
    pub fn roots(root: &Path) -> Listing {
        Listing(walk_roots(root))
    }

    /// The files found (in path (byte) order from [`Listing::walk`], as
    /// the directories listed them from [`Listing::roots`]), when the walk
    /// met no problem and every name is one hipo accepts; `None` otherwise (a
    /// scan then has problems to report, so only [`Listing::scan`] will do).
    pub fn clean_files(&self) -> Option<&[Found]> {
        let Walked {
            found, problems, ..
        } = &self.0;
        let _span = crate::timing::span("scan: names");
        (problems.is_empty() && found.iter().all(|f| layout::classify(&f.rel).is_ok()))
            .then_some(found.as_slice())
    }

    /// How many files were found.
    pub fn len(&self) -> usize {
        self.0.found.len()
    }

    /// [`Listing::scan`], the listing kept for after (its paths copied).
    pub fn scan_sorted(&self, root: &Path, known: &[(String, FileRecord)]) -> Scan {
        let _span = crate::timing::span("scan: compare");
        scan_merged(root, known, self.0.clone())
    }

    /// The scan: the listing against the records the store holds, in
    /// path order ([`crate::store::Store::files_in_order`]), merged with
    /// a sorted copy of the listing, no map built. At ten years, loading
    /// 7,947 records into a map and looking each file up in it, then
    /// inserting each into the scan's ordered map one at a time, was a
    /// sixth of an append's compaction.
    pub fn scan(self, root: &Path, known: &[(String, FileRecord)]) -> Scan {
        let _span = crate::timing::span("scan: compare");
        scan_merged(root, known, self.0)
    }
}

/// Scans `root` against the records the store holds, in strictly
/// increasing path (byte) order, as [`crate::store::Store::files_in_order`]
/// gives them: a record out of order would be taken for a file gone.
pub fn scan(root: &Path, known: &[(String, FileRecord)]) -> Scan {
    scan_merged(root, known, walk_roots(root))
}

/// Like [`scan`] (the records in path order), plus the files matching
/// `extra_globs` (project-relative, such as `docs/**/*.md`): what the
/// search index covers.
pub fn scan_with_globs(
    root: &Path,
    known: &[(String, FileRecord)],
    extra_globs: &[String],
) -> Result<Scan> {
    Ok(Listing::walk(root, extra_globs)?.scan(root, known))
}

fn walk_roots(root: &Path) -> Walked {
    let mut walked = Walked::default();
    walk_roots_into(root, &mut walked);
    walked
}

fn walk_roots_into(root: &Path, walked: &mut Walked) {
    for dir in ROOT_DIRS {
        walk(
            root,
            dir,
            usize::MAX,
            walked,
            &|rel| rel.ends_with(".md"),
            &|_| false,
        );
    }
}

/// Records' stamps in path order: called with what to call for each
/// path with its size and change stamp ([`Listing::walk_vouched`]).
pub(crate) type Stamps<'a> = &'a mut dyn FnMut(&mut dyn FnMut(&str, (u64, i128)));

/// Whether a file's size and change stamp are taken from someone other
/// than the disk ([`Listing::walk_vouched`]) rather than stat'ed.
pub(crate) type Trusted<'a> = &'a dyn Fn(&str) -> bool;

/// Hashes `to_hash` (in parallel when there are more than a few) and adds
/// each to the scan, as a changed file or a problem.
fn add_hashed(root: &Path, scan: &mut Scan, to_hash: Vec<(Found, PathKind)>) {
    let hash = |(f, kind): (Found, PathKind)| {
        let result = hash_file(root, &f.rel);
        (f, kind, result)
    };
    // A few files are hashed in less time than starting a thread pool takes.
    let hashed: Vec<_> = if to_hash.len() <= 4 {
        to_hash.into_iter().map(hash).collect()
    } else {
        to_hash.into_par_iter().map(hash).collect()
    };
    for (f, kind, result) in hashed {
        match result {
            Ok(hash) => {
                let record = FileRecord {
                    size: f.size,
                    mtime_ns: f.mtime_ns,
                    hash,
                };
                scan.updates.push((f.rel.clone(), Some(record.clone())));
                scan.files.insert(
                    f.rel,
                    ScannedFile {
                        kind,
                        record,
                        changed: true,
                    },
                );
            }
            Err(problem) => scan.problems.push(problem),
        }
    }
}

/// Hashes a file, refusing invalid UTF-8 (named with its line).
fn hash_file(root: &Path, rel: &str) -> std::result::Result<Hash, Problem> {
    crate::fsutil::hash_utf8(&root.join(rel)).map_err(|e| match e {
        crate::fsutil::Unreadable::Io(e) => Problem {
            path: rel.to_string(),
            line: None,
            message: format!("cannot read: {e}; hipo skipped it"),
        },
        crate::fsutil::Unreadable::NotUtf8 { line } => Problem {
            path: rel.to_string(),
            line: Some(line),
            message: "is not valid UTF-8; re-save it as UTF-8 (hipo skipped it)".into(),
        },
    })
}

/// Collects the files below `rel_dir` that `wanted` accepts, at most
/// `depth` levels down (1: the directory's own files), skipping dot-names;
/// a regular file `trusted` takes is not stat'ed (see [`Found::unstated`]).
fn walk(
    root: &Path,
    rel_dir: &str,
    depth: usize,
    out: &mut Walked,
    wanted: &dyn Fn(&str) -> bool,
    trusted: Trusted,
) {
    let Some(entries) = list_dir(root, rel_dir, out) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(name) = name.to_str() else { continue };
        let rel = child_rel(rel_dir, name);
        if name.starts_with('.') {
            if name.starts_with(crate::fsutil::TEMP_PREFIX) {
                out.temp.push(rel);
            }
            continue;
        }
        let Ok(file_type) = entry.file_type() else {
            continue;
        };
        if file_type.is_file() && wanted(&rel) && trusted(&rel) {
            out.add(Found {
                rel,
                size: 0,
                mtime_ns: UNSTATED,
            });
            continue;
        }
        let meta = if file_type.is_symlink() {
            match follow(&entry, &rel, wanted, out) {
                Some(m) => m,
                None => continue,
            }
        } else {
            let Ok(m) = entry.metadata() else { continue };
            m
        };
        if meta.is_dir() {
            flag_named_dir(&rel, out);
            if depth > 1 {
                walk(root, &rel, depth - 1, out, wanted, trusted);
            }
        } else {
            add_stated(rel, &meta, wanted, out);
        }
    }
}

/// The listing of `rel_dir` (the root when empty); `None` when it is
/// missing (nothing to walk, not a problem) or cannot be listed (said).
fn list_dir(root: &Path, rel_dir: &str, out: &mut Walked) -> Option<std::fs::ReadDir> {
    let dir = if rel_dir.is_empty() {
        root.to_path_buf()
    } else {
        root.join(rel_dir)
    };
    match std::fs::read_dir(dir) {
        Ok(e) => Some(e),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => {
            out.problems.push(Problem {
                path: rel_dir.into(),
                line: None,
                message: format!("cannot list: {e}"),
            });
            None
        }
    }
}

/// `rel_dir/name` (or `name` at the root), in one allocation of the
/// exact size: not `format!`, as this runs for every file of every scan.
fn child_rel(rel_dir: &str, name: &str) -> String {
    if rel_dir.is_empty() {
        return name.to_string();
    }
    let mut rel = String::with_capacity(rel_dir.len() + 1 + name.len());
    rel.push_str(rel_dir);
    rel.push('/');
    rel.push_str(name);
    rel
}

/// `memory/2026-01-02.md/` is a log or node by name only: say so rather
/// than skip it silently (the walk still goes into it).
fn flag_named_dir(rel: &str, out: &mut Walked) {
    if matches!(
        layout::classify(rel),
        Ok(layout::PathKind::Raw(_) | layout::PathKind::Node(_))
    ) {
        out.problems.push(Problem {
            path: rel.to_string(),
            line: None,
            message: "is a directory, not a Markdown file, so hipo skips it; rename or move it"
                .into(),
        });
    }
}

/// A stat'ed entry that is not a directory: added with its size and mtime
/// when wanted, or, when it is a FIFO, device or socket by a Markdown
/// file's name (or a link to one, such as `/dev/zero`), never read but said.
fn add_stated(
    rel: String,
    meta: &std::fs::Metadata,
    wanted: &dyn Fn(&str) -> bool,
    out: &mut Walked,
) {
    if !meta.is_file() && wanted(&rel) {
        out.problems.push(Problem {
            path: rel,
            line: None,
            message: "is not a regular file (a FIFO, a device or a socket), so hipo skips it; remove or rename it".into(),
        });
    } else if wanted(&rel) {
        out.add(Found {
            rel,
            size: meta.len(),
            mtime_ns: mtime_ns(meta),
        });
    }
}

/// A symlinked file is read through (its target's size and mtime); `None`
/// for a symlinked directory, which is not followed (one pointing back up
/// the tree would make the walk loop), or a link that cannot be followed,
/// which is a problem when it names a file hipo wants.
fn follow(
    entry: &std::fs::DirEntry,
    rel: &str,
    wanted: &dyn Fn(&str) -> bool,
    out: &mut Walked,
) -> Option<std::fs::Metadata> {
    match std::fs::metadata(entry.path()) {
        Ok(m) if m.is_dir() => None,
        Ok(m) => Some(m),
        Err(e) => {
            if wanted(rel) {
                let message = if e.kind() == std::io::ErrorKind::NotFound {
                    "is a broken symlink; fix or remove it".to_string()
                } else {
                    format!("cannot follow the symlink: {e}; fix or remove it")
                };
                out.problems.push(Problem {
                    path: rel.to_string(),
                    line: None,
                    message,
                });
            }
            None
        }
    }
}

/// A file's change stamp, in nanoseconds: the later of its mtime and (on
/// Unix) its ctime. With its size it decides whether a file is hashed
/// again. The ctime catches an edit whose mtime was put back (`touch -r`,
/// `cp -p`, `rsync -t`), which the mtime alone would miss; a chmod or a
/// rename costs one extra hash, no rebuild.
pub fn mtime_ns(meta: &std::fs::Metadata) -> i128 {
    let mtime = meta
        .modified()
        .ok()
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .map(|d| d.as_nanos() as i128)
        .unwrap_or(0);
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        let ctime = i128::from(meta.ctime()) * 1_000_000_000 + i128::from(meta.ctime_nsec());
        mtime.max(ctime)
    }
    #[cfg(not(unix))]
    mtime
}

#[cfg(test)]
mod tests;
