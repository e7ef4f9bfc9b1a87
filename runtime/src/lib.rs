//! `mcp-runtime`: write MCP handlers as plain async functions that ask the user, the client's
//! model or the client's roots, and resume across Multi Round-Trip Requests on any instance.
//!
//! The one crate a server author depends on: it re-exports the typed bindings as [`schema`] and
//! the macros (`#[mcp_tool]`, `#[mcp_prompt]`, `#[mcp_resource]`, `#[derive(ElicitForm)]`,
//! `#[derive(ElicitEnum)]`). Start with the [`guide`].

pub mod ask;
pub mod engine;
pub mod form;
pub mod guide;
pub mod handler;
pub mod server;
pub mod state;

pub use ask::{
    elicit, elicit_url, list_roots, sample, step, AskError, Elicited, SampledText, Sampling,
};
pub use engine::{current_request, RequestInfo};
pub use form::{ElicitEnum, ElicitField, ElicitForm, FieldOptions};
pub use handler::{
    IntoPromptResult, IntoResourceResult, IntoToolResult, Json, PromptHandler, ResourceHandler,
    ToolError, ToolHandler,
};
pub use mcp_macros::{mcp_prompt, mcp_resource, mcp_tool, ElicitEnum, ElicitForm};
pub use mcp_schema as schema;
pub use server::{Server, ServerBuilder};
pub use state::{InMemoryReplayGuard, ReplayGuard, StateCodec, StateKey, StateKeys};

/// Everything a handler module usually needs.
pub mod prelude {
    pub use crate::{
        elicit, elicit_url, list_roots, mcp_prompt, mcp_resource, mcp_tool, sample, step,
        AskError, ElicitEnum, ElicitForm, Elicited, Json, SampledText, Sampling, Server,
        ToolError,
    };
}

/// Support for macro-generated code; not a public API.
#[doc(hidden)]
pub mod __private {
    pub use schemars;
    pub use serde;
    pub use serde_json;

    use crate::handler::BoxFuture;
    use mcp_schema::{Error, ToolInputSchema};
    use serde_json::{Map, Value};

    /// The `inputSchema` of an arguments struct.
    pub fn input_schema<T: schemars::JsonSchema>() -> ToolInputSchema {
        let schema = schemars::schema_for!(T);
        let mut value = serde_json::to_value(schema).unwrap_or(Value::Null);
        if let Value::Object(m) = &mut value {
            m.remove("title");
            m.entry("type").or_insert_with(|| "object".into());
            if !m.contains_key("properties") {
                m.insert("properties".into(), Value::Object(Map::new()));
            }
        }
        serde_json::from_value(value).unwrap_or_else(|_| ToolInputSchema {
            schema: None,
            type_: Default::default(),
            extra: Map::new(),
        })
    }

    /// Parse arguments into `T`, or the message for a tool error.
    pub fn parse_args<T: serde::de::DeserializeOwned>(args: Map<String, Value>) -> Result<T, String> {
        serde_json::from_value(Value::Object(args)).map_err(|e| format!("invalid arguments: {e}"))
    }

    /// Box a handler future.
    pub fn boxed<T, F>(f: F) -> BoxFuture<T>
    where
        F: std::future::Future<Output = T> + Send + 'static,
    {
        Box::pin(f)
    }

    /// A tool error result for bad arguments.
    pub fn bad_args(message: String) -> Result<mcp_schema::CallToolResult, Error> {
        Ok(mcp_schema::CallToolResult::error(message))
    }

    /// Join doc-comment lines into one description.
    pub fn doc(lines: &[&str]) -> Option<String> {
        let text = lines.iter().map(|l| l.trim()).collect::<Vec<_>>().join("\n");
        let text = text.trim();
        (!text.is_empty()).then(|| text.to_string())
    }
}
