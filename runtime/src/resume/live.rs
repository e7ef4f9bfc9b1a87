//! Asks on a 2025-era session: there the server may send requests to the client, so an
//! ask is a real `elicitation/create`, `sampling/createMessage` or `roots/list` request whose
//! response the handler awaits in place, with no replay. [`Outbound`] numbers the session's
//! requests and matches the client's responses to them; [`Live`] is what one call asks through.

use crate::handler::AskError;
use crate::wire::{lock, Notifier};
use oxmcp_schema::{Error, InputRequest};
use serde_json::value::RawValue;
use serde_json::{json, Value};
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::oneshot;

/// A client's response to one of the session's requests: its result's JSON text, or its error.
pub(crate) type Answer = Result<Box<RawValue>, Error>;

/// A session's requests to its client that await a response, by id.
#[derive(Debug)]
pub(crate) struct Outbound {
    next: AtomicU64,
    /// The result's JSON text, or the error, for each request that waits.
    waiting: Mutex<HashMap<String, oneshot::Sender<Answer>>>,
    /// How long an ask waits for the client's response.
    timeout: Duration,
    /// Set when the session is gone: an ask made after that fails at once.
    closed: AtomicBool,
}

impl Outbound {
    #[cfg(any(feature = "http", feature = "stdio"))]
    pub(crate) fn new(timeout: Duration) -> Self {
        Outbound {
            next: AtomicU64::new(1),
            waiting: Mutex::default(),
            timeout,
            closed: AtomicBool::new(false),
        }
    }

    /// Hand the client's response to the request with this id (its JSON text); false if no
    /// request of this session waits for it.
    #[cfg(any(feature = "http", feature = "stdio"))]
    pub(crate) fn resolve(&self, id: &str, outcome: Answer) -> bool {
        match lock(&self.waiting).remove(id) {
            Some(tx) => tx.send(outcome).is_ok(),
            None => false,
        }
    }

    /// Fail every waiting request, and every one made later: the session is gone, or no
    /// answer can reach it any more.
    #[cfg(any(feature = "http", feature = "stdio"))]
    pub(crate) fn close(&self) {
        self.closed.store(true, Ordering::SeqCst);
        lock(&self.waiting).clear();
    }
}

/// What one call on a 2025 session asks through: the session's [`Outbound`] and the stream
/// its requests are written to.
#[derive(Debug, Clone)]
pub(crate) struct Live {
    pub(crate) outbound: Arc<Outbound>,
    pub(crate) out: Notifier,
}

/// Removes a request from the waiting table if its ask is dropped (the call was cancelled), and
/// tells the client it is no longer wanted.
struct Waiting<'a> {
    live: &'a Live,
    id: String,
    id_value: Value,
    done: bool,
}

impl Drop for Waiting<'_> {
    fn drop(&mut self) {
        if !self.done && lock(&self.live.outbound.waiting).remove(&self.id).is_some() {
            let cancelled = json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
                "params": {"requestId": self.id_value, "reason": "the call was cancelled"}});
            self.live.out.send(cancelled.to_string());
        }
    }
}

impl Live {
    /// Send `request` to the client and wait for its result's JSON text.
    pub(crate) async fn request(&self, request: &InputRequest) -> Result<Box<RawValue>, AskError> {
        let n = self.outbound.next.fetch_add(1, Ordering::Relaxed);
        let id_value = json!(format!("mcp-server-{n}"));
        let id = id_value.to_string();
        let message = request_text(request, &id).map_err(|e| {
            AskError::Refused(Box::new(Error::internal(format!(
                "the request does not serialize: {e}"
            ))))
        })?;
        let (tx, rx) = oneshot::channel();
        lock(&self.outbound.waiting).insert(id.clone(), tx);
        // Checked after the insert: a close that comes between the two clears the table, one
        // that came before is seen here.
        if self.outbound.closed.load(Ordering::SeqCst) {
            lock(&self.outbound.waiting).remove(&id);
            return Err(AskError::NoAnswer);
        }
        let mut waiting = Waiting {
            live: self,
            id,
            id_value,
            done: false,
        };
        if !self.out.deliver(message).await {
            waiting.done = true;
            lock(&self.outbound.waiting).remove(&waiting.id);
            return Err(AskError::NoAnswer);
        }
        let answer = tokio::time::timeout(self.outbound.timeout, rx).await;
        waiting.done = true;
        match answer {
            Ok(Ok(Ok(value))) => Ok(value),
            Ok(Ok(Err(error))) => Err(AskError::Refused(Box::new(error))),
            // Timed out, or the session closed.
            Ok(Err(_)) | Err(_) => {
                lock(&self.outbound.waiting).remove(&waiting.id);
                Err(AskError::NoAnswer)
            }
        }
    }
}

/// `request` as a JSON-RPC request with `id` (its JSON text), written in one pass: the
/// request's own JSON with `jsonrpc` and `id` put in front. A request whose unnamed properties
/// hold either of those goes through a JSON object instead, so the envelope's win.
fn request_text(request: &InputRequest, id: &str) -> serde_json::Result<String> {
    let extra = match request {
        InputRequest::CreateMessageRequest(r) => Some(&r.extra),
        InputRequest::ListRootsRequest(r) => Some(&r.extra),
        InputRequest::ElicitRequest(r) => Some(&r.extra),
        _ => None,
    };
    let plain = extra.is_some_and(|e| !e.contains_key("jsonrpc") && !e.contains_key("id"));
    let text = serde_json::to_string(request)?;
    match text.strip_prefix('{') {
        Some(rest) if plain => {
            let mut out = String::with_capacity(text.len() + id.len() + 24);
            out.push_str(r#"{"jsonrpc":"2.0","id":"#);
            out.push_str(id);
            if rest != "}" {
                out.push(',');
            }
            out.push_str(rest);
            Ok(out)
        }
        _ => {
            let mut message: Value = crate::wire::from_text(&text)?;
            if let Some(m) = message.as_object_mut() {
                m.insert("jsonrpc".into(), json!("2.0"));
                m.insert("id".into(), crate::wire::from_text(id)?);
            }
            Ok(message.to_string())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn input(v: Value) -> InputRequest {
        serde_json::from_value(v).expect("an input request")
    }

    #[test]
    fn the_envelope_goes_in_front_of_the_request() {
        let request = input(json!({"method": "elicitation/create", "params": {
            "mode": "form", "message": "Name?",
            "requestedSchema": {"type": "object", "properties": {"name": {"type": "string"}}}}}));
        let text = request_text(&request, r#""mcp-server-7""#).unwrap();
        assert!(text.starts_with(r#"{"jsonrpc":"2.0","id":"mcp-server-7","method":"#));
        let mut expected = serde_json::to_value(&request).unwrap();
        expected["jsonrpc"] = json!("2.0");
        expected["id"] = json!("mcp-server-7");
        assert_eq!(serde_json::from_str::<Value>(&text).unwrap(), expected);
    }

    #[test]
    fn unnamed_properties_cannot_replace_the_envelope() {
        let request = input(json!({"method": "roots/list", "id": 99, "jsonrpc": "1.0"}));
        assert!(
            matches!(&request, InputRequest::ListRootsRequest(r) if r.extra.contains_key("id"))
        );
        let text = request_text(&request, r#""mcp-server-1""#).unwrap();
        let value: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(value["id"], json!("mcp-server-1"));
        assert_eq!(value["jsonrpc"], json!("2.0"));
        assert_eq!(value["method"], json!("roots/list"));
        // Each key once: the text parses to exactly these three.
        assert_eq!(value.as_object().map(|m| m.len()), Some(3));
        assert_eq!(text.matches(r#""id""#).count(), 1);
    }
}
