//! How much more of a prompt a memory holds than chance would give it.
//!
//! The gate's relevance floor ([`super::DEFAULT_FLOOR`]) is what keeps a
//! prompt about something else out of a sixteen-megabyte chat history,
//! where any prompt shares words with some session. In a young memory the
//! same floor shuts out prompts the memory answers: a user's own words
//! for a thing ("the till system's nightly pull", "the NGO's M&E person")
//! score low against a three-line entry, though every one of them is in
//! the memory. That is the evidence this module measures. A memory of a
//! few thousand words holds a general word ("write", "work", "month") by
//! chance, and a project's own words ("bakery", "Tomasz", "anechoic") only
//! when it talks of them; a prompt whose weight the memory holds well
//! beyond what a memory of its size holds by chance is about this memory.
//!
//! Chance is a background language model: how often each word occurs in
//! general text, here three months of an assistant's chats about
//! everything (word counts of the MemAware corpus's 1,311 sessions, MIT,
//! © 2026 Kevin Sohn, licence in `fixtures/memaware/LICENSE`; [`TABLE`]). A
//! memory of `T` words holds a word of background probability `p` with
//! probability 1 − e^(−T·p); the prompt's expected share held by chance is
//! those probabilities weighed as the share itself is, by each word's
//! IDF in the background. In a large memory, which holds nearly every
//! plain word by chance too, the excess is near 0 and the floor alone
//! decides, as before; it is in young memories that it moves
//! (docs/retrieval-log.md, "Held beyond chance").

use super::vocab;
use crate::index::postings::live_docs;
use crate::index::schema::name;
use crate::index::{Fields, SearchIndex};
use crate::layout::DocLevel;
use std::sync::LazyLock;
use tantivy::{Searcher, Term};

/// The background: a header `sessions N tokens T`, then one line per
/// analyzed word, `word sessions-holding-it occurrences`. Written by the
/// ignored test `regenerate` below from the corpus's sessions, with
/// hipo's analyzer, so its words are the index's.
const TABLE: &str = include_str!("background.txt");

/// The background's header: its sessions and words.
static SIZE: LazyLock<(f64, f64)> = LazyLock::new(|| {
    let head: Vec<f64> = TABLE
        .lines()
        .next()
        .unwrap_or_default()
        .split_whitespace()
        .filter_map(|w| w.parse().ok())
        .collect();
    (
        head.first().copied().unwrap_or(1.0).max(1.0),
        head.get(1).copied().unwrap_or(1.0).max(1.0),
    )
});

/// A word's line in the table, `word sessions occurrences`, found by
/// binary search over the sorted lines themselves: no map is built, so a
/// prompt costs a few dozen comparisons, not the table's 29,000 entries.
fn line_of(word: &str) -> Option<&'static str> {
    let body = TABLE.split_once('\n')?.1;
    let bytes = body.as_bytes();
    // `lo` is always a line's start; the word's line, if any, starts in
    // lo..hi.
    let (mut lo, mut hi) = (0, bytes.len());
    while lo < hi {
        let mid = (lo + hi) / 2;
        let start = bytes[..mid]
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(0, |i| i + 1)
            .max(lo);
        let end = bytes[start..]
            .iter()
            .position(|&b| b == b'\n')
            .map_or(bytes.len(), |i| start + i);
        let line = body.get(start..end)?;
        match line.split(' ').next().unwrap_or("").cmp(word) {
            std::cmp::Ordering::Equal => return Some(line),
            std::cmp::Ordering::Less => lo = end + 1,
            std::cmp::Ordering::Greater => hi = start,
        }
    }
    None
}

/// `word`'s weight (its IDF over the background's sessions, highest for
/// a word it never saw) and its probability per word of text.
fn of(word: &str) -> (f64, f64) {
    let (sessions, tokens) = *SIZE;
    let mut counts = line_of(word)
        .into_iter()
        .flat_map(|l| l.split(' ').skip(1))
        .map(|n| n.trim_end().parse::<f64>().unwrap_or(0.0));
    let df = counts.next().unwrap_or(0.0);
    let n = counts.next().unwrap_or(0.0);
    let idf = (1.0 + (sessions - df + 0.5) / (df + 0.5)).ln();
    (idf, (n + 0.5) / tokens)
}

/// The share of `prompt`'s weight in words `index` holds, less the share
/// a memory of its size would hold by chance (see the module's doc):
/// from −1 to 1, near 0 in a large memory. Every word of the prompt
/// counts, a marker or a file name the memory does not hold included (it
/// lowers the excess, as it should), except CJK bigrams ([`is_cjk`]) and
/// numbers the memory holds ([`has_digit`]). A word is held when the text
/// the size counts holds it ([`Counted`]): ROOT's generated lines are not
/// the memory's words. 0 when the index cannot be read: an error never
/// loosens the gate.
pub(crate) fn held_beyond_chance(index: &SearchIndex, prompt: &str) -> f32 {
    let searcher = index.searcher();
    let f = &index.fields;
    let Some(counted) = Counted::of(&searcher, f) else {
        return 0.0;
    };
    let mut words = Vec::new();
    for (t, _) in vocab::words(prompt) {
        if is_cjk(&t) {
            continue;
        }
        let Some(held) = counted.holds(&searcher, f, &t) else {
            return 0.0;
        };
        if held && has_digit(&t) {
            continue;
        }
        let (w, p) = of(&t);
        words.push((held, w, p));
    }
    excess(&words, counted.words) as f32
}

/// A Korean or Japanese bigram: the background is English and cannot
/// say how common one is, and taking each it never saw for a rare word
/// would count every one the memory holds beyond chance. Such words count
/// in neither share.
fn is_cjk(word: &str) -> bool {
    word.chars().any(crate::index::analyzer::is_cjk)
}

/// A number, or a word holding one. The background is chat of 2023: a
/// memory's own years (`2028`) and ids are in its every heading and in
/// none of the background's sessions, so one the memory holds says
/// nothing of the prompt and counts in neither share. One it does not
/// hold (a port, a version the memory never wrote) still counts against
/// the prompt, as any word the memory lacks.
fn has_digit(word: &str) -> bool {
    word.chars().any(|c| c.is_ascii_digit())
}

/// The excess of held weight over chance for `words` (held by the
/// memory, weight, background probability) in a memory of `size` words.
fn excess(words: &[(bool, f64, f64)], size: f64) -> f64 {
    let total: f64 = words.iter().map(|w| w.1).sum();
    if total <= 0.0 {
        return 0.0;
    }
    let held: f64 = words.iter().filter(|w| w.0).map(|w| w.1).sum();
    let chance: f64 = words
        .iter()
        .map(|&(_, w, p)| w * (1.0 - (-size * p).exp()))
        .sum();
    (held - chance) / total
}

/// The text chance is weighed against: the memory's own (raw logs, and
/// the knowledge, plans and other pages beside them), without the
/// summaries that repeat the logs or ROOT's generated lines. Where logs
/// were pruned, their daily (or weekly, or monthly) summaries are what is
/// left of them, so the largest of those levels stands in for the logs
/// when it is larger: a memory of ten years with its logs gone is not a
/// young one. Pages are never summarised, so they count either way.
struct Counted {
    /// The levels' ranks ([`DocLevel::rank`]).
    ranks: Vec<u64>,
    /// Their words: the analyzed length of their sections.
    words: f64,
}

impl Counted {
    /// `None` when the index cannot be read.
    fn of(searcher: &Searcher, f: &Fields) -> Option<Counted> {
        use DocLevel::{Daily, Knowledge, Monthly, Other, Plans, Raw, Weekly};
        let mut ranks = vec![Knowledge.rank(), Plans.rank(), Other.rank(), Raw.rank()];
        let mut words = 0;
        for level in [Knowledge, Plans, Other] {
            words += level_words(searcher, f, level)?;
        }
        let mut logs = (Raw, level_words(searcher, f, Raw)?);
        for level in [Daily, Weekly, Monthly] {
            let n = level_words(searcher, f, level)?;
            if n > logs.1 {
                logs = (level, n);
            }
        }
        if logs.0 != Raw {
            ranks.push(logs.0.rank());
        }
        Some(Counted {
            ranks,
            words: (words + logs.1) as f64,
        })
    }

    /// Whether a live section or window of the counted levels holds
    /// `word` (in its text, its user's lines or its heading).
    fn holds(&self, searcher: &Searcher, f: &Fields, word: &str) -> Option<bool> {
        for field in [f.sbody, f.suser, f.heading] {
            let term = Term::from_field_text(field, word);
            for reader in searcher.segment_readers() {
                let Some(mut docs) = live_docs(reader, &term).ok()? else {
                    continue;
                };
                let rank = reader.fast_fields().u64(name::LEVEL_RANK).ok()?;
                if docs.any(|doc| rank.first(doc).is_some_and(|r| self.ranks.contains(&r))) {
                    return Some(true);
                }
            }
        }
        Some(false)
    }
}

/// The analyzed length of the live sections of one level; `None` when
/// the index cannot be read.
fn level_words(searcher: &Searcher, f: &Fields, level: DocLevel) -> Option<u64> {
    let term = Term::from_field_text(f.level, level.as_str());
    let mut total = 0u64;
    for reader in searcher.segment_readers() {
        let norms = reader.get_fieldnorms_reader(f.sbody).ok()?;
        if let Some(docs) = live_docs(reader, &term).ok()? {
            total += docs.map(|doc| u64::from(norms.fieldnorm(doc))).sum::<u64>();
        }
    }
    Some(total)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_is_read() {
        let (sessions, tokens) = *SIZE;
        assert!(sessions > 1000.0 && tokens > 1e6, "{sessions} {tokens}");
        // A general word is common, a project's word rare, an unseen one
        // weighs most.
        let (work, p_work) = of("work");
        let (bakery, p_bakery) = of("bakeri");
        let (unseen, _) = of("zqxfrobnitz");
        assert!(work < bakery && bakery < unseen, "{work} {bakery} {unseen}");
        assert!(p_work > 10.0 * p_bakery);
    }

    #[test]
    fn every_line_of_the_table_is_found() {
        let body = TABLE.split_once('\n').unwrap().1;
        let mut last = "";
        for line in body.lines() {
            let word = line.split(' ').next().unwrap();
            assert!(last < word, "the table is sorted: {last} {word}");
            assert_eq!(line_of(word), Some(line));
            last = word;
        }
        assert_eq!(line_of(""), None);
        assert_eq!(line_of("zzzzzzzzzz"), None);
        assert_eq!(line_of("0"), body.lines().next());
    }

    #[test]
    fn cjk_bigrams_and_numbers_are_told_apart() {
        assert!(!is_cjk("bakeri") && !is_cjk("2028"));
        assert!(is_cjk("회의") && is_cjk("会議"));
        assert!(has_digit("2028") && has_digit("pg13") && !has_digit("bakeri"));
    }

    #[test]
    fn a_young_memory_holding_the_prompts_rare_words_is_beyond_chance() {
        // Two words: a common one (p 1e-3) and a rare one (p 1e-6), equal
        // weights. A memory of 2,000 words holds the common one by chance
        // with probability 0.86, the rare one 0.002.
        let both = [(true, 1.0, 1e-3), (true, 1.0, 1e-6)];
        let common_only = [(true, 1.0, 1e-3), (false, 1.0, 1e-6)];
        assert!(excess(&both, 2000.0) > 0.5);
        assert!(excess(&common_only, 2000.0).abs() < 0.1);
        // A memory of ten million words holds both by chance.
        assert!(excess(&both, 1e7) < 0.1);
        assert_eq!(excess(&[], 2000.0), 0.0);
    }

    /// Writes `background.txt` from a corpus of `## ` sessions:
    /// `HIPO_BACKGROUND_CORPUS=../shared/data/memaware-sessions cargo test
    /// -p hipo-core --lib background::tests::regenerate -- --ignored`.
    #[test]
    #[ignore]
    fn regenerate() {
        use crate::index::analyzer;
        use std::collections::{BTreeMap, HashSet};
        let Ok(dir) = std::env::var("HIPO_BACKGROUND_CORPUS") else {
            return;
        };
        let mut files: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "md"))
            .collect();
        files.sort();
        let mut counts: BTreeMap<String, (u32, u32)> = BTreeMap::new();
        let (mut sessions, mut tokens) = (0u64, 0u64);
        for file in files {
            let text = std::fs::read_to_string(&file).unwrap();
            for session in text.split("\n## ").skip(1) {
                sessions += 1;
                let mut seen = HashSet::new();
                for t in analyzer::tokens(session) {
                    tokens += 1;
                    let e = counts.entry(t.text.clone()).or_default();
                    e.1 += 1;
                    if seen.insert(t.text) {
                        e.0 += 1;
                    }
                }
            }
        }
        let mut out = format!("sessions {sessions} tokens {tokens}\n");
        for (w, (df, n)) in counts {
            out.push_str(&format!("{w} {df} {n}\n"));
        }
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/src/recall/background.txt");
        std::fs::write(path, out).unwrap();
    }
}
