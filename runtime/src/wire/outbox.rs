//! [`Notifier`]: the bounded queue between a running request and the stream that carries its
//! notifications (an SSE response, stdio's output), so a reader that stops reading cannot grow
//! the server's memory.

use std::sync::Arc;
use tokio::sync::{mpsc, watch};

/// How many notifications a stream buffers for a reader by default before it is treated as
/// fallen behind.
pub const DEFAULT_QUEUE: usize = 256;

/// Where the notifications of one request go, each already written as one JSON text. The queue
/// is bounded and never waits: a notification that does not fit is dropped (progress and log
/// messages) or ends the stream (`subscriptions/listen`), and [`Notifier::send`] says so.
#[derive(Debug, Clone)]
pub struct Notifier {
    tx: mpsc::Sender<String>,
    /// Set where the stream can be ended early and resumed (a 2025-era HTTP session's request
    /// stream): bumped to end the connection that reads it.
    cut: Option<Arc<watch::Sender<u32>>>,
}

impl Notifier {
    /// A notifier and the receiving end of its queue, which holds up to `capacity` messages.
    #[cfg(any(feature = "http", feature = "stdio"))]
    pub(crate) fn channel(capacity: usize) -> (Notifier, mpsc::Receiver<String>) {
        let (tx, rx) = mpsc::channel(capacity.max(1));
        (Notifier { tx, cut: None }, rx)
    }

    /// This notifier, able to end the connection its stream is read on ([`Notifier::cut`]):
    /// `cut` is bumped each time.
    #[cfg(feature = "http")]
    pub(crate) fn with_cut(mut self, cut: watch::Sender<u32>) -> Self {
        self.cut = Some(Arc::new(cut));
        self
    }

    /// End the connection this stream is being read on, where the transport can resume it
    /// later (the messages still to come are kept for the client's reconnection); false where
    /// it cannot.
    pub(crate) fn cut(&self) -> bool {
        match &self.cut {
            Some(cut) => {
                cut.send_modify(|epoch| *epoch = epoch.wrapping_add(1));
                true
            }
            None => false,
        }
    }

    /// Queue one notification without waiting; false if the queue is full (the reader has
    /// fallen behind) or the stream is gone.
    pub fn send(&self, text: String) -> bool {
        match self.tx.try_send(text) {
            Ok(()) => true,
            Err(mpsc::error::TrySendError::Full(_)) => {
                tracing::debug!("a notification was dropped: the reader has fallen behind");
                false
            }
            Err(mpsc::error::TrySendError::Closed(_)) => false,
        }
    }

    /// Queue a message that must not be dropped (a reply on a shared stream), waiting for room;
    /// false if the stream is gone.
    pub(crate) async fn deliver(&self, text: String) -> bool {
        self.tx.send(text).await.is_ok()
    }

    /// Resolves when the stream's reader is gone.
    pub async fn closed(&self) {
        self.tx.closed().await
    }

    /// Whether the queue is full: the reader has fallen behind by a whole queue.
    pub(crate) fn is_full(&self) -> bool {
        self.tx.capacity() == 0
    }
}
