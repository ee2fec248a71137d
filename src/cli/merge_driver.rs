//! `hipo merge-driver KIND %O %A %B %P`: what git runs to merge a memory
//! file on a shared project (`hipo init --share` registers it). Quiet on
//! success, as git expects of a driver; an error exits non-zero, and git
//! reports the path as conflicted with OURS left as it was.

use super::exit;
use anyhow::Result;
use hipo_core::ShareKind as Kind;
use std::path::Path;

pub fn run(kind: Kind, base: &Path, ours: &Path, theirs: &Path, path: &str) -> Result<u8> {
    hipo_core::merge_files(kind, base, ours, theirs, path)?;
    Ok(exit::OK)
}
