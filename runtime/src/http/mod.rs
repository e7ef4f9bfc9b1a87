//! Streamable HTTP: one endpoint for 2026-07-28 (every message its own POST, answered with
//! `application/json` or, when the handler sends notifications, a per-request SSE stream ending
//! with the response) and for 2025-era sessions (`initialize`, `Mcp-Session-Id`, the GET stream,
//! DELETE).
//!
//! Every request passes the same edge, whatever its route and era, before anything reaches a
//! session, a stream or a handler (module `edge`): `Host` and `Origin` (403), the bearer token when
//! authentication is on (401), the caller's quota of requests in flight (429), the body within
//! its size and JSON value limits (413, 408); then its headers decide the era.
//! The stateless path (module `stateless`) checks `MCP-Protocol-Version`, `Mcp-Method` and `Mcp-Name`
//! against the body (400, -32020) and the caller's scopes (403); a session (module `session`) must
//! belong to the caller (404 otherwise) and checks its version header and scopes too. Error codes
//! map to HTTP statuses: -32601 is 404; parse, request, params, header, capability and version
//! errors are 400.

mod config;
pub(crate) mod edge;
pub(crate) mod event_log;
mod quota;
mod respond;
mod session;
pub(crate) mod sse;
mod stateless;

pub use config::{HealthPaths, HttpConfig};

use crate::server::Server;
use crate::wire::BoxFuture;
use axum::extract::FromRef;
use axum::extract::State;
use axum::http::HeaderMap;
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use axum::Router;
use config::Core;
use edge::{read_body, Caller, CheckedHost, Peer, Route};
use quota::Quotas;
use session::Sessions;
use std::net::SocketAddr;
use std::sync::Arc;

/// What every route of one endpoint shares: the core (server, settings, quotas) and the
/// 2025-era sessions. The router's state; cheap to clone.
#[derive(Clone)]
pub(crate) struct App {
    core: Arc<Core>,
    sessions: Arc<Sessions>,
}

impl App {
    fn new(server: Arc<Server>, config: HttpConfig) -> App {
        App {
            sessions: Sessions::new(
                &config.limits,
                #[cfg(feature = "metrics")]
                server.metrics().cloned(),
            ),
            core: Arc::new(Core {
                server,
                config,
                quotas: Arc::new(Quotas::default()),
                draining: Default::default(),
                while_draining: Default::default(),
            }),
        }
    }
}

impl FromRef<App> for Arc<Core> {
    fn from_ref(app: &App) -> Arc<Core> {
        app.core.clone()
    }
}

/// An axum router serving `server` at `config.path`, to mount in an existing app or serve.
pub fn router(server: Arc<Server>, config: HttpConfig) -> Router {
    router_of(App::new(server, config))
}

/// The router of an app: POST, GET and DELETE at its path, and the protected-resource metadata
/// when it authenticates.
fn router_of(app: App) -> Router {
    let path = app.core.config.path.clone();
    #[cfg(feature = "auth")]
    let metadata = app
        .core
        .config
        .auth
        .as_ref()
        .map(|a| (a.metadata_path(), a.metadata()));
    let mut router = Router::new().route(
        &path,
        post(post_message).get(get_stream).delete(end_session),
    );
    #[cfg(feature = "metrics")]
    if let (Some(path), Some(metrics)) = (
        app.core.config.metrics_path.clone(),
        app.core.server.metrics().cloned(),
    ) {
        router = router.route(
            &path,
            axum::routing::get(move || {
                let metrics = metrics.clone();
                async move {
                    (
                        [(
                            axum::http::header::CONTENT_TYPE,
                            "application/openmetrics-text; version=1.0.0; charset=utf-8",
                        )],
                        metrics.render(),
                    )
                }
            }),
        );
    }
    if let Some(health) = app.core.config.health.clone() {
        router = router
            .route(&health.liveness, axum::routing::get(|| async { "ok" }))
            .route(&health.readiness, axum::routing::get(readiness));
    }
    #[cfg(feature = "auth")]
    let router = match metadata {
        Some((at, document)) => {
            let body = document.to_string();
            router.route(
                &at,
                axum::routing::get(move || async move {
                    respond::json_response(axum::http::StatusCode::OK, body.clone())
                }),
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
    serving(server, listener, config, Box::pin(shutdown)).await
}

/// [`serve_listener`]'s loop, for any shutdown future, boxed behind a boundary that is never
/// inlined: the loop is then compiled once, in this crate, rather than again in each server's own
/// crate, where release builds would otherwise inline the small async functions its `main` awaits.
#[inline(never)]
fn serving(
    server: Arc<Server>,
    listener: tokio::net::TcpListener,
    config: HttpConfig,
    shutdown: BoxFuture<()>,
) -> BoxFuture<std::io::Result<()>> {
    Box::pin(serve_until(server, listener, config, shutdown))
}

async fn serve_until(
    server: Arc<Server>,
    listener: tokio::net::TcpListener,
    config: HttpConfig,
    shutdown: BoxFuture<()>,
) -> std::io::Result<()> {
    use hyper_util::rt::{TokioIo, TokioTimer};
    let addr: Option<SocketAddr> = listener.local_addr().ok();
    tracing::info!(?addr, path = %config.path, "serving MCP over streamable HTTP");
    if server.ephemeral_keys() {
        tracing::warn!(
            "requestState is sealed with a random key made at start: a flow waiting for input \
             fails after a restart, and on another instance behind a load balancer; set {} \
             to the same key ring on every instance, e.g. `{}=1:$(openssl rand -hex 32)`",
            crate::request_state::KEY_RING_ENV,
            crate::request_state::KEY_RING_ENV,
        );
    }
    let limits = config.limits.clone();
    let app = App::new(server.clone(), config);
    let core = app.core.clone();
    let endpoint = Endpoint::new(app);
    // On the stop signal the server first drains: it reports not ready and goes on serving for
    // `limits.drain`, so a load balancer takes it out of rotation; then it stops accepting.
    let drain = limits.drain;
    let shutdown = async move {
        shutdown.await;
        core.draining
            .store(true, std::sync::atomic::Ordering::SeqCst);
        if !drain.is_zero() {
            tracing::info!(?drain, "draining: not ready, still serving");
            tokio::time::sleep(drain).await;
        }
    };
    let mut http = hyper::server::conn::http1::Builder::new();
    // The header timeout also runs while a kept-alive connection waits for its next request,
    // so idle connections are closed too.
    http.timer(TokioTimer::new())
        .header_read_timeout(limits.header_timeout)
        .keep_alive(true);
    let slots = Arc::new(tokio::sync::Semaphore::new(limits.max_connections.max(1)));
    let per_address = Arc::new(quota::Connections::default());
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
        let (tcp, peer) = tokio::select! {
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
        // One address holds at most its share of the slots: past it, the connection is
        // closed at once, so the backlog keeps moving for everyone else.
        let Some(counted) = per_address.open(peer.ip(), limits.connections_per_address.max(1))
        else {
            tracing::debug!(%peer, "connection refused: this address holds its share of connections");
            drop(tcp);
            continue;
        };
        // Small JSON-RPC replies must not wait for Nagle's algorithm.
        if let Err(e) = tcp.set_nodelay(true) {
            tracing::debug!(error = %e, "TCP_NODELAY not set");
        }
        let on = endpoint.on(peer);
        let service = hyper::service::service_fn(move |request| on.serve(request));
        let connection = graceful.watch(http.serve_connection(TokioIo::new(tcp), service));
        connections.spawn(async move {
            if let Err(e) = connection.await {
                tracing::debug!(error = %e, "connection ended with an error");
            }
            drop((slot, counted));
        });
    }
    drop(listener);
    wind_down(&server, graceful, connections, &limits, &endpoint).await;
    // What telemetry still holds is sent before the process exits.
    #[cfg(feature = "otel")]
    crate::otel::flush().await;
    Ok(())
}

/// After the listener is closed: the server's streams end, requests in flight get
/// `limits.shutdown_grace` (then are cut off), and the connections are closed; requests that
/// arrived while draining are counted in the log.
async fn wind_down(
    server: &Server,
    graceful: hyper_util::server::graceful::GracefulShutdown,
    mut connections: tokio::task::JoinSet<()>,
    limits: &crate::transport::Limits,
    endpoint: &Endpoint,
) {
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
    // New work routed here while not ready means the load balancer was too slow to notice
    // (its health checks, or a drain it was not told of).
    let strays = endpoint
        .app
        .core
        .while_draining
        .load(std::sync::atomic::Ordering::Relaxed);
    if strays > 0 {
        tracing::warn!(
            requests_while_draining = strays,
            "stopped; new requests arrived while not ready"
        );
    } else {
        tracing::info!(requests_while_draining = 0u64, "stopped");
    }
}

/// What [`serve_listener`] serves on each connection: a POST to the MCP path goes straight to
/// [`post_message`], everything else through the router. The POST is every MCP message, and the
/// router's dispatch costs it allocations of its own (the matched path's parameters in the
/// request's extensions, a `Content-Length` value that hyper writes without one); the router
/// still answers every other method and path as it does when mounted with
/// [`Server::into_router`]. Each request carries the connection's address, which quotas count
/// anonymous callers by.
#[derive(Clone)]
struct Endpoint {
    app: App,
    rest: hyper_util::service::TowerToHyperService<Router>,
    peer: Option<SocketAddr>,
}

impl Endpoint {
    fn new(app: App) -> Self {
        let rest = hyper_util::service::TowerToHyperService::new(router_of(app.clone()));
        Self {
            app,
            rest,
            peer: None,
        }
    }

    /// This endpoint for a connection from `peer`.
    fn on(&self, peer: SocketAddr) -> Self {
        Self {
            peer: Some(peer),
            ..self.clone()
        }
    }
}

/// Where [`Endpoint::serve`] sends a request, with the request (or, for the router, the
/// router's future, which owns it).
enum Path<F> {
    /// A POST to the MCP path: every MCP message.
    Post(axum::http::Request<hyper::body::Incoming>),
    /// A GET (a 2025 session's stream) or DELETE (its end) on the MCP path.
    Session(axum::http::Request<hyper::body::Incoming>),
    /// Everything else, through the router.
    Rest(F),
}

impl Endpoint {
    /// Serve one request of this endpoint's connection. The future is of one concrete type
    /// (hyper's `service_fn` names it), so hyper keeps it in the slot it allocates once per
    /// connection: a boxed future would cost every request an allocation of a few KiB, past
    /// the allocator's per-thread cache of small blocks.
    fn serve(
        &self,
        mut request: axum::http::Request<hyper::body::Incoming>,
    ) -> impl std::future::Future<Output = Result<Response, std::convert::Infallible>> + Send + 'static
    {
        use axum::http::Method;
        let method = request.method();
        let mcp = request.uri().path() == self.app.core.config.path;
        let path = if mcp && method == Method::POST {
            Path::Post(request)
        } else if mcp && (method == Method::GET || method == Method::DELETE) {
            Path::Session(request)
        } else {
            // The peer goes straight to the MCP handlers (an extension would cost the request
            // a map), and to the router in the request's extensions.
            if let Some(peer) = self.peer {
                request.extensions_mut().insert(Peer(peer));
            }
            Path::Rest(hyper::service::Service::call(&self.rest, request))
        };
        let (app, peer) = (self.app.clone(), self.peer);
        async move {
            let core = app.core.clone();
            let mut response = match path {
                Path::Post(request) => post_from(app, request, peer).await,
                Path::Session(request) => session_request(app, request, peer).await,
                Path::Rest(routed) => routed.await?,
            };
            // Once draining, every response closes its connection after it: a proxy then opens
            // a new connection for its next request (to an instance in rotation) instead of
            // reusing this one, which the server closes when it stops. Closing a kept-alive
            // connection while the proxy may be sending on it is the one close that can lose a
            // request; closing it after a response that says so cannot.
            if core.draining.load(std::sync::atomic::Ordering::Relaxed) {
                response.headers_mut().insert(
                    axum::http::header::CONNECTION,
                    axum::http::HeaderValue::from_static("close"),
                );
            }
            Ok(response)
        }
    }
}

/// POST: one JSON-RPC message, through the edge, then to its era's path. It takes the request
/// whole: the `HeaderMap` and `Extension` extractors would clone the headers (an allocation per
/// value) and the caller on every request, where moving them out of the request costs nothing.
async fn post_message(State(app): State<App>, request: axum::extract::Request) -> Response {
    let peer = edge::peer_of(request.extensions());
    post_from(app, request, peer).await
}

/// [`post_message`] for a request from `peer`, whatever its body type (hyper's own, when the
/// server calls it directly: boxing it as axum's would cost an allocation).
async fn post_from<B>(
    app: App,
    request: axum::http::Request<B>,
    peer: Option<SocketAddr>,
) -> Response
where
    B: axum::body::HttpBody<Data = axum::body::Bytes>,
{
    let (mut parts, body) = request.into_parts();
    let caller = match edge::admit(&mut parts, &app.core, peer).await {
        Ok(caller) => caller,
        Err(refused) => return refused.into_response(),
    };
    let core = app.core.clone();
    let in_flight = match caller.enter(&core) {
        Ok(guard) => guard,
        Err(refused) => return refused.into_response(),
    };
    let headers = parts.headers;
    let body = match read_body(&core.config, &headers, body).await {
        Ok(body) => body,
        Err(refused) => return refused.into_response(),
    };
    match Route::of(&headers) {
        Route::Session(id) => {
            let id = id.to_string();
            app.sessions
                .post_in_session(&core, &headers, &id, &body, caller, in_flight)
                .await
        }
        Route::Stateless => {
            core.note_if_draining();
            stateless::post(core, &app.sessions, headers, &body, caller, in_flight).await
        }
    }
}

/// GET of the readiness path: 200 `ready`, or 503 with why not (draining, or the task store
/// cannot be reached).
async fn readiness(State(app): State<App>) -> Response {
    use std::sync::atomic::Ordering;
    if app.core.draining.load(Ordering::SeqCst) {
        return (axum::http::StatusCode::SERVICE_UNAVAILABLE, "draining").into_response();
    }
    match app.core.server.readiness().await {
        Ok(()) => (axum::http::StatusCode::OK, "ready").into_response(),
        Err(why) => (axum::http::StatusCode::SERVICE_UNAVAILABLE, why).into_response(),
    }
}

/// GET (the standalone stream) or DELETE (the end) of a 2025-era session from `peer`, as
/// [`get_stream`] and [`end_session`] answer them, without the router's extractors.
async fn session_request<B>(
    app: App,
    request: axum::http::Request<B>,
    peer: Option<SocketAddr>,
) -> Response {
    let (mut parts, _) = request.into_parts();
    let caller = match edge::admit(&mut parts, &app.core, peer).await {
        Ok(caller) => caller,
        Err(refused) => return refused.into_response(),
    };
    if parts.method == axum::http::Method::DELETE {
        app.sessions.delete(&parts.headers, &caller)
    } else {
        app.sessions.get_stream(&app.core, &parts.headers, &caller)
    }
}

/// GET: a 2025-era session's standalone stream, for the caller that opened it; without a
/// session, not allowed (2026-07-28 has no GET stream).
async fn get_stream(
    State(app): State<App>,
    _host: CheckedHost,
    caller: Caller,
    headers: HeaderMap,
) -> Response {
    app.sessions.get_stream(&app.core, &headers, &caller)
}

/// DELETE: end the caller's 2025-era session; without a session, not allowed.
async fn end_session(
    State(app): State<App>,
    _host: CheckedHost,
    caller: Caller,
    headers: HeaderMap,
) -> Response {
    app.sessions.delete(&headers, &caller)
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
