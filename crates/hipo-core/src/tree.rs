//! The shape of the compaction tree and its lifecycle rules.
//!
//! Pure: given which days have logs (and today's date), says which nodes
//! exist, what each is built from, and what status each may have. No I/O,
//! so every rule is tested with plain dates.

use crate::layout::{Month, NodeId, Week, months_of_days};
use crate::markdown::Status;
use chrono::NaiveDate;
use std::collections::{BTreeMap, BTreeSet};

/// Every node of the tree with its children, in build order.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Tree {
    /// Days with a raw log or a daily node.
    pub days: BTreeSet<NaiveDate>,
    /// Week → its logged days.
    pub weeks: BTreeMap<Week, Vec<NaiveDate>>,
    /// Month → the weeks holding at least one logged day of that month.
    pub months: BTreeMap<Month, Vec<Week>>,
}

impl Tree {
    /// Builds the tree over the given logged days.
    pub fn new(days: BTreeSet<NaiveDate>) -> Tree {
        let mut weeks: BTreeMap<Week, Vec<NaiveDate>> = BTreeMap::new();
        for &d in &days {
            weeks.entry(Week::of(d)).or_default().push(d);
        }
        let mut months: BTreeMap<Month, Vec<Week>> = BTreeMap::new();
        for (&week, week_days) in &weeks {
            for month in months_of_days(week_days) {
                months.entry(month).or_default().push(week);
            }
        }
        Tree {
            days,
            weeks,
            months,
        }
    }

    /// Children of a node (for a daily: none; its source is the raw log).
    pub fn children(&self, id: NodeId) -> Vec<NodeId> {
        match id {
            NodeId::Daily(_) => Vec::new(),
            NodeId::Weekly(w) => self
                .weeks
                .get(&w)
                .map(|ds| ds.iter().map(|d| NodeId::Daily(*d)).collect())
                .unwrap_or_default(),
            NodeId::Monthly(m) => self
                .months
                .get(&m)
                .map(|ws| ws.iter().map(|w| NodeId::Weekly(*w)).collect())
                .unwrap_or_default(),
            NodeId::Root => self.months.keys().map(|m| NodeId::Monthly(*m)).collect(),
        }
    }

    /// The nodes of one level, in order.
    pub fn level(&self, level: crate::layout::Level) -> Vec<NodeId> {
        use crate::layout::Level;
        match level {
            Level::Daily => self.days.iter().map(|d| NodeId::Daily(*d)).collect(),
            Level::Weekly => self.weeks.keys().map(|w| NodeId::Weekly(*w)).collect(),
            Level::Monthly => self.months.keys().map(|m| NodeId::Monthly(*m)).collect(),
            Level::Root => vec![NodeId::Root],
        }
    }
}

/// The project-relative path of a raw log.
pub fn raw_path(date: NaiveDate) -> String {
    format!("memory/{date}.md")
}

/// The status a node should carry.
///
/// - a node still waiting for a summary is `needs-summarization`;
/// - a node may be `fixed` only when its period (plus grace) is over *and*
///   every source is final: a fixed child, or for a daily, its raw log once
///   the day has passed; one pending child keeps it tentative;
/// - ROOT is never fixed.
pub fn desired_status(
    id: NodeId,
    today: NaiveDate,
    needs_summary: bool,
    children: &[Status],
    pending: usize,
) -> Status {
    if needs_summary {
        return Status::NeedsSummarization;
    }
    let Some(after) = id.fixable_after() else {
        return Status::Tentative;
    };
    let children_final = pending == 0 && children.iter().all(|s| *s == Status::Fixed);
    if today > after && children_final {
        Status::Fixed
    } else {
        Status::Tentative
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::layout::Level;

    fn d(s: &str) -> NaiveDate {
        NaiveDate::parse_from_str(s, "%Y-%m-%d").unwrap()
    }

    #[test]
    fn week_across_month_feeds_both_months() {
        // 2026-W53 runs Mon 2026-12-28 .. Sun 2027-01-03.
        let tree = Tree::new([d("2026-12-30"), d("2027-01-02"), d("2027-01-05")].into());
        let w53 = Week {
            year: 2026,
            week: 53,
        };
        assert_eq!(tree.weeks[&w53], vec![d("2026-12-30"), d("2027-01-02")]);
        assert_eq!(
            tree.months[&Month {
                year: 2026,
                month: 12
            }],
            vec![w53]
        );
        assert_eq!(
            tree.months[&Month {
                year: 2027,
                month: 1
            }],
            vec![
                w53,
                Week {
                    year: 2027,
                    week: 1
                }
            ]
        );
        assert_eq!(tree.level(Level::Monthly).len(), 2);
        assert_eq!(tree.children(NodeId::Root).len(), 2);
    }

    #[test]
    fn week_with_days_in_one_month_only_feeds_that_month() {
        // W53 has days in both months, but only a December day is logged.
        let tree = Tree::new([d("2026-12-30")].into());
        assert_eq!(tree.months.len(), 1);
    }

    #[test]
    fn statuses() {
        let day = NodeId::Daily(d("2026-03-15"));
        assert_eq!(
            desired_status(day, d("2026-03-15"), false, &[], 0),
            Status::Tentative
        );
        assert_eq!(
            desired_status(day, d("2026-03-16"), false, &[], 0),
            Status::Fixed
        );
        assert_eq!(
            desired_status(day, d("2026-03-16"), true, &[], 0),
            Status::NeedsSummarization
        );
        let week = NodeId::Weekly(Week {
            year: 2026,
            week: 11,
        }); // ends 2026-03-15
        let fixed = [Status::Fixed, Status::Fixed];
        assert_eq!(
            desired_status(week, d("2026-03-22"), false, &fixed, 0),
            Status::Tentative
        );
        assert_eq!(
            desired_status(week, d("2026-03-23"), false, &fixed, 0),
            Status::Fixed
        );
        assert_eq!(
            desired_status(
                week,
                d("2026-03-23"),
                false,
                &[Status::Fixed, Status::Tentative],
                0
            ),
            Status::Tentative
        );
        assert_eq!(
            desired_status(week, d("2026-03-23"), false, &fixed, 1),
            Status::Tentative
        );
        assert_eq!(
            desired_status(NodeId::Root, d("2030-01-01"), false, &fixed, 0),
            Status::Tentative
        );
    }
}
