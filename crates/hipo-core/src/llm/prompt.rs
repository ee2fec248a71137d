//! What hipo asks a local model, and what it accepts back.
//!
//! Pure: builds prompts, splits inputs that exceed the context window into
//! chunks (never truncating), and checks that an answer is a plausible
//! summary. The prompt is versioned: [`PROMPT_VERSION`] is part of every
//! cache key and is recorded in each summary's frontmatter.

use super::sections::REQUIRED_SECTIONS;
use super::structured::Mode;
use crate::layout::{Level, NodeId};
use crate::summarize::{RootContext, SourceText};

/// Bump whenever the wording or rules change. `hipo-v2`: answers as JSON
/// (hipo renders the sections), the text form only as a fallback.
/// `hipo-v3`: write in the sources' language; a refused answer is asked
/// again once with what was wrong.
pub const PROMPT_VERSION: &str = "hipo-v3";

/// How the line that says why a previous answer was refused begins (the
/// grounding check does not count it as instructions to echo).
pub const RETRY_NOTE: &str = "Your previous answer was refused:";

/// ROOT's narrative's material as the model reads it: the day, then each
/// summary under a `===== path =====` header (the headers the merges cut
/// it at).
pub fn root_context(c: &RootContext) -> String {
    let mut out = format!("Today is {}.\n", c.today);
    for s in &c.summaries {
        out.push_str(&format!("\n===== {} =====\n{}\n", s.path, s.body));
    }
    out
}

/// Shortest answer accepted as a summary, in bytes.
pub const MIN_SUMMARY_BYTES: usize = 120;

/// The longest answer asked for (`num_predict`): a quarter of the
/// context, at least 256 and at most 2048 tokens.
pub fn answer_tokens(num_ctx: usize) -> usize {
    (num_ctx / 4).clamp(256, 2048)
}

/// Tokens kept free beside the input: the answer, and the instructions
/// (the longest system prompt is about 500 tokens) with a margin.
fn reserved(num_ctx: usize) -> usize {
    answer_tokens(num_ctx) + 900
}

/// A conservative token count for what goes to a model: a quarter token
/// for each ASCII letter or space, half a token for each digit or other
/// ASCII symbol (code and stack traces tokenize densely), and a token for
/// each UTF-8 byte of any other character (a Hangul syllable or a kanji is
/// up to 3 tokens for a byte-level tokenizer, and SmolLM2's was measured at
/// 1.8–2.7).
pub fn tokens(text: &str) -> usize {
    let quarters: usize = text.chars().map(quarter_tokens).sum();
    quarters.div_ceil(4)
}

/// A character's cost in quarter tokens.
fn quarter_tokens(c: char) -> usize {
    if c.is_ascii_alphabetic() || c == ' ' {
        1
    } else if c.is_ascii() {
        2
    } else {
        4 * c.len_utf8()
    }
}

/// The context a prompt must fit: `num_ctx`, and the model's measured
/// tokens per estimated token (1 until a cut or a count says more).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Budget {
    pub num_ctx: usize,
    pub ratio: f64,
}

impl Budget {
    /// `num_ctx` with no correction.
    #[cfg(test)]
    pub fn new(num_ctx: usize) -> Budget {
        Budget {
            num_ctx,
            ratio: 1.0,
        }
    }

    /// What `text` costs in this model's tokens, by the estimate.
    pub fn cost(&self, text: &str) -> usize {
        self.scale(tokens(text))
    }

    fn scale(&self, estimate: usize) -> usize {
        (estimate as f64 * self.ratio.max(1.0)).ceil() as usize
    }

    /// True when input estimated at `tokens` fits next to the instructions
    /// and the answer.
    pub fn fits(&self, tokens: usize) -> bool {
        self.scale(tokens) + reserved(self.num_ctx) <= self.num_ctx
    }
}

const COMMON_RULES: &str = "\
You maintain the long-term memory of an AI agent as Markdown compaction nodes (the hipocampus format). \
Write a keyword-dense summary that a search engine and a future agent can use to find and recall facts. \
Write only facts found in the sources, never these instructions.
Rules:
- Entries are tagged in their headings: [user], [feedback], [project], [reference]; untagged means [project].
- [user] entries: keep the core content whole (facts about the user, their preferences, people, numbers, dates). Never reduce them to history.
- [feedback] entries: keep rule, why and how-to-apply whole, as `- rule: … / why: … / how-to-apply: …`.
- [project] entries: compress completed work to one line each (what, outcome, key numbers); keep open work in Open Items.
- [reference] entries: keep the pointer (URL or path) and one line on what it is.
- Replace code blocks with a file reference (path:lines) and a stack trace with one line naming the error.
- Drop entries marked temporary, test run or delete later.
- Never reproduce API keys, tokens, passwords or other credentials: write [REDACTED].
- Prefer concrete nouns, names, numbers and dates over adjectives; say each fact once.
- Write in the language of the sources; keep names, numbers and dates exactly as written.";

const TEXT_OUTPUT: &str = "\
- Output only the Markdown body, with exactly these sections in this order: ## Topics, ## Key Decisions, ## Tasks Completed, ## Lessons Learned, ## Open Items. Write `- none` under an empty section.
- Under ## Topics list `- keyword [type]: sub-keywords` lines.";

const JSON_OUTPUT: &str = "\
- Answer with one JSON object: `topics` (one object per subject: `keyword`, a few words; `type`: user, feedback, project or reference; `details`: sub-keywords), then `key_decisions`, `tasks_completed`, `lessons_learned` and `open_items`, each a list of short strings, one fact each (an empty list when there is none).";

fn level_rules(level: Level) -> &'static str {
    match level {
        Level::Daily => "This is a DAILY node: summarise one day's raw log.",
        Level::Weekly => {
            "This is a WEEKLY node: merge the daily nodes of one ISO week; keep every user and feedback item, merge repeated project threads."
        }
        Level::Monthly => {
            "This is a MONTHLY node: merge the weekly nodes of one month into a high-level overview; keep every user and feedback item."
        }
        Level::Root => "This is the ROOT node.",
    }
}

/// The system prompt for a level, asking for an answer in `mode`.
pub fn system(level: Level, mode: Mode) -> String {
    let output = match mode {
        Mode::Structured => JSON_OUTPUT,
        Mode::Text => TEXT_OUTPUT,
    };
    format!("{COMMON_RULES}\n{output}\n{}", level_rules(level))
}

/// The user prompt: which node, then its sources.
pub fn user(node: NodeId, part: Option<(usize, usize)>, sources: &[SourceText]) -> String {
    let mut out = format!("Node: {} {}", node.level().as_str(), node.period());
    if let Some((i, n)) = part {
        out.push_str(&format!(
            " (part {i} of {n}; summarise this part only, it will be merged later)"
        ));
    }
    out.push_str("\n\nSources:\n");
    for s in sources {
        out.push_str(&format!(
            "\n===== {} =====\n{}\n",
            s.path,
            s.body.trim_end()
        ));
    }
    out
}

/// The prompt that merges partial summaries of one node.
pub fn merge(node: NodeId, partials: &[String]) -> String {
    let mut out = format!(
        "Node: {} {}\n\nMerge these {} partial summaries of the same node into one summary in the required form. Keep every user and feedback item.\n",
        node.level().as_str(),
        node.period(),
        partials.len()
    );
    for (i, p) in partials.iter().enumerate() {
        out.push_str(&format!("\n===== part {} =====\n{}\n", i + 1, p.trim_end()));
    }
    out
}

/// `user` asked again after its answer was refused for `why`: the note
/// goes after the node line, before the sources.
pub fn retry(user: &str, why: &str) -> String {
    let (first, rest) = user.split_once('\n').unwrap_or((user, ""));
    let why: String = why.split_whitespace().collect::<Vec<_>>().join(" ");
    format!(
        "{first}\n{RETRY_NOTE} {why}. Write it again from the sources: keep every [user] and [feedback] item, say each fact once, invent nothing.\n{rest}"
    )
}

/// The prompt that folds what changed into an existing summary: text
/// appended to a single source, or the current text of changed sources.
pub fn update(node: NodeId, previous: &str, changed: &[SourceText]) -> String {
    let mut out = format!(
        "Node: {} {}\n\nBelow is the current summary of this node, then what changed in its sources since it was written (text appended to a source, or the new version of a source). Return the updated summary in the required form: keep everything still true, fold in the new material by the same rules.\n\n===== current summary =====\n{}\n",
        node.level().as_str(),
        node.period(),
        previous.trim_end()
    );
    for c in changed {
        out.push_str(&format!(
            "\n===== changed: {} =====\n{}\n",
            c.path,
            c.body.trim_end()
        ));
    }
    out
}

/// `text` without hipo's own marker lines (`<!-- hipo: waiting for
/// summaries of … -->`, `<!-- hipo:auto -->`, `<!-- hipo:model … -->`):
/// they are about the tree, not its content, and never go to a model.
pub fn without_markers(text: &str) -> String {
    text.split_inclusive('\n')
        .filter(|l| !l.trim_start().starts_with("<!-- hipo"))
        .collect()
}

/// Splits sources into groups that each fit the budget, cutting a source
/// that is too long on line boundaries. Every input line lands in exactly
/// one chunk.
pub fn chunks(sources: &[SourceText], b: &Budget) -> Vec<Vec<SourceText>> {
    let budget = b.num_ctx.saturating_sub(reserved(b.num_ctx)).max(256);
    let mut out: Vec<Vec<SourceText>> = Vec::new();
    let mut current: Vec<SourceText> = Vec::new();
    let mut used = 0;
    for piece in sources.iter().flat_map(|s| split_source(s, budget, b)) {
        let t = b.cost(&piece.body) + 16;
        if used + t > budget && !current.is_empty() {
            out.push(std::mem::take(&mut current));
            used = 0;
        }
        used += t;
        current.push(piece);
    }
    if !current.is_empty() {
        out.push(current);
    }
    out
}

fn split_source(s: &SourceText, budget: usize, b: &Budget) -> Vec<SourceText> {
    let tokens = |t: &str| b.cost(t);
    if tokens(&s.body) + 16 <= budget {
        return vec![s.clone()];
    }
    let mut parts = Vec::new();
    let mut body = String::new();
    let (mut lines, mut used) = (0, 0);
    let piece = |body: String, lines: usize| SourceText {
        path: s.path.clone(),
        body,
        lines,
    };
    for line in s.body.split_inclusive('\n') {
        let t = tokens(line);
        if !body.is_empty() && used + t + 16 > budget {
            parts.push(piece(std::mem::take(&mut body), std::mem::take(&mut lines)));
            used = 0;
        }
        // A single line longer than the budget is cut on char boundaries.
        let mut rest = line;
        while tokens(rest) + 16 > budget {
            let cut = cut_at(rest, budget - 16, b);
            parts.push(piece(rest[..cut].to_string(), 1));
            rest = &rest[cut..];
        }
        body.push_str(rest);
        used += tokens(rest);
        lines += 1;
    }
    if !body.is_empty() {
        parts.push(piece(body, lines));
    }
    parts
}

/// The byte index (a char boundary, after at least one char) where `text`
/// reaches `budget` tokens.
fn cut_at(text: &str, budget: usize, b: &Budget) -> usize {
    let mut quarters = 0usize;
    for (i, c) in text.char_indices() {
        quarters += quarter_tokens(c);
        if i > 0 && b.scale(quarters.div_ceil(4)) > budget {
            return i;
        }
    }
    text.len()
}

/// Cleans a model's answer (code fences, stray frontmatter) and checks it
/// is a plausible summary; `Err` says what is wrong with it.
pub fn accept(answer: &str) -> Result<String, String> {
    let mut text = answer.trim().to_string();
    if text.is_empty() {
        return Err("the model returned an empty response".into());
    }
    if text.starts_with("```") {
        let inner = text.split_once('\n').map(|(_, rest)| rest).unwrap_or("");
        text = inner
            .trim_end()
            .strip_suffix("```")
            .unwrap_or(inner)
            .trim()
            .to_string();
    }
    if text.starts_with("---")
        && let Ok((Some(_), body, _)) = crate::markdown::split_frontmatter(&format!("{text}\n"))
    {
        text = body.trim().to_string();
    }
    check(text)
}

fn check(text: String) -> Result<String, String> {
    // What the answer says, besides the headings and `- none` lines that
    // hipo's own rendering supplies.
    let said: usize = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.starts_with("## ") && *l != "- none")
        .map(str::len)
        .sum();
    if said < MIN_SUMMARY_BYTES {
        return Err(format!(
            "the answer is too short to be a summary ({said} bytes besides its headings)"
        ));
    }
    let missing: Vec<&str> = REQUIRED_SECTIONS
        .iter()
        .copied()
        .filter(|s| !text.lines().any(|l| l.trim_end() == *s))
        .collect();
    if !missing.is_empty() {
        return Err(format!(
            "the answer lacks required sections: {}",
            missing.join(", ")
        ));
    }
    let mut text = text;
    text.push('\n');
    Ok(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn roots_material_is_the_day_then_each_summary_under_its_path() {
        let c = RootContext {
            today: chrono::NaiveDate::from_ymd_opt(2027, 1, 9).unwrap(),
            summaries: vec![
                SourceText {
                    path: "memory/monthly/2026-12.md".into(),
                    body: "## Topics\n- a [project]: x".into(),
                    lines: 2,
                },
                SourceText {
                    path: "memory/daily/2027-01-08.md".into(),
                    body: "- b".into(),
                    lines: 1,
                },
            ],
        };
        assert_eq!(
            root_context(&c),
            "Today is 2027-01-09.\n\n===== memory/monthly/2026-12.md =====\n## Topics\n- a [project]: x\n\n===== memory/daily/2027-01-08.md =====\n- b\n"
        );
    }
    use chrono::NaiveDate;

    fn src(path: &str, lines: usize) -> SourceText {
        let body: String = (0..lines)
            .map(|i| format!("line {i} with some words in it\n"))
            .collect();
        SourceText {
            path: path.into(),
            body,
            lines,
        }
    }

    #[test]
    fn chunks_cover_every_line_once() {
        let sources = [src("a", 2000), src("b", 10)];
        let b = Budget::new(4096);
        let parts = chunks(&sources, &b);
        assert!(parts.len() > 1);
        let joined: String = parts.iter().flatten().map(|s| s.body.as_str()).collect();
        let original: String = sources.iter().map(|s| s.body.as_str()).collect();
        assert_eq!(joined, original);
        for p in &parts {
            let t: usize = p.iter().map(|s| tokens(&s.body) + 16).sum();
            assert!(t <= 4096 - reserved(4096), "{t}");
        }
        assert_eq!(chunks(&[src("c", 5)], &b).len(), 1);
        // A model that counts twice the estimate gets twice the chunks.
        let dense = Budget {
            num_ctx: 4096,
            ratio: 2.0,
        };
        assert!(chunks(&sources, &dense).len() >= 2 * parts.len() - 1);
    }

    #[test]
    fn cjk_and_code_count_conservatively() {
        assert_eq!(tokens("abcd"), 1);
        assert_eq!(tokens("회의에서"), 12);
        assert_eq!(tokens("a::b(1);"), 4);
        let long = SourceText {
            path: "k".into(),
            body: "회의".repeat(4000),
            lines: 1,
        };
        let parts = chunks(std::slice::from_ref(&long), &Budget::new(4096));
        assert!(parts.len() >= 2, "{}", parts.len());
        for p in &parts {
            let t: usize = p.iter().map(|s| tokens(&s.body) + 16).sum();
            assert!(t <= 4096 - reserved(4096), "{t}");
        }
        let joined: String = parts.iter().flatten().map(|s| s.body.as_str()).collect();
        assert_eq!(joined, long.body);
    }

    #[test]
    fn accepts_only_plausible_summaries() {
        let good = "## Topics\n- deploy [project]: friday freeze, release train, rollback drill\n## Key Decisions\n- no friday deploys after the 2026-12-18 rollback of release 3.7\n## Tasks Completed\n- none\n## Lessons Learned\n- none\n## Open Items\n- none\n";
        assert_eq!(accept(good).unwrap(), good);
        assert_eq!(accept(&format!("```markdown\n{good}```")).unwrap(), good);
        assert_eq!(
            accept(&format!("---\ntype: daily\n---\n{good}")).unwrap(),
            good
        );
        assert!(accept("").unwrap_err().contains("empty"));
        assert!(
            accept("Sure! Here is a summary.")
                .unwrap_err()
                .contains("too short")
        );
        // A skeleton with a line or two is no summary either.
        let thin = "## Topics\n- 2027-15.md [project]: KST\n## Key Decisions\n- none\n## Tasks Completed\n- none\n## Lessons Learned\n- none\n## Open Items\n- 15:02.md\n";
        assert!(accept(thin).unwrap_err().contains("too short"));
        assert!(
            accept(&good.replace("## Open Items", "## Later"))
                .unwrap_err()
                .contains("## Open Items")
        );
    }

    #[test]
    fn hipo_markers_are_never_sent() {
        let text = "# 2026-W11\n\n## A\nx\n<!-- hipo:auto -->\n<!-- hipo: waiting for summaries of memory/daily/2026-03-11.md -->\n- y\n";
        assert_eq!(without_markers(text), "# 2026-W11\n\n## A\nx\n- y\n");
    }

    #[test]
    fn prompts_carry_rules_and_sources() {
        let node = NodeId::Daily(NaiveDate::from_ymd_opt(2026, 3, 15).unwrap());
        assert!(
            system(Level::Daily, Mode::Text)
                .contains("[feedback] entries: keep rule, why and how-to-apply whole")
        );
        let u = user(node, Some((1, 3)), &[src("memory/2026-03-15.md", 1)]);
        assert!(u.contains("Node: daily 2026-03-15 (part 1 of 3"));
        assert!(u.contains("===== memory/2026-03-15.md ====="));
    }
}
