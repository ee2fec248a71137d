//! Claude Code session transcripts (`~/.claude/projects/<dir>/<id>.jsonl`).
//!
//! One JSON object a line. Only `user` and `assistant` lines carry the
//! conversation; every other type (`attachment`, `queue-operation`,
//! `last-prompt`, `api-request-*`, `system`, `summary`, …) is skipped,
//! because several of them repeat the user's words (and their secrets)
//! and would duplicate them. A `user` line is the person's own words only
//! when it is not a tool result, not meta, not a compaction summary and
//! not a subagent's.

use super::{Parsed, Role};
use serde_json::Value;
use std::collections::HashSet;

/// Parses the complete lines of `bytes` (a transcript from some offset);
/// a partial last line is left for next time.
pub fn parse(bytes: &[u8]) -> Parsed {
    let mut out = Parsed::default();
    let mut seen: HashSet<String> = HashSet::new();
    for v in out.json_lines(bytes) {
        if let Some(uuid) = v.get("uuid").and_then(Value::as_str)
            && !seen.insert(uuid.to_string())
        {
            continue;
        }
        if out.session.is_none() {
            out.session = v
                .get("sessionId")
                .and_then(Value::as_str)
                .map(str::to_string);
        }
        let at = v
            .get("timestamp")
            .and_then(Value::as_str)
            .map(str::to_string);
        let flagged = |k: &str| v.get(k).and_then(Value::as_bool).unwrap_or(false);
        if flagged("isSidechain") || flagged("isMeta") || flagged("isCompactSummary") {
            continue;
        }
        let content = v.pointer("/message/content");
        match v.get("type").and_then(Value::as_str) {
            Some("user") => user(content, at, &mut out),
            Some("assistant") => assistant(content, at, &mut out),
            _ => {}
        }
    }
    out
}

fn user(content: Option<&Value>, at: Option<String>, out: &mut Parsed) {
    match content {
        Some(Value::String(s)) => out.push(Role::User, s, at),
        Some(Value::Array(blocks)) => {
            for b in blocks {
                match b.get("type").and_then(Value::as_str) {
                    Some("text") => out.push(Role::User, text_of(b), at.clone()),
                    Some("tool_result") => {
                        let text = match b.get("content") {
                            Some(Value::String(s)) => s.clone(),
                            Some(Value::Array(parts)) => {
                                parts.iter().map(text_of).collect::<Vec<_>>().join("\n")
                            }
                            _ => String::new(),
                        };
                        out.push(Role::ToolOutput, &text, at.clone());
                    }
                    _ => {}
                }
            }
        }
        _ => {}
    }
}

fn assistant(content: Option<&Value>, at: Option<String>, out: &mut Parsed) {
    let Some(Value::Array(blocks)) = content else {
        if let Some(Value::String(s)) = content {
            out.push(Role::Assistant, s, at);
        }
        return;
    };
    for b in blocks {
        match b.get("type").and_then(Value::as_str) {
            Some("text") => out.push(Role::Assistant, text_of(b), at.clone()),
            Some("tool_use") => {
                let name = b.get("name").and_then(Value::as_str).unwrap_or("tool");
                let arg = b.get("input").map(short_argument).unwrap_or_default();
                out.push(Role::Tool, &format!("{name} {arg}"), at.clone());
            }
            // Thinking is not what was said; images have no text.
            _ => {}
        }
    }
}

fn text_of(block: &Value) -> &str {
    block.get("text").and_then(Value::as_str).unwrap_or("")
}

/// The argument a person would recognise a call by: a command, a path, a
/// pattern, else the input as JSON.
fn short_argument(input: &Value) -> String {
    for key in [
        "command",
        "file_path",
        "path",
        "pattern",
        "url",
        "query",
        "description",
    ] {
        if let Some(s) = input.get(key).and_then(Value::as_str) {
            return s.to_string();
        }
    }
    input.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    const T: &str = r#"{"type":"file-history-snapshot","messageId":"m0"}
{"parentUuid":null,"isSidechain":false,"type":"user","message":{"role":"user","content":"we cut over to postgres 16 on saturday"},"uuid":"u1","timestamp":"2026-11-25T10:00:00Z","sessionId":"s1"}
{"type":"queue-operation","operation":"enqueue","content":"we cut over to postgres 16 on saturday"}
{"type":"assistant","uuid":"a1","message":{"id":"msg1","role":"assistant","content":[{"type":"thinking","thinking":"secret plan"},{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"psql -c 'select 1'"}}]},"sessionId":"s1"}
{"type":"user","uuid":"u2","message":{"role":"user","content":[{"tool_use_id":"t1","type":"tool_result","content":"1\n(1 row)"}]}}
{"type":"assistant","uuid":"a2","message":{"id":"msg2","role":"assistant","content":[{"type":"text","text":"Done: the cutover is noted."}]}}
{"type":"assistant","uuid":"a2","message":{"id":"msg2","role":"assistant","content":[{"type":"text","text":"Done: the cutover is noted."}]}}
{"type":"system","subtype":"compact_boundary","uuid":"c1"}
{"type":"user","isCompactSummary":true,"uuid":"u3","message":{"role":"user","content":"This session is being continued"}}
{"type":"user","isSidechain":true,"uuid":"u4","message":{"role":"user","content":"subagent words"}}
not json
{"type":"user","uuid":"u5","message":{"role":"user","content":"partial"#;

    #[test]
    fn keeps_the_conversation_and_skips_the_rest() {
        let p = parse(T.as_bytes());
        let got: Vec<(Role, &str)> = p
            .messages
            .iter()
            .map(|m| (m.role, m.text.as_str()))
            .collect();
        assert_eq!(
            got,
            vec![
                (Role::User, "we cut over to postgres 16 on saturday"),
                (Role::Tool, "Bash psql -c 'select 1'"),
                (Role::ToolOutput, "1\n(1 row)"),
                (Role::Assistant, "Done: the cutover is noted."),
            ]
        );
        assert_eq!(p.session.as_deref(), Some("s1"));
        assert_eq!(p.skipped, 1);
        // The partial last line is not consumed.
        assert_eq!(
            &T[p.consumed..],
            r#"{"type":"user","uuid":"u5","message":{"role":"user","content":"partial"#
        );
    }
}
