//! Hybrid search's other half: section vectors from a local embedding
//! model (Ollama's `/api/embed`), cached in `.hipo/vectors/`, and the
//! question's vector compared with them at search time.
//!
//! Optional and off by default: a model is named by `search.embed.model`
//! (or `--embed-model`, `HIPO_EMBED_MODEL`). Any failure of the model
//! (Ollama down, the model not pulled, a timeout) leaves the search
//! lexical, said once: a search never fails because a model is away.
//!
//! - `client`: one batched `/api/embed` call through ollama-rs.
//! - `cache`: the vectors on disk (f16, memory-mapped), by fingerprint.
//! - `text`: what a section's vector is made of.
//! - `fusion`: reciprocal rank fusion.
//! - here: settings, bringing the cache up to date, the question's nearest.

pub mod cache;
pub mod client;
pub mod fusion;
pub mod text;

use crate::config::Config;
use crate::error::{Error, Result};
use crate::index::SearchIndex;
use crate::progress::{Event, Progress, Task};
pub use crate::search::vectors::{Mode, Nearest};
use cache::VectorCache;
use client::Embedder;
use std::path::Path;
use std::sync::Mutex;
use std::time::Duration;

/// Sections sent per `/api/embed` request: one request's work is what an
/// interruption can lose, and a progress step.
pub const BATCH: usize = 32;
/// Sections nearest the question kept for fusion.
pub const NEAREST: usize = 100;
/// A question's vector must come this fast, or the search is lexical.
pub const QUERY_TIMEOUT: Duration = Duration::from_secs(10);

/// Per-run overrides (flags or environment).
#[derive(Debug, Clone, Default)]
pub struct Overrides {
    pub model: Option<String>,
    pub mode: Option<Mode>,
    pub host: Option<String>,
}

/// Which embedding model, where, and how searches use it.
#[derive(Debug, Clone, PartialEq)]
pub struct Settings {
    /// `None`: lexical only.
    pub model: Option<String>,
    /// Normalised Ollama URL.
    pub host: String,
    pub mode: Mode,
    /// For a batch of sections (`llm.timeout_s`).
    pub batch_timeout: Duration,
}

/// Config < overrides. Hybrid is the default only when a model is named;
/// asking for vectors without a model is a usage error.
pub fn resolve(config: &Config, o: &Overrides) -> Result<Settings> {
    let model = o
        .model
        .clone()
        .or_else(|| config.search.embed.model.clone())
        .filter(|m| !m.trim().is_empty());
    let mode = o.mode.unwrap_or(if model.is_some() {
        Mode::Hybrid
    } else {
        Mode::Lexical
    });
    if mode != Mode::Lexical && model.is_none() {
        return Err(Error::Usage(format!(
            "--mode {} needs an embedding model: pass --embed-model NAME (or HIPO_EMBED_MODEL, or search.embed.model in hipocampus.config.json), e.g. all-minilm",
            mode.as_str()
        )));
    }
    let host = o
        .host
        .as_deref()
        .or(config.llm.host.as_deref())
        .unwrap_or(crate::llm::DEFAULT_HOST);
    Ok(Settings {
        model,
        host: crate::llm::normalize_host(host),
        mode,
        batch_timeout: Duration::from_secs(config.llm.timeout_s.max(1)),
    })
}

/// Vectors ready for a run's searches, or why there are none.
pub struct Semantic {
    mode: Mode,
    state: Mutex<State>,
}

enum State {
    Ready(Box<(Embedder, VectorCache)>),
    /// The model failed: searches are lexical; the reason was said.
    Off,
}

/// What bringing the vectors up to date did.
#[derive(Debug, Default, Clone)]
pub struct Embedded {
    /// Sections embedded now.
    pub new: usize,
    /// Sections the cache held.
    pub cached: usize,
}

impl Semantic {
    /// Brings the cache of `settings`' model up to date with `index` (only
    /// sections it lacks, in batches, each kept as soon as it is
    /// answered). A model that fails leaves a lexical [`Semantic`] and the
    /// reason, for the caller to say.
    pub fn prepare(
        root: &Path,
        index: &SearchIndex,
        settings: &Settings,
        progress: &dyn Progress,
    ) -> Result<(Semantic, Embedded, Option<String>)> {
        let off = |why: String| {
            Ok((
                Semantic {
                    mode: settings.mode,
                    state: Mutex::new(State::Off),
                },
                Embedded::default(),
                Some(why),
            ))
        };
        let Some(model) = settings
            .model
            .as_deref()
            .filter(|_| settings.mode != Mode::Lexical)
        else {
            return off(String::new());
        };
        let embedder = match Embedder::new(&settings.host, model) {
            Ok(e) => e,
            Err(why) => return off(why),
        };
        let hipo_dir = root.join(crate::layout::HIPO_DIR);
        let mut cache = VectorCache::open(&hipo_dir, model)?;
        let todo = crate::search::vectors::missing(index, root, &|fp| cache.contains(fp))?;
        let mut done = Embedded {
            new: 0,
            cached: cache.len(),
        };
        if !todo.is_empty() {
            let lock = cache.lock()?;
            // Another process may have embedded them while we waited.
            cache.load()?;
            let todo: Vec<_> = todo.into_iter().filter(|t| !cache.contains(t.fp)).collect();
            if let Err(why) = embed_all(
                &embedder, &mut cache, &lock, &todo, settings, progress, &mut done,
            ) {
                return off(why);
            }
            cache.load()?;
        }
        Ok((
            Semantic {
                mode: settings.mode,
                state: Mutex::new(State::Ready(Box::new((embedder, cache)))),
            },
            done,
            None,
        ))
    }

    pub fn mode(&self) -> Mode {
        self.mode
    }

    /// Whether searches use vectors (false once the model failed).
    pub fn is_on(&self) -> bool {
        matches!(
            *self.state.lock().unwrap_or_else(|p| p.into_inner()),
            State::Ready(..)
        )
    }

    /// The sections nearest `question`. A failure turns vectors off for the
    /// rest of the run (an eval does not wait out 150 timeouts) and is
    /// returned to be said.
    pub fn nearest(&self, question: &str) -> std::result::Result<Option<Nearest>, String> {
        let mut state = self.state.lock().unwrap_or_else(|p| p.into_inner());
        let State::Ready(ready) = &*state else {
            return Ok(None);
        };
        let (embedder, cache) = &**ready;
        let vector = match embedder.embed(&[question.to_string()], QUERY_TIMEOUT) {
            Ok(mut v) => v.pop().unwrap_or_default(),
            Err(why) => {
                *state = State::Off;
                return Err(why);
            }
        };
        Ok(Some(Nearest {
            mode: self.mode,
            sections: cache.nearest(&vector, NEAREST),
        }))
    }
}

/// Embeds `todo` batch by batch, appending each to the cache as answered.
fn embed_all(
    embedder: &Embedder,
    cache: &mut VectorCache,
    lock: &cache::WriteLock,
    todo: &[crate::search::vectors::ToEmbed],
    settings: &Settings,
    progress: &dyn Progress,
    done: &mut Embedded,
) -> std::result::Result<(), String> {
    progress.event(Event::Begin {
        task: Task::Embed,
        total: todo.len(),
    });
    for batch in todo.chunks(BATCH) {
        let texts: Vec<String> = batch.iter().map(|t| text::section_text(&t.text)).collect();
        let vectors = embedder.embed(&texts, settings.batch_timeout)?;
        let rows: Vec<(u64, Vec<f32>)> = batch.iter().map(|t| t.fp).zip(vectors).collect();
        cache
            .append(lock, &rows)
            .map_err(|e| format!("cannot keep vectors: {e}"))?;
        done.new += rows.len();
        for _ in batch {
            progress.event(Event::Started(embedder.model()));
            progress.event(Event::Done);
        }
    }
    Ok(())
}
