//! `mcp-runtime`: write MCP handlers as plain async functions that ask the user, the client's
//! model or the client's roots, and resume across Multi Round-Trip Requests on any instance.
//!
//! The one crate a server author depends on: it re-exports the typed bindings as [`schema`] and
//! the macros (`#[mcp_tool]`, `#[mcp_prompt]`, `#[mcp_resource]`, `#[derive(ElicitForm)]`,
//! `#[derive(ElicitEnum)]`). Start with the [`guide`].

// Handlers fail with the protocol's own error object (`mcp_schema::Error`, about 170 bytes):
// boxing it would make every handler signature noisier for no measurable gain on this path.
#![allow(clippy::result_large_err)]

pub mod ask;
pub mod client;
pub mod engine;
pub mod form;
pub mod guide;
pub mod handler;
pub mod http;
pub mod notify;
pub mod server;
pub mod state;
pub mod stdio;

/// Lock `m`, taking over a lock whose holder panicked: every mutex here guards bookkeeping that
/// stays consistent between statements, and one panicking handler must not wedge the rest.
pub(crate) fn lock<T>(m: &std::sync::Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    match m.lock() {
        Ok(g) => g,
        Err(poisoned) => poisoned.into_inner(),
    }
}

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
pub use notify::{log, notify_list_changed, notify_resource_updated, progress};
pub use server::{ListKind, Server, ServerBuilder};
pub use state::{InMemoryReplayGuard, ReplayGuard, StateCodec, StateKey, StateKeys};
/// Await several asks at once; they are sent to the client in one round.
pub use tokio::join;

/// Everything a handler module usually needs.
pub mod prelude {
    pub use crate::{
        elicit, elicit_url, join, list_roots, mcp_prompt, mcp_resource, mcp_tool, sample, step,
        AskError, ElicitEnum, ElicitForm, Elicited, Json, SampledText, Sampling, Server, ToolError,
    };
}

/// Support for macro-generated code; not a public API.
#[doc(hidden)]
pub mod __private {
    pub use crate::handler::BoxFuture;
    pub use indexmap::IndexMap;
    pub use schemars;
    pub use serde;
    pub use serde_json;

    use mcp_schema::{Error, Prompt, Resource, ResourceTemplate, Tool, ToolInputSchema};
    use serde_json::{json, Map, Value};

    /// A tool descriptor from the macro's options.
    pub fn tool(
        name: &str,
        title: Option<&str>,
        description: Option<&str>,
        input_schema: ToolInputSchema,
        output_schema: Option<Map<String, Value>>,
        [read_only, destructive, idempotent, open_world]: [Option<bool>; 4],
    ) -> Tool {
        let mut annotations = Map::new();
        for (k, v) in [
            ("readOnlyHint", read_only),
            ("destructiveHint", destructive),
            ("idempotentHint", idempotent),
            ("openWorldHint", open_world),
        ] {
            if let Some(v) = v {
                annotations.insert(k.into(), v.into());
            }
        }
        let mut t = json!({ "name": name, "inputSchema": Value::Null });
        if let Some(title) = title {
            t["title"] = title.into();
        }
        if let Some(d) = description {
            t["description"] = d.into();
        }
        if let Some(o) = output_schema {
            t["outputSchema"] = Value::Object(o);
        }
        if !annotations.is_empty() {
            t["annotations"] = Value::Object(annotations);
        }
        t["inputSchema"] = serde_json::to_value(input_schema).unwrap_or(json!({"type": "object"}));
        serde_json::from_value(t).unwrap_or_else(|_| Tool {
            meta: None,
            annotations: None,
            description: None,
            icons: None,
            input_schema: ToolInputSchema {
                schema: None,
                type_: Default::default(),
                extra: Map::new(),
            },
            name: name.to_string(),
            output_schema: None,
            title: None,
            extra: Map::new(),
        })
    }

    /// A prompt descriptor: arguments as (name, description, required).
    pub fn prompt(
        name: &str,
        title: Option<&str>,
        description: Option<&str>,
        args: &[(&str, Option<&str>, bool)],
    ) -> Prompt {
        let arguments: Vec<Value> = args
            .iter()
            .map(|(n, d, r)| {
                let mut a = json!({ "name": n, "required": r });
                if let Some(d) = d {
                    a["description"] = (*d).into();
                }
                a
            })
            .collect();
        let mut p = json!({ "name": name });
        if let Some(title) = title {
            p["title"] = title.into();
        }
        if let Some(d) = description {
            p["description"] = d.into();
        }
        if !arguments.is_empty() {
            p["arguments"] = Value::Array(arguments);
        }
        serde_json::from_value(p).unwrap_or_else(|_| Prompt {
            meta: None,
            arguments: None,
            description: None,
            icons: None,
            name: name.to_string(),
            title: None,
            extra: Map::new(),
        })
    }

    fn described(
        uri_key: &str,
        uri: &str,
        name: &str,
        title: Option<&str>,
        description: Option<&str>,
        mime: Option<&str>,
    ) -> Value {
        let mut r = json!({ uri_key: uri, "name": name });
        if let Some(t) = title {
            r["title"] = t.into();
        }
        if let Some(d) = description {
            r["description"] = d.into();
        }
        if let Some(m) = mime {
            r["mimeType"] = m.into();
        }
        r
    }

    /// A resource descriptor, for a URI without template variables.
    pub fn resource(
        uri: &str,
        name: &str,
        title: Option<&str>,
        description: Option<&str>,
        mime: Option<&str>,
    ) -> Option<Resource> {
        if uri.contains('{') {
            return None;
        }
        serde_json::from_value(described("uri", uri, name, title, description, mime)).ok()
    }

    /// A resource template descriptor, for a URI with template variables.
    pub fn resource_template(
        uri: &str,
        name: &str,
        title: Option<&str>,
        description: Option<&str>,
        mime: Option<&str>,
    ) -> Option<ResourceTemplate> {
        if !uri.contains('{') {
            return None;
        }
        serde_json::from_value(described(
            "uriTemplate",
            uri,
            name,
            title,
            description,
            mime,
        ))
        .ok()
    }

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
    pub fn parse_args<T: serde::de::DeserializeOwned>(
        args: Map<String, Value>,
    ) -> Result<T, String> {
        serde_json::from_value(Value::Object(args)).map_err(|e| format!("invalid arguments: {e}"))
    }

    /// Box a handler future.
    pub fn boxed<T, F>(f: F) -> crate::handler::BoxFuture<T>
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
        let text = lines
            .iter()
            .map(|l| l.trim())
            .collect::<Vec<_>>()
            .join("\n");
        let text = text.trim();
        (!text.is_empty()).then(|| text.to_string())
    }
}
