//! The SSE response both HTTP paths share (a 2026 request that streams notifications, a
//! 2025 session's request that streams the server's own requests): the first message, the
//! rest as they come, then the reply.

use axum::response::sse::{Event, Sse};
use axum::response::{IntoResponse, Response};
use futures_util::stream::{self, StreamExt};
use std::convert::Infallible;

/// An open stream as the metrics count it (`mcp_streams_open`), kept alive with the stream;
/// nothing without the `metrics` feature.
pub(crate) struct Counted {
    #[cfg(feature = "metrics")]
    _open: Option<crate::metrics::OpenStream>,
}

/// Count a stream of `era` open on `server`, for as long as the result lives.
pub(crate) fn counted(server: &crate::Server, era: &'static str) -> Counted {
    #[cfg(feature = "metrics")]
    return Counted {
        _open: server.metrics().map(|m| m.stream(era)),
    };
    #[cfg(not(feature = "metrics"))]
    {
        let _ = (server, era);
        Counted {}
    }
}

/// Aborts a spawned task when dropped.
pub(crate) struct AbortOnDrop(pub(crate) tokio::task::JoinHandle<()>);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// An SSE response: `first`, the messages still to come on `rx`, then the reply. The task that
/// produces them lives as long as the stream, so a client that closes it cancels the call. The
/// channel closes when the handler finishes (its sender is dropped with the call), so the reply
/// always comes after every notification.
pub(crate) fn event_stream(
    first: String,
    rx: tokio::sync::mpsc::Receiver<String>,
    task: AbortOnDrop,
    reply: impl std::future::Future<Output = Option<String>> + Send + 'static,
    open: Counted,
) -> Response {
    let message =
        |text: String| Ok::<Event, Infallible>(Event::default().event("message").data(text));
    let notes = stream::once(async move { first })
        .chain(tokio_stream::wrappers::ReceiverStream::new(rx))
        .map(message);
    let last = stream::once(async move {
        let _task = task;
        let _open = open;
        reply.await
    })
    .filter_map(move |reply| async move { reply.map(message) });
    Sse::new(notes.chain(last)).into_response()
}
