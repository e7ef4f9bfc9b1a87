//! 2025-era sessions over streamable HTTP: an `initialize` without the 2026 `_meta`
//! opens a session named by `Mcp-Session-Id`; the session's requests are POSTed with it and
//! answered as JSON or, when the handler asks the client something or sends notifications, as
//! an SSE stream that carries the server's requests before the response; the client POSTs its
//! responses back; GET opens the standalone stream (list changes, resource updates); DELETE ends
//! the session. Requests without the header get 400, unknown or expired sessions 404. Streams
//! carry event ids and can be resumed with `Last-Event-ID` ([`event_log`](super::event_log)).
//!
//! A session belongs to the caller that opened it: every later request, GET and DELETE must come
//! from the same principal (issuer and subject), or it is answered as for an unknown session.
//! What a session keeps of its client is bounded (`Limits::session_bytes`), each caller holds at
//! most `Limits::sessions_per_caller`, and idle sessions are swept in the background.
//!
//! Sessions live in this process: a deployment with several instances must route a session's
//! requests to the instance that opened it (sticky sessions on `Mcp-Session-Id`); 2026
//! requests need no such thing.

use super::config::Core;
use super::edge::{
    header_str, insufficient_scope, Caller, LAST_EVENT_ID, PROTOCOL_VERSION, SESSION,
};
use super::quota::{CallerKey, InFlight};
use super::respond::{json_response, Refusal};
use crate::http::event_log::{self, parse_event_id, EventLog};
use crate::http::sse::counted;
use crate::server::session::{
    is_session_initialize, read_message, Session, SessionIncoming, SessionInitialize,
};
use crate::transport::Limits;
use crate::wire::{lock, Notifier};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use futures_util::future::{AbortHandle, Abortable};
use serde_json::{json, Value};
use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};
use tokio::sync::{mpsc, watch};

/// Finished streams of a session kept for a reconnection although nobody read their end.
const KEPT_FINISHED: usize = 16;

/// One HTTP session.
struct Entry {
    session: Arc<Session>,
    /// The principal that opened it (its binding key), `None` when anonymous.
    owner: Option<String>,
    /// Who it counts against in `Limits::sessions_per_caller`.
    counted: Option<CallerKey>,
    last_used: Mutex<Instant>,
    streams: Mutex<Streams>,
    /// The session's requests being served, by JSON-RPC id (as JSON text), for
    /// `notifications/cancelled`.
    calls: Mutex<HashMap<String, AbortHandle>>,
}

/// The resumable streams of a session.
#[derive(Default)]
struct Streams {
    next: u64,
    logs: HashMap<u64, Arc<EventLog>>,
    /// The standalone (GET) stream, if one is open.
    standalone: Option<u64>,
}

/// The 2025 sessions of one HTTP endpoint.
pub(crate) struct Sessions {
    inner: Mutex<Table>,
    /// Where open sessions are counted, when metrics are on.
    #[cfg(feature = "metrics")]
    metrics: Option<Arc<crate::metrics::Metrics>>,
    /// How long a session may sit unused.
    idle: Duration,
    /// Set once the background sweep of idle sessions runs.
    sweeping: OnceLock<()>,
}

/// The sessions by id, and how many each caller holds.
#[derive(Default)]
struct Table {
    map: HashMap<String, Arc<Entry>>,
    per_caller: HashMap<CallerKey, usize>,
    #[cfg(feature = "metrics")]
    metrics: Option<Arc<crate::metrics::Metrics>>,
}

impl Table {
    /// Drop the session `id`: its calls and streams end, and its caller's count goes down.
    fn remove(&mut self, id: &str) -> Option<Arc<Entry>> {
        let entry = self.map.remove(id)?;
        #[cfg(feature = "metrics")]
        if let Some(m) = &self.metrics {
            m.sessions(-1);
        }
        if let Some(key) = &entry.counted {
            if let Some(n) = self.per_caller.get_mut(key) {
                *n -= 1;
                if *n == 0 {
                    self.per_caller.remove(key);
                }
            }
        }
        entry.close();
        entry.session.ended("tcp");
        Some(entry)
    }

    /// Drop every session idle for longer than `idle`.
    fn sweep(&mut self, idle: Duration) {
        let stale: Vec<String> = self
            .map
            .iter()
            .filter(|(_, e)| lock(&e.last_used).elapsed() > idle)
            .map(|(id, _)| id.clone())
            .collect();
        for id in stale {
            self.remove(&id);
        }
    }
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
        response.headers_mut().insert(SESSION.clone(), id);
    }
    response
}

impl Sessions {
    pub(crate) fn new(
        limits: &Limits,
        #[cfg(feature = "metrics")] metrics: Option<Arc<crate::metrics::Metrics>>,
    ) -> Arc<Sessions> {
        Arc::new(Sessions {
            inner: Mutex::new(Table {
                #[cfg(feature = "metrics")]
                metrics: metrics.clone(),
                ..Table::default()
            }),
            #[cfg(feature = "metrics")]
            metrics,
            idle: limits.session_idle,
            sweeping: OnceLock::new(),
        })
    }

    /// The live session `id` names, if `caller` opened it, touched. A session idle past the
    /// limit is dropped; one opened by someone else is refused exactly as an unknown one, so a
    /// leaked id tells nothing and reaches nothing.
    fn get(&self, id: &str, caller: &Caller) -> Result<Arc<Entry>, Refusal> {
        let mut table = lock(&self.inner);
        let entry = table.map.get(id).cloned().ok_or(Refusal::UnknownSession)?;
        let mut last = lock(&entry.last_used);
        if last.elapsed() > self.idle {
            drop(last);
            table.remove(id);
            return Err(Refusal::UnknownSession);
        }
        if entry.owner != caller.binding() {
            return Err(Refusal::UnknownSession);
        }
        *last = Instant::now();
        drop(last);
        Ok(entry)
    }

    /// Keep `session` for `caller` under a new id; refused when the caller holds its share
    /// (429) or the endpoint holds as many as it may (503).
    fn insert(
        self: &Arc<Self>,
        session: Arc<Session>,
        caller: &Caller,
        limits: &Limits,
    ) -> Result<String, Refusal> {
        self.start_sweeping();
        let mut table = lock(&self.inner);
        if table.map.len() >= limits.max_sessions {
            // Idle sessions go first.
            table.sweep(self.idle);
            if table.map.len() >= limits.max_sessions {
                return Err(Refusal::Full {
                    what: "sessions",
                    retry_after: Duration::from_secs(60),
                });
            }
        }
        if let Some(key) = &caller.key {
            let held = table.per_caller.get(key).copied().unwrap_or(0);
            if held >= limits.sessions_per_caller.max(1) {
                table.sweep(self.idle);
                let held = table.per_caller.get(key).copied().unwrap_or(0);
                if held >= limits.sessions_per_caller.max(1) {
                    return Err(Refusal::Quota {
                        what: "sessions",
                        retry_after: Duration::from_secs(60),
                    });
                }
            }
        }
        let id = crate::wire::random_id().ok_or(Refusal::Full {
            what: "sessions (no random id could be made)",
            retry_after: Duration::from_secs(1),
        })?;
        if let Some(key) = &caller.key {
            *table.per_caller.entry(key.clone()).or_insert(0) += 1;
        }
        #[cfg(feature = "metrics")]
        if let Some(m) = &self.metrics {
            m.sessions(1);
        }
        table.map.insert(
            id.clone(),
            Arc::new(Entry {
                session,
                owner: caller.binding(),
                counted: caller.key.clone(),
                last_used: Mutex::new(Instant::now()),
                streams: Mutex::default(),
                calls: Mutex::default(),
            }),
        );
        Ok(id)
    }

    /// Sweep idle sessions every so often in the background (once a session exists, so a
    /// router built outside a runtime spawns nothing), for as long as these sessions exist.
    fn start_sweeping(self: &Arc<Self>) {
        let every = crate::wire::sweep_period(self.idle);
        crate::wire::every_while_alive(self, &self.sweeping, every, |sessions| async move {
            lock(&sessions.inner).sweep(sessions.idle);
        });
    }

    /// A POST that the stateless path could not read as a request of its own, with no session
    /// header and the version header `version`: a 2025-era `initialize` opens a session for
    /// `caller`; a 2025-era request (no 2026 `_meta`, no 2026 version header) is told to
    /// initialize first (400), and so are a notification and a response that name a 2025
    /// version, so a client whose answer could reach no session learns so instead of having it
    /// dropped; anything else stays with the stateless path, which answers it (a notification or
    /// response with no version header is accepted and ignored there).
    pub(crate) fn post_without_session(
        self: &Arc<Self>,
        app: &Core,
        version: Option<&str>,
        body: &[u8],
        caller: &Caller,
    ) -> Option<Response> {
        let limits = &app.config.limits;
        // The common `initialize` is read without a JSON tree; anything else as a tree.
        let fast = app
            .server
            .serves_sessions()
            .then(|| SessionInitialize::read(body, limits.session_bytes))
            .flatten();
        let (reply, opened) = match fast {
            Some(request) => app.server.initialize_read(request, &limits.session()),
            None => {
                let message = serde_json::from_slice::<Value>(body).ok()?;
                if !is_session_initialize(&message) {
                    return refuse_without_session(app, version, &message);
                }
                app.server.initialize(message, &limits.session())
            }
        };
        let Some(session) = opened else {
            return Some(json_ok(reply, None));
        };
        Some(match self.insert(session, caller, limits) {
            Ok(id) => json_ok(reply, Some(&id)),
            Err(refused) => refused.into_response(),
        })
    }

    /// A POST in the session `session_id` names, from `caller`: its requests are answered as
    /// JSON or on an SSE stream, its responses and notifications accepted. The version header,
    /// when sent, must be the session's; a batch is refused; a `tools/call` needs the tool's
    /// scopes, as on the stateless path.
    pub(crate) async fn post_in_session(
        &self,
        app: &Core,
        headers: &HeaderMap,
        session_id: &str,
        body: &[u8],
        caller: Caller,
        in_flight: Option<InFlight>,
    ) -> Response {
        let entry = match self.get(session_id, &caller) {
            Ok(entry) => entry,
            Err(refused) => return refused.into_response(),
        };
        let via = crate::wire::Via::http(headers).in_session(session_id);
        if let Err(refused) = check_version(headers, &entry) {
            return refused.into_response();
        }
        if body.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'[') {
            return Refusal::Batch.into_response();
        }
        let parse_error = |e: serde_json::Error| {
            let body = json!({"jsonrpc": "2.0", "id": null,
                "error": {"code": -32700, "message": format!("parse error: {e}")}});
            json_response(StatusCode::BAD_REQUEST, body.to_string())
        };
        // The common cases, a request the handlers answer, a response to the session's request
        // and a notification, are read without a JSON tree; the rest as a tree.
        let message = match read_message(body) {
            SessionIncoming::Request(request) => {
                if let Some(text) = request.with_session_meta(&entry.session) {
                    let head = Head {
                        method: request.method(),
                        key: request.id_text().to_string(),
                        tool: request.name(),
                        via,
                    };
                    return self
                        .request(app, entry, head, Body::Text(text), caller, in_flight)
                        .await;
                }
                // Its own `_meta` could not take the session's: the tree path answers it.
                match serde_json::from_slice::<Value>(body) {
                    Ok(message) => message,
                    Err(e) => return parse_error(e),
                }
            }
            SessionIncoming::Response(response) => {
                app.server.accept_response(&entry.session, response);
                return StatusCode::ACCEPTED.into_response();
            }
            SessionIncoming::Notification => return StatusCode::ACCEPTED.into_response(),
            SessionIncoming::Tree(message) => message,
            SessionIncoming::Unreadable(e) => return parse_error(e),
        };
        let method = message.get("method").and_then(Value::as_str);
        // A cancellation is a notification; with an id it is a request, answered as one.
        if method == Some("notifications/cancelled") && message.get("id").is_none() {
            entry.cancel(message.get("params").and_then(|p| p.get("requestId")));
        }
        let (Some(method), Some(id)) = (method, message.get("id")) else {
            // Responses and notifications: accepted. Anything else is no JSON-RPC message.
            let response = message.get("id").is_some()
                && (message.get("result").is_some() || message.get("error").is_some());
            return match message {
                Value::Object(message) if method.is_some() || response => {
                    app.server.accept_in_session(&entry.session, message);
                    StatusCode::ACCEPTED.into_response()
                }
                _ => Refusal::NotAMessage.into_response(),
            };
        };
        let method = method.to_string();
        let head = Head {
            method: &method,
            key: id.to_string(),
            tool: message
                .get("params")
                .and_then(|p| p.get("name"))
                .and_then(Value::as_str)
                .map(|t| Cow::Owned(t.to_string())),
            via,
        };
        self.request(app, entry, head, Body::Message(message), caller, in_flight)
            .await
    }

    /// Serve a request of the session `entry`: refused while draining, or without the tool's
    /// scopes; otherwise run and answered as JSON or on a stream.
    async fn request(
        &self,
        app: &Core,
        entry: Arc<Entry>,
        head: Head<'_>,
        body: Body,
        caller: Caller,
        in_flight: Option<InFlight>,
    ) -> Response {
        let limits = &app.config.limits;
        // A draining instance takes no new request in its sessions: the client, told the
        // session is gone, opens one on an instance that stays. Answers and notifications still
        // arrive, so the calls in flight finish before the instance exits.
        if app.draining.load(std::sync::atomic::Ordering::SeqCst) {
            return Refusal::UnknownSession.into_response();
        }
        if head.method == oxmcp_schema::methods::TOOLS_CALL {
            let needed = app.server.tool_scopes(
                head.tool.as_deref().unwrap_or(""),
                caller.principal.as_ref(),
            );
            if !needed.is_empty() && app.authenticates() && !caller.has_scopes(needed) {
                return insufficient_scope(app, head.id(), needed).into_response();
            }
        }
        let (cut_tx, cut_rx) = watch::channel(0u32);
        let (out, rx) = Notifier::channel(limits.queue);
        let out = out.with_cut(cut_tx);
        let (server, session) = (app.server.clone(), entry.session.clone());
        let principal = caller.principal;
        // The call runs in this request's task until it sends something: a call answered at once
        // costs no task of its own. It is known by its id while it runs, for
        // `notifications/cancelled`.
        let (abort, registration) = AbortHandle::new_pair();
        {
            // An id is the call's name until it ends: a second request under it is refused
            // (it would take the first one's cancellation).
            let mut calls = lock(&entry.calls);
            if calls.contains_key(&head.key) {
                return Refusal::IdInFlight(head.id()).into_response();
            }
            calls.insert(head.key.clone(), abort);
        }
        let deregister = Deregister(entry.clone(), head.key);
        let via = head.via;
        let call = async move {
            let _deregister = deregister;
            // The call counts against its caller for as long as it runs.
            let _in_flight = in_flight;
            match body {
                Body::Text(text) => {
                    server
                        .serve_in_session(&session, &text, principal.as_ref(), out, via)
                        .await
                }
                Body::Message(message) => {
                    server
                        .handle_in_session(&session, message, principal.as_ref(), out, via)
                        .await
                }
            }
        };
        let call: Call = Abortable::new(Box::pin(call), registration);
        respond(&app.server, &entry, limits, rx, call, cut_rx).await
    }

    /// GET: the standalone SSE stream of the caller's session, or with `Last-Event-ID` the
    /// rest of the stream that event belongs to; 405 without a session header.
    pub(crate) fn get_stream(&self, app: &Core, headers: &HeaderMap, caller: &Caller) -> Response {
        let Some(session_id) = header_str(headers, &SESSION) else {
            return Refusal::MethodNotAllowed.into_response();
        };
        let limits = &app.config.limits;
        let entry = match self.get(session_id, caller) {
            Ok(entry) => entry,
            Err(refused) => return refused.into_response(),
        };
        if let Err(refused) = check_version(headers, &entry) {
            return refused.into_response();
        }
        // A stream, standalone or resumed, counts against its caller's requests in flight for
        // as long as it is open: streams are what a caller holds longest.
        let in_flight = match caller.enter(app) {
            Ok(guard) => guard,
            Err(refused) => return refused.into_response(),
        };
        let resume = header_str(headers, &LAST_EVENT_ID).and_then(parse_event_id);
        if let Some((stream, after)) = resume {
            let log = lock(&entry.streams).logs.get(&stream).cloned();
            // A stream with something left to send is resumed; one that is gone or has nothing
            // more gives way to a new standalone stream.
            if let Some(log) = log.filter(|log| !log.exhausted_after(after)) {
                let held = (counted(&app.server, "session"), in_flight);
                return event_log::read(
                    log,
                    after,
                    None,
                    limits.retry_hint,
                    limits.resume_window,
                    held,
                );
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
        let (server, session, writer_log) =
            (app.server.clone(), entry.session.clone(), log.clone());
        let closed = app.server.streams_closed();
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
                // The server stops: the stream ends, and the client reopens it elsewhere.
                () = closed => {}
            }
            writer_log.finish();
        });
        log.set_writer(writer.abort_handle());
        let held = (counted(&app.server, "session"), in_flight);
        event_log::read(log, 0, None, limits.retry_hint, limits.resume_window, held)
    }

    /// DELETE: end the caller's session; 405 without a session header, 400 with a version
    /// header that is not the session's.
    pub(crate) fn delete(&self, headers: &HeaderMap, caller: &Caller) -> Response {
        let Some(session_id) = header_str(headers, &SESSION) else {
            return Refusal::MethodNotAllowed.into_response();
        };
        let entry = match self.get(session_id, caller) {
            Ok(entry) => entry,
            Err(refused) => return refused.into_response(),
        };
        // As for its other requests: a DELETE that names another version (a 2026-07-28 one
        // included) does not end the session.
        if let Err(refused) = check_version(headers, &entry) {
            return refused.into_response();
        }
        lock(&self.inner).remove(session_id);
        StatusCode::NO_CONTENT.into_response()
    }
}

/// The version header of a request in a session, when sent, must name the session's version
/// (the 2025 transport answers any other with 400).
fn check_version(headers: &HeaderMap, entry: &Entry) -> Result<(), Refusal> {
    match header_str(headers, &PROTOCOL_VERSION) {
        Some(sent) if sent != entry.session.version => Err(Refusal::SessionVersion {
            sent: sent.to_string(),
            session: entry.session.version.clone(),
        }),
        _ => Ok(()),
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

/// What the session's request handling needs to know of a request before it runs.
struct Head<'a> {
    method: &'a str,
    /// The id as JSON text: the key the call is known by while it runs.
    key: String,
    /// `params.name`, for a `tools/call`'s scopes.
    tool: Option<Cow<'a, str>>,
    /// How the request came, for its telemetry.
    via: crate::wire::Via,
}

impl Head<'_> {
    /// The id as a JSON value, for a refusal (parsed only then).
    fn id(&self) -> Value {
        crate::wire::from_text(&self.key).unwrap_or(Value::Null)
    }
}

/// A request as it is handed to the server: its text with the session's `_meta` in it, or the
/// parsed message (the slower path, which handles every shape).
enum Body {
    Text(Vec<u8>),
    Message(Value),
}

/// A session's call as its response drives it: its reply, unless it was cancelled.
type Call = Abortable<BoxedReply>;
type BoxedReply = std::pin::Pin<Box<dyn std::future::Future<Output = Option<String>> + Send>>;

/// The response to a session's request: plain JSON if the reply comes before anything else,
/// else a resumable SSE stream of the server's requests and notifications, then the reply. The
/// stream starts too when the handler ends it before sending anything
/// (`RequestContext::close_stream`), so the client has an event id to resume from. Until the
/// stream starts the call runs here, and a lost connection cancels it; from then on it runs in
/// the stream's writer task, for the reconnection window.
async fn respond(
    server: &crate::Server,
    entry: &Entry,
    limits: &Limits,
    mut rx: mpsc::Receiver<String>,
    mut call: Call,
    mut cut: watch::Receiver<u32>,
) -> Response {
    let first = tokio::select! {
        biased;
        note = rx.recv() => note,
        _ = cut.changed() => None,
        reply = &mut call => {
            let reply = reply.ok().flatten();
            // Whatever the call sent before its reply is streamed ahead of it.
            let note = rx.try_recv().ok();
            if note.is_none() && *cut.borrow() == 0 {
                return json_or_accepted(reply);
            }
            return stream(server, entry, limits, note, rx, Err(reply), cut);
        }
    };
    if first.is_none() && *cut.borrow() == 0 {
        // Nothing was streamed and the notifier is gone: the reply is on its way.
        return json_or_accepted(call.await.ok().flatten());
    }
    stream(server, entry, limits, first, rx, Ok(call), cut)
}

/// A session request's reply as plain JSON; 202 when there is none (a cancelled call).
fn json_or_accepted(reply: Option<String>) -> Response {
    match reply {
        Some(reply) => json_ok(reply, None),
        None => StatusCode::ACCEPTED.into_response(),
    }
}

/// Answer with a resumable SSE stream: `first`, what else comes on `rx`, then the reply, which
/// is known already (`Err`) or comes when the call ends (`Ok`). The stream's writer task owns
/// the call.
fn stream(
    server: &crate::Server,
    entry: &Entry,
    limits: &Limits,
    first: Option<String>,
    mut rx: mpsc::Receiver<String>,
    call: Result<Call, Option<String>>,
    cut: watch::Receiver<u32>,
) -> Response {
    let log = entry.open_log(limits, Some(cut));
    if let Some(first) = first {
        log.push(first);
    }
    let writer_log = log.clone();
    let writer = tokio::spawn(async move {
        let reply = match call {
            Err(reply) => reply,
            Ok(mut call) => loop {
                tokio::select! {
                    biased;
                    note = rx.recv() => match note {
                        Some(text) => writer_log.push(text),
                        // Every sender is gone: the call has ended, or is ending.
                        None => break (&mut call).await.ok().flatten(),
                    },
                    reply = &mut call => break reply.ok().flatten(),
                }
            },
        };
        // What the call sent before its reply goes ahead of it.
        while let Ok(text) = rx.try_recv() {
            writer_log.push(text);
        }
        if let Some(reply) = reply {
            writer_log.push(reply);
        }
        writer_log.finish();
    });
    log.set_writer(writer.abort_handle());
    let open = counted(server, "session");
    event_log::read(
        log,
        0,
        Some(0),
        limits.retry_hint,
        limits.resume_window,
        open,
    )
}

/// The answer to a POST without a session, read as `message`, that is not a 2025-era
/// `initialize` (see [`Sessions::post_without_session`]): the 400 that tells a 2025-era client
/// to initialize first, or none for the stateless path to answer.
fn refuse_without_session(app: &Core, version: Option<&str>, message: &Value) -> Option<Response> {
    let stateless_meta = message
        .get("params")
        .and_then(|p| p.get("_meta"))
        .and_then(|m| m.get(crate::wire::META_VERSION))
        .is_some();
    // Without a version header the message is 2025-03-26's (the 2025-06-18 rule; every
    // later client sends the header), and that era's requests, notifications and
    // responses all belong to a session: one without can only be refused, never dropped.
    let session_era = version.is_none_or(|v| crate::SESSION_VERSIONS.contains(&v))
        && ["method", "result", "error"]
            .iter()
            .any(|member| message.get(member).is_some());
    (session_era && !stateless_meta && app.server.serves_sessions())
        .then(|| Refusal::NoSession.into_response())
}
