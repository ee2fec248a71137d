//! Editing other people's files safely: a marked block in a Markdown
//! file, hipo's hook entries in a JSON settings file, a file hipo owns.
//! Each edit keeps what hipo does not own, writes nothing when nothing
//! changes (Codex re-asks the user to trust a hook whose file changed),
//! and goes through an atomic write.

use hipo_core::write_atomic;
use hipo_core::{Error, Result};
use serde_json::{Map, Value};
use std::path::Path;

/// What an install or uninstall did to one file.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Change {
    Created,
    Updated,
    Removed,
    Unchanged,
}

/// Opens hipo's block in a Markdown file.
pub const BEGIN: &str = "<!-- hipo:begin (written by `hipo init`; `hipo uninstall` removes it) -->";
/// Closes it.
pub const END: &str = "<!-- hipo:end -->";

/// Reads a file that may not exist.
pub fn read(path: &Path) -> Result<Option<String>> {
    match std::fs::read_to_string(path) {
        Ok(t) => Ok(Some(t)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(Error::io(path, e)),
    }
}

/// Writes `new` unless the file holds it already; `None` removes the file.
pub fn put(path: &Path, old: Option<&str>, new: Option<&str>) -> Result<Change> {
    match (old, new) {
        (Some(o), Some(n)) if o == n => Ok(Change::Unchanged),
        (None, None) => Ok(Change::Unchanged),
        (_, Some(n)) => {
            write_atomic(path, n.as_bytes())?;
            Ok(if old.is_some() {
                Change::Updated
            } else {
                Change::Created
            })
        }
        (Some(_), None) => {
            std::fs::remove_file(path).map_err(|e| Error::io(path, e))?;
            Ok(Change::Removed)
        }
    }
}

/// Creates a file with `text` unless one exists (a person's file is
/// never overwritten).
pub fn create_once(path: &Path, text: &str) -> Result<Change> {
    match read(path)? {
        Some(_) => Ok(Change::Unchanged),
        None => put(path, None, Some(text)),
    }
}

/// `text` with hipo's block set to `block` (appended when absent), or
/// removed when `block` is `None`. Text outside the markers is kept byte
/// for byte.
pub fn with_block(text: &str, block: Option<&str>) -> String {
    with_marked(text, BEGIN, END, block)
}

/// [`with_block`] between any two marker lines (`#` comments in TOML).
pub fn with_marked(text: &str, begin: &str, end_marker: &str, block: Option<&str>) -> String {
    let span = text.find(begin).and_then(|start| {
        let end = text[start..].find(end_marker)? + start + end_marker.len();
        let end = if text[end..].starts_with('\n') {
            end + 1
        } else {
            end
        };
        Some((start, end))
    });
    let new = block.map(|b| format!("{begin}\n{}\n{end_marker}\n", b.trim_end()));
    match (span, new) {
        (Some((s, e)), Some(n)) => format!("{}{n}{}", &text[..s], &text[e..]),
        (Some((s, e)), None) => {
            let (before, after) = (&text[..s], &text[e..]);
            // Drop the blank line hipo added before its block.
            let before = before
                .strip_suffix("\n\n")
                .map_or(before.to_string(), |b| format!("{b}\n"));
            format!("{before}{after}")
        }
        (None, Some(n)) if text.trim().is_empty() => n,
        (None, Some(n)) => {
            let sep = if text.ends_with("\n\n") {
                ""
            } else if text.ends_with('\n') {
                "\n"
            } else {
                "\n\n"
            };
            format!("{text}{sep}{n}")
        }
        (None, None) => text.to_string(),
    }
}

/// Sets hipo's hook groups in a settings object shaped
/// `{"hooks": {Event: [{matcher?, hooks: [{type, command, …}]}]}}`:
/// groups whose commands `is_hipo` recognises are replaced by `groups`
/// (event → group), everyone else's are kept in place. Empty `groups`
/// removes hipo's, and empty containers hipo leaves behind.
pub fn with_hooks(
    mut settings: Map<String, Value>,
    groups: &[(&str, Value)],
    is_hipo: impl Fn(&str) -> bool,
) -> Map<String, Value> {
    let hooks = settings
        .entry("hooks")
        .or_insert_with(|| Value::Object(Map::new()));
    if !hooks.is_object() {
        *hooks = Value::Object(Map::new());
    }
    let Some(hooks) = hooks.as_object_mut() else {
        return settings;
    };
    let ours = |g: &Value| {
        g.get("hooks").and_then(Value::as_array).is_some_and(|hs| {
            hs.iter().any(|h| {
                h.get("command")
                    .and_then(Value::as_str)
                    .is_some_and(&is_hipo)
            })
        })
    };
    for list in hooks.values_mut() {
        if let Some(a) = list.as_array_mut() {
            a.retain(|g| !ours(g));
        }
    }
    for (event, group) in groups {
        let list = hooks
            .entry(event.to_string())
            .or_insert_with(|| Value::Array(Vec::new()));
        if let Some(a) = list.as_array_mut() {
            a.push(group.clone());
        }
    }
    hooks.retain(|_, v| !v.as_array().is_some_and(Vec::is_empty));
    if hooks.is_empty() {
        settings.remove("hooks");
    }
    settings
}

/// Parses a JSON object file (missing or empty: an empty object).
pub fn json_object(path: &Path, text: Option<&str>) -> Result<Map<String, Value>> {
    match text.map(str::trim) {
        None | Some("") => Ok(Map::new()),
        Some(t) => match serde_json::from_str::<Value>(t) {
            Ok(Value::Object(m)) => Ok(m),
            Ok(_) => Err(Error::bad_input(
                path,
                None,
                "is not a JSON object; fix it or move it aside, then run `hipo init` again",
            )),
            Err(e) => Err(Error::bad_input(
                path,
                Some(e.line()),
                format!("is not valid JSON ({e}); fix it, then run `hipo init` again"),
            )),
        },
    }
}

/// Pretty JSON with a final newline, as people write settings files.
pub fn json_text(v: &Map<String, Value>) -> String {
    let mut t = serde_json::to_string_pretty(v).unwrap_or_default();
    t.push('\n');
    t
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_block_is_added_replaced_and_removed_leaving_the_rest() {
        let mine = "# Notes\nkeep me\n";
        let one = with_block(mine, Some("v1"));
        assert_eq!(one, format!("# Notes\nkeep me\n\n{BEGIN}\nv1\n{END}\n"));
        let two = with_block(&(one.clone() + "after\n"), Some("v2"));
        assert_eq!(
            two,
            format!("# Notes\nkeep me\n\n{BEGIN}\nv2\n{END}\nafter\n")
        );
        assert_eq!(with_block(&one, Some("v1")), one);
        assert_eq!(with_block(&one, None), mine);
    }

    #[test]
    fn foreign_hooks_stay_and_ours_are_replaced_not_doubled() {
        let settings = json!({"model": "x", "hooks": {"Stop": [
            {"hooks": [{"type": "command", "command": "other-tool stop"}]},
            {"hooks": [{"type": "command", "command": "hipo hook claude-code stop"}]}
        ]}});
        let Value::Object(m) = settings else { panic!() };
        let ours = json!({"hooks": [{"type": "command", "command": "hipo hook claude-code stop", "timeout": 30}]});
        let is_hipo = |c: &str| c.contains(" hook claude-code ");
        let once = with_hooks(m.clone(), &[("Stop", ours.clone())], is_hipo);
        let twice = with_hooks(once.clone(), &[("Stop", ours)], is_hipo);
        assert_eq!(once, twice);
        assert_eq!(once["hooks"]["Stop"].as_array().unwrap().len(), 2);
        assert_eq!(
            once["hooks"]["Stop"][0]["hooks"][0]["command"],
            "other-tool stop"
        );
        let gone = with_hooks(once, &[], is_hipo);
        assert_eq!(gone["hooks"]["Stop"].as_array().unwrap().len(), 1);
        assert_eq!(gone["model"], "x");
    }
}
