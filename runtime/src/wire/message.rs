//! One JSON-RPC message in ([`Incoming`]) and one out ([`Reply`]), in the generated types.
//!
//! A well-formed request is parsed once, straight into `ClientRequest`. Anything else takes a
//! slower path that reads the message as far as it can to give the precise error, in the order
//! the protocol asks for: envelope (-32700, -32600), method (-32601), protocol version (-32022,
//! so a request of another version is told which versions are spoken before anything else is
//! said about its shape), then the parameters (-32602).

use super::meta::{META_CAPS, META_VERSION};
use oxmcp_schema::{
    methods, ClientRequest, Error, InputResponse, JSONRPCErrorResponse, JSONRPCMessage,
    JSONRPCNotification, JSONRPCRequest, RequestId, RequestMetaObject, ServerResult,
};
use serde_core::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// The requests a 2026-07-28 client may send (the members of `ClientRequest`).
const REQUEST_METHODS: [&str; 10] = [
    methods::SERVER_DISCOVER,
    methods::TOOLS_LIST,
    methods::TOOLS_CALL,
    methods::PROMPTS_LIST,
    methods::PROMPTS_GET,
    methods::RESOURCES_LIST,
    methods::RESOURCES_TEMPLATES_LIST,
    methods::RESOURCES_READ,
    methods::COMPLETION_COMPLETE,
    methods::SUBSCRIPTIONS_LISTEN,
];

/// The methods of the extensions this runtime knows: the tasks extension's (`tasks/result` and
/// `tasks/list` were removed from it, and are unknown methods) and the skills extension's. A
/// server without the extension answers them as unknown methods.
pub(crate) const EXTENSION_METHODS: [&str; 6] = [
    "tasks/get",
    "tasks/update",
    "tasks/cancel",
    "skills/list",
    "skills/get",
    "resources/directory/read",
];

/// What one incoming message is.
#[derive(Debug)]
pub(crate) enum Incoming {
    /// A request of a supported version, typed.
    Request(Box<ClientRequest>),
    /// A notification: nothing is answered (stdio reads `notifications/cancelled` from it).
    Notification(#[cfg_attr(not(feature = "stdio"), allow(dead_code))] JSONRPCNotification),
    /// A response: servers send no requests, so nothing is answered either.
    Response,
    /// A request of an extension method (tasks), with a valid `_meta`.
    Extension(Box<ExtensionRequest>),
    /// A message that cannot be served, with its error and what could be read of it.
    Rejected(Box<Rejected>),
}

/// A request of an extension method, not in the core schema: its method, params and `_meta`.
#[derive(Debug)]
pub(crate) struct ExtensionRequest {
    pub(crate) id: RequestId,
    pub(crate) method: String,
    /// Read by the extensions this build serves (skills, tasks).
    #[cfg_attr(not(any(feature = "skills", feature = "tasks")), allow(dead_code))]
    pub(crate) params: Map<String, Value>,
    #[cfg_attr(not(feature = "tasks"), allow(dead_code))]
    pub(crate) meta: RequestMetaObject,
}

impl ExtensionRequest {
    /// What transports compare their headers with.
    #[cfg(feature = "http")]
    pub(crate) fn head(&self) -> RequestHead<'_> {
        RequestHead {
            method: &self.method,
            version: Some(&self.meta.protocol_version),
            name: name_field(&self.method)
                .and_then(|f| self.params.get(f))
                .and_then(Value::as_str),
        }
    }
}

/// A message refused before dispatch.
#[derive(Debug)]
pub(crate) struct Rejected {
    /// The request's id, when it could be read.
    pub(crate) id: Option<RequestId>,
    /// Why it is refused.
    pub(crate) error: Error,
    /// The method, version and name, when the envelope could be read (for the HTTP transport's
    /// header checks; read nowhere else).
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    pub(crate) head: Option<OwnedHead>,
}

/// What transports compare their headers with: a request's method, `_meta` protocol version and
/// the name or URI it targets.
#[derive(Debug, Clone, Copy)]
pub(crate) struct RequestHead<'a> {
    pub(crate) method: &'a str,
    pub(crate) version: Option<&'a str>,
    /// `params.name` of `tools/call` and `prompts/get`, `params.uri` of `resources/read`.
    pub(crate) name: Option<&'a str>,
}

/// The owned [`RequestHead`] of a refused request (kept for the HTTP transport's checks).
#[derive(Debug)]
#[cfg_attr(not(feature = "http"), allow(dead_code))]
pub(crate) struct OwnedHead {
    method: String,
    version: Option<String>,
    name: Option<String>,
}

impl OwnedHead {
    /// The borrowed form.
    #[cfg(feature = "http")]
    pub(crate) fn head(&self) -> RequestHead<'_> {
        RequestHead {
            method: &self.method,
            version: self.version.as_deref(),
            name: self.name.as_deref(),
        }
    }
}

impl Incoming {
    /// Read one message; a request must be of one of the `supported` protocol versions.
    pub(crate) fn parse(bytes: &[u8], supported: &[&str]) -> Incoming {
        match serde_json::from_slice::<ClientRequest>(bytes) {
            Ok(request) if !known(&request) => {
                // A member this runtime does not serve: its id, read again from the bytes.
                let id = serde_json::from_slice::<Map<String, Value>>(bytes)
                    .ok()
                    .and_then(|m| super::from_value_text(m.get("id")?).ok());
                reject(id, Error::method_not_found(request.variant_name()), None)
            }
            Ok(request) => match version_error(request_meta(&request), supported) {
                None => Incoming::Request(Box::new(request)),
                Some(error) => {
                    let head = request_head(&request);
                    let head = OwnedHead {
                        method: head.method.to_string(),
                        version: head.version.map(str::to_string),
                        name: head.name.map(str::to_string),
                    };
                    Incoming::Rejected(Box::new(Rejected {
                        id: Some(request_id(&request).clone()),
                        error,
                        head: Some(head),
                    }))
                }
            },
            Err(typed) => diagnose(bytes, typed, supported),
        }
    }
}

/// The -32022 error for a version not in `supported`.
fn version_error(meta: &RequestMetaObject, supported: &[&str]) -> Option<Error> {
    (!supported.contains(&meta.protocol_version.as_str()))
        .then(|| Error::unsupported_protocol_version(&meta.protocol_version, supported))
}

fn reject(id: Option<RequestId>, error: Error, head: Option<OwnedHead>) -> Incoming {
    Incoming::Rejected(Box::new(Rejected { id, error, head }))
}

/// The slow path: why `bytes` is not a `ClientRequest` of a supported version.
fn diagnose(bytes: &[u8], typed: serde_json::Error, supported: &[&str]) -> Incoming {
    let value: Value = match serde_json::from_slice(bytes) {
        Ok(v) => v,
        Err(e) => return reject(None, Error::parse_error(format!("parse error: {e}")), None),
    };
    // Read from the parsed value (a key given twice keeps its last value, as before).
    let message = match super::from_value_text::<JSONRPCMessage>(&value) {
        Ok(m) => m,
        Err(_) => return reject_envelope(&value),
    };
    let request = match message {
        JSONRPCMessage::JSONRPCRequest(r) => r,
        JSONRPCMessage::JSONRPCNotification(n) => return Incoming::Notification(n),
        JSONRPCMessage::JSONRPCResultResponse(_) | JSONRPCMessage::JSONRPCErrorResponse(_) => {
            return Incoming::Response
        }
        _ => return reject_envelope(&value),
    };
    let JSONRPCRequest {
        id, method, params, ..
    } = request;
    let params = params.unwrap_or_default();
    let head = OwnedHead {
        version: meta_str(&params, META_VERSION),
        name: params
            .get(name_field(&method).unwrap_or(""))
            .and_then(Value::as_str)
            .map(str::to_string),
        method,
    };
    let extension = EXTENSION_METHODS.contains(&head.method.as_str());
    if !extension && !REQUEST_METHODS.contains(&head.method.as_str()) {
        let error = Error::method_not_found(&head.method);
        return reject(Some(id), error, Some(head));
    }
    if let Some(e) = meta_error(&params, supported) {
        return reject(Some(id), e, Some(head));
    }
    if extension {
        let meta = params
            .get("_meta")
            .map(super::from_value_text::<RequestMetaObject>);
        return match meta {
            Some(Ok(meta)) => Incoming::Extension(Box::new(ExtensionRequest {
                id,
                method: head.method,
                params,
                meta,
            })),
            Some(Err(e)) => reject(Some(id), Error::invalid_params(e.to_string()), Some(head)),
            None => reject(Some(id), Error::invalid_params("missing _meta"), Some(head)),
        };
    }
    // An answer in `inputResponses` that is no input response at all is not a reason to refuse
    // the request: the server ignores answers it cannot use and asks again (MRTR), so such
    // entries are dropped and the rest is read again.
    let mut params = params;
    if let Some(Value::Object(answers)) = params.get_mut(INPUT_RESPONSES) {
        let before = answers.len();
        answers.retain(|_, v| super::from_value_text::<InputResponse>(v).is_ok());
        if answers.len() < before {
            let retried = JSONRPCRequest {
                id: id.clone(),
                jsonrpc: Default::default(),
                method: head.method.clone(),
                params: Some(params),
                extra: Map::new(),
            };
            let request = serde_json::to_vec(&retried)
                .and_then(|text| serde_json::from_slice::<ClientRequest>(&text));
            return match request {
                Ok(request) => Incoming::Request(Box::new(request)),
                Err(e) => reject(Some(id), Error::invalid_params(e.to_string()), Some(head)),
            };
        }
    }
    reject(
        Some(id),
        Error::invalid_params(typed.to_string()),
        Some(head),
    )
}

/// The params member that carries the answers of an MRTR retry.
const INPUT_RESPONSES: &str = "inputResponses";

/// The field a method's `Mcp-Name` header mirrors.
pub(crate) fn name_field(method: &str) -> Option<&'static str> {
    match method {
        methods::TOOLS_CALL | methods::PROMPTS_GET => Some("name"),
        methods::RESOURCES_READ => Some("uri"),
        "tasks/get" | "tasks/update" | "tasks/cancel" => Some("taskId"),
        _ => None,
    }
}

fn meta_str(params: &Map<String, Value>, key: &str) -> Option<String> {
    params
        .get("_meta")
        .and_then(|m| m.get(key))
        .and_then(Value::as_str)
        .map(str::to_string)
}

/// What is wrong with a request's `_meta`, version first.
fn meta_error(params: &Map<String, Value>, supported: &[&str]) -> Option<Error> {
    let Some(meta) = params.get("_meta").and_then(Value::as_object) else {
        return Some(Error::invalid_params(format!(
            "missing _meta with {META_VERSION} and {META_CAPS}"
        )));
    };
    let Some(version) = meta.get(META_VERSION).and_then(Value::as_str) else {
        return Some(Error::invalid_params(format!(
            "missing _meta[\"{META_VERSION}\"]"
        )));
    };
    if !supported.contains(&version) {
        return Some(Error::unsupported_protocol_version(version, supported));
    }
    if !meta.get(META_CAPS).is_some_and(Value::is_object) {
        return Some(Error::invalid_params(format!(
            "missing _meta[\"{META_CAPS}\"]"
        )));
    }
    None
}

/// The error for a message that is not a JSON-RPC message at all.
fn reject_envelope(value: &Value) -> Incoming {
    let Value::Object(obj) = value else {
        let what = if value.is_array() {
            "batches are not supported"
        } else {
            "not a JSON-RPC object"
        };
        return reject(None, Error::invalid_request(what), None);
    };
    let id = match obj.get("id") {
        None => None,
        Some(v) => match RequestId::deserialize(v) {
            Ok(id) => Some(id),
            Err(_) => return reject(None, Error::invalid_request("invalid id"), None),
        },
    };
    let why = if obj.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        Error::invalid_request("jsonrpc must be \"2.0\"")
    } else if !obj.get("method").is_some_and(Value::is_string) {
        Error::invalid_request("missing method")
    } else if obj.get("params").is_some_and(|p| !p.is_object()) {
        Error::invalid_params("params must be an object")
    } else {
        Error::invalid_request("not a JSON-RPC request, notification or response")
    };
    reject(id, why, None)
}

/// Whether this runtime serves the request's member. `ClientRequest` is `#[non_exhaustive]`: a
/// member added by a newer oxmcp-schema is answered as an unknown method when parsed, so the
/// accessors below never see one (their fallbacks only keep them total).
fn known(r: &ClientRequest) -> bool {
    matches!(
        r,
        ClientRequest::DiscoverRequest(_)
            | ClientRequest::ListResourcesRequest(_)
            | ClientRequest::ListResourceTemplatesRequest(_)
            | ClientRequest::ReadResourceRequest(_)
            | ClientRequest::SubscriptionsListenRequest(_)
            | ClientRequest::ListPromptsRequest(_)
            | ClientRequest::GetPromptRequest(_)
            | ClientRequest::ListToolsRequest(_)
            | ClientRequest::CallToolRequest(_)
            | ClientRequest::CompleteRequest(_)
    )
}

/// The id and `_meta` the accessors give for a member this runtime does not know.
static UNKNOWN_ID: RequestId = RequestId::Integer(0);
static UNKNOWN_META: std::sync::OnceLock<RequestMetaObject> = std::sync::OnceLock::new();

/// The id of a typed request.
pub(crate) fn request_id(r: &ClientRequest) -> &RequestId {
    match r {
        ClientRequest::DiscoverRequest(r) => &r.id,
        ClientRequest::ListResourcesRequest(r) => &r.id,
        ClientRequest::ListResourceTemplatesRequest(r) => &r.id,
        ClientRequest::ReadResourceRequest(r) => &r.id,
        ClientRequest::SubscriptionsListenRequest(r) => &r.id,
        ClientRequest::ListPromptsRequest(r) => &r.id,
        ClientRequest::GetPromptRequest(r) => &r.id,
        ClientRequest::ListToolsRequest(r) => &r.id,
        ClientRequest::CallToolRequest(r) => &r.id,
        ClientRequest::CompleteRequest(r) => &r.id,
        _ => &UNKNOWN_ID,
    }
}

/// The `_meta` of a typed request.
pub(crate) fn request_meta(r: &ClientRequest) -> &RequestMetaObject {
    match r {
        ClientRequest::DiscoverRequest(r) => &r.params.meta,
        ClientRequest::ListResourcesRequest(r) => &r.params.meta,
        ClientRequest::ListResourceTemplatesRequest(r) => &r.params.meta,
        ClientRequest::ReadResourceRequest(r) => &r.params.meta,
        ClientRequest::SubscriptionsListenRequest(r) => &r.params.meta,
        ClientRequest::ListPromptsRequest(r) => &r.params.meta,
        ClientRequest::GetPromptRequest(r) => &r.params.meta,
        ClientRequest::ListToolsRequest(r) => &r.params.meta,
        ClientRequest::CallToolRequest(r) => &r.params.meta,
        ClientRequest::CompleteRequest(r) => &r.params.meta,
        _ => UNKNOWN_META.get_or_init(|| {
            RequestMetaObject::new(Default::default(), oxmcp_schema::LATEST_PROTOCOL_VERSION)
        }),
    }
}

/// The method, version and target of a typed request.
pub(crate) fn request_head(r: &ClientRequest) -> RequestHead<'_> {
    let (method, name) = match r {
        ClientRequest::DiscoverRequest(_) => (methods::SERVER_DISCOVER, None),
        ClientRequest::ListResourcesRequest(_) => (methods::RESOURCES_LIST, None),
        ClientRequest::ListResourceTemplatesRequest(_) => (methods::RESOURCES_TEMPLATES_LIST, None),
        ClientRequest::ReadResourceRequest(r) => {
            (methods::RESOURCES_READ, Some(r.params.uri.as_str()))
        }
        ClientRequest::SubscriptionsListenRequest(_) => (methods::SUBSCRIPTIONS_LISTEN, None),
        ClientRequest::ListPromptsRequest(_) => (methods::PROMPTS_LIST, None),
        ClientRequest::GetPromptRequest(r) => (methods::PROMPTS_GET, Some(r.params.name.as_str())),
        ClientRequest::ListToolsRequest(_) => (methods::TOOLS_LIST, None),
        ClientRequest::CallToolRequest(r) => (methods::TOOLS_CALL, Some(r.params.name.as_str())),
        ClientRequest::CompleteRequest(_) => (methods::COMPLETION_COMPLETE, None),
        other => (other.variant_name(), None),
    };
    RequestHead {
        method,
        version: Some(request_meta(r).protocol_version.as_str()),
        name,
    }
}

/// One reply the server writes back, typed until it is written.
#[derive(Debug, Clone, PartialEq)]
pub enum Reply {
    /// The result of request `id`.
    Result(RequestId, Box<ServerResult>),
    /// A JSON-RPC error (its id is absent when the request could not be read).
    Error(Box<JSONRPCErrorResponse>),
}

/// A result reply as it is written: borrowed, so writing it copies nothing.
struct ResultEnvelope<'a> {
    jsonrpc: &'static str,
    id: &'a RequestId,
    result: &'a ServerResult,
}

impl Serialize for ResultEnvelope<'_> {
    fn serialize<S: serde_core::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde_core::ser::SerializeMap;
        let mut map = serializer.serialize_map(Some(3))?;
        map.serialize_entry("jsonrpc", self.jsonrpc)?;
        map.serialize_entry("id", self.id)?;
        map.serialize_entry("result", self.result)?;
        map.end()
    }
}

impl Reply {
    /// The error reply to request `id`.
    pub fn error(id: Option<RequestId>, error: Error) -> Self {
        Reply::Error(Box::new(JSONRPCErrorResponse::for_request(id, error)))
    }

    /// The result reply to request `id`.
    pub fn result(id: RequestId, result: impl Into<ServerResult>) -> Self {
        Reply::Result(id, Box::new(result.into()))
    }

    /// The JSON-RPC error code, for an error reply.
    pub fn error_code(&self) -> Option<i64> {
        match self {
            Reply::Result(..) => None,
            Reply::Error(e) => Some(e.error.code),
        }
    }

    /// The reply as one line of JSON.
    pub fn to_json(&self) -> String {
        let written = match self {
            Reply::Result(id, result) => serde_json::to_string(&ResultEnvelope {
                jsonrpc: "2.0",
                id,
                result,
            }),
            Reply::Error(e) => serde_json::to_string(&**e),
        };
        written.unwrap_or_else(|e| {
            let id = match self {
                Reply::Result(id, _) => Some(id.clone()),
                Reply::Error(e) => e.id.clone(),
            };
            let error = Error::internal(format!("the reply does not serialize: {e}"));
            serde_json::to_string(&JSONRPCErrorResponse::for_request(id, error)).unwrap_or_default()
        })
    }

    /// The reply as a JSON value (for tests and in-process callers).
    pub fn to_value(&self) -> Value {
        super::from_text(&self.to_json()).unwrap_or(Value::Null)
    }
}
