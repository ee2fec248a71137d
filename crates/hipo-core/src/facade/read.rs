//! The reads' side of the door: the index a search answers from. The
//! facade owns the config, the lock and the store for reads as for writes;
//! `index::fresh` only looks and updates with what it is given.
//!
//! A read never waits for a writer while an index exists, and never needs
//! to write: with the lock free, it looks under the lock and updates what
//! changed; with the lock busy (a compaction running), or a disk that
//! refuses writes (read-only mount, no permission), it looks without the
//! lock and answers current if nothing changed, else from the index as it
//! is (`fresh` false, saying why); an update the disk refuses (full)
//! leaves the index as it was and answers from it the same way. Nothing is
//! lost: the files that changed are seen by the next read that can write.

use super::{Hipo, Session};
use crate::error::{Error, Refusal, Result};
use crate::index::{self, Fresh, Patience};
use crate::llm::{Backend, OllamaSummarizer, Settings};
use crate::progress::Progress;
use crate::status::{self, StatusReport};
use crate::store::Store;
use crate::summarize::NoneSummarizer;
use chrono::{DateTime, NaiveDate, Utc};
use std::time::Duration;

/// How a search looks at the tree: sealed files as compaction saw them
/// (`index::Stat::Sealed`); `hipo index` stats every file.
const SEARCH: index::Stat = index::Stat::Sealed;

/// What a search answering while another hipo holds the lock says.
const BUSY: &str =
    "another hipo process is updating this project; results may miss its latest changes";

impl Hipo {
    /// What the tree looks like and whether a compaction is due
    /// ([`Session::status`]), under the lock (waiting up to `wait`). On a
    /// disk that refuses writes (a read-only mount where the lock cannot be
    /// taken, a full disk where the store cannot be opened for writing) it
    /// is computed from the store read into memory: nothing is written,
    /// and the store's warning says so.
    pub fn status(
        &self,
        llm: &Settings,
        today: NaiveDate,
        now: DateTime<Utc>,
        wait: Duration,
    ) -> Result<StatusReport> {
        let refused = match self.lock(wait) {
            Ok(session) => match session.status(llm, today, now) {
                Err(e) if e.refusal().is_some() => e,
                done => return done,
            },
            Err(e) if e.refusal().is_some() => e,
            Err(e) => return Err(e),
        };
        let (store, warning) = Store::open_in_memory(&self.root)?;
        let note = match refused.refusal() {
            Some(Refusal::Full) => {
                "the disk is full: status read the store without writing; free some space and run hipo again"
            }
            _ => "the project is read only here: status read the store without writing",
        };
        let warning = Some(match warning {
            Some(w) => format!("{w}; {note}"),
            None => note.to_string(),
        });
        status_of(self, &store, warning, llm, today, now)
    }

    /// The index under the project, as `patience` says.
    pub(super) fn fresh(&self, patience: Patience, progress: &dyn Progress) -> Result<Fresh> {
        let _all = crate::timing::span("fresh");
        match patience {
            Patience::Update(wait) => {
                let session = {
                    let _lock = crate::timing::span("lock");
                    self.lock(wait)?
                };
                self.update(&session, index::Stat::Every, progress)
            }
            Patience::Search { max_wait } => self.fresh_for_search(max_wait, progress),
        }
    }

    fn fresh_for_search(&self, max_wait: Duration, progress: &dyn Progress) -> Result<Fresh> {
        let locked = {
            let _lock = crate::timing::span("lock");
            Session::open_now(self)
        };
        match locked {
            Ok(session) => self.update(&session, SEARCH, progress).or_else(|e| {
                let why = e.refusal().map(|r| r.stale_note());
                why.and_then(|why| Fresh::as_is(&self.root, why.into()))
                    .ok_or(e)
            }),
            Err(Error::Busy { .. }) => match self.unlocked(BUSY) {
                Some(fresh) => Ok(fresh),
                // No index to answer from: wait for the writer, saying so.
                None => {
                    let session = self.lock(max_wait)?;
                    self.update(&session, SEARCH, progress)
                }
            },
            Err(e) => match e.refusal() {
                Some(r) => self.unlocked(r.stale_note()).ok_or(e),
                None => Err(e),
            },
        }
    }

    /// Without the lock and without a write: current when a read-only
    /// look finds nothing changed, else the index as it is (`why` said).
    fn unlocked(&self, why: &str) -> Option<Fresh> {
        let current = index::check(&self.root, &self.config, SEARCH)
            .ok()
            .and_then(index::current);
        current.or_else(|| Fresh::as_is(&self.root, why.into()))
    }

    /// Under `session`'s lock: a look, and an update from it when it
    /// found a change (the session's store opened only then).
    fn update(
        &self,
        session: &Session,
        stat: index::Stat,
        progress: &dyn Progress,
    ) -> Result<Fresh> {
        let check = index::check(&self.root, &self.config, stat)?;
        let store = || {
            let (store, warning) = session.opened()?;
            Ok((store, warning.clone()))
        };
        index::update(&self.root, &store, &self.config, check, progress)
    }
}

/// The status of `hipo`'s project from `store`, however it was opened.
pub(super) fn status_of(
    hipo: &Hipo,
    store: &Store,
    store_warning: Option<String>,
    llm: &Settings,
    today: NaiveDate,
    now: DateTime<Utc>,
) -> Result<StatusReport> {
    let scan = crate::scan::scan(&hipo.root, &store.files_in_order()?);
    let sources = status::Sources {
        root: &hipo.root,
        config: &hipo.config,
        store,
        store_warning,
    };
    if llm.backend == Backend::None {
        return status::status(sources, scan, &NoneSummarizer, today, now);
    }
    let summarizer = OllamaSummarizer::new(llm.clone(), Some(store))?;
    status::status(sources, scan, &summarizer, today, now)
}
