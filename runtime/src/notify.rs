//! Notifications a handler sends while it runs: progress (when the request carries a
//! `progressToken`) and log messages (only when the request's `_meta` asks for a log level, and
//! only at or above it). Both travel on the request's own response stream.

use crate::engine::with_call;
use mcp_schema::LoggingLevel;
use serde_json::{json, Value};

use crate::server::{META_LOG_LEVEL as LOG_LEVEL, META_PROGRESS_TOKEN as PROGRESS_TOKEN};

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

fn send(message: Value) -> bool {
    with_call(|call| {
        call.lock()
            .notifier
            .as_ref()
            .is_some_and(|tx| tx.send(message).is_ok())
    })
    .unwrap_or(false)
}

/// Report progress on the current request; false when the request asked for none (no
/// `progressToken`) or the transport cannot deliver it.
pub fn progress(progress: f64, total: Option<f64>, message: Option<&str>) -> bool {
    let token = with_call(|call| call.lock().info.meta.get(PROGRESS_TOKEN).cloned()).flatten();
    let Some(token) = token else { return false };
    let mut params = json!({"progressToken": token, "progress": progress});
    if let Some(t) = total {
        params["total"] = json!(t);
    }
    if let Some(m) = message {
        params["message"] = json!(m);
    }
    send(json!({"jsonrpc": "2.0", "method": "notifications/progress", "params": params}))
}

/// Send a log message for the current request, if its `_meta` asked for `level` or lower.
pub fn log(level: LoggingLevel, logger: Option<&str>, data: Value) -> bool {
    let wanted = with_call(|call| {
        call.lock()
            .info
            .meta
            .get(LOG_LEVEL)
            .and_then(Value::as_str)
            .map(LoggingLevel::from)
    })
    .flatten();
    match wanted {
        Some(w) if severity(&level) >= severity(&w) => {
            let mut params = json!({"level": level.as_str(), "data": data});
            if let Some(l) = logger {
                params["logger"] = json!(l);
            }
            send(json!({"jsonrpc": "2.0", "method": "notifications/message", "params": params}))
        }
        _ => false,
    }
}

fn announce(change: crate::server::Change) -> bool {
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
pub fn notify_list_changed(kind: crate::server::ListKind) -> bool {
    announce(crate::server::Change::List(kind))
}

/// Announce that the resource at `uri` changed to every open `subscriptions/listen` stream
/// subscribed to it or to a URI it lies under (`notifications/resources/updated`). False outside
/// a handler, or when no stream is open.
pub fn notify_resource_updated(uri: &str) -> bool {
    announce(crate::server::Change::ResourceUpdated(uri.to_string()))
}
