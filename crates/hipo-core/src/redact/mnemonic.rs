//! Wallet seed phrases: twelve or more words of the BIP-39 English list
//! in a row ("bronze august alien battle brass chuckle abandon cotton
//! cereal bounce bunker arena"). Whoever holds them holds the wallet.
//!
//! They are known by their words alone, with no word before them: said
//! in any language ("钱包助记词：…", "frase semilla: …"), or with none
//! ("write this down somewhere safe: …"). The list leaves out the words
//! prose cannot do without (`the`, `a`, `and`, `of`, `to`, `is`, `in`,
//! `we`, `it`), so twelve of its words in a row, lowercase and one space
//! apart, are a seed phrase and not a sentence: none of MemAware's 16 MB
//! of chats holds such a run.
//!
//! The list is BIP-39's English word list (bitcoin/bips,
//! `bip-0039/english.txt`, MIT License), 2,048 words in sorted order.

use std::ops::Range;
use std::sync::LazyLock;

/// The fewest words a seed phrase has (BIP-39 allows 12 to 24).
const MIN_WORDS: usize = 12;

/// The shortest line that holds [`MIN_WORDS`] words of three letters.
const MIN_LINE: usize = MIN_WORDS * 4 - 1;

static WORDS: LazyLock<Vec<&'static str>> =
    LazyLock::new(|| include_str!("bip39_english.txt").lines().collect());

/// True if `w` is a word of the list.
fn listed(w: &str) -> bool {
    (3..=8).contains(&w.len())
        && w.bytes().all(|b| b.is_ascii_lowercase())
        && WORDS.binary_search(&w).is_ok()
}

/// The byte ranges of `text` that are seed phrases: runs of at least
/// [`MIN_WORDS`] listed words, each one space from the next, on one line.
/// A run's quotes and closing punctuation stay outside the range.
pub(super) fn find(text: &str) -> Vec<Range<usize>> {
    let mut found = Vec::new();
    let mut line_start = 0;
    for line in text.split('\n') {
        if !may_hold_line(line) {
            line_start += line.len() + 1;
            continue;
        }
        let mut run: Option<Run> = None;
        let mut at = line_start;
        for token in line.split(' ') {
            let start = at;
            at += token.len() + 1;
            // A list's numbers ("1. kid 2. usage", "1.kid 2.usage") are
            // read past, as the card a seed is written on numbers it.
            if numbering(token.as_bytes()) {
                continue;
            }
            let numbered =
                token.len() - token.trim_start_matches(|c: char| c.is_ascii_digit()).len();
            let (token, start) = match token.as_bytes().get(numbered) {
                Some(b'.' | b')') if (1..=2).contains(&numbered) => {
                    (&token[numbered + 1..], start + numbered + 1)
                }
                _ => (token, start),
            };
            // What comes before a word in its token (`MNEMONIC="`, a
            // quote) and closes it after (a quote, a sentence's end).
            let body = token.trim_end_matches(CLOSING);
            let lead = body
                .char_indices()
                .rev()
                .find(|(_, c)| !c.is_ascii_lowercase())
                .map_or(0, |(i, c)| i + c.len_utf8());
            let word_and_tail = &token[lead..];
            let word = &body[lead..];
            if !listed(word) {
                close(&mut run, &mut found);
                continue;
            }
            let (s, e) = (start + lead, start + lead + word.len());
            match &mut run {
                Some(r) if lead == 0 => {
                    r.end = e;
                    r.words.push(word);
                }
                _ => {
                    close(&mut run, &mut found);
                    run = Some(Run {
                        start: s,
                        end: e,
                        words: vec![word],
                    });
                }
            }
            // Punctuation after a word ends the run: a seed phrase is
            // written without it, and a list of words with commas is not one.
            if word.len() < word_and_tail.len() {
                close(&mut run, &mut found);
            }
        }
        close(&mut run, &mut found);
        line_start += line.len() + 1;
    }
    found
}

/// What may close its last word (a quote, a sentence's end).
const CLOSING: &[char] = &[
    '.', ',', ';', ':', '!', '?', '"', '\'', ')', ']', '`', '”', '\r',
];

/// True if some line of `text` may hold a seed phrase: what a text with
/// none, nearly every one, pays.
pub(super) fn may_hold(text: &str) -> bool {
    text.split('\n').any(may_hold_line)
}

/// Twelve words of three letters or more and the spaces between them
/// take 47 bytes: shorter lines are passed over at `memchr`'s speed.
fn may_hold_line(line: &str) -> bool {
    line.len() >= MIN_LINE && may_hold_any(line.as_bytes())
}

/// True if `text` has a line of [`MIN_WORDS`] tokens in a row, one space
/// apart, each ending in three to eight small letters (closing
/// punctuation aside; a list's number, `1.`, read past): the only lines
/// [`find`] must read word by word. One pass over the bytes, with no
/// allocation; prose breaks such a run within a few words (`a`, `is`,
/// `to`, a capital, a number).
fn may_hold_any(text: &[u8]) -> bool {
    let mut run = 0;
    // Small letters at the end of the token so far, not counting the
    // closing punctuation after them.
    let mut letters = 0;
    let mut closed = false;
    // Whether the token so far is a list's number (`1.`, `12)`), which
    // neither counts nor breaks the run: its digits, then its sign.
    let (mut digits, mut numbering, mut other) = (0, false, false);
    for &b in text {
        match b {
            b'a'..=b'z' => {
                if closed {
                    letters = 0;
                    closed = false;
                }
                letters += 1;
                other = true;
            }
            b' ' | b'\n' => {
                if numbering && !other && b == b' ' && (1..=2).contains(&digits) {
                    (digits, numbering) = (0, false);
                    continue;
                }
                run = if (3..=8).contains(&letters) {
                    run + 1
                } else {
                    0
                };
                if run >= MIN_WORDS {
                    return true;
                }
                if b == b'\n' {
                    run = 0;
                }
                (letters, closed, digits, numbering, other) = (0, false, 0, false, false);
            }
            b'0'..=b'9' => {
                letters = 0;
                closed = false;
                if numbering {
                    other = true;
                }
                digits += 1;
            }
            b'A'..=b'Z' => {
                letters = 0;
                closed = false;
                other = true;
            }
            b'.' | b')' if digits > 0 && !other && !numbering => {
                numbering = true;
                closed = true;
            }
            _ => {
                closed = true;
                if numbering {
                    other = true;
                }
            }
        }
    }
    run + usize::from((3..=8).contains(&letters)) >= MIN_WORDS
}

/// True if `token` is a list's number: `1.`, `12)`.
fn numbering(token: &[u8]) -> bool {
    let digits = token.iter().take_while(|b| b.is_ascii_digit()).count();
    (1..=2).contains(&digits) && token.len() == digits + 1 && matches!(token[digits], b'.' | b')')
}

/// The listed words being read, and where they are.
struct Run<'a> {
    start: usize,
    end: usize,
    words: Vec<&'a str>,
}

/// Ends the run, keeping it when it is a seed phrase: long enough, and
/// of words drawn at random, nearly all different. A placeholder repeats
/// one word (Hardhat's "test test … junk", BIP-39's "abandon abandon …
/// about" test vector).
fn close(run: &mut Option<Run>, found: &mut Vec<Range<usize>>) {
    let Some(mut r) = run.take() else { return };
    let n = r.words.len();
    r.words.sort_unstable();
    r.words.dedup();
    if n >= MIN_WORDS && r.words.len() * 4 >= n * 3 {
        found.push(r.start..r.end);
    }
}

#[cfg(test)]
mod tests {
    use super::find;

    #[test]
    fn twelve_listed_words_in_a_row_are_a_seed_phrase() {
        let seed =
            "bronze august alien battle brass chuckle abandon cotton cereal bounce bunker arena";
        let line = format!("- 10:21 MetaMask for the faucet: {seed}");
        let found = find(&line);
        assert_eq!(found.len(), 1);
        assert_eq!(&line[found[0].clone()], seed);
        let quoted = format!("MNEMONIC=\"{seed}\"\nnext line");
        assert_eq!(&quoted[find(&quoted)[0].clone()], seed);
        let ended = format!("the seed you dictated: {seed}.");
        assert_eq!(&ended[find(&ended)[0].clone()], seed);
    }

    #[test]
    fn a_numbered_seed_phrase_is_one() {
        for line in [
            "- seed: 1.kid 2.usage 3.adapt 4.stock 5.bitter 6.armed 7.bubble 8.regular 9.figure 10.flight 11.eight 12.trend",
            "1. kid 2. usage 3. adapt 4. stock 5. bitter 6. armed 7. bubble 8. regular 9. figure 10. flight 11. eight 12. trend",
        ] {
            let found = find(line);
            assert_eq!(found.len(), 1, "{line}");
            assert!(line[found[0].clone()].starts_with("kid"));
            assert!(line[found[0].clone()].ends_with("trend"));
        }
    }

    #[test]
    fn prose_and_short_runs_are_not() {
        for text in [
            "we bought apple banana cherry grape lemon mango orange pear and more",
            "apple, banana, cherry, grape, lemon, mango, orange, pear, pepper, potato, rice, salad",
            "bronze august alien battle brass chuckle abandon cotton cereal bounce bunker",
            "bronze august alien battle brass chuckle\nabandon cotton cereal bounce bunker arena",
            "Bronze August Alien Battle Brass Chuckle Abandon Cotton Cereal Bounce Bunker Arena",
            "MNEMONIC=\"test test test test test test test test test test test junk\"",
        ] {
            assert!(find(text).is_empty(), "{text}");
        }
    }
}
