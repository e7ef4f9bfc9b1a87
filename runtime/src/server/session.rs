//! Serving 2025-era clients from the same handlers. An `initialize` without the 2026 `_meta`
//! opens a [`Session`] at a 2025-era version (2025-11-25, 2025-06-18 or 2025-03-26): the client's
//! capabilities and identity are fixed for the session, `ping`, `logging/setLevel` and
//! `resources/subscribe` are served, and the session's requests are routed to the same handlers
//! as 2026 ones, with the session's details put where a 2026 request carries them (`_meta`)
//! and asks sent to the client as real requests ([`Live`]). Results go back shaped for the
//! 2025-era version (no `resultType`, no 2026-only fields, 2025-era error codes).

use super::round::Caller;
use super::Server;
use crate::handler::Principal;
use crate::resume::live::{Live, Outbound};
use crate::wire::{lock, Incoming, Notifier, Reply};
use oxmcp_schema::{
    error_codes, ClientCapabilities, Error, Implementation, LoggingLevel, ServerResult,
};
use serde_json::{json, Map, Value};
use std::borrow::Cow;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

pub use super::SESSION_VERSIONS;

mod read;
pub(crate) use read::{read_message, SessionIncoming, SessionInitialize, SessionResponse};

/// One 2025-era connection (a stdio process) or HTTP session: what `initialize` fixed, and what
/// the client set since.
#[derive(Debug)]
pub(crate) struct Session {
    /// The negotiated protocol version.
    pub(crate) version: String,
    /// The capabilities the client declared at `initialize` and its `clientInfo` (if it sent
    /// one), as trees, for the requests read as one ([`Server::handle_in_session`]). Set at
    /// `initialize` when it was read as a tree; otherwise built on first use from
    /// [`Session::meta_members`], which holds both as text.
    client: OnceLock<Client>,
    /// The level `logging/setLevel` asked for.
    log_level: Mutex<Option<Value>>,
    /// URIs `resources/subscribe` asked for, each once. A list: every check walks them all
    /// anyway, since a subscription covers the URIs under it.
    subscriptions: Mutex<Vec<String>>,
    /// What the session may keep.
    limits: SessionLimits,
    /// The session's requests to the client awaiting a response.
    pub(crate) outbound: Arc<Outbound>,
    /// The `_meta` members every request of the session carries (its version, capabilities and
    /// client), written once as JSON object members.
    meta_members: String,
    /// When it opened, for its duration.
    #[cfg_attr(not(feature = "otel"), allow(dead_code))]
    opened: std::time::Instant,
}

impl Session {
    /// The session is over (ended, expired or its transport closed): its duration is recorded
    /// with telemetry on, under the transport `network` (`tcp`, `pipe`).
    pub(crate) fn ended(&self, network: &'static str) {
        #[cfg(feature = "otel")]
        crate::otel::session_ended(self.opened.elapsed(), &self.version, network);
        #[cfg(not(feature = "otel"))]
        let _ = network;
    }

    /// The client's capabilities and `clientInfo`, as trees.
    fn client(&self) -> &Client {
        self.client.get_or_init(|| {
            // Only an `initialize` read without a tree leaves this unset: its text is in
            // `meta_members`.
            if let Ok(mut meta) =
                crate::wire::from_text::<Map<String, Value>>(&format!("{{{}}}", self.meta_members))
            {
                let capabilities = meta.remove(crate::wire::META_CAPS);
                return (
                    capabilities.unwrap_or_else(|| json!({})),
                    meta.remove(crate::wire::META_CLIENT_INFO),
                );
            }
            (json!({}), None)
        })
    }

    /// Whether the client subscribed to updates of `uri` (or a URI it lies under).
    pub(crate) fn subscribed(&self, uri: &str) -> bool {
        lock(&self.subscriptions)
            .iter()
            .any(|s| super::listen::covers(s, uri))
    }

    /// End the session: requests to the client waiting for a response fail.
    pub(crate) fn close(&self) {
        self.outbound.close();
    }
}

/// What a 2025 session may keep and how long it waits, from the transport's `Limits`.
#[derive(Debug, Clone)]
pub(crate) struct SessionLimits {
    /// How long an ask (a real request to the client) waits for its response.
    pub(crate) ask_timeout: Duration,
    /// The most JSON the session keeps of its client (capabilities and `clientInfo`).
    pub(crate) bytes: usize,
    /// The most resource subscriptions it keeps.
    pub(crate) subscriptions: usize,
    /// The most bytes of subscribed URIs it keeps, all together.
    pub(crate) subscription_bytes: usize,
}

/// Whether `uris` (the subscriptions a session or a `subscriptions/listen` filter would keep)
/// are within `limits`: the error that names the limit passed, if not.
pub(crate) fn subscriptions_within<'a>(
    method: &str,
    uris: impl IntoIterator<Item = &'a str>,
    limits: &SessionLimits,
) -> Result<(), Error> {
    let (mut count, mut bytes) = (0usize, 0usize);
    for uri in uris {
        count += 1;
        bytes += uri.len();
        if count > limits.subscriptions {
            return Err(Error::invalid_params(format!(
                "{method}: at most {} resource subscriptions are kept (Limits::subscriptions)",
                limits.subscriptions
            ))
            .with_data(json!({"limit": "subscriptions", "max": limits.subscriptions})));
        }
        if bytes > limits.subscription_bytes {
            return Err(Error::invalid_params(format!(
                "{method}: subscribed URIs may take at most {} bytes in all (Limits::subscription_bytes)",
                limits.subscription_bytes
            ))
            .with_data(json!({"limit": "subscription_bytes", "max": limits.subscription_bytes})));
        }
    }
    Ok(())
}

/// Whether a parsed message is a 2025-era `initialize`: the method, with no 2026 `_meta`
/// protocol version (a request that carries one is 2026, whatever its method).
pub(crate) fn is_session_initialize(message: &Value) -> bool {
    message.get("method").and_then(Value::as_str) == Some("initialize")
        && message
            .get("params")
            .and_then(|p| p.get("_meta"))
            .and_then(|m| m.get(crate::wire::META_VERSION))
            .is_none()
}

/// The reply to a line or body of a 2025 session that is not JSON.
#[cfg(feature = "stdio")]
pub(crate) fn parse_error_text(e: &serde_json::Error) -> String {
    error_text(None, Error::parse_error(format!("parse error: {e}")))
}

/// A JSON-RPC error reply, as text.
fn error_text(id: Option<&Value>, error: Error) -> String {
    json!({"jsonrpc": "2.0", "id": id.cloned().unwrap_or(Value::Null),
           "error": session_error(crate::wire::to_value_text(&error).unwrap_or_default())})
    .to_string()
}

fn result_text(id: &Value, result: Value) -> String {
    json!({"jsonrpc": "2.0", "id": id, "result": result}).to_string()
}

/// A 2026 error shaped for a 2025-era peer: the codes 2026 added become the generic ones.
fn session_error(mut error: Value) -> Value {
    let code = error.get("code").and_then(Value::as_i64).unwrap_or(0);
    error["code"] = json!(session_code(code));
    error
}

/// The code a 2025-era peer gets for the error code `code`.
fn session_code(code: i64) -> i64 {
    match code {
        error_codes::HEADER_MISMATCH | error_codes::UNSUPPORTED_PROTOCOL_VERSION => {
            error_codes::INVALID_REQUEST
        }
        error_codes::MISSING_REQUIRED_CLIENT_CAPABILITY => error_codes::INVALID_PARAMS,
        other => other,
    }
}

/// The result members 2026 added, which a 2025-era peer does not get.
const STATELESS_ONLY: [&str; 3] = ["resultType", "ttlMs", "cacheScope"];

/// A 2026 result shaped for a 2025-era peer: no `resultType`, no 2026-only cache hints.
fn session_result(mut result: Value) -> Value {
    if let Some(m) = result.as_object_mut() {
        for key in STATELESS_ONLY {
            m.remove(key);
        }
    }
    result
}

/// The capabilities every 2025-era `initialize` result declares, as the start of a JSON
/// member (the object is closed after the extensions, if any): the catalog may change while a
/// session lasts, so every kind is declared.
const SESSION_CAPABILITIES: &str = concat!(
    r#""capabilities":{"tools":{"listChanged":true},"prompts":{"listChanged":true},"#,
    r#""resources":{"subscribe":true,"listChanged":true},"logging":{},"completions":{}"#
);

/// The members of every 2025-era `initialize` result after its capabilities: the server's
/// `serverInfo` and its instructions, as JSON object members.
pub(crate) fn hello_members(
    info: &oxmcp_schema::Implementation,
    instructions: Option<&str>,
) -> String {
    let mut text = String::from(r#""serverInfo":"#);
    text.push_str(&serde_json::to_string(info).unwrap_or_else(|_| "{}".into()));
    if let Some(instructions) = instructions {
        text.push_str(r#","instructions":"#);
        text.push_str(&json!(instructions).to_string());
    }
    text
}

/// A session's client: its capabilities and its `clientInfo` (if it sent one), as trees.
type Client = (Value, Option<Value>);

/// The `_meta` members every request of a session carries, as JSON object members: its version,
/// the client's capabilities and its `clientInfo` (none if it sent none).
fn meta_members(version: &'static str, capabilities: &str, client_info: Option<&str>) -> String {
    // The keys and the version (one of `SESSION_VERSIONS`) are constants that need no escaping.
    let parts = [
        "\"",
        crate::wire::META_VERSION,
        "\":\"",
        version,
        "\",\"",
        crate::wire::META_CAPS,
        "\":",
        capabilities,
    ];
    let mut text = parts.concat();
    if let Some(client_info) = client_info {
        text.extend([",\"", crate::wire::META_CLIENT_INFO, "\":", client_info]);
    }
    text
}

/// The error a client answered one of the session's requests with, as read; an internal error
/// when what it sent is not one.
fn client_error(read: serde_json::Result<Error>) -> Error {
    read.unwrap_or_else(|_| Error::internal("the client answered with an error"))
}

/// Hand a client's answer to the ask of `session` that waits for the request with this id (its
/// JSON text); an answer to no waiting request is dropped.
fn deliver(session: &Session, id: &str, outcome: crate::resume::live::Answer) {
    if !session.outbound.resolve(id, outcome) {
        tracing::debug!(id, "a response to no waiting request; ignored");
    }
}

/// Whether a client's capabilities and `clientInfo` (JSON text) read as the 2026 types every
/// request of its session reads them as; why not, when they do not.
fn client_reads(capabilities: &str, client_info: Option<&str>) -> Result<(), String> {
    crate::wire::from_text::<ClientCapabilities>(capabilities)
        .map_err(|e| format!("initialize: capabilities: {e}"))?;
    match client_info {
        Some(text) => crate::wire::from_text::<Implementation>(text)
            .map(drop)
            .map_err(|e| format!("initialize: clientInfo: {e}")),
        None => Ok(()),
    }
}

/// What an `initialize` gives the session it opens, however the request was read.
struct Hello<'a> {
    /// The request's id, as JSON text (an integer or a string).
    id: &'a str,
    /// The version negotiated.
    version: &'static str,
    /// The client's capabilities, as the JSON text of an object.
    capabilities: Cow<'a, str>,
    /// The client's `clientInfo`, as the JSON text of an object, if it sent one.
    client_info: Option<Cow<'a, str>>,
    /// Both, as trees, when the request was read as one.
    trees: Option<Client>,
}

/// The version a 2025-era client asked for if it is served, else the newest 2025-era version.
fn negotiate(requested: Option<&str>) -> &'static str {
    SESSION_VERSIONS
        .iter()
        .find(|v| Some(**v) == requested)
        .copied()
        .unwrap_or(SESSION_VERSIONS[0])
}

impl Server {
    /// Whether this server opens 2025 sessions.
    pub(crate) fn serves_sessions(&self) -> bool {
        self.sessions
    }

    /// Answer a 2025-era `initialize`: the reply text, and the session it opens (none if the
    /// server does not serve 2025-era clients, or the request is malformed). What the session
    /// keeps of the client (its capabilities and `clientInfo`, both JSON objects) must fit in
    /// `limits.bytes` bytes of JSON, or the `initialize` is refused with -32602: a session holds
    /// it for its whole life and puts it in every request it serves.
    pub(crate) fn initialize(
        &self,
        mut message: Value,
        limits: &SessionLimits,
    ) -> (String, Option<Arc<Session>>) {
        // Cloned (a number or a short string): the params are taken apart below.
        let id = match message.get("id") {
            Some(id) if id.is_string() || id.is_i64() || id.is_u64() => id.clone(),
            _ => {
                let error = Error::invalid_request("initialize needs an id");
                return (error_text(None, error), None);
            }
        };
        if !self.sessions {
            // A 2026-only server names the versions it supports.
            let requested = message
                .get("params")
                .and_then(|p| p.get("protocolVersion"))
                .and_then(Value::as_str)
                .unwrap_or("");
            // The 2025 lifecycle's error for a version the server does not speak.
            let error = Error::invalid_params("Unsupported protocol version")
                .with_data(json!({"supported": super::SUPPORTED_VERSIONS, "requested": requested}));
            return (error_text(Some(&id), error), None);
        }
        let mut params = message.get_mut("params");
        let version = negotiate(
            params
                .as_ref()
                .and_then(|p| p.get("protocolVersion"))
                .and_then(Value::as_str),
        );
        // The session keeps both objects, taken out of the message (it is not read again), and
        // their JSON text, written once: its size is what the budget counts.
        let mut field = |name: &str| match params.as_deref_mut().and_then(|p| p.get_mut(name)) {
            None => Ok(None),
            Some(v @ Value::Object(_)) => {
                let v = v.take();
                let text = v.to_string();
                Ok(Some((v, text)))
            }
            Some(_) => Err(Error::invalid_params(format!(
                "initialize: {name} must be an object"
            ))),
        };
        let (capabilities, client_info) = match (field("capabilities"), field("clientInfo")) {
            (Ok(c), Ok(i)) => (c.unwrap_or_else(|| (json!({}), "{}".into())), i),
            (Err(e), _) | (_, Err(e)) => return (error_text(Some(&id), e), None),
        };
        // Every request of the session carries both, read as the 2026 types: what does not
        // read so is refused here, where the client sees why, not on each request.
        let info = client_info.as_ref().map(|(_, text)| text.as_str());
        if let Err(why) = client_reads(&capabilities.1, info) {
            return (error_text(Some(&id), Error::invalid_params(why)), None);
        }
        let (info_tree, info_text) = client_info.unzip();
        let hello = Hello {
            id: &id.to_string(),
            version,
            capabilities: capabilities.1.into(),
            client_info: info_text.map(Cow::Owned),
            trees: Some((capabilities.0, info_tree)),
        };
        self.open_session(hello, limits)
    }

    /// Answer a 2025-era `initialize` read without a JSON tree, as [`Server::initialize`] answers
    /// a parsed one; only a request that way has taken, and only on a server that opens 2025-era
    /// sessions.
    pub(crate) fn initialize_read(
        &self,
        request: SessionInitialize<'_>,
        limits: &SessionLimits,
    ) -> (String, Option<Arc<Session>>) {
        let hello = Hello {
            id: request.id,
            version: negotiate(request.requested),
            capabilities: Cow::Borrowed(
                request
                    .capabilities
                    .map_or("{}", serde_json::value::RawValue::get),
            ),
            client_info: request.client_info.map(|raw| Cow::Borrowed(raw.get())),
            trees: None,
        };
        self.open_session(hello, limits)
    }

    /// Open the session an `initialize` asked for, however it was read: the reply text and the
    /// session, or the error reply when what the session would keep is over `limits.bytes`.
    fn open_session(
        &self,
        hello: Hello<'_>,
        limits: &SessionLimits,
    ) -> (String, Option<Arc<Session>>) {
        let budget = limits.bytes;
        let Hello {
            id,
            version,
            capabilities,
            client_info,
            trees,
        } = hello;
        let kept = capabilities.len() + client_info.as_ref().map_or(0, |text| text.len());
        if kept > budget {
            let error = Error::invalid_params(format!(
                "initialize: capabilities and clientInfo take {kept} bytes; a session keeps at most {budget}"
            ));
            let id = crate::wire::from_text::<Value>(id).ok();
            return (error_text(id.as_ref(), error), None);
        }
        let session = Session {
            version: version.to_string(),
            meta_members: meta_members(version, &capabilities, client_info.as_deref()),
            client: trees.map(OnceLock::from).unwrap_or_default(),
            log_level: Mutex::new(None),
            subscriptions: Mutex::default(),
            limits: limits.clone(),
            outbound: Arc::new(Outbound::new(limits.ask_timeout)),
            opened: std::time::Instant::now(),
        };
        // The extensions the server serves now (skills; tasks when a tool can run as one), in
        // `capabilities.extensions` as a 2026 `server/discover` declares them: a 2025-11-25
        // client keeps members its schema does not name.
        let extensions = self
            .extensions()
            .and_then(|e| serde_json::to_string(&e).ok())
            .map(|text| format!(r#","extensions":{text}"#))
            .unwrap_or_default();
        let reply = [
            r#"{"jsonrpc":"2.0","id":"#,
            id,
            r#","result":{"protocolVersion":""#,
            version,
            "\",",
            SESSION_CAPABILITIES,
            &extensions,
            "},",
            &self.session_hello,
            "}}",
        ]
        .concat();
        tracing::info!(version, "2025 session opened");
        (reply, Some(Arc::new(session)))
    }

    /// Take a message of a 2025 session that is not a request (a response to one of the
    /// session's requests, handed to the ask that waits for it; a notification, which needs
    /// nothing): nothing is answered.
    pub(crate) fn accept_in_session(&self, session: &Session, mut message: Map<String, Value>) {
        if message.contains_key("method") {
            return;
        }
        let Some(id) = message.get("id").map(Value::to_string) else {
            return;
        };
        let outcome = match (message.remove("result"), message.remove("error")) {
            (Some(result), None) => serde_json::value::to_raw_value(&result)
                .map_err(|e| Error::internal(format!("the client's result: {e}"))),
            (None, Some(error)) => Err(client_error(crate::wire::from_value_text(&error))),
            _ => Err(Error::invalid_request(
                "a response needs a result or an error",
            )),
        };
        deliver(session, &id, outcome);
    }

    /// Hand a client's response, read without a JSON tree, to the ask of `session` that waits
    /// for it (as [`Server::accept_in_session`] does for a parsed one).
    pub(crate) fn accept_response(&self, session: &Session, response: SessionResponse<'_>) {
        let outcome = match response.outcome {
            Ok(result) => Ok(result.to_owned()),
            Err(error) => Err(client_error(crate::wire::from_text(error.get()))),
        };
        deliver(session, response.id, outcome);
    }

    /// Handle one message of a 2025 session, as the transport parsed it: the reply text to
    /// write back, if any. Responses from the client to the session's own requests are handed to
    /// the asks that wait for them. `out` carries the session's requests to the client and the
    /// request's notifications.
    pub(crate) async fn handle_in_session(
        &self,
        session: &Session,
        mut message: Value,
        principal: Option<&Principal>,
        out: Notifier,
        via: crate::wire::Via,
    ) -> Option<String> {
        let Some(object) = message.as_object_mut() else {
            return Some(error_text(
                None,
                Error::invalid_request("not a JSON-RPC message"),
            ));
        };
        let id = object.get("id").cloned();
        let Some(method) = object
            .get("method")
            .and_then(Value::as_str)
            .map(str::to_string)
        else {
            self.accept_in_session(session, std::mem::take(object));
            return None;
        };
        let Some(id) = id else {
            // Notifications: `initialized`, `cancelled` (the transport's), and the rest.
            return None;
        };
        if let Some(reply) = answer_in_session(session, &method, &id, object) {
            return Some(reply);
        }
        // Everything else is a request the handlers serve: give it the `_meta` a 2026 request
        // would carry, from the session.
        if let Err(error) = give_session_meta(session, object) {
            return Some(error_text(Some(&id), error));
        }
        let text = match serde_json::to_vec(&message) {
            Ok(t) => t,
            Err(e) => return Some(error_text(Some(&id), Error::internal(e.to_string()))),
        };
        self.serve_in_session(session, &text, principal, out, via)
            .await
    }

    /// Serve a request of a 2025 session that a handler answers, `text` being the request
    /// with the session's `_meta` in it: the reply text, shaped for the session's version.
    pub(crate) async fn serve_in_session(
        &self,
        session: &Session,
        text: &[u8],
        principal: Option<&Principal>,
        out: Notifier,
        via: crate::wire::Via,
    ) -> Option<String> {
        let incoming = Incoming::parse(text, &[session.version.as_str()]);
        let live = Live {
            outbound: session.outbound.clone(),
            out: out.clone(),
        };
        let reply = self
            .handle_as(
                incoming,
                Caller {
                    principal,
                    notifier: Some(out),
                    live: Some(live),
                    via,
                },
            )
            .await?;
        Some(session_reply(reply))
    }
}

impl Server {
    /// Send a 2025 session the notifications 2025 clients get unasked: list changes, and
    /// updates of the resources it subscribed to. Runs until `out` closes.
    pub(crate) async fn forward_changes(&self, session: &Session, out: &Notifier) {
        use crate::resume::events::{Change, ListKind};
        use tokio::sync::broadcast::error::RecvError;
        let mut changes = self.changes.subscribe();
        loop {
            let change = tokio::select! {
                _ = out.closed() => return,
                change = changes.recv() => change,
            };
            let note = match change {
                Ok(Change::List(kind)) => {
                    let list = match kind {
                        ListKind::Tools => "tools",
                        ListKind::Prompts => "prompts",
                        ListKind::Resources => "resources",
                    };
                    json!({"jsonrpc": "2.0", "method": format!("notifications/{list}/list_changed")})
                }
                Ok(Change::ResourceUpdated(uri)) if session.subscribed(&uri) => {
                    json!({"jsonrpc": "2.0", "method": "notifications/resources/updated",
                           "params": {"uri": uri}})
                }
                Ok(_) | Err(RecvError::Lagged(_)) => continue,
                Err(RecvError::Closed) => return,
            };
            out.send(note.to_string());
        }
    }
}

/// A reply shaped for a 2025-era peer, as text: the result without the fields 2026 added, an
/// error with a code 2025-era peers know. Written from the typed reply in one pass.
fn session_reply(reply: Reply) -> String {
    match reply {
        Reply::Result(id, mut result) => {
            if strip_stateless_only(&mut result) {
                Reply::Result(id, result).to_json()
            } else {
                // A result this runtime does not shape by type: through its JSON.
                let mut value = Reply::Result(id, result).to_value();
                if let Some(result) = value.get_mut("result") {
                    *result = session_result(result.take());
                }
                value.to_string()
            }
        }
        Reply::Error(mut e) => {
            e.error.code = session_code(e.error.code);
            Reply::Error(e).to_json()
        }
    }
}

/// Drop what a 2025-era peer does not know from `result` (`resultType`, the cache hints);
/// false for a kind of result not handled here.
fn strip_stateless_only(result: &mut ServerResult) -> bool {
    fn extra(extra: &mut Map<String, Value>) {
        if !extra.is_empty() {
            for key in STATELESS_ONLY {
                extra.remove(key);
            }
        }
    }
    macro_rules! plain {
        ($r:expr) => {{
            $r.result_type = None;
            extra(&mut $r.extra);
        }};
    }
    macro_rules! cached {
        ($r:expr) => {{
            $r.result_type = None;
            $r.ttl_ms = None;
            $r.cache_scope = None;
            extra(&mut $r.extra);
        }};
    }
    match result {
        ServerResult::Result(r) => plain!(r),
        ServerResult::CallToolResult(r) => plain!(r),
        ServerResult::CompleteResult(r) => plain!(r),
        ServerResult::GetPromptResult(r) => plain!(r),
        ServerResult::SubscriptionsListenResult(r) => plain!(r),
        ServerResult::DiscoverResult(r) => cached!(r),
        ServerResult::ListPromptsResult(r) => cached!(r),
        ServerResult::ListResourcesResult(r) => cached!(r),
        ServerResult::ListResourceTemplatesResult(r) => cached!(r),
        ServerResult::ListToolsResult(r) => cached!(r),
        ServerResult::ReadResourceResult(r) => cached!(r),
        _ => return false,
    }
    true
}

/// The reply to a request the 2025 session answers itself (`ping`, `initialize` again,
/// `logging/setLevel`, `resources/subscribe` and `unsubscribe`, and the 2026-only methods it
/// refuses); none for a request the handlers serve.
fn answer_in_session(
    session: &Session,
    method: &str,
    id: &Value,
    object: &Map<String, Value>,
) -> Option<String> {
    let simple = |result: Value| Some(result_text(id, result));
    match method {
        "ping" => simple(json!({})),
        "initialize" => Some(error_text(
            Some(id),
            Error::invalid_request("the session is already initialized"),
        )),
        "logging/setLevel" => {
            let level = object.get("params").and_then(|p| p.get("level")).cloned();
            match level.filter(|l| crate::wire::from_value_text::<LoggingLevel>(l).is_ok()) {
                Some(level) => *lock(&session.log_level) = Some(level),
                None => {
                    let error = Error::invalid_params("logging/setLevel needs a level");
                    return Some(error_text(Some(id), error));
                }
            }
            simple(json!({}))
        }
        "resources/subscribe" | "resources/unsubscribe" => {
            let uri = object
                .get("params")
                .and_then(|p| p.get("uri"))
                .and_then(Value::as_str);
            let Some(uri) = uri else {
                let error = Error::invalid_params(format!("{method} needs a uri"));
                return Some(error_text(Some(id), error));
            };
            let mut subscriptions = lock(&session.subscriptions);
            if method == "resources/unsubscribe" {
                subscriptions.retain(|s| s != uri);
            } else if !subscriptions.iter().any(|s| s == uri) {
                // Counted before anything is kept: a session holds what it subscribed to
                // for its whole life.
                let kept = subscriptions.iter().map(String::as_str);
                let within = subscriptions_within(method, kept.chain([uri]), &session.limits);
                if let Err(error) = within {
                    return Some(error_text(Some(id), error));
                }
                subscriptions.push(uri.to_string());
            }
            simple(json!({}))
        }
        // 2026-only methods; a 2025 session has its own ways.
        "subscriptions/listen" | "server/discover" => {
            Some(error_text(Some(id), Error::method_not_found(method)))
        }
        _ => None,
    }
}

/// Give a request of the 2025 session the `_meta` a 2026 request would carry: the session's
/// version, the client's capabilities and info, and its log level.
fn give_session_meta(session: &Session, object: &mut Map<String, Value>) -> Result<(), Error> {
    let params = object
        .entry("params")
        .or_insert_with(|| Value::Object(Map::new()));
    let Some(params) = params.as_object_mut() else {
        return Err(Error::invalid_params("params must be an object"));
    };
    let meta = params
        .entry("_meta")
        .or_insert_with(|| Value::Object(Map::new()));
    let Some(meta) = meta.as_object_mut() else {
        return Err(Error::invalid_params("_meta must be an object"));
    };
    meta.insert(crate::wire::META_VERSION.into(), json!(session.version));
    let (capabilities, client_info) = session.client();
    meta.insert(crate::wire::META_CAPS.into(), capabilities.clone());
    match client_info {
        Some(client_info) => meta.insert(crate::wire::META_CLIENT_INFO.into(), client_info.clone()),
        // One the client wrote itself is not the session's either.
        None => meta.remove(crate::wire::META_CLIENT_INFO),
    };
    if let Some(level) = lock(&session.log_level).clone() {
        meta.insert(crate::wire::META_LOG_LEVEL.into(), level);
    }
    Ok(())
}
