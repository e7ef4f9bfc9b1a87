//! Progress tokens and the callbacks that receive a call's progress.

use super::*;

/// A progress callback ([`Client::with_progress`]).
pub(super) type ProgressFn = Arc<dyn Fn(Progress) + Send + Sync>;

/// The progress callbacks of the requests in flight, by the progress token each carries.
pub(super) type Watchers = Arc<Mutex<HashMap<String, ProgressFn>>>;

/// A progress notification the server sent for a call ([`Client::with_progress`]).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Progress {
    /// How far the work is; increases with every notification.
    pub progress: f64,
    /// The total `progress` reaches, if the server knows it.
    pub total: Option<f64>,
    /// What is happening, for a person to read.
    pub message: Option<String>,
}

/// Give `message` to the progress callback its token names, if it is a progress notification
/// for a request in flight.
pub(super) fn watch(watchers: &Watchers, message: &Value) {
    if message.get("method").and_then(Value::as_str) != Some(methods::NOTIFICATIONS_PROGRESS) {
        return;
    }
    let Some(params) = message.get("params") else {
        return;
    };
    let token = match params.get("progressToken") {
        Some(Value::String(t)) => t.clone(),
        Some(Value::Number(n)) => n.to_string(),
        _ => return,
    };
    let Some(progress) = params.get("progress").and_then(Value::as_f64) else {
        return;
    };
    let callback = crate::wire::lock(watchers).get(&token).cloned();
    if let Some(callback) = callback {
        callback(Progress {
            progress,
            total: params.get("total").and_then(Value::as_f64),
            message: params
                .get("message")
                .and_then(Value::as_str)
                .map(str::to_string),
        });
    }
}

/// A progress token registered for one request; unregistered when the request ends.
pub(super) struct Watching<'a> {
    pub(super) watchers: &'a Watchers,
    pub(super) token: String,
}

impl Drop for Watching<'_> {
    fn drop(&mut self) {
        crate::wire::lock(self.watchers).remove(&self.token);
    }
}
