//! Hand-written conveniences over the newest version's generated types (the module the pins
//! name `latest`): method names, error codes and constructors for the messages a server or
//! client builds most often.

use crate::versions::latest::*;
use serde_json::{Map, Value};

/// JSON-RPC method names, as they appear in `method`.
pub mod methods {
    use crate::versions::latest as g;
    /// `server/discover`.
    pub const SERVER_DISCOVER: &str = g::MethodServerDiscover::VALUE;
    /// `tools/list`.
    pub const TOOLS_LIST: &str = g::MethodToolsList::VALUE;
    /// `tools/call`.
    pub const TOOLS_CALL: &str = g::MethodToolsCall::VALUE;
    /// `prompts/list`.
    pub const PROMPTS_LIST: &str = g::MethodPromptsList::VALUE;
    /// `prompts/get`.
    pub const PROMPTS_GET: &str = g::MethodPromptsGet::VALUE;
    /// `resources/list`.
    pub const RESOURCES_LIST: &str = g::MethodResourcesList::VALUE;
    /// `resources/templates/list`.
    pub const RESOURCES_TEMPLATES_LIST: &str = g::MethodResourcesTemplatesList::VALUE;
    /// `resources/read`.
    pub const RESOURCES_READ: &str = g::MethodResourcesRead::VALUE;
    /// `completion/complete`.
    pub const COMPLETION_COMPLETE: &str = g::MethodCompletionComplete::VALUE;
    /// `subscriptions/listen`.
    pub const SUBSCRIPTIONS_LISTEN: &str = g::MethodSubscriptionsListen::VALUE;
    /// `elicitation/create` (an MRTR input request).
    pub const ELICITATION_CREATE: &str = g::MethodElicitationCreate::VALUE;
    /// `sampling/createMessage` (an MRTR input request).
    pub const SAMPLING_CREATE_MESSAGE: &str = g::MethodSamplingCreateMessage::VALUE;
    /// `roots/list` (an MRTR input request).
    pub const ROOTS_LIST: &str = g::MethodRootsList::VALUE;
    /// `notifications/cancelled`.
    pub const NOTIFICATIONS_CANCELLED: &str = g::MethodNotificationsCancelled::VALUE;
    /// `notifications/progress`.
    pub const NOTIFICATIONS_PROGRESS: &str = g::MethodNotificationsProgress::VALUE;
    /// `notifications/message`.
    pub const NOTIFICATIONS_MESSAGE: &str = g::MethodNotificationsMessage::VALUE;
    /// `notifications/tools/list_changed`.
    pub const NOTIFICATIONS_TOOLS_LIST_CHANGED: &str =
        g::MethodNotificationsToolsListChanged::VALUE;
    /// `notifications/prompts/list_changed`.
    pub const NOTIFICATIONS_PROMPTS_LIST_CHANGED: &str =
        g::MethodNotificationsPromptsListChanged::VALUE;
    /// `notifications/resources/list_changed`.
    pub const NOTIFICATIONS_RESOURCES_LIST_CHANGED: &str =
        g::MethodNotificationsResourcesListChanged::VALUE;
    /// `notifications/resources/updated`.
    pub const NOTIFICATIONS_RESOURCES_UPDATED: &str = g::MethodNotificationsResourcesUpdated::VALUE;
    /// `notifications/subscriptions/acknowledged`.
    pub const NOTIFICATIONS_SUBSCRIPTIONS_ACKNOWLEDGED: &str =
        g::MethodNotificationsSubscriptionsAcknowledged::VALUE;

    /// Whether a method may answer with an `InputRequiredResult` (MRTR).
    pub fn allows_input_required(method: &str) -> bool {
        matches!(method, TOOLS_CALL | PROMPTS_GET | RESOURCES_READ)
    }
}

/// JSON-RPC and MCP error codes.
pub mod error_codes {
    /// Invalid JSON was received.
    pub const PARSE_ERROR: i64 = -32700;
    /// The JSON sent is not a valid request object.
    pub const INVALID_REQUEST: i64 = -32600;
    /// The method does not exist or is not available.
    pub const METHOD_NOT_FOUND: i64 = -32601;
    /// Invalid method parameters (also: bad `_meta`, bad `requestState`).
    pub const INVALID_PARAMS: i64 = -32602;
    /// Internal JSON-RPC error.
    pub const INTERNAL_ERROR: i64 = -32603;
    /// HTTP headers do not match the body (`MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name`).
    pub const HEADER_MISMATCH: i64 = -32020;
    /// The request needs a client capability that its `clientCapabilities` do not declare.
    pub const MISSING_REQUIRED_CLIENT_CAPABILITY: i64 = -32021;
    /// The requested protocol version is not supported.
    pub const UNSUPPORTED_PROTOCOL_VERSION: i64 = -32022;
}

impl Error {
    /// Attach `data`.
    pub fn with_data(mut self, data: Value) -> Self {
        self.data = Some(data);
        self
    }

    /// -32700: the message was not JSON.
    pub fn parse_error(message: impl Into<String>) -> Self {
        Self::new(error_codes::PARSE_ERROR, message)
    }

    /// -32600: not a valid request object.
    pub fn invalid_request(message: impl Into<String>) -> Self {
        Self::new(error_codes::INVALID_REQUEST, message)
    }

    /// -32601 for `method`.
    pub fn method_not_found(method: &str) -> Self {
        Self::new(
            error_codes::METHOD_NOT_FOUND,
            format!("method not found: {method}"),
        )
    }

    /// -32602.
    pub fn invalid_params(message: impl Into<String>) -> Self {
        Self::new(error_codes::INVALID_PARAMS, message)
    }

    /// -32603.
    pub fn internal(message: impl Into<String>) -> Self {
        Self::new(error_codes::INTERNAL_ERROR, message)
    }

    /// -32020: an HTTP header disagrees with the body.
    pub fn header_mismatch(message: impl Into<String>) -> Self {
        Self::new(error_codes::HEADER_MISMATCH, message)
    }

    /// -32021 with `data.requiredCapabilities`.
    pub fn missing_required_client_capability(required: &ClientCapabilities) -> Self {
        let caps = serde_json::to_value(required).unwrap_or_else(|_| Value::Object(Map::new()));
        let mut names = Vec::new();
        capability_names(&caps, "", &mut names);
        let message = if names.is_empty() {
            "missing required client capability".to_string()
        } else {
            format!("missing required client capability: {}", names.join(", "))
        };
        let mut data = Map::new();
        data.insert("requiredCapabilities".into(), caps);
        Self::new(error_codes::MISSING_REQUIRED_CLIENT_CAPABILITY, message)
            .with_data(Value::Object(data))
    }

    /// -32022 with `data.supported` and `data.requested`.
    pub fn unsupported_protocol_version(requested: &str, supported: &[&str]) -> Self {
        let mut data = Map::new();
        data.insert(
            "supported".into(),
            Value::Array(
                supported
                    .iter()
                    .map(|v| Value::String(v.to_string()))
                    .collect(),
            ),
        );
        data.insert("requested".into(), Value::String(requested.to_string()));
        Self::new(
            error_codes::UNSUPPORTED_PROTOCOL_VERSION,
            format!("unsupported protocol version: {requested}"),
        )
        .with_data(Value::Object(data))
    }
}

impl JSONRPCErrorResponse {
    /// An error response to `id` (`None` when the request id could not be read).
    pub fn for_request(id: Option<RequestId>, error: Error) -> Self {
        JSONRPCErrorResponse {
            error,
            id,
            jsonrpc: JsonrpcV2_0,
            extra: Map::new(),
        }
    }
}

impl Result {
    /// Any typed result (e.g. a `CallToolResult`) as the generic result of a response.
    pub fn from_typed<T: serde::Serialize>(typed: &T) -> serde_json::Result<Self> {
        serde_json::from_value(serde_json::to_value(typed)?)
    }
}

impl ResultType {
    /// How a result without `resultType` is read: complete.
    pub fn or_complete(value: Option<&ResultType>) -> ResultType {
        value.cloned().unwrap_or(ResultType::Complete)
    }
}

impl ContentBlock {
    /// A text content block.
    pub fn text(text: impl Into<String>) -> Self {
        ContentBlock::TextContent(TextContent::new(text))
    }
}

impl CallToolResult {
    /// A complete result with one text block.
    pub fn text(text: impl Into<String>) -> Self {
        Self::content(vec![ContentBlock::text(text)])
    }

    /// A complete result with these content blocks.
    pub fn content(content: Vec<ContentBlock>) -> Self {
        CallToolResult {
            meta: None,
            content,
            is_error: None,
            result_type: Some(ResultType::Complete),
            structured_content: None,
            extra: Map::new(),
        }
    }

    /// A tool error the model can read and act on (`isError: true`), not a protocol error.
    pub fn error(text: impl Into<String>) -> Self {
        let mut r = Self::text(text);
        r.is_error = Some(true);
        r
    }

    /// A result with structured content, also given as JSON text for clients that show text only.
    pub fn structured(value: Value) -> Self {
        let mut r = Self::text(value.to_string());
        r.structured_content = Some(value);
        r
    }
}

impl InputRequiredResult {
    /// An empty `input_required` result; add requests and state with the `with_*` methods.
    pub fn new() -> Self {
        InputRequiredResult {
            meta: None,
            input_requests: None,
            request_state: None,
            result_type: ResultTypeInputRequired,
            extra: Map::new(),
        }
    }

    /// Ask the client for `request` under `key` (keys are unique within the result).
    pub fn with_request(
        mut self,
        key: impl Into<String>,
        request: impl Into<InputRequest>,
    ) -> Self {
        self.input_requests
            .get_or_insert_with(Default::default)
            .insert(key.into(), request.into());
        self
    }

    /// The opaque state the client echoes on its retry.
    pub fn with_state(mut self, state: impl Into<String>) -> Self {
        self.request_state = Some(state.into());
        self
    }
}

impl ElicitRequestFormParamsRequestedSchema {
    /// A flat form schema from its `properties` (primitive schemas) and `required` names.
    pub fn new(
        properties: indexmap::IndexMap<String, PrimitiveSchemaDefinition>,
        required: Vec<String>,
    ) -> Self {
        ElicitRequestFormParamsRequestedSchema {
            schema: None,
            properties,
            required: (!required.is_empty()).then_some(required),
            type_: TypeObject,
            extra: Map::new(),
        }
    }
}

impl ElicitRequest {
    /// A form-mode elicitation: ask the user `message` and collect `schema`'s fields.
    pub fn form(
        message: impl Into<String>,
        schema: ElicitRequestFormParamsRequestedSchema,
    ) -> Self {
        ElicitRequest {
            method: MethodElicitationCreate,
            params: ElicitRequestParams::ElicitRequestFormParams(ElicitRequestFormParams {
                message: message.into(),
                mode: Some(ModeForm),
                requested_schema: schema,
                extra: Map::new(),
            }),
            extra: Map::new(),
        }
    }

    /// A URL-mode elicitation: send the user to `url` (for secrets, payments, OAuth).
    pub fn url(message: impl Into<String>, url: impl Into<String>) -> Self {
        ElicitRequest {
            method: MethodElicitationCreate,
            params: ElicitRequestParams::ElicitRequestURLParams(ElicitRequestURLParams {
                message: message.into(),
                mode: ModeUrl,
                url: url.into(),
                extra: Map::new(),
            }),
            extra: Map::new(),
        }
    }
}

impl SamplingMessage {
    /// A user message with text.
    pub fn user(text: impl Into<String>) -> Self {
        SamplingMessage {
            meta: None,
            content: SamplingMessageContent::TextContent(TextContent::new(text)),
            role: Role::User,
            extra: Map::new(),
        }
    }
}

impl ListRootsRequest {
    /// A roots request (it has no parameters).
    pub fn new() -> Self {
        ListRootsRequest {
            method: MethodRootsList,
            params: None,
            extra: Map::new(),
        }
    }
}

impl ElicitResult {
    fn with_action(action: ElicitResultAction) -> Self {
        ElicitResult {
            action,
            content: None,
            extra: Map::new(),
        }
    }

    /// The user accepted and filled in `content`.
    pub fn accept(content: indexmap::IndexMap<String, ElicitResultContentValue>) -> Self {
        let mut r = Self::with_action(ElicitResultAction::Accept);
        r.content = Some(content);
        r
    }

    /// The user declined.
    pub fn decline() -> Self {
        Self::with_action(ElicitResultAction::Decline)
    }

    /// The user dismissed the request.
    pub fn cancel() -> Self {
        Self::with_action(ElicitResultAction::Cancel)
    }
}

impl std::fmt::Display for RequestId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RequestId::String(s) => f.write_str(s),
            RequestId::Integer(i) => write!(f, "{i}"),
        }
    }
}

impl From<&str> for RequestId {
    fn from(s: &str) -> Self {
        RequestId::String(s.to_string())
    }
}

/// The dotted names of the capabilities `caps` declares, deepest first where one nests others
/// (`{"elicitation":{"form":{}}}` is `elicitation.form`), for a message a person can act on.
fn capability_names(caps: &Value, prefix: &str, names: &mut Vec<String>) {
    let Value::Object(map) = caps else {
        return;
    };
    for (key, value) in map {
        let name = if prefix.is_empty() {
            key.clone()
        } else {
            format!("{prefix}.{key}")
        };
        match value {
            Value::Object(inner) if !inner.is_empty() && prefix.is_empty() => {
                capability_names(value, &name, names)
            }
            _ => names.push(name),
        }
    }
}
