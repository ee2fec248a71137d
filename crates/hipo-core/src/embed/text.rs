//! What a section's vectors are made of: its passages, each its heading
//! and a run of the lines its user wrote (`User:` turns, without the
//! speaker label), or of its whole body when no one is quoted (a memory
//! entry, a node's summary).
//!
//! The user's own words say what a conversation was about; the assistant's
//! long replies would fill a small model's 256 tokens with boilerplate
//! ("Here are a few options: 1. …"). The table measured MiniLM over
//! user turns at 30.7% R@5 on all 900 MemAware questions.
//!
//! Why passages, not one text per section: a model reads its window and
//! cuts the rest (all-minilm: 256 tokens, about 1 KB of English), so one
//! vector per section never saw a fact stated late in a long session. Each
//! passage fits the window, and a section scores as its best passage.
//!
//! A session also gets one passage of its opening turn alone (its user's
//! first request): it says what the session is about, which a question
//! asked weeks later names, where the passages mix it with what followed.
//! The lexical ranking weighs the same turn (`search::rank`).

use crate::index::sections;

/// Bytes of a passage at most: about 200 word-piece tokens of English
/// (~4 bytes a token), under a 256-token model's window with room for the
/// heading, so nothing a passage holds is cut away.
pub const PIECE_BYTES: usize = 800;
/// Passages of a section at most (12.8 KB of its user's words). A section
/// longer than that is a transcript, not a note; its first passages stand
/// for it, and its lexical ranking still reads all of it.
pub const MAX_PIECES: usize = 16;
/// A heading longer than this is cut in each passage it starts.
const HEADING_BYTES: usize = 160;

/// The passages embedded for a section (`section` is its redacted
/// Markdown, starting at its heading line), in order; at least one
/// (the heading alone when the section has no other words).
pub fn section_pieces(section: &str) -> Vec<String> {
    let (heading, body, opening) = section_lines(section);
    let heading = cut(heading, HEADING_BYTES);
    let mut pieces = body_pieces(&heading, body);
    if let Some(first) = opening_piece(&heading, &opening)
        && !pieces.contains(&first)
    {
        pieces.push(first);
    }
    pieces
}

/// The opening turn as a passage of its own: its first [`PIECE_BYTES`],
/// cut as the body is (a long first turn gives the first body passage
/// again, which is then not repeated).
fn opening_piece(heading: &str, opening: &[String]) -> Option<String> {
    if opening.is_empty() {
        return None;
    }
    body_pieces(heading, opening.to_vec()).into_iter().next()
}

/// The heading and body lines in passages of at most [`PIECE_BYTES`], at
/// most [`MAX_PIECES`] of them.
fn body_pieces(heading: &str, body: Vec<String>) -> Vec<String> {
    let heading = heading.to_string();
    let mut pieces: Vec<String> = Vec::new();
    let mut cur = heading.clone();
    let mut has_body = false;
    for line in body {
        for part in split_long(&line, PIECE_BYTES.saturating_sub(heading.len() + 1).max(64)) {
            if has_body && cur.len() + 1 + part.len() > PIECE_BYTES {
                pieces.push(std::mem::replace(&mut cur, heading.clone()));
                if pieces.len() == MAX_PIECES {
                    return pieces;
                }
            }
            push(&mut cur, part);
            has_body = true;
        }
    }
    if has_body || pieces.is_empty() {
        pieces.push(cur);
    }
    pieces
}

/// The heading, the lines embedded (the user's, else the whole body) and
/// the user's opening turn (empty when no one is quoted).
fn section_lines(section: &str) -> (String, Vec<String>, Vec<String>) {
    let lines: Vec<&str> = section.lines().collect();
    let text = |n: usize| -> Option<&str> {
        let line = unlabelled(lines.get(n.checked_sub(1)?)?.trim());
        (!line.is_empty() && !line.starts_with("<!-- hipo")).then_some(line)
    };
    let mut heading = String::new();
    let mut out = Vec::new();
    let mut opening = Vec::new();
    for s in sections::split(section) {
        if !s.heading.is_empty() && heading.is_empty() {
            heading = s.heading.clone();
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
            if opening.is_empty() {
                opening = sections::first_turn(&u)
                    .iter()
                    .filter_map(|&n| text(n))
                    .map(str::to_string)
                    .collect();
            }
            Box::new(u.into_iter())
        };
        out.extend(body.filter_map(text).map(str::to_string));
    }
    (heading, out, opening)
}

/// `line` in parts of at most `max` bytes, cut at spaces where it can be.
fn split_long(line: &str, max: usize) -> Vec<&str> {
    let mut parts = Vec::new();
    let mut rest = line.trim();
    while rest.len() > max {
        let mut at = max;
        while !rest.is_char_boundary(at) {
            at -= 1;
        }
        let cut_at = rest[..at].rfind(' ').filter(|&i| i > max / 2).unwrap_or(at);
        parts.push(rest[..cut_at].trim_end());
        rest = rest[cut_at..].trim_start();
    }
    if !rest.is_empty() {
        parts.push(rest);
    }
    parts
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

/// At most `max` bytes, cut at a character boundary.
fn cut(mut s: String, max: usize) -> String {
    if s.len() > max {
        let mut at = max;
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
            section_pieces(s),
            [
                "Session s1\nI want a water bottle.\nsteel if possible\nthanks",
                // The opening turn alone.
                "Session s1\nI want a water bottle.\nsteel if possible"
            ]
        );
        // A session of one turn is one passage.
        assert_eq!(
            section_pieces("## S\nUser: just this\nAssistant: ok\n"),
            ["S\njust this"]
        );
    }

    #[test]
    fn an_entry_without_turns_is_its_whole_text() {
        let s = "## Postgres migration [project]\nMoved to pg 16.\n\n<!-- hipo x -->\nDone.\n";
        assert_eq!(
            section_pieces(s),
            ["Postgres migration\nMoved to pg 16.\nDone."]
        );
    }

    #[test]
    fn a_long_section_is_passages_that_fit_the_window_each_with_its_heading() {
        let mut s = String::from("## Trip\n");
        for i in 0..40 {
            s.push_str(&format!("User: remark {i} {}\n", "word ".repeat(20)));
        }
        s.push_str(&format!("User: {}\n", "é".repeat(3000)));
        let pieces = section_pieces(&s);
        assert!(pieces.len() > 1 && pieces.len() <= MAX_PIECES);
        for p in &pieces {
            assert!(p.len() <= PIECE_BYTES, "{}", p.len());
            assert!(p.starts_with("Trip\n"), "{p}");
        }
        // Every remark is in some passage, in order.
        let all = pieces.join("\n");
        assert!(all.contains("remark 0 ") && all.contains("remark 39 "));
        assert!(all.find("remark 3 ") < all.find("remark 30 "));
        // A section of only a heading is its heading.
        assert_eq!(section_pieces("## Lone\n"), ["Lone"]);
    }

    #[test]
    fn pieces_are_capped() {
        let mut s = String::from("## Big\n");
        for i in 0..2000 {
            s.push_str(&format!("User: line {i} {}\n", "x".repeat(60)));
        }
        // The opening turn (every line: no one answered) is the first
        // passage again, so not repeated.
        assert_eq!(section_pieces(&s).len(), MAX_PIECES);
    }
}
