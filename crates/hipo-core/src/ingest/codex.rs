//! Codex CLI rollouts (`$CODEX_HOME/sessions/Y/M/D/rollout-…-<id>.jsonl`),
//! as 0.169 writes them: lines `{timestamp, ordinal, type, payload}`.
//!
//! The user's words are `response_item` user messages whose content kinds
//! say `user.text` (the environment context and AGENTS.md come as user
//! messages too, labelled otherwise). The assistant's replies are the
//! `item_completed` `AgentMessage` events: the compaction summary is an
//! assistant message too but never an `AgentMessage`, and the `compacted`
//! line's history repeats earlier prompts, so neither is read.

use super::{Parsed, Role};
use serde_json::Value;
use std::collections::HashSet;

/// Parses the complete lines of `bytes`; a partial last line waits.
pub fn parse(bytes: &[u8]) -> Parsed {
    let mut out = Parsed::default();
    let mut seen: HashSet<String> = HashSet::new();
    for v in out.json_lines(bytes) {
        let at = v
            .get("timestamp")
            .and_then(Value::as_str)
            .map(str::to_string);
        let Some(p) = v.get("payload") else { continue };
        let id = p
            .get("id")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string();
        if !id.is_empty() && !seen.insert(id) {
            continue;
        }
        match (v.get("type").and_then(Value::as_str), str_at(p, "/type")) {
            (Some("session_meta"), _) => out.session = str_at(p, "/id").map(str::to_string),
            (Some("response_item"), Some("message"))
                if str_at(p, "/role") == Some("user") && is_users_own(p) =>
            {
                out.push(Role::User, &text(p.get("content")), at);
            }
            (Some("response_item"), Some("function_call")) => {
                let name = str_at(p, "/name").unwrap_or("tool");
                let args: Value = str_at(p, "/arguments")
                    .and_then(|a| serde_json::from_str(a).ok())
                    .unwrap_or(Value::Null);
                let arg = str_at(&args, "/cmd").unwrap_or_default();
                out.push(Role::Tool, &format!("{name} {arg}"), at);
            }
            (Some("response_item"), Some("function_call_output")) => {
                let output = str_at(p, "/output").unwrap_or_default();
                // The real output follows a header ending in `Output:`.
                let body = output.split_once("Output:\n").map_or(output, |(_, b)| b);
                out.push(Role::ToolOutput, body, at);
            }
            (Some("event_msg"), Some("item_completed"))
                if str_at(p, "/item/type") == Some("AgentMessage") =>
            {
                out.push(Role::Assistant, &text(p.pointer("/item/content")), at);
            }
            _ => {}
        }
    }
    out
}

/// A user message is the person's own when Codex labels its content
/// `user.text` (or, unlabelled, when it is not an injected `<…>` block).
fn is_users_own(p: &Value) -> bool {
    match p.pointer("/internal_chat_message_metadata_passthrough/content_item_kinds") {
        Some(Value::Array(kinds)) => kinds.iter().all(|k| k.as_str() == Some("user.text")),
        _ => !text(p.get("content")).trim_start().starts_with('<'),
    }
}

fn str_at<'a>(v: &'a Value, pointer: &str) -> Option<&'a str> {
    v.pointer(pointer).and_then(Value::as_str)
}

/// The text blocks of a content array, joined.
fn text(content: Option<&Value>) -> String {
    match content {
        Some(Value::Array(blocks)) => blocks
            .iter()
            .filter_map(|b| b.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join("\n"),
        Some(Value::String(s)) => s.clone(),
        _ => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const R: &str = r#"{"timestamp":"2026-11-25T06:47:50Z","type":"session_meta","payload":{"id":"th1","cwd":"/p"}}
{"timestamp":"t","type":"response_item","payload":{"type":"message","id":"m1","role":"user","content":[{"type":"input_text","text":"<environment_context>x</environment_context>"}],"internal_chat_message_metadata_passthrough":{"content_item_kinds":["environments.environment_context"]}}}
{"timestamp":"t","type":"response_item","payload":{"type":"message","id":"m2","role":"developer","content":[{"type":"input_text","text":"hook context"}]}}
{"timestamp":"t","type":"response_item","payload":{"type":"message","id":"m3","role":"user","content":[{"type":"input_text","text":"rotate the api keys"}],"internal_chat_message_metadata_passthrough":{"content_item_kinds":["user.text"]}}}
{"timestamp":"t","type":"event_msg","payload":{"type":"item_completed","item":{"type":"UserMessage","id":"x","content":[{"type":"text","text":"rotate the api keys"}]}}}
{"timestamp":"t","type":"response_item","payload":{"type":"function_call","id":"fc1","name":"exec_command","arguments":"{\"cmd\": \"vault rotate\"}","call_id":"c1"}}
{"timestamp":"t","type":"response_item","payload":{"type":"function_call_output","id":"fo1","call_id":"c1","output":"Chunk ID: 1\nWall time: 0 seconds\nOutput:\nrotated 3 keys\n"}}
{"timestamp":"t","type":"response_item","payload":{"type":"message","id":"m4","role":"assistant","content":[{"type":"output_text","text":"compaction summary"}]}}
{"timestamp":"t","type":"compacted","payload":{"message":"summary","replacement_history":[{"type":"message","role":"user","content":[{"type":"input_text","text":"rotate the api keys"}]}]}}
{"timestamp":"t","type":"event_msg","payload":{"type":"item_completed","item":{"type":"AgentMessage","id":"m5","content":[{"type":"Text","text":"Keys rotated."}]}}}
"#;

    #[test]
    fn takes_the_users_words_the_calls_and_the_replies_once() {
        let p = parse(R.as_bytes());
        let got: Vec<(Role, &str)> = p
            .messages
            .iter()
            .map(|m| (m.role, m.text.as_str()))
            .collect();
        assert_eq!(
            got,
            vec![
                (Role::User, "rotate the api keys"),
                (Role::Tool, "exec_command vault rotate"),
                (Role::ToolOutput, "rotated 3 keys"),
                (Role::Assistant, "Keys rotated."),
            ]
        );
        assert_eq!(p.session.as_deref(), Some("th1"));
        assert_eq!(p.consumed, R.len());
    }
}
