//! What a section's vector is made of: its heading and the lines its user
//! wrote (`User:` turns, without the speaker label), or its whole body
//! when no one is quoted (a memory entry, a node's summary).
//!
//! The user's own words say what a conversation was about; the assistant's
//! long replies would fill a small model's 256 tokens with boilerplate
//! ("Here are a few options: 1. …"). The table measured MiniLM over
//! user turns at 30.7% R@5 on all 900 MemAware questions.

use crate::index::sections;

/// Bytes of a section's text sent at most: about twice what a 256-token
/// model reads (the model cuts the rest), so the request stays small
/// without the cut deciding anything a model with a larger window
/// (nomic-embed-text, bge-m3: 8k tokens) would see: they get the start.
pub const MAX_BYTES: usize = 2048;

/// The text embedded for a section (`section` is its redacted Markdown,
/// starting at its heading line).
pub fn section_text(section: &str) -> String {
    let lines: Vec<&str> = section.lines().collect();
    let mut out = String::new();
    for s in sections::split(section) {
        if !s.heading.is_empty() {
            push(&mut out, &s.heading);
        }
        let user: Vec<usize> = s
            .windows
            .iter()
            .flat_map(|w| w.user.iter().copied())
            .collect();
        let body: Box<dyn Iterator<Item = usize>> = if user.is_empty() {
            // Every line but the heading.
            let first = s.lines.0 + usize::from(!s.heading.is_empty() || s.title.is_some());
            Box::new(first..=s.lines.1)
        } else {
            let mut u = user;
            u.dedup();
            Box::new(u.into_iter())
        };
        for n in body {
            let Some(line) = lines.get(n - 1) else {
                continue;
            };
            let line = unlabelled(line.trim());
            if !line.is_empty() && !line.starts_with("<!-- hipo") {
                push(&mut out, line);
            }
            if out.len() >= MAX_BYTES {
                break;
            }
        }
    }
    cut(out)
}

fn push(out: &mut String, line: &str) {
    if !out.is_empty() {
        out.push('\n');
    }
    out.push_str(line);
}

/// `User: text` → `text` (also `**User:**`, `- Human:`).
fn unlabelled(line: &str) -> &str {
    let t = line.trim_start_matches(['-', '>', '*', ' ']);
    let Some((name, rest)) = t.split_once(':') else {
        return line;
    };
    let name = name.trim_end_matches('*').trim().to_ascii_lowercase();
    if matches!(name.as_str(), "user" | "human" | "me") {
        rest.trim_start_matches('*').trim()
    } else {
        line
    }
}

/// At most [`MAX_BYTES`], cut at a character boundary.
fn cut(mut s: String) -> String {
    if s.len() > MAX_BYTES {
        let mut at = MAX_BYTES;
        while !s.is_char_boundary(at) {
            at -= 1;
        }
        s.truncate(at);
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_session_is_its_heading_and_user_turns() {
        let s = "## Session s1\nSession Date: 2023-04-01\n\nUser: I want a water bottle.\nsteel if possible\nAssistant: Here are options:\n1. S'well\n**User:** thanks\n";
        assert_eq!(
            section_text(s),
            "Session s1\nI want a water bottle.\nsteel if possible\nthanks"
        );
    }

    #[test]
    fn an_entry_without_turns_is_its_whole_text() {
        let s = "## Postgres migration [project]\nMoved to pg 16.\n\n<!-- hipo x -->\nDone.\n";
        assert_eq!(
            section_text(s),
            "Postgres migration\nMoved to pg 16.\nDone."
        );
        let long = format!("## H\n{}\n", "é".repeat(3000));
        assert!(section_text(&long).len() <= MAX_BYTES);
    }
}
