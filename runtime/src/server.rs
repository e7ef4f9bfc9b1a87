//! The stateless server core: one JSON-RPC message in, at most one out. Validates `_meta`,
//! routes to tools, prompts and resources, and runs MRTR rounds through the engine with the
//! journal sealed into `requestState`. Transports call [`Server::handle_message`].

use crate::engine::{self, Call, CallState, Outcome, RequestInfo};
use crate::handler::{match_template, PromptHandler, ResourceHandler, ToolHandler};
use crate::state::{Binding, StateCodec, StateError, StateKeys};
use indexmap::IndexMap;
use mcp_schema::{
    methods, CacheScope, DiscoverResult, Error, Implementation, InputRequiredResult,
    JSONRPCErrorResponse, RequestId, RequestMetaObject, ResultType, ServerCapabilities,
    LATEST_PROTOCOL_VERSION,
};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::sync::Arc;
use std::time::Duration;

/// `_meta` keys of a request.
pub(crate) const META_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
pub(crate) const META_CAPS: &str = "io.modelcontextprotocol/clientCapabilities";
pub(crate) const META_LOG_LEVEL: &str = "io.modelcontextprotocol/logLevel";
pub(crate) const META_PROGRESS_TOKEN: &str = "progressToken";

/// Which list changed, for `subscriptions/listen` streams.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ListKind {
    /// `notifications/tools/list_changed`.
    Tools,
    /// `notifications/prompts/list_changed`.
    Prompts,
    /// `notifications/resources/list_changed`.
    Resources,
}

impl ListKind {
    fn method(self) -> &'static str {
        match self {
            ListKind::Tools => methods::NOTIFICATIONS_TOOLS_LIST_CHANGED,
            ListKind::Prompts => methods::NOTIFICATIONS_PROMPTS_LIST_CHANGED,
            ListKind::Resources => methods::NOTIFICATIONS_RESOURCES_LIST_CHANGED,
        }
    }

    fn filter_key(self) -> &'static str {
        match self {
            ListKind::Tools => "toolsListChanged",
            ListKind::Prompts => "promptsListChanged",
            ListKind::Resources => "resourcesListChanged",
        }
    }
}

/// What `subscriptions/listen` streams are told about: a list change, or an update of one
/// resource (delivered to streams subscribed to its URI or to a URI it lies under).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Change {
    List(ListKind),
    ResourceUpdated(String),
}

/// Whether an update of `uri` concerns a subscription to `subscribed`: the same URI, or a
/// sub-resource of it (the rest starts a new path segment, query or fragment).
fn covers(subscribed: &str, uri: &str) -> bool {
    match uri.strip_prefix(subscribed) {
        Some("") => true,
        Some(rest) => subscribed.ends_with('/') || rest.starts_with(['/', '?', '#']),
        None => false,
    }
}

/// Protocol versions this server speaks.
pub const SUPPORTED_VERSIONS: &[&str] = &[LATEST_PROTOCOL_VERSION];

struct Registered<H: ?Sized> {
    handler: Arc<H>,
    /// The descriptor as listed, serialized once at registration.
    listing: Value,
    /// For resources: whether the URI is a template (listed by `resources/templates/list`).
    template: bool,
}

/// A configured MCP server. Cheap to share: wrap it in an `Arc` and call it from any task.
pub struct Server {
    info: Implementation,
    instructions: Option<String>,
    tools: IndexMap<String, Registered<dyn ToolHandler>>,
    prompts: IndexMap<String, Registered<dyn PromptHandler>>,
    resources: Vec<Registered<dyn ResourceHandler>>,
    codec: StateCodec,
    list_ttl_ms: i64,
    page_size: usize,
    completion: Option<CompletionFn>,
    changes: tokio::sync::broadcast::Sender<Change>,
}

/// Completes an argument: (prompt name or resource template URI, argument name, partial value)
/// to suggestions, best first.
pub type CompletionFn = Arc<dyn Fn(&str, &str, &str) -> Vec<String> + Send + Sync>;

/// Builds a [`Server`]: `Server::builder().name(..).version(..).tool(t).build()`.
pub struct ServerBuilder {
    name: String,
    version: String,
    instructions: Option<String>,
    tools: Vec<Arc<dyn ToolHandler>>,
    prompts: Vec<Arc<dyn PromptHandler>>,
    resources: Vec<Arc<dyn ResourceHandler>>,
    keys: Option<StateKeys>,
    state_ttl: Duration,
    codec_hook: Option<Box<dyn FnOnce(StateCodec) -> StateCodec>>,
    completion: Option<CompletionFn>,
    page_size: usize,
}

impl Server {
    /// Start building a server.
    pub fn builder() -> ServerBuilder {
        ServerBuilder {
            name: "mcp-server".into(),
            version: "0.0.0".into(),
            instructions: None,
            tools: Vec::new(),
            prompts: Vec::new(),
            resources: Vec::new(),
            keys: None,
            state_ttl: StateCodec::DEFAULT_TTL,
            codec_hook: None,
            completion: None,
            page_size: 100,
        }
    }
}

impl ServerBuilder {
    /// The server's name in `serverInfo`.
    pub fn name(mut self, name: impl Into<String>) -> Self {
        self.name = name.into();
        self
    }

    /// The server's version in `serverInfo`.
    pub fn version(mut self, version: impl Into<String>) -> Self {
        self.version = version.into();
        self
    }

    /// Instructions returned by `server/discover`.
    pub fn instructions(mut self, text: impl Into<String>) -> Self {
        self.instructions = Some(text.into());
        self
    }

    /// Register a tool (a `#[mcp_tool]` function).
    pub fn tool(mut self, tool: impl ToolHandler) -> Self {
        self.tools.push(Arc::new(tool));
        self
    }

    /// Register a prompt (a `#[mcp_prompt]` function).
    pub fn prompt(mut self, prompt: impl PromptHandler) -> Self {
        self.prompts.push(Arc::new(prompt));
        self
    }

    /// Register a resource or template (a `#[mcp_resource]` function).
    pub fn resource(mut self, resource: impl ResourceHandler) -> Self {
        self.resources.push(Arc::new(resource));
        self
    }

    /// The key ring that seals `requestState`. Give every instance the same ring so a retry can
    /// land on any of them. Without it, a random key is made at start (and logged).
    pub fn state_keys(mut self, keys: StateKeys) -> Self {
        self.keys = Some(keys);
        self
    }

    /// How long a `requestState` stays valid (default five minutes).
    pub fn state_ttl(mut self, ttl: Duration) -> Self {
        self.state_ttl = ttl;
        self
    }

    /// How many tools, prompts or resources one list page holds (default 100).
    pub fn page_size(mut self, n: usize) -> Self {
        self.page_size = n.max(1);
        self
    }

    /// Answer `completion/complete` with `f(reference, argument, partial value)`.
    pub fn completion(
        mut self,
        f: impl Fn(&str, &str, &str) -> Vec<String> + Send + Sync + 'static,
    ) -> Self {
        self.completion = Some(Arc::new(f));
        self
    }

    /// Further codec settings (size cap, single use).
    pub fn state_codec(mut self, f: impl FnOnce(StateCodec) -> StateCodec + 'static) -> Self {
        self.codec_hook = Some(Box::new(f));
        self
    }

    /// Build the server. Fails only when no random state key can be made.
    pub fn build(self) -> Result<Server, crate::state::StateKeyError> {
        let keys = match self.keys {
            Some(k) => k,
            None => {
                tracing::warn!("no state keys configured: using a random key; MRTR flows will not survive a restart or move between instances");
                StateKeys::random()?
            }
        };
        let mut codec = StateCodec::new(keys).ttl(self.state_ttl);
        if let Some(hook) = self.codec_hook {
            codec = hook(codec);
        }
        let listing = |v: Result<Value, serde_json::Error>| v.unwrap_or(Value::Null);
        let tools = self
            .tools
            .into_iter()
            .map(|h| {
                let t = h.tool();
                (
                    t.name.clone(),
                    Registered {
                        listing: listing(serde_json::to_value(&t)),
                        handler: h,
                        template: false,
                    },
                )
            })
            .collect();
        let prompts = self
            .prompts
            .into_iter()
            .map(|h| {
                let p = h.prompt();
                (
                    p.name.clone(),
                    Registered {
                        listing: listing(serde_json::to_value(&p)),
                        handler: h,
                        template: false,
                    },
                )
            })
            .collect();
        let resources = self
            .resources
            .into_iter()
            .map(|h| {
                let (l, template) = match (h.resource(), h.template()) {
                    (Some(r), _) => (listing(serde_json::to_value(r)), false),
                    (None, Some(t)) => (listing(serde_json::to_value(t)), true),
                    (None, None) => (Value::Null, false),
                };
                Registered {
                    listing: l,
                    handler: h,
                    template,
                }
            })
            .collect();
        Ok(Server {
            info: Implementation {
                description: None,
                icons: None,
                name: self.name,
                title: None,
                version: self.version,
                website_url: None,
                extra: Map::new(),
            },
            instructions: self.instructions,
            tools,
            prompts,
            resources,
            codec,
            list_ttl_ms: 60_000,
            page_size: self.page_size,
            completion: self.completion,
            changes: tokio::sync::broadcast::channel(64).0,
        })
    }
}

/// A parsed request envelope.
struct Envelope {
    id: RequestId,
    method: String,
    params: Map<String, Value>,
}

/// The outcome of handling one message: a response to write, or nothing (notifications).
pub type Reply = Option<Value>;

/// The JSON-RPC error response to request `id` (none when it could not be read).
pub(crate) fn error_reply(id: Option<RequestId>, error: Error) -> Reply {
    serde_json::to_value(JSONRPCErrorResponse::new(id, error)).ok()
}

fn result_reply(id: RequestId, result: &impl Serialize) -> Reply {
    match serde_json::to_value(result) {
        Ok(Value::Object(map)) => {
            let mut out = Map::new();
            out.insert("jsonrpc".into(), "2.0".into());
            out.insert(
                "id".into(),
                serde_json::to_value(&id).unwrap_or(Value::Null),
            );
            out.insert("result".into(), Value::Object(map));
            Some(Value::Object(out))
        }
        _ => error_reply(Some(id), Error::internal("result does not serialize")),
    }
}

impl Server {
    /// Handle one JSON-RPC message given as text; the reply to write back, if any. Never panics
    /// on input: malformed JSON, batches and unknown methods get their JSON-RPC errors.
    pub async fn handle_message(&self, text: &str, principal: Option<&str>) -> Reply {
        let value: Value = match serde_json::from_str(text) {
            Ok(v) => v,
            Err(e) => return error_reply(None, Error::parse_error(format!("parse error: {e}"))),
        };
        self.handle_value(value, principal).await
    }

    /// Handle one parsed JSON-RPC message.
    pub async fn handle_value(&self, value: Value, principal: Option<&str>) -> Reply {
        self.handle_value_with(value, principal, None).await
    }

    /// Handle one parsed JSON-RPC message, sending the notifications its handler emits
    /// (progress, log messages) to `notifier` before the reply.
    pub async fn handle_value_with(
        &self,
        value: Value,
        principal: Option<&str>,
        notifier: Option<tokio::sync::mpsc::UnboundedSender<Value>>,
    ) -> Reply {
        let env = match self.envelope(value) {
            Ok(Some(env)) => env,
            Ok(None) => return None,
            Err(reply) => return reply,
        };
        let id = env.id.clone();
        match self.dispatch(env, principal, notifier).await {
            Ok(reply) => reply,
            Err(e) => error_reply(Some(id), e),
        }
    }

    /// Check the JSON-RPC envelope; `Ok(None)` for notifications and responses (no reply).
    fn envelope(&self, value: Value) -> Result<Option<Envelope>, Reply> {
        let Value::Object(mut obj) = value else {
            let what = if value.is_array() {
                "batches are not supported"
            } else {
                "not a JSON-RPC object"
            };
            return Err(error_reply(None, Error::invalid_request(what)));
        };
        let id = match obj.get("id") {
            None => None,
            Some(v) => match serde_json::from_value::<RequestId>(v.clone()) {
                Ok(id) => Some(id),
                Err(_) => return Err(error_reply(None, Error::invalid_request("invalid id"))),
            },
        };
        if obj.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
            return Err(error_reply(
                id,
                Error::invalid_request("jsonrpc must be \"2.0\""),
            ));
        }
        let Some(method) = obj
            .get("method")
            .and_then(Value::as_str)
            .map(str::to_string)
        else {
            if obj.contains_key("result") || obj.contains_key("error") {
                // A response: servers send no requests, so there is nothing it can answer.
                return Ok(None);
            }
            return Err(error_reply(id, Error::invalid_request("missing method")));
        };
        let Some(id) = id else {
            // A notification (e.g. notifications/cancelled): nothing to answer.
            return Ok(None);
        };
        let params = match obj.remove("params") {
            None => Map::new(),
            Some(Value::Object(m)) => m,
            Some(_) => {
                return Err(error_reply(
                    Some(id),
                    Error::invalid_params("params must be an object"),
                ))
            }
        };
        Ok(Some(Envelope { id, method, params }))
    }

    /// Validate `_meta`: protocol version (supported) and client capabilities (present).
    fn meta(&self, params: &Map<String, Value>) -> Result<RequestMetaObject, Error> {
        let Some(meta) = params.get("_meta").and_then(Value::as_object) else {
            return Err(Error::invalid_params(format!(
                "missing _meta with {META_VERSION} and {META_CAPS}"
            )));
        };
        let version = meta
            .get(META_VERSION)
            .and_then(Value::as_str)
            .ok_or_else(|| Error::invalid_params(format!("missing _meta[\"{META_VERSION}\"]")))?;
        if !SUPPORTED_VERSIONS.contains(&version) {
            return Err(Error::unsupported_protocol_version(
                version,
                SUPPORTED_VERSIONS,
            ));
        }
        if !meta.get(META_CAPS).is_some_and(Value::is_object) {
            return Err(Error::invalid_params(format!(
                "missing _meta[\"{META_CAPS}\"]"
            )));
        }
        params
            .get("_meta")
            .map(RequestMetaObject::deserialize)
            .unwrap_or_else(|| Err(serde::de::Error::custom("missing")))
            .map_err(|e| Error::invalid_params(format!("invalid _meta: {e}")))
    }

    async fn dispatch(
        &self,
        env: Envelope,
        principal: Option<&str>,
        notifier: Option<tokio::sync::mpsc::UnboundedSender<Value>>,
    ) -> Result<Reply, Error> {
        let Envelope { id, method, params } = env;
        let meta = match method.as_str() {
            methods::SERVER_DISCOVER
            | methods::TOOLS_LIST
            | methods::TOOLS_CALL
            | methods::PROMPTS_LIST
            | methods::PROMPTS_GET
            | methods::RESOURCES_LIST
            | methods::RESOURCES_TEMPLATES_LIST
            | methods::RESOURCES_READ
            | methods::COMPLETION_COMPLETE
            | methods::SUBSCRIPTIONS_LISTEN => self.meta(&params)?,
            _ => return Err(Error::method_not_found(&method)),
        };
        let reply = match method.as_str() {
            methods::SERVER_DISCOVER => result_reply(id, &self.discover()),
            methods::TOOLS_LIST => {
                let items = self.tools.values().map(|t| &t.listing);
                result_reply(id, &self.page(items, &params, "tools")?)
            }
            methods::PROMPTS_LIST => {
                let items = self.prompts.values().map(|p| &p.listing);
                result_reply(id, &self.page(items, &params, "prompts")?)
            }
            methods::RESOURCES_LIST => {
                let items = self
                    .resources
                    .iter()
                    .filter(|r| !r.template)
                    .map(|r| &r.listing);
                result_reply(id, &self.page(items, &params, "resources")?)
            }
            methods::RESOURCES_TEMPLATES_LIST => {
                let items = self
                    .resources
                    .iter()
                    .filter(|r| r.template)
                    .map(|r| &r.listing);
                result_reply(id, &self.page(items, &params, "resourceTemplates")?)
            }
            methods::COMPLETION_COMPLETE => result_reply(id, &self.complete(&params)?),
            methods::SUBSCRIPTIONS_LISTEN => {
                let Some(out) = notifier else {
                    return Err(Error::invalid_request(
                        "subscriptions/listen needs a streaming transport",
                    ));
                };
                self.listen(id, &params, out).await?
            }
            _ => {
                self.mrtr(id, &method, params, meta, principal, notifier)
                    .await?
            }
        };
        Ok(reply)
    }

    fn discover(&self) -> DiscoverResult {
        let mut caps = serde_json::json!({
            "tools": {"listChanged": true},
            "prompts": {"listChanged": true},
            "resources": {"listChanged": true, "subscribe": true},
            "logging": {}
        });
        if self.completion.is_some() {
            caps["completions"] = serde_json::json!({});
        }
        DiscoverResult {
            meta: Some(mcp_schema::ResultMetaObject {
                server_info: Some(self.info.clone()),
                extra: Map::new(),
            }),
            cache_scope: Some(CacheScope::Public),
            capabilities: serde_json::from_value::<ServerCapabilities>(caps).unwrap_or_default(),
            instructions: self.instructions.clone(),
            result_type: Some(ResultType::Complete),
            supported_versions: SUPPORTED_VERSIONS.iter().map(|v| v.to_string()).collect(),
            ttl_ms: Some(self.list_ttl_ms),
            extra: Map::new(),
        }
    }

    /// One page of a listing: `cursor` (opaque to clients) is the offset of the page.
    fn page<'a>(
        &self,
        items: impl Iterator<Item = &'a Value>,
        params: &Map<String, Value>,
        key: &str,
    ) -> Result<Value, Error> {
        use base64::Engine as _;
        let engine = base64::engine::general_purpose::URL_SAFE_NO_PAD;
        let start = match params.get("cursor") {
            None | Some(Value::Null) => 0,
            Some(Value::String(c)) => engine
                .decode(c)
                .ok()
                .and_then(|b| String::from_utf8(b).ok())
                .and_then(|s| s.strip_prefix("o:").and_then(|n| n.parse::<usize>().ok()))
                .ok_or_else(|| Error::invalid_params("invalid cursor"))?,
            Some(_) => return Err(Error::invalid_params("cursor must be a string")),
        };
        let mut page: Vec<Value> = items
            .skip(start)
            .take(self.page_size + 1)
            .cloned()
            .collect();
        let more = page.len() > self.page_size;
        page.truncate(self.page_size);
        let mut m = Map::new();
        m.insert(key.into(), Value::Array(page));
        if more {
            let next = engine.encode(format!("o:{}", start + self.page_size));
            m.insert("nextCursor".into(), Value::String(next));
        }
        m.insert("ttlMs".into(), self.list_ttl_ms.into());
        m.insert("cacheScope".into(), "public".into());
        m.insert("resultType".into(), "complete".into());
        Ok(Value::Object(m))
    }

    /// Announce a list change to every open `subscriptions/listen` stream that asked for it.
    pub fn notify_list_changed(&self, kind: ListKind) {
        let _ = self.changes.send(Change::List(kind));
    }

    /// Announce that the resource at `uri` changed, with `notifications/resources/updated`, to
    /// every open `subscriptions/listen` stream subscribed to it or to a URI it lies under.
    pub fn notify_resource_updated(&self, uri: impl Into<String>) {
        let _ = self.changes.send(Change::ResourceUpdated(uri.into()));
    }

    /// The part of a `subscriptions/listen` filter this server honours: the list changes asked
    /// for (of kinds it has something registered for) and the resource subscriptions (when it
    /// has resources); anything else is left out, as the acknowledgement must.
    fn honoured(&self, requested: &Map<String, Value>) -> Result<Map<String, Value>, Error> {
        let mut out = Map::new();
        for (kind, has) in [
            (ListKind::Tools, !self.tools.is_empty()),
            (ListKind::Prompts, !self.prompts.is_empty()),
            (ListKind::Resources, !self.resources.is_empty()),
        ] {
            if has && requested.get(kind.filter_key()) == Some(&Value::Bool(true)) {
                out.insert(kind.filter_key().into(), Value::Bool(true));
            }
        }
        if let Some(uris) = requested.get("resourceSubscriptions") {
            let uris = uris
                .as_array()
                .filter(|a| a.iter().all(Value::is_string))
                .ok_or_else(|| {
                    Error::invalid_params(
                        "subscriptions/listen: resourceSubscriptions must be an array of URIs",
                    )
                })?;
            if !self.resources.is_empty() {
                out.insert("resourceSubscriptions".into(), Value::Array(uris.clone()));
            }
        }
        Ok(out)
    }

    /// Serve a `subscriptions/listen` stream on `out`: the acknowledgement first, then the
    /// list changes the filter asks for, each tagged with the subscription id, until `out` closes.
    async fn listen(
        &self,
        id: RequestId,
        params: &Map<String, Value>,
        out: tokio::sync::mpsc::UnboundedSender<Value>,
    ) -> Result<Reply, Error> {
        let filter = match params.get("notifications") {
            Some(Value::Object(f)) => self.honoured(f)?,
            _ => {
                return Err(Error::invalid_params(
                    "subscriptions/listen: missing notifications filter",
                ))
            }
        };
        let subscribed: Vec<String> = filter
            .get("resourceSubscriptions")
            .and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .filter_map(Value::as_str)
                    .map(str::to_string)
                    .collect()
            })
            .unwrap_or_default();
        let sub_id = serde_json::to_value(&id).unwrap_or(Value::Null);
        let meta = serde_json::json!({ "io.modelcontextprotocol/subscriptionId": sub_id });
        let mut rx = self.changes.subscribe();
        let ack = serde_json::json!({
            "jsonrpc": "2.0",
            "method": methods::NOTIFICATIONS_SUBSCRIPTIONS_ACKNOWLEDGED,
            "params": {"_meta": meta, "notifications": Value::Object(filter.clone())}
        });
        if out.send(ack).is_err() {
            return Ok(None);
        }
        loop {
            tokio::select! {
                _ = out.closed() => return Ok(None),
                change = rx.recv() => match change {
                    Ok(change) => {
                        let note = match change {
                            Change::List(kind)
                                if filter.get(kind.filter_key()) == Some(&Value::Bool(true)) =>
                            {
                                serde_json::json!({
                                    "jsonrpc": "2.0", "method": kind.method(), "params": {"_meta": meta}
                                })
                            }
                            Change::ResourceUpdated(uri)
                                if subscribed.iter().any(|s| covers(s, &uri)) =>
                            {
                                serde_json::json!({
                                    "jsonrpc": "2.0",
                                    "method": methods::NOTIFICATIONS_RESOURCES_UPDATED,
                                    "params": {"_meta": meta, "uri": uri}
                                })
                            }
                            _ => continue,
                        };
                        if out.send(note).is_err() {
                            return Ok(None);
                        }
                    }
                    Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => continue,
                    Err(tokio::sync::broadcast::error::RecvError::Closed) => return Ok(None),
                },
            }
        }
    }

    fn complete(&self, params: &Map<String, Value>) -> Result<mcp_schema::CompleteResult, Error> {
        let reference = params.get("ref").and_then(Value::as_object);
        let target = reference
            .and_then(|r| r.get("name").or_else(|| r.get("uri")))
            .and_then(Value::as_str)
            .ok_or_else(|| Error::invalid_params("completion/complete: missing ref name or uri"))?;
        let argument = params.get("argument").and_then(Value::as_object);
        let name = argument
            .and_then(|a| a.get("name"))
            .and_then(Value::as_str)
            .unwrap_or("");
        let value = argument
            .and_then(|a| a.get("value"))
            .and_then(Value::as_str)
            .unwrap_or("");
        let mut values = match &self.completion {
            Some(f) => f(target, name, value),
            None => Vec::new(),
        };
        let total = values.len();
        values.truncate(100);
        Ok(mcp_schema::CompleteResult {
            meta: None,
            completion: mcp_schema::CompleteResultCompletion {
                has_more: Some(total > values.len()),
                total: Some(total as i64),
                values,
                extra: Map::new(),
            },
            result_type: Some(ResultType::Complete),
            extra: Map::new(),
        })
    }

    /// `tools/call`, `prompts/get` and `resources/read`: the methods that may take MRTR rounds.
    async fn mrtr(
        &self,
        id: RequestId,
        method: &str,
        mut params: Map<String, Value>,
        meta: RequestMetaObject,
        principal: Option<&str>,
        notifier: Option<tokio::sync::mpsc::UnboundedSender<Value>>,
    ) -> Result<Reply, Error> {
        let responses = match params.remove("inputResponses") {
            None | Some(Value::Null) => IndexMap::new(),
            Some(Value::Object(m)) => m.into_iter().collect(),
            Some(_) => return Err(Error::invalid_params("inputResponses must be an object")),
        };
        let state = match params.remove("requestState") {
            None | Some(Value::Null) => None,
            Some(Value::String(s)) => Some(s),
            Some(_) => return Err(Error::invalid_params("requestState must be a string")),
        };
        let (target, arguments) = match method {
            methods::RESOURCES_READ => {
                let uri = params
                    .get("uri")
                    .and_then(Value::as_str)
                    .ok_or_else(|| Error::invalid_params("resources/read: missing uri"))?;
                (uri.to_string(), Map::new())
            }
            _ => {
                let name = params
                    .get("name")
                    .and_then(Value::as_str)
                    .ok_or_else(|| Error::invalid_params(format!("{method}: missing name")))?;
                let args = match params.get("arguments") {
                    None | Some(Value::Null) => Map::new(),
                    Some(Value::Object(m)) => m.clone(),
                    Some(_) => {
                        return Err(Error::invalid_params(format!(
                            "{method}: arguments must be an object"
                        )))
                    }
                };
                (name.to_string(), args)
            }
        };
        let fingerprint = match method {
            methods::TOOLS_CALL => self
                .tools
                .get(&target)
                .map(|t| t.handler.fingerprint())
                .ok_or_else(|| Error::invalid_params(format!("unknown tool: {target}")))?,
            methods::PROMPTS_GET => self
                .prompts
                .get(&target)
                .map(|p| p.handler.fingerprint())
                .ok_or_else(|| Error::invalid_params(format!("unknown prompt: {target}")))?,
            _ => self
                .find_resource(&target)
                .map(|(r, _)| r.fingerprint())
                .ok_or_else(|| {
                    Error::invalid_params("Resource not found")
                        .with_data(serde_json::json!({ "uri": target }))
                })?,
        };
        let args_value = Value::Object(arguments.clone());
        let binding = Binding {
            method,
            target: &target,
            arguments: (method != methods::RESOURCES_READ).then_some(&args_value),
            principal,
            protocol_version: &meta.protocol_version,
        };
        let journal = match &state {
            None => IndexMap::new(),
            Some(token) => match self.codec.open(token, &binding) {
                Ok(sealed) if sealed.recorded_by(fingerprint) => sealed.journal,
                Ok(_) => {
                    tracing::info!(
                        method,
                        target,
                        "handler changed since the state was sealed; starting the call over"
                    );
                    IndexMap::new()
                }
                Err(e) => {
                    log_state_error(&e, method, &target);
                    return Err(Error::invalid_params("invalid requestState"));
                }
            },
        };
        let info = RequestInfo {
            method: method.to_string(),
            target: target.clone(),
            capabilities: meta.client_capabilities.clone(),
            protocol_version: meta.protocol_version.clone(),
            principal: principal.map(str::to_string),
            meta: params
                .get("_meta")
                .and_then(Value::as_object)
                .cloned()
                .unwrap_or_default(),
        };
        let call = Call::new(CallState {
            info,
            responses,
            journal,
            notifier,
            changes: Some(self.changes.clone()),
            ..Default::default()
        });
        macro_rules! finish {
            ($outcome:expr) => {
                match $outcome {
                    Outcome::Done(Ok(result)) => {
                        let mut reply = result_reply(id, &result);
                        if method == methods::RESOURCES_READ {
                            // Cache hints on every complete read (never on input_required).
                            if let Some(Value::Object(r)) = reply.as_mut().and_then(|v| v.get_mut("result")) {
                                r.entry("ttlMs").or_insert(0.into());
                                r.entry("cacheScope").or_insert("private".into());
                            }
                        }
                        Ok(reply)
                    }
                    Outcome::Done(Err(e)) => Err(e),
                    Outcome::Suspended { requests, journal } => {
                        let token = self
                            .codec
                            .seal(&binding, fingerprint, &journal)
                            .map_err(|e| match e {
                                StateError::Oversize(n) => Error::internal(format!(
                                    "the call's requestState would be {n} bytes, over the size cap"
                                )),
                                other => Error::internal(other.to_string()),
                            })?;
                        let mut result = InputRequiredResult::new().with_state(token);
                        result.input_requests = Some(requests);
                        Ok(result_reply(id, &result))
                    }
                }
            };
        }
        match method {
            methods::TOOLS_CALL => {
                let h = self.tools[&target].handler.clone();
                finish!(engine::run(call, h.call(arguments)).await)
            }
            methods::PROMPTS_GET => {
                let h = self.prompts[&target].handler.clone();
                finish!(engine::run(call, h.get(arguments)).await)
            }
            _ => {
                let (h, vars) = self
                    .find_resource(&target)
                    .ok_or_else(|| Error::internal("resource vanished"))?;
                finish!(engine::run(call, h.read(target.clone(), vars)).await)
            }
        }
    }

    fn find_resource(&self, uri: &str) -> Option<(Arc<dyn ResourceHandler>, Map<String, Value>)> {
        self.resources.iter().find_map(|r| {
            match_template(r.handler.uri_template(), uri).map(|vars| (r.handler.clone(), vars))
        })
    }

    /// Serve on stdin/stdout until end of input.
    pub async fn serve_stdio(self) -> std::io::Result<()> {
        crate::stdio::serve(Arc::new(self)).await
    }

    /// Serve streamable HTTP at `http://{addr}/mcp` until ctrl-c (bind `127.0.0.1:PORT` unless
    /// the server must be reachable from elsewhere; then set `allowed_hosts` accordingly).
    pub async fn serve_http(self, addr: &str) -> std::io::Result<()> {
        crate::http::serve(Arc::new(self), addr, Default::default()).await
    }

    /// An axum router serving this server at `/mcp`, to merge into an existing app.
    pub fn into_router(self) -> axum::Router {
        crate::http::router(Arc::new(self), Default::default())
    }

    /// The names of the registered tools, in registration order.
    pub fn tool_names(&self) -> Vec<&str> {
        self.tools.keys().map(String::as_str).collect()
    }

    /// The arguments of `tool` that HTTP clients mirror in `Mcp-Param-<header>` headers (its
    /// `inputSchema` properties carrying `x-mcp-header`), as (argument, header name).
    pub fn header_params(&self, tool: &str) -> Vec<(String, String)> {
        self.tools
            .get(tool)
            .map(|t| header_params_of(&t.listing))
            .unwrap_or_default()
    }
}

/// The (argument, header name) pairs a tool listing declares with `x-mcp-header` on its
/// `inputSchema` properties; the server checks them, the client sends them.
pub(crate) fn header_params_of(tool: &Value) -> Vec<(String, String)> {
    tool.get("inputSchema")
        .and_then(|s| s.get("properties"))
        .and_then(Value::as_object)
        .map(|props| {
            props
                .iter()
                .filter_map(|(arg, p)| {
                    p.get("x-mcp-header")
                        .and_then(Value::as_str)
                        .map(|h| (arg.clone(), h.to_string()))
                })
                .collect()
        })
        .unwrap_or_default()
}

fn log_state_error(e: &StateError, method: &str, target: &str) {
    tracing::warn!(method, target, reason = %e, "rejected requestState");
}
