//! The one door into the engine: every front end (the CLI, the benches,
//! hooks, an MCP server) opens a project here and calls these methods, so
//! none of them assembles scan, compact, index and the lock by hand.
//!
//! [`Hipo`] is an unlocked handle: reads (search, get) go through it and
//! never wait long on a writer. [`Session`] holds the project lock: every
//! operation that writes (compact, append, summarize) is a method of it,
//! so the type system says who may write.
//!
//! These types, with the option and result types of their methods, are
//! the crate's whole public surface (re-exported flat at its root; every
//! other module is private). Nothing below the facade imports it: it
//! composes `recall`, `status` and the rest, handing each what it needs.

mod read;
mod session;

pub use crate::project::InitReport;
pub use session::{Appended, Compacted, Session, clock_on};

use crate::config::Config;
use crate::embed;
use crate::error::{Error, Result};
use crate::eval::{self, Case};
use crate::fsutil::ProjectLock;
use crate::index::{self, Fresh, IndexStats, SyncReport};
use crate::progress::Progress;
use crate::project;
use crate::recall;
use crate::search::{self, Hit, get, query::Query};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Called when an operation starts waiting for another hipo process.
type WaitNotice = Box<dyn Fn(&Path) + Send + Sync>;

/// A project, found and configured but not locked.
pub struct Hipo {
    root: PathBuf,
    config: Config,
    on_wait: Option<WaitNotice>,
    /// The front end's layer over `search.embed.*` (flags over their
    /// environment variables).
    embed: embed::EmbedLayer,
}

impl std::fmt::Debug for Hipo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Hipo").field("root", &self.root).finish()
    }
}

/// Looks a read takes at an index a writer in another process changed
/// under it.
const TORN_READ_TRIES: usize = 3;

/// Runs a read of the index, again with a fresh view when its first view
/// was torn: a reader never waits on a writer, so another process may
/// commit and collect the segment files a view names while it reads
/// them, and a reader opened a moment later sees the new ones.
fn looking_again<T>(mut read: impl FnMut() -> Result<T>) -> Result<T> {
    let mut tries = 0;
    loop {
        match read() {
            Err(e) if e.is_torn_read() && tries < TORN_READ_TRIES => tries += 1,
            done => return done,
        }
    }
}

impl Hipo {
    /// The project at `dir` if given (it must be one), else the nearest
    /// ancestor of `cwd` holding `hipocampus.config.json` or `memory/`.
    pub fn find(dir: Option<&Path>, cwd: &Path) -> Result<Hipo> {
        Hipo::open(&project::find_root(dir, cwd)?)
    }

    /// The project rooted at `root`, with its config read.
    pub fn open(root: &Path) -> Result<Hipo> {
        Ok(Hipo {
            root: root.to_path_buf(),
            config: Config::load(root)?,
            on_wait: None,
            embed: embed::EmbedLayer::default(),
        })
    }

    /// Creates the hipocampus layout under `root` (idempotent, never
    /// overwrites a file) and opens it.
    pub fn init(root: &Path, today: chrono::NaiveDate) -> Result<(Hipo, InitReport)> {
        std::fs::create_dir_all(root).map_err(|e| Error::io(root, e))?;
        let report = project::init(root, today)?;
        Ok((Hipo::open(root)?, report))
    }

    /// Tells the front end when an operation starts waiting for the lock,
    /// so a person is not left staring at a silent terminal.
    pub fn on_wait(mut self, notice: impl Fn(&Path) + Send + Sync + 'static) -> Hipo {
        self.on_wait = Some(Box::new(notice));
        self
    }

    /// Sets the embedding model, mode and server over the config's (flags,
    /// environment) for this handle's searches.
    pub fn with_embed(mut self, layer: embed::EmbedLayer) -> Hipo {
        self.embed = layer;
        self
    }

    /// The embedding settings searches use: the config with this handle's
    /// layer over it (a mode needing a model without one is a usage error).
    pub(crate) fn embed_settings(&self) -> Result<embed::Settings> {
        embed::resolve(&self.config, &self.embed)
    }

    /// [`Hipo::embed_settings`] with the mode `mode` when given (a caller
    /// choosing per search, like an MCP tool call): one more layer, on top.
    fn embed_settings_in(&self, mode: Option<embed::Mode>) -> Result<embed::Settings> {
        let call = embed::EmbedLayer {
            mode,
            ..Default::default()
        };
        let over = crate::config::layers::merged([self.embed.clone(), call]);
        embed::resolve(&self.config, &over)
    }

    /// The project root.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// `hipocampus.config.json`, as read when the project was opened.
    pub fn config(&self) -> &Config {
        &self.config
    }

    /// Takes the project lock, waiting up to `wait` for another hipo
    /// process ([`Error::Busy`] after that), and opens the store.
    pub fn lock(&self, wait: Duration) -> Result<Session<'_>> {
        Session::open(self, wait)
    }

    fn notice(&self) -> impl FnOnce() + '_ {
        move || {
            if let Some(n) = &self.on_wait {
                n(&self.root)
            }
        }
    }

    /// The search index, brought up to date first when the lock is free.
    /// A search never waits for a writer while an index exists, and never
    /// fails because it cannot write: with the lock busy or the disk full
    /// or read only it answers from the index (current if nothing changed,
    /// else as it is: `fresh` false, with a warning). With no index yet it
    /// waits up to `wait` for a writer (saying so through
    /// [`Hipo::on_wait`]), then fails with [`Error::Busy`]. Redaction of
    /// stale sections is decided here, not by callers.
    pub fn searcher(&self, wait: Duration, progress: &dyn Progress) -> Result<Searcher> {
        self.searcher_in(None, wait, progress)
    }

    /// [`Hipo::searcher`] in `mode` when given, else the configured one.
    pub(crate) fn searcher_in(
        &self,
        mode: Option<embed::Mode>,
        wait: Duration,
        progress: &dyn Progress,
    ) -> Result<Searcher> {
        // Settings first: a mode needing a model without one fails before
        // any work.
        let settings = self.embed_settings_in(mode)?;
        let fresh = self.fresh(index::Patience::Search { max_wait: wait }, progress)?;
        self.searcher_of(fresh, settings, progress)
    }

    /// A searcher over `fresh`, with vectors brought up to date when a
    /// mode wants them. A model that fails is said once (in `warnings`)
    /// and the searches are lexical.
    fn searcher_of(
        &self,
        fresh: Fresh,
        settings: embed::Settings,
        progress: &dyn Progress,
    ) -> Result<Searcher> {
        let mut searcher = Searcher {
            root: self.root.clone(),
            fresh,
            semantic: None,
            mode: settings.mode,
            notes: std::sync::Mutex::new(Vec::new()),
            embedded: None,
        };
        if settings.mode != embed::Mode::Lexical {
            let (semantic, done, why) =
                embed::Semantic::prepare(&self.root, &searcher.fresh.index, &settings, progress)?;
            if let Some(why) = why {
                searcher.note(why);
            }
            searcher.semantic = Some(semantic);
            searcher.embedded = Some(done);
        }
        Ok(searcher)
    }

    /// One search: [`Hipo::searcher`] and a query.
    pub fn search(
        &self,
        q: &Query,
        opts: &search::Options,
        wait: Duration,
        progress: &dyn Progress,
    ) -> Result<Found> {
        self.search_in(None, q, opts, wait, progress)
    }

    /// [`Hipo::search`] in `mode` when given, else the configured one.
    pub fn search_in(
        &self,
        mode: Option<embed::Mode>,
        q: &Query,
        opts: &search::Options,
        wait: Duration,
        progress: &dyn Progress,
    ) -> Result<Found> {
        looking_again(|| {
            let searcher = self.searcher_in(mode, wait, progress)?;
            let hits = searcher.search(q, opts)?;
            Ok(Found { hits, searcher })
        })
    }

    /// Brings the index up to date explicitly: waits the whole `wait` for
    /// a writer and fails with [`Error::Busy`] rather than answer stale.
    pub fn index(&self, wait: Duration, progress: &dyn Progress) -> Result<Searcher> {
        let settings = self.embed_settings()?;
        let fresh = self.fresh(index::Patience::Update(wait), progress)?;
        self.searcher_of(fresh, settings, progress)
    }

    /// Writes every section's documents, as the index holds them but with
    /// their (redacted) text, to `out` as NDJSON (`index::export`):
    /// streamed, a file at a time. Reads the Markdown only, so it takes no
    /// lock and needs no index.
    pub fn export(
        &self,
        options: index::ExportOptions,
        out: &mut dyn std::io::Write,
        progress: &dyn Progress,
    ) -> Result<index::ExportReport> {
        index::export(&self.root, &self.config, options, out, progress)
    }

    /// A file, a slice of it, or a hit's section (`#id`), redacted.
    pub fn get(&self, target: &str) -> Result<get::Slice> {
        self.get_target(&get::parse(target)?)
    }

    /// [`Hipo::get`] with the target already parsed.
    pub(crate) fn get_target(&self, target: &get::Target) -> Result<get::Slice> {
        get::get(&self.root, target)
    }

    /// [`Hipo::get`] a line at a time, for a front end that prints as it
    /// reads (a whole 200 MB log is not held).
    pub fn get_lines(&self, target: &get::Target) -> Result<get::Lines> {
        get::lines(&self.root, target)
    }

    /// The raw logs' entries and the tree's nodes between `from` and `to`
    /// (inclusive), newest first (`timeline`).
    pub fn timeline(
        &self,
        from: chrono::NaiveDate,
        to: chrono::NaiveDate,
        kind: Option<crate::markdown::EntryType>,
    ) -> Result<Vec<crate::timeline::Item>> {
        crate::timeline::timeline(&self.root, from, to, kind)
    }

    /// The context pack for `query` (`recall`): empty when
    /// nothing reaches the floor.
    pub fn recall(
        &self,
        query: &str,
        opts: &recall::Options,
        wait: Duration,
        progress: &dyn Progress,
    ) -> Result<(recall::Pack, Searcher)> {
        self.recall_in(None, query, opts, wait, progress)
    }

    /// [`Hipo::recall`] in `mode` when given, else the configured one.
    pub fn recall_in(
        &self,
        mode: Option<embed::Mode>,
        query: &str,
        opts: &recall::Options,
        wait: Duration,
        progress: &dyn Progress,
    ) -> Result<(recall::Pack, Searcher)> {
        looking_again(|| {
            let searcher = self.searcher_in(mode, wait, progress)?;
            let memory = recall::Memory {
                search: &|q, o| searcher.search(q, o),
                held: &|p| searcher.held(p),
                root: &self.root,
            };
            let pack = recall::recall(&memory, query, opts)?;
            Ok((pack, searcher))
        })
    }

    /// Recall@k and MRR of `cases` against this project's index.
    pub fn eval(
        &self,
        cases: &[Case],
        ks: &[usize],
        wait: Duration,
        progress: &dyn Progress,
    ) -> Result<(eval::Report, Searcher)> {
        let searcher = self.searcher(wait, progress)?;
        let report = eval::evaluate(cases, ks, |q, limit| {
            let opts = search::Options {
                limit,
                snippets: false,
                ..Default::default()
            };
            searcher.search(&crate::search::query::parse(q)?, &opts)
        })?;
        Ok((report, searcher))
    }

    /// Whether hipocampus's triggers (cooldown, raw lines, checkpoints)
    /// say a compaction is due. Cheap: it reads the state file only. A
    /// state file hipo cannot read counts as never compacted.
    pub fn compaction_due(&self, now: chrono::DateTime<chrono::Utc>) -> crate::status::Triggers {
        let state = project::load_state(&self.root).unwrap_or_default();
        crate::status::triggers(&state, self.config.compaction.cooldown_hours, now)
    }

    /// Deletes the derived cache (`.hipo/` but its lock), under the lock
    /// so a concurrent run never sees half a cache.
    pub fn drop_cache(&self, wait: Duration) -> Result<()> {
        let _lock = ProjectLock::acquire(&self.root, wait, self.notice())?;
        project::drop_cache(&self.root)
    }
}

/// An index ready to answer queries.
pub struct Searcher {
    root: PathBuf,
    fresh: Fresh,
    /// The vectors, when the mode wants them.
    semantic: Option<embed::Semantic>,
    mode: embed::Mode,
    /// Why vectors were not used, said once each.
    notes: std::sync::Mutex<Vec<String>>,
    /// What bringing the vectors up to date did.
    embedded: Option<embed::Embedded>,
}

impl Searcher {
    /// Runs `q`. Sections of an index that could not be synced are
    /// redacted again before they are shown. With vectors, the question's
    /// nearest sections rank too (fused or alone, as the mode says); a
    /// model that fails leaves this and later searches lexical.
    pub fn search(&self, q: &Query, opts: &search::Options) -> Result<Vec<Hit>> {
        let mut nearest = None;
        if let Some(semantic) = &self.semantic
            && !q.text.is_empty()
        {
            match semantic.nearest(&q.text.join(" ")) {
                Ok(near) => nearest = near,
                Err(why) => self.note(why),
            }
        }
        search::search_with(
            &self.fresh.index,
            &self.root,
            q,
            opts,
            nearest.as_ref(),
            self.is_fresh(),
        )
    }

    /// How much of `prompt` this memory holds ([`recall::held`]).
    pub(crate) fn held(&self, prompt: &str) -> recall::Held {
        recall::held(&self.fresh.index, prompt)
    }

    fn note(&self, why: String) {
        let mut notes = self.notes.lock().unwrap_or_else(|p| p.into_inner());
        if !why.is_empty() && !notes.contains(&why) {
            notes.push(why);
        }
    }

    /// The mode asked for.
    pub fn mode(&self) -> embed::Mode {
        self.mode
    }

    /// Whether vectors ranked: `None` in lexical mode, else false when
    /// the model failed (the searches were lexical).
    pub fn semantic(&self) -> Option<bool> {
        (self.mode != embed::Mode::Lexical)
            .then(|| self.semantic.as_ref().is_some_and(embed::Semantic::is_on))
    }

    /// Sections embedded by this run and those the cache held.
    pub fn embedded(&self) -> Option<&embed::Embedded> {
        self.embedded.as_ref()
    }

    /// Why vectors were not used (the model failed), to say on stderr.
    pub fn semantic_notes(&self) -> Vec<String> {
        self.notes.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }

    /// False when the index was searched as it was: another hipo held the
    /// lock or the disk refused a write, and a read-only look found a
    /// change it could not index.
    pub fn is_fresh(&self) -> bool {
        self.fresh.sync.is_some()
    }

    /// What the sync did (`None` when not fresh).
    pub fn sync(&self) -> Option<&SyncReport> {
        self.fresh.sync.as_ref()
    }

    /// Things to tell the user: a rebuilt store, a stale index.
    pub fn warnings(&self) -> &[String] {
        &self.fresh.warnings
    }

    /// Size of the index.
    pub fn stats(&self) -> IndexStats {
        self.fresh.index.stats()
    }

    /// True when some files could not be indexed.
    pub fn skipped_files(&self) -> bool {
        self.sync().is_some_and(|s| !s.problems.is_empty())
    }
}

/// A search's answer, with the index it came from.
pub struct Found {
    pub hits: Vec<Hit>,
    pub searcher: Searcher,
}
