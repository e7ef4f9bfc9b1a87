//! Handler parameters that are not tool arguments: application state ([`State`]), the caller
//! ([`Principal`], `Option<Principal>`) and the request itself (`RequestContext`). The macros
//! recognise them by type, leave them out of the input schema, and take each from the call with
//! [`FromCall`], as axum's extractors take theirs from the request.

use crate::wire::BoxFuture;
use oxmcp_schema::{Error, RequestMetaObject};
use serde_json::{Map, Value};
use std::any::{Any, TypeId};
use std::collections::HashMap;
use std::fmt;
use std::ops::Deref;
use std::sync::Arc;

/// Who is calling, as the transport authenticated them: the subject and issuer of a verified
/// token, its scopes and all its claims. A `requestState` issued to one principal does not open
/// for another. `Serialize` and `Deserialize` with the `derive` feature.
#[derive(Debug, Clone, PartialEq, Default)]
#[cfg_attr(feature = "derive", derive(serde::Serialize, serde::Deserialize))]
#[non_exhaustive]
pub struct Principal {
    /// The subject (`sub`): who the caller is, unique within its issuer.
    pub subject: String,
    /// The issuer (`iss`) that vouches for the subject, when known.
    pub issuer: Option<String>,
    /// The scopes granted to the caller.
    pub scopes: Vec<String>,
    /// Every verified claim of the caller's token, as sent.
    pub claims: Map<String, Value>,
}

impl Principal {
    /// A principal with this subject and nothing else.
    pub fn new(subject: impl Into<String>) -> Self {
        Principal {
            subject: subject.into(),
            ..Default::default()
        }
    }

    /// With this issuer.
    pub fn with_issuer(mut self, issuer: impl Into<String>) -> Self {
        self.issuer = Some(issuer.into());
        self
    }

    /// With these scopes.
    pub fn with_scopes<S: Into<String>>(mut self, scopes: impl IntoIterator<Item = S>) -> Self {
        self.scopes = scopes.into_iter().map(Into::into).collect();
        self
    }

    /// Whether the caller was granted `scope`.
    pub fn has_scope(&self, scope: &str) -> bool {
        self.scopes.iter().any(|s| s == scope)
    }

    /// What a `requestState` is bound to: issuer and subject, length-prefixed so no two
    /// different pairs give the same text.
    pub(crate) fn binding_key(&self) -> String {
        let issuer = self.issuer.as_deref().unwrap_or("");
        format!("{}:{issuer}{}", issuer.len(), self.subject)
    }
}

/// Application state registered with `ServerBuilder::state`, shared by every call: a handler
/// parameter `db: State<Pool>` receives it. Cheap to clone (an `Arc`).
pub struct State<T: ?Sized>(pub Arc<T>);

impl<T: ?Sized> Clone for State<T> {
    fn clone(&self) -> Self {
        State(self.0.clone())
    }
}

impl<T: ?Sized> Deref for State<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.0
    }
}

impl<T: ?Sized + fmt::Debug> fmt::Debug for State<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("State").field(&&*self.0).finish()
    }
}

impl<T> State<T> {
    /// Wrap a value (for calling a handler's `run` directly, e.g. in tests).
    pub fn new(value: T) -> Self {
        State(Arc::new(value))
    }
}

/// The application state a server holds, by type.
#[derive(Clone, Default)]
pub(crate) struct StateMap(HashMap<TypeId, Arc<dyn Any + Send + Sync>>);

impl StateMap {
    pub(crate) fn insert<T: Send + Sync + 'static>(&mut self, value: T) {
        self.0.insert(TypeId::of::<T>(), Arc::new(value));
    }

    pub(crate) fn contains(&self, type_id: TypeId) -> bool {
        self.0.contains_key(&type_id)
    }

    fn get<T: Send + Sync + 'static>(&self) -> Option<Arc<T>> {
        self.0
            .get(&TypeId::of::<T>())
            .cloned()
            .and_then(|v| v.downcast::<T>().ok())
    }
}

/// A state type a handler needs, checked when the server is built.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Need {
    /// The state's type.
    pub type_id: TypeId,
    /// Its name, for the error.
    pub type_name: &'static str,
}

/// Tells a handler's `RequestContext` that the request was cancelled when the round is dropped
/// before it finished. The channel is made only if a handler asks for it (most never do).
#[derive(Default)]
pub(crate) struct CancelSlot {
    sender: std::sync::OnceLock<tokio::sync::watch::Sender<bool>>,
    finished: bool,
}

impl CancelSlot {
    /// A receiver that turns `true` if the round is dropped before it finishes.
    pub(crate) fn receiver(&self) -> tokio::sync::watch::Receiver<bool> {
        self.sender
            .get_or_init(|| tokio::sync::watch::channel(false).0)
            .subscribe()
    }

    /// The round finished: nothing was cancelled.
    pub(crate) fn disarm(&mut self) {
        self.finished = true;
    }
}

impl Drop for CancelSlot {
    fn drop(&mut self) {
        if let (false, Some(tx)) = (self.finished, self.sender.get()) {
            let _ = tx.send(true);
        }
    }
}

/// What a call offers the parameters of its handler.
pub struct CallParts<'a> {
    pub(crate) app_state: &'a StateMap,
    pub(crate) principal: Option<&'a Principal>,
    /// The request's method, target and `_meta`.
    pub(crate) method: &'static str,
    pub(crate) target: &'a str,
    pub(crate) meta: &'a RequestMetaObject,
    /// Where the request's notifications go, if the transport can deliver them.
    pub(crate) notifier: Option<crate::wire::Notifier>,
    /// Tells of the request being cancelled before the handler finished.
    pub(crate) cancel: &'a CancelSlot,
}

impl<'a> CallParts<'a> {
    /// The request's method.
    pub fn method(&self) -> &'static str {
        self.method
    }

    /// The tool or prompt name, or the resource URI.
    pub fn target(&self) -> &'a str {
        self.target
    }

    /// The request's `_meta`.
    pub fn meta(&self) -> &'a RequestMetaObject {
        self.meta
    }

    /// The authenticated caller, if any.
    pub fn principal(&self) -> Option<&'a Principal> {
        self.principal
    }

    /// Where the request's notifications go (each one JSON text), if anywhere.
    pub fn notifier(&self) -> Option<crate::wire::Notifier> {
        self.notifier.clone()
    }

    /// A receiver that turns `true` when the request is cancelled.
    pub fn cancellation(&self) -> tokio::sync::watch::Receiver<bool> {
        self.cancel.receiver()
    }
}

/// A handler parameter taken from the call rather than from the arguments.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be taken from an MCP call",
    note = "handler parameters that are not arguments are State<T>, Principal, Option<Principal> or RequestContext"
)]
pub trait FromCall: Sized {
    /// The value for this call, or the error the call fails with.
    fn from_call(parts: &CallParts<'_>) -> Result<Self, Error>;
    /// The state type this parameter needs registered, checked when the server is built.
    fn need() -> Option<Need> {
        None
    }
}

impl<T: Send + Sync + 'static> FromCall for State<T> {
    fn from_call(parts: &CallParts<'_>) -> Result<Self, Error> {
        parts.app_state.get::<T>().map(State).ok_or_else(|| {
            Error::internal(format!(
                "no state of type {} is registered with the server",
                std::any::type_name::<T>()
            ))
        })
    }

    fn need() -> Option<Need> {
        Some(Need {
            type_id: TypeId::of::<T>(),
            type_name: std::any::type_name::<T>(),
        })
    }
}

impl FromCall for Principal {
    fn from_call(parts: &CallParts<'_>) -> Result<Self, Error> {
        parts.principal.cloned().ok_or_else(|| {
            Error::invalid_request("this handler needs an authenticated caller, and there is none")
        })
    }
}

impl FromCall for Option<Principal> {
    fn from_call(parts: &CallParts<'_>) -> Result<Self, Error> {
        Ok(parts.principal.cloned())
    }
}

/// A ready future for a handler that failed before it started (a parameter it could not get).
pub fn failed<T: Send + 'static>(error: Error) -> BoxFuture<Result<T, Error>> {
    Box::pin(async move { Err(error) })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn binding_keys_tell_issuer_and_subject_apart() {
        let a = Principal::new("bc").with_issuer("a");
        let b = Principal::new("c").with_issuer("ab");
        assert_ne!(a.binding_key(), b.binding_key());
        assert_ne!(
            Principal::new("x").binding_key(),
            Principal::new("y").binding_key()
        );
    }

    #[test]
    fn states_are_found_by_type() {
        let mut map = StateMap::default();
        map.insert(41u32);
        map.insert(String::from("cfg"));
        assert_eq!(map.get::<u32>().as_deref(), Some(&41));
        assert_eq!(
            map.get::<String>().as_deref().map(String::as_str),
            Some("cfg")
        );
        assert!(map.get::<u64>().is_none());
    }
}
