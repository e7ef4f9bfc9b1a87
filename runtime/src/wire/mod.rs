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
