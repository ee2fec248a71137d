//! How much of a prompt is in the memory's words at all.
//!
//! Search weighs a word no section holds at 0 (see `search::terms`): it
//! cannot tell passages apart, and a marker or a file name in the prompt
//! must not change which passage ranks first. Recall's gate asks another
//! question: is the prompt about something this memory talks of? There a
//! plain word the memory has never seen is evidence that it is not
//! ("explain the difference between stocks and bonds" asked of a shop's
//! memory that says `stock` once and nothing of bonds or explaining). A
//! young memory, where every word is rare, lets one shared word score as
//! high as an answer does; what tells them apart is the rest of the
//! prompt, which the memory does not hold.
//!
//! So the gate's coverage counts such a word at the weight BM25 gives a
//! word held by no section, the highest there is. Words from code-like
//! strings (a file name, an identifier, a pasted error's id, a test
//! marker: a chunk holding a digit, `_`, `::`, a dot or slash inside it,
//! a capital after a small letter, or inside backticks) still weigh 0:
//! they are unique to the moment, no memory is expected to hold them, and
//! they say nothing of what the prompt is about. Nor do general English's
//! commonest words ("look", "like", "many", "again": [`super::common`]),
//! which weigh 0 too when the memory does not hold them. In a large
//! memory, which holds nearly every plain word, this changes little; in a
//! young one it is what keeps a prompt about something else out.

use super::common;
use crate::index::schema::UNIT_SECTION;
use crate::index::{SearchIndex, analyzer};
use std::collections::HashMap;
use tantivy::Term;

/// The prompt's distinct analyzed words, each with whether it says
/// nothing of the prompt's subject: it only comes from code-like strings
/// or from general English's commonest words ([`super::common`]).
pub(crate) fn words(prompt: &str) -> Vec<(String, bool)> {
    let mut out: Vec<(String, bool)> = Vec::new();
    let mut at: HashMap<String, usize> = HashMap::new();
    let mut in_ticks = false;
    for chunk in prompt.split_whitespace() {
        let ticks = chunk.matches('`').count();
        let code = in_ticks || ticks > 0 || is_code(chunk);
        if ticks % 2 == 1 {
            in_ticks = !in_ticks;
        }
        for t in analyzer::tokens(chunk) {
            let typed = chunk.get(t.offset_from..t.offset_to).unwrap_or("");
            let code = code || common::is_common(typed);
            match at.get(&t.text) {
                Some(&i) => out[i].1 &= code,
                None => {
                    at.insert(t.text.clone(), out.len());
                    out.push((t.text, code));
                }
            }
        }
    }
    out
}

/// Whether a whitespace-separated chunk of a prompt looks like code, a
/// path or an identifier rather than a word of prose.
fn is_code(chunk: &str) -> bool {
    let core = chunk.trim_matches(|c: char| !c.is_alphanumeric());
    let chars: Vec<char> = core.chars().collect();
    let inner = |i: usize| {
        i > 0
            && i + 1 < chars.len()
            && chars[i - 1].is_alphanumeric()
            && chars[i + 1].is_alphanumeric()
    };
    core.chars().any(|c| c.is_ascii_digit() || c == '_')
        || core.contains("::")
        || chars
            .iter()
            .enumerate()
            .any(|(i, c)| matches!(c, '.' | '/' | ':' | '\\' | '=' | '@') && inner(i))
        || chars
            .windows(2)
            .any(|w| w[0].is_lowercase() && w[1].is_uppercase())
}

/// The share of `prompt`'s weight in words `index` holds
/// ([`known_share`]), with BM25's IDF over sections as search computes it.
pub(crate) fn share_held(index: &SearchIndex, prompt: &str) -> f32 {
    let words = words(prompt);
    let searcher = index.searcher();
    let f = &index.fields;
    let df = |field, t: &str| {
        searcher
            .doc_freq(&Term::from_field_text(field, t))
            .unwrap_or(0) as f32
    };
    let sections = df(f.unit, UNIT_SECTION).max(1.0);
    let idf = |n: f32| (1.0 + (sections - n + 0.5) / (n + 0.5)).ln();
    let known: Vec<f32> = words
        .iter()
        .map(|(t, _)| {
            let n = df(f.sbody, t).max(df(f.suser, t)).min(sections);
            if n == 0.0 && df(f.heading, t) == 0.0 {
                0.0
            } else {
                idf(n)
            }
        })
        .collect();
    known_share(&words, &known, idf(0.0))
}

/// The share of the prompt's weight in words the memory holds: `known`
/// is each word's IDF (0 for a word no section holds), `unseen` the IDF
/// of a word held by no section. A word that says nothing of the
/// subject ([`words`]) weighs only when held. 1 when nothing weighs.
pub(crate) fn known_share(words: &[(String, bool)], known: &[f32], unseen: f32) -> f32 {
    let mut held = 0.0;
    let mut total = 0.0;
    for ((_, code), idf) in words.iter().zip(known) {
        if *idf > 0.0 {
            held += idf;
            total += idf;
        } else if !code {
            total += unseen;
        }
    }
    if total > 0.0 { held / total } else { 1.0 }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn code_like_chunks_are_told_from_prose() {
        for c in [
            "zqx-cx-marker-one-23562",
            "frobnitz_7781.blorb",
            "cutover_notes_v2.txt",
            "rusqlite::Error",
            "SqliteFailure(DatabaseBusy)",
            "~/Downloads/kb.csv",
            "OrderRepositoryTest",
            "tty2",
        ] {
            assert!(is_code(c), "{c}");
        }
        for c in [
            "read-only",
            "window?",
            "Postgres",
            "(again)",
            "don't",
            "STARBUCKS",
        ] {
            assert!(!is_code(c), "{c}");
        }
    }

    #[test]
    fn words_in_backticks_are_code() {
        let w = words("prints `error: no header` then stops");
        let code: Vec<&str> = w.iter().filter(|x| x.1).map(|x| x.0.as_str()).collect();
        let prose: Vec<&str> = w.iter().filter(|x| !x.1).map(|x| x.0.as_str()).collect();
        assert_eq!(code, ["error", "header"]);
        assert_eq!(prose, ["print", "stop"]);
    }

    #[test]
    fn common_words_say_nothing_of_the_subject() {
        let w = words("what should an error response from our API look like");
        let weightless: Vec<&str> = w.iter().filter(|x| x.1).map(|x| x.0.as_str()).collect();
        assert_eq!(weightless, ["look", "like"]);
        // A stem shared with a word of the subject is not weightless.
        let w = words("looks different, what is the difference");
        assert_eq!(w, [("look".into(), true), ("differ".into(), false)]);
    }

    #[test]
    fn unseen_prose_weighs_and_unseen_code_does_not() {
        let w = words("stocks and bonds zqx-23562");
        // stock held (idf 2), bond unseen prose, zqx and 23562 unseen code.
        let known: Vec<f32> = w
            .iter()
            .map(|(t, _)| if t == "stock" { 2.0 } else { 0.0 })
            .collect();
        let share = known_share(&w, &known, 4.0);
        assert!((share - 2.0 / 6.0).abs() < 1e-6, "{share}");
        let all_known = vec![2.0; w.len()];
        assert_eq!(known_share(&w, &all_known, 4.0), 1.0);
        assert_eq!(known_share(&[], &[], 4.0), 1.0);
    }
}
