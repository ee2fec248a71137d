//! What a compaction that found nothing to do keeps to know, by walking
//! without listing, that nothing changed since: the tree's digest, and the
//! files changed last (stat'ed first, where a change most likely lands).

use super::{Found, Listing, Walked};
use std::path::Path;

/// An order-free fingerprint of the tree: how many files, and the sum of a
/// hash of each one's path, size and change stamp. Two walks with equal
/// digests found the same files with the same stamps (short of a 128-bit
/// collision), which is what a compaction needs to know to trust that
/// nothing changed since it last found nothing to do, without holding a
/// listing of every file.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub(crate) struct Digest {
    files: u64,
    sum: u128,
}

impl Digest {
    pub(super) fn add(&mut self, f: &Found) {
        self.insert(&f.rel, f.size, f.mtime_ns);
    }

    /// Folds in a file with this size and change stamp.
    pub(crate) fn insert(&mut self, rel: &str, size: u64, mtime_ns: i128) {
        self.sum = self.sum.wrapping_add(Self::of(rel, size, mtime_ns));
        self.files = self.files.wrapping_add(1);
    }

    /// Takes out a file [`Digest::insert`] folded in: the digest is a sum,
    /// so a file's change is told by taking out its old stamp and putting
    /// in its new one, without the other files.
    pub(crate) fn remove(&mut self, rel: &str, size: u64, mtime_ns: i128) {
        self.sum = self.sum.wrapping_sub(Self::of(rel, size, mtime_ns));
        self.files = self.files.wrapping_sub(1);
    }

    fn of(rel: &str, size: u64, mtime_ns: i128) -> u128 {
        let mut h = blake3::Hasher::new();
        h.update(rel.as_bytes());
        h.update(&[0]);
        h.update(&size.to_le_bytes());
        h.update(&mtime_ns.to_le_bytes());
        let mut low = [0u8; 16];
        low.copy_from_slice(&h.finalize().as_bytes()[..16]);
        u128::from_le_bytes(low)
    }
}

impl Listing {
    /// The listing's [`Digest`], when it is clean (no problem, every name
    /// accepted, no temp file left).
    #[cfg(test)]
    pub fn digest(&self) -> Option<Digest> {
        if !self.0.temp.is_empty() {
            return None;
        }
        let mut digest = Digest::default();
        self.clean_files()?.iter().for_each(|f| digest.add(f));
        Some(digest)
    }

    /// The `n` files changed last, newest first, with their size and
    /// change stamp: where the next change most likely lands.
    pub fn newest(&self, n: usize) -> Vec<(String, u64, i128)> {
        let newer = |a: &&Found, b: &&Found| b.mtime_ns.cmp(&a.mtime_ns).then(a.rel.cmp(&b.rel));
        let mut by_age: Vec<&Found> = self.0.found.iter().collect();
        if by_age.len() > n {
            by_age.select_nth_unstable_by(n, newer);
            by_age.truncate(n);
        }
        by_age.sort_unstable_by(newer);
        by_age
            .into_iter()
            .map(|f| (f.rel.clone(), f.size, f.mtime_ns))
            .collect()
    }
}

/// The digest of what [`super::scan`] would list, walked without listing
/// it; `None` when the walk met a problem or a temp file (a scan has work
/// for those).
pub(crate) fn digest(root: &Path) -> Option<Digest> {
    let _span = crate::timing::span("scan: walk + stat (digest)");
    let mut walked = Walked {
        digest: Some(Digest::default()),
        ..Walked::default()
    };
    super::walk_roots_into(root, &mut walked);
    (walked.problems.is_empty() && walked.temp.is_empty())
        .then_some(walked.digest)
        .flatten()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn newest_picks_the_files_changed_last_newest_first() {
        let found = |rel: &str, mtime_ns: i128| Found {
            rel: rel.into(),
            size: 1,
            mtime_ns,
        };
        let listing = Listing(Walked {
            found: vec![
                found("memory/a.md", 30),
                found("memory/b.md", 90),
                found("memory/c.md", 10),
                found("memory/d.md", 90),
                found("memory/e.md", 50),
            ],
            ..Walked::default()
        });
        let names = |n| -> Vec<String> { listing.newest(n).into_iter().map(|f| f.0).collect() };
        // Equal stamps in path order, so the pick does not depend on the walk's.
        assert_eq!(names(3), ["memory/b.md", "memory/d.md", "memory/e.md"]);
        assert_eq!(names(5), names(9));
        assert_eq!(names(5)[4], "memory/c.md");
        assert!(names(0).is_empty());
    }

    #[test]
    fn the_digest_is_the_listing_s_and_sees_every_kind_of_change() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let write = |rel: &str, text: &str| {
            let path = root.join(rel);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        };
        write("memory/2026-01-01.md", "# 2026-01-01\n");
        write("memory/daily/2026-01-01.md", "---\ntype: daily\n---\n");
        write("knowledge/notes.md", "notes\n");
        let listed = || super::super::Listing::roots(root).digest();
        let first = digest(root).unwrap();
        assert_eq!(Some(first), listed());
        // Renamed, added, grown: each moves the digest.
        std::fs::rename(root.join("knowledge/notes.md"), root.join("knowledge/n.md")).unwrap();
        let renamed = digest(root).unwrap();
        assert_ne!(renamed, first);
        write("plans/next.md", "next\n");
        let added = digest(root).unwrap();
        assert_ne!(added, renamed);
        write("plans/next.md", "next, longer\n");
        assert_ne!(digest(root).unwrap(), added);
        assert_eq!(digest(root), listed());
        // A problem or a temp file leaves no digest: a scan has work there.
        write("memory/daily/.hipo-tmp-x", "");
        assert_eq!(digest(root), None);
        std::fs::remove_file(root.join("memory/daily/.hipo-tmp-x")).unwrap();
        write("memory/2026-13-01.md", "not a date\n");
        assert_eq!(digest(root), None);
        assert_eq!(listed(), None);
    }
}
