//! What handlers return and how it becomes an MCP result: [`ToolError`], [`AskError`],
//! [`Json`] and the `Into*Result` conversions the macros call.

use oxmcp_schema::{
    CallToolResult, ClientCapabilities, ContentBlock, Error, GetPromptResult, PromptMessage,
    ReadResourceResult, ReadResourceResultContentsItem, ResultType, Role, TextContent,
    TextResourceContents,
};
#[cfg(feature = "schemars")]
use serde_core::Serialize;
use serde_json::{Map, Value};
use std::any::Any;
use std::fmt;

/// Why an ask cannot be sent.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum AskError {
    /// This request's `clientCapabilities` do not declare what the ask needs; the value says what
    /// would be needed. Branch on it to fall back, or propagate it with `?` to answer -32021.
    MissingCapability(Box<ClientCapabilities>),
    /// Awaited outside a handler run by this runtime (e.g. in a spawned task).
    OutsideHandler,
    /// On a 2025-era session, where an ask is a real request to the client: the client
    /// answered it with this JSON-RPC error.
    Refused(Box<Error>),
    /// On a 2025 session: the client did not answer within the session's ask timeout, or the
    /// session ended first.
    NoAnswer,
}

impl fmt::Display for AskError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AskError::MissingCapability(caps) => write!(
                f,
                "the client did not declare a required capability: {}",
                serde_json::to_string(caps).unwrap_or_default()
            ),
            AskError::OutsideHandler => f.write_str("asked outside an MCP handler"),
            AskError::Refused(e) => write!(
                f,
                "the client refused the request: {} ({})",
                e.message, e.code
            ),
            AskError::NoAnswer => f.write_str("the client did not answer the request in time"),
        }
    }
}

impl std::error::Error for AskError {}

/// A tool failure. `Tool` errors are shown to the model (`isError: true`) so it can correct
/// itself; `Protocol` errors are JSON-RPC errors (e.g. -32021 for a missing capability).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum ToolError {
    /// An error the model reads in the result.
    Tool {
        /// What the model reads (`content[0].text` of the `isError` result).
        message: String,
        /// The error it was made from, when it came from one with `?`: logged by the server
        /// (at debug level, with its whole `source()` chain), never sent.
        cause: Option<crate::wire::Cause>,
    },
    /// A JSON-RPC error response.
    Protocol(Error),
}

impl ToolError {
    /// A tool error with this message.
    pub fn new(message: impl Into<String>) -> Self {
        ToolError::Tool {
            message: message.into(),
            cause: None,
        }
    }

    /// From anything printable (for `map_err` on error types without a `From`).
    pub fn from_display(e: impl fmt::Display) -> Self {
        ToolError::new(e.to_string())
    }

    /// The protocol's "resource not found" error for `uri` (-32602 with `data.uri`), for a
    /// resource handler whose template matched a URI that names nothing.
    pub fn resource_not_found(uri: &str) -> Self {
        ToolError::Protocol(resource_not_found(uri))
    }

    /// The error a handler returned, whatever its type: a `ToolError` as it is, an `AskError`
    /// as its protocol error, anything else as a tool error with its message.
    pub fn of<E: fmt::Display + 'static>(e: E) -> Self {
        let any = &e as &dyn Any;
        if let Some(t) = any.downcast_ref::<ToolError>() {
            return t.clone();
        }
        if let Some(a) = any.downcast_ref::<AskError>() {
            return ToolError::from(a.clone());
        }
        ToolError::new(e.to_string())
    }
}

/// The protocol's error for a resource URI that names nothing.
pub(crate) fn resource_not_found(uri: &str) -> Error {
    Error::invalid_params("Resource not found").with_data(serde_json::json!({ "uri": uri }))
}

impl fmt::Display for ToolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ToolError::Tool { message, .. } => f.write_str(message),
            ToolError::Protocol(e) => write!(f, "{} ({})", e.message, e.code),
        }
    }
}

/// A missing capability becomes -32021 with `data.requiredCapabilities`; any other error is a
/// tool error with its message.
impl<E: std::error::Error + Send + Sync + 'static> From<E> for ToolError {
    fn from(e: E) -> Self {
        match (&e as &dyn Any).downcast_ref::<AskError>() {
            Some(AskError::MissingCapability(caps)) => {
                ToolError::Protocol(Error::missing_required_client_capability(caps))
            }
            Some(AskError::OutsideHandler) => ToolError::Protocol(Error::internal(e.to_string())),
            Some(AskError::Refused(_) | AskError::NoAnswer) | None => ToolError::Tool {
                message: e.to_string(),
                cause: Some(crate::wire::Cause::of(e)),
            },
        }
    }
}

impl From<ToolError> for Result<CallToolResult, Error> {
    fn from(e: ToolError) -> Self {
        match e {
            ToolError::Tool { message, cause } => {
                if let Some(cause) = cause {
                    tracing::debug!(error = %cause, "the tool answered an error");
                }
                Ok(CallToolResult::error(message))
            }
            ToolError::Protocol(e) => Err(e),
        }
    }
}

/// Structured tool output: `structuredContent` plus an `outputSchema` derived from `T`.
#[derive(Debug, Clone, PartialEq)]
pub struct Json<T>(pub T);

/// What a tool may return.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be returned from an MCP tool",
    label = "not a tool result",
    note = "return String, CallToolResult, ContentBlock, Vec<ContentBlock>, Json<T>, (), or a Result of one of these whose error implements Display (ToolError, any std error, anyhow::Error)"
)]
pub trait IntoToolResult {
    /// The result, or a JSON-RPC error.
    fn into_tool_result(self) -> Result<CallToolResult, Error>;
    /// The `outputSchema` this return type declares, if any.
    fn output_schema() -> Option<Map<String, Value>> {
        None
    }
}

impl IntoToolResult for CallToolResult {
    fn into_tool_result(self) -> Result<CallToolResult, Error> {
        Ok(self)
    }
}

impl IntoToolResult for String {
    fn into_tool_result(self) -> Result<CallToolResult, Error> {
        Ok(CallToolResult::text(self))
    }
}

impl IntoToolResult for &'static str {
    fn into_tool_result(self) -> Result<CallToolResult, Error> {
        Ok(CallToolResult::text(self))
    }
}

impl IntoToolResult for ContentBlock {
    fn into_tool_result(self) -> Result<CallToolResult, Error> {
        Ok(CallToolResult::content(vec![self]))
    }
}

impl IntoToolResult for Vec<ContentBlock> {
    fn into_tool_result(self) -> Result<CallToolResult, Error> {
        Ok(CallToolResult::content(self))
    }
}

impl IntoToolResult for () {
    fn into_tool_result(self) -> Result<CallToolResult, Error> {
        Ok(CallToolResult::content(Vec::new()))
    }
}

#[cfg(feature = "schemars")]
impl<T: Serialize + schemars::JsonSchema> IntoToolResult for Json<T> {
    fn into_tool_result(self) -> Result<CallToolResult, Error> {
        serde_json::to_value(&self.0)
            .map(CallToolResult::structured)
            .map_err(|e| Error::internal(format!("tool output does not serialize: {e}")))
    }
    fn output_schema() -> Option<Map<String, Value>> {
        match serde_json::to_value(schemars::schema_for!(T)) {
            Ok(Value::Object(m)) => Some(m),
            _ => None,
        }
    }
}

impl<T: IntoToolResult, E: fmt::Display + 'static> IntoToolResult for Result<T, E> {
    fn into_tool_result(self) -> Result<CallToolResult, Error> {
        match self {
            Ok(t) => t.into_tool_result(),
            Err(e) => ToolError::of(e).into(),
        }
    }
    fn output_schema() -> Option<Map<String, Value>> {
        T::output_schema()
    }
}

/// What a prompt may return.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be returned from an MCP prompt",
    note = "return String, Vec<PromptMessage>, GetPromptResult, or a Result of one of these whose error implements Display"
)]
pub trait IntoPromptResult {
    /// The rendered prompt, or a JSON-RPC error.
    fn into_prompt_result(self) -> Result<GetPromptResult, Error>;
}

impl IntoPromptResult for GetPromptResult {
    fn into_prompt_result(self) -> Result<GetPromptResult, Error> {
        Ok(self)
    }
}

impl IntoPromptResult for Vec<PromptMessage> {
    fn into_prompt_result(self) -> Result<GetPromptResult, Error> {
        Ok(GetPromptResult {
            meta: None,
            description: None,
            messages: self,
            result_type: Some(ResultType::Complete),
            extra: Map::new(),
        })
    }
}

impl IntoPromptResult for String {
    fn into_prompt_result(self) -> Result<GetPromptResult, Error> {
        vec![PromptMessage {
            content: ContentBlock::TextContent(TextContent::new(self)),
            role: Role::User,
            extra: Map::new(),
        }]
        .into_prompt_result()
    }
}

impl<T: IntoPromptResult, E: fmt::Display + 'static> IntoPromptResult for Result<T, E> {
    fn into_prompt_result(self) -> Result<GetPromptResult, Error> {
        match self {
            Ok(t) => t.into_prompt_result(),
            Err(e) => Err(match ToolError::of(e) {
                ToolError::Tool { message, .. } => Error::internal(message),
                ToolError::Protocol(e) => e,
            }),
        }
    }
}

/// What a resource read may return; `uri` and `mime_type` fill in text contents.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be returned from an MCP resource",
    note = "return String, ReadResourceResult, or a Result of one of these whose error implements Display (ToolError::resource_not_found for a URI that names nothing)"
)]
pub trait IntoResourceResult {
    /// The contents, or a JSON-RPC error.
    fn into_resource_result(
        self,
        uri: &str,
        mime_type: Option<&str>,
    ) -> Result<ReadResourceResult, Error>;
}

impl IntoResourceResult for ReadResourceResult {
    fn into_resource_result(self, _: &str, _: Option<&str>) -> Result<ReadResourceResult, Error> {
        Ok(self)
    }
}

impl IntoResourceResult for String {
    fn into_resource_result(
        self,
        uri: &str,
        mime_type: Option<&str>,
    ) -> Result<ReadResourceResult, Error> {
        Ok(ReadResourceResult {
            meta: None,
            cache_scope: None,
            contents: vec![ReadResourceResultContentsItem::TextResourceContents(
                TextResourceContents {
                    meta: None,
                    mime_type: mime_type.map(str::to_string),
                    text: self,
                    uri: uri.to_string(),
                    extra: Map::new(),
                },
            )],
            result_type: Some(ResultType::Complete),
            ttl_ms: None,
            extra: Map::new(),
        })
    }
}

impl<T: IntoResourceResult, E: fmt::Display + 'static> IntoResourceResult for Result<T, E> {
    fn into_resource_result(
        self,
        uri: &str,
        mime_type: Option<&str>,
    ) -> Result<ReadResourceResult, Error> {
        match self {
            Ok(t) => t.into_resource_result(uri, mime_type),
            Err(e) => Err(match ToolError::of(e) {
                ToolError::Tool { message, .. } => Error::internal(message),
                ToolError::Protocol(e) => e,
            }),
        }
    }
}
