//! The engine's progress events as MCP `notifications/progress`, for a
//! client that sent a `progressToken` with its call.
//!
//! The engine reports from its worker threads; the events go through a
//! channel to a task on the runtime that sends them to the client, so no
//! engine thread ever waits on the client. MCP wants the progress value
//! to grow with each notification, so the value is the count of units
//! done over the whole call (a compaction summarises level after level,
//! each a batch of its own), and one is sent when a unit finishes.

use hipo_core::{Event, Progress};
use rmcp::model::{ProgressNotificationParam, ProgressToken};
use rmcp::{Peer, RoleServer};
use std::sync::Mutex;
use tokio::sync::mpsc;

/// Receives the engine's events (on any thread) and queues them for the
/// client.
pub(super) struct Notifier {
    tx: Option<mpsc::UnboundedSender<ProgressNotificationParam>>,
    state: Mutex<State>,
}

/// The task sending the queued notifications; [`Forwarder::finish`] waits
/// until every one went out, so they all precede the call's result.
pub(super) struct Forwarder(Option<tokio::task::JoinHandle<()>>);

#[derive(Default)]
struct State {
    done: usize,
    total: usize,
    current: String,
}

/// A notifier for `token` and its forwarder; the notifier sends nothing
/// when the client sent no token.
pub(super) fn channel(
    peer: Peer<RoleServer>,
    token: Option<ProgressToken>,
) -> (Notifier, Forwarder) {
    let Some(token) = token else {
        let none = Notifier {
            tx: None,
            state: Mutex::default(),
        };
        return (none, Forwarder(None));
    };
    let (tx, mut rx) = mpsc::unbounded_channel::<ProgressNotificationParam>();
    let task = tokio::spawn(async move {
        while let Some(mut p) = rx.recv().await {
            p.progress_token = token.clone();
            // A client that went away stops caring about progress.
            if peer.notify_progress(p).await.is_err() {
                break;
            }
        }
    });
    let notifier = Notifier {
        tx: Some(tx),
        state: Mutex::default(),
    };
    (notifier, Forwarder(Some(task)))
}

impl Forwarder {
    /// Waits for the notifications queued so far to go out; call it once
    /// the [`Notifier`] is dropped.
    pub(super) async fn finish(self) {
        if let Some(task) = self.0 {
            let _ = task.await;
        }
    }
}

impl Progress for Notifier {
    fn event(&self, event: Event<'_>) {
        let Some(tx) = &self.tx else {
            return;
        };
        let Ok(mut s) = self.state.lock() else {
            return;
        };
        match event {
            Event::Begin { total, .. } => s.total += total,
            Event::Started(what) => s.current = what.to_string(),
            Event::Done => {
                s.done += 1;
                let placeholder = ProgressToken(rmcp::model::NumberOrString::Number(0));
                let mut p = ProgressNotificationParam::new(placeholder, s.done as f64)
                    .with_total(s.total.max(s.done) as f64);
                if !s.current.is_empty() {
                    p = p.with_message(format!(
                        "{} of {} node(s) summarised; last started {}",
                        s.done, s.total, s.current
                    ));
                }
                let _ = tx.send(p);
            }
        }
    }
}
