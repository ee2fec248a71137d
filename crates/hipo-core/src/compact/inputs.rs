//! What a node is built from: its sources, their hashes, their topics; and
//! the files read to learn it, each read once per run.

use super::record::{Ledger, NodeState};
use crate::error::Result;
use crate::fsutil::read_utf8;
use crate::layout::{Level, NodeId};
use crate::markdown::{self, Status, Topic};
use crate::scan::Scan;
use crate::store::Hash;
use crate::tree::{self, Tree};
use std::borrow::Cow;
use std::collections::{HashMap, HashSet};
use std::path::Path;

/// A node's inputs this run.
#[derive(Debug, Clone, Default)]
pub(crate) struct Inputs {
    /// Hash of everything below: compared with the store's to keep a node.
    pub hash: Hash,
    /// Its sources' paths, in order: the raw log of a daily, the children
    /// that exist of a parent.
    pub sources: Vec<String>,
    /// Sources whose text can be used now.
    pub ready: Vec<String>,
    /// Children still waiting for a summary.
    pub pending: Vec<String>,
    /// Statuses of the ready children, for [`tree::desired_status`].
    pub child_statuses: Vec<Status>,
}

/// Gathers a node's inputs from the scan and the states of the nodes
/// already done this run (levels run bottom-up, so its children are).
pub(crate) fn gather(
    tree: &Tree,
    id: NodeId,
    threshold: usize,
    states: &HashMap<String, NodeState>,
    scan: &Scan,
) -> Inputs {
    let mut hasher = blake3::Hasher::new();
    hasher.update(b"hipo-node-v2\0");
    hasher.update(id.level().as_str().as_bytes());
    hasher.update(&(threshold as u64).to_le_bytes());
    let sources: Vec<String> = match id {
        NodeId::Daily(d) => {
            let raw = tree::raw_path(d);
            if scan.files.contains_key(&raw) {
                vec![raw]
            } else {
                Vec::new()
            }
        }
        _ => tree
            .children(id)
            .into_iter()
            .map(NodeId::path)
            .filter(|p| states.contains_key(p))
            .collect(),
    };
    let (mut ready, mut pending, mut child_statuses) = (Vec::new(), Vec::new(), Vec::new());
    for src in &sources {
        hasher.update(src.as_bytes());
        // A child node counts by its content and whether it waits for a
        // summary, not by its status line; a raw log by its bytes.
        match states.get(src) {
            Some(s) => {
                hasher.update(&s.content);
                hasher.update(&[u8::from(s.status == Status::NeedsSummarization)]);
            }
            None => {
                hasher.update(&scan.hash(src).unwrap_or_default());
            }
        }
        match states.get(src) {
            Some(s) if s.status == Status::NeedsSummarization => pending.push(src.clone()),
            Some(s) => {
                child_statuses.push(s.status);
                ready.push(src.clone());
            }
            None => ready.push(src.clone()),
        }
    }
    Inputs {
        hash: *hasher.finalize().as_bytes(),
        sources,
        ready,
        pending,
        child_statuses,
    }
}

/// The topics a node's sources hold: a daily's raw log entries, or the
/// children's topics. For a node whose own file does not list them.
pub(crate) fn topics_of_sources(
    id: NodeId,
    inputs: &Inputs,
    ledger: &Ledger<'_>,
    texts: &mut Texts,
    root: &Path,
) -> Result<Vec<Topic>> {
    let mut topics = Vec::new();
    for src in &inputs.sources {
        match ledger.topics(src)? {
            Some(of_child) => topics.extend(of_child),
            None if id.level() == Level::Daily => {
                if let Ok(text) = texts.read_raw(root, src) {
                    topics.extend(markdown::topics_of(&text));
                }
            }
            None => {}
        }
    }
    Ok(dedup(topics))
}

/// Topics without repeats, first mention first.
pub(crate) fn dedup(mut topics: Vec<Topic>) -> Vec<Topic> {
    let mut seen = HashSet::new();
    topics.retain(|t| seen.insert(t.clone()));
    topics
}

/// What a node file's frontmatter says about itself: all [`super::plan`]
/// needs of a file the store has no record of.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Front {
    /// Its status is tentative or fixed: someone wrote its text (a copy or
    /// a summary), it is not a `needs-summarization` stub.
    pub summarised: bool,
    /// `source-lines`: how many source lines its summary covers.
    pub source_lines: Option<usize>,
    /// `source-hash`: [`short_hex`] of the inputs it was built from.
    pub source_hash: Option<String>,
    /// `body-hash`: [`short_hash`] of the body as hipo wrote it.
    pub body_hash: Option<String>,
    /// [`short_hash`] of its body as it is now.
    pub body_now: String,
}

impl Front {
    /// Its body is as hipo wrote it (here or on another clone).
    pub fn hipo_wrote(&self) -> bool {
        self.body_hash.as_ref() == Some(&self.body_now)
    }
}

/// Text of the files read or written this run, by project-relative path.
/// A written node replaces what was read, so a parent built later sees the
/// new text, also in a dry run where nothing reaches the disk.
#[derive(Default)]
pub(crate) struct Texts {
    map: HashMap<String, String>,
}

impl Texts {
    /// The file's text, read from disk the first time. A failed read is not
    /// kept: it is reported where it matters and rare enough to repeat.
    pub fn read(&mut self, root: &Path, path: &str) -> Result<&str> {
        if !self.map.contains_key(path) {
            let text = read_utf8(root, path)?;
            self.map.insert(path.to_string(), text);
        }
        Ok(&self.map[path])
    }

    /// A raw log's text. Only its daily reads it, once, and hipo never
    /// writes it, so it is not kept: holding every raw log until the run
    /// ends would only cost memory.
    pub fn read_raw(&self, root: &Path, path: &str) -> Result<Cow<'_, str>> {
        match self.map.get(path) {
            Some(text) => Ok(Cow::Borrowed(text)),
            None => read_utf8(root, path).map(Cow::Owned),
        }
    }

    /// Notes what a path now holds (or would hold, in a dry run).
    pub fn put(&mut self, path: &str, text: String) {
        self.map.insert(path.to_string(), text);
    }

    /// The frontmatter facts of a node file; `None` when it cannot be read
    /// or parsed or has no frontmatter.
    pub fn front(&mut self, root: &Path, path: &str) -> Option<Front> {
        let text = self.read(root, path).ok()?;
        let doc = markdown::parse_document(text).ok()?;
        let fm = doc.frontmatter?;
        Some(Front {
            summarised: matches!(fm.status(), Some(Status::Tentative | Status::Fixed)),
            source_lines: fm.source_lines,
            source_hash: fm.source_hash,
            body_hash: fm.body_hash,
            body_now: short_hash(doc.body.as_bytes()),
        })
    }
}

/// The 16 hex digits of a hash that a node's frontmatter records.
pub(crate) fn short_hex(hash: &Hash) -> String {
    blake3::Hash::from(*hash).to_hex()[..16].to_string()
}

/// [`short_hex`] of the blake3 hash of `bytes`.
pub(crate) fn short_hash(bytes: &[u8]) -> String {
    short_hex(blake3::hash(bytes).as_bytes())
}

/// Frontmatter lines a parent does not depend on: the status (moving from
/// tentative to fixed changes nothing a parent holds) and the provenance
/// hashes (which change whenever anything below changes; counting them
/// would rewrite every ancestor up to ROOT on each append).
const NOT_CONTENT: [&str; 3] = ["status:", "source-hash:", "body-hash:"];

/// A node file's hash without the [`NOT_CONTENT`] lines of its
/// frontmatter: what its parent is built from.
pub fn content_hash(text: &str) -> Hash {
    let mut h = blake3::Hasher::new();
    match markdown::split_frontmatter(text) {
        Ok((Some(yaml), body, _)) => {
            for line in yaml.split_inclusive('\n') {
                if !NOT_CONTENT.iter().any(|k| line.starts_with(k)) {
                    h.update(line.as_bytes());
                }
            }
            h.update(b"---\n");
            h.update(body.as_bytes());
        }
        _ => {
            h.update(text.as_bytes());
        }
    }
    *h.finalize().as_bytes()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_parent_depends_on_neither_status_nor_provenance() {
        let a =
            "---\ntype: daily\nstatus: tentative\nsource-hash: 1111\nbody-hash: 2222\n---\nbody\n";
        let b = "---\ntype: daily\nstatus: fixed\nsource-hash: 3333\nbody-hash: 4444\n---\nbody\n";
        assert_eq!(content_hash(a), content_hash(b));
        assert_ne!(
            content_hash(a),
            content_hash(&a.replace("body\n", "other\n"))
        );
        assert_ne!(content_hash(a), content_hash(&a.replace("daily", "weekly")));
    }
}
