//! stdio: one JSON message per line in and out. Requests are handled concurrently; each reply
//! (and each notification) is written whole, on its own line. Nothing but MCP goes to stdout;
//! logs belong on stderr. `notifications/cancelled` stops the request it names (no reply is
//! sent for it; that is also how a `subscriptions/listen` stream ends). Exits on end of input
//! once requests in flight are answered. A line that is not UTF-8 is answered with a parse error
//! and a line over the size limit with an invalid-request error; neither stops the server.

use crate::handler::Principal;
use crate::server::session::{
    is_session_initialize, parse_error_text, read_message, Session, SessionIncoming,
    SessionInitialize,
};
use crate::server::Server;
use crate::transport::Limits;
use crate::wire::line::{write_line, Line, LineReader};
use crate::wire::{lock, request_id, Incoming, Notifier, Reply};
use oxmcp_schema::{methods, CancelledNotificationParams, ClientRequest, Error, RequestId};
use serde_json::Value;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use tokio::io::AsyncWrite;

/// Serve on this process's stdin and stdout until end of input or, with the `signal` feature,
/// ctrl-c or SIGTERM; what is in flight is answered first either way. Without `signal` those
/// signals take their default action and end the process at once. The protocol stops a stdio
/// server by closing its input, and sends SIGTERM only to a server that did not exit then.
pub async fn serve(server: Arc<Server>) -> std::io::Result<()> {
    serve_stdio_with(server, StdioConfig::default()).await
}

/// [`serve`] with these settings.
pub async fn serve_stdio_with(server: Arc<Server>, config: StdioConfig) -> std::io::Result<()> {
    serving_stdio(server, config).await
}

/// The stdio server's future, compiled once, in this crate: without the box and the boundary,
/// the small async functions a server's `main` awaits would be inlined across crates in release
/// builds, and the whole serving loop compiled again in every server's own crate.
#[inline(never)]
fn serving_stdio(
    server: Arc<Server>,
    config: StdioConfig,
) -> crate::wire::BoxFuture<std::io::Result<()>> {
    Box::pin(serve_io_until(
        server,
        stdin(),
        tokio::io::stdout(),
        config,
        stop(),
    ))
}

/// What stops the stdio server besides end of input: ctrl-c or SIGTERM with the `signal`
/// feature; nothing without it.
async fn stop() {
    #[cfg(feature = "signal")]
    crate::transport::shutdown_signal().await;
    #[cfg(not(feature = "signal"))]
    std::future::pending::<()>().await;
}

/// This process's stdin, read on a thread of its own. `tokio::io::stdin` reads on the runtime's
/// blocking pool, and a runtime does not finish shutting down while a read is pending there: a
/// server stopped by a signal while its client keeps stdin open would never exit. This thread
/// is not the runtime's, so nothing waits for it.
fn stdin() -> ChannelReader {
    let (tx, rx) = tokio::sync::mpsc::channel::<std::io::Result<Vec<u8>>>(4);
    let spawned = std::thread::Builder::new()
        .name("mcp-stdin".into())
        .spawn(move || {
            use std::io::Read;
            let mut stdin = std::io::stdin().lock();
            loop {
                let mut chunk = vec![0u8; 64 * 1024];
                match stdin.read(&mut chunk) {
                    Ok(0) => break,
                    Ok(n) => {
                        chunk.truncate(n);
                        if tx.blocking_send(Ok(chunk)).is_err() {
                            break;
                        }
                    }
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                    Err(e) => {
                        let _ = tx.blocking_send(Err(e));
                        break;
                    }
                }
            }
        });
    if let Err(e) = spawned {
        tracing::error!(error = %e, "no thread to read stdin; serving no input");
    }
    ChannelReader {
        rx,
        chunk: Vec::new(),
        at: 0,
    }
}

/// An `AsyncRead` over chunks sent from another thread; end of input when the sender is gone.
struct ChannelReader {
    rx: tokio::sync::mpsc::Receiver<std::io::Result<Vec<u8>>>,
    chunk: Vec<u8>,
    at: usize,
}

impl tokio::io::AsyncRead for ChannelReader {
    fn poll_read(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
        out: &mut tokio::io::ReadBuf<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        use std::task::Poll;
        let this = &mut *self;
        if this.at >= this.chunk.len() {
            match this.rx.poll_recv(cx) {
                Poll::Pending => return Poll::Pending,
                Poll::Ready(None) => return Poll::Ready(Ok(())),
                Poll::Ready(Some(Err(e))) => return Poll::Ready(Err(e)),
                Poll::Ready(Some(Ok(chunk))) => {
                    this.chunk = chunk;
                    this.at = 0;
                }
            }
        }
        let n = out.remaining().min(this.chunk.len() - this.at);
        out.put_slice(&this.chunk[this.at..this.at + n]);
        this.at += n;
        Poll::Ready(Ok(()))
    }
}

/// The longest line [`serve_io`] takes by default: 4 MiB, as the HTTP transport's body limit.
pub const DEFAULT_MAX_LINE: usize = 4 * 1024 * 1024;

/// Send the error reply to a line that could not be read as a request (so it has no id).
async fn refuse(out: &Notifier, error: Error) {
    out.deliver(Reply::error(None, error).to_json()).await;
}

/// The key requests in flight are kept under: the JSON text of their id.
fn id_key(id: &RequestId) -> String {
    serde_json::to_string(id).unwrap_or_default()
}

/// The request a `notifications/cancelled` names, if `incoming` is one.
fn cancelled(incoming: &Incoming) -> Option<Option<RequestId>> {
    let Incoming::Notification(n) = incoming else {
        return None;
    };
    if n.method != methods::NOTIFICATIONS_CANCELLED {
        return None;
    }
    // Absent params read as `null`, which lacks the required `requestId` as an empty map does.
    Some(
        crate::wire::from_value_text::<CancelledNotificationParams>(&n.params)
            .ok()
            .map(|p| p.request_id),
    )
}

/// Serve on any reader and writer (for tests and pipes), taking lines up to
/// [`DEFAULT_MAX_LINE`].
pub async fn serve_io<R, W>(server: Arc<Server>, reader: R, writer: W) -> std::io::Result<()>
where
    R: tokio::io::AsyncRead + Unpin,
    W: AsyncWrite + Unpin + Send + 'static,
{
    serve_io_with_limit(server, reader, writer, DEFAULT_MAX_LINE).await
}

/// [`serve_io`] with another limit on the length of a line, in bytes.
pub async fn serve_io_with_limit<R, W>(
    server: Arc<Server>,
    reader: R,
    writer: W,
    max_line: usize,
) -> std::io::Result<()>
where
    R: tokio::io::AsyncRead + Unpin,
    W: AsyncWrite + Unpin + Send + 'static,
{
    let config = StdioConfig {
        max_line,
        ..StdioConfig::default()
    };
    serve_io_with(server, reader, writer, config).await
}

/// Settings of the stdio transport: `StdioConfig::default().principal(Principal::new("me"))`.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct StdioConfig {
    /// The longest line taken, in bytes (default [`DEFAULT_MAX_LINE`]).
    pub max_line: usize,
    /// Who every request of this process is from: a stdio server serves the one user who
    /// launched it, so the principal is configured rather than authenticated (default none).
    pub principal: Option<Principal>,
    /// The output queue (`queue`) and the shutdown deadline (`shutdown_grace`).
    pub limits: Limits,
}

impl Default for StdioConfig {
    fn default() -> Self {
        StdioConfig {
            max_line: DEFAULT_MAX_LINE,
            principal: None,
            limits: Limits::default(),
        }
    }
}

setters!(StdioConfig {
    max_line: usize => max_line,
    principal: impl Into<Option<Principal>> => principal.into(),
    limits: Limits => limits,
});

/// [`serve_io`] with these settings.
pub async fn serve_io_with<R, W>(
    server: Arc<Server>,
    reader: R,
    writer: W,
    config: StdioConfig,
) -> std::io::Result<()>
where
    R: tokio::io::AsyncRead + Unpin,
    W: AsyncWrite + Unpin + Send + 'static,
{
    serve_io_until(server, reader, writer, config, std::future::pending()).await
}

/// [`serve_io_with`] until end of input or until `shutdown` completes. Either way the server
/// stops reading, ends its `subscriptions/listen` streams and waits up to
/// `config.limits.shutdown_grace` for requests in flight; those still running then are
/// answered with an internal error, so no client waits for ever.
pub async fn serve_io_until<R, W>(
    server: Arc<Server>,
    reader: R,
    mut writer: W,
    config: StdioConfig,
    shutdown: impl std::future::Future<Output = ()>,
) -> std::io::Result<()>
where
    R: tokio::io::AsyncRead + Unpin,
    W: AsyncWrite + Unpin + Send + 'static,
{
    let StdioConfig {
        max_line,
        principal,
        limits,
    } = config;
    // Replies and notifications share one writer, so each is written whole on its own line,
    // and a request's notifications come before its reply. The queue is bounded: replies wait
    // for room, notifications that find none are dropped (a listen stream ends).
    let (out, mut out_rx) = Notifier::channel(limits.queue);
    let writer_task = tokio::spawn(async move {
        while let Some(line) = out_rx.recv().await {
            write_line(&mut writer, line.as_bytes()).await?;
        }
        Ok::<(), std::io::Error>(())
    });
    let mut connection = Connection {
        server,
        principal: principal.map(Arc::new),
        limits,
        out,
        in_flight: Arc::default(),
        tasks: tokio::task::JoinSet::new(),
        session: None,
        forwarder: None,
    };
    let mut reader = LineReader::new(reader);
    let mut raw = Vec::new();
    let mut shutdown = std::pin::pin!(shutdown);
    let mut decided = false;
    loop {
        let line = tokio::select! {
            biased;
            () = &mut shutdown => {
                tracing::info!("shutting down: no more requests read");
                break;
            }
            line = reader.read_line(&mut raw, max_line) => line?,
        };
        match line {
            Line::End => break,
            Line::TooLong => {
                let why = format!("message longer than {max_line} bytes");
                refuse(&connection.out, Error::invalid_request(why)).await;
                continue;
            }
            Line::Fits => {}
        }
        if raw.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        if std::str::from_utf8(&raw).is_err() {
            refuse(
                &connection.out,
                Error::parse_error("parse error: not UTF-8"),
            )
            .await;
            continue;
        }
        // The first message decides the era: a 2025-era `initialize` pins the connection to a
        // 2025-era session; anything else makes it 2026, and later lines are not looked at.
        let first = !std::mem::replace(&mut decided, true);
        if first && connection.opened_session(&raw).await {
            continue;
        }
        connection.serve_line(&raw).await;
        // Finished tasks are reaped as the loop goes, so a long session keeps none of them.
        while connection.tasks.try_join_next().is_some() {}
    }
    let out = connection.stop().await;
    // What telemetry still holds is sent before the process exits.
    #[cfg(feature = "otel")]
    crate::otel::flush().await;
    drop(out);
    writer_task.await.map_err(std::io::Error::other)?
}

/// What one stdio connection serves with: its server and caller, the writer's queue, the
/// requests in flight, and, once `initialize` opened one, its 2025 session.
struct Connection {
    server: Arc<Server>,
    principal: Option<Arc<Principal>>,
    limits: Limits,
    out: Notifier,
    /// Requests in flight by id, so `notifications/cancelled` can stop them.
    in_flight: Arc<Mutex<HashMap<String, InFlight>>>,
    tasks: tokio::task::JoinSet<()>,
    /// Set when the connection opens a 2025 session with `initialize`.
    session: Option<Arc<Session>>,
    /// The session's forwarder of list and resource changes.
    forwarder: Option<tokio::task::JoinHandle<()>>,
}

impl Connection {
    /// On the first line: whether it was a 2025 `initialize`, now answered (and the session
    /// opened, unless it was refused). Anything else leaves the connection in 2026.
    async fn opened_session(&mut self, raw: &[u8]) -> bool {
        if !raw.windows(12).any(|w| w == b"\"initialize\"") {
            return false;
        }
        let (server, limits) = (&self.server, &self.limits);
        // Read as over HTTP: without a JSON tree when it can be, else as a tree.
        let opening = match server
            .serves_sessions()
            .then(|| SessionInitialize::read(raw, limits.session_bytes))
            .flatten()
        {
            Some(read) => Some(server.initialize_read(read, &limits.session())),
            None => serde_json::from_slice::<Value>(raw)
                .ok()
                .filter(is_session_initialize)
                .map(|value| server.initialize(value, &limits.session())),
        };
        let Some((reply, opened)) = opening else {
            return false;
        };
        self.out.deliver(reply).await;
        if let Some(opened) = opened {
            let (server, session, out) = (server.clone(), opened.clone(), self.out.clone());
            self.forwarder = Some(tokio::spawn(async move {
                server.forward_changes(&session, &out).await;
            }));
            self.session = Some(opened);
        }
        true
    }

    /// Serve one line after the first: in the session if one is open, else as a 2026 message
    /// (a request runs in a task of its own; a cancellation stops the request it names).
    async fn serve_line(&mut self, raw: &[u8]) {
        if let Some(session) = &self.session {
            serve_session_line(
                &self.server,
                session,
                raw,
                self.principal.clone(),
                &self.out,
                &self.in_flight,
                &mut self.tasks,
            )
            .await;
            return;
        }
        let incoming = self.server.read(raw);
        if let Incoming::Request(request) = &incoming {
            if let Some(refused) = crate::transport::listen_refused(request, &self.limits) {
                self.out.deliver(refused.to_json()).await;
                return;
            }
        }
        if let Some(target) = cancelled(&incoming) {
            if let Some(entry) = target.and_then(|id| lock(&self.in_flight).remove(&id_key(&id))) {
                entry.handle.abort();
            }
            return;
        }
        let request = match &incoming {
            Incoming::Request(r) => Some((
                id_key(request_id(r)),
                request_id(r).clone(),
                matches!(**r, ClientRequest::SubscriptionsListenRequest(_)),
            )),
            _ => None,
        };
        let server = self.server.clone();
        let task_out = self.out.clone();
        let registry = self.in_flight.clone();
        let task_key = request.as_ref().map(|(key, _, _)| key.clone());
        let principal = self.principal.clone();
        let handle = self.tasks.spawn(async move {
            let reply = server
                .handle_via(
                    incoming,
                    principal.as_deref(),
                    Some(task_out.clone()),
                    crate::wire::Via::pipe(),
                )
                .await;
            if let Some(key) = &task_key {
                lock(&registry).remove(key);
            }
            if let Some(r) = reply {
                task_out.deliver(r.to_json()).await;
            }
        });
        if let Some((key, id, listen)) = request {
            let mut registry = lock(&self.in_flight);
            registry.retain(|_, entry| !entry.handle.is_finished());
            registry.insert(key, InFlight { handle, id, listen });
        }
    }

    /// Stopping (end of input or shutdown): this connection's listen streams end (the server's
    /// other transports keep theirs), a 2025 session's asks fail, requests in flight get the
    /// grace period, and whatever is still running then is answered with an error. The writer's
    /// queue, to close once the last line is in it.
    async fn stop(mut self) -> Notifier {
        lock(&self.in_flight).retain(|_, entry| {
            if entry.listen {
                entry.handle.abort();
            }
            !entry.listen
        });
        if let Some(forwarder) = self.forwarder.take() {
            forwarder.abort();
        }
        // Nothing is read any more, so no answer to the session's requests can arrive: the
        // asks waiting for one fail now, and their calls end, instead of holding the grace
        // period.
        if let Some(session) = &self.session {
            session.close();
        }
        let tasks = &mut self.tasks;
        let drained = tokio::time::timeout(self.limits.shutdown_grace, async {
            while tasks.join_next().await.is_some() {}
        })
        .await
        .is_ok();
        if !drained {
            let cut: Vec<InFlight> = lock(&self.in_flight)
                .drain()
                .map(|(_, entry)| entry)
                .collect();
            tracing::warn!(
                requests = cut.len(),
                "requests still in flight after the shutdown deadline were cut off"
            );
            for entry in cut {
                entry.handle.abort();
                if !entry.listen {
                    let error = Error::internal("the server shut down before the request finished");
                    self.out
                        .deliver(Reply::error(Some(entry.id), error).to_json())
                        .await;
                }
            }
            self.tasks.shutdown().await;
        }
        if let Some(session) = &self.session {
            session.ended("pipe");
        }
        self.out
    }
}

/// One line of a 2025 session: a response to one of the session's requests is handed over at
/// once, a cancellation stops the request it names, a request runs in a task of its own.
async fn serve_session_line(
    server: &Arc<Server>,
    session: &Arc<Session>,
    raw: &[u8],
    principal: Option<Arc<Principal>>,
    out: &Notifier,
    in_flight: &Arc<Mutex<HashMap<String, InFlight>>>,
    tasks: &mut tokio::task::JoinSet<()>,
) {
    // The common cases without a JSON tree, as over HTTP; the rest as a tree.
    let value = match read_message(raw) {
        SessionIncoming::Request(request) => match request.with_session_meta(session) {
            Some(text) => {
                let id = crate::wire::from_text::<RequestId>(request.id_text()).ok();
                let (server, session, task_out) = (server.clone(), session.clone(), out.clone());
                let work = async move {
                    server
                        .serve_in_session(
                            &session,
                            &text,
                            principal.as_deref(),
                            task_out,
                            crate::wire::Via::pipe(),
                        )
                        .await
                };
                return spawn_in_session(work, id, out.clone(), in_flight, tasks);
            }
            None => match serde_json::from_slice::<Value>(raw) {
                Ok(value) => value,
                Err(e) => {
                    out.deliver(parse_error_text(&e)).await;
                    return;
                }
            },
        },
        SessionIncoming::Response(response) => {
            server.accept_response(session, response);
            return;
        }
        SessionIncoming::Notification => return,
        SessionIncoming::Tree(value) => value,
        SessionIncoming::Unreadable(e) => {
            out.deliver(parse_error_text(&e)).await;
            return;
        }
    };
    let method = value.get("method").and_then(Value::as_str);
    // A cancellation is a notification; with an id it is a request, answered as one.
    if method == Some(methods::NOTIFICATIONS_CANCELLED) && value.get("id").is_none() {
        let target = value
            .pointer("/params/requestId")
            .and_then(|id| crate::wire::from_value_text::<RequestId>(id).ok());
        if let Some(entry) = target.and_then(|id| lock(in_flight).remove(&id_key(&id))) {
            entry.handle.abort();
        }
        return;
    }
    if method.is_none() {
        // A response: its ask is waiting.
        let _ = server
            .handle_in_session(
                session,
                value,
                principal.as_deref(),
                out.clone(),
                crate::wire::Via::pipe(),
            )
            .await;
        return;
    }
    let id = value
        .get("id")
        .and_then(|id| crate::wire::from_value_text::<RequestId>(id).ok());
    let (server, session, task_out) = (server.clone(), session.clone(), out.clone());
    let work = async move {
        server
            .handle_in_session(
                &session,
                value,
                principal.as_deref(),
                task_out,
                crate::wire::Via::pipe(),
            )
            .await
    };
    spawn_in_session(work, id, out.clone(), in_flight, tasks);
}

/// Run `work` (a request of the session, whose reply it gives) as a task of its own, known by
/// its `id` while it runs so that `notifications/cancelled` can stop it; its reply goes to `out`.
fn spawn_in_session(
    work: impl std::future::Future<Output = Option<String>> + Send + 'static,
    id: Option<RequestId>,
    out: Notifier,
    in_flight: &Arc<Mutex<HashMap<String, InFlight>>>,
    tasks: &mut tokio::task::JoinSet<()>,
) {
    let registry = in_flight.clone();
    let key = id.as_ref().map(id_key);
    let task_key = key.clone();
    let handle = tasks.spawn(async move {
        let reply = work.await;
        if let Some(key) = &task_key {
            lock(&registry).remove(key);
        }
        if let Some(reply) = reply {
            out.deliver(reply).await;
        }
    });
    if let (Some(key), Some(id)) = (key, id) {
        let mut registry = lock(in_flight);
        registry.retain(|_, entry| !entry.handle.is_finished());
        registry.insert(
            key,
            InFlight {
                handle,
                id,
                listen: false,
            },
        );
    }
}

/// A request in flight: its task, its id (to answer it if it is cut off at shutdown), and
/// whether it is a listen stream (which has no reply).
struct InFlight {
    handle: tokio::task::AbortHandle,
    id: RequestId,
    listen: bool,
}

impl Server {
    /// Serve on stdin/stdout until end of input.
    pub async fn serve_stdio(self) -> std::io::Result<()> {
        serve(Arc::new(self)).await
    }

    /// Serve on stdin/stdout until end of input, every request from `principal` (the user who
    /// launched the process, as the deployment knows them).
    pub async fn serve_stdio_as(self, principal: Principal) -> std::io::Result<()> {
        let config = StdioConfig {
            principal: Some(principal),
            ..StdioConfig::default()
        };
        serve_stdio_with(Arc::new(self), config).await
    }
}
