//! Streamable HTTP for 2026-07-28: one endpoint, every message its own POST, answered with
//! `application/json` or, when the handler sends notifications (progress, log messages), a
//! per-request SSE stream ending with the response. No sessions, no GET stream.
//!
//! Checks, in order: `Host`/`Origin` against DNS rebinding (403), body size (413), the
//! `MCP-Protocol-Version`, `Mcp-Method` and `Mcp-Name` headers against the body (400, -32020),
//! then the server core (`_meta`, routing). Error codes map to HTTP statuses: -32601 is 404;
//! parse, request, params, header, capability and version errors are 400.

use crate::handler::Principal;
use crate::server::Server;
use crate::transport::sse::{event_stream, AbortOnDrop};
use crate::transport::Limits;
use crate::wire::param::{decode_param, param_text};
use crate::wire::{
    name_field, request_head, request_id, request_meta, Incoming, Notifier, Reply, RequestHead,
};
use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use axum::Router;
use oxmcp_schema::{CallToolRequest, ClientRequest, Error};
use std::net::SocketAddr;
use std::sync::Arc;

/// Settings of the HTTP transport.
#[derive(Debug, Clone)]
pub struct HttpConfig {
    /// The endpoint path (default `/mcp`).
    pub path: String,
    /// Largest accepted request body in bytes (default 4 MiB).
    pub max_body: usize,
    /// Host names accepted in `Host` (default: localhost, 127.0.0.1, `[::1]`), against DNS
    /// rebinding. Behind a reverse proxy, list the public host name. Empty means any.
    pub allowed_hosts: Vec<String>,
    /// Host names accepted in `Origin`, when a browser sends one (default: the same local
    /// names). Empty means any.
    pub allowed_origins: Vec<String>,
    /// Bearer-token authentication (none by default: every request is served anonymously, or
    /// as the `Principal` an application layer puts in the request's extensions).
    #[cfg(feature = "auth")]
    pub auth: Option<crate::transport::auth::AuthConfig>,
    /// Timeouts, the connection limit, the notification queue and the shutdown deadline.
    pub limits: Limits,
}

impl Default for HttpConfig {
    fn default() -> Self {
        HttpConfig {
            path: "/mcp".into(),
            max_body: 4 * 1024 * 1024,
            allowed_hosts: vec!["localhost".into(), "127.0.0.1".into(), "[::1]".into()],
            allowed_origins: vec!["localhost".into(), "127.0.0.1".into(), "[::1]".into()],
            #[cfg(feature = "auth")]
            auth: None,
            limits: Limits::default(),
        }
    }
}

struct App {
    server: Arc<Server>,
    config: HttpConfig,
    /// Legacy (2025-era) sessions opened by `initialize`.
    sessions: crate::transport::session::Sessions,
}

/// An axum router serving `server` at `config.path`, to mount in an existing app or serve.
pub fn router(server: Arc<Server>, config: HttpConfig) -> Router {
    router_of(new_app(server, config))
}

fn new_app(server: Arc<Server>, config: HttpConfig) -> Arc<App> {
    Arc::new(App {
        server,
        config,
        sessions: Default::default(),
    })
}

/// The router of an app: POST, GET and DELETE at its path, and the protected-resource metadata
/// when it authenticates.
fn router_of(app: Arc<App>) -> Router {
    let path = app.config.path.clone();
    #[cfg(feature = "auth")]
    let metadata = app
        .config
        .auth
        .as_ref()
        .map(|a| (a.metadata_path(), a.metadata()));
    let router = Router::new().route(&path, post(handle).get(get_stream).delete(end_session));
    #[cfg(feature = "auth")]
    let router = match metadata {
        Some((at, document)) => {
            let body = document.to_string();
            router.route(
                &at,
                axum::routing::get(
                    move || async move { json_response(StatusCode::OK, body.clone()) },
                ),
            )
        }
        None => router,
    };
    router.with_state(app)
}

/// Serve `server` on `addr` until ctrl-c or SIGTERM, then shut down gracefully (see
/// [`serve_listener`]).
pub async fn serve(server: Arc<Server>, addr: &str, config: HttpConfig) -> std::io::Result<()> {
    let listener = tokio::net::TcpListener::bind(addr).await?;
    serve_listener(
        server,
        listener,
        config,
        crate::transport::shutdown_signal(),
    )
    .await
}

/// Serve on an already bound listener until `shutdown` completes. Each connection gets the
/// header/idle timeout of `config.limits`, and at most `max_connections` are served at once.
/// On shutdown the server stops accepting, ends its `subscriptions/listen` streams, lets
/// requests in flight finish and closes idle connections; connections still busy after
/// `shutdown_grace` are cut off.
pub async fn serve_listener(
    server: Arc<Server>,
    listener: tokio::net::TcpListener,
    config: HttpConfig,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    use hyper_util::rt::{TokioIo, TokioTimer};
    let addr: Option<SocketAddr> = listener.local_addr().ok();
    tracing::info!(?addr, path = %config.path, "serving MCP over streamable HTTP");
    let limits = config.limits.clone();
    let endpoint = Endpoint::new(new_app(server.clone(), config));
    let mut http = hyper::server::conn::http1::Builder::new();
    // The header timeout also runs while a kept-alive connection waits for its next request,
    // so idle connections are closed too.
    http.timer(TokioTimer::new())
        .header_read_timeout(limits.header_timeout)
        .keep_alive(true);
    let slots = Arc::new(tokio::sync::Semaphore::new(limits.max_connections.max(1)));
    let graceful = hyper_util::server::graceful::GracefulShutdown::new();
    let mut shutdown = std::pin::pin!(shutdown);
    let mut connections = tokio::task::JoinSet::new();
    loop {
        // Finished connections are reaped as the loop goes.
        while connections.try_join_next().is_some() {}
        // A connection slot first, so that a flood of connections waits in the backlog rather
        // than taking descriptors the served ones need.
        let slot = tokio::select! {
            biased;
            () = &mut shutdown => break,
            slot = slots.clone().acquire_owned() => match slot {
                Ok(slot) => slot,
                Err(_) => break,
            },
        };
        let (tcp, _peer) = tokio::select! {
            biased;
            () = &mut shutdown => break,
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                Err(e) => {
                    // Out of descriptors or a connection reset before it was accepted: wait a
                    // little and go on, as a listener must.
                    tracing::warn!(error = %e, "accept failed");
                    tokio::time::sleep(std::time::Duration::from_millis(50)).await;
                    continue;
                }
            },
        };
        // Small JSON-RPC replies must not wait for Nagle's algorithm.
        if let Err(e) = tcp.set_nodelay(true) {
            tracing::debug!(error = %e, "TCP_NODELAY not set");
        }
        let connection = graceful.watch(http.serve_connection(TokioIo::new(tcp), endpoint.clone()));
        connections.spawn(async move {
            if let Err(e) = connection.await {
                tracing::debug!(error = %e, "connection ended with an error");
            }
            drop(slot);
        });
    }
    drop(listener);
    server.close_streams();
    tracing::info!("shutting down: waiting for requests in flight");
    if tokio::time::timeout(limits.shutdown_grace, graceful.shutdown())
        .await
        .is_err()
    {
        tracing::warn!(
            grace = ?limits.shutdown_grace,
            "requests still in flight after the shutdown deadline were cut off"
        );
    }
    connections.shutdown().await;
    Ok(())
}

/// What [`serve_listener`] serves on each connection: a POST to the MCP path goes straight to
/// [`handle`], everything else through the router. The POST is every MCP message, and the
/// router's dispatch costs it allocations of its own (the matched path's parameters in the
/// request's extensions, a `Content-Length` value that hyper writes without one); the router
/// still answers every other method and path as it does when mounted with
/// [`Server::into_router`].
#[derive(Clone)]
struct Endpoint {
    app: Arc<App>,
    rest: hyper_util::service::TowerToHyperService<Router>,
}

impl Endpoint {
    fn new(app: Arc<App>) -> Self {
        let rest = hyper_util::service::TowerToHyperService::new(router_of(app.clone()));
        Self { app, rest }
    }
}

impl hyper::service::Service<axum::http::Request<hyper::body::Incoming>> for Endpoint {
    type Response = Response;
    type Error = std::convert::Infallible;
    type Future =
        std::pin::Pin<Box<dyn std::future::Future<Output = Result<Response, Self::Error>> + Send>>;

    fn call(&self, request: axum::http::Request<hyper::body::Incoming>) -> Self::Future {
        if request.method() == axum::http::Method::POST
            && request.uri().path() == self.app.config.path
        {
            let app = self.app.clone();
            Box::pin(async move { Ok(handle(State(app), request.map(Body::new)).await) })
        } else {
            Box::pin(self.rest.call(request))
        }
    }
}

/// GET: a legacy session's standalone stream; without a session, not allowed (2026-07-28 has
/// no GET stream).
async fn get_stream(State(app): State<Arc<App>>, headers: HeaderMap) -> Response {
    match app
        .sessions
        .get_stream(&app.server, &app.config.limits, &headers)
    {
        Some(response) => response,
        None => not_allowed().await,
    }
}

/// DELETE: end a legacy session; without a session, not allowed.
async fn end_session(State(app): State<Arc<App>>, headers: HeaderMap) -> Response {
    match app.sessions.delete(&headers) {
        Some(response) => response,
        None => not_allowed().await,
    }
}

async fn not_allowed() -> Response {
    (
        StatusCode::METHOD_NOT_ALLOWED,
        [(header::ALLOW, HeaderValue::from_static("POST"))],
        "this MCP endpoint takes POST only (2026-07-28 has no GET stream)",
    )
        .into_response()
}

/// The response carrying `reply`, with the HTTP status its error code maps to.
fn reply_response(reply: &Reply) -> Response {
    json_response(status_for(reply.error_code()), reply.to_json())
}

fn json_response(status: StatusCode, body: String) -> Response {
    (
        status,
        [(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/json"),
        )],
        body,
    )
        .into_response()
}

/// The HTTP status for a reply with this JSON-RPC error code (none for a result).
fn status_for(code: Option<i64>) -> StatusCode {
    use oxmcp_schema::error_codes::*;
    match code {
        Some(METHOD_NOT_FOUND) => StatusCode::NOT_FOUND,
        Some(
            PARSE_ERROR
            | INVALID_REQUEST
            | INVALID_PARAMS
            | HEADER_MISMATCH
            | MISSING_REQUIRED_CLIENT_CAPABILITY
            | UNSUPPORTED_PROTOCOL_VERSION,
        ) => StatusCode::BAD_REQUEST,
        _ => StatusCode::OK,
    }
}

fn host_allowed(value: &str, allowed: &[String]) -> bool {
    if allowed.is_empty() {
        return true;
    }
    let host = if value.starts_with('[') {
        value.split_inclusive(']').next().unwrap_or(value)
    } else {
        value.split(':').next().unwrap_or(value)
    };
    allowed.iter().any(|a| a.eq_ignore_ascii_case(host))
}

fn header_str<'a>(headers: &'a HeaderMap, name: &str) -> Option<&'a str> {
    headers
        .get(name)
        .and_then(|v| v.to_str().ok())
        .map(str::trim)
}

/// Check the `Mcp-Param-*` headers of a `tools/call` against its arguments.
fn check_param_headers(
    server: &Server,
    headers: &HeaderMap,
    call: &CallToolRequest,
) -> Result<(), String> {
    let args = call.params.arguments.as_ref();
    for (arg, header) in server.header_params(&call.params.name) {
        let name = format!("mcp-param-{}", header.to_ascii_lowercase());
        let body_value = args.and_then(|a| a.get(arg)).map(param_text);
        match (header_str(headers, &name), body_value) {
            (None, Some(_)) => return Err(format!("missing Mcp-Param-{header} header")),
            (Some(raw), Some(b)) => {
                if decode_param(raw)? != b {
                    return Err(format!(
                        "Mcp-Param-{header} header does not match argument `{arg}`"
                    ));
                }
            }
            (Some(_), None) => {
                return Err(format!(
                    "Mcp-Param-{header} header without argument `{arg}`"
                ))
            }
            (None, None) => {}
        }
    }
    Ok(())
}

/// Compare the MCP headers with the request; the mismatch, if any.
fn check_headers(headers: &HeaderMap, head: RequestHead<'_>) -> Result<(), String> {
    match (header_str(headers, "mcp-protocol-version"), head.version) {
        (None, _) => return Err("missing MCP-Protocol-Version header".into()),
        (Some(h), Some(v)) if h != v => {
            return Err(format!(
                "MCP-Protocol-Version header `{h}` does not match _meta `{v}`"
            ))
        }
        _ => {}
    }
    let method = head.method;
    match header_str(headers, "mcp-method") {
        None => return Err("missing Mcp-Method header".into()),
        Some(h) if h != method => {
            return Err(format!(
                "Mcp-Method header `{h}` does not match method `{method}`"
            ))
        }
        _ => {}
    }
    if let Some(field) = name_field(method) {
        match (header_str(headers, "mcp-name"), head.name) {
            (None, Some(_)) => return Err("missing Mcp-Name header".into()),
            (Some(h), Some(b)) if h != b => {
                return Err(format!(
                    "Mcp-Name header `{h}` does not match params.{field} `{b}`"
                ))
            }
            _ => {}
        }
    }
    Ok(())
}

/// The header checks of a request, as the error reply they fail with.
fn check_request(server: &Server, headers: &HeaderMap, incoming: &Incoming) -> Result<(), Reply> {
    let (id, checked) = match incoming {
        Incoming::Request(r) => {
            let checked = check_headers(headers, request_head(r)).and_then(|()| match &**r {
                ClientRequest::CallToolRequest(call) => check_param_headers(server, headers, call),
                _ => Ok(()),
            });
            (Some(request_id(r)), checked)
        }
        Incoming::Extension(r) => (Some(&r.id), check_headers(headers, r.head())),
        Incoming::Rejected(rejected) => match &rejected.head {
            Some(head) => (rejected.id.as_ref(), check_headers(headers, head.head())),
            None => return Ok(()),
        },
        Incoming::Notification(_) | Incoming::Response => return Ok(()),
    };
    checked.map_err(|why| Reply::error(id.cloned(), Error::header_mismatch(why)))
}

/// POST: one JSON-RPC message. It takes the request whole: the `HeaderMap` and `Extension`
/// extractors would clone the headers (an allocation per value) and the caller on every
/// request, where moving them out of the request costs nothing.
async fn handle(State(app): State<Arc<App>>, request: axum::extract::Request) -> Response {
    let (parts, body) = request.into_parts();
    let axum::http::request::Parts {
        headers,
        mut extensions,
        ..
    } = parts;
    // An application's own layer may have put the caller here.
    let principal = extensions.remove::<Principal>();
    // DNS-rebinding protection: exactly one Host (HTTP/1.1 requires it; two are malformed),
    // and every Host and Origin value must be allowed.
    let hosts = headers.get_all(header::HOST).iter().count();
    if !app.config.allowed_hosts.is_empty() && hosts != 1 {
        let why = if hosts == 0 {
            "missing Host header"
        } else {
            "more than one Host header"
        };
        let refused = Reply::error(None, Error::invalid_request(why));
        return json_response(StatusCode::BAD_REQUEST, refused.to_json());
    }
    for (name, allowed) in [
        (header::HOST, &app.config.allowed_hosts),
        (header::ORIGIN, &app.config.allowed_origins),
    ] {
        for v in headers.get_all(&name) {
            let text = v.to_str().unwrap_or("");
            let host = text
                .strip_prefix("http://")
                .or_else(|| text.strip_prefix("https://"))
                .unwrap_or(text);
            if !host_allowed(host, allowed) {
                let refused =
                    Reply::error(None, Error::invalid_request(format!("{name} not allowed")));
                return json_response(StatusCode::FORBIDDEN, refused.to_json());
            }
        }
    }
    // The body, only now: a declared length over the limit is refused before any of it is
    // read (and before `100 Continue` is sent), a slow body is cut off.
    let body = match read_body(&app.config, &headers, body).await {
        Ok(body) => body,
        Err(refused) => return refused,
    };
    #[cfg(feature = "auth")]
    let principal = match &app.config.auth {
        Some(auth) => match Box::pin(authenticate(auth, &headers)).await {
            Ok(p) => Some(p),
            Err(refused) => return refused,
        },
        None => principal,
    };
    // A message of an open 2025-era session.
    if let Some(session_id) = headers
        .get(crate::transport::session::SESSION_HEADER)
        .and_then(|v| v.to_str().ok())
    {
        let sessions = &app.sessions;
        return sessions
            .post_in_session(
                &app.server,
                &app.config.limits,
                session_id,
                &body,
                principal,
            )
            .await;
    }
    let incoming = app.server.read(&body);
    // What the modern path cannot read may be 2025-era: an `initialize`, or a request that
    // needs its session. Modern requests never get here.
    if let Incoming::Rejected(_) = &incoming {
        let legacy =
            app.sessions
                .post_without_session(&app.server, &app.config.limits, &headers, &body);
        if let Some(response) = legacy {
            return response;
        }
    }
    if let Err(refused) = check_request(&app.server, &headers, &incoming) {
        return reply_response(&refused);
    }
    #[cfg(feature = "auth")]
    if let (Some(auth), Incoming::Request(request)) = (&app.config.auth, &incoming) {
        if let ClientRequest::CallToolRequest(call) = &**request {
            let needed = app.server.tool_scopes(&call.params.name);
            let granted = |s: &&str| principal.as_ref().is_some_and(|p| p.has_scope(s));
            if !needed.iter().all(granted) {
                return forbidden(auth, needed, request_id(request));
            }
        }
    }
    if let Incoming::Request(request) = &incoming {
        let wants_stream = headers
            .get(header::ACCEPT)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|a| a.contains("text/event-stream"));
        let meta = request_meta(request);
        let may_notify = meta.progress_token.is_some() || meta.log_level.is_some();
        let listen = matches!(**request, ClientRequest::SubscriptionsListenRequest(_));
        if listen || (wants_stream && may_notify) {
            return Box::pin(stream_response(app, incoming, principal)).await;
        }
    }
    match app.server.handle(incoming, principal.as_ref(), None).await {
        Some(reply) => reply_response(&reply),
        // Notifications and responses: accepted, nothing to say.
        None => StatusCode::ACCEPTED.into_response(),
    }
}

/// The request body, within the size limit and the body timeout; or the 413 or 408 that
/// refuses it.
async fn read_body(
    config: &HttpConfig,
    headers: &HeaderMap,
    body: Body,
) -> Result<Bytes, Response> {
    let too_large = || {
        let why = format!("request body over {} bytes", config.max_body);
        let refused = Reply::error(None, Error::invalid_request(why));
        json_response(StatusCode::PAYLOAD_TOO_LARGE, refused.to_json())
    };
    let declared = headers
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<u64>().ok());
    if declared.is_some_and(|n| n > config.max_body as u64) {
        return Err(too_large());
    }
    let read = axum::body::to_bytes(body, config.max_body);
    match tokio::time::timeout(config.limits.body_timeout, read).await {
        Ok(Ok(bytes)) => Ok(bytes),
        Ok(Err(e)) => {
            // Over the limit as it arrived (a chunked body), or the peer went away.
            let over = std::error::Error::source(&e)
                .is_some_and(|s| s.is::<http_body_util::LengthLimitError>());
            if over {
                Err(too_large())
            } else {
                let refused = Reply::error(None, Error::invalid_request("request body not read"));
                Err(json_response(StatusCode::BAD_REQUEST, refused.to_json()))
            }
        }
        Err(_) => {
            let refused = Reply::error(None, Error::invalid_request("request body too slow"));
            let mut response = json_response(StatusCode::REQUEST_TIMEOUT, refused.to_json());
            response
                .headers_mut()
                .insert(header::CONNECTION, HeaderValue::from_static("close"));
            Err(response)
        }
    }
}

/// The caller of a request with a bearer token, or the 401 that refuses it.
#[cfg(feature = "auth")]
async fn authenticate(
    auth: &crate::transport::auth::AuthConfig,
    headers: &HeaderMap,
) -> Result<Principal, Response> {
    let mut values = headers.get_all(header::AUTHORIZATION).iter();
    let token = match (values.next(), values.next()) {
        (Some(v), None) => v.to_str().ok().and_then(|v| {
            let (scheme, token) = v.split_once(' ')?;
            scheme
                .eq_ignore_ascii_case("bearer")
                .then(|| token.trim().to_string())
        }),
        _ => None,
    };
    let Some(token) = token.filter(|t| !t.is_empty()) else {
        return Err(unauthorized(auth, None));
    };
    auth.verifier.verify(token).await.map_err(|e| {
        tracing::info!(reason = %e, "refused a bearer token");
        unauthorized(auth, Some("invalid_token"))
    })
}

/// 401 with the challenge that points the client at the metadata.
#[cfg(feature = "auth")]
fn unauthorized(auth: &crate::transport::auth::AuthConfig, error: Option<&str>) -> Response {
    let refused = Reply::error(
        None,
        Error::invalid_request("unauthorized: a valid bearer token is required"),
    );
    let mut response = json_response(StatusCode::UNAUTHORIZED, refused.to_json());
    if let Ok(v) = HeaderValue::from_str(&auth.challenge(error)) {
        response.headers_mut().insert(header::WWW_AUTHENTICATE, v);
    }
    response
}

/// 403 for a token without the scopes a tool needs.
#[cfg(feature = "auth")]
fn forbidden(
    auth: &crate::transport::auth::AuthConfig,
    scopes: &[&str],
    id: &oxmcp_schema::RequestId,
) -> Response {
    let message = format!("insufficient scope: this tool needs {}", scopes.join(" "));
    let refused = Reply::error(Some(id.clone()), Error::invalid_request(message));
    let mut response = json_response(StatusCode::FORBIDDEN, refused.to_json());
    if let Ok(v) = HeaderValue::from_str(&auth.insufficient_scope(scopes)) {
        response.headers_mut().insert(header::WWW_AUTHENTICATE, v);
    }
    response
}

/// What a streaming-capable request produced first.
enum First {
    /// A notification: the answer is an SSE stream that starts with it.
    Note(String),
    /// The reply, before any notification.
    Reply(Option<Reply>),
}

/// Answer on an SSE stream: notifications as they come, then the response, then the end. A
/// reply that comes before any notification (an error decided before anything was streamed, or
/// a quick result) is answered as plain JSON instead, with the HTTP status of its error.
async fn stream_response(
    app: Arc<App>,
    incoming: Incoming,
    principal: Option<Principal>,
) -> Response {
    let (tx, mut rx) = Notifier::channel(app.config.limits.queue);
    let server = app.server.clone();
    let (done_tx, mut done_rx) = tokio::sync::oneshot::channel::<Option<Reply>>();
    let task = AbortOnDrop(tokio::spawn(async move {
        let reply = server.handle(incoming, principal.as_ref(), Some(tx)).await;
        let _ = done_tx.send(reply);
    }));
    // The notification sender is dropped with the call, before the reply is sent: a closed
    // channel without a notification means the reply is on its way.
    let first = tokio::select! {
        biased;
        note = rx.recv() => match note {
            Some(note) => First::Note(note),
            None => First::Reply((&mut done_rx).await.ok().flatten()),
        },
        reply = &mut done_rx => First::Reply(reply.ok().flatten()),
    };
    let note = match first {
        First::Note(note) => note,
        First::Reply(Some(reply)) => return reply_response(&reply),
        First::Reply(None) => return StatusCode::ACCEPTED.into_response(),
    };
    let reply = async move { done_rx.await.ok().flatten().map(|r| r.to_json()) };
    event_stream(note, rx, task, reply)
}

impl Server {
    /// Serve streamable HTTP at `http://{addr}/mcp` until ctrl-c (bind `127.0.0.1:PORT` unless
    /// the server must be reachable from elsewhere; then set `allowed_hosts` accordingly).
    pub async fn serve_http(self, addr: &str) -> std::io::Result<()> {
        serve(Arc::new(self), addr, HttpConfig::default()).await
    }

    /// Serve streamable HTTP on `addr` with these settings (path, allowed hosts and origins,
    /// body limit, authentication) until ctrl-c.
    pub async fn serve_http_with(self, addr: &str, config: HttpConfig) -> std::io::Result<()> {
        serve(Arc::new(self), addr, config).await
    }

    /// An axum router serving this server at `/mcp`, to merge into an existing app. An
    /// application's own tower layer may put a `Principal` in the request's extensions: the
    /// handlers see it as the caller.
    pub fn into_router(self) -> Router {
        router(Arc::new(self), HttpConfig::default())
    }

    /// [`Server::into_router`] with these settings.
    pub fn into_router_with(self, config: HttpConfig) -> Router {
        router(Arc::new(self), config)
    }
}
