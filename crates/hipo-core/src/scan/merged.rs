//! The scan: a listing merged with the store's file records in path
//! order (see [`super::Listing::scan`]).

use super::{Found, PathKind, Problem, Scan, ScannedFile, Walked, add_hashed};
use crate::layout;
use crate::store::FileRecord;
use std::path::Path;

/// The listing `walked` against `known`, the records in path order: the
/// listing is sorted and merged with them. A file whose size and change
/// stamp match its record keeps it; the rest are hashed, in the walk's
/// order, in which their records are written (see
/// `compact::compact_tree`); a record no file matches is gone.
pub(super) fn scan_merged(root: &Path, known: &[(String, FileRecord)], walked: Walked) -> Scan {
    debug_assert!(
        known.windows(2).all(|w| w[0].0 < w[1].0),
        "records must be in strictly increasing path order"
    );
    let Walked {
        found,
        problems,
        temp,
        ..
    } = walked;
    let mut scan = Scan {
        problems,
        stale_temp: temp,
        ..Default::default()
    };
    let mut found: Vec<(usize, Found)> = found.into_iter().enumerate().collect();
    found.sort_unstable_by(|a, b| a.1.rel.cmp(&b.1.rel));
    let mut kept = Vec::with_capacity(found.len());
    let mut to_hash = Vec::new();
    let mut at = 0;
    for (order, f) in found {
        while known.get(at).is_some_and(|(rel, _)| *rel < f.rel) {
            at += 1;
        }
        let rec = known.get(at).filter(|(rel, _)| *rel == f.rel).map(|k| &k.1);
        let kind = match layout::classify(&f.rel) {
            Ok(k) => k,
            Err(bad) => {
                scan.problems.push(Problem {
                    path: f.rel,
                    line: None,
                    message: bad.0,
                });
                continue;
            }
        };
        match rec {
            Some(rec) if rec.size == f.size && rec.mtime_ns == f.mtime_ns => {
                let record = rec.clone();
                let file = ScannedFile {
                    kind,
                    record,
                    changed: false,
                };
                kept.push((f.rel, file));
            }
            _ => to_hash.push((order, f, kind)),
        }
    }
    // Sorted: the ordered map is built from them in one pass.
    scan.files = kept.into_iter().collect();
    to_hash.sort_unstable_by_key(|(order, ..)| *order);
    let to_hash: Vec<(Found, PathKind)> = to_hash.into_iter().map(|(_, f, k)| (f, k)).collect();
    add_hashed(root, &mut scan, to_hash);
    // Known but not found usable now: gone (a merge of two sorted lists).
    let mut files = scan.files.keys().peekable();
    for (rel, _) in known {
        while files.next_if(|f| *f < rel).is_some() {}
        if files.peek() != Some(&rel) {
            scan.removed.push(rel.clone());
            scan.updates.push((rel.clone(), None));
        }
    }
    scan.problems.sort_by(|a, b| a.path.cmp(&b.path));
    scan
}
