//! Local-model summaries through Ollama.
//!
//! [`OllamaSummarizer`] implements [`Summarizer`]: each node's sources go
//! to a local model with a versioned prompt ([`prompt`]); inputs larger
//! than the context window are summarised in chunks and merged, never
//! truncated; answers that are not plausible summaries are refused, and
//! the node stays `needs-summarization` with a hint. Summaries are cached
//! in the store by (input hash, model, prompt version), so a rebuild of an
//! unchanged node makes no call. Calls are non-streaming, on a tokio
//! current-thread runtime created only here: the rest of hipo stays
//! synchronous and fast to start.

mod ask;
mod call;
mod check;
mod fallback;
mod ground;
mod overflow;
mod prompt;
mod root;
mod sections;
mod settings;
mod structured;

pub use check::{Check, check};
pub use fallback::read_marker;
pub use settings::{Backend, DEFAULT_HOST, LlmLayer, Settings, normalize_host, resolve};

use crate::error::{Error, Result};
use crate::layout::{Level, NodeId};
use crate::progress::{Event, Progress, Task};
use crate::store::Store;
use crate::summarize::{
    RootContext, SourceText, Summarizer, Summary, SummaryError, SummaryRequest, Writer,
};
use call::Failure;
use futures_util::StreamExt;
use ollama_rs::Ollama;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};
use structured::Mode;

/// What a single-source node was summarised from, to detect appends; kept
/// in the store's `llm_previous` table ([`crate::store::llm`]) by node
/// path + model + prompt version. Lets an append cost one call.
#[derive(serde::Serialize, serde::Deserialize)]
struct Previous {
    /// Bytes of the source body summarised.
    len: u64,
    /// blake3 of those bytes.
    hash: [u8; 32],
    /// Each source's path and body hash.
    sources: Vec<(String, [u8; 32])>,
    summary: String,
}

/// What the model calls cost, for the report.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize)]
pub struct Stats {
    /// Requests sent to the model.
    pub calls: u64,
    /// Summaries served from the cache.
    pub cache_hits: u64,
    /// Prompt tokens (as the server counted them, else estimated).
    pub prompt_tokens: u64,
    /// Answer tokens.
    pub output_tokens: u64,
    /// Wall time spent waiting on the model, in microseconds: calls that
    /// overlap (`concurrency` > 1) count once.
    pub model_us: u64,
    /// Answers accepted (well-formed and grounded).
    pub accepted: u64,
    /// Answers refused as malformed (not the JSON or sections asked for,
    /// too short, empty).
    pub refused: u64,
    /// Well-formed answers refused as not about their sources.
    pub ungrounded: u64,
    /// Prompts the server cut (or refused as too long): re-chunked.
    pub cuts: u64,
    /// Answers that ran into `num_predict`.
    pub cut_answers: u64,
}

/// Summaries through a local Ollama server.
pub struct OllamaSummarizer<'s> {
    settings: Settings,
    client: Ollama,
    store: Option<&'s Store>,
    /// Ignore the cache (the model or prompt changed and the user asked).
    pub resummarize: bool,
    stats: Mutex<Stats>,
    /// When the cache was last synced to disk.
    last_sync: Mutex<Option<Instant>>,
    /// The server refused `format`: the text prompt for the rest of the run.
    text_only: AtomicBool,
    /// What the run should be told once (the fallback to text).
    notices: Mutex<Vec<String>>,
    /// This model's tokens per estimated token ([`overflow`]).
    ratio: Mutex<f64>,
}

/// What a call asks the model to write.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// A node summary (or a part or merge of one) at this level.
    Node(Level),
    /// ROOT's narrative sections.
    Root,
}

impl<'s> OllamaSummarizer<'s> {
    /// A summarizer for `settings`, caching in `store` when given.
    pub fn new(settings: Settings, store: Option<&'s Store>) -> Result<Self> {
        let client = Ollama::try_new(settings.host.as_str())
            .map_err(|e| Error::Llm(format!("bad ollama host `{}`: {e}", settings.host)))?;
        Ok(OllamaSummarizer {
            client,
            store,
            resummarize: false,
            stats: Mutex::new(Stats::default()),
            last_sync: Mutex::new(None),
            text_only: AtomicBool::new(false),
            notices: Mutex::new(Vec::new()),
            ratio: Mutex::new(
                store
                    .and_then(|s| s.token_ratio(&settings.model))
                    .unwrap_or(1.0),
            ),
            settings,
        })
    }

    /// Calls made so far.
    pub fn stats(&self) -> Stats {
        self.stats.lock().map(|s| s.clone()).unwrap_or_default()
    }

    /// The cache key of `what` for `input_hash`: the model, the prompt
    /// version and the answer mode are part of it.
    fn cache_key(&self, input_hash: &[u8; 32], what: &str) -> String {
        let hex: String = input_hash.iter().map(|b| format!("{b:02x}")).collect();
        format!(
            "{hex}:{what}:{}:{}:{}",
            self.settings.model,
            prompt::PROMPT_VERSION,
            self.mode().as_str()
        )
    }

    /// How answers are asked for now: JSON unless turned off, or the
    /// server refused it earlier in the run.
    fn mode(&self) -> Mode {
        if self.settings.structured && !self.text_only.load(Ordering::Relaxed) {
            Mode::Structured
        } else {
            Mode::Text
        }
    }

    /// The server refused `format`: says so once, then asks for text.
    fn fall_back_to_text(&self, why: &str) {
        if !self.text_only.swap(true, Ordering::Relaxed)
            && let Ok(mut n) = self.notices.lock()
        {
            n.push(format!(
                "{} refused structured (JSON) answers ({why}); using the text prompt for the rest of this run (upgrade Ollama to 0.5 or later, or set llm.structured to false)",
                self.settings.host
            ));
        }
    }

    fn cached(&self, key: &str) -> Option<String> {
        if self.resummarize {
            return None;
        }
        self.store?.cached_summary(key)
    }

    fn remember(&self, key: &str, body: &str) {
        let Some(store) = self.store else { return };
        // A cache write that fails only costs a call next time.
        store.put_summary(key, body, self.sync_now());
    }

    /// Answers are synced to disk at most once a second (and when the store
    /// closes): a crash loses at most a second of answers, and a fast model
    /// does not wait on a sync for each one.
    fn sync_now(&self) -> bool {
        let Ok(mut last) = self.last_sync.lock() else {
            return true;
        };
        if last.is_some_and(|t| t.elapsed() < Duration::from_secs(1)) {
            return false;
        }
        *last = Some(Instant::now());
        true
    }

    /// Runs the future `make` builds to completion on a current-thread
    /// runtime of hipo's own. Blocking a caller's async runtime would make
    /// tokio panic (an MCP server calls compaction from one), so inside
    /// one the work moves to a scoped thread of its own; outside, it runs
    /// right here. Either way the futures never run on a caller's runtime,
    /// so the redb writes inside them block only hipo's own thread.
    fn block_on<T, F>(
        &self,
        make: impl FnOnce() -> F + Send,
    ) -> std::result::Result<T, SummaryError>
    where
        F: std::future::Future<Output = T>,
        T: Send,
    {
        let start = Instant::now();
        let timed = |r| {
            self.count(|s| s.model_us += start.elapsed().as_micros() as u64);
            r
        };
        let run = move || {
            tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .map(|rt| rt.block_on(make()))
                .map_err(|e| SummaryError::Failed {
                    reason: format!("cannot start the async runtime: {e}"),
                    hint: "this is a bug in hipo; please report it".into(),
                })
        };
        if tokio::runtime::Handle::try_current().is_err() {
            return timed(run());
        }
        timed(
            std::thread::scope(|s| s.spawn(run).join()).unwrap_or_else(|_| {
                Err(SummaryError::Failed {
                    reason: "the model call's thread panicked".into(),
                    hint: "this is a bug in hipo; please report it".into(),
                })
            }),
        )
    }

    fn previous_key(&self, node: NodeId) -> String {
        format!(
            "{}:{}:{}",
            node.path(),
            self.settings.model,
            prompt::PROMPT_VERSION
        )
    }

    /// When only part of a node's input changed since its last summary:
    /// the previous summary and just what changed. A single source that only
    /// grew gives its appended text; otherwise the sources that changed or
    /// were added, in full. `None` when a full summary is needed.
    fn delta(&self, req: &SummaryRequest) -> Option<(String, Vec<SourceText>)> {
        if self.resummarize {
            return None;
        }
        let prev: Previous = self
            .store?
            .previous_summary(self.previous_key(req.node).as_str())?;
        let changed: Vec<SourceText> = if let [source] = req.sources.as_slice() {
            let len = usize::try_from(prev.len).ok()?;
            let body = source.body.as_str();
            if len >= body.len()
                || !body.is_char_boundary(len)
                || *blake3::hash(&body.as_bytes()[..len]).as_bytes() != prev.hash
            {
                return None;
            }
            let tail = &body[len..];
            vec![SourceText {
                path: source.path.clone(),
                lines: tail.lines().count(),
                body: tail.to_string(),
            }]
        } else {
            let old: std::collections::HashMap<&str, &[u8; 32]> =
                prev.sources.iter().map(|(p, h)| (p.as_str(), h)).collect();
            let still_there = prev
                .sources
                .iter()
                .all(|(p, _)| req.sources.iter().any(|s| s.path == *p));
            let changed: Vec<SourceText> = req
                .sources
                .iter()
                .filter(|s| {
                    old.get(s.path.as_str())
                        .is_none_or(|h| **h != *blake3::hash(s.body.as_bytes()).as_bytes())
                })
                .cloned()
                .collect();
            if !still_there || (changed.len() == req.sources.len() && !changed.is_empty()) {
                return None;
            }
            changed
        };
        let tokens: usize = changed
            .iter()
            .map(|c| prompt::tokens(&c.body))
            .sum::<usize>()
            + prompt::tokens(&prev.summary);
        self.budget()
            .fits(tokens)
            .then_some((prev.summary, changed))
    }

    fn remember_previous(&self, req: &SummaryRequest, summary: &str) {
        let (Some(store), Some(source)) = (self.store, req.sources.first()) else {
            return;
        };
        let prev = Previous {
            len: source.body.len() as u64,
            hash: *blake3::hash(source.body.as_bytes()).as_bytes(),
            sources: req
                .sources
                .iter()
                .map(|s| (s.path.clone(), *blake3::hash(s.body.as_bytes()).as_bytes()))
                .collect(),
            summary: summary.to_string(),
        };
        let key = self.previous_key(req.node);
        store.put_previous_summary(key.as_str(), &prev, self.sync_now());
    }

    fn summary(&self, body: String) -> Summary {
        Summary {
            body,
            model: Some(self.settings.model.clone()),
            prompt_version: Some(prompt::PROMPT_VERSION.to_string()),
        }
    }

    fn count_hit(&self) {
        self.count(|s| s.cache_hits += 1);
    }

    fn count(&self, f: impl FnOnce(&mut Stats)) {
        if let Ok(mut s) = self.stats.lock() {
            f(&mut s);
        }
    }
}

/// An answer refused as a summary: the node is named once, by whoever
/// reports the failure.
fn implausible(reason: String) -> Failure {
    Failure::Refused(reason)
}

impl Summarizer for OllamaSummarizer<'_> {
    fn writer(&self) -> Writer {
        Writer::Model {
            model: self.settings.model.clone(),
            prompt_version: prompt::PROMPT_VERSION.to_string(),
        }
    }

    fn is_active(&self) -> bool {
        true
    }

    fn summarize(
        &self,
        requests: &[SummaryRequest],
        progress: &dyn Progress,
    ) -> Vec<std::result::Result<Summary, SummaryError>> {
        progress.event(Event::Begin {
            task: Task::Summarize,
            total: requests.len(),
        });
        let mut results: Vec<Option<std::result::Result<Summary, SummaryError>>> =
            vec![None; requests.len()];
        let mut todo = Vec::new();
        for (i, req) in requests.iter().enumerate() {
            match self.cached(&self.cache_key(&req.input_hash, "node")) {
                Some(body) => {
                    self.count_hit();
                    progress.event(Event::Done);
                    results[i] = Some(Ok(self.summary(body)));
                }
                None => todo.push(i),
            }
        }
        if !todo.is_empty() {
            let done = self.block_on(|| {
                futures_util::stream::iter(todo.iter().map(|&i| async move {
                    let req = &requests[i];
                    progress.event(Event::Started(&req.node.path()));
                    let r = self.summarize_one(req).await;
                    // Saved as soon as it is done: Ctrl-C or a crash later
                    // in the batch loses no summary.
                    if let Ok(s) = &r {
                        self.remember(&self.cache_key(&req.input_hash, "node"), &s.body);
                        self.remember_previous(req, &s.body);
                    }
                    progress.event(Event::Done);
                    (i, r)
                }))
                .buffer_unordered(self.settings.concurrency)
                .collect::<Vec<_>>()
            });
            match done {
                Ok(done) => {
                    for (i, r) in done {
                        results[i] = Some(r);
                    }
                }
                Err(e) => {
                    for i in todo {
                        results[i] = Some(Err(e.clone()));
                    }
                }
            }
        }
        results
            .into_iter()
            .map(|r| r.unwrap_or(Err(SummaryError::NotConfigured)))
            .collect()
    }

    fn notices(&self) -> Vec<String> {
        self.notices.lock().map(|n| n.clone()).unwrap_or_default()
    }

    fn root_sections(
        &self,
        input_hash: [u8; 32],
        context: &RootContext,
    ) -> Option<std::result::Result<[String; 3], SummaryError>> {
        Some(self.root_sections_impl(input_hash, &prompt::root_context(context)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn model_calls_from_inside_an_async_runtime_do_not_panic() {
        // An MCP server runs compaction from a tokio task: tokio panics if
        // a runtime is blocked from inside another.
        let settings = resolve(
            &LlmLayer::default(),
            &LlmLayer {
                backend: Some(Backend::Ollama),
                model: Some("m".into()),
                host: Some("http://127.0.0.1:9".into()),
                timeout_s: Some(2),
                ..Default::default()
            },
        )
        .unwrap();
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        let report = rt.block_on(async { check(&settings) }).unwrap();
        assert!(!report.reachable);
        let summarizer = OllamaSummarizer::new(settings, None).unwrap();
        let out = rt.block_on(async { summarizer.root_sections_impl([0; 32], "- a\n") });
        assert!(matches!(out, Err(SummaryError::Failed { .. })), "{out:?}");
        // The answer mode is part of every cache key.
        let json = summarizer.cache_key(&[0; 32], "call");
        summarizer.fall_back_to_text("test");
        assert_ne!(json, summarizer.cache_key(&[0; 32], "call"));
        assert!(json.ends_with(":hipo-v3:json"), "{json}");
        assert_eq!(summarizer.notices().len(), 1);
        summarizer.fall_back_to_text("again");
        assert_eq!(summarizer.notices().len(), 1, "said once");
    }
}
