//! Notifications a handler sends while it runs: progress (when the request carries a
//! `progressToken`) and log messages (only when the request's `_meta` asks for a log level, and
//! only at or above it), both on the request's own response stream; and the changes
//! ([`ListKind`], resource updates) that reach `subscriptions/listen` streams.

use super::engine::with_call;
use super::events::{encode, Change, ListKind};
use mcp_schema::{
    LoggingLevel, LoggingMessageNotification, LoggingMessageNotificationParams,
    ProgressNotification, ProgressNotificationParams,
};
use serde::Serialize;
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
        LoggingLevel::Other(_) => 1,
    }
}

fn send(message: &impl Serialize) -> bool {
    let Some(text) = encode(message) else {
        return false;
    };
    with_call(|call| {
        call.lock()
            .notifier
            .as_ref()
            .is_some_and(|tx| tx.send(text).is_ok())
    })
    .unwrap_or(false)
}

/// Report progress on the current request; false when the request asked for none (no
/// `progressToken`) or the transport cannot deliver it.
pub fn progress(progress: f64, total: Option<f64>, message: Option<&str>) -> bool {
    let token = with_call(|call| call.lock().info.meta.progress_token.clone()).flatten();
    let (Some(token), Some(progress)) = (token, Number::from_f64(progress)) else {
        return false;
    };
    send(&ProgressNotification {
        jsonrpc: Default::default(),
        method: Default::default(),
        params: ProgressNotificationParams {
            meta: None,
            progress_token: token,
            progress,
            total: total.and_then(Number::from_f64),
            message: message.map(str::to_string),
            extra: Map::new(),
        },
        extra: Map::new(),
    })
}

/// Send a log message for the current request, if its `_meta` asked for `level` or lower.
pub fn log(level: LoggingLevel, logger: Option<&str>, data: Value) -> bool {
    let wanted = with_call(|call| call.lock().info.meta.log_level.clone()).flatten();
    match wanted {
        Some(w) if severity(&level) >= severity(&w) => send(&LoggingMessageNotification {
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
        }),
        _ => false,
    }
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
