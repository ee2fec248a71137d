//! Where things live on disk and which period a file covers.
//!
//! Pure: no I/O. Every rule about names (`memory/YYYY-MM-DD.md`,
//! `memory/weekly/YYYY-Www.md`, ISO weeks, which months a week touches)
//! is here, so the rest of hipo talks in [`NodeId`]s and never formats a
//! path by hand.

use chrono::{Datelike, Duration, IsoWeek, NaiveDate, Weekday};
use std::fmt;

/// Project-relative directory of raw logs and compaction nodes.
pub const MEMORY_DIR: &str = "memory";
/// Project-relative path of the root node.
pub const ROOT_PATH: &str = "memory/ROOT.md";
/// The derived cache directory.
pub const HIPO_DIR: &str = ".hipo";
/// The hipocampus config file.
pub const CONFIG_FILE: &str = "hipocampus.config.json";
/// hipocampus's compaction trigger state.
pub const STATE_FILE: &str = "memory/.compaction-state.json";

/// A level of the compaction tree, lowest first.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    Daily,
    Weekly,
    Monthly,
    Root,
}

impl Level {
    /// The `type:` value in frontmatter.
    pub fn as_str(self) -> &'static str {
        match self {
            Level::Daily => "daily",
            Level::Weekly => "weekly",
            Level::Monthly => "monthly",
            Level::Root => "root",
        }
    }

    /// Parses a `type:` value, spelt exactly as [`Level::as_str`] writes it.
    pub fn parse(s: &str) -> Option<Level> {
        [Level::Daily, Level::Weekly, Level::Monthly, Level::Root]
            .into_iter()
            .find(|l| l.as_str() == s)
    }
}

/// Where a searchable file sits, as search filters and ranks it: the
/// tree's [`Level`]s plus the raw logs and the files beside the tree.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    serde::Serialize,
    serde::Deserialize,
    Default,
)]
#[serde(rename_all = "lowercase")]
pub enum DocLevel {
    #[default]
    Raw,
    Daily,
    Weekly,
    Monthly,
    Root,
    Knowledge,
    Plans,
    Other,
}

impl DocLevel {
    /// Every level, most specific first.
    pub const ALL: [DocLevel; 8] = [
        DocLevel::Raw,
        DocLevel::Daily,
        DocLevel::Weekly,
        DocLevel::Monthly,
        DocLevel::Root,
        DocLevel::Knowledge,
        DocLevel::Plans,
        DocLevel::Other,
    ];

    /// The name used in filters and output.
    pub fn as_str(self) -> &'static str {
        match self {
            DocLevel::Raw => "raw",
            DocLevel::Daily => "daily",
            DocLevel::Weekly => "weekly",
            DocLevel::Monthly => "monthly",
            DocLevel::Root => "root",
            DocLevel::Knowledge => "knowledge",
            DocLevel::Plans => "plans",
            DocLevel::Other => "other",
        }
    }

    /// Parses a filter value.
    pub fn parse(s: &str) -> Option<DocLevel> {
        DocLevel::ALL.into_iter().find(|l| l.as_str() == s)
    }

    /// Lower is more specific: where a duplicated passage is shown.
    pub(crate) fn rank(self) -> u64 {
        self as u64
    }

    /// The level of a scanned path.
    pub(crate) fn of(kind: PathKind) -> DocLevel {
        match kind {
            PathKind::Raw(_) => DocLevel::Raw,
            PathKind::Node(NodeId::Daily(_)) => DocLevel::Daily,
            PathKind::Node(NodeId::Weekly(_)) => DocLevel::Weekly,
            PathKind::Node(NodeId::Monthly(_)) => DocLevel::Monthly,
            PathKind::Node(NodeId::Root) => DocLevel::Root,
            PathKind::Knowledge => DocLevel::Knowledge,
            PathKind::Plans => DocLevel::Plans,
            PathKind::Other => DocLevel::Other,
        }
    }
}

/// Dates are indexed as days since 0001-01-01 (chrono's day 1).
pub(crate) fn day_number(d: NaiveDate) -> u64 {
    d.num_days_from_ce().max(0) as u64
}

/// The inverse of [`day_number`].
pub(crate) fn day_of(n: u64) -> Option<NaiveDate> {
    NaiveDate::from_num_days_from_ce_opt(i32::try_from(n).ok()?)
}

/// An ISO week, `YYYY-Www`, as chrono computes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Week {
    pub year: i32,
    pub week: u32,
}

impl Week {
    /// The ISO week a date falls in (2021-01-01 is 2020-W53).
    pub fn of(date: NaiveDate) -> Week {
        let iso: IsoWeek = date.iso_week();
        Week {
            year: iso.year(),
            week: iso.week(),
        }
    }

    /// Monday of the week.
    pub fn first_day(self) -> Option<NaiveDate> {
        NaiveDate::from_isoywd_opt(self.year, self.week, Weekday::Mon)
    }

    /// Sunday of the week.
    pub fn last_day(self) -> Option<NaiveDate> {
        NaiveDate::from_isoywd_opt(self.year, self.week, Weekday::Sun)
    }

    /// Parses `2026-W11`.
    pub fn parse(s: &str) -> Option<Week> {
        let (y, w) = s.split_once("-W")?;
        if y.len() != 4 || w.len() != 2 {
            return None;
        }
        let week = Week {
            year: y.parse().ok()?,
            week: w.parse().ok()?,
        };
        week.first_day().map(|_| week)
    }
}

impl fmt::Display for Week {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:04}-W{:02}", self.year, self.week)
    }
}

/// A calendar month.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Month {
    pub year: i32,
    pub month: u32,
}

impl Month {
    /// The month a date falls in.
    pub fn of(date: NaiveDate) -> Month {
        Month {
            year: date.year(),
            month: date.month(),
        }
    }

    /// First day of the month.
    pub fn first_day(self) -> Option<NaiveDate> {
        NaiveDate::from_ymd_opt(self.year, self.month, 1)
    }

    /// Last day of the month.
    pub fn last_day(self) -> Option<NaiveDate> {
        let (y, m) = if self.month == 12 {
            (self.year + 1, 1)
        } else {
            (self.year, self.month + 1)
        };
        NaiveDate::from_ymd_opt(y, m, 1).map(|d| d - Duration::days(1))
    }

    /// Parses `2026-03`.
    pub fn parse(s: &str) -> Option<Month> {
        let (y, m) = s.split_once('-')?;
        if y.len() != 4 || m.len() != 2 {
            return None;
        }
        let month = Month {
            year: y.parse().ok()?,
            month: m.parse().ok()?,
        };
        month.first_day().map(|_| month)
    }
}

impl fmt::Display for Month {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:04}-{:02}", self.year, self.month)
    }
}

/// One node of the compaction tree.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum NodeId {
    Daily(NaiveDate),
    Weekly(Week),
    Monthly(Month),
    Root,
}

impl NodeId {
    /// The node's level.
    pub fn level(self) -> Level {
        match self {
            NodeId::Daily(_) => Level::Daily,
            NodeId::Weekly(_) => Level::Weekly,
            NodeId::Monthly(_) => Level::Monthly,
            NodeId::Root => Level::Root,
        }
    }

    /// Project-relative path, `/`-separated.
    pub fn path(self) -> String {
        match self {
            NodeId::Daily(d) => format!("memory/daily/{d}.md"),
            NodeId::Weekly(w) => format!("memory/weekly/{w}.md"),
            NodeId::Monthly(m) => format!("memory/monthly/{m}.md"),
            NodeId::Root => ROOT_PATH.to_string(),
        }
    }

    /// The `period:` value in frontmatter.
    pub fn period(self) -> String {
        match self {
            NodeId::Daily(d) => d.to_string(),
            NodeId::Weekly(w) => w.to_string(),
            NodeId::Monthly(m) => m.to_string(),
            NodeId::Root => "all".to_string(),
        }
    }

    /// The node a `period:` value names (the inverse of
    /// [`NodeId::period`]): `YYYY-MM-DD`, `YYYY-Www`, `YYYY-MM` or `all`.
    pub fn of_period(s: &str) -> Option<NodeId> {
        if s == "all" {
            Some(NodeId::Root)
        } else if looks_like_date(s) {
            parse_date(s).ok().map(NodeId::Daily)
        } else if s.contains("-W") {
            Week::parse(s).map(NodeId::Weekly)
        } else {
            Month::parse(s).map(NodeId::Monthly)
        }
    }

    /// First and last day the node covers (`None` for ROOT).
    pub fn date_range(self) -> Option<(NaiveDate, NaiveDate)> {
        match self {
            NodeId::Daily(d) => Some((d, d)),
            NodeId::Weekly(w) => Some((w.first_day()?, w.last_day()?)),
            NodeId::Monthly(m) => Some((m.first_day()?, m.last_day()?)),
            NodeId::Root => None,
        }
    }

    /// The day after which the node may become fixed: its period has ended
    /// (daily), plus the 7-day grace period for weekly and monthly.
    /// A node is fixable when `today > fixable_after()`.
    pub fn fixable_after(self) -> Option<NaiveDate> {
        match self {
            NodeId::Daily(d) => Some(d),
            NodeId::Weekly(_) | NodeId::Monthly(_) => {
                Some(self.date_range()?.1 + Duration::days(7))
            }
            NodeId::Root => None,
        }
    }
}

/// What a project-relative path is, by name alone.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum PathKind {
    /// `memory/YYYY-MM-DD.md`
    Raw(NaiveDate),
    /// A compaction node.
    Node(NodeId),
    /// `knowledge/**.md`
    Knowledge,
    /// `plans/**.md`
    Plans,
    /// Any other Markdown file hipo was asked to index.
    Other,
}

/// Why a path that looks like a dated file is not one (`2026-02-30.md`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BadName(pub String);

/// Classifies a project-relative path. A name shaped like a date that is not
/// a real date is an error, not silently "other".
pub fn classify(rel: &str) -> Result<PathKind, BadName> {
    let Some(stem) = rel.strip_suffix(".md") else {
        return Ok(PathKind::Other);
    };
    if rel == ROOT_PATH {
        return Ok(PathKind::Node(NodeId::Root));
    }
    if rel.starts_with("knowledge/") {
        return Ok(PathKind::Knowledge);
    }
    if rel.starts_with("plans/") {
        return Ok(PathKind::Plans);
    }
    // `memory/NAME` or `memory/LEVEL/NAME`, NAME without a slash (split
    // without collecting: this runs for every file of every scan).
    let Some(rest) = stem.strip_prefix("memory/") else {
        return Ok(PathKind::Other);
    };
    let (level, name) = match rest.split_once('/') {
        Some((level, name)) => (Some(level), name),
        None => (None, rest),
    };
    if name.contains('/') {
        return Ok(PathKind::Other);
    }
    match (level, name) {
        (None, name) if looks_like_date(name) => parse_date(name).map(PathKind::Raw),
        (Some("daily"), name) if looks_like_date(name) => {
            parse_date(name).map(|d| PathKind::Node(NodeId::Daily(d)))
        }
        (Some("weekly"), name) if name.len() == 8 && name.as_bytes()[4..6] == *b"-W" => {
            Week::parse(name)
                .map(|w| PathKind::Node(NodeId::Weekly(w)))
                .ok_or_else(|| {
                    BadName(format!(
                        "`{name}` is not a valid ISO week (expected YYYY-Www)"
                    ))
                })
        }
        (Some("monthly"), name) if name.len() == 7 && name.as_bytes()[4] == b'-' => {
            Month::parse(name)
                .map(|m| PathKind::Node(NodeId::Monthly(m)))
                .ok_or_else(|| BadName(format!("`{name}` is not a valid month (expected YYYY-MM)")))
        }
        _ => Ok(PathKind::Other),
    }
}

fn looks_like_date(name: &str) -> bool {
    let b = name.as_bytes();
    b.len() == 10
        && b[4] == b'-'
        && b[7] == b'-'
        && b.iter()
            .enumerate()
            .all(|(i, c)| i == 4 || i == 7 || c.is_ascii_digit())
}

/// `name` passed [`looks_like_date`] (`DDDD-DD-DD`), so it is read digit
/// by digit: chrono's format parser cost more than the stat of the file
/// on every scan of ten years of logs. Same answer as
/// `NaiveDate::parse_from_str(name, "%Y-%m-%d")` for such names.
fn parse_date(name: &str) -> Result<NaiveDate, BadName> {
    let num = |r: std::ops::Range<usize>| {
        name.as_bytes()
            .get(r)
            .unwrap_or_default()
            .iter()
            .fold(0u32, |n, b| n * 10 + u32::from(b.wrapping_sub(b'0')))
    };
    let year = i32::try_from(num(0..4)).unwrap_or(i32::MAX);
    NaiveDate::from_ymd_opt(year, num(5..7), num(8..10)).ok_or_else(|| {
        BadName(format!(
            "`{name}` is named like a date but is not a real date; rename it"
        ))
    })
}

/// The months in which a week has at least one of the given logged days.
/// A week spanning two months feeds both monthly nodes.
pub fn months_of_days(days: &[NaiveDate]) -> Vec<Month> {
    let mut months: Vec<Month> = days.iter().map(|d| Month::of(*d)).collect();
    months.sort();
    months.dedup();
    months
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_in_names_parse_as_chrono_parses_them() {
        for name in [
            "2026-03-15",
            "2024-02-29",
            "2023-02-29",
            "2026-13-01",
            "2026-00-10",
            "2026-04-31",
            "2026-04-00",
            "0000-01-01",
            "9999-12-31",
        ] {
            assert!(looks_like_date(name));
            assert_eq!(
                parse_date(name).ok(),
                NaiveDate::parse_from_str(name, "%Y-%m-%d").ok(),
                "{name}"
            );
        }
    }

    fn d(s: &str) -> NaiveDate {
        NaiveDate::parse_from_str(s, "%Y-%m-%d").unwrap()
    }

    #[test]
    fn iso_weeks_across_years() {
        assert_eq!(Week::of(d("2021-01-01")).to_string(), "2020-W53");
        assert_eq!(Week::of(d("2027-01-01")).to_string(), "2026-W53");
        assert_eq!(Week::of(d("2026-03-15")).to_string(), "2026-W11");
        assert_eq!(
            Week::parse("2026-W53").unwrap().last_day(),
            Some(d("2027-01-03"))
        );
        assert_eq!(Week::parse("2025-W53"), None);
    }

    #[test]
    fn classify_paths() {
        assert_eq!(
            classify("memory/2026-03-15.md"),
            Ok(PathKind::Raw(d("2026-03-15")))
        );
        assert_eq!(
            classify("memory/daily/2026-03-15.md"),
            Ok(PathKind::Node(NodeId::Daily(d("2026-03-15"))))
        );
        assert_eq!(
            classify("memory/weekly/2026-W11.md"),
            Ok(PathKind::Node(NodeId::Weekly(Week {
                year: 2026,
                week: 11
            })))
        );
        assert_eq!(classify("memory/ROOT.md"), Ok(PathKind::Node(NodeId::Root)));
        assert_eq!(classify("memory/notes.md"), Ok(PathKind::Other));
        for other in [
            "memory//2026-03-15.md",
            "memory/daily/x/2026-03-15.md",
            "memory/other/2026-03-15.md",
            "memory.md",
        ] {
            assert_eq!(classify(other), Ok(PathKind::Other), "{other}");
        }
        assert_eq!(classify("knowledge/a/b.md"), Ok(PathKind::Knowledge));
        assert!(classify("memory/2026-02-30.md").is_err());
        assert!(classify("memory/weekly/2026-W60.md").is_err());
    }

    #[test]
    fn node_paths_round_trip() {
        for id in [
            NodeId::Daily(d("2026-12-31")),
            NodeId::Weekly(Week {
                year: 2026,
                week: 53,
            }),
            NodeId::Monthly(Month {
                year: 2027,
                month: 1,
            }),
            NodeId::Root,
        ] {
            assert_eq!(classify(&id.path()), Ok(PathKind::Node(id)));
        }
    }

    #[test]
    fn fixable_dates() {
        assert_eq!(
            NodeId::Daily(d("2026-03-15")).fixable_after(),
            Some(d("2026-03-15"))
        );
        // W11 of 2026 ends Sunday 2026-03-15.
        assert_eq!(
            NodeId::Weekly(Week {
                year: 2026,
                week: 11
            })
            .fixable_after(),
            Some(d("2026-03-22"))
        );
        assert_eq!(
            NodeId::Monthly(Month {
                year: 2026,
                month: 2
            })
            .fixable_after(),
            Some(d("2026-03-07"))
        );
    }

    #[test]
    fn week_spanning_two_months_feeds_both() {
        let days = [d("2026-03-30"), d("2026-04-01")];
        assert_eq!(
            months_of_days(&days),
            vec![
                Month {
                    year: 2026,
                    month: 3
                },
                Month {
                    year: 2026,
                    month: 4
                }
            ]
        );
    }

    #[test]
    fn day_numbers_round_trip() {
        let d = NaiveDate::from_ymd_opt(2026, 3, 15).unwrap();
        assert_eq!(day_of(day_number(d)), Some(d));
    }

    #[test]
    fn levels_parse_and_rank() {
        for l in DocLevel::ALL {
            assert_eq!(DocLevel::parse(l.as_str()), Some(l));
        }
        assert!(DocLevel::Raw.rank() < DocLevel::Daily.rank());
        assert_eq!(DocLevel::parse("hourly"), None);
        assert_eq!((Level::parse("Daily"), Level::parse("raw")), (None, None));
    }

    #[test]
    fn a_period_names_its_node() {
        let day = NaiveDate::from_ymd_opt(2021, 1, 1).unwrap();
        let (week, month) = (
            NodeId::Weekly(Week::of(day)),
            NodeId::Monthly(Month::of(day)),
        );
        for id in [NodeId::Daily(day), week, month, NodeId::Root] {
            assert_eq!(NodeId::of_period(&id.period()), Some(id));
            assert_eq!(Level::parse(id.level().as_str()), Some(id.level()));
        }
        for bad in [
            "2021-02-30",
            "2021-W54",
            "2021-13",
            "2021",
            "All",
            "",
            "2021-1",
        ] {
            assert_eq!(NodeId::of_period(bad), None, "{bad}");
        }
    }
}
