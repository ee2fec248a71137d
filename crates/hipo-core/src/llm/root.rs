//! ROOT's narrative sections (Active Context, Recent Patterns, Historical
//! Summary) written by the model from the tree's summaries.

use super::structured::Mode;
use super::{Kind, OllamaSummarizer, prompt};
use crate::layout::{Level, NodeId};
use crate::summarize::SummaryError;

impl OllamaSummarizer<'_> {
    /// Writes ROOT's narrative sections from the tree's summaries. Every
    /// call is cached by its prompt, so unchanged inputs make no call.
    pub(super) fn root_sections_impl(
        &self,
        _input_hash: [u8; 32],
        context: &str,
    ) -> std::result::Result<[String; 3], SummaryError> {
        let answer = self.block_on(|| async {
            let mut tries = 0;
            loop {
                tries += 1;
                match self.narrative(context).await {
                    // The ratio was raised: the merges are smaller this time.
                    Err(super::call::Failure::PromptCut(_)) if tries < super::call::CUT_TRIES => {}
                    other => return other.map_err(super::call::Failure::into_error),
                }
            }
        })??;
        parse_root(&answer).ok_or_else(|| SummaryError::Failed {
            reason: "the cached narrative is unreadable".into(),
            hint: "re-run with --resummarize".into(),
        })
    }
}

impl OllamaSummarizer<'_> {
    /// The narrative's one call, after merging `context` down to fit.
    /// ROOT is always asked for: user and feedback items said again across
    /// the tree are said once, a piece too big for the context is split
    /// and merged, and what still does not fit keeps its topic lines, then
    /// its newest pieces.
    async fn narrative(&self, context: &str) -> Result<String, super::call::Failure> {
        let context = once_each(context);
        let ctx = if self.budget().fits(prompt::tokens(&context)) {
            context
        } else {
            let pieces = root_pieces(&context);
            let (merged, _) = self
                .merge(NodeId::Root, Kind::Node(Level::Monthly), pieces)
                .await
                .map_err(merging)?;
            self.to_fit(once_each(&merged))
        };
        self.ask_again(Kind::Root, ctx).await
    }

    /// `text` made to fit the context: its pieces' topic lines only, then
    /// the newest of them that fit, each under its piece's header, with a
    /// notice.
    fn to_fit(&self, text: String) -> String {
        let budget = self.budget();
        if budget.fits(prompt::tokens(&text)) {
            return text;
        }
        let raw = root_pieces(&text);
        let pieces: Vec<(String, Vec<&str>)> = raw
            .iter()
            .map(|p| {
                let mut lines = p.lines();
                let header = lines.next().unwrap_or_default().to_string();
                let topics = text_topics(p);
                (header, topics)
            })
            .collect();
        let all: usize = pieces.iter().map(|(_, t)| t.len()).sum();
        let (mut kept, mut used, mut n) = (Vec::new(), 0, 0);
        'pieces: for (header, topics) in pieces.iter().rev() {
            let mut piece = format!("{header}\n");
            used += prompt::tokens(&piece);
            for line in topics.iter().rev() {
                let t = prompt::tokens(line) + 1;
                if !budget.fits(used + t) {
                    kept.push(piece);
                    break 'pieces;
                }
                used += t;
                n += 1;
                piece.push_str(line);
                piece.push('\n');
            }
            kept.push(piece);
        }
        if n < all
            && let Ok(mut notes) = self.notices.lock()
        {
            notes.push(format!(
                "ROOT's narrative was written from the newest {n} of the tree's {all} topic lines: the rest do not fit num_ctx {} even merged (raise llm.num_ctx)",
                self.settings.num_ctx
            ));
        }
        kept.reverse();
        kept.concat()
    }
}

/// The topic lines (`- keyword [type]: …`) of a piece of ROOT's context.
fn text_topics(piece: &str) -> Vec<&str> {
    piece
        .lines()
        .filter(|l| l.trim_start().starts_with("- ") && l.contains("]"))
        .collect()
}

/// `context` with each `[user]` or `[feedback]` line said once: the same
/// preference restated week after week keeps its newest wording only.
fn once_each(context: &str) -> String {
    let lines: Vec<&str> = context.lines().collect();
    let key = |l: &str| -> Option<Vec<String>> {
        let b = l.trim().strip_prefix("- ")?;
        if !(b.contains("[user]") || b.contains("[feedback]")) {
            return None;
        }
        let mut w: Vec<String> = crate::llm::ground::words(b)
            .into_iter()
            .filter(|w| w.len() >= 3)
            .collect();
        w.sort();
        w.dedup();
        Some(w)
    };
    let keys: Vec<Option<Vec<String>>> = lines.iter().map(|l| key(l)).collect();
    let mut out = String::new();
    for (i, line) in lines.iter().enumerate() {
        let said_later = keys[i]
            .as_ref()
            .is_some_and(|k| keys[i + 1..].iter().flatten().any(|later| same(k, later)));
        if !said_later {
            out.push_str(line);
            out.push('\n');
        }
    }
    out
}

/// Two items' words mostly the same (four in five of the smaller's).
fn same(a: &[String], b: &[String]) -> bool {
    let shared = a.iter().filter(|w| b.contains(w)).count();
    let small = a.len().min(b.len());
    small > 0 && shared * 5 >= small * 4
}

/// A failed merge of ROOT's input, said as such (its reason names the
/// summary sections a merge asks for, not ROOT's).
fn merging(f: super::call::Failure) -> super::call::Failure {
    match f {
        super::call::Failure::Refused(reason) => super::call::Failure::Refused(format!(
            "merging the tree's summaries down to fit the context: {reason}"
        )),
        super::call::Failure::Failed(SummaryError::Failed { reason, hint }) => {
            super::call::Failure::Failed(SummaryError::Failed {
                reason: format!("merging the tree's summaries down to fit the context: {reason}"),
                hint,
            })
        }
        other => other,
    }
}

const ROOT_RULES: &str = "Write ROOT.md's narrative sections from the summaries below (oldest first): \
Active Context (what is happening in the last ~7 days, one item per thread), Recent Patterns (cross-cutting insights), \
Historical Summary (one item per month or range, `YYYY-MM: key events`). Keep it short: at most 40 lines in all. \
Do not write a Topics Index; hipo computes it.";

/// ROOT's rules for an answer in `mode`.
pub(super) fn rules(mode: Mode) -> String {
    let output = match mode {
        Mode::Structured => {
            "Answer with one JSON object: `active_context`, `recent_patterns` and `historical_summary`, each a list of short strings."
        }
        Mode::Text => {
            "Output exactly three sections: ## Active Context, ## Recent Patterns, ## Historical Summary, each of `- ` bullets."
        }
    };
    format!("{ROOT_RULES}\n{output}")
}

/// The narrative as hipo keeps it: the three sections in Markdown.
pub(super) fn render(sections: &[String; 3]) -> String {
    let mut out = String::new();
    for (title, body) in ["Active Context", "Recent Patterns", "Historical Summary"]
        .iter()
        .zip(sections)
    {
        out.push_str(&format!("## {title}\n{}", body));
    }
    out
}

/// A Markdown narrative, or why it is refused.
pub(super) fn accept_text(answer: &str) -> Result<String, String> {
    let text = parse_root(answer).map(|s| render(&s)).ok_or_else(|| {
        "the answer lacks ## Active Context, ## Recent Patterns or ## Historical Summary"
            .to_string()
    })?;
    substantial(text)
}

/// A narrative long enough to say something: as long as the shortest
/// summary, besides its headings.
pub(super) fn substantial(text: String) -> Result<String, String> {
    let said: usize = text
        .lines()
        .filter(|l| !l.starts_with("## "))
        .map(str::len)
        .sum();
    if said < prompt::MIN_SUMMARY_BYTES {
        return Err(format!(
            "the narrative is too short to say anything ({said} bytes)"
        ));
    }
    Ok(text)
}

/// ROOT's context cut at its `===== path =====` headers, for merging. What
/// comes before the first header (`Today is …`) opens the first piece
/// rather than being a part of its own.
fn root_pieces(context: &str) -> Vec<String> {
    let mut pieces: Vec<String> = Vec::new();
    let mut preamble = String::new();
    for line in context.split_inclusive('\n') {
        match pieces.last_mut() {
            Some(last) if !line.starts_with("===== ") => last.push_str(line),
            None if !line.starts_with("===== ") => preamble.push_str(line),
            _ => pieces.push(std::mem::take(&mut preamble) + line),
        }
    }
    if pieces.is_empty() && !preamble.is_empty() {
        pieces.push(preamble);
    }
    pieces
}

fn parse_root(answer: &str) -> Option<[String; 3]> {
    let mut out: [String; 3] = Default::default();
    for section in crate::markdown::sections(answer) {
        let Some(i) = ["Active Context", "Recent Patterns", "Historical Summary"]
            .iter()
            .position(|s| section.title.starts_with(s))
        else {
            continue;
        };
        for line in section.body.lines() {
            out[i].push_str(line);
            out[i].push('\n');
        }
    }
    out.iter()
        .all(|s| !s.trim().is_empty())
        .then(|| out.map(|s| format!("{}\n", s.trim())))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_preamble_is_no_part_of_its_own() {
        let pieces =
            root_pieces("Today is 2026-03-20.\n\n===== a =====\n- x\n===== b =====\n- y\n");
        assert_eq!(pieces.len(), 2);
        assert!(pieces[0].starts_with("Today is") && pieces[0].contains("===== a"));
    }

    #[test]
    fn a_narrative_of_fragments_is_refused() {
        // What SmolLM2-135M wrote for the sample's ROOT.
        let thin = render(&[
            "- 2027-12-31\n- tom\n".into(),
            "- delete_postgres_13.md\n".into(),
            "- 2027-q1.md\n".into(),
        ]);
        assert!(substantial(thin).unwrap_err().contains("too short"));
    }

    #[test]
    fn a_preference_restated_is_said_once() {
        let ctx = "===== memory/weekly/2027-W01.md =====\n- Mina [user]: prefers async written reviews\n- deploy [project]: x\n===== memory/weekly/2027-W02.md =====\n- Mina [user]: prefers async, written reviews\n- Tom [user]: on leave until 2027-02-01\n";
        assert_eq!(
            once_each(ctx),
            "===== memory/weekly/2027-W01.md =====\n- deploy [project]: x\n===== memory/weekly/2027-W02.md =====\n- Mina [user]: prefers async, written reviews\n- Tom [user]: on leave until 2027-02-01\n"
        );
    }

    #[test]
    fn root_answer_parses() {
        let a = "## Active Context\n- a\n## Recent Patterns\n- b\n## Historical Summary\n- 2026-03: c\n";
        assert_eq!(parse_root(a).unwrap()[2], "- 2026-03: c\n");
        assert!(parse_root("## Active Context\n- a\n").is_none());
    }
}
