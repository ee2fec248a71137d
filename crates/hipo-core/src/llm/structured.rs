//! Structured answers: hipo asks Ollama for JSON matching a schema (the
//! `format` field, Ollama 0.5 and later) and renders the Markdown itself,
//! so the section skeleton and the `[type]` tags are hipo's and never the
//! model's to get wrong. Pure: schemas, parsing, rendering.

use crate::markdown::EntryType;
use ollama_rs::generation::parameters::FormatType;
use serde::Deserialize;
use serde_json::{Value, json};

/// How a model is asked to answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// JSON constrained by a schema; hipo renders the Markdown.
    Structured,
    /// Markdown with the required sections (a server refusing `format`).
    Text,
}

impl Mode {
    /// Part of every cache key: an answer in one mode is not one in the other.
    pub fn as_str(self) -> &'static str {
        match self {
            Mode::Structured => "json",
            Mode::Text => "text",
        }
    }
}

/// The node sections' JSON keys, in the order of
/// [`super::sections::REQUIRED_SECTIONS`] after `## Topics`.
const LISTS: [&str; 4] = [
    "key_decisions",
    "tasks_completed",
    "lessons_learned",
    "open_items",
];

/// ROOT's narrative keys, in order.
const ROOT_LISTS: [&str; 3] = ["active_context", "recent_patterns", "historical_summary"];

fn strings() -> Value {
    json!({"type": "array", "items": {"type": "string"}})
}

/// The schema of a node summary: topics as keyword, type and details; one
/// array of short strings per other section.
pub fn node_schema() -> Value {
    let mut properties = serde_json::Map::new();
    properties.insert(
        "topics".into(),
        json!({
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "keyword": {"type": "string"},
                    "type": {"type": "string", "enum": ["user", "feedback", "project", "reference"]},
                    "details": {"type": "string"}
                },
                "required": ["keyword", "type", "details"]
            }
        }),
    );
    for key in LISTS {
        properties.insert(key.into(), strings());
    }
    let mut required = vec!["topics"];
    required.extend(LISTS);
    json!({"type": "object", "properties": properties, "required": required})
}

/// The schema of ROOT's narrative: three arrays of short strings.
pub fn root_schema() -> Value {
    let properties: serde_json::Map<String, Value> = ROOT_LISTS
        .iter()
        .map(|k| (k.to_string(), strings()))
        .collect();
    json!({"type": "object", "properties": properties, "required": ROOT_LISTS})
}

/// `schema` as the request's `format`.
pub fn format(schema: Value) -> Option<FormatType> {
    serde_json::from_value(schema).ok()
}

#[derive(Deserialize)]
struct TopicItem {
    keyword: String,
    #[serde(rename = "type", default)]
    kind: String,
    #[serde(default)]
    details: String,
}

/// Renders a node answer as the five sections; `Err` says why it is not
/// the JSON asked for.
pub fn render_node(answer: &str) -> Result<String, String> {
    let value = parse(answer)?;
    let topics: Vec<TopicItem> = value
        .get("topics")
        .cloned()
        .map(serde_json::from_value)
        .transpose()
        .map_err(|e| format!("the answer's topics are not the JSON asked for ({e})"))?
        .unwrap_or_default();
    let mut out = String::from("## Topics\n");
    let mut any = false;
    for t in topics {
        let keyword = one_line(&t.keyword);
        if keyword.is_empty() {
            continue;
        }
        let kind = EntryType::parse(t.kind.trim()).unwrap_or_default();
        let details = one_line(&t.details);
        any = true;
        if details.is_empty() {
            out.push_str(&format!("- {keyword} [{}]\n", kind.as_str()));
        } else {
            out.push_str(&format!("- {keyword} [{}]: {details}\n", kind.as_str()));
        }
    }
    if !any {
        out.push_str("- none\n");
    }
    for (key, heading) in LISTS.iter().zip(&super::sections::REQUIRED_SECTIONS[1..]) {
        out.push_str(heading);
        out.push('\n');
        out.push_str(&bullets(&value, key)?);
    }
    Ok(out)
}

/// Renders ROOT's answer as its three sections' bodies.
pub fn render_root(answer: &str) -> Result<[String; 3], String> {
    let value = parse(answer)?;
    let mut out: [String; 3] = Default::default();
    for (slot, key) in out.iter_mut().zip(ROOT_LISTS) {
        *slot = bullets(&value, key)?;
        if slot.starts_with("- none") {
            return Err(format!("the answer's `{key}` is empty"));
        }
    }
    Ok(out)
}

fn parse(answer: &str) -> Result<Value, String> {
    let value: Value = serde_json::from_str(answer.trim())
        .or_else(|e| {
            // A raw newline or tab inside a string (seen from llama.cpp's
            // grammar) is whitespace to a reader: read it as a space.
            let spaced: String = answer
                .trim()
                .chars()
                .map(|c| if c.is_control() { ' ' } else { c })
                .collect();
            serde_json::from_str(&spaced).map_err(|_| e)
        })
        .map_err(|e| format!("the answer is not the JSON asked for ({e})"))?;
    if !value.is_object() {
        return Err("the answer is not the JSON object asked for".into());
    }
    Ok(value)
}

/// `- item` lines of the array `key` (`- none` when empty or missing).
fn bullets(value: &Value, key: &str) -> Result<String, String> {
    let items = match value.get(key) {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(items)) => items.clone(),
        Some(_) => return Err(format!("the answer's `{key}` is not a list")),
    };
    let mut out = String::new();
    for item in items {
        let text = match item {
            Value::String(s) => one_line(&s),
            Value::Null => continue,
            other => one_line(&other.to_string()),
        };
        let text = text.trim_start_matches(['-', '*', ' ']).trim();
        if !text.is_empty() {
            out.push_str(&format!("- {text}\n"));
        }
    }
    if out.is_empty() {
        out.push_str("- none\n");
    }
    Ok(out)
}

/// A string on one line: a model's newlines would break the bullet list.
fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_node_answer_renders_hipos_sections() {
        let answer = r#"{"topics":[{"keyword":"deploy freeze","type":"feedback","details":"no friday deploys"},{"keyword":"mina","type":"weird","details":""}],
            "key_decisions":["no deploys on Friday\nafter 3pm"],"tasks_completed":[],"lessons_learned":["- rollbacks take 4 min"],"open_items":null}"#;
        let md = render_node(answer).unwrap();
        assert_eq!(
            md,
            "## Topics\n- deploy freeze [feedback]: no friday deploys\n- mina [project]\n## Key Decisions\n- no deploys on Friday after 3pm\n## Tasks Completed\n- none\n## Lessons Learned\n- rollbacks take 4 min\n## Open Items\n- none\n"
        );
        assert!(
            render_node("## Topics\n- x")
                .unwrap_err()
                .contains("not the JSON")
        );
        assert!(render_node("[1, 2]").unwrap_err().contains("object"));
        let raw_newline = "{\"topics\":[],\"key_decisions\":[\"ship\nfriday\"],\"tasks_completed\":[],\"lessons_learned\":[],\"open_items\":[]}";
        assert!(
            render_node(raw_newline)
                .unwrap()
                .contains("- ship friday\n")
        );
        assert!(
            render_node(r#"{"topics":[],"key_decisions":"yes"}"#)
                .unwrap_err()
                .contains("not a list")
        );
    }

    #[test]
    fn a_root_answer_renders_three_sections() {
        let r = render_root(r#"{"active_context":["a"],"recent_patterns":["b"],"historical_summary":["2026-03: c"]}"#).unwrap();
        assert_eq!(r[2], "- 2026-03: c\n");
        assert!(
            render_root(
                r#"{"active_context":[],"recent_patterns":["b"],"historical_summary":["c"]}"#
            )
            .is_err()
        );
    }

    #[test]
    fn schemas_become_a_format() {
        let f = format(node_schema()).unwrap();
        let sent = serde_json::to_value(&f).unwrap();
        assert_eq!(sent["required"][4], "open_items");
        assert_eq!(sent["properties"]["topics"]["items"]["required"][1], "type");
        assert!(format(root_schema()).is_some());
    }
}
