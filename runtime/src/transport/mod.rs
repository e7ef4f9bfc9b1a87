//! What the transports ([`crate::http`], [`crate::stdio`]) share: their limits and timeouts in
//! one value, and the signal that stops them.

use std::time::Duration;

/// The limits and timeouts of a transport, in one place: how long a peer may take, how much a
/// slow reader may hold, how long a shutdown waits. The defaults suit a server on the open
/// network; each field says which transports use it.
///
/// Start from the defaults and change what you need: `Limits::default().queue(64)`.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Limits {
    /// HTTP: time to receive a request's headers, which is also how long a kept-alive
    /// connection may sit idle between requests (default 10 s).
    pub header_timeout: Duration,
    /// HTTP: time to receive a request's whole body once its headers are in (default 30 s);
    /// a body that takes longer is answered 408 and the connection closed.
    pub body_timeout: Duration,
    /// HTTP: connections served at once (default 1024). Further connections wait in the
    /// listen backlog until one closes, so the process never runs out of descriptors.
    pub max_connections: usize,
    /// HTTP: connections one client address may hold open at once (default 512, half of
    /// `max_connections`); a further one from that address is closed as soon as it is accepted,
    /// so one address (slow headers, idle connections, streams) never takes every slot. Behind
    /// a proxy every connection comes from the proxy's address: raise it to `max_connections`
    /// there, and let the proxy limit its clients.
    pub connections_per_address: usize,
    /// Both: notifications a stream buffers for a reader that is slower than the server
    /// (default 256). Past that, progress and log messages are dropped and a
    /// `subscriptions/listen` stream ends; replies are never dropped.
    pub queue: usize,
    /// Both: how long a shutdown waits for requests in flight once it has stopped taking new
    /// ones and closed the listen streams (default 10 s). Requests still running then are cut
    /// off (on stdio, answered with an internal error).
    pub shutdown_grace: Duration,
    /// 2025-era sessions: how long an ask (a real request to the client) waits for
    /// its response before it fails with `AskError::NoAnswer` (default 5 min: a person may be
    /// filling in a form).
    pub ask_timeout: Duration,
    /// HTTP 2025 sessions open at once (default 10,000); an `initialize` past that, once
    /// idle sessions are dropped, gets 503.
    pub max_sessions: usize,
    /// HTTP 2025 sessions: how long one may go unused before it expires (default 30 min);
    /// its id then gets 404 and the client initializes again.
    pub session_idle: Duration,
    /// HTTP 2025 sessions: how long a request's SSE stream whose connection was lost keeps
    /// its call running and its messages kept for a reconnection with `Last-Event-ID`
    /// (default 60 s); past that with no reader, the call is cancelled. 2025 clients cancel
    /// with `notifications/cancelled`, so a lost connection alone is not a cancellation.
    pub resume_window: Duration,
    /// HTTP 2025 sessions: the SSE `retry` hint, how long a client waits before it reconnects
    /// to a stream that ended without its response (default 1 s).
    pub retry_hint: Duration,
    /// 2025 sessions, both transports: the most a session keeps of its client, the JSON of
    /// the capabilities and `clientInfo` its `initialize` declared (default 64 KiB); a larger
    /// `initialize` is refused with -32602.
    pub session_bytes: usize,
    /// 2025 sessions, both transports, and each `subscriptions/listen` stream: the most
    /// resource subscriptions one keeps (default 256); a `resources/subscribe` past it, or a
    /// listen filter with more, is refused with -32602 naming the limit.
    pub subscriptions: usize,
    /// 2025 sessions, both transports, and each `subscriptions/listen` stream: the most bytes
    /// of subscribed URIs one keeps, all together (default 64 KiB); refused past it as for
    /// `subscriptions`.
    pub subscription_bytes: usize,
    /// HTTP 2025 sessions one caller may hold open at once (default 256); past that its
    /// `initialize` gets 429 with `Retry-After`. A caller is the authenticated principal, or
    /// without authentication the client's address: behind a proxy without authentication,
    /// every client shares the proxy's address, so raise it there.
    pub sessions_per_caller: usize,
    /// HTTP: requests (streams included) one caller may have in flight at once (default 256);
    /// past that a request gets 429 with `Retry-After`. Callers as for `sessions_per_caller`.
    pub requests_per_caller: usize,
    /// HTTP: how long a stopping server keeps serving while it reports not ready (default 0):
    /// on ctrl-c or SIGTERM, `/readyz` answers 503 at once and new requests are still served
    /// for this long, so a load balancer takes the instance out of rotation before it stops
    /// accepting; then requests in flight finish within `shutdown_grace`.
    pub drain: Duration,
    /// HTTP: the most JSON values a request body may hold (default 100,000); a body with more
    /// gets 413 before it is parsed. Parsed, each value costs tens of bytes however few it
    /// took in the text, so this bounds what a body can make the server allocate.
    pub max_json_values: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            header_timeout: Duration::from_secs(10),
            body_timeout: Duration::from_secs(30),
            max_connections: 1024,
            connections_per_address: 512,
            queue: crate::wire::DEFAULT_QUEUE,
            shutdown_grace: Duration::from_secs(10),
            ask_timeout: Duration::from_secs(300),
            max_sessions: 10_000,
            session_idle: Duration::from_secs(30 * 60),
            resume_window: Duration::from_secs(60),
            retry_hint: Duration::from_secs(1),
            session_bytes: 64 * 1024,
            subscriptions: 256,
            subscription_bytes: 64 * 1024,
            sessions_per_caller: 256,
            requests_per_caller: 256,
            max_json_values: 100_000,
            drain: Duration::ZERO,
        }
    }
}

setters!(Limits {
    header_timeout: Duration => header_timeout,
    body_timeout: Duration => body_timeout,
    max_connections: usize => max_connections,
    connections_per_address: usize => connections_per_address,
    queue: usize => queue,
    shutdown_grace: Duration => shutdown_grace,
    ask_timeout: Duration => ask_timeout,
    max_sessions: usize => max_sessions,
    session_idle: Duration => session_idle,
    resume_window: Duration => resume_window,
    retry_hint: Duration => retry_hint,
    session_bytes: usize => session_bytes,
    subscriptions: usize => subscriptions,
    subscription_bytes: usize => subscription_bytes,
    sessions_per_caller: usize => sessions_per_caller,
    requests_per_caller: usize => requests_per_caller,
    drain: Duration => drain,
    max_json_values: usize => max_json_values,
});

#[cfg(any(feature = "http", feature = "stdio"))]
impl Limits {
    /// What a 2025 session may keep and how long its asks wait.
    pub(crate) fn session(&self) -> crate::server::session::SessionLimits {
        crate::server::session::SessionLimits {
            ask_timeout: self.ask_timeout,
            bytes: self.session_bytes,
            subscriptions: self.subscriptions,
            subscription_bytes: self.subscription_bytes,
        }
    }
}

use crate::wire::Via;

/// How the transports fill [`Via`]: only while telemetry is on.
impl Via {
    /// A request that came over `network`, when telemetry is on.
    #[cfg(all(feature = "otel", any(feature = "http", feature = "stdio")))]
    fn over(network: &'static str) -> Option<crate::wire::Arrival> {
        crate::otel::active().then_some(crate::wire::Arrival {
            network,
            session: None,
            trace_headers: None,
        })
    }

    /// A request read from a stdio pipe.
    #[cfg(feature = "stdio")]
    pub(crate) fn pipe() -> Via {
        #[cfg(feature = "otel")]
        return Via(Self::over("pipe").map(Box::new));
        #[cfg(not(feature = "otel"))]
        Via()
    }

    /// A request that came in an HTTP request with these headers.
    #[cfg(feature = "http")]
    pub(crate) fn http(headers: &axum::http::HeaderMap) -> Via {
        #[cfg(feature = "otel")]
        return Via(Self::over("tcp").map(|mut arrival| {
            arrival.trace_headers = crate::otel::trace_headers(headers);
            Box::new(arrival)
        }));
        #[cfg(not(feature = "otel"))]
        {
            let _ = headers;
            Via()
        }
    }
}

/// The refusal of `request` when it is a `subscriptions/listen` whose filter asks for more
/// resource subscriptions than a stream keeps (`Limits::subscriptions`,
/// `Limits::subscription_bytes`): the stream holds its filter for as long as it is open.
#[cfg(any(feature = "http", feature = "stdio"))]
pub(crate) fn listen_refused(
    request: &oxmcp_schema::ClientRequest,
    limits: &Limits,
) -> Option<crate::wire::Reply> {
    let oxmcp_schema::ClientRequest::SubscriptionsListenRequest(listen) = request else {
        return None;
    };
    let uris = listen
        .params
        .notifications
        .resource_subscriptions
        .iter()
        .flatten()
        .map(String::as_str);
    crate::server::session::subscriptions_within(
        oxmcp_schema::methods::SUBSCRIPTIONS_LISTEN,
        uris,
        &limits.session(),
    )
    .err()
    .map(|error| crate::wire::Reply::error(Some(listen.id.clone()), error))
}

/// Resolves when the process is asked to stop: ctrl-c (SIGINT) or, on Unix, SIGTERM (what
/// service managers and container runtimes send). The transports' `serve` functions stop on it.
#[cfg(feature = "signal")]
pub async fn shutdown_signal() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{signal, SignalKind};
        match signal(SignalKind::terminate()) {
            Ok(mut term) => {
                tokio::select! {
                    _ = tokio::signal::ctrl_c() => {}
                    _ = term.recv() => {}
                }
            }
            Err(e) => {
                tracing::warn!(error = %e, "SIGTERM cannot be watched; stopping on ctrl-c only");
                let _ = tokio::signal::ctrl_c().await;
            }
        }
    }
    #[cfg(not(unix))]
    {
        let _ = tokio::signal::ctrl_c().await;
    }
    tracing::info!("shutdown requested");
}
