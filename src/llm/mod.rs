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

mod check;
pub mod prompt;
mod root;
mod settings;

pub use check::{Check, check};
use settings::parse_keep_alive;
pub use settings::{Backend, DEFAULT_HOST, Overrides, Settings, normalize_host, resolve};

use crate::error::{Error, Result};
use crate::layout::NodeId;
use crate::progress::{Event, Progress, Task};
use crate::store::Store;
use crate::summarize::{SourceText, Summarizer, Summary, SummaryError, SummaryRequest, Writer};
use futures_util::StreamExt;
use ollama_rs::Ollama;
use ollama_rs::error::OllamaError;
use ollama_rs::generation::completion::request::GenerationRequest;
use ollama_rs::models::ModelOptions;
use std::sync::Mutex;
use std::time::{Duration, Instant};

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
    /// Wall time spent waiting on the model, in microseconds.
    pub model_us: u64,
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
}

impl<'s> OllamaSummarizer<'s> {
    /// A summarizer for `settings`, caching in `store` when given.
    pub fn new(settings: Settings, store: Option<&'s Store>) -> Result<Self> {
        let client = Ollama::try_new(settings.host.as_str())
            .map_err(|e| Error::Llm(format!("bad ollama host `{}`: {e}", settings.host)))?;
        Ok(OllamaSummarizer {
            settings,
            client,
            store,
            resummarize: false,
            stats: Mutex::new(Stats::default()),
            last_sync: Mutex::new(None),
        })
    }

    /// Calls made so far.
    pub fn stats(&self) -> Stats {
        self.stats.lock().map(|s| s.clone()).unwrap_or_default()
    }

    fn cache_key(&self, input_hash: &[u8; 32], what: &str) -> String {
        let hex: String = input_hash.iter().map(|b| format!("{b:02x}")).collect();
        format!(
            "{hex}:{what}:{}:{}",
            self.settings.model,
            prompt::PROMPT_VERSION
        )
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
            return run();
        }
        std::thread::scope(|s| s.spawn(run).join()).unwrap_or_else(|_| {
            Err(SummaryError::Failed {
                reason: "the model call's thread panicked".into(),
                hint: "this is a bug in hipo; please report it".into(),
            })
        })
    }

    /// One non-streaming generate call, with the timeout and options.
    async fn generate(
        &self,
        system: &str,
        user: String,
    ) -> std::result::Result<String, SummaryError> {
        // Everything sent is redacted here, whoever built the prompt (an
        // agent's edit to a node is not redacted on disk), and hipo's own
        // markers are never sent as content.
        let user = prompt::without_markers(&crate::redact::redact(&user));
        let mut options = ModelOptions::default()
            .num_ctx(self.settings.num_ctx)
            .temperature(self.settings.temperature);
        options = options.num_predict(prompt::answer_tokens(self.settings.num_ctx as usize) as i32);
        let mut request = GenerationRequest::new(self.settings.model.clone(), user.clone())
            .system(system.to_string())
            .options(options);
        if let Some(k) = self
            .settings
            .keep_alive
            .as_deref()
            .and_then(|k| parse_keep_alive(k).ok())
        {
            request = request.keep_alive(k);
        }
        let start = Instant::now();
        let result =
            tokio::time::timeout(self.settings.timeout, self.client.generate(request)).await;
        let elapsed = start.elapsed();
        if let Ok(mut s) = self.stats.lock() {
            s.calls += 1;
            s.model_us += elapsed.as_micros() as u64;
        }
        match result {
            Err(_) => Err(SummaryError::Failed {
                reason: format!(
                    "no answer from {} within {}s",
                    self.settings.host,
                    self.settings.timeout.as_secs()
                ),
                hint: "raise llm.timeout_s (or --timeout-s), or use a smaller model".into(),
            }),
            Ok(Err(e)) => Err(self.explain(e)),
            Ok(Ok(response)) => {
                if let Ok(mut s) = self.stats.lock() {
                    s.prompt_tokens += response
                        .prompt_eval_count
                        .unwrap_or((prompt::tokens(system) + prompt::tokens(&user)) as u64);
                    s.output_tokens += response
                        .eval_count
                        .unwrap_or(prompt::tokens(&response.response) as u64);
                }
                Ok(crate::redact::redact(&response.response).into_owned())
            }
        }
    }

    /// Turns a client error into a reason and what to do about it.
    fn explain(&self, e: OllamaError) -> SummaryError {
        let host = &self.settings.host;
        let model = &self.settings.model;
        match e {
            OllamaError::ReqwestError(re) if re.is_connect() => SummaryError::Failed {
                reason: format!("cannot connect to ollama at {host}"),
                hint: "start it with `ollama serve`, or set llm.host / OLLAMA_HOST".into(),
            },
            OllamaError::ReqwestError(re) if re.is_timeout() => SummaryError::Failed {
                reason: format!("ollama at {host} timed out"),
                hint: "raise llm.timeout_s (or --timeout-s)".into(),
            },
            OllamaError::Other(text) if text.contains("not found") => SummaryError::Failed {
                reason: format!("model `{model}` is not available on {host}"),
                hint: format!("run `ollama pull {model}`"),
            },
            OllamaError::JsonError(err) => SummaryError::Failed {
                reason: format!("ollama sent a malformed response ({err})"),
                hint: "check that llm.host points at an Ollama server".into(),
            },
            other => SummaryError::Failed {
                reason: format!("ollama error: {}", describe(&other)),
                hint: "run `hipo llm check`".into(),
            },
        }
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
        prompt::fits(tokens, self.settings.num_ctx as usize).then_some((prev.summary, changed))
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

    /// Summarises one node: fold in an append if that is all that changed,
    /// else chunk, summarise each chunk, merge.
    async fn summarize_one(
        &self,
        req: &SummaryRequest,
    ) -> std::result::Result<Summary, SummaryError> {
        let system = prompt::system(req.node.level());
        if let Some((previous, changed)) = self.delta(req) {
            if changed.is_empty() {
                // The sources' text is as summarised (only frontmatter moved).
                return Ok(self.summary(previous));
            }
            let body = self
                .ask(
                    req.node,
                    &system,
                    prompt::update(req.node, &previous, &changed),
                )
                .await?;
            return Ok(self.summary(body));
        }
        let parts = prompt::chunks(&req.sources, self.settings.num_ctx as usize);
        let mut partials = Vec::with_capacity(parts.len());
        let n = parts.len();
        for (i, part) in parts.iter().enumerate() {
            let label = (n > 1).then_some((i + 1, n));
            partials.push(
                self.ask(req.node, &system, prompt::user(req.node, label, part))
                    .await?,
            );
        }
        let body = self.merge(req.node, &system, partials).await?;
        Ok(self.summary(body))
    }

    /// One model call whose answer must be a plausible summary, cached by
    /// the prompt itself: a run interrupted half-way through a node's
    /// chunks resumes from the first chunk not yet answered.
    async fn ask(
        &self,
        node: NodeId,
        system: &str,
        user: String,
    ) -> std::result::Result<String, SummaryError> {
        let mut h = blake3::Hasher::new();
        h.update(system.as_bytes());
        h.update(&[0]);
        h.update(user.as_bytes());
        let key = self.cache_key(h.finalize().as_bytes(), "call");
        if let Some(answer) = self.cached(&key) {
            self.count_hit();
            return Ok(answer);
        }
        let answer = self.generate(system, user).await?;
        let body = prompt::accept(&answer).map_err(|reason| implausible(node, reason))?;
        self.remember(&key, &body);
        Ok(body)
    }

    /// Merges partial summaries, in groups that fit the context if needed.
    async fn merge(
        &self,
        node: NodeId,
        system: &str,
        mut partials: Vec<String>,
    ) -> std::result::Result<String, SummaryError> {
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
            let groups = prompt::chunks(&as_sources, self.settings.num_ctx as usize);
            let mut next = Vec::with_capacity(groups.len());
            let stalled = groups.len() == partials.len();
            for group in groups {
                if group.len() == 1 && !stalled {
                    next.push(group[0].body.clone());
                    continue;
                }
                let texts: Vec<String> = group.into_iter().map(|s| s.body).collect();
                next.push(self.ask(node, system, prompt::merge(node, &texts)).await?);
            }
            if stalled && next.len() == partials.len() {
                // Each partial alone fills the context: keep them all, in order.
                return Ok(next.join("\n"));
            }
            partials = next;
        }
        Ok(partials.pop().unwrap_or_default())
    }

    fn count_hit(&self) {
        if let Ok(mut s) = self.stats.lock() {
            s.cache_hits += 1;
        }
    }
}

fn implausible(node: NodeId, reason: String) -> SummaryError {
    SummaryError::Failed {
        reason: format!("{reason} (for {})", node.path()),
        hint:
            "re-run `hipo summarize`; if it keeps failing, try another model or raise llm.num_ctx"
                .into(),
    }
}

fn describe(e: &OllamaError) -> String {
    let mut msg = e.to_string();
    let mut source = std::error::Error::source(e);
    while let Some(s) = source {
        msg.push_str(&format!(": {s}"));
        source = s.source();
    }
    msg
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

    fn root_sections(
        &self,
        input_hash: [u8; 32],
        context: &str,
    ) -> Option<std::result::Result<[String; 3], SummaryError>> {
        Some(self.root_sections_impl(input_hash, context))
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
            &crate::config::LlmConfig::default(),
            &Overrides {
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
    }
}
