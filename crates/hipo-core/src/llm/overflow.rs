//! No silent overflow. Ollama cuts a prompt longer than `num_ctx` without
//! an error (HTTP 200), keeping `num_ctx`/2 + 2 of its newest tokens on
//! current releases, `num_ctx` − 1 on older ones, and reports the kept
//! count as `prompt_eval_count`; some models get an HTTP 400 instead. An
//! answer that reaches `num_predict` was cut mid-sentence. Both are seen
//! here from what the server reports; the model's tokens-per-estimate
//! ratio is learned from them and kept per model in the store, so the
//! next chunks fit the first time.

use super::OllamaSummarizer;
use super::prompt::Budget;

/// The most a ratio is raised to: past it the estimate is not the problem.
const MAX_RATIO: f64 = 8.0;

/// What the server's counts say about one call.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Seen {
    Whole,
    /// The prompt was cut: why hipo thinks so.
    PromptCut(String),
    /// The answer ran into `num_predict`.
    AnswerCut,
}

/// Judges a call from hipo's `estimate` of the prompt (system + user) and
/// the counts the server reported.
pub(super) fn judge(
    estimate: usize,
    num_ctx: usize,
    num_predict: usize,
    prompt_tokens: Option<u64>,
    output_tokens: Option<u64>,
) -> Seen {
    if let Some(kept) = prompt_tokens.map(|n| n as usize) {
        // Only a prompt that could plausibly exceed the context is judged:
        // a server may count fewer tokens when a prefix was cached.
        let plausible = estimate * 3 >= num_ctx;
        if plausible && kept == num_ctx / 2 + 2 {
            return Seen::PromptCut(format!(
                "the server kept {kept} tokens, Ollama's num_ctx/2 + 2 cut"
            ));
        }
        if plausible && kept + 1 >= num_ctx {
            return Seen::PromptCut(format!("the server kept {kept} tokens, all of num_ctx"));
        }
        if plausible && kept * 2 < estimate {
            return Seen::PromptCut(format!(
                "the server counted {kept} tokens of about {estimate} sent"
            ));
        }
    }
    if output_tokens.is_some_and(|n| n as usize >= num_predict) {
        return Seen::AnswerCut;
    }
    Seen::Whole
}

/// The ratio after a cut of a prompt estimated at `estimate`: it had more
/// than `num_ctx` tokens, so at least `num_ctx / estimate`, with a margin.
pub(super) fn after_cut(ratio: f64, estimate: usize, num_ctx: usize) -> f64 {
    let floor = num_ctx as f64 * 1.1 / estimate.max(1) as f64;
    (ratio * 1.25).max(floor).min(MAX_RATIO)
}

/// A larger answer budget for a second try, if the context has room.
pub(super) fn larger_answer(
    num_predict: usize,
    prompt_cost: usize,
    num_ctx: usize,
) -> Option<usize> {
    let room = num_ctx.saturating_sub(prompt_cost);
    let next = (num_predict * 2).min(room);
    (next > num_predict).then_some(next)
}

impl OllamaSummarizer<'_> {
    /// The context a prompt must fit now.
    pub(super) fn budget(&self) -> Budget {
        Budget {
            num_ctx: self.settings.num_ctx as usize,
            ratio: self.ratio.lock().map(|r| *r).unwrap_or(1.0),
        }
    }

    /// A prompt estimated at `estimate` was cut: count more tokens per
    /// estimate from now on, here and in the store.
    pub(super) fn learn_cut(&self, estimate: usize) {
        self.count(|s| s.cuts += 1);
        let num_ctx = self.settings.num_ctx as usize;
        self.set_ratio(|r| after_cut(r, estimate, num_ctx));
    }

    /// The server counted `counted` tokens of a whole prompt estimated at
    /// `estimate`: a denser tokenizer than thought raises the ratio.
    pub(super) fn learn_count(&self, estimate: usize, counted: u64) {
        if estimate < 200 {
            return;
        }
        let seen = counted as f64 / estimate as f64;
        self.set_ratio(|r| {
            if seen > r * 1.05 {
                seen.min(MAX_RATIO)
            } else {
                r
            }
        });
    }

    fn set_ratio(&self, f: impl FnOnce(f64) -> f64) {
        let Ok(mut ratio) = self.ratio.lock() else {
            return;
        };
        let next = f(*ratio);
        if next != *ratio {
            *ratio = next;
            if let Some(store) = self.store {
                store.put_token_ratio(&self.settings.model, next);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cuts_are_seen_in_the_counts() {
        // Current Ollama: num_ctx/2 + 2 kept.
        assert!(matches!(
            judge(3000, 4096, 1024, Some(2050), Some(10)),
            Seen::PromptCut(_)
        ));
        // Older Ollama: the window, num_ctx - 1.
        assert!(matches!(
            judge(3000, 4096, 1024, Some(4095), Some(10)),
            Seen::PromptCut(_)
        ));
        // Far below what was sent.
        assert!(matches!(
            judge(3000, 8192, 1024, Some(1200), Some(10)),
            Seen::PromptCut(_)
        ));
        // A small prompt is never judged (a cached prefix counts less).
        assert_eq!(judge(600, 8192, 1024, Some(100), Some(10)), Seen::Whole);
        assert_eq!(judge(3000, 8192, 1024, Some(2900), Some(10)), Seen::Whole);
        assert_eq!(judge(3000, 8192, 1024, None, None), Seen::Whole);
        // An answer that ran into num_predict.
        assert_eq!(
            judge(3000, 8192, 1024, Some(2900), Some(1024)),
            Seen::AnswerCut
        );
    }

    #[test]
    fn a_cut_raises_the_ratio_past_the_context() {
        let r = after_cut(1.0, 3000, 4096);
        assert!(r > 1.49 && r < 1.51, "{r}");
        assert_eq!(after_cut(1.0, 10, 4096), MAX_RATIO);
        assert_eq!(larger_answer(1024, 3000, 8192), Some(2048));
        assert_eq!(larger_answer(1024, 7800, 8192), None);
    }
}
