//! Resumable SSE streams of 2025-era HTTP sessions. Every message a session's stream
//! carries gets an event id (`<stream>-<n>`) and is kept in the stream's bounded [`EventLog`],
//! so a client that lost the connection GETs with `Last-Event-ID` and is sent what it missed,
//! then the rest as it comes. Each connection opens with a priming event (an id, the `retry`
//! hint and empty data), so a stream that ends before its first message can be resumed too.
//! A log is written by its own task (a request's call, or a standalone stream's changes), not
//! by the connection: the call outlives a lost connection for a bounded window.

use crate::wire::lock;
use axum::body::{Body, Bytes};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use futures_util::stream::{self, StreamExt};
use std::collections::VecDeque;
use std::convert::Infallible;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::sync::watch;

/// The messages of one stream of a session, numbered from 1, the newest `cap` of them kept.
pub(crate) struct EventLog {
    id: u64,
    cap: usize,
    state: Mutex<LogState>,
    /// Bumped on every message and at the end: wakes the readers.
    wake: watch::Sender<()>,
    /// Bumped when the handler ends its stream on purpose: each connection that was reading
    /// then ends, and the client reconnects.
    cut: Option<watch::Receiver<u32>>,
    /// The task that writes the log; aborted when nobody reads it for too long.
    writer: Mutex<Option<tokio::task::AbortHandle>>,
}

struct LogState {
    events: VecDeque<(u64, String)>,
    next: u64,
    finished: bool,
    /// A reader read a finished log to its end: it need not be kept.
    delivered: bool,
    readers: usize,
    /// Since when no connection reads the log.
    unread_since: Option<Instant>,
}

impl EventLog {
    /// An empty log for the stream `id`; `cut` is the handler's way to end the connection.
    pub(crate) fn new(id: u64, cap: usize, cut: Option<watch::Receiver<u32>>) -> Arc<Self> {
        Arc::new(EventLog {
            id,
            cap: cap.max(1),
            state: Mutex::new(LogState {
                events: VecDeque::new(),
                next: 1,
                finished: false,
                delivered: false,
                readers: 0,
                unread_since: Some(Instant::now()),
            }),
            wake: watch::Sender::new(()),
            cut,
            writer: Mutex::new(None),
        })
    }

    /// The stream's number, the first part of its event ids.
    pub(crate) fn id(&self) -> u64 {
        self.id
    }

    /// Append one message; past the cap the oldest is dropped (a reader that far behind loses
    /// it, as a slow reader of a live stream would).
    pub(crate) fn push(&self, text: String) {
        let mut state = lock(&self.state);
        if state.events.len() >= self.cap {
            state.events.pop_front();
        }
        let seq = state.next;
        state.next += 1;
        state.events.push_back((seq, text));
        drop(state);
        self.wake.send_replace(());
    }

    /// No message follows: readers end once they have sent what is kept.
    pub(crate) fn finish(&self) {
        lock(&self.state).finished = true;
        self.wake.send_replace(());
    }

    /// Whether the log is finished.
    pub(crate) fn is_finished(&self) -> bool {
        lock(&self.state).finished
    }

    /// Whether the log is finished and its last message was sent to a reader.
    pub(crate) fn is_delivered(&self) -> bool {
        let state = lock(&self.state);
        state.finished && state.delivered
    }

    /// Whether a reader starting after message `after` would have nothing to send, ever.
    pub(crate) fn exhausted_after(&self, after: u64) -> bool {
        let state = lock(&self.state);
        state.finished && (state.delivered || state.next <= after + 1)
    }

    /// Set the task that writes the log.
    pub(crate) fn set_writer(&self, writer: tokio::task::AbortHandle) {
        *lock(&self.writer) = Some(writer);
    }

    /// Stop the writer (cancelling the call that writes the log) and finish the log.
    pub(crate) fn abort(&self) {
        if let Some(writer) = lock(&self.writer).take() {
            writer.abort();
        }
        self.finish();
    }

    /// The current value of the handler's cut, which a new reader starts from.
    fn epoch(&self) -> u32 {
        self.cut.as_ref().map_or(0, |cut| *cut.borrow())
    }

    fn attach(&self) {
        let mut state = lock(&self.state);
        state.readers += 1;
        state.unread_since = None;
    }

    /// A reader went away; the last one starts the window after which an unfinished log's
    /// writer is stopped.
    fn detach(self: &Arc<Self>, window: Duration) {
        let mut state = lock(&self.state);
        state.readers = state.readers.saturating_sub(1);
        if state.readers > 0 || state.finished {
            return;
        }
        state.unread_since = Some(Instant::now());
        drop(state);
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            self.abort();
            return;
        };
        let log = Arc::downgrade(self);
        runtime.spawn(async move {
            tokio::time::sleep(window).await;
            let Some(log) = log.upgrade() else { return };
            let unread = lock(&log.state)
                .unread_since
                .is_some_and(|since| since.elapsed() >= window);
            if unread {
                tracing::debug!(
                    stream = log.id,
                    "no reader came back; the call is cancelled"
                );
                log.abort();
            }
        });
    }
}

/// The event id of message `seq` of stream `stream`.
fn event_id(stream: u64, seq: u64) -> String {
    format!("{stream}-{seq}")
}

/// The stream and message a `Last-Event-ID` names; none if it is not one of ours.
pub(crate) fn parse_event_id(text: &str) -> Option<(u64, u64)> {
    let (stream, seq) = text.trim().split_once('-')?;
    Some((stream.parse().ok()?, seq.parse().ok()?))
}

/// One connection reading a log.
struct Reader {
    log: Arc<EventLog>,
    cursor: u64,
    wake: watch::Receiver<()>,
    cut: Option<watch::Receiver<u32>>,
    epoch: u32,
    window: Duration,
}

impl Reader {
    /// The next message as an SSE event; none once the log is finished and sent, or the
    /// handler ended this connection.
    async fn next(&mut self) -> Option<Event> {
        loop {
            if self.cut.as_ref().is_some_and(|c| *c.borrow() != self.epoch) {
                return None;
            }
            self.wake.borrow_and_update();
            {
                let mut state = lock(&self.log.state);
                let at = state.events.partition_point(|(seq, _)| *seq <= self.cursor);
                if let Some((seq, text)) = state.events.get(at) {
                    let seq = *seq;
                    let event = Event::default()
                        .event("message")
                        .id(event_id(self.log.id, seq))
                        .data(text);
                    self.cursor = seq;
                    return Some(event);
                }
                if state.finished {
                    // Read to the end (the last event was taken before this poll): nothing
                    // need be kept for a reconnection.
                    state.delivered = true;
                    state.events = VecDeque::new();
                    return None;
                }
            }
            let cut = async {
                match self.cut.as_mut() {
                    Some(cut) => {
                        if cut.changed().await.is_err() {
                            std::future::pending::<()>().await;
                        }
                    }
                    None => std::future::pending::<()>().await,
                }
            };
            tokio::select! {
                _ = self.wake.changed() => {}
                _ = cut => {}
            }
        }
    }
}

impl Drop for Reader {
    fn drop(&mut self) {
        self.log.detach(self.window);
    }
}

/// An SSE response that reads `log` from after message `after`: a priming event, then the
/// messages. `epoch` is the handler's cut this connection belongs to (a later cut ends it).
/// A reader gone for `window` with the log unfinished stops its writer. `held` lives as long as
/// the connection reads (the count of open streams, the caller's request in flight).
pub(crate) fn read(
    log: Arc<EventLog>,
    after: u64,
    epoch: Option<u32>,
    retry: Duration,
    window: Duration,
    held: impl Send + 'static,
) -> Response {
    log.attach();
    let reader = Reader {
        epoch: epoch.unwrap_or_else(|| log.epoch()),
        cut: log.cut.clone(),
        wake: log.wake.subscribe(),
        cursor: after,
        log,
        window,
    };
    // The priming event: the spec asks for an id and an *empty* data field, which axum's
    // `Event` cannot write (it leaves an empty data field out, and an event without one is not
    // dispatched to the client), so this one fixed event is written here.
    let priming = format!(
        "id: {}\nretry: {}\ndata: \n\n",
        event_id(reader.log.id, after),
        retry.as_millis()
    );
    // What the stream holds is let go with it.
    let events = stream::unfold((reader, held), |(mut reader, held)| async move {
        let event = reader.next().await?;
        Some((Ok::<Event, Infallible>(event), (reader, held)))
    });
    let (parts, body) = Sse::new(events)
        .keep_alive(KeepAlive::default())
        .into_response()
        .into_parts();
    let body = stream::once(async move { Ok::<Bytes, axum::Error>(Bytes::from(priming)) })
        .chain(body.into_data_stream());
    Response::from_parts(parts, Body::from_stream(body))
}
