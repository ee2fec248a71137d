//! Team memory through git: the merges `hipo merge-driver` runs when two
//! clones of a shared project changed the same memory file.
//!
//! A raw log is the source of truth and only ever appended to, so both
//! sides' entries are kept, each whole (`raw`). Everything else under
//! `memory/` is derived from the raw logs, so a merge only has to leave a
//! file the next compaction can judge, never a conflict: a node is one
//! side whole, ROOT.md merges by section, the trigger state by its fields
//! (`derived`). The compaction after the merge (the post-merge hook that
//! `hipo init --share` installs) brings the tree to what one machine
//! would build from the merged raw logs.
//!
//! Pure functions of the three texts: the git plumbing (`.gitattributes`,
//! the drivers in `.git/config`, the hooks) is the harness's.

mod derived;
mod raw;

/// Which merge a path gets, as `.gitattributes` names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// `memory/YYYY-MM-DD.md`: both sides' entries, each whole.
    Raw,
    /// A node, ROOT.md, MEMORY.md or the trigger state.
    Derived,
}

impl std::str::FromStr for Kind {
    type Err = String;

    fn from_str(s: &str) -> Result<Kind, String> {
        match s {
            "raw" => Ok(Kind::Raw),
            "derived" => Ok(Kind::Derived),
            other => Err(format!("unknown merge kind `{other}`; use raw or derived")),
        }
    }
}

/// The merged text of `path` (as git names it, relative to the
/// repository), changed from `base` on two sides. Never a conflict: every
/// kind of memory file has a merge that keeps what matters whole.
pub fn merge(kind: Kind, path: &str, base: &str, ours: &str, theirs: &str) -> String {
    let name = path.rsplit(['/', '\\']).next().unwrap_or(path);
    match kind {
        Kind::Raw => raw::merge(base, ours, theirs),
        Kind::Derived if name == ".compaction-state.json" => derived::state(ours, theirs),
        Kind::Derived if name == "ROOT.md" || name == "MEMORY.md" => {
            derived::sections(base, ours, theirs)
        }
        Kind::Derived => derived::node(ours, theirs).to_string(),
    }
}

/// `hipo merge-driver KIND %O %A %B %P`: merges the files git hands a
/// driver and leaves the result in `ours` (git's `%A`), written whole.
/// An error (a file that is not UTF-8 text) leaves `ours` as it is, and
/// git reports the path as conflicted without a marker in it.
pub fn merge_files(
    kind: Kind,
    base: &std::path::Path,
    ours: &std::path::Path,
    theirs: &std::path::Path,
    path: &str,
) -> crate::error::Result<()> {
    let read = |p: &std::path::Path| -> crate::error::Result<String> {
        let bytes = std::fs::read(p).map_err(|e| crate::error::Error::io(p, e))?;
        String::from_utf8(bytes).map_err(|_| {
            crate::error::Error::Usage(format!(
                "{path}: not UTF-8 text, so hipo cannot merge it; resolve it by hand"
            ))
        })
    };
    let merged = merge(kind, path, &read(base)?, &read(ours)?, &read(theirs)?);
    crate::fsutil::write_atomic(ours, merged.as_bytes())
}
