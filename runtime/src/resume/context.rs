//! [`RequestContext`]: a handler parameter that gives the request's `_meta`, progress and log
//! notifications on the request's own stream, and a signal when the request is cancelled.

use super::notify::{log_note, progress_note};
use crate::handler::{CallParts, FromCall};
use crate::wire::Notifier;
use oxmcp_schema::{Error, LoggingLevel, RequestMetaObject};
use serde_json::Value;
use tokio::sync::watch;

/// The request a handler serves, as a parameter (`ctx: RequestContext`): its `_meta`, progress
/// and log messages, and cancellation. It is not part of the tool's input schema.
#[derive(Debug, Clone)]
pub struct RequestContext {
    method: &'static str,
    target: String,
    meta: RequestMetaObject,
    notifier: Option<Notifier>,
    cancelled: watch::Receiver<bool>,
}

impl RequestContext {
    /// The request's method (`tools/call`, `prompts/get` or `resources/read`).
    pub fn method(&self) -> &'static str {
        self.method
    }

    /// The tool or prompt name, or the resource URI.
    pub fn target(&self) -> &str {
        &self.target
    }

    /// The request's `_meta`: protocol version, client capabilities and info, log level,
    /// progress token, and any other key in `extra`.
    pub fn meta(&self) -> &RequestMetaObject {
        &self.meta
    }

    /// Report progress; false when the request asked for none or it cannot be delivered.
    pub fn progress(&self, progress: f64, total: Option<f64>, message: Option<&str>) -> bool {
        self.send(progress_note(&self.meta, progress, total, message))
    }

    /// Send a log message, if the request asked for `level` or lower.
    pub fn log(&self, level: LoggingLevel, logger: Option<&str>, data: Value) -> bool {
        self.send(log_note(&self.meta, level, logger, data))
    }

    fn send(&self, note: Option<String>) -> bool {
        match (note, &self.notifier) {
            (Some(text), Some(tx)) => tx.send(text),
            _ => false,
        }
    }

    /// End the SSE stream this request's messages are sent on, while the handler goes on: the
    /// client reconnects (a GET with `Last-Event-ID`, after the stream's `retry` hint) and is
    /// sent what follows, the result included. This is SSE polling (2025-11-25): a server that
    /// does not want to hold a connection open through a long call lets it go. Only a 2025-era
    /// HTTP session's streams can be resumed; anywhere else this does nothing and returns false.
    pub fn close_stream(&self) -> bool {
        self.notifier.as_ref().is_some_and(Notifier::cut)
    }

    /// Whether the request was cancelled (the client cancelled it or went away) before the
    /// handler finished.
    pub fn is_cancelled(&self) -> bool {
        *self.cancelled.borrow()
    }

    /// Resolves when the request is cancelled; never, if it finishes. For work the handler hands
    /// to a spawned task: the handler's own future is simply dropped on cancellation.
    pub async fn cancelled(&self) {
        let mut rx = self.cancelled.clone();
        if rx.wait_for(|c| *c).await.is_err() {
            std::future::pending::<()>().await;
        }
    }
}

impl FromCall for RequestContext {
    fn from_call(parts: &CallParts<'_>) -> Result<Self, Error> {
        Ok(RequestContext {
            method: parts.method(),
            target: parts.target().to_string(),
            meta: parts.meta().clone(),
            notifier: parts.notifier(),
            cancelled: parts.cancellation(),
        })
    }
}
