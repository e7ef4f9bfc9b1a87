//! What the macros implement: tool, prompt and resource handlers, and the conversions from the
//! author's return types into MCP results.

use crate::ask::AskError;
use mcp_schema::{
    CallToolResult, ContentBlock, Error, GetPromptResult, Prompt, PromptMessage,
    ReadResourceResult, ReadResourceResultContentsItem, Resource, ResourceTemplate, ResultType,
    Role, TextContent, TextResourceContents, Tool,
};
use serde::Serialize;
use serde_json::{Map, Value};
use std::any::Any;
use std::fmt;
use std::future::Future;
use std::pin::Pin;

/// A boxed, sendable future.
pub type BoxFuture<T> = Pin<Box<dyn Future<Output = T> + Send + 'static>>;

/// A tool: its descriptor and how to call it. `#[mcp_tool]` implements this.
pub trait ToolHandler: Send + Sync + 'static {
    /// The descriptor listed by `tools/list` (built once, at registration).
    fn tool(&self) -> Tool;
    /// A digest of the handler's code, kept in `requestState` to notice code changes between rounds.
    fn fingerprint(&self) -> &'static str;
    /// Run the tool on `arguments`. Bad arguments are a tool error (`isError: true`).
    fn call(&self, arguments: Map<String, Value>) -> BoxFuture<Result<CallToolResult, Error>>;
}

/// A prompt: its descriptor and how to render it. `#[mcp_prompt]` implements this.
pub trait PromptHandler: Send + Sync + 'static {
    /// The descriptor listed by `prompts/list`.
    fn prompt(&self) -> Prompt;
    /// A digest of the handler's code.
    fn fingerprint(&self) -> &'static str;
    /// Render the prompt for `arguments`.
    fn get(&self, arguments: Map<String, Value>) -> BoxFuture<Result<GetPromptResult, Error>>;
}

/// A resource or resource template. `#[mcp_resource]` implements this.
pub trait ResourceHandler: Send + Sync + 'static {
    /// The resource, when its URI has no template variables.
    fn resource(&self) -> Option<Resource>;
    /// The template, when its URI has variables.
    fn template(&self) -> Option<ResourceTemplate>;
    /// The URI or URI template (`test://template/{id}/data`).
    fn uri_template(&self) -> &'static str;
    /// A digest of the handler's code.
    fn fingerprint(&self) -> &'static str;
    /// Read `uri`, whose template variables are in `vars`.
    fn read(
        &self,
        uri: String,
        vars: Map<String, Value>,
    ) -> BoxFuture<Result<ReadResourceResult, Error>>;
}

/// Match `uri` against a level-1 URI template (`{name}` segments); the variables, or `None`.
pub fn match_template(template: &str, uri: &str) -> Option<Map<String, Value>> {
    let mut vars = Map::new();
    let mut rest = uri;
    let mut t = template;
    loop {
        match t.find('{') {
            None => return (rest == t).then_some(vars),
            Some(open) => {
                let literal = &t[..open];
                rest = rest.strip_prefix(literal)?;
                let close = t[open..].find('}')? + open;
                let name = &t[open + 1..close];
                t = &t[close + 1..];
                // A variable runs to the next literal character of the template (or the end).
                let end = match t.chars().next() {
                    None => rest.len(),
                    Some(c) => rest.find(c)?,
                };
                if end == 0 {
                    return None;
                }
                vars.insert(name.to_string(), Value::String(rest[..end].to_string()));
                rest = &rest[end..];
            }
        }
    }
}

/// A tool failure. `Tool` errors are shown to the model (`isError: true`) so it can correct
/// itself; `Protocol` errors are JSON-RPC errors (e.g. -32021 for a missing capability).
#[derive(Debug, Clone, PartialEq)]
pub enum ToolError {
    /// An error the model reads in the result.
    Tool(String),
    /// A JSON-RPC error response.
    Protocol(Error),
}

impl ToolError {
    /// A tool error with this message.
    pub fn new(message: impl Into<String>) -> Self {
        ToolError::Tool(message.into())
    }

    /// From anything printable (for `map_err` on error types without a `From`).
    pub fn from_display(e: impl fmt::Display) -> Self {
        ToolError::Tool(e.to_string())
    }
}

impl fmt::Display for ToolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ToolError::Tool(m) => f.write_str(m),
            ToolError::Protocol(e) => write!(f, "{} ({})", e.message, e.code),
        }
    }
}

/// A missing capability becomes -32021 with `data.requiredCapabilities`; any other error is a
/// tool error with its message.
impl<E: std::error::Error + 'static> From<E> for ToolError {
    fn from(e: E) -> Self {
        match (&e as &dyn Any).downcast_ref::<AskError>() {
            Some(AskError::MissingCapability(caps)) => {
                ToolError::Protocol(Error::missing_required_client_capability(caps))
            }
            Some(AskError::OutsideHandler) => ToolError::Protocol(Error::internal(e.to_string())),
            None => ToolError::Tool(e.to_string()),
        }
    }
}

impl From<ToolError> for Result<CallToolResult, Error> {
    fn from(e: ToolError) -> Self {
        match e {
            ToolError::Tool(m) => Ok(CallToolResult::error(m)),
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
    note = "return String, CallToolResult, ContentBlock, Vec<ContentBlock>, Json<T>, (), or a Result of one of these with an error that converts into ToolError"
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

impl<T: IntoToolResult, E: Into<ToolError>> IntoToolResult for Result<T, E> {
    fn into_tool_result(self) -> Result<CallToolResult, Error> {
        match self {
            Ok(t) => t.into_tool_result(),
            Err(e) => e.into().into(),
        }
    }
    fn output_schema() -> Option<Map<String, Value>> {
        T::output_schema()
    }
}

/// What a prompt may return.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be returned from an MCP prompt",
    note = "return String, Vec<PromptMessage>, GetPromptResult, or a Result of one of these"
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

impl<T: IntoPromptResult, E: Into<ToolError>> IntoPromptResult for Result<T, E> {
    fn into_prompt_result(self) -> Result<GetPromptResult, Error> {
        match self {
            Ok(t) => t.into_prompt_result(),
            Err(e) => Err(match e.into() {
                ToolError::Tool(m) => Error::internal(m),
                ToolError::Protocol(e) => e,
            }),
        }
    }
}

/// What a resource read may return; `uri` and `mime_type` fill in text contents.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be returned from an MCP resource",
    note = "return String, ReadResourceResult, or a Result of one of these"
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

impl<T: IntoResourceResult, E: Into<ToolError>> IntoResourceResult for Result<T, E> {
    fn into_resource_result(
        self,
        uri: &str,
        mime_type: Option<&str>,
    ) -> Result<ReadResourceResult, Error> {
        match self {
            Ok(t) => t.into_resource_result(uri, mime_type),
            Err(e) => Err(match e.into() {
                ToolError::Tool(m) => Error::internal(m),
                ToolError::Protocol(e) => e,
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn templates() {
        let m = match_template("test://template/{id}/data", "test://template/42/data").unwrap();
        assert_eq!(m["id"], "42");
        assert!(match_template("test://template/{id}/data", "test://template//data").is_none());
        assert!(match_template("test://template/{id}/data", "test://other/42/data").is_none());
        assert!(match_template("test://static", "test://static")
            .unwrap()
            .is_empty());
        let m = match_template("file:///{dir}/{name}", "file:///a/b.txt").unwrap();
        assert_eq!(
            (m["dir"].as_str(), m["name"].as_str()),
            (Some("a"), Some("b.txt"))
        );
    }
}
