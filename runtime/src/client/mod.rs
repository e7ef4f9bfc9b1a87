//! A 2026-07-28 client with the MRTR loop built in, over streamable HTTP or a spawned stdio
//! server. `call_tool`, `get_prompt` and `read_resource` answer `input_required` rounds through
//! an [`InputHandler`]: every answer is built before the retry, `requestState` is echoed byte for
//! byte (and never invented), each retry gets a new JSON-RPC id, a state-only result is retried
//! after a short backoff, and the number of rounds is capped.
//!
//! Over HTTP, a tool argument whose schema carries `x-mcp-header` is mirrored in an
//! `Mcp-Param-<name>` header, as the server checks it. The client learns those arguments from
//! `tools/list` results; a `call_tool` to a tool it has not seen listed, refused for a header
//! mismatch, lists the tools and tries once more.
//!
//! Over stdio (or any line-delimited stream, [`Client::over_io`]), dropping a call's future
//! before its reply arrives sends `notifications/cancelled` for it, and notifications the server
//! writes (progress, log messages, list changes) go to the [`Client::notifications`] channel,
//! as they do from HTTP response streams.
//!
//! A 2025-era server is found the way the spec describes: the first request is preceded by a
//! `server/discover` probe, and on any outcome but a result the client sends `initialize`
//! (2025-11-25) and speaks the 2025-era protocol from then on: an `Mcp-Session-Id` over HTTP, no
//! `_meta`, and the server's own `elicitation/create`, `sampling/createMessage` and `roots/list`
//! requests answered through the same [`InputHandler`].
//!
#![cfg_attr(
    feature = "oauth",
    doc = "With the `oauth` feature, [`Client::oauth`] logs in to servers that require OAuth 2.1 ([`oauth`])."
)]
#![cfg_attr(
    not(feature = "oauth"),
    doc = "With the `oauth` feature, `Client::oauth` logs in to servers that require OAuth 2.1."
)]

#[cfg(feature = "oauth")]
#[cfg_attr(docsrs, doc(cfg(feature = "oauth")))]
pub mod oauth;

mod calls;
mod error;
mod exchange;
mod http;
mod input;
mod mrtr;
mod progress;
mod session;
#[cfg(feature = "skills")]
mod skills;
mod stdio;
mod tasks;
pub mod typed;

pub use crate::wire::Cause;
use error::causes;
pub use error::{Challenge, ClientError, FrontmatterProblem, InputKind, LoginStep, Verification};
use input::answer_server_request;
pub use input::{Capabilities, DeclineAll, InputHandler, Typed, TypedInput};
pub use progress::Progress;
use progress::{watch, ProgressFn, Watchers, Watching};
use session::{standalone_stream, CancelInSession, Cursor, Opened, SessionHttp};
#[cfg(feature = "skills")]
pub use skills::{SkillEntry, SkillFile};
pub use tasks::{TaskStatus, ToolRun};

use crate::wire::line::{write_line, Line, LineReader};
use crate::wire::{BoxFuture, META_CAPS, META_CLIENT_INFO, META_VERSION};
use futures_util::StreamExt;
use http_body_util::{BodyExt, Full};
use hyper::body::Bytes;
use oxmcp_schema::{
    error_codes, methods, CallToolResult, ClientCapabilities, GetPromptResult, Implementation,
    InputRequest, ReadResourceResult, LATEST_PROTOCOL_VERSION,
};
use serde_core::de::DeserializeOwned;
use serde_json::{json, Map, Value};
use std::collections::HashMap;
use std::fmt;
use std::sync::atomic::{AtomicBool, AtomicI64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::{mpsc, oneshot};

type Pending = Arc<Mutex<HashMap<String, oneshot::Sender<Value>>>>;

/// What an in-process client sends its messages to ([`Client::in_process`]).
type LocalHandler = Arc<dyn Fn(String) -> BoxFuture<Option<String>> + Send + Sync>;

/// Which protocol the server speaks, found on the first request (or forced, [`Client::era`]).
#[derive(Debug, Clone)]
pub(crate) enum Negotiated {
    /// 2026-07-28: stateless requests with `_meta`.
    Stateless,
    /// A 2025-era server: the version `initialize` agreed and the HTTP session, if any.
    Session {
        version: String,
        session: Option<String>,
    },
}

/// Whether a `server/discover` result lists the version this client speaks.
fn speaks_ours(result: &Value) -> bool {
    result
        .get("supportedVersions")
        .and_then(Value::as_array)
        .is_some_and(|v| v.iter().any(|v| v == LATEST_PROTOCOL_VERSION))
}

/// Reconnections in a row, with nothing received, to a 2025-era stream that ends before its reply.
const MAX_RECONNECTS: u32 = 5;

/// The target a stdio transport's errors name: the server at the other end of the pipes.
const STDIO: &str = "the server's stdio";

/// The version this client asks a 2025-era server for.
const SESSION_VERSION: &str = "2025-11-25";

/// How the client's messages reach the server.
// One per client, never moved per request: the HTTP variant's size costs nothing.
#[allow(clippy::large_enum_variant)]
enum Transport {
    Http {
        url: String,
        /// `url` parsed once, for the requests that go to it; `None` if it is not an absolute
        /// http(s) URL (each request then reports why).
        uri: Option<hyper::Uri>,
        http: HttpClient,
    },
    Stdio {
        tx: mpsc::UnboundedSender<String>,
        pending: Pending,
        /// Set when the server's output ended: no reply can come any more.
        done: Arc<AtomicBool>,
        /// Where the reader task sends messages that answer no request (notifications).
        notes: Arc<Mutex<Option<mpsc::UnboundedSender<Value>>>>,
        /// What answers a 2025-era server's own requests, once [`Client::with_input`] set it.
        answers: Arc<Mutex<Option<Arc<dyn InputHandler>>>>,
        /// The spawned server, killed when the client is dropped; `None` for [`Client::over_io`].
        _child: Option<Arc<Mutex<tokio::process::Child>>>,
    },
    /// A server in this process ([`Client::in_process`]): each message goes straight to it.
    InProcess { handle: LocalHandler },
}

tokio::task_local! {
    /// The time limit [`Client::within`] sets for the requests of one call.
    static CALL_LIMIT: Duration;
}

tokio::task_local! {
    /// Where [`Client::with_progress`] sends the progress of one call's requests.
    static PROGRESS: ProgressFn;
}

/// The default limit on each request's reply: [`Client::timeout`].
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(60);

/// The era a client speaks with its server: chosen by probing (the default), or forced with
/// [`Client::era`] for a host that knows its server.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Era {
    /// 2026-07-28: stateless requests carrying `_meta`, with no `server/discover` probe first.
    Stateless,
    /// A 2025-era server: `initialize` (asking for 2025-11-25) and a session, with no probe first.
    Session,
}

/// What a client and its server agreed: [`Client::protocol`], [`Client::connect`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Protocol {
    /// Stateless requests at this version (2026-07-28).
    Stateless {
        /// The protocol version every request carries.
        version: String,
    },
    /// A 2025-era session: the version `initialize` agreed, and the HTTP session id the server
    /// set (none over stdio, or from a server that keeps no sessions).
    Session {
        /// The version the server answered `initialize` with.
        version: String,
        /// The `Mcp-Session-Id` the server set.
        session: Option<String>,
    },
}

impl Protocol {
    /// The negotiated protocol version.
    pub fn version(&self) -> &str {
        match self {
            Protocol::Stateless { version } | Protocol::Session { version, .. } => version,
        }
    }

    /// The era: stateless or session.
    pub fn era(&self) -> Era {
        match self {
            Protocol::Stateless { .. } => Era::Stateless,
            Protocol::Session { .. } => Era::Session,
        }
    }
}

impl From<&Negotiated> for Protocol {
    fn from(n: &Negotiated) -> Self {
        match n {
            Negotiated::Stateless => Protocol::Stateless {
                version: LATEST_PROTOCOL_VERSION.to_string(),
            },
            Negotiated::Session { version, session } => Protocol::Session {
                version: version.clone(),
                session: session.clone(),
            },
        }
    }
}

/// An MCP client. Cheap to share behind an `Arc`; calls may run in parallel.
pub struct Client {
    transport: Transport,
    /// The `_meta` every 2026 request carries (version, capabilities, client info), kept built
    /// rather than made on every request; a 2025-era `initialize` takes its capabilities and
    /// client info from it.
    meta: Map<String, Value>,
    handler: Arc<dyn InputHandler>,
    max_rounds: usize,
    next_id: AtomicI64,
    notifications: Option<mpsc::UnboundedSender<Value>>,
    /// Per tool seen in a `tools/list` result, its arguments mirrored in `Mcp-Param-*` headers,
    /// as (argument, header name); an empty list for a tool that mirrors none.
    header_params: Mutex<HashMap<String, HeaderDeclarations>>,
    /// The server's era, found on the first request.
    era: arc_swap::ArcSwapOption<Negotiated>,
    /// Held while the era is being found, so concurrent first requests probe once.
    finding: tokio::sync::Mutex<()>,
    /// The era to speak without probing, if the host chose one.
    forced: Option<Era>,
    /// The default limit on each request's reply ([`Client::timeout`]).
    timeout: Option<Duration>,
    /// How many times a request whose reply was lost is sent again ([`Client::resend_lost`]).
    resend_lost: u32,
    /// The progress callbacks of the requests in flight ([`Client::with_progress`]).
    watchers: Watchers,
    /// A 2025-era HTTP session's standalone stream reader, stopped with the client.
    listener: Mutex<Option<StopOnDrop>>,
    /// Headers sent with every HTTP request ([`Client::header`]).
    headers: Arc<Headers>,
}

/// A 2025 HTTP session ends with the client: DELETE is sent from a task of its own.
impl Drop for Client {
    fn drop(&mut self) {
        let Some(session) = self.http_session() else {
            return;
        };
        // Once: a client already closed has no session left to end.
        self.era.store(None);
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        let Ok(req) = session.request(hyper::Method::DELETE, Bytes::new()) else {
            return;
        };
        runtime.spawn(async move {
            if let Ok(resp) = session.http.request(req).await {
                let _ = resp.into_body().collect().await;
            }
        });
    }
}

/// Headers a host computes for each request ([`Client::headers_from`]).
type HeaderSource = Arc<dyn Fn() -> hyper::HeaderMap + Send + Sync>;

/// The client's own headers: fixed ones, and ones computed for each request.
#[derive(Clone, Default)]
struct Headers {
    fixed: hyper::HeaderMap,
    computed: Option<HeaderSource>,
    /// The OAuth state whose access token every request carries ([`Client::oauth`]).
    #[cfg(feature = "oauth")]
    auth: Option<Arc<oauth::Authorizer>>,
}

/// `req` with the headers every message POSTed or GET to the endpoint carries: its content type,
/// what the client accepts back, and the protocol version (the client's own headers are added on
/// sending, by [`add_headers`]).
fn message_headers<V>(
    req: hyper::http::request::Builder,
    version: V,
) -> hyper::http::request::Builder
where
    hyper::header::HeaderValue: TryFrom<V>,
    <hyper::header::HeaderValue as TryFrom<V>>::Error: Into<hyper::http::Error>,
{
    // Constant names and values are not parsed or copied per request.
    req.header(
        hyper::header::CONTENT_TYPE,
        hyper::header::HeaderValue::from_static("application/json"),
    )
    .header(
        hyper::header::ACCEPT,
        hyper::header::HeaderValue::from_static("application/json, text/event-stream"),
    )
    .header(
        hyper::header::HeaderName::from_static("mcp-protocol-version"),
        version,
    )
}

/// Add the client's own headers to `req` (after the protocol's, which they may not replace):
/// the fixed ones, then those computed now (which replace a fixed one of the same name).
fn add_headers(req: &mut hyper::Request<Full<Bytes>>, headers: &Headers) {
    #[cfg(feature = "oauth")]
    if let Some(auth) = &headers.auth {
        auth.apply(req);
    }
    // Most clients set none: their requests pay nothing here.
    if headers.fixed.is_empty() && headers.computed.is_none() {
        return;
    }
    let protocol: Vec<hyper::header::HeaderName> = req.headers().keys().cloned().collect();
    for (name, value) in &headers.fixed {
        if !protocol.contains(name) {
            req.headers_mut().append(name.clone(), value.clone());
        }
    }
    if let Some(source) = &headers.computed {
        let computed = source();
        for name in computed.keys() {
            if !protocol.contains(name) {
                req.headers_mut().remove(name);
            }
        }
        for (name, value) in computed {
            if let Some(name) = name.filter(|n| !protocol.contains(n)) {
                req.headers_mut().append(name, value);
            }
        }
    }
}

/// A tool's `Mcp-Param-*` arguments as (argument, header name), or why its declarations are
/// invalid (then it is not called).
type HeaderDeclarations = Result<Vec<(String, String)>, String>;

/// Aborts a background task when dropped.
struct StopOnDrop(tokio::task::AbortHandle);

impl Drop for StopOnDrop {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// The longest line of a spawned server's stderr that is passed on.
const MAX_STDERR_LINE: usize = 64 * 1024;

/// The longest line read from a stdio server (a reply may carry a large resource).
const MAX_REPLY_LINE: usize = 64 * 1024 * 1024;

/// How often one request is sent while the server's authorization challenges are met (logins,
/// refreshes, step-ups, DPoP nonces).
#[cfg(feature = "oauth")]
const MAX_SENDS: u32 = 8;

/// The pause before a request whose reply was lost is sent for the `nth` time again: long
/// enough for a load balancer to see an instance gone, short beside a person waiting.
fn resend_pause(nth: u32) -> Duration {
    Duration::from_millis(50 * u64::from(nth.min(10)))
}

/// How many new sessions a request whose session the server no longer knows is tried in.
const SESSION_RENEWALS: usize = 3;

/// The most `tools/list` pages read when learning header arguments (a guard against a server
/// whose cursors never end).
const MAX_LIST_PAGES: usize = 100;

pub(crate) use crate::outbound::{http_client, HttpClient};

impl Client {
    /// A client for the streamable HTTP endpoint at `url` (e.g. `http://127.0.0.1:8080/mcp`);
    /// `https://` URLs need the `tls` feature (on with `oauth`).
    pub fn http(url: impl Into<String>) -> Self {
        let http = http_client();
        let url = url.into();
        Self::with_transport(Transport::Http {
            uri: http::target(&url).ok(),
            url,
            http,
        })
    }

    /// A client of a server in this process: `handle` takes each JSON-RPC message as text and
    /// gives the reply, if any (what a transport would carry). It speaks 2026-07-28 (a server's
    /// own requests of the 2025 era need a transport). `oxmcp::testing::client` makes one for
    /// a `Server`; for tests, and for hosts that embed a server.
    pub fn in_process(
        handle: impl Fn(String) -> BoxFuture<Option<String>> + Send + Sync + 'static,
    ) -> Self {
        Self::with_transport(Transport::InProcess {
            handle: Arc::new(handle),
        })
        .era(Era::Stateless)
    }

    fn with_transport(transport: Transport) -> Self {
        Client {
            transport,
            meta: Map::from_iter([
                (META_VERSION.to_string(), json!(LATEST_PROTOCOL_VERSION)),
                (META_CAPS.to_string(), json!({})),
                (
                    META_CLIENT_INFO.to_string(),
                    json!({"name": "oxmcp-client", "version": env!("CARGO_PKG_VERSION")}),
                ),
            ]),
            handler: Arc::new(DeclineAll),
            max_rounds: 16,
            next_id: AtomicI64::new(1),
            notifications: None,
            header_params: Mutex::new(HashMap::new()),
            era: arc_swap::ArcSwapOption::empty(),
            finding: tokio::sync::Mutex::new(()),
            listener: Mutex::new(None),
            headers: Arc::new(Headers::default()),
            forced: None,
            timeout: Some(DEFAULT_TIMEOUT),
            resend_lost: 0,
            watchers: Watchers::default(),
        }
    }

    /// Send the header `name: value` with every HTTP request, e.g. `Authorization: Bearer ...`
    /// for a server that needs a token (repeat for several; ignored over stdio). A header the
    /// protocol sets itself (`Content-Type`, `Accept`, `MCP-Protocol-Version`, `Mcp-Method`,
    /// `Mcp-Name`, `Mcp-Session-Id`) is not replaced. An invalid name or value is an error.
    pub fn header(mut self, name: &str, value: &str) -> Result<Self, ClientError> {
        let name = hyper::header::HeaderName::from_bytes(name.trim().as_bytes())
            .map_err(|e| ClientError::protocol_because(format!("header name `{name}`"), e))?;
        let value = hyper::header::HeaderValue::from_str(value.trim())
            .map_err(|e| ClientError::protocol_because(format!("header `{name}`"), e))?;
        Arc::make_mut(&mut self.headers).fixed.append(name, value);
        Ok(self)
    }

    /// Log in to an OAuth-protected server as `config` says: a `401` (or a `403` asking for
    /// more scope) is answered by discovering the server's authorization server, obtaining a
    /// token and sending the request again; every HTTP request then carries the token. A host
    /// that wants the user to approve before the first call (outside its time limit) calls
    /// [`Client::login`]. Only for HTTP clients: a stdio server needs no token.
    #[cfg(feature = "oauth")]
    #[cfg_attr(docsrs, doc(cfg(feature = "oauth")))]
    pub fn oauth(mut self, config: oauth::OAuth) -> Self {
        if let Transport::Http { url, http, .. } = &self.transport {
            let auth = oauth::Authorizer::new(config, http.clone(), url);
            Arc::make_mut(&mut self.headers).auth = Some(Arc::new(auth));
        }
        self
    }

    /// Log in now ([`Client::oauth`]), from the server's well-known metadata, rather than on
    /// the first `401`; without a time limit, so the user may take their time.
    #[cfg(feature = "oauth")]
    #[cfg_attr(docsrs, doc(cfg(feature = "oauth")))]
    pub async fn login(&self) -> Result<(), ClientError> {
        match &self.headers.auth {
            Some(auth) => auth.login().await,
            None => Err(ClientError::login(
                LoginStep::Discovery,
                "the client has no OAuth configuration (Client::oauth)",
            )),
        }
    }

    /// Whether requests carry a login's tokens ([`Client::oauth`]).
    fn logs_in(&self) -> bool {
        #[cfg(feature = "oauth")]
        return self.headers.auth.is_some();
        #[cfg(not(feature = "oauth"))]
        false
    }

    /// Compute headers for every HTTP request with `source`, e.g. an `Authorization` header
    /// from a token the host refreshes. A computed header replaces a [`Client::header`] of the
    /// same name; one the protocol sets itself is not replaced. Called once per request, so it
    /// should be quick (read a value another task keeps fresh).
    pub fn headers_from(
        mut self,
        source: impl Fn() -> hyper::HeaderMap + Send + Sync + 'static,
    ) -> Self {
        Arc::make_mut(&mut self.headers).computed = Some(Arc::new(source));
        self
    }

    /// The capabilities declared on every request, and the handler that answers input requests.
    pub fn with_input(
        mut self,
        capabilities: ClientCapabilities,
        handler: impl InputHandler,
    ) -> Self {
        let capabilities = serde_json::to_value(capabilities).unwrap_or_else(|_| json!({}));
        self.meta.insert(META_CAPS.to_string(), capabilities);
        self.handler = Arc::new(handler);
        if let Transport::Stdio { answers, .. } = &self.transport {
            if let Ok(mut slot) = answers.lock() {
                *slot = Some(self.handler.clone());
            }
        }
        self
    }

    /// Identify as `name`/`version` in `_meta.clientInfo`.
    pub fn client_info(mut self, info: Implementation) -> Self {
        if let Ok(info) = serde_json::to_value(info) {
            self.meta.insert(META_CLIENT_INFO.to_string(), info);
        }
        self
    }

    /// Give up after this many `input_required` rounds (default 16).
    pub fn max_rounds(mut self, n: usize) -> Self {
        self.max_rounds = n.max(1);
        self
    }

    /// Speak `era` without probing: [`Era::Stateless`] sends 2026-07-28 requests from the
    /// first one, [`Era::Session`] opens a 2025 session with `initialize`. By default the
    /// client probes with `server/discover` and falls back to `initialize`.
    pub fn era(mut self, era: Era) -> Self {
        self.forced = Some(era);
        self
    }

    /// The limit on each request's reply (default [`DEFAULT_TIMEOUT`], 60 s; `None` waits as
    /// long as the server takes). Past it the request is abandoned with
    /// [`ClientError::Timeout`], and the server is told: over stdio and in a 2025 session with
    /// `notifications/cancelled`, over stateless HTTP by closing the request's connection. The
    /// limit counts per request: the time an [`InputHandler`] takes to answer a round between
    /// requests does not count, but in a 2025 session the server's requests are answered while
    /// the call's reply is awaited, so there it does. A long tool is better run as a task, or
    /// given its own limit with [`Client::within`].
    pub fn timeout(mut self, limit: Option<Duration>) -> Self {
        self.timeout = limit;
        self
    }

    /// Send a request again, up to `times` times a little apart, when its reply is lost
    /// ([`ClientError::ReplyLost`]): behind a load balancer an instance can stop or die with the
    /// request in flight, and the proxy answers 502 or drops the connection. A 2026-07-28
    /// request carries all it needs (its `requestState`), so any instance can take it again; in
    /// a 2025 session it is sent again in the session, and when the session died with its
    /// instance (404) the client moves to a new session as it always does. Off by default: the
    /// server may have acted before the reply was lost, so a resent request can run twice. Turn
    /// it on where running a request again does no harm (a multi-round tool already runs again
    /// from its start on every round).
    pub fn resend_lost(mut self, times: u32) -> Self {
        self.resend_lost = times;
        self
    }

    /// Run `call` (any of this client's calls) with `limit` on each of its requests instead of
    /// the client's default: `client.within(Duration::from_secs(600), client.call_tool(..))`.
    pub async fn within<T>(
        &self,
        limit: Duration,
        call: impl std::future::Future<Output = Result<T, ClientError>>,
    ) -> Result<T, ClientError> {
        CALL_LIMIT.scope(limit, call).await
    }

    /// Run `call` (any of this client's calls) with each of its requests carrying a progress
    /// token, and the progress the server reports for them given to `on_progress`:
    /// `client.with_progress(|p| println!("{:.0}%", p.progress * 100.0), client.call_tool(..))`.
    /// Progress also reaches [`Client::notifications`], as before.
    pub async fn with_progress<T>(
        &self,
        on_progress: impl Fn(Progress) + Send + Sync + 'static,
        call: impl std::future::Future<Output = Result<T, ClientError>>,
    ) -> Result<T, ClientError> {
        PROGRESS.scope(Arc::new(on_progress), call).await
    }

    /// What the client and its server agreed, once the first request found it (`None` before).
    pub fn protocol(&self) -> Option<Protocol> {
        self.era.load().as_deref().map(Protocol::from)
    }

    /// Find the server's era now (probing, or as forced with [`Client::era`]) rather than on the
    /// first call, and say what was agreed.
    pub async fn connect(&self) -> Result<Protocol, ClientError> {
        let limit = self.timeout;
        let negotiated = async { self.negotiated().await.map(|n| Protocol::from(&*n)) };
        match limit {
            Some(after) => tokio::time::timeout(after, negotiated)
                .await
                .unwrap_or_else(|_| {
                    Err(ClientError::Timeout {
                        method: "initialize".to_string(),
                        after,
                    })
                }),
            None => negotiated.await,
        }
    }

    /// End the client: a 2025 HTTP session is ended with DELETE (its answer awaited), so the
    /// server frees it at once. Dropping a client does the same from a task of its own, when it
    /// is dropped inside a Tokio runtime.
    pub async fn close(self) -> Result<(), ClientError> {
        let Some(session) = self.http_session() else {
            return Ok(());
        };
        // Ended here, not again when dropped.
        self.era.store(None);
        let url = session.url.clone();
        let req = session.request(hyper::Method::DELETE, Bytes::new())?;
        let resp = session
            .http
            .request(req)
            .await
            .map_err(|e| ClientError::transport(url.as_str(), Cause::of(e)))?;
        let status = resp.status();
        let _ = resp.into_body().collect().await;
        // 405: the server does not let clients end sessions; it expires them itself.
        if status.is_success() || status == hyper::StatusCode::METHOD_NOT_ALLOWED {
            Ok(())
        } else {
            Err(ClientError::HttpStatus {
                target: url.to_string(),
                status: status.as_u16(),
            })
        }
    }

    /// The open 2025 HTTP session, if there is one.
    fn http_session(&self) -> Option<SessionHttp> {
        let era = self.era.load_full();
        let (Transport::Http { url, http, .. }, Some(Negotiated::Session { version, session })) =
            (&self.transport, era.as_deref())
        else {
            return None;
        };
        Some(SessionHttp {
            url: url.clone(),
            http: http.clone(),
            headers: self.headers.clone(),
            version: version.clone(),
            session: Some(session.clone()?),
        })
    }

    /// Receive the notifications (progress, log messages) that arrive on response streams.
    pub fn notifications(mut self, tx: mpsc::UnboundedSender<Value>) -> Self {
        if let Transport::Stdio { notes, .. } = &self.transport {
            if let Ok(mut slot) = notes.lock() {
                *slot = Some(tx.clone());
            }
        }
        self.notifications = Some(tx);
        self
    }
}
