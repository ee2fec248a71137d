//! The incremental plan: a run that starts where the last clean run left
//! the tree plans only the nodes the files changed since can reach.
//!
//! A clean run (no problem, no failed summary, no warning) leaves a
//! [`super::settled`] record: the run's key and a digest of the store's
//! file records as the run left them, which is the tree as it stands
//! after the run's writes. A run with that key whose store holds exactly
//! those records (their digest, computed from the records it loads
//! anyway) would, planned in full, keep every node none of whose files
//! changed since: its inputs, its file and its record are what the last
//! run left, and a run on such a tree finds nothing to do (which
//! `tests/model.rs` checks by compacting twice at every step). So it
//! plans only the [`Dirty`] nodes: the node of every file the scan found
//! changed, added or gone, its ancestors (a week feeds both months it
//! spans), and ROOT; every other node's state is its record, read when a
//! planned parent or ROOT needs it. Whatever the record cannot vouch for
//! plans in full: another key, other records, a problem or a leftover
//! temp file, a changed file that is neither a raw log nor a node.

use super::NodeInfo;
use crate::layout::{self, Level, Month, NodeId, PathKind, Week};
use crate::scan::{Digest, Scan};
use crate::store::FileRecord;
use std::collections::{HashMap, HashSet};

/// The store's file records as a [`Digest`], followed through a run's
/// commits: what the settled record keeps of the tree.
pub(crate) struct Files<'k> {
    /// In path order ([`crate::store::Store::files_in_order`]).
    known: &'k [(String, FileRecord)],
    /// Paths committed this run, with their stamps now (`None`: gone).
    now: HashMap<String, Option<(u64, i128)>>,
    digest: Digest,
}

impl<'k> Files<'k> {
    /// The digest of the records the run starts from.
    pub fn new(known: &'k [(String, FileRecord)]) -> Files<'k> {
        let _span = crate::timing::span("compact: records digest");
        let mut digest = Digest::default();
        for (rel, r) in known {
            digest.insert(rel, r.size, r.mtime_ns);
        }
        Files {
            known,
            now: HashMap::new(),
            digest,
        }
    }

    /// Follows a commit of these file records.
    pub fn fold(&mut self, files: &[(String, Option<FileRecord>)]) {
        for (rel, rec) in files {
            let was = match self.now.get(rel) {
                Some(stamp) => *stamp,
                None => self
                    .known
                    .binary_search_by(|(k, _)| k.as_str().cmp(rel))
                    .ok()
                    .map(|i| (self.known[i].1.size, self.known[i].1.mtime_ns)),
            };
            if let Some((size, mtime_ns)) = was {
                self.digest.remove(rel, size, mtime_ns);
            }
            let stamp = rec.as_ref().map(|r| (r.size, r.mtime_ns));
            if let Some((size, mtime_ns)) = stamp {
                self.digest.insert(rel, size, mtime_ns);
            }
            self.now.insert(rel.clone(), stamp);
        }
    }

    /// The digest of the records as committed so far.
    pub fn digest(&self) -> Digest {
        self.digest
    }

    /// The files committed this run that exist, with their stamps now.
    pub fn committed(&self) -> impl Iterator<Item = (&str, u64, i128)> {
        self.now
            .iter()
            .filter_map(|(rel, s)| s.map(|(size, mtime)| (rel.as_str(), size, mtime)))
    }
}

/// The nodes a run starting from a settled record plans, and the report
/// entries of the others as that run left them.
pub(crate) struct Partial {
    pub dirty: Dirty,
    pub remembered: Remembered,
}

/// The report's nodes as the run the record is from left them, taken in
/// the report's order (by level, then path): a merge with the tree rather
/// than a map of every node (4,295 at ten years).
pub(crate) struct Remembered(std::iter::Peekable<std::vec::IntoIter<NodeInfo>>);

impl Remembered {
    pub fn new(mut nodes: Vec<NodeInfo>) -> Remembered {
        // In that order already, as a report lists them.
        nodes.sort_by(|a, b| (a.level, &a.path).cmp(&(b.level, &b.path)));
        Remembered(nodes.into_iter().peekable())
    }

    /// The node at `path`, if remembered; asked in the report's order
    /// (the nodes passed over are dropped).
    pub fn take(&mut self, level: Level, path: &str) -> Option<NodeInfo> {
        while self
            .0
            .next_if(|n| (n.level, n.path.as_str()) < (level, path))
            .is_some()
        {}
        self.0.next_if(|n| n.level == level && n.path == path)
    }
}

impl Partial {
    /// Few enough nodes planned to commit them all at once: an append's
    /// (its day, week, one or two months and ROOT), not a history's.
    pub fn is_small(&self) -> bool {
        self.dirty.0.len() <= SMALL
    }
}

/// See [`Partial::is_small`].
const SMALL: usize = 32;

/// Nodes whose inputs or file may differ from what the last clean run
/// left: a superset is safe (a node planned that needed nothing is kept).
#[derive(Debug, Default, PartialEq)]
pub(crate) struct Dirty(HashSet<NodeId>);

impl Dirty {
    /// The nodes the files `scan` found changed, added or gone can reach;
    /// `None` when the scan holds anything else (a problem, a temp file,
    /// a changed file that is not a raw log or a node).
    pub fn of(scan: &Scan) -> Option<Dirty> {
        if !scan.problems.is_empty() || !scan.stale_temp.is_empty() {
            return None;
        }
        Dirty::of_paths(scan.updates.iter().map(|(rel, _)| rel.as_str()))
    }

    fn of_paths<'a>(changed: impl Iterator<Item = &'a str>) -> Option<Dirty> {
        let mut nodes = HashSet::from([NodeId::Root]);
        let mut weeks = HashSet::new();
        for rel in changed {
            let id = match layout::classify(rel).ok()? {
                PathKind::Raw(day) => NodeId::Daily(day),
                PathKind::Node(id) => id,
                PathKind::Knowledge | PathKind::Plans | PathKind::Other => return None,
            };
            match id {
                NodeId::Daily(day) => weeks.insert(Week::of(day)),
                NodeId::Weekly(week) => weeks.insert(week),
                NodeId::Monthly(_) | NodeId::Root => false,
            };
            nodes.insert(id);
        }
        for week in weeks {
            // Both months a week spans: it feeds each it has a day in.
            for day in [week.first_day()?, week.last_day()?] {
                nodes.insert(NodeId::Monthly(Month::of(day)));
            }
            nodes.insert(NodeId::Weekly(week));
        }
        Some(Dirty(nodes))
    }

    /// Whether the run plans `id`.
    pub fn contains(&self, id: NodeId) -> bool {
        self.0.contains(&id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::NaiveDate;

    fn day(s: &str) -> NaiveDate {
        NaiveDate::parse_from_str(s, "%Y-%m-%d").unwrap()
    }

    fn dirty(paths: &[&str]) -> Option<Vec<String>> {
        let Dirty(nodes) = Dirty::of_paths(paths.iter().copied())?;
        let mut out: Vec<String> = nodes.into_iter().map(NodeId::path).collect();
        out.sort();
        Some(out)
    }

    #[test]
    fn a_raw_log_reaches_its_daily_its_week_both_its_months_and_root() {
        // 2026-03-31 is a Tuesday: its week runs into April.
        let got = dirty(&["memory/2026-03-31.md"]).unwrap();
        let week = Week::of(day("2026-03-31"));
        let want = {
            let mut v = vec![
                NodeId::Daily(day("2026-03-31")).path(),
                NodeId::Weekly(week).path(),
                NodeId::Monthly(Month::of(day("2026-03-01"))).path(),
                NodeId::Monthly(Month::of(day("2026-04-01"))).path(),
                NodeId::Root.path(),
            ];
            v.sort();
            v
        };
        assert_eq!(got, want);
    }

    #[test]
    fn a_node_reaches_itself_and_its_ancestors_only() {
        let week = Week::of(day("2026-05-13"));
        let got = dirty(&[&NodeId::Weekly(week).path()]).unwrap();
        assert!(got.contains(&NodeId::Weekly(week).path()));
        assert!(got.contains(&NodeId::Monthly(Month::of(day("2026-05-13"))).path()));
        assert!(!got.iter().any(|p| p.contains("daily")), "{got:?}");
        let month = NodeId::Monthly(Month::of(day("2026-05-13"))).path();
        assert_eq!(dirty(&[&month]).unwrap(), {
            let mut v = vec![month.clone(), NodeId::Root.path()];
            v.sort();
            v
        });
    }

    #[test]
    fn a_file_beside_the_tree_plans_in_full() {
        assert_eq!(dirty(&["knowledge/notes.md"]), None);
        assert_eq!(dirty(&["plans/next.md"]), None);
        assert_eq!(dirty(&[]), Some(vec![NodeId::Root.path()]));
    }

    #[test]
    fn remembered_nodes_are_taken_in_the_reports_order() {
        let info = |path: &str, level: Level| NodeInfo {
            path: path.into(),
            level,
            status: crate::markdown::Status::Fixed,
            lines: 1,
            source_lines: 1,
            pending: Vec::new(),
        };
        let mut remembered = Remembered::new(vec![
            info("memory/ROOT.md", Level::Root),
            info("memory/daily/2026-03-01.md", Level::Daily),
            info("memory/daily/2026-03-02.md", Level::Daily),
            info("memory/daily/2026-03-04.md", Level::Daily),
            info("memory/weekly/2026-W09.md", Level::Weekly),
            info("memory/monthly/2026-03.md", Level::Monthly),
        ]);
        let mut take = |path: &str, level| remembered.take(level, path).map(|n| n.path);
        assert_eq!(
            take("memory/daily/2026-03-01.md", Level::Daily).as_deref(),
            Some("memory/daily/2026-03-01.md")
        );
        // One passed over (planned this run) and one never remembered.
        assert_eq!(take("memory/daily/2026-03-03.md", Level::Daily), None);
        assert_eq!(
            take("memory/daily/2026-03-04.md", Level::Daily).as_deref(),
            Some("memory/daily/2026-03-04.md")
        );
        assert_eq!(
            take("memory/weekly/2026-W09.md", Level::Weekly).as_deref(),
            Some("memory/weekly/2026-W09.md")
        );
        assert_eq!(
            take("memory/monthly/2026-03.md", Level::Monthly).as_deref(),
            Some("memory/monthly/2026-03.md")
        );
        assert_eq!(
            take("memory/ROOT.md", Level::Root).as_deref(),
            Some("memory/ROOT.md")
        );
    }

    #[test]
    fn the_records_digest_follows_commits() {
        let rec = |size: u64, mtime_ns: i128| FileRecord {
            size,
            mtime_ns,
            hash: [0; 32],
        };
        let before = [
            ("memory/a.md".to_string(), rec(1, 10)),
            ("memory/b.md".to_string(), rec(2, 20)),
        ];
        let after = [
            ("memory/a.md".to_string(), rec(3, 30)),
            ("memory/c.md".to_string(), rec(4, 40)),
        ];
        let mut files = Files::new(&before);
        files.fold(&[
            ("memory/a.md".into(), Some(rec(5, 50))),
            ("memory/b.md".into(), None),
        ]);
        files.fold(&[
            ("memory/a.md".into(), Some(rec(3, 30))),
            ("memory/c.md".into(), Some(rec(4, 40))),
        ]);
        assert_eq!(files.digest(), Files::new(&after).digest());
        assert_ne!(files.digest(), Files::new(&before).digest());
    }
}
