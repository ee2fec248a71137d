//! Which rules a text needs. One Aho-Corasick pass over every rule's
//! anchors (literals such as `AKIA`, `://`, `token`) says which rules can
//! match a short text, and a rule's regex is compiled the first time a
//! text needs it: a one-entry `hipo checkpoint` compiles the few rules its
//! words call for, not all of them (issue 29). Long texts go through one
//! `RegexSet` instead (see [`SET_FROM`]).

use super::rule::Rule;
use super::rules::PATTERNS;
use super::said;
use aho_corasick::{AhoCorasick, AhoCorasickBuilder, AhoCorasickKind, MatchKind};
use regex::{Regex, RegexSet};
use std::sync::{LazyLock, OnceLock};

/// The prefilter over every rule's anchors, and each regex rule compiled
/// on first use.
pub(super) struct Rules {
    /// All anchors; `None` if it failed to build (then every rule runs).
    pub(super) anchors: Option<AhoCorasick>,
    /// Anchor number → rule number (regex rules, then [`said::Part`]s).
    owner: Vec<usize>,
    pub(super) each: Vec<OnceLock<Option<Regex>>>,
}

/// Texts this long are matched against all the regex rules at once, by
/// a `RegexSet` built on first use: on long texts (a day's log, an index
/// build) one pass of the set is five times faster than the rules one by
/// one, and its build is paid once for megabytes.
const SET_FROM: usize = 32 * 1024;

static SET: LazyLock<Option<RegexSet>> =
    LazyLock::new(|| RegexSet::new(PATTERNS.iter().map(|r| r.0)).ok());

/// How many rules the prefilter chooses among.
pub(super) const RULE_COUNT: usize = PATTERNS.len() + said::PARTS.len();

pub(super) static RULES: LazyLock<Rules> = LazyLock::new(|| {
    let (anchors, owner) = build_anchors();
    Rules {
        anchors,
        owner,
        each: PATTERNS.iter().map(|_| OnceLock::new()).collect(),
    }
});

pub(super) fn build_anchors() -> (Option<AhoCorasick>, Vec<usize>) {
    let mut words = Vec::new();
    let mut owner = Vec::new();
    let lists = PATTERNS
        .iter()
        .map(|r| r.3)
        .chain(said::PARTS.iter().map(|p| p.anchors()));
    for (rule, list) in lists.enumerate() {
        for w in list {
            // The automaton folds ASCII case only: a word in another
            // script is also looked for in capitals and capitalised.
            let mut forms = vec![w.to_string()];
            if !w.is_ascii() {
                let mut chars = w.chars();
                let first: String = chars
                    .next()
                    .into_iter()
                    .flat_map(char::to_uppercase)
                    .collect();
                forms.push(first + chars.as_str());
                forms.push(w.to_uppercase());
                forms.dedup();
            }
            for form in forms {
                words.push(form);
                owner.push(rule);
            }
        }
    }
    let ac = AhoCorasickBuilder::new()
        .ascii_case_insensitive(true)
        .match_kind(MatchKind::Standard)
        .kind(Some(AhoCorasickKind::ContiguousNFA))
        .build(&words)
        .ok();
    (ac, owner)
}

impl Rules {
    pub(super) fn regex(&self, i: usize) -> Option<(&Regex, &'static Rule)> {
        let rule = PATTERNS.get(i)?;
        let re = self.each.get(i)?.get_or_init(|| Regex::new(rule.0).ok());
        re.as_ref().map(|r| (r, rule))
    }

    /// Which rules `text` may need: those with an anchor in it, or, for
    /// a long text, the regex rules the set finds and every part of the
    /// scanner.
    pub(super) fn candidates(&self, text: &str) -> [bool; RULE_COUNT] {
        // The length first: `SET` is built the first time it is touched,
        // and building it for a short text cost every process's first
        // redaction 4.5 ms (a `hipo checkpoint`, a recall showing a
        // section that holds a secret).
        if text.len() >= SET_FROM
            && let Some(set) = SET.as_ref()
        {
            let mut need = [true; RULE_COUNT];
            need[..PATTERNS.len()].fill(false);
            if set.is_match(text) {
                for i in set.matches(text).iter() {
                    need[i] = true;
                }
            }
            return need;
        }
        let Some(ac) = &self.anchors else {
            return [true; RULE_COUNT];
        };
        let mut need = [false; RULE_COUNT];
        for m in ac.find_overlapping_iter(text) {
            if let Some(&rule) = self.owner.get(m.pattern().as_usize()) {
                need[rule] = true;
            }
        }
        need
    }
}
