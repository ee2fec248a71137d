//! A node's YAML frontmatter: split off, parsed and rendered.
//!
//! `type:`, `status:` and `period:` are typed once parsed ([`Level`],
//! [`Status`], the [`NodeId`] a period names), each kept as a [`Spelled`]:
//! the text as written beside what hipo reads it as. A value hipo does not
//! know (another tool's `type: note`, a malformed `period: 2026-13`) is
//! kept verbatim and written back byte for byte; an unknown `status:` is
//! the one the engine refuses, at its line, as it always has.

use crate::layout::{Level, NodeId};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::borrow::Cow;
use std::collections::BTreeMap;

/// A node's lifecycle state, as written in its frontmatter.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Status {
    Tentative,
    Fixed,
    NeedsSummarization,
}

impl Status {
    /// The frontmatter spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Tentative => "tentative",
            Status::Fixed => "fixed",
            Status::NeedsSummarization => "needs-summarization",
        }
    }

    /// Parses the frontmatter spelling.
    pub fn parse(s: &str) -> Option<Status> {
        match s.trim() {
            "tentative" => Some(Status::Tentative),
            "fixed" => Some(Status::Fixed),
            "needs-summarization" => Some(Status::NeedsSummarization),
            _ => None,
        }
    }
}

/// A value with a frontmatter spelling: how it is read and written.
pub trait Spelling: Sized + Copy {
    /// What `text` means, if hipo knows it.
    fn parse(text: &str) -> Option<Self>;
    /// How hipo writes the value.
    fn spelling(self) -> String;
}

impl Spelling for Status {
    fn parse(text: &str) -> Option<Status> {
        Status::parse(text)
    }
    fn spelling(self) -> String {
        self.as_str().to_string()
    }
}

/// `type:`: the tree's level (hipocampus writes these four).
impl Spelling for Level {
    fn parse(text: &str) -> Option<Level> {
        Level::parse(text)
    }
    fn spelling(self) -> String {
        self.as_str().to_string()
    }
}

/// `period:`: a day, an ISO week, a month, or ROOT's `all`; the node
/// whose period it is.
impl Spelling for NodeId {
    fn parse(text: &str) -> Option<NodeId> {
        NodeId::of_period(text)
    }
    fn spelling(self) -> String {
        self.period()
    }
}

/// A frontmatter value as written, and what hipo reads it as (`None`: a
/// spelling hipo does not know). Written back as it was read, so a round
/// trip never rewrites what someone else wrote.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Spelled<T> {
    known: Option<T>,
    text: String,
}

impl<T: Spelling> Spelled<T> {
    /// Reads a value as written.
    pub fn read(text: impl Into<String>) -> Spelled<T> {
        let text = text.into();
        Spelled {
            known: T::parse(&text),
            text,
        }
    }

    /// The value, if hipo knows its spelling.
    pub fn known(&self) -> Option<T> {
        self.known
    }

    /// The text as written.
    pub fn as_str(&self) -> &str {
        &self.text
    }
}

impl<T: Spelling> From<T> for Spelled<T> {
    fn from(value: T) -> Spelled<T> {
        Spelled {
            known: Some(value),
            text: value.spelling(),
        }
    }
}

impl<T> Serialize for Spelled<T> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.text)
    }
}

/// Read as a string first, so what YAML accepts (and the error it gives
/// for what it does not) is what it was when these were strings.
impl<'de, T: Spelling> Deserialize<'de> for Spelled<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Spelled<T>, D::Error> {
        String::deserialize(d).map(Spelled::read)
    }
}

/// The frontmatter fields hipo reads and writes. Unknown keys are kept in
/// `extra` so a round trip never drops what someone else put there.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub struct Frontmatter {
    /// `type:`, the node's level.
    #[serde(rename = "type", default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<Spelled<Level>>,
    /// Always known once [`parse_document`] accepted the file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<Spelled<Status>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub period: Option<Spelled<NodeId>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_updated: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub source_files: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub pending: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source_lines: Option<usize>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt_version: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub topics: Vec<String>,
    /// Hash of the inputs a node was built from, so that with `.hipo/`
    /// gone hipo can still tell whether its sources changed since.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source_hash: Option<String>,
    /// Hash of the body as hipo wrote it: a body that no longer matches was
    /// written by someone else, store or no store.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub body_hash: Option<String>,
    #[serde(flatten)]
    pub extra: BTreeMap<String, serde_yaml_ng::Value>,
}

impl Frontmatter {
    /// The status, when there is one hipo knows.
    pub fn status(&self) -> Option<Status> {
        self.status.as_ref().and_then(Spelled::known)
    }

    /// The level `type:` names, when it is one of the tree's.
    #[cfg(test)]
    pub fn level(&self) -> Option<Level> {
        self.kind.as_ref().and_then(Spelled::known)
    }

    /// The node `period:` names, when it is a well-formed period.
    #[cfg(test)]
    pub fn period(&self) -> Option<NodeId> {
        self.period.as_ref().and_then(Spelled::known)
    }

    /// Renders `---\n…---\n`, deterministic for equal values.
    pub fn render(&self) -> String {
        let yaml = serde_yaml_ng::to_string(self).unwrap_or_default();
        format!("---\n{yaml}---\n")
    }
}

/// Why a frontmatter block could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FrontmatterError {
    /// 1-based line in the file.
    pub line: usize,
    pub message: String,
}

/// A file split into its frontmatter and body.
#[derive(Debug, Clone, PartialEq)]
pub struct Document<'a> {
    pub frontmatter: Option<Frontmatter>,
    /// Text after the closing `---` (or the whole text without frontmatter).
    pub body: &'a str,
    /// 1-based line number of the first body line.
    pub body_line: usize,
}

/// Splits off a leading `---` YAML block. Returns the raw YAML, the body and
/// the 1-based line where the body starts.
pub fn split_frontmatter(text: &str) -> Result<(Option<&str>, &str, usize), FrontmatterError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let Some(rest) = text
        .strip_prefix("---\n")
        .or_else(|| text.strip_prefix("---\r\n"))
    else {
        return Ok((None, text, 1));
    };
    let mut offset = 0;
    for (i, line) in rest.split_inclusive('\n').enumerate() {
        if line.trim_end() == "---" {
            let yaml = &rest[..offset];
            let body = &rest[offset + line.len()..];
            return Ok((Some(yaml), body, i + 3));
        }
        offset += line.len();
    }
    Err(FrontmatterError {
        line: 1,
        message: "frontmatter opened with `---` is never closed; add a `---` line after it".into(),
    })
}

/// Parses a whole file: frontmatter (if any) and body. A `status:` hipo
/// does not know is refused, at its line: what a node's status is decides
/// what compaction does with it.
pub fn parse_document(text: &str) -> Result<Document<'_>, FrontmatterError> {
    let (yaml, body, body_line) = split_frontmatter(text)?;
    let frontmatter = match yaml {
        None => None,
        Some(y) if y.trim().is_empty() => Some(Frontmatter::default()),
        Some(y) => Some(
            serde_yaml_ng::from_str::<Frontmatter>(&hipocampus_topics(y)).map_err(|e| {
                FrontmatterError {
                    line: e.location().map(|l| l.line() + 1).unwrap_or(1),
                    message: format!("malformed YAML frontmatter: {e}"),
                }
            })?,
        ),
    };
    if let Some(bad) = frontmatter
        .as_ref()
        .and_then(|fm| fm.status.as_ref())
        .filter(|s| s.known().is_none())
    {
        let line = yaml
            .and_then(|y| {
                y.lines()
                    .position(|l| l.trim_start().starts_with("status:"))
            })
            .map(|i| i + 2)
            .unwrap_or(1);
        return Err(FrontmatterError {
            line,
            message: format!(
                "unknown status `{}`; use tentative, fixed or needs-summarization",
                bad.as_str()
            ),
        });
    }
    Ok(Document {
        frontmatter,
        body,
        body_line,
    })
}

/// hipocampus writes `topics: [a [project], b [feedback]]`, which is not
/// valid YAML (a flow item cannot contain `[`). Rewrites that one line as a
/// quoted list so existing hipocampus trees parse unchanged.
fn hipocampus_topics(yaml: &str) -> Cow<'_, str> {
    let needs = yaml.lines().any(|l| {
        l.strip_prefix("topics:")
            .map(|v| v.trim().starts_with('[') && v.trim()[1..].contains('['))
            .unwrap_or(false)
    });
    if !needs {
        return Cow::Borrowed(yaml);
    }
    let mut out = String::with_capacity(yaml.len() + 32);
    for line in yaml.split_inclusive('\n') {
        let inner = line
            .strip_prefix("topics:")
            .map(str::trim)
            .and_then(|v| v.strip_prefix('['))
            .and_then(|v| v.strip_suffix(']'));
        match inner {
            Some(inner) => {
                let items: Vec<String> = split_top_level(inner)
                    .into_iter()
                    .map(|i| {
                        let i = i.trim();
                        let i = i
                            .strip_prefix('"')
                            .and_then(|x| x.strip_suffix('"'))
                            .or_else(|| i.strip_prefix('\'').and_then(|x| x.strip_suffix('\'')))
                            .unwrap_or(i);
                        serde_json::to_string(i).unwrap_or_default()
                    })
                    .collect();
                out.push_str(&format!("topics: [{}]\n", items.join(", ")));
            }
            None => out.push_str(line),
        }
    }
    Cow::Owned(out)
}

/// Splits on commas outside brackets.
fn split_top_level(s: &str) -> Vec<&str> {
    let (mut depth, mut start, mut out) = (0i32, 0, Vec::new());
    for (i, c) in s.char_indices() {
        match c {
            '[' => depth += 1,
            ']' => depth -= 1,
            ',' if depth == 0 => {
                out.push(&s[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    if !s[start..].trim().is_empty() {
        out.push(&s[start..]);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::layout::{Month, Week};
    use chrono::NaiveDate;

    #[test]
    fn frontmatter_round_trip() {
        let text = "---\ntype: daily\nstatus: tentative\nperiod: 2026-03-15\nsource-files:\n- memory/2026-03-15.md\ntopics: [alpha [project], beta]\nowner: me\n---\n# body\n";
        let doc = parse_document(text).unwrap();
        let fm = doc.frontmatter.unwrap();
        assert_eq!(fm.level(), Some(Level::Daily));
        assert_eq!(fm.status(), Some(Status::Tentative));
        let day = NaiveDate::from_ymd_opt(2026, 3, 15).unwrap();
        assert_eq!(fm.period(), Some(NodeId::Daily(day)));
        assert_eq!(fm.source_files, vec!["memory/2026-03-15.md"]);
        assert_eq!(doc.body, "# body\n");
        assert_eq!(doc.body_line, 10);
        assert!(fm.extra.contains_key("owner"));
        let again = parse_document(&fm.render()).unwrap().frontmatter.unwrap();
        assert_eq!(again, fm);
    }

    #[test]
    fn every_spelling_hipocampus_writes_is_known_and_written_back_as_it_was() {
        let week = Week {
            year: 2026,
            week: 11,
        };
        let month = Month {
            year: 2026,
            month: 3,
        };
        let day = NaiveDate::from_ymd_opt(2026, 3, 15).unwrap();
        let cases = [
            (
                "type: daily\nstatus: tentative\nperiod: 2026-03-15\n",
                Some(Level::Daily),
                Some(Status::Tentative),
                Some(NodeId::Daily(day)),
            ),
            (
                "type: weekly\nstatus: fixed\nperiod: 2026-W11\n",
                Some(Level::Weekly),
                Some(Status::Fixed),
                Some(NodeId::Weekly(week)),
            ),
            (
                "type: monthly\nstatus: needs-summarization\nperiod: 2026-03\n",
                Some(Level::Monthly),
                Some(Status::NeedsSummarization),
                Some(NodeId::Monthly(month)),
            ),
            (
                "type: root\nstatus: tentative\nperiod: all\n",
                Some(Level::Root),
                Some(Status::Tentative),
                Some(NodeId::Root),
            ),
        ];
        for (yaml, level, status, period) in cases {
            let text = format!("---\n{yaml}---\n");
            let fm = parse_document(&text).unwrap().frontmatter.unwrap();
            assert_eq!(
                (fm.level(), fm.status(), fm.period()),
                (level, status, period)
            );
            assert_eq!(fm.render(), text);
            // What hipo writes from typed values is the same text.
            let typed = Frontmatter {
                kind: level.map(Spelled::from),
                status: status.map(Spelled::from),
                period: period.map(Spelled::from),
                ..Default::default()
            };
            assert_eq!(typed.render(), text);
        }
    }

    #[test]
    fn unknown_or_malformed_values_survive_a_round_trip_byte_for_byte() {
        for (yaml, field) in [
            ("type: note\n", "type"),
            ("type: Daily\n", "type"),
            ("period: 2026-13\n", "period"),
            ("period: 2026-W54\n", "period"),
            ("period: 2026-02-30\n", "period"),
            ("period: last week\n", "period"),
            ("period: '2026'\n", "period"),
            ("type: '5'\n", "type"),
        ] {
            let text = format!("---\n{yaml}---\n");
            let fm = parse_document(&text).unwrap().frontmatter.unwrap();
            assert_eq!((fm.level(), fm.period()), (None, None), "{field}: {yaml}");
            assert_eq!(fm.render(), text, "{yaml}");
        }
        // A known status written oddly is read, and kept as written.
        let text = "---\nstatus: ' fixed'\n---\n";
        let fm = parse_document(text).unwrap().frontmatter.unwrap();
        assert_eq!(fm.status(), Some(Status::Fixed));
        assert_eq!(fm.render(), text);
    }

    #[test]
    fn hipocampus_flow_topics_parse() {
        let doc = parse_document(
            "---\ntopics: [hipocampus [project], terse-responses [feedback]]\n---\n",
        )
        .unwrap();
        assert_eq!(
            doc.frontmatter.unwrap().topics,
            vec!["hipocampus [project]", "terse-responses [feedback]"]
        );
    }

    #[test]
    fn malformed_frontmatter_names_line() {
        let err = parse_document("---\ntype: daily\nstatus: [oops\n---\nbody").unwrap_err();
        assert!(err.line >= 2, "{err:?}");
        let err = parse_document("---\ntype: daily\nstatus: done\n---\n").unwrap_err();
        assert_eq!(err.line, 3);
        assert_eq!(
            err.message,
            "unknown status `done`; use tentative, fixed or needs-summarization"
        );
        let err = parse_document("---\ntype: daily\n").unwrap_err();
        assert!(err.message.contains("never closed"));
        let err = parse_document("---\ntype: [daily]\n---\n").unwrap_err();
        assert!(
            err.message
                .starts_with("malformed YAML frontmatter: type: invalid type: sequence"),
            "{err:?}"
        );
    }

    #[test]
    fn no_frontmatter() {
        let doc = parse_document("# 2026-03-15\n\n## A [user]\n").unwrap();
        assert!(doc.frontmatter.is_none());
        assert_eq!(doc.body_line, 1);
    }
}
