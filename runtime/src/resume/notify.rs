//! Notifications a handler sends while it runs: progress (when the request carries a
//! `progressToken`) and log messages (only when the request's `_meta` asks for a log level, and
//! only at or above it), both on the request's own response stream; and the changes
//! ([`ListKind`], resource updates) that reach `subscriptions/listen` streams.

use super::engine::with_call;
use super::events::{encode, Change, ListKind};
use oxmcp_schema::{
    LoggingLevel, LoggingMessageNotification, LoggingMessageNotificationParams,
    ProgressNotification, ProgressNotificationParams, RequestMetaObject,
};
use serde_json::{Map, Number, Value};

fn severity(level: &LoggingLevel) -> u8 {
    match level {
        LoggingLevel::Debug => 0,
        LoggingLevel::Info => 1,
        LoggingLevel::Notice => 2,
        LoggingLevel::Warning => 3,
        LoggingLevel::Error => 4,
        LoggingLevel::Critical => 5,
        LoggingLevel::Alert => 6,
        LoggingLevel::Emergency => 7,
        // A level this runtime does not know counts as info.
        _ => 1,
    }
}

/// The `notifications/progress` for a request with this `_meta`, if it asked for progress.
pub(crate) fn progress_note(
    meta: &RequestMetaObject,
    progress: f64,
    total: Option<f64>,
    message: Option<&str>,
) -> Option<String> {
    let token = meta.progress_token.clone()?;
    encode(&ProgressNotification {
        jsonrpc: Default::default(),
        method: Default::default(),
        params: ProgressNotificationParams {
            meta: None,
            progress_token: token,
            progress: Number::from_f64(progress)?,
            total: total.and_then(Number::from_f64),
            message: message.map(str::to_string),
            extra: Map::new(),
        },
        extra: Map::new(),
    })
}

/// The `notifications/message` for a request with this `_meta`, if it asked for `level` or lower.
pub(crate) fn log_note(
    meta: &RequestMetaObject,
    level: LoggingLevel,
    logger: Option<&str>,
    data: Value,
) -> Option<String> {
    let wanted = meta.log_level.as_ref()?;
    if severity(&level) < severity(wanted) {
        return None;
    }
    encode(&LoggingMessageNotification {
        jsonrpc: Default::default(),
        method: Default::default(),
        params: LoggingMessageNotificationParams {
            meta: None,
            level,
            logger: logger.map(str::to_string),
            data,
            extra: Map::new(),
        },
        extra: Map::new(),
    })
}

/// Send what `note` makes of the current request's `_meta` on its notifier.
fn send(note: impl FnOnce(&RequestMetaObject) -> Option<String>) -> bool {
    with_call(|call| {
        let st = call.lock();
        match (note(&st.info.meta), st.notifier.as_ref()) {
            (Some(text), Some(tx)) => tx.send(text),
            _ => false,
        }
    })
    .unwrap_or(false)
}

/// Report progress on the current request; false when the request asked for none (no
/// `progressToken`) or the transport cannot deliver it.
pub fn progress(progress: f64, total: Option<f64>, message: Option<&str>) -> bool {
    send(|meta| progress_note(meta, progress, total, message))
}

/// Send a log message for the current request, if its `_meta` asked for `level` or lower.
pub fn log(level: LoggingLevel, logger: Option<&str>, data: Value) -> bool {
    send(|meta| log_note(meta, level, logger, data))
}

/// End the SSE stream the current request's messages are sent on, while the handler goes on;
/// the client reconnects with `Last-Event-ID` and is sent the rest. See
/// [`RequestContext::close_stream`](crate::RequestContext::close_stream); false outside a
/// handler or where the stream cannot be resumed.
pub fn close_stream() -> bool {
    with_call(|call| call.lock().notifier.as_ref().is_some_and(|tx| tx.cut())).unwrap_or(false)
}

fn announce(change: Change) -> bool {
    with_call(|call| {
        call.lock()
            .changes
            .as_ref()
            .is_some_and(|tx| tx.send(change).is_ok())
    })
    .unwrap_or(false)
}

/// Announce that a list changed (tools, prompts or resources) to every open
/// `subscriptions/listen` stream that asked for it. False outside a handler, or when no stream
/// is open.
pub fn notify_list_changed(kind: ListKind) -> bool {
    announce(Change::List(kind))
}

/// Announce that the resource at `uri` changed to every open `subscriptions/listen` stream
/// subscribed to it or to a URI it lies under (`notifications/resources/updated`). False outside
/// a handler, or when no stream is open.
pub fn notify_resource_updated(uri: &str) -> bool {
    announce(Change::ResourceUpdated(uri.to_string()))
}
