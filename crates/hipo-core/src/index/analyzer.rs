//! The text analyzer shared by indexing, queries and snippets.
//!
//! English words are lowercased, stop words dropped and Snowball-stemmed, so
//! "migrating" finds "migration". Runs of CJK characters (Hangul, Han, kana)
//! become overlapping character bigrams, as Lucene's `CJKBigramFilter` does:
//! no dictionary to download, and `회의` matches inside `회의에서`, which a
//! whitespace tokenizer (or tantivy's default, which drops runs over 40
//! bytes) cannot do. A lone CJK character is kept as a unigram.
//!
//! Any change to what this module emits must bump [`ANALYZER_VERSION`]: the
//! index records it, and a different version forces a rebuild.

use rustc_hash::FxHashSet;
use std::cell::RefCell;
use tantivy::tokenizer::{TextAnalyzer, Token, TokenStream, Tokenizer};

/// Recorded in the store; a mismatch rebuilds the index.
pub const ANALYZER_VERSION: &str = "hipo-analyzer-2";

/// The name the analyzer is registered under in the tantivy index.
pub const NAME: &str = "hipo";

/// Latin tokens longer than this (base64 blobs, hashes) are not indexed.
const MAX_WORD_BYTES: usize = 40;

/// Words that carry no meaning in a question about one's own memory. A
/// superset of Lucene's English list: pronouns and auxiliaries are what
/// natural-language questions ("what did I say about…") are made of.
/// Sorted, and none longer than 6 bytes (checked first, cheaply).
const STOP_WORDS: &[&str] = &[
    "a", "about", "am", "an", "and", "any", "are", "as", "at", "be", "been", "being", "but", "by",
    "can", "could", "did", "do", "does", "doing", "for", "from", "had", "has", "have", "having",
    "he", "her", "hers", "him", "his", "how", "i", "if", "in", "into", "is", "it", "its", "me",
    "my", "myself", "no", "not", "of", "on", "or", "our", "ours", "she", "should", "so", "such",
    "than", "that", "the", "their", "them", "then", "there", "these", "they", "this", "those",
    "to", "us", "was", "we", "were", "what", "when", "where", "which", "who", "whom", "why",
    "will", "with", "would", "you", "your", "yours",
];

/// The analyzer: words lowercased, stop words dropped, stems; CJK bigrams.
pub fn analyzer() -> TextAnalyzer {
    TextAnalyzer::from(HipoTokenizer::default())
}

/// The analyzer for marking `terms` in a snippet: it emits only the tokens
/// that are one of `terms`, with their offsets. A word is stemmed only if it
/// could stem to a term, so a snippet costs a scan of the text rather than
/// the stemmer and a lookup for every word.
pub fn snippet_analyzer(terms: &[String]) -> TextAnalyzer {
    let prefixes: Vec<String> = terms.iter().map(|t| stem_prefix(t).to_string()).collect();
    let mut first = [false; 256];
    for p in &prefixes {
        match p.as_bytes().first() {
            Some(&b) => first[usize::from(b)] = true,
            None => first = [true; 256],
        }
    }
    // A number word ("six") is emitted as its digits.
    let numbers = terms
        .iter()
        .any(|t| !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit()));
    TextAnalyzer::from(HipoTokenizer {
        only: Some(std::sync::Arc::new(Only {
            prefixes,
            first,
            numbers,
            terms: terms.to_vec(),
        })),
    })
}

/// Restricts a token stream to some terms.
#[derive(Debug)]
struct Only {
    /// [`stem_prefix`] of each term: what a word must start with.
    prefixes: Vec<String>,
    /// The prefixes' first bytes: most words of a window (which a snippet
    /// reads whole) start with none, and are dropped at one look.
    first: [bool; 256],
    /// A term is a number, which a number word is emitted as.
    numbers: bool,
    terms: Vec<String>,
}

/// What every word stemming to `stem` starts with. Porter2 rewrites at
/// most the last two letters of what it keeps (`sensibility` → `sensibl`
/// via `sensible`) and, in three exceptions (`dying` → `die`), all but the
/// first; so a word not starting with this cannot stem to `stem`.
fn stem_prefix(stem: &str) -> &str {
    let n = stem.chars().count();
    let keep = n.saturating_sub(2).max(1);
    let end = stem.char_indices().nth(keep).map_or(stem.len(), |(i, _)| i);
    &stem[..end]
}

/// Words seen by this thread: their stem, or `None` for a stop word.
/// Snowball costs ~0.4 µs a word and a memory's vocabulary is small (Zipf),
/// so nearly every word is one hash lookup.
const STEM_CACHE_MAX: usize = 200_000;

type StemCache = std::collections::HashMap<Box<str>, Option<Box<str>>, rustc_hash::FxBuildHasher>;

thread_local! {
    static STEMS: RefCell<StemCache> =
        const { RefCell::new(std::collections::HashMap::with_hasher(rustc_hash::FxBuildHasher)) };
}

/// Appends the English stem of `word` (lowercase) to `out`; false (and
/// nothing appended) for a stop word.
fn stem_into(word: &str, out: &mut String) -> bool {
    // Porter2 leaves words of two letters or fewer, and numbers, as they are.
    if word.len() <= 2 || word.bytes().all(|b| b.is_ascii_digit()) {
        if is_stop_word(word) {
            return false;
        }
        out.push_str(word);
        return true;
    }
    STEMS.with_borrow_mut(|cache| {
        if let Some(stem) = cache.get(word) {
            return match stem {
                Some(s) => {
                    out.push_str(s);
                    true
                }
                None => false,
            };
        }
        let stem = (!is_stop_word(word))
            .then(|| frostem::Stemmer::new(frostem::Algorithm::English).stem(word));
        if let Some(s) = &stem {
            out.push_str(s);
        }
        if cache.len() >= STEM_CACHE_MAX {
            cache.clear();
        }
        let found = stem.is_some();
        cache.insert(word.into(), stem.map(Into::into));
        found
    })
}

static STOP_SET: std::sync::LazyLock<FxHashSet<&'static str>> =
    std::sync::LazyLock::new(|| STOP_WORDS.iter().copied().collect());

fn is_stop_word(word: &str) -> bool {
    word.len() <= 6 && STOP_SET.contains(word)
}

/// The analyzed tokens of `text`, in order, with byte offsets and positions.
pub fn tokens(text: &str) -> Vec<Token> {
    let mut analyzer = analyzer();
    let mut stream = analyzer.token_stream(text);
    let mut out = Vec::new();
    while let Some(t) = stream.next() {
        out.push(t.clone());
    }
    out
}

/// True for characters indexed as bigrams: Hangul, CJK ideographs, kana.
pub fn is_cjk(c: char) -> bool {
    matches!(c as u32,
        0x1100..=0x11FF      // Hangul Jamo
        | 0x3040..=0x30FF    // Hiragana, Katakana
        | 0x3130..=0x318F    // Hangul compatibility Jamo
        | 0x31F0..=0x31FF    // Katakana phonetic extensions
        | 0x3400..=0x4DBF    // CJK extension A
        | 0x4E00..=0x9FFF    // CJK unified ideographs
        | 0xA960..=0xA97F    // Hangul Jamo extended A
        | 0xAC00..=0xD7AF    // Hangul syllables
        | 0xD7B0..=0xD7FF    // Hangul Jamo extended B
        | 0xF900..=0xFAFF    // CJK compatibility ideographs
        | 0xFF66..=0xFF9F    // halfwidth Katakana
        | 0x20000..=0x3134F // CJK extensions B–G
    )
}

/// The end of an acronym written with dots (`D.C.`, `u.s.a.`) starting at
/// `start`: two or more single ASCII letters, each followed by a dot.
fn acronym_end(bytes: &[u8], start: usize) -> Option<usize> {
    let mut at = start;
    let mut letters = 0;
    while bytes.get(at).is_some_and(u8::is_ascii_alphabetic) && bytes.get(at + 1) == Some(&b'.') {
        // The letter must stand alone: `e.g.` yes, `etc.` no.
        if at > start && bytes[at - 1] != b'.' {
            return None;
        }
        letters += 1;
        at += 2;
    }
    let ends_word = !bytes.get(at).is_some_and(u8::is_ascii_alphanumeric);
    (letters >= 2 && ends_word && (start == 0 || !bytes[start - 1].is_ascii_alphanumeric()))
        .then_some(at)
}

/// Small numbers written as words are indexed as digits, so "six weeks"
/// finds "6 weeks" and the other way round.
fn number_word(word: &str) -> Option<&'static str> {
    Some(match word {
        "zero" => "0",
        "one" => "1",
        "two" => "2",
        "three" => "3",
        "four" => "4",
        "five" => "5",
        "six" => "6",
        "seven" => "7",
        "eight" => "8",
        "nine" => "9",
        "ten" => "10",
        "eleven" => "11",
        "twelve" => "12",
        "fifteen" => "15",
        "twenty" => "20",
        "thirty" => "30",
        "fifty" => "50",
        "hundred" => "100",
        _ => return None,
    })
}

/// Splits text into stemmed lowercase words and CJK bigrams.
#[derive(Clone, Default)]
pub struct HipoTokenizer {
    /// When set, only these terms are emitted.
    only: Option<std::sync::Arc<Only>>,
}

impl Tokenizer for HipoTokenizer {
    type TokenStream<'a> = HipoTokenStream<'a>;

    fn token_stream<'a>(&'a mut self, text: &'a str) -> HipoTokenStream<'a> {
        HipoTokenStream {
            text,
            pos: 0,
            token: Token::default(),
            cjk_prev: None,
            word: String::new(),
            only: self.only.as_deref(),
        }
    }
}

/// The stream behind [`HipoTokenizer`].
pub struct HipoTokenStream<'a> {
    text: &'a str,
    /// Byte offset of the next character to look at.
    pos: usize,
    token: Token,
    /// Inside a CJK run: the previous character and its offset, so the
    /// next bigram starts there.
    cjk_prev: Option<(usize, char)>,
    /// Scratch: the lowercased word before stemming.
    word: String,
    only: Option<&'a Only>,
}

impl HipoTokenStream<'_> {
    /// A CJK token: the characters as they are (lowercasing is a no-op).
    fn emit(&mut self, from: usize, to: usize) {
        self.token.offset_from = from;
        self.token.offset_to = to;
        self.token.position = self.token.position.wrapping_add(1);
        self.token.text.clear();
        self.token.text.push_str(&self.text[from..to]);
    }

    /// Continues a CJK run: the bigram (previous, next) if the run goes on.
    fn next_bigram(&mut self, prev_at: usize) -> bool {
        let rest = &self.text[self.pos..];
        match rest.chars().next() {
            Some(c) if is_cjk(c) => {
                let end = self.pos + c.len_utf8();
                self.cjk_prev = Some((self.pos, c));
                self.pos = end;
                self.emit(prev_at, end);
                true
            }
            _ => {
                self.cjk_prev = None;
                false
            }
        }
    }

    /// Puts the lowercased stem of `text[start..end]` in the token; false
    /// for a stop word.
    fn word(&mut self, start: usize, end: usize, has_apostrophe: bool) -> bool {
        let s = &self.text[start..end];
        // Restricted to a few terms, none of them a number: a word whose
        // first letter (ASCII, so lowercased alone) starts no prefix is
        // dropped before it is copied.
        if let Some(only) = self.only
            && !only.numbers
            && let Some(&b) = s.as_bytes().first()
            && b.is_ascii()
            && !only.first[usize::from(b.to_ascii_lowercase())]
        {
            return false;
        }
        self.word.clear();
        if s.is_ascii() {
            self.word.push_str(s);
            self.word.make_ascii_lowercase();
        } else {
            self.word.extend(s.chars().flat_map(char::to_lowercase));
        }
        if has_apostrophe {
            self.word.retain(|c| !matches!(c, '\'' | '’'));
        }
        self.token.text.clear();
        if let Some(n) = number_word(&self.word) {
            self.token.text.push_str(n);
            return true;
        }
        if let Some(only) = self.only
            && !only.prefixes.iter().any(|p| self.word.starts_with(p))
        {
            return false;
        }
        stem_into(&self.word, &mut self.token.text)
    }

    /// Scans one word starting at `start`; returns its end. A possessive
    /// `'s` ends the word; other apostrophes between letters are dropped
    /// from the token by the caller. ASCII is scanned a byte at a time.
    fn word_end(&self, start: usize) -> (usize, bool) {
        let bytes = self.text.as_bytes();
        let mut at = start;
        let mut has_apostrophe = false;
        while at < bytes.len() {
            let b = bytes[at];
            if b.is_ascii_alphanumeric() {
                at += 1;
                continue;
            }
            let Some(c) = self.text[at..].chars().next() else {
                break;
            };
            if b >= 0x80 && c.is_alphanumeric() && !is_cjk(c) {
                at += c.len_utf8();
                continue;
            }
            if !matches!(c, '\'' | '’') {
                break;
            }
            // An apostrophe inside a word: `'s` at the end is possessive
            // (the word ends before it), anything else joins the word.
            let rest = &self.text[at + c.len_utf8()..];
            let mut next = rest.chars();
            match next.next() {
                Some(n) if n.is_alphanumeric() && !is_cjk(n) => {
                    let after = next.next();
                    if matches!(n, 's' | 'S') && !after.is_some_and(char::is_alphanumeric) {
                        break;
                    }
                    has_apostrophe = true;
                    at += c.len_utf8();
                }
                _ => break,
            }
        }
        (at, has_apostrophe)
    }
}

impl TokenStream for HipoTokenStream<'_> {
    fn advance(&mut self) -> bool {
        while self.next_token() {
            match self.only {
                Some(only) if !only.terms.contains(&self.token.text) => continue,
                _ => return true,
            }
        }
        false
    }

    fn token(&self) -> &Token {
        &self.token
    }

    fn token_mut(&mut self) -> &mut Token {
        &mut self.token
    }
}

impl HipoTokenStream<'_> {
    /// The next token, before any [`Only`] restriction.
    fn next_token(&mut self) -> bool {
        if let Some((prev_at, _)) = self.cjk_prev
            && self.next_bigram(prev_at)
        {
            return true;
        }
        let bytes = self.text.as_bytes();
        while self.pos < bytes.len() {
            let start = self.pos;
            let b = bytes[start];
            if b < 0x80 && !b.is_ascii_alphanumeric() {
                self.pos += 1;
                continue;
            }
            let Some(c) = self.text[start..].chars().next() else {
                break;
            };
            if is_cjk(c) {
                self.pos += c.len_utf8();
                // A run of one character is a unigram; longer runs are bigrams.
                if self.next_bigram(start) {
                    return true;
                }
                self.emit(start, self.pos);
                return true;
            }
            if let Some(end) = acronym_end(bytes, start) {
                // `D.C.`, `U.S.A.`: one token of the letters, as `dc` is typed.
                self.pos = end;
                self.token.position = self.token.position.wrapping_add(1);
                self.token.text.clear();
                self.token.text.extend(
                    self.text[start..end]
                        .chars()
                        .filter(char::is_ascii_alphabetic)
                        .map(|c| c.to_ascii_lowercase()),
                );
                self.token.offset_from = start;
                self.token.offset_to = end;
                return true;
            }
            if c.is_alphanumeric() {
                let (end, has_apostrophe) = self.word_end(start);
                self.pos = end;
                // Skip a possessive `'s` after the word.
                if self.text[end..].starts_with("'s") || self.text[end..].starts_with("’s") {
                    self.pos = end
                        + self.text[end..]
                            .chars()
                            .take(2)
                            .map(char::len_utf8)
                            .sum::<usize>();
                }
                // Every word takes a position, even one not indexed, so
                // phrases match only words that were really adjacent.
                self.token.position = self.token.position.wrapping_add(1);
                if end - start > MAX_WORD_BYTES || !self.word(start, end, has_apostrophe) {
                    continue;
                }
                self.token.offset_from = start;
                self.token.offset_to = end;
                return true;
            }
            self.pos += c.len_utf8();
        }
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(s: &str) -> Vec<String> {
        tokens(s).into_iter().map(|t| t.text).collect()
    }

    #[test]
    fn english_is_stemmed_without_stop_words() {
        assert_eq!(
            texts("What did I say about Migrating the Postgres databases?"),
            vec!["say", "migrat", "postgr", "databas"]
        );
        assert_eq!(texts("the user's car, don't"), vec!["user", "car", "dont"]);
    }

    #[test]
    fn korean_is_bigrams_and_matches_inside_words() {
        assert_eq!(texts("회의에서"), vec!["회의", "의에", "에서"]);
        assert_eq!(texts("회의"), vec!["회의"]);
        assert_eq!(texts("배 포"), vec!["배", "포"]);
        // Mixed scripts split at the boundary.
        assert_eq!(texts("Postgres16으로"), vec!["postgres16", "으로"]);
    }

    #[test]
    fn japanese_and_chinese_runs_are_bigrams() {
        assert_eq!(texts("東京タワー"), vec!["東京", "京タ", "タワ", "ワー"]);
        assert_eq!(texts("数据库"), vec!["数据", "据库"]);
    }

    #[test]
    fn offsets_and_positions_are_exact() {
        let t = tokens("go 회의에서 now");
        let spans: Vec<_> = t
            .iter()
            .map(|t| (t.offset_from, t.offset_to, t.position))
            .collect();
        assert_eq!(
            spans,
            vec![(0, 2, 0), (3, 9, 1), (6, 12, 2), (9, 15, 3), (16, 19, 4)]
        );
    }

    /// The first-letter shortcut keeps number words ("six" is `6`) and
    /// capitalised words.
    #[test]
    fn snippet_analyzer_finds_number_words_and_capitals() {
        let emitted = |terms: &[&str], text: &str| {
            let terms: Vec<String> = terms.iter().map(|t| t.to_string()).collect();
            let mut a = snippet_analyzer(&terms);
            let mut stream = a.token_stream(text);
            std::iter::from_fn(|| stream.next().map(|t| t.text.clone())).collect::<Vec<_>>()
        };
        assert_eq!(emitted(&["6", "week"], "Six Weeks later"), ["6", "week"]);
        assert_eq!(emitted(&["week"], "Six Weeks later"), ["week"]);
        assert_eq!(
            emitted(&["kayak"], "KAYAK trip, kayaks"),
            ["kayak", "kayak"]
        );
    }

    #[test]
    fn snippet_analyzer_emits_only_the_terms() {
        let text = "Migrating the databases, happily; skies and dying ponies 회의에서";
        let all = tokens(text);
        let terms = vec!["databas".to_string(), "die".to_string(), "의에".to_string()];
        let mut a = snippet_analyzer(&terms);
        let mut stream = a.token_stream(text);
        let mut got = Vec::new();
        while let Some(t) = stream.next() {
            got.push(t.clone());
        }
        let want: Vec<Token> = all
            .into_iter()
            .filter(|t| terms.contains(&t.text))
            .collect();
        assert_eq!(got, want);
        assert_eq!(got.len(), 3);
    }

    #[test]
    fn every_word_starts_with_its_stems_prefix() {
        let fixture = concat!(env!("CARGO_MANIFEST_DIR"), "/../../fixtures/sample");
        let mut text = String::from(
            "dying lying tying skies skis idly gently ugly early only singly news \
             sensibility probabilities relational realization hopefulness hoping \
             conflated happily ponies cries agreed feed bleed generously \
             electricity formalize rationalization predictability",
        );
        for dir in ["memory", "knowledge", "plans"] {
            for e in std::fs::read_dir(format!("{fixture}/{dir}"))
                .unwrap()
                .flatten()
            {
                text.push_str(&std::fs::read_to_string(e.path()).unwrap_or_default());
            }
        }
        for word in text
            .split(|c: char| !c.is_alphabetic())
            .filter(|w| w.len() > 2)
        {
            let word = word.to_lowercase();
            let stem = frostem::Stemmer::new(frostem::Algorithm::English).stem(&word);
            assert!(
                word.starts_with(stem_prefix(&stem)),
                "{word} → {stem}: no prefix {}",
                stem_prefix(&stem)
            );
        }
    }

    #[test]
    fn stop_words_are_sorted_and_short() {
        assert!(STOP_WORDS.windows(2).all(|w| w[0] < w[1]));
        assert!(STOP_WORDS.iter().all(|w| w.len() <= 6));
    }

    #[test]
    fn acronyms_and_number_words() {
        assert_eq!(
            texts("to Washington D.C. in six weeks"),
            vec!["washington", "dc", "6", "week"]
        );
        assert_eq!(texts("the U.S.A. vs the UK"), vec!["usa", "vs", "uk"]);
        // Not acronyms: a sentence end, an abbreviation, a version.
        assert_eq!(
            texts("Plan A. Then etc. v1.2.3"),
            vec!["plan", "etc", "v1", "2", "3"]
        );
    }

    #[test]
    fn long_blobs_are_skipped() {
        let blob = "a".repeat(60);
        assert_eq!(texts(&format!("x {blob} y")), vec!["x", "y"]);
    }
}
