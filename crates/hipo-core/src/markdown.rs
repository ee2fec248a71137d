//! Markdown as hipocampus writes it: YAML frontmatter, `## Heading [type]`
//! entries, and the topic keywords derived from them; the frontmatter
//! itself is `frontmatter`.
//!
//! Pure: parses strings, never touches the disk. Status is read from the
//! parsed frontmatter, never found by searching the text for a substring.

use serde::{Deserialize, Serialize};

mod fence;
mod frontmatter;
pub use fence::{HeadingScan, headings, without_ending};
pub use frontmatter::{Frontmatter, Spelling, Status, parse_document, split_frontmatter};

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

#[cfg(test)]
mod tests {
    use super::*;

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
