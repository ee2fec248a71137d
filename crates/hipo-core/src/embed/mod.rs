//! Hybrid search's other half: section vectors from a local embedding
//! model (Ollama's `/api/embed`), cached in `.hipo/vectors/`, and the
//! question's vector compared with them at search time.
//!
//! Optional and off by default: a model is named by `search.embed.model`
//! (or `HIPO_EMBED_MODEL`, or `--embed-model`; the later wins, by the one
//! rule of `config::layers`). Any failure of the model (Ollama down, the
//! model not pulled, a timeout) leaves the search lexical, said once: a
//! search never fails because a model is away.
//!
//! - `client`: one batched `/api/embed` call through ollama-rs.
//! - `cache`: the vectors on disk (f16 and i8, memory-mapped), a row per
//!   passage, by section and text fingerprint.
//! - `scan`: the brute-force nearest sections (best passage per section).
//! - `text`: a section's passages, what its vectors are made of.
//! - `fusion`: reciprocal rank fusion.
//! - here: settings, bringing the cache up to date, the question's nearest.

pub mod cache;
mod client;
pub(crate) mod fusion;
mod scan;
pub mod text;

use crate::config::layers::merged;
use crate::config::{Config, DEFAULT_TIMEOUT_S};
use crate::error::{Error, Result};
use crate::index::SearchIndex;
use crate::progress::{Event, Progress, Task};
pub use crate::search::vectors::Mode;
pub(crate) use crate::search::vectors::Nearest;
use crate::search::vectors::ToEmbed;
use cache::VectorCache;
use client::Embedder;
use std::path::Path;
use std::sync::Mutex;
use std::time::Duration;

/// Passages sent per `/api/embed` request (a section's passages go in
/// one request, so a request may hold up to `text::MAX_PIECES` + 1 more):
/// one request's work is what an interruption can lose.
pub const BATCH: usize = 32;
/// Sections nearest the question kept for fusion.
pub const NEAREST: usize = 100;
/// A question's vector must come this fast, or the search is lexical.
pub const QUERY_TIMEOUT: Duration = Duration::from_secs(10);

crate::config::layers::layer! {
    /// One layer of the embedding settings (`config::layers`): the
    /// config's ([`EmbedLayer::of_config`]), the flags' and their
    /// environment variables', or a caller's for one search (a mode).
    #[derive(Debug, Clone, Default, PartialEq)]
    pub struct EmbedLayer {
        pub model: String,
        pub mode: Mode,
        pub host: String,
    }
}

impl EmbedLayer {
    /// The config file's layer: `search.embed.model`, and the server of
    /// `llm.host` (one Ollama serves both).
    pub fn of_config(config: &Config) -> EmbedLayer {
        EmbedLayer {
            model: config.search.embed.model.clone(),
            mode: None,
            host: config.llm.host.clone(),
        }
    }
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

/// The config's layer under `over` (flags over their environment
/// variables; a search's mode over those), merged key by key; then the
/// defaults. Hybrid is the default only when a model is named; asking for
/// vectors without a model is a usage error.
pub fn resolve(config: &Config, over: &EmbedLayer) -> Result<Settings> {
    let l = merged([EmbedLayer::of_config(config), over.clone()]);
    let model = l.model.filter(|m| !m.trim().is_empty());
    let mode = l.mode.unwrap_or(if model.is_some() {
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
    let host = l.host.as_deref().unwrap_or(crate::llm::DEFAULT_HOST);
    let timeout_s = config.llm.timeout_s.unwrap_or(DEFAULT_TIMEOUT_S);
    Ok(Settings {
        model,
        host: crate::llm::normalize_host(host),
        mode,
        batch_timeout: Duration::from_secs(timeout_s.max(1)),
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
    /// Passages embedded now (sent to the model).
    pub new: usize,
    /// Passages of new or changed sections whose text the cache held.
    pub reused: usize,
    /// Sections the cache held.
    pub cached: usize,
    /// Rows of sections no longer indexed, dropped by a compaction.
    pub dropped: usize,
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
        let (todo, live) = crate::search::vectors::missing(index, root, &|fp| cache.contains(fp))?;
        let mut done = Embedded {
            cached: cache.sections(),
            ..Embedded::default()
        };
        if !todo.is_empty() || cache.needs_compaction(&live) {
            let lock = cache.lock()?;
            // Another process may have embedded them while we waited.
            cache.load()?;
            let todo: Vec<_> = todo.into_iter().filter(|t| !cache.contains(t.fp)).collect();
            let mut run = Run {
                embedder: &embedder,
                cache: &mut cache,
                lock: &lock,
                settings,
                progress,
                done: &mut done,
            };
            if let Err(why) = run.embed_all(&todo) {
                return off(why);
            }
            done.dropped = cache.compact(&lock, &live)?;
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
        match cache.nearest(&vector, NEAREST) {
            Ok(sections) => Ok(Some(Nearest {
                mode: self.mode,
                sections,
            })),
            Err(e) => {
                *state = State::Off;
                Err(e.to_string())
            }
        }
    }
}

/// One run bringing the cache up to date, under its lock.
struct Run<'a> {
    embedder: &'a Embedder,
    cache: &'a mut VectorCache,
    lock: &'a cache::WriteLock,
    settings: &'a Settings,
    progress: &'a dyn Progress,
    done: &'a mut Embedded,
}

/// A row waiting for its vector: known already, or the `n`th text sent.
enum Pending {
    Known(Vec<f32>),
    Sent(usize),
}

impl Run<'_> {
    /// Embeds the passages of `todo` whose text the cache lacks, a batch
    /// of whole sections at a time, appending each as answered.
    fn embed_all(&mut self, todo: &[ToEmbed]) -> std::result::Result<(), String> {
        let plan: Vec<(u64, Vec<(u64, String)>)> = todo
            .iter()
            .map(|t| {
                let pieces = text::section_pieces(&t.text);
                (t.fp, pieces.into_iter().map(|p| (text_fp(&p), p)).collect())
            })
            .collect();
        let unknown: std::collections::HashSet<u64> = plan
            .iter()
            .flat_map(|(_, ps)| ps.iter().map(|p| p.0))
            .filter(|fp| !self.cache.has_text(*fp))
            .collect();
        self.progress.event(Event::Begin {
            task: Task::Embed,
            total: unknown.len(),
        });
        let mut rows: Vec<(cache::Row, Pending)> = Vec::new();
        let mut send: Vec<String> = Vec::new();
        for (section, pieces) in plan {
            let count = pieces.len().min(usize::from(u16::MAX)) as u16;
            for (i, (fp, piece)) in pieces.into_iter().enumerate().take(count.into()) {
                let row = cache::Row {
                    section,
                    text: fp,
                    piece: i as u16,
                    count,
                    vector: Vec::new(),
                };
                let pending = match self.cache.vector_of_text(fp) {
                    Some(v) => Pending::Known(v),
                    None => {
                        send.push(piece);
                        Pending::Sent(send.len() - 1)
                    }
                };
                rows.push((row, pending));
            }
            if send.len() >= BATCH {
                self.flush(&mut rows, &mut send)?;
            }
        }
        self.flush(&mut rows, &mut send)
    }

    /// Embeds `send`, appends `rows` with their vectors, empties both.
    fn flush(
        &mut self,
        rows: &mut Vec<(cache::Row, Pending)>,
        send: &mut Vec<String>,
    ) -> std::result::Result<(), String> {
        let mut vectors = if send.is_empty() {
            Vec::new()
        } else {
            self.embedder.embed(send, self.settings.batch_timeout)?
        };
        let mut out = Vec::with_capacity(rows.len());
        for (mut row, pending) in rows.drain(..) {
            row.vector = match pending {
                Pending::Known(v) => {
                    self.done.reused += 1;
                    v
                }
                Pending::Sent(n) => vectors.get_mut(n).map(std::mem::take).unwrap_or_default(),
            };
            out.push(row);
        }
        self.cache
            .append(self.lock, &out)
            .map_err(|e| format!("cannot keep vectors: {e}"))?;
        self.done.new += send.len();
        for _ in send.drain(..) {
            self.progress.event(Event::Started(self.embedder.model()));
            self.progress.event(Event::Done);
        }
        Ok(())
    }
}

/// A passage's text fingerprint: what its vector is cached by (with the
/// model, which owns the cache).
fn text_fp(text: &str) -> u64 {
    let hash = blake3::hash(text.as_bytes());
    let mut b = [0u8; 8];
    b.copy_from_slice(&hash.as_bytes()[..8]);
    u64::from_le_bytes(b)
}
