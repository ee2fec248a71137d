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

pub mod prompt;

use crate::config::LlmConfig;
use crate::error::{Error, Result};
use crate::layout::{Level, NodeId};
use crate::progress::{Event, Progress, Task};
use crate::store::Store;
use crate::summarize::{SourceText, Summarizer, Summary, SummaryError, SummaryRequest, Writer};
use futures_util::StreamExt;
use ollama_rs::Ollama;
use ollama_rs::error::OllamaError;
use ollama_rs::generation::completion::request::GenerationRequest;
use ollama_rs::generation::parameters::{KeepAlive, TimeUnit};
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

/// Ollama's default address.
pub const DEFAULT_HOST: &str = "http://127.0.0.1:11434";

pub use crate::config::Backend;

/// Per-run overrides of `llm.*` (flags, or their environment variables).
#[derive(Debug, Clone, Default)]
pub struct Overrides {
    pub backend: Option<Backend>,
    pub host: Option<String>,
    pub model: Option<String>,
    pub timeout_s: Option<u64>,
    pub num_ctx: Option<u64>,
    pub temperature: Option<f32>,
    pub keep_alive: Option<String>,
    pub concurrency: Option<usize>,
}

/// The resolved LLM settings for one run.
#[derive(Debug, Clone, PartialEq)]
pub struct Settings {
    pub backend: Backend,
    /// Base URL, e.g. `http://127.0.0.1:11434`.
    pub host: String,
    pub model: String,
    pub timeout: Duration,
    pub num_ctx: u64,
    pub temperature: f32,
    pub keep_alive: Option<String>,
    pub concurrency: usize,
}

/// Merges config and overrides (overrides win) and checks the result.
pub fn resolve(config: &LlmConfig, o: &Overrides) -> Result<Settings> {
    let backend = o.backend.unwrap_or(config.backend);
    let model = o
        .model
        .clone()
        .or_else(|| config.model.clone())
        .unwrap_or_default();
    if backend == Backend::Ollama && model.trim().is_empty() {
        return Err(Error::Llm(
            "the ollama backend needs a model: pass --model NAME (or HIPO_MODEL, or llm.model in hipocampus.config.json)".into(),
        ));
    }
    let keep_alive = o.keep_alive.clone().or_else(|| config.keep_alive.clone());
    if let Some(k) = &keep_alive {
        parse_keep_alive(k)?;
    }
    Ok(Settings {
        backend,
        host: normalize_host(
            o.host
                .as_deref()
                .or(config.host.as_deref())
                .unwrap_or(DEFAULT_HOST),
        ),
        model,
        timeout: Duration::from_secs(o.timeout_s.unwrap_or(config.timeout_s).max(1)),
        num_ctx: o.num_ctx.unwrap_or(config.num_ctx).max(1024),
        temperature: o.temperature.unwrap_or(config.temperature),
        keep_alive,
        concurrency: o.concurrency.unwrap_or(config.concurrency).max(1),
    })
}

/// Accepts what `OLLAMA_HOST` accepts: `host`, `host:port`, or a URL.
pub fn normalize_host(host: &str) -> String {
    let host = host.trim().trim_end_matches('/');
    let with_scheme = if host.contains("://") {
        host.to_string()
    } else {
        format!("http://{host}")
    };
    let authority = with_scheme.split("://").nth(1).unwrap_or("");
    let has_port = authority
        .rsplit_once(':')
        .is_some_and(|(_, p)| p.chars().all(|c| c.is_ascii_digit()) && !p.is_empty());
    if has_port {
        with_scheme
    } else {
        format!("{with_scheme}:11434")
    }
}

fn parse_keep_alive(k: &str) -> Result<KeepAlive> {
    let k = k.trim();
    match k {
        "-1" => return Ok(KeepAlive::Indefinitely),
        "0" => return Ok(KeepAlive::UnloadOnCompletion),
        _ => {}
    }
    let (num, unit) = k.split_at(k.len().saturating_sub(1));
    match (num.parse::<u64>(), TimeUnit::from_symbol(unit)) {
        (Ok(time), Some(unit)) => Ok(KeepAlive::Until { time, unit }),
        _ => Err(Error::Llm(format!(
            "keep_alive `{k}` is not -1, 0 or a duration like 30s, 5m, 2h"
        ))),
    }
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
        // agent's edit to a node is not redacted on disk).
        let user = crate::redact::redact(&user).into_owned();
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

    /// Writes ROOT's narrative sections from the tree's summaries.
    fn root_sections_impl(
        &self,
        input_hash: [u8; 32],
        context: &str,
    ) -> std::result::Result<[String; 3], SummaryError> {
        let key = self.cache_key(&input_hash, "root");
        let text = match self.cached(&key) {
            Some(t) => {
                self.count_hit();
                t
            }
            None => {
                let system = format!("{}\n{}", prompt::system(Level::Root), ROOT_RULES);
                let answer = self.block_on(|| async {
                    // Too long for one call: the tree's summaries are merged
                    // down first, in chunks, never cut.
                    let ctx =
                        if prompt::fits(prompt::tokens(context), self.settings.num_ctx as usize) {
                            context.to_string()
                        } else {
                            let pieces = root_pieces(context);
                            let merge_system = prompt::system(Level::Monthly);
                            self.merge(NodeId::Root, &merge_system, pieces).await?
                        };
                    // Sent only if it fits: Ollama would cut it silently.
                    if !prompt::fits(prompt::tokens(&ctx), self.settings.num_ctx as usize) {
                        return Err(SummaryError::Failed {
                            reason:
                                "the tree's summaries do not fit the model's context even merged"
                                    .into(),
                            hint: "raise llm.num_ctx (or --num-ctx)".into(),
                        });
                    }
                    self.generate(&system, ctx).await
                })??;
                let sections = parse_root(&answer).ok_or_else(|| implausible(NodeId::Root, "the answer lacks ## Active Context, ## Recent Patterns or ## Historical Summary".into()))?;
                self.remember(&key, &answer);
                return Ok(sections);
            }
        };
        parse_root(&text)
            .ok_or_else(|| implausible(NodeId::Root, "cached answer unreadable".into()))
    }

    fn count_hit(&self) {
        if let Ok(mut s) = self.stats.lock() {
            s.cache_hits += 1;
        }
    }
}

const ROOT_RULES: &str = "Write ROOT.md's narrative sections from the summaries below (oldest first). Output exactly three sections: \
## Active Context (what is happening in the last ~7 days, one bullet per thread), ## Recent Patterns (cross-cutting insights), \
## Historical Summary (one bullet per month or range, `- YYYY-MM: key events`). Keep it short: at most 40 lines in all. \
Do not write a Topics Index; hipo computes it.";

/// ROOT's context cut at its `===== path =====` headers, for merging.
fn root_pieces(context: &str) -> Vec<String> {
    let mut pieces: Vec<String> = Vec::new();
    for line in context.split_inclusive('\n') {
        match pieces.last_mut() {
            Some(last) if !line.starts_with("===== ") => last.push_str(line),
            _ => pieces.push(line.to_string()),
        }
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

/// The outcome of `hipo llm check`.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Check {
    pub host: String,
    pub model: String,
    /// The server answered.
    pub reachable: bool,
    /// The model is pulled.
    pub model_present: bool,
    /// One line for a person.
    pub message: String,
}

/// Asks the server for its models: is it up, and is the model pulled?
pub fn check(settings: &Settings) -> Result<Check> {
    let summarizer = OllamaSummarizer::new(settings.clone(), None)?;
    let host = settings.host.clone();
    let model = settings.model.clone();
    let listed = summarizer
        .block_on(|| async {
            tokio::time::timeout(settings.timeout, summarizer.client.list_local_models()).await
        })
        .map_err(|e| Error::Llm(format!("{e:?}")))?;
    let (reachable, model_present, message) = match listed {
        Err(_) => (
            false,
            false,
            format!(
                "ollama at {host}: no answer within {}s; is it running (`ollama serve`)?",
                settings.timeout.as_secs()
            ),
        ),
        Ok(Err(e)) => match summarizer.explain(e) {
            SummaryError::Failed { reason, hint } => (false, false, format!("{reason}; {hint}")),
            SummaryError::NotConfigured => (false, false, "not configured".into()),
        },
        Ok(Ok(models)) => {
            let present = models
                .iter()
                .any(|m| m.name == model || m.name == format!("{model}:latest"));
            let msg = if model.is_empty() {
                format!(
                    "ollama at {host} is up ({} models); no model configured: pass --model NAME",
                    models.len()
                )
            } else if present {
                format!("ollama at {host} is up and model `{model}` is pulled")
            } else {
                format!(
                    "ollama at {host} is up but model `{model}` is not pulled: run `ollama pull {model}`"
                )
            };
            (true, present, msg)
        }
    };
    Ok(Check {
        host,
        model,
        reachable,
        model_present,
        message,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hosts_like_ollama_host() {
        assert_eq!(normalize_host("127.0.0.1"), "http://127.0.0.1:11434");
        assert_eq!(normalize_host("0.0.0.0:9999"), "http://0.0.0.0:9999");
        assert_eq!(normalize_host("http://box:11434/"), "http://box:11434");
        assert_eq!(normalize_host("https://box"), "https://box:11434");
    }

    #[test]
    fn resolve_merges_and_validates() {
        let cfg = LlmConfig::default();
        assert_eq!(
            resolve(&cfg, &Overrides::default()).unwrap().backend,
            Backend::None
        );
        let o = Overrides {
            backend: Some(Backend::Ollama),
            ..Default::default()
        };
        assert!(
            resolve(&cfg, &o)
                .unwrap_err()
                .to_string()
                .contains("needs a model")
        );
        let o = Overrides {
            backend: Some(Backend::Ollama),
            model: Some("m".into()),
            concurrency: Some(0),
            ..Default::default()
        };
        let s = resolve(&cfg, &o).unwrap();
        assert_eq!(
            (s.host.as_str(), s.concurrency, s.temperature),
            (DEFAULT_HOST, 1, 0.2)
        );
        assert!("gpt".parse::<Backend>().is_err());
        let o = Overrides {
            keep_alive: Some("5 minutes".into()),
            ..Default::default()
        };
        assert!(resolve(&cfg, &o).is_err());
        assert!(parse_keep_alive("5m").is_ok() && parse_keep_alive("-1").is_ok());
    }

    #[test]
    fn model_calls_from_inside_an_async_runtime_do_not_panic() {
        // An MCP server runs compaction from a tokio task: tokio panics if
        // a runtime is blocked from inside another.
        let settings = resolve(
            &LlmConfig::default(),
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

    #[test]
    fn root_answer_parses() {
        let a = "## Active Context\n- a\n## Recent Patterns\n- b\n## Historical Summary\n- 2026-03: c\n";
        assert_eq!(parse_root(a).unwrap()[2], "- 2026-03: c\n");
        assert!(parse_root("## Active Context\n- a\n").is_none());
    }
}
