//! Every write a compaction makes, through a [`Sink`]: [`Disk`] writes,
//! [`DryRun`] notes what would be written and writes nothing. Deciding and
//! writing are apart, so a dry run decides exactly as a real run does, and
//! a test can make any single write fail.

use super::inputs::{self, Inputs, content_hash, short_hash, short_hex};
use super::record::Entry;
use super::{Reason, Run};
use crate::error::{Error, Problem, Result};
use crate::fsutil::write_atomic;
use crate::layout::NodeId;
use crate::markdown::{self, Frontmatter, Status, Topic};
use crate::redact::redact;
use crate::store::{Batch, FileRecord, Hash, Store};
use crate::summarize::{Summary, Writer};
use crate::tree;
use std::path::{Path, PathBuf};

/// A file's stat after a write, as the store records it.
pub(crate) struct Stat {
    pub size: u64,
    /// [`crate::scan::mtime_ns`] of the written file.
    pub mtime_ns: i128,
}

/// What [`Sink::keep_prev`] did with someone else's text.
pub(crate) enum Kept {
    /// Saved; an older `.prev` holding other text was moved to this path.
    Saved { moved: Option<String> },
    /// Dry run: it would be saved.
    Would,
}

/// Where a compaction's writes go. Paths are project-relative.
pub(crate) trait Sink {
    /// Writes a whole file atomically; its stat, or `None` when nothing
    /// reached the disk.
    fn write(&mut self, path: &str, bytes: &[u8]) -> Result<Option<Stat>>;

    /// Moves a file to another name.
    fn rename(&mut self, from: &str, to: &str) -> Result<()>;

    /// Removes a file; best effort (a stale temp file).
    fn remove(&mut self, path: &str);

    /// Copies ROOT's sections into `MEMORY.md` when that file exists.
    fn sync_memory_md(&mut self, root_md: &str) -> Result<()>;

    /// Writes a batch of records to the store.
    fn commit(&mut self, store: &Store, batch: Batch) -> Result<()>;

    /// Where the files are, to read what is there (reads are not writes).
    fn root(&self) -> Option<&Path>;

    /// Saves `old` as `prev` before its file is replaced. An older `.prev`
    /// holding other text is moved aside to `.prev.N`, never overwritten.
    /// Two writes, each through the sink.
    fn keep_prev(&mut self, prev: &str, old: &str) -> Result<Kept> {
        let Some(root) = self.root().map(Path::to_path_buf) else {
            return Ok(Kept::Would);
        };
        let mut moved = None;
        if let Ok(earlier) = std::fs::read(root.join(prev))
            && earlier != old.as_bytes()
        {
            let older = (1..)
                .map(|n| format!("{prev}.{n}"))
                .find(|p| !root.join(p).exists())
                .unwrap_or_else(|| format!("{prev}.old"));
            self.rename(prev, &older)?;
            moved = Some(older);
        }
        self.write(prev, old.as_bytes())?;
        Ok(Kept::Saved { moved })
    }
}

/// The real thing.
pub(crate) struct Disk {
    root: PathBuf,
}

impl Disk {
    pub fn new(root: &Path) -> Disk {
        Disk {
            root: root.to_path_buf(),
        }
    }
}

impl Sink for Disk {
    fn write(&mut self, path: &str, bytes: &[u8]) -> Result<Option<Stat>> {
        let abs = self.root.join(path);
        write_atomic(&abs, bytes)?;
        let meta = std::fs::metadata(&abs).map_err(|e| Error::io(&abs, e))?;
        Ok(Some(Stat {
            size: meta.len(),
            mtime_ns: crate::scan::mtime_ns(&meta),
        }))
    }

    fn rename(&mut self, from: &str, to: &str) -> Result<()> {
        let to = self.root.join(to);
        crate::failpoint::hit("rename", &to.display()).map_err(|e| Error::io(&to, e))?;
        std::fs::rename(self.root.join(from), &to).map_err(|e| Error::io(&to, e))
    }

    fn remove(&mut self, path: &str) {
        let _ = std::fs::remove_file(self.root.join(path));
    }

    fn sync_memory_md(&mut self, root_md: &str) -> Result<()> {
        crate::root::sync_memory_md(&self.root, root_md)
    }

    fn commit(&mut self, store: &Store, batch: Batch) -> Result<()> {
        store.commit(&batch)
    }

    fn root(&self) -> Option<&Path> {
        Some(&self.root)
    }
}

/// A dry run: remembers what would be written, writes nothing.
#[derive(Default)]
pub(crate) struct DryRun {
    /// Paths that would be written, renamed to or synced, in order.
    #[cfg_attr(not(test), allow(dead_code))]
    pub would_write: Vec<String>,
}

impl Sink for DryRun {
    fn write(&mut self, path: &str, _: &[u8]) -> Result<Option<Stat>> {
        self.would_write.push(path.to_string());
        Ok(None)
    }

    fn rename(&mut self, _: &str, to: &str) -> Result<()> {
        self.would_write.push(to.to_string());
        Ok(())
    }

    fn remove(&mut self, _: &str) {}

    fn sync_memory_md(&mut self, _: &str) -> Result<()> {
        self.would_write.push("MEMORY.md".into());
        Ok(())
    }

    fn commit(&mut self, _: &Store, _: Batch) -> Result<()> {
        Ok(())
    }

    fn root(&self) -> Option<&Path> {
        None
    }

    fn keep_prev(&mut self, prev: &str, _: &str) -> Result<Kept> {
        self.would_write.push(prev.to_string());
        Ok(Kept::Would)
    }
}

impl Run<'_> {
    /// Writes a node file through the sink and notes its new stat for the
    /// store; returns the hash of its bytes.
    pub(super) fn write(&mut self, path: &str, content: String) -> Result<Hash> {
        let hash = *blake3::hash(content.as_bytes()).as_bytes();
        if let Some(stat) = self.sink.write(path, content.as_bytes())? {
            let record = FileRecord {
                size: stat.size,
                mtime_ns: stat.mtime_ns,
                hash,
            };
            self.ledger
                .batch
                .files
                .push((path.to_string(), Some(record)));
        }
        self.texts.put(path, content);
        Ok(hash)
    }

    /// Saves text someone else wrote before hipo replaces it, unless its
    /// body is what hipo is about to write anyway.
    pub(super) fn keep_prev(
        &mut self,
        path: &str,
        new_content: &str,
        what: &str,
    ) -> Result<Option<String>> {
        let Ok(old) = self.texts.read(self.root, path) else {
            return Ok(None);
        };
        let body_of = |t: &str| {
            markdown::split_frontmatter(t)
                .map(|(_, b, _)| b.trim().to_string())
                .unwrap_or_default()
        };
        if body_of(old) == body_of(new_content) {
            return Ok(None);
        }
        let old = old.to_string();
        let prev = format!("{path}.prev");
        let warning = match self.sink.keep_prev(&prev, &old)? {
            Kept::Would => {
                format!("{path} {what}; compact would rewrite it, keeping the old text in {prev}")
            }
            Kept::Saved { moved } => {
                let moved = moved
                    .map(|older| format!(" (the earlier {prev} is now {older})"))
                    .unwrap_or_default();
                format!("{path} {what}; rewrote it, old text kept in {prev}{moved}")
            }
        };
        self.report.warnings.push(warning);
        Ok(Some(prev))
    }

    /// Writes a built node (when its bytes change) and records it.
    pub(super) fn finish_node(&mut self, node: Finished) -> Result<()> {
        let Finished {
            id,
            reason,
            keep_prev,
            inputs,
            topics,
            source_lines,
            body,
            summary,
            status,
        } = node;
        let status = status.unwrap_or_else(|| {
            tree::desired_status(
                id,
                self.options.today,
                false,
                &inputs.child_statuses,
                inputs.pending.len(),
            )
        });
        let summarized = summary.is_some() || status == Status::NeedsSummarization;
        let body = redact(&crate::private::strip(&body)).into_owned();
        let fm = Frontmatter {
            kind: Some(id.level().into()),
            status: Some(status.into()),
            period: Some(id.into()),
            source_files: inputs.sources.clone(),
            pending: inputs.pending.clone(),
            source_lines: summarized.then_some(source_lines),
            model: summary.as_ref().and_then(|s| s.model.clone()),
            prompt_version: summary.as_ref().and_then(|s| s.prompt_version.clone()),
            topics: topics.iter().map(Topic::render).collect(),
            source_hash: Some(short_hex(&inputs.hash)),
            body_hash: Some(short_hash(body.as_bytes())),
            ..Default::default()
        };
        let content = format!("{}{body}", redact(&fm.render()));
        let path = id.path();
        let content_hash = content_hash(&content);
        let (file_hash, written, prev) = self.replace(&path, content, keep_prev)?;
        self.ledger.record(Entry {
            id,
            input_hash: inputs.hash,
            sources: inputs.sources,
            pending: inputs.pending,
            file_hash,
            content: content_hash,
            adopted: false,
            status,
            writer: match summarized {
                true => self.writer.clone(),
                false => Writer::Copy,
            },
            body_lines: markdown::line_count(&body),
            source_lines,
            topics,
            reason: Some(reason),
            written,
            prev,
        });
        Ok(())
    }

    /// Puts `content` in a node's file unless it holds those bytes already,
    /// keeping someone else's text first when `keep_prev`. Returns the
    /// bytes' hash, whether they changed and where old text was kept.
    fn replace(
        &mut self,
        path: &str,
        content: String,
        keep_prev: bool,
    ) -> Result<(Hash, bool, Option<String>)> {
        let hash = *blake3::hash(content.as_bytes()).as_bytes();
        let on_disk = self.scan.hash(path);
        let written = on_disk != Some(hash);
        let mut prev = None;
        if written && keep_prev && on_disk.is_some() {
            prev = self.keep_prev(path, &content, "was edited and its sources changed")?;
        }
        if written {
            self.write(path, content)?;
        } else {
            self.texts.put(path, content);
        }
        Ok((hash, written, prev))
    }

    /// Takes the text in a node's file as the node: someone else's (or, when
    /// `own`, a model's summary hipo recognised after losing its store).
    pub(super) fn adopt(
        &mut self,
        id: NodeId,
        inputs: &Inputs,
        reason: Option<Reason>,
        own: bool,
    ) -> Result<()> {
        let path = id.path();
        let Some((text, fm, body_lines)) = self.read_node(id)? else {
            return Ok(());
        };
        let want = tree::desired_status(
            id,
            self.options.today,
            false,
            &inputs.child_statuses,
            inputs.pending.len(),
        );
        // A file without a status (its frontmatter was dropped) is judged
        // by its period and sources, as hipo would judge its own node, so
        // it does not hold its parents tentative for ever.
        let declared = fm.status();
        let mut topics: Vec<Topic> = fm.topics.iter().filter_map(|t| Topic::parse(t)).collect();
        if topics.is_empty() {
            let (ledger, texts) = (&self.ledger, &mut self.texts);
            topics = inputs::topics_of_sources(id, inputs, ledger, texts, self.root)?;
            if reason.is_some() {
                self.report.warnings.push(format!(
                    "{path} has no `topics:` in its frontmatter; hipo took its topics from its sources (keep the frontmatter when you edit a node)"
                ));
            }
        }
        let mut file_hash = *blake3::hash(text.as_bytes()).as_bytes();
        let mut status = declared.unwrap_or(want);
        let mut written = false;
        // Fixed is hipo's to grant: an adopted tentative node whose period
        // and sources are final gets only its `status:` line changed.
        if declared == Some(Status::Tentative)
            && !inputs.sources.is_empty()
            && want == Status::Fixed
            && let Some(updated) = set_status_line(&text, Status::Fixed)
        {
            file_hash = self.write(&path, updated)?;
            status = Status::Fixed;
            written = true;
        }
        self.ledger.record(Entry {
            id,
            input_hash: inputs.hash,
            sources: inputs.sources.clone(),
            pending: inputs.pending.clone(),
            file_hash,
            content: content_hash(&text),
            adopted: !own,
            status,
            writer: match (own, fm.model, fm.prompt_version) {
                (true, Some(model), Some(prompt_version)) => Writer::Model {
                    model,
                    prompt_version,
                },
                _ => Writer::External,
            },
            body_lines,
            source_lines: fm.source_lines.unwrap_or(body_lines),
            topics,
            reason: reason.or(written.then_some(Reason::StatusChange)),
            written,
            prev: None,
        });
        Ok(())
    }

    /// A node's file, its frontmatter and its body's lines; `None` (the
    /// problem reported, the node skipped) when it cannot be read or parsed.
    fn read_node(&mut self, id: NodeId) -> Result<Option<(String, Frontmatter, usize)>> {
        let path = id.path();
        let text = match self.texts.read(self.root, &path) {
            Ok(t) => t.to_string(),
            Err(e) => return self.skip(id, problem_of(&path, e)),
        };
        match markdown::parse_document(&text) {
            Ok(doc) => {
                let fm = doc.frontmatter.unwrap_or_default();
                let body_lines = markdown::line_count(doc.body);
                Ok(Some((text, fm, body_lines)))
            }
            Err(e) => {
                let problem = Problem {
                    path,
                    line: Some(e.line),
                    message: e.message,
                };
                self.skip(id, problem)
            }
        }
    }

    /// A node that cannot be adopted this run keeps its last known state,
    /// so its parent neither loses it nor treats it as new.
    fn skip<T>(&mut self, id: NodeId, problem: Problem) -> Result<Option<T>> {
        self.report.problems.push(problem);
        self.ledger.keep(id)?;
        Ok(None)
    }
}

/// A drafted node with its body settled: a copy, a summary or a stub.
pub(crate) struct Finished {
    pub id: NodeId,
    pub reason: Reason,
    pub keep_prev: bool,
    pub inputs: Inputs,
    pub topics: Vec<Topic>,
    pub source_lines: usize,
    pub body: String,
    /// The model's summary, when that is what `body` is.
    pub summary: Option<Summary>,
    /// `needs-summarization` for a stub; otherwise decided by the tree.
    pub status: Option<Status>,
}

/// A read error as a problem with the file it is about.
pub(crate) fn problem_of(path: &str, e: Error) -> Problem {
    match e {
        Error::BadInput { line, message, .. } => Problem {
            path: path.to_string(),
            line,
            message,
        },
        other => Problem {
            path: path.to_string(),
            line: None,
            message: other.to_string(),
        },
    }
}

/// Rewrites only the `status:` line of a file's frontmatter.
fn set_status_line(text: &str, status: Status) -> Option<String> {
    let (yaml, _, _) = markdown::split_frontmatter(text).ok()?;
    let yaml = yaml?;
    let start = text.find(yaml)?;
    let mut out = String::with_capacity(text.len());
    out.push_str(&text[..start]);
    let mut replaced = false;
    for line in yaml.split_inclusive('\n') {
        if !replaced && line.starts_with("status:") {
            out.push_str(&format!("status: {}\n", status.as_str()));
            replaced = true;
        } else {
            out.push_str(line);
        }
    }
    out.push_str(&text[start + yaml.len()..]);
    replaced.then_some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn status_line_only() {
        let t = "---\ntype: daily\nstatus: tentative\ntopics: []\n---\nbody status: tentative\n";
        assert_eq!(
            set_status_line(t, Status::Fixed).unwrap(),
            "---\ntype: daily\nstatus: fixed\ntopics: []\n---\nbody status: tentative\n"
        );
    }

    #[test]
    fn a_dry_run_writes_nothing_and_says_what_it_would() {
        let mut dry = DryRun::default();
        assert!(dry.write("memory/daily/x.md", b"text").unwrap().is_none());
        assert!(matches!(
            dry.keep_prev("memory/daily/x.md.prev", "old").unwrap(),
            Kept::Would
        ));
        dry.sync_memory_md("root").unwrap();
        assert_eq!(
            dry.would_write,
            ["memory/daily/x.md", "memory/daily/x.md.prev", "MEMORY.md"]
        );
    }

    #[test]
    fn an_older_prev_is_moved_aside_not_overwritten() {
        let dir = std::env::temp_dir().join(format!("hipo-prev-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("n.md.prev"), "first").unwrap();
        let mut disk = Disk::new(&dir);
        let kept = disk.keep_prev("n.md.prev", "second").unwrap();
        assert!(matches!(kept, Kept::Saved { moved: Some(ref m) } if m == "n.md.prev.1"));
        assert_eq!(
            std::fs::read_to_string(dir.join("n.md.prev.1")).unwrap(),
            "first"
        );
        assert_eq!(
            std::fs::read_to_string(dir.join("n.md.prev")).unwrap(),
            "second"
        );
        // The same text again is not moved aside twice.
        assert!(matches!(
            disk.keep_prev("n.md.prev", "second").unwrap(),
            Kept::Saved { moved: None }
        ));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
