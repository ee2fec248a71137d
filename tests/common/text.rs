//! Outputs made the same on every machine and easy to read, for
//! snapshots: only what depends on the machine is masked; JSON is printed
//! compactly where it fits on a line.

use super::Project;
use serde_json::{Value, json};

/// The temp directory as `[PROJECT]`, the wall clock of the last
/// compaction as `[TIME]`, the store's bytes on disk as `[SIZE]`.
pub fn masked(p: &Project, text: &str) -> String {
    let text = text.replace(p.path().to_str().unwrap(), "[PROJECT]");
    let text = mask_between(&text, "last run ", ",", "[TIME]");
    mask_between(&text, "store.redb (", ",", "[SIZE]")
}

/// Each text between `start` and the next `end` that starts with a digit
/// (a time, a size; not "never") replaced by `with`.
pub fn mask_between(text: &str, start: &str, end: &str, with: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(at) = rest.find(start) {
        let (head, tail) = rest.split_at(at + start.len());
        out.push_str(head);
        let Some(stop) = tail.find(end) else {
            rest = tail;
            break;
        };
        if tail.starts_with(|c: char| c.is_ascii_digit()) {
            out.push_str(with);
            rest = &tail[stop..];
        } else {
            rest = tail;
        }
    }
    out.push_str(rest);
    out
}

/// JSON as people read it: pretty, but an array or object that fits in
/// 100 characters on one line (a hit's `lines`, `highlights` and each
/// `also_in` would take dozens).
pub fn pretty(v: &Value) -> String {
    let mut out = String::new();
    write_pretty(v, 0, &mut out);
    out
}

fn write_pretty(v: &Value, depth: usize, out: &mut String) {
    let one_line = inline(v);
    let pad = |d: usize| "  ".repeat(d);
    match v {
        Value::Object(o) if one_line.len() > 100 => {
            out.push_str("{\n");
            for (i, (k, x)) in o.iter().enumerate() {
                out.push_str(&format!("{}{}: ", pad(depth + 1), json!(k)));
                write_pretty(x, depth + 1, out);
                out.push_str(if i + 1 < o.len() { ",\n" } else { "\n" });
            }
            out.push_str(&format!("{}}}", pad(depth)));
        }
        Value::Array(a) if one_line.len() > 100 => {
            out.push_str("[\n");
            for (i, x) in a.iter().enumerate() {
                out.push_str(&pad(depth + 1));
                write_pretty(x, depth + 1, out);
                out.push_str(if i + 1 < a.len() { ",\n" } else { "\n" });
            }
            out.push_str(&format!("{}]", pad(depth)));
        }
        _ => out.push_str(&one_line),
    }
}

/// `v` on one line, with a space after each `:` and `,`.
fn inline(v: &Value) -> String {
    match v {
        Value::Object(o) => {
            let members: Vec<String> = o
                .iter()
                .map(|(k, x)| format!("{}: {}", json!(k), inline(x)))
                .collect();
            format!("{{{}}}", members.join(", "))
        }
        Value::Array(a) => {
            let items: Vec<String> = a.iter().map(inline).collect();
            format!("[{}]", items.join(", "))
        }
        _ => v.to_string(),
    }
}
