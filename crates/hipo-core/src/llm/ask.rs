//! Asking for a node's summary: an update when only part of it changed,
//! else chunks that fit the context, each asked for, then merged. Every
//! answer is checked before it is cached or used.

use super::call::{CUT_TRIES, Failure, Request};
use super::ground::{Grounds, mass_repetition, normalise};
use super::overflow::{self, Seen};
use super::structured::{self, Mode};
use super::{Kind, OllamaSummarizer, fallback, implausible, prompt, root};
use crate::layout::{Level, NodeId};
use crate::summarize::{SourceText, Summary, SummaryError, SummaryRequest};

/// Rounds of merging partials that each fill the context alone.
const MERGE_ROUNDS: usize = 3;

impl OllamaSummarizer<'_> {
    /// Summarises one node: fold in an append if that is all that changed,
    /// else chunk, summarise each chunk, merge.
    pub(super) async fn summarize_one(
        &self,
        req: &SummaryRequest,
    ) -> Result<Summary, SummaryError> {
        let mut tries = 0;
        loop {
            tries += 1;
            match self.summarize_node(req).await {
                // The ratio was raised: the chunks are smaller this time.
                Err(Failure::PromptCut(_)) if tries < CUT_TRIES => continue,
                other => return other.map_err(Failure::into_error),
            }
        }
    }

    async fn summarize_node(&self, req: &SummaryRequest) -> Result<Summary, Failure> {
        let kind = Kind::Node(req.node.level());
        if let Some((previous, changed)) = self.delta(req) {
            if changed.is_empty() {
                // The sources' text is as summarised (only frontmatter moved).
                return Ok(self.summary(previous));
            }
            let user = prompt::update(req.node, &previous, &changed);
            match self.ask_again(kind, user).await {
                Ok(body) => return Ok(self.summary(body)),
                // An update refused twice: the whole node is asked for.
                Err(Failure::Refused(_)) => {}
                Err(other) => return Err(other),
            }
        }
        let parts = prompt::chunks(&req.sources, &self.budget());
        let n = parts.len();
        let mut partials = Vec::with_capacity(n);
        let mut by_hipo: Vec<(usize, String)> = Vec::new();
        for (i, part) in parts.iter().enumerate() {
            let label = (n > 1).then_some((i + 1, n));
            match self
                .ask_again(kind, prompt::user(req.node, label, part))
                .await
            {
                Ok(body) => partials.push(body),
                // Refused twice: hipo writes this part, unless it is all.
                Err(Failure::Refused(why)) if by_hipo.len() + 1 < n => {
                    partials.push(fallback::part(part));
                    by_hipo.push((i + 1, why));
                }
                Err(other) => return Err(other),
            }
        }
        let (body, merged_by_hipo) = self.merge(req.node, kind, partials).await?;
        if by_hipo.is_empty() && !merged_by_hipo {
            return Ok(self.summary(body));
        }
        Ok(self.summary(format!(
            "{}{body}",
            fallback::marker(n, &by_hipo, merged_by_hipo)
        )))
    }

    /// [`Self::ask`], and once more with why its answer was refused.
    pub(super) async fn ask_again(&self, kind: Kind, user: String) -> Result<String, Failure> {
        match self.ask(kind, user.clone()).await {
            Err(Failure::Refused(why)) => self.ask(kind, prompt::retry(&user, &why)).await,
            other => other,
        }
    }

    /// One model call whose answer must be a plausible summary (or ROOT
    /// narrative), cached by the prompt itself: a run interrupted half-way
    /// through a node's chunks resumes from the first chunk not yet
    /// answered. A server that refuses `format` is asked again in text,
    /// and for the rest of the run.
    pub(super) async fn ask(&self, kind: Kind, user: String) -> Result<String, Failure> {
        let mut num_predict = prompt::answer_tokens(self.settings.num_ctx as usize);
        let mut retried = false;
        loop {
            let mode = self.mode();
            let system = system(kind, mode);
            let key = self.call_key(&system, &user);
            if let Some(answer) = self.cached(&key) {
                self.count_hit();
                return Ok(answer);
            }
            let estimate = prompt::tokens(&system) + prompt::tokens(&user);
            let request = Request {
                system: &system,
                user: &user,
                mode,
                schema: match kind {
                    Kind::Node(_) => structured::node_schema,
                    Kind::Root => structured::root_schema,
                },
                num_predict,
            };
            let reply = match self.generate(&request).await {
                Err(Failure::Format(why)) if mode == Mode::Structured => {
                    self.fall_back_to_text(&why);
                    continue;
                }
                Err(Failure::PromptCut(why)) => {
                    self.learn_cut(estimate);
                    return Err(Failure::PromptCut(why));
                }
                other => other?,
            };
            let num_ctx = self.settings.num_ctx as usize;
            match overflow::judge(
                estimate,
                num_ctx,
                num_predict,
                reply.prompt_tokens,
                reply.output_tokens,
            ) {
                Seen::PromptCut(why) => {
                    self.learn_cut(estimate);
                    return Err(Failure::PromptCut(why));
                }
                Seen::AnswerCut => {
                    self.count(|s| s.cut_answers += 1);
                    let cost = self.budget().cost(&system) + self.budget().cost(&user);
                    match overflow::larger_answer(num_predict, cost, num_ctx) {
                        Some(more) if !retried => {
                            (num_predict, retried) = (more, true);
                            continue;
                        }
                        _ => {
                            self.count(|s| s.refused += 1);
                            return Err(implausible(format!(
                                "the answer was cut off at num_predict ({num_predict} tokens)"
                            )));
                        }
                    }
                }
                Seen::Whole => {
                    if let Some(n) = reply.prompt_tokens {
                        self.learn_count(estimate, n);
                    }
                }
            }
            let body = self.keep(kind, mode, (&system, &user), &reply.text)?;
            self.count(|s| s.accepted += 1);
            self.remember(&key, &body);
            return Ok(body);
        }
    }

    /// A call's cache key: its prompt, model, prompt version and mode.
    fn call_key(&self, system: &str, user: &str) -> String {
        let mut h = blake3::Hasher::new();
        h.update(system.as_bytes());
        h.update(&[0]);
        h.update(user.as_bytes());
        self.cache_key(h.finalize().as_bytes(), "call")
    }

    /// The answer as kept when it has the form asked for and is about the
    /// prompt's sources; counted either way.
    fn keep(
        &self,
        kind: Kind,
        mode: Mode,
        (system, user): (&str, &str),
        answer: &str,
    ) -> Result<String, Failure> {
        let body = accept(kind, mode, answer).map_err(|why| {
            self.count(|s| s.refused += 1);
            implausible(why)
        })?;
        let grounds = Grounds::new(system, user, matches!(kind, Kind::Node(_)));
        // Form is repaired before judging: mass repetition is judged on
        // the answer as given, the rest on the repaired one.
        let body = match kind {
            Kind::Node(_) => {
                let repaired = normalise(&body);
                mass_repetition(&repaired).map_err(|why| {
                    self.count(|s| s.ungrounded += 1);
                    implausible(why)
                })?;
                prompt::accept(&repaired.text).map_err(|why| {
                    self.count(|s| s.refused += 1);
                    implausible(why)
                })?
            }
            Kind::Root => body,
        };
        grounds.check(&body).map_err(|why| {
            self.count(|s| s.ungrounded += 1);
            implausible(why)
        })?;
        Ok(body)
    }

    /// Merges partial summaries, in groups that fit the context if needed.
    /// A merge the model's answers were refused for twice is hipo's
    /// ([`fallback::merge`]); the flag says whether any was.
    pub(super) async fn merge(
        &self,
        node: NodeId,
        kind: Kind,
        mut partials: Vec<String>,
    ) -> Result<(String, bool), Failure> {
        let (mut by_hipo, mut rounds) = (false, 0);
        while partials.len() > 1 {
            let as_sources: Vec<SourceText> = partials
                .iter()
                .enumerate()
                .map(|(i, p)| SourceText {
                    path: format!("part {}", i + 1),
                    lines: p.lines().count(),
                    body: p.clone(),
                })
                .collect();
            let groups = prompt::chunks(&as_sources, &self.budget());
            let mut next = Vec::with_capacity(groups.len());
            // No two partials fit together (a partial too big for the
            // context comes back split, its pieces alone): each is asked
            // for alone, which shrinks it.
            let stalled = groups.iter().all(|g| g.len() == 1);
            rounds += 1;
            for group in groups {
                if group.len() == 1 && !stalled {
                    next.push(group[0].body.clone());
                    continue;
                }
                let texts: Vec<String> = group.into_iter().map(|s| s.body).collect();
                match self.ask_again(kind, prompt::merge(node, &texts)).await {
                    Ok(merged) => next.push(merged),
                    Err(Failure::Refused(_)) => {
                        by_hipo = true;
                        next.push(fallback::merge(&texts));
                    }
                    Err(other) => return Err(other),
                }
            }
            let size = |v: &[String]| v.iter().map(|p| prompt::tokens(p)).sum::<usize>();
            if stalled && (rounds >= MERGE_ROUNDS || size(&next) >= size(&partials)) {
                // Each partial alone fills the context and asking shrinks
                // them no more: keep them all, in order.
                return Ok((next.join("\n"), by_hipo));
            }
            partials = next;
        }
        Ok((partials.pop().unwrap_or_default(), by_hipo))
    }
}

/// The system prompt of a call.
fn system(kind: Kind, mode: Mode) -> String {
    match kind {
        Kind::Node(level) => prompt::system(level, mode),
        Kind::Root => format!(
            "{}\n{}",
            prompt::system(Level::Root, mode),
            root::rules(mode)
        ),
    }
}

/// An answer as hipo keeps it (Markdown with the required sections), or
/// why it is refused. A structured answer is rendered by hipo; one that is
/// not JSON is still taken if it is a plausible Markdown summary.
fn accept(kind: Kind, mode: Mode, answer: &str) -> Result<String, String> {
    if answer.trim().is_empty() {
        return Err("the model returned an empty response".into());
    }
    match (kind, mode) {
        (Kind::Node(_), Mode::Structured) => match structured::render_node(answer) {
            Ok(md) => prompt::accept(&md),
            // Text where JSON was asked for: judged as text.
            Err(_) if !answer.trim_start().starts_with('{') => prompt::accept(answer),
            Err(why) => Err(why),
        },
        (Kind::Node(_), Mode::Text) => prompt::accept(answer),
        (Kind::Root, Mode::Structured) => match structured::render_root(answer) {
            Ok(sections) => root::substantial(root::render(&sections)),
            Err(_) if !answer.trim_start().starts_with('{') => root::accept_text(answer),
            Err(why) => Err(why),
        },
        (Kind::Root, Mode::Text) => root::accept_text(answer),
    }
}
