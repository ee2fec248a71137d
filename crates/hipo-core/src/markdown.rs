//! Markdown as hipocampus writes it: YAML frontmatter, `## Heading [type]`
//! entries, and the topic keywords derived from them.
//!
//! Pure: parses strings, never touches the disk. Status is read from the
//! parsed frontmatter, never found by searching the text for a substring.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

mod fence;
pub use fence::{HeadingScan, headings, without_ending};

/// The type tag of an entry heading; untagged entries are `project`.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, Default,
)]
#[serde(rename_all = "lowercase")]
pub enum EntryType {
    User,
    Feedback,
    #[default]
    Project,
    Reference,
}

impl EntryType {
    /// The tag as written in headings.
    pub fn as_str(self) -> &'static str {
        match self {
            EntryType::User => "user",
            EntryType::Feedback => "feedback",
            EntryType::Project => "project",
            EntryType::Reference => "reference",
        }
    }

    /// Parses a tag; `None` for anything else.
    pub fn parse(s: &str) -> Option<EntryType> {
        match s.trim().to_ascii_lowercase().as_str() {
            "user" => Some(EntryType::User),
            "feedback" => Some(EntryType::Feedback),
            "project" => Some(EntryType::Project),
            "reference" => Some(EntryType::Reference),
            _ => None,
        }
    }
}

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

/// The frontmatter fields hipo reads and writes. Unknown keys are kept in
/// `extra` so a round trip never drops what someone else put there.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub struct Frontmatter {
    #[serde(rename = "type", default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub period: Option<String>,
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
    /// The parsed status; `Err` carries the unknown value.
    pub fn parsed_status(&self) -> Result<Option<Status>, String> {
        match &self.status {
            None => Ok(None),
            Some(s) => Status::parse(s).map(Some).ok_or_else(|| s.clone()),
        }
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

/// Parses a whole file: frontmatter (if any) and body.
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
    if let Some(fm) = &frontmatter
        && let Err(bad) = fm.parsed_status()
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
            message: format!("unknown status `{bad}`; use tentative, fixed or needs-summarization"),
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
fn hipocampus_topics(yaml: &str) -> std::borrow::Cow<'_, str> {
    let needs = yaml.lines().any(|l| {
        l.strip_prefix("topics:")
            .map(|v| v.trim().starts_with('[') && v.trim()[1..].contains('['))
            .unwrap_or(false)
    });
    if !needs {
        return std::borrow::Cow::Borrowed(yaml);
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
    std::borrow::Cow::Owned(out)
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

/// A `##` entry heading.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// 1-based line of the heading within the text given.
    pub line: usize,
    /// Heading text without `## ` and without the `[type]` tag.
    pub title: String,
    pub kind: EntryType,
}

/// A `## ` section of a text: its heading and what follows up to the next
/// `## ` heading outside a fenced code block, or the end. The one section
/// parser: ROOT's hand-written sections, MEMORY.md's `## Compaction Root`
/// and a model's ROOT answer all go through it, so a `## ` line inside a
/// code block never splits a section.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Section<'a> {
    /// The heading's text after `## `, without the line ending.
    pub title: &'a str,
    /// Byte offset of the heading line in the text.
    pub start: usize,
    /// Byte offset where the section ends (the next heading, or the end).
    pub end: usize,
    /// The lines after the heading, up to `end`.
    pub body: &'a str,
}

/// The `## ` sections of `text`, in order; text before the first one is
/// not a section.
pub fn sections(text: &str) -> Vec<Section<'_>> {
    let mut heads: Vec<(usize, usize, &str)> = Vec::new(); // (start, body start, title)
    let mut scan = HeadingScan::default();
    let mut at = 0;
    for line in text.split_inclusive('\n') {
        let bare = line.trim_end_matches(['\n', '\r']);
        if !scan.is_code(bare)
            && let Some(title) = bare.strip_prefix("## ")
        {
            heads.push((at, at + line.len(), title));
        }
        at += line.len();
    }
    let ends = heads.iter().skip(1).map(|h| h.0).chain([text.len()]);
    heads
        .iter()
        .zip(ends)
        .map(|(&(start, body, title), end)| Section {
            title,
            start,
            end,
            body: &text[body..end],
        })
        .collect()
}

/// The `## ` headings of a body, outside fenced code blocks.
pub fn entries(body: &str) -> Vec<Entry> {
    headings(body)
        .into_iter()
        .filter(|(_, depth, _)| *depth == 2)
        .map(|(i, _, h)| {
            let (title, kind) = split_type_tag(h);
            Entry {
                line: i + 1,
                title: title.to_string(),
                kind,
            }
        })
        .collect()
}

/// Splits `Title [type]` into the title and its type (project if untagged).
pub fn split_type_tag(heading: &str) -> (&str, EntryType) {
    if let Some(open) = heading.rfind('[')
        && heading.ends_with(']')
        && let Some(kind) = EntryType::parse(&heading[open + 1..heading.len() - 1])
    {
        return (heading[..open].trim_end(), kind);
    }
    (heading, EntryType::Project)
}

/// A topic keyword and its type, written `keyword [type]` in frontmatter.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct Topic {
    pub keyword: String,
    pub kind: EntryType,
}

impl Topic {
    /// The frontmatter form, `keyword [type]`.
    pub fn render(&self) -> String {
        format!("{} [{}]", self.keyword, self.kind.as_str())
    }

    /// Parses `keyword [type]` or a bare keyword (project). A secret in it
    /// is redacted: topics go into frontmatter, ROOT and the store.
    pub fn parse(s: &str) -> Option<Topic> {
        let (title, kind) = split_type_tag(s.trim());
        let keyword = keyword(&crate::redact::redact(title));
        (!keyword.is_empty()).then_some(Topic { keyword, kind })
    }
}

/// A heading's keyword: lowercase, words joined by `-`, any script kept.
pub fn keyword(title: &str) -> String {
    let mut out = String::with_capacity(title.len());
    let title: String = title.chars().filter(|c| !matches!(c, '\'' | '’')).collect();
    for word in title.split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '.')) {
        let word = word.trim_matches('.');
        if word.is_empty() {
            continue;
        }
        if !out.is_empty() {
            out.push('-');
        }
        out.extend(word.chars().flat_map(char::to_lowercase));
    }
    out
}

/// Topics of a body's entries, first occurrence first, without repeats.
pub fn topics_of(body: &str) -> Vec<Topic> {
    let mut seen = std::collections::HashSet::new();
    entries(body)
        .into_iter()
        .filter_map(|e| Topic::parse(&format!("{} [{}]", e.title, e.kind.as_str())))
        .filter(|t| seen.insert(t.clone()))
        .collect()
}

/// A conservative token count, for every budget hipo keeps (ROOT's cap, a
/// model's context): about 4 ASCII bytes a token, and a token for every
/// other character (a Hangul syllable or a kanji is one or more tokens for
/// most models, though it is 3 bytes).
pub fn estimate_tokens(text: &str) -> usize {
    let (mut ascii, mut other) = (0usize, 0usize);
    for b in text.bytes() {
        if b.is_ascii() {
            ascii += 1;
        } else if b & 0xC0 != 0x80 {
            other += 1;
        }
    }
    ascii.div_ceil(4) + other
}

/// Number of lines as an editor counts them.
pub fn line_count(text: &str) -> usize {
    text.lines().count()
}

/// Removes a leading `# title` line (and the blank lines after it), used when
/// concatenating children under their own period headings.
pub fn strip_title(body: &str) -> &str {
    let trimmed = body.trim_start_matches(['\n', '\r']);
    if trimmed.starts_with("# ") {
        match trimmed.find('\n') {
            Some(nl) => trimmed[nl + 1..].trim_start_matches(['\n', '\r']),
            None => "",
        }
    } else {
        trimmed
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frontmatter_round_trip() {
        let text = "---\ntype: daily\nstatus: tentative\nperiod: 2026-03-15\nsource-files:\n- memory/2026-03-15.md\ntopics: [alpha [project], beta]\nowner: me\n---\n# body\n";
        let doc = parse_document(text).unwrap();
        let fm = doc.frontmatter.unwrap();
        assert_eq!(fm.kind.as_deref(), Some("daily"));
        assert_eq!(fm.parsed_status(), Ok(Some(Status::Tentative)));
        assert_eq!(fm.period.as_deref(), Some("2026-03-15"));
        assert_eq!(fm.source_files, vec!["memory/2026-03-15.md"]);
        assert_eq!(doc.body, "# body\n");
        assert_eq!(doc.body_line, 10);
        assert!(fm.extra.contains_key("owner"));
        let again = parse_document(&fm.render()).unwrap().frontmatter.unwrap();
        assert_eq!(again, fm);
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
    fn flow_topics_with_tags_parse() {
        // hipocampus writes `topics: [a [project], b [feedback]]`, which YAML
        // reads as nested lists; quoted items are the safe form we write.
        let doc =
            parse_document("---\ntopics: [\"a [project]\", \"b [feedback]\"]\n---\n").unwrap();
        let topics: Vec<_> = doc
            .frontmatter
            .unwrap()
            .topics
            .iter()
            .filter_map(|t| Topic::parse(t))
            .collect();
        assert_eq!(
            topics[1],
            Topic {
                keyword: "b".into(),
                kind: EntryType::Feedback
            }
        );
    }

    #[test]
    fn malformed_frontmatter_names_line() {
        let err = parse_document("---\ntype: daily\nstatus: [oops\n---\nbody").unwrap_err();
        assert!(err.line >= 2, "{err:?}");
        let err = parse_document("---\ntype: daily\nstatus: done\n---\n").unwrap_err();
        assert_eq!(err.line, 3);
        assert!(err.message.contains("unknown status"));
        let err = parse_document("---\ntype: daily\n").unwrap_err();
        assert!(err.message.contains("never closed"));
    }

    #[test]
    fn no_frontmatter() {
        let doc = parse_document("# 2026-03-15\n\n## A [user]\n").unwrap();
        assert!(doc.frontmatter.is_none());
        assert_eq!(doc.body_line, 1);
    }

    #[test]
    fn entries_and_types() {
        let body = "# day\n## Deploy plan [project]\ntext\n```\n## not a heading\n```\n## Terse answers [feedback]\n## Untagged thing\n## Don't restart [feedback]\n## 배포 일정 회의 [user]\n## Odd [thing]\n";
        let e = entries(body);
        assert_eq!(e.len(), 6);
        assert_eq!(
            e[0],
            Entry {
                line: 2,
                title: "Deploy plan".into(),
                kind: EntryType::Project
            }
        );
        assert_eq!(e[1].kind, EntryType::Feedback);
        assert_eq!(e[2].kind, EntryType::Project);
        assert_eq!(e[4].title, "배포 일정 회의");
        assert_eq!(e[5].title, "Odd [thing]");
        let topics: Vec<String> = topics_of(body).iter().map(Topic::render).collect();
        assert_eq!(
            topics,
            vec![
                "deploy-plan [project]",
                "terse-answers [feedback]",
                "untagged-thing [project]",
                "dont-restart [feedback]",
                "배포-일정-회의 [user]",
                "odd-thing [project]"
            ]
        );
    }

    #[test]
    fn a_fence_closes_only_on_a_bare_marker_at_least_as_long() {
        let text = "## A\n```python\n# comment\n```python\n## inside\n```\n## B\n````\n```\n## still inside\n````\n~~~\n```\n## inside tilde\n~~~~\n## C\n```a```\n## D\n    ```\n## E\n";
        let titles: Vec<&str> = headings(text).into_iter().map(|(_, _, t)| t).collect();
        assert_eq!(titles, ["A", "B", "C", "D", "E"]);
    }

    #[test]
    fn a_secret_in_a_heading_never_becomes_a_topic() {
        let topics = topics_of("## Deploy creds sk-proj-abcdefghijklmnopqrstuvwx12 [project]\n");
        assert_eq!(topics[0].render(), "deploy-creds-redacted [project]");
        let slug = Topic::parse("deploy-creds-sk-proj-abcdefghijklmnopqrstuvwx12 [project]");
        assert_eq!(slug.unwrap().keyword, "deploy-creds-redacted");
    }

    #[test]
    fn strips_title() {
        assert_eq!(strip_title("# 2026-03-15\n\n## A\n"), "## A\n");
        assert_eq!(strip_title("## A\n"), "## A\n");
    }

    #[test]
    fn a_heading_inside_a_fence_does_not_split_a_section() {
        let text = "intro\n## Runbook\n```sh\n## Topics Index\n```\nafter\n## Next\nx";
        let s = sections(text);
        assert_eq!(s.len(), 2);
        assert_eq!(s[0].title, "Runbook");
        assert_eq!(s[0].body, "```sh\n## Topics Index\n```\nafter\n");
        assert_eq!(
            &text[s[0].start..s[0].end],
            "## Runbook\n```sh\n## Topics Index\n```\nafter\n"
        );
        assert_eq!((s[1].title, s[1].body), ("Next", "x"));
        assert!(sections("no headings\n# Title\n").is_empty());
    }
}
