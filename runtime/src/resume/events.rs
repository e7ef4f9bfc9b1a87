//! What flows out of a running handler besides its result: the channel its notifications are
//! written to ([`Notifier`]), and the changes ([`ListKind`], resource updates) that the server
//! fans out to `subscriptions/listen` streams.

use serde_core::Serialize;

pub(crate) use crate::wire::Notifier;

/// Which list changed, for `subscriptions/listen` streams.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ListKind {
    /// `notifications/tools/list_changed`.
    Tools,
    /// `notifications/prompts/list_changed`.
    Prompts,
    /// `notifications/resources/list_changed`.
    Resources,
}

/// What `subscriptions/listen` streams are told about: a list change, or an update of one
/// resource (delivered to streams subscribed to its URI or to a URI it lies under).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Change {
    List(ListKind),
    ResourceUpdated(String),
}

/// Write `message` for a notifier: one JSON text.
pub(crate) fn encode(message: &impl Serialize) -> Option<String> {
    match serde_json::to_string(message) {
        Ok(text) => Some(text),
        Err(e) => {
            tracing::warn!(error = %e, "a notification does not serialize; dropped");
            None
        }
    }
}
