//! Legacy (2025-era) sessions over streamable HTTP: an `initialize` without the modern `_meta`
//! opens a session named by `Mcp-Session-Id`; the session's requests are POSTed with it and
//! answered as JSON or, when the handler asks the client something or sends notifications, as
//! an SSE stream that carries the server's requests before the response; the client POSTs its
//! responses back; GET opens the standalone stream (list changes, resource updates); DELETE ends
//! the session. Requests without the header get 400, unknown or expired sessions 404.
//!
//! Sessions live in this process: a deployment with several instances must route a session's
//! requests to the instance that opened it (sticky sessions on `Mcp-Session-Id`); modern
//! requests need no such thing.

use crate::handler::Principal;
use crate::server::legacy::{is_legacy_initialize, Session};
use crate::server::Server;
use crate::transport::sse::{event_stream, AbortOnDrop};
use crate::transport::Limits;
use crate::wire::{lock, Notifier};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use futures_util::stream::StreamExt;
use serde_json::{json, Value};
use std::collections::HashMap;
use std::convert::Infallible;
use std::sync::{Arc, Mutex};
use std::time::Instant;

/// The `Mcp-Session-Id` header.
pub(crate) const SESSION_HEADER: &str = "mcp-session-id";

/// One HTTP session.
struct Entry {
    session: Arc<Session>,
    last_used: Mutex<Instant>,
    /// The standalone GET stream's task, if one is open.
    standalone: Mutex<Option<tokio::task::AbortHandle>>,
}

/// The legacy sessions of one HTTP endpoint.
#[derive(Default)]
pub(crate) struct Sessions {
    map: Mutex<HashMap<String, Arc<Entry>>>,
}

fn error_response(status: StatusCode, id: Option<&Value>, message: &str) -> Response {
    let body = json!({"jsonrpc": "2.0", "id": id.cloned().unwrap_or(Value::Null),
                      "error": {"code": -32600, "message": message}});
    (
        status,
        [(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/json"),
        )],
        body.to_string(),
    )
        .into_response()
}

fn json_ok(body: String, session_id: Option<&str>) -> Response {
    let mut response = (
        StatusCode::OK,
        [(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/json"),
        )],
        body,
    )
        .into_response();
    if let Some(id) = session_id.and_then(|s| HeaderValue::from_str(s).ok()) {
        response.headers_mut().insert(SESSION_HEADER, id);
    }
    response
}

/// A fresh session id: 128 random bits, hex.
fn new_id() -> Option<String> {
    let mut bytes = [0u8; 16];
    getrandom::getrandom(&mut bytes).ok()?;
    Some(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

impl Sessions {
    /// The live session `id` names, touched; none if unknown or idle past the limit (then it
    /// is dropped).
    fn get(&self, id: &str, limits: &Limits) -> Option<Arc<Entry>> {
        let mut map = lock(&self.map);
        let entry = map.get(id)?.clone();
        let mut last = lock(&entry.last_used);
        if last.elapsed() > limits.session_idle {
            drop(last);
            map.remove(id);
            entry.close();
            return None;
        }
        *last = Instant::now();
        drop(last);
        Some(entry)
    }

    /// Keep `session` under a new id; none if the limit is reached.
    fn insert(&self, session: Arc<Session>, limits: &Limits) -> Option<String> {
        let mut map = lock(&self.map);
        if map.len() >= limits.max_sessions {
            // Idle sessions go first.
            map.retain(|_, e| {
                let live = lock(&e.last_used).elapsed() <= limits.session_idle;
                if !live {
                    e.close();
                }
                live
            });
            if map.len() >= limits.max_sessions {
                return None;
            }
        }
        let id = new_id()?;
        map.insert(
            id.clone(),
            Arc::new(Entry {
                session,
                last_used: Mutex::new(Instant::now()),
                standalone: Mutex::new(None),
            }),
        );
        Some(id)
    }

    /// A POST that the modern path could not read as a request of its own, with no session
    /// header: a legacy `initialize` opens a session, a 2025-era request (no modern `_meta`, no
    /// 2026 version header) is told to initialize first; anything else stays with the modern
    /// path, which answers it.
    pub(crate) fn post_without_session(
        &self,
        server: &Server,
        limits: &Limits,
        headers: &HeaderMap,
        body: &[u8],
    ) -> Option<Response> {
        let message = serde_json::from_slice::<Value>(body).ok()?;
        if is_legacy_initialize(&message) {
            let (reply, opened) = server.initialize(&message, limits.ask_timeout);
            let Some(session) = opened else {
                return Some(json_ok(reply, None));
            };
            return Some(match self.insert(session, limits) {
                Some(id) => json_ok(reply, Some(&id)),
                None => error_response(
                    StatusCode::SERVICE_UNAVAILABLE,
                    message.get("id"),
                    "too many sessions; try again later",
                ),
            });
        }
        let version = headers
            .get("mcp-protocol-version")
            .and_then(|v| v.to_str().ok());
        let legacy_header = version.is_none_or(|v| crate::LEGACY_VERSIONS.contains(&v));
        let modern_meta = message
            .pointer("/params/_meta")
            .and_then(|m| m.get(crate::wire::META_VERSION))
            .is_some();
        let request = message.get("method").is_some() && message.get("id").is_some();
        (legacy_header && request && !modern_meta && server.serves_legacy()).then(|| {
            error_response(
                StatusCode::BAD_REQUEST,
                message.get("id"),
                "missing Mcp-Session-Id: initialize first",
            )
        })
    }

    /// A POST in the session `session_id` names: its requests are answered as JSON or on an SSE
    /// stream, its responses and notifications accepted.
    pub(crate) async fn post_in_session(
        &self,
        server: &Arc<Server>,
        limits: &Limits,
        session_id: &str,
        body: &[u8],
        principal: Option<Principal>,
    ) -> Response {
        let Some(entry) = self.get(session_id, limits) else {
            return error_response(
                StatusCode::NOT_FOUND,
                None,
                "unknown or expired session; initialize again",
            );
        };
        let message = match serde_json::from_slice::<Value>(body) {
            Ok(message) => message,
            Err(e) => {
                let body = json!({"jsonrpc": "2.0", "id": null,
                    "error": {"code": -32700, "message": format!("parse error: {e}")}});
                let mut response = json_ok(body.to_string(), None);
                *response.status_mut() = StatusCode::BAD_REQUEST;
                return response;
            }
        };
        let is_request = message.get("method").is_some() && message.get("id").is_some();
        let (out, rx) = Notifier::channel(limits.queue);
        let (server, session) = (server.clone(), entry.session.clone());
        let (done_tx, done_rx) = tokio::sync::oneshot::channel::<Option<String>>();
        let task_out = out.clone();
        let task = tokio::spawn(async move {
            let reply = server
                .handle_legacy(&session, message, principal.as_ref(), task_out)
                .await;
            let _ = done_tx.send(reply);
        });
        drop(out);
        if !is_request {
            // Responses and notifications: accepted.
            let _ = task.await;
            return StatusCode::ACCEPTED.into_response();
        }
        respond(rx, done_rx, task).await
    }

    /// GET: the standalone SSE stream of a session.
    pub(crate) fn get_stream(
        &self,
        server: &Arc<Server>,
        limits: &Limits,
        headers: &HeaderMap,
    ) -> Option<Response> {
        let session_id = headers.get(SESSION_HEADER).and_then(|v| v.to_str().ok())?;
        let Some(entry) = self.get(session_id, limits) else {
            return Some(error_response(
                StatusCode::NOT_FOUND,
                None,
                "unknown or expired session",
            ));
        };
        let (out, rx) = Notifier::channel(limits.queue);
        let (server, session) = (server.clone(), entry.session.clone());
        let task = tokio::spawn(async move { server.forward_changes(&session, &out).await });
        // One standalone stream per session: a new GET replaces the old one.
        if let Some(old) = lock(&entry.standalone).replace(task.abort_handle()) {
            old.abort();
        }
        let events = tokio_stream::wrappers::ReceiverStream::new(rx)
            .map(|text| Ok::<Event, Infallible>(Event::default().event("message").data(text)));
        Some(
            Sse::new(events)
                .keep_alive(KeepAlive::default())
                .into_response(),
        )
    }

    /// DELETE: end a session.
    pub(crate) fn delete(&self, headers: &HeaderMap) -> Option<Response> {
        let session_id = headers.get(SESSION_HEADER).and_then(|v| v.to_str().ok())?;
        let removed = lock(&self.map).remove(session_id);
        Some(match removed {
            Some(entry) => {
                entry.close();
                StatusCode::NO_CONTENT.into_response()
            }
            None => error_response(StatusCode::NOT_FOUND, None, "unknown or expired session"),
        })
    }
}

impl Entry {
    fn close(&self) {
        self.session.close();
        if let Some(stream) = lock(&self.standalone).take() {
            stream.abort();
        }
    }
}

/// The response to a session's request: plain JSON if the reply comes before anything else,
/// else an SSE stream of the server's requests and notifications, then the reply.
async fn respond(
    mut rx: tokio::sync::mpsc::Receiver<String>,
    mut done: tokio::sync::oneshot::Receiver<Option<String>>,
    task: tokio::task::JoinHandle<()>,
) -> Response {
    let task = AbortOnDrop(task);
    let first = tokio::select! {
        biased;
        note = rx.recv() => note,
        reply = &mut done => {
            return match reply.ok().flatten() {
                Some(reply) => json_ok(reply, None),
                None => StatusCode::ACCEPTED.into_response(),
            };
        }
    };
    let Some(first) = first else {
        // Nothing was streamed and the notifier is gone: the reply is on its way.
        return match done.await.ok().flatten() {
            Some(reply) => json_ok(reply, None),
            None => StatusCode::ACCEPTED.into_response(),
        };
    };
    event_stream(first, rx, task, async move { done.await.ok().flatten() })
}
