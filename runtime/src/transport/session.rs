//! Legacy (2025-era) sessions over streamable HTTP: an `initialize` without the modern `_meta`
//! opens a session named by `Mcp-Session-Id`; the session's requests are POSTed with it and
//! answered as JSON or, when the handler asks the client something or sends notifications, as
//! an SSE stream that carries the server's requests before the response; the client POSTs its
//! responses back; GET opens the standalone stream (list changes, resource updates); DELETE ends
//! the session. Requests without the header get 400, unknown or expired sessions 404. Streams
//! carry event ids and can be resumed with `Last-Event-ID` ([`event_log`](super::event_log)).
//!
//! Sessions live in this process: a deployment with several instances must route a session's
//! requests to the instance that opened it (sticky sessions on `Mcp-Session-Id`); modern
//! requests need no such thing.

use crate::handler::Principal;
use crate::server::legacy::{is_legacy_initialize, Session};
use crate::server::Server;
use crate::transport::event_log::{self, parse_event_id, EventLog};
use crate::transport::sse::AbortOnDrop;
use crate::transport::Limits;
use crate::wire::{lock, Notifier};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use serde_json::{json, Value};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Instant;
use tokio::sync::{mpsc, oneshot, watch};

/// The `Mcp-Session-Id` header.
pub(crate) const SESSION_HEADER: &str = "mcp-session-id";

/// Finished streams of a session kept for a reconnection although nobody read their end.
const KEPT_FINISHED: usize = 16;

/// One HTTP session.
struct Entry {
    session: Arc<Session>,
    last_used: Mutex<Instant>,
    streams: Mutex<Streams>,
    /// The session's requests being served, by JSON-RPC id (as JSON text), for
    /// `notifications/cancelled`.
    calls: Mutex<HashMap<String, tokio::task::AbortHandle>>,
}

/// The resumable streams of a session.
#[derive(Default)]
struct Streams {
    next: u64,
    logs: HashMap<u64, Arc<EventLog>>,
    /// The standalone (GET) stream, if one is open.
    standalone: Option<u64>,
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
                streams: Mutex::default(),
                calls: Mutex::default(),
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
        let request_id = match (message.get("method"), message.get("id")) {
            (Some(_), Some(id)) => Some(id.to_string()),
            _ => None,
        };
        if message.get("method").and_then(Value::as_str) == Some("notifications/cancelled") {
            entry.cancel(message.pointer("/params/requestId"));
        }
        let (cut_tx, cut_rx) = watch::channel(0u32);
        let (out, rx) = Notifier::channel(limits.queue);
        let out = out.with_cut(cut_tx);
        let (server, session) = (server.clone(), entry.session.clone());
        let (done_tx, done_rx) = oneshot::channel::<Option<String>>();
        let Some(key) = request_id else {
            // Responses and notifications: accepted.
            server
                .handle_legacy(&session, message, principal.as_ref(), out)
                .await;
            return StatusCode::ACCEPTED.into_response();
        };
        // The call is known by its id while it runs (the lock is held until it is registered,
        // so a call that ends at once cannot leave its handle behind).
        let task = {
            let mut calls = lock(&entry.calls);
            let deregister = Deregister(entry.clone(), key.clone());
            let task = tokio::spawn(async move {
                let _deregister = deregister;
                let reply = server
                    .handle_legacy(&session, message, principal.as_ref(), out)
                    .await;
                let _ = done_tx.send(reply);
            });
            calls.insert(key, task.abort_handle());
            task
        };
        respond(&entry, limits, rx, done_rx, task, cut_rx).await
    }

    /// GET: the standalone SSE stream of a session, or with `Last-Event-ID` the rest of the
    /// stream that event belongs to.
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
        let resume = headers
            .get("last-event-id")
            .and_then(|v| v.to_str().ok())
            .and_then(parse_event_id);
        if let Some((stream, after)) = resume {
            let log = lock(&entry.streams).logs.get(&stream).cloned();
            // A stream with something left to send is resumed; one that is gone or has nothing
            // more gives way to a new standalone stream.
            if let Some(log) = log.filter(|log| !log.exhausted_after(after)) {
                return Some(event_log::read(
                    log,
                    after,
                    None,
                    limits.retry_hint,
                    limits.resume_window,
                ));
            }
        }
        let (out, mut rx) = Notifier::channel(limits.queue);
        let log = entry.open_log(limits, None);
        {
            // One standalone stream per session: a new GET replaces the old one.
            let mut streams = lock(&entry.streams);
            if let Some(old) = streams.standalone.replace(log.id()) {
                if let Some(old) = streams.logs.remove(&old) {
                    old.abort();
                }
            }
        }
        let (server, session, writer_log) = (server.clone(), entry.session.clone(), log.clone());
        let writer = tokio::spawn(async move {
            let forward = server.forward_changes(&session, &out);
            let drain = async {
                while let Some(text) = rx.recv().await {
                    writer_log.push(text);
                }
            };
            tokio::select! {
                _ = forward => {}
                _ = drain => {}
            }
            writer_log.finish();
        });
        log.set_writer(writer.abort_handle());
        Some(event_log::read(
            log,
            0,
            None,
            limits.retry_hint,
            limits.resume_window,
        ))
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

/// Removes a call from its session's calls when it ends, however it ends.
struct Deregister(Arc<Entry>, String);

impl Drop for Deregister {
    fn drop(&mut self) {
        lock(&self.0.calls).remove(&self.1);
    }
}

impl Entry {
    /// End the session: its calls are cancelled and its streams end.
    fn close(&self) {
        self.session.close();
        let calls: Vec<_> = lock(&self.calls).drain().collect();
        for (_, call) in calls {
            call.abort();
        }
        let logs: Vec<_> = lock(&self.streams).logs.drain().collect();
        for (_, log) in logs {
            log.abort();
        }
    }

    /// `notifications/cancelled`: stop the session's request `id`, if it is still running.
    fn cancel(&self, id: Option<&Value>) {
        let Some(id) = id else { return };
        let call = lock(&self.calls).remove(&id.to_string());
        if let Some(call) = call {
            call.abort();
        }
    }

    /// A new stream of the session. Finished streams whose end was read are dropped, and of
    /// the finished ones nobody read to the end only the newest few are kept.
    fn open_log(&self, limits: &Limits, cut: Option<watch::Receiver<u32>>) -> Arc<EventLog> {
        let mut streams = lock(&self.streams);
        streams.logs.retain(|_, log| !log.is_delivered());
        let mut finished: Vec<u64> = streams
            .logs
            .iter()
            .filter(|(_, log)| log.is_finished())
            .map(|(id, _)| *id)
            .collect();
        if finished.len() >= KEPT_FINISHED {
            finished.sort_unstable();
            for id in &finished[..=finished.len() - KEPT_FINISHED] {
                streams.logs.remove(id);
            }
        }
        streams.next += 1;
        let log = EventLog::new(streams.next, limits.queue, cut);
        streams.logs.insert(log.id(), log.clone());
        log
    }
}

/// The response to a session's request: plain JSON if the reply comes before anything else,
/// else a resumable SSE stream of the server's requests and notifications, then the reply. The
/// stream starts too when the handler ends it before sending anything
/// (`RequestContext::close_stream`), so the client has an event id to resume from.
async fn respond(
    entry: &Entry,
    limits: &Limits,
    mut rx: mpsc::Receiver<String>,
    mut done: oneshot::Receiver<Option<String>>,
    task: tokio::task::JoinHandle<()>,
    mut cut: watch::Receiver<u32>,
) -> Response {
    let task = AbortOnDrop(task);
    let first = tokio::select! {
        biased;
        note = rx.recv() => note,
        _ = cut.changed() => None,
        reply = &mut done => {
            return match reply.ok().flatten() {
                Some(reply) => json_ok(reply, None),
                None => StatusCode::ACCEPTED.into_response(),
            };
        }
    };
    if first.is_none() && *cut.borrow() == 0 {
        // Nothing was streamed and the notifier is gone: the reply is on its way.
        return match done.await.ok().flatten() {
            Some(reply) => json_ok(reply, None),
            None => StatusCode::ACCEPTED.into_response(),
        };
    }
    let log = entry.open_log(limits, Some(cut));
    if let Some(first) = first {
        log.push(first);
    }
    // The log's writer owns the call from here: a lost connection does not cancel it.
    let writer_log = log.clone();
    let writer = tokio::spawn(async move {
        let _call = task;
        while let Some(text) = rx.recv().await {
            writer_log.push(text);
        }
        if let Ok(Some(reply)) = done.await {
            writer_log.push(reply);
        }
        writer_log.finish();
    });
    log.set_writer(writer.abort_handle());
    event_log::read(log, 0, Some(0), limits.retry_hint, limits.resume_window)
}
