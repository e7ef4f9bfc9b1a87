//! The bottom layer: what crosses the wire, with no knowledge of handlers or servers. Reading
//! one JSON-RPC message into the generated types ([`Incoming`]), writing replies ([`Reply`]),
//! the `_meta` keys a request carries, the `Mcp-Param` header coding, and the line reader that
//! stdio peers share. Every other module of the crate may use this one; it uses none of them.

#[cfg(any(feature = "stdio", feature = "client"))]
pub(crate) mod line;
mod message;
mod meta;
mod outbox;
pub(crate) mod param;

#[cfg(any(feature = "http", feature = "client"))]
pub(crate) use message::name_field;
pub use message::Reply;
#[cfg(feature = "http")]
pub(crate) use message::{request_head, RequestHead};
pub(crate) use message::{request_id, request_meta, ExtensionRequest, Incoming};
pub(crate) use meta::*;
pub use outbox::{Notifier, DEFAULT_QUEUE};

use std::future::Future;
use std::pin::Pin;

/// A boxed, sendable future: what handlers and input handlers return.
pub type BoxFuture<T> = Pin<Box<dyn Future<Output = T> + Send + 'static>>;

/// Lock `m`, taking over a lock whose holder panicked: every mutex here guards bookkeeping that
/// stays consistent between statements, and one panicking handler must not wedge the rest.
pub(crate) fn lock<T>(m: &std::sync::Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    match m.lock() {
        Ok(g) => g,
        Err(poisoned) => poisoned.into_inner(),
    }
}

/// `value` (a `serde_json::Value` or map, on the slow paths that hold one) read as the protocol
/// type `T` through its JSON text. The runtime decodes protocol types from bytes only, so each
/// has one deserializer compiled: a `serde_json::Value` deserializer as well doubled the code of
/// every type it reached (a `ClientRequest` reaches all of them).
pub(crate) fn from_value_text<T: serde_core::de::DeserializeOwned>(
    value: &(impl serde_core::Serialize + ?Sized),
) -> serde_json::Result<T> {
    serde_json::from_slice(&serde_json::to_vec(value)?)
}

/// `value` as a `serde_json::Value`, through its JSON text: protocol types are written to
/// bytes only, for the reason [`from_value_text`] gives.
pub(crate) fn to_value_text(
    value: &(impl serde_core::Serialize + ?Sized),
) -> serde_json::Result<serde_json::Value> {
    from_value_text(value)
}
