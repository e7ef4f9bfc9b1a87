//! `oxmcp`: write MCP handlers as plain async functions that ask the user, the client's
//! model or the client's roots, and resume across Multi Round-Trip Requests on any instance.
//!
//! The one crate a server author depends on: it re-exports the typed bindings as [`schema`] and
//! the macros (`#[mcp_tool]`, `#[mcp_prompt]`, `#[mcp_resource]`, `#[derive(ElicitForm)]`,
//! `#[derive(ElicitEnum)]`). Start with the [`guide`].
//!
//! Cargo features: `http` (streamable HTTP server, on axum), `stdio` (stdio server) and `client`
//! (an MRTR client over HTTP or stdio) are on by default; a stdio-only server builds with
//! `default-features = false, features = ["stdio"]` and compiles no HTTP stack. `bench` exposes
//! internals for the project's benchmarks (`oxmcp::bench`); it is not a stable API.
//!
//! The crate is built in layers whose imports point one way (see ARCHITECTURE.md):
//! `wire` <- `handler` <- `resume` <- `server` <- `transport`, and the client on `wire` alone.

#![cfg_attr(docsrs, feature(doc_cfg))]
// Handlers fail with the protocol's own error object (`oxmcp_schema::Error`, about 170 bytes):
// boxing it would make every handler signature noisier for no measurable gain on this path.
#![allow(clippy::result_large_err)]
// Helpers shared by the transports and the client are unused when some of them are left out;
// the full build (all features, as CI checks it) still reports dead code.
#![cfg_attr(
    not(all(feature = "http", feature = "stdio", feature = "client")),
    allow(dead_code, unused_imports)
)]

mod handler;
mod resume;
mod server;
mod transport;
mod wire;

#[cfg(feature = "client")]
#[cfg_attr(docsrs, doc(cfg(feature = "client")))]
pub mod client;
pub mod guide;
#[cfg(feature = "logging")]
#[cfg_attr(docsrs, doc(cfg(feature = "logging")))]
pub mod logging;
#[cfg(feature = "auth")]
#[cfg_attr(docsrs, doc(cfg(feature = "auth")))]
pub use transport::auth;
#[cfg(feature = "http")]
#[cfg_attr(docsrs, doc(cfg(feature = "http")))]
pub use transport::http;
#[cfg(feature = "stdio")]
#[cfg_attr(docsrs, doc(cfg(feature = "stdio")))]
pub use transport::stdio;

pub use handler::{
    match_template, AskError, CallParts, ElicitEnum, ElicitField, ElicitForm, FieldOptions,
    FromCall, IntoPromptResult, IntoResourceResult, IntoToolResult, Json, Need, Principal,
    PromptHandler, ResourceHandler, State, TaskMode, TaskSupport, ToolError, ToolHandler,
};
pub use oxmcp_macros::{mcp_prompt, mcp_resource, mcp_tool, mcp_type, ElicitEnum, ElicitForm};
pub use oxmcp_schema as schema;
pub use resume::ask::{
    elicit, elicit_url, list_roots, sample, step, AskFuture, Elicit, ElicitUrl, Elicited,
    ListRoots, Sample, SampledText, Sampling,
};
pub use resume::context::RequestContext;
pub use resume::engine::{current_request, start_task, RequestInfo};
pub use resume::events::ListKind;
pub use resume::notify::{
    close_stream, log, notify_list_changed, notify_resource_updated, progress,
};
pub use resume::state::{
    GuardFuture, InMemoryReplayGuard, Journal, Recorded, ReplayGuard, SharedReplayGuard,
    StateCodec, StateError, StateKey, StateKeyError, StateKeys, STATE_KEYS_ENV,
};
pub use server::legacy::LEGACY_VERSIONS;
/// Tasks and single-use `requestState` shared by every instance through Redis.
#[cfg(feature = "redis")]
#[cfg_attr(docsrs, doc(cfg(feature = "redis")))]
pub use server::redis_store as redis;
pub use server::task_store::{
    InMemoryTaskStore, TaskRecord, TaskStatus, TaskStore, TaskStoreError,
};
pub use server::tasks::TASKS_EXTENSION;
pub use server::testing;
pub use server::{
    BuildError, CompletionFn, Server, ServerBuilder, QUOTA_EXCEEDED, SUPPORTED_VERSIONS,
};
/// Await several asks at once; they are sent to the client in one round.
pub use tokio::join;
#[cfg(any(feature = "http", feature = "stdio"))]
pub use transport::shutdown_signal;
pub use transport::Limits;
pub use wire::{BoxFuture, Notifier, Reply};

// The Rust blocks of the README and of the guides in docs/ are compiled (and the runnable ones
// run) as doctests.
#[cfg(doctest)]
#[doc = include_str!("../../README.md")]
struct ReadmeDoctests;
#[cfg(doctest)]
#[doc = include_str!("../../docs/server.md")]
struct ServerGuideDoctests;
#[cfg(doctest)]
#[doc = include_str!("../../docs/bindings.md")]
struct BindingsGuideDoctests;

/// Everything a handler module usually needs.
pub mod prelude {
    pub use crate::{
        elicit, elicit_url, join, list_roots, mcp_prompt, mcp_resource, mcp_tool, mcp_type, sample,
        step, AskError, ElicitEnum, ElicitForm, Elicited, Json, Principal, RequestContext,
        SampledText, Sampling, Server, State, ToolError,
    };
}

/// Internals exposed for the project's benchmarks and white-box tests (feature `bench`): the
/// state codec's binding and sealed contents, the codec as the MRTR round uses it, the engine's
/// outcome. Not a stable API.
#[cfg(feature = "bench")]
#[cfg_attr(docsrs, doc(cfg(feature = "bench")))]
pub mod bench {
    pub use crate::resume::engine::Outcome;
    pub use crate::resume::state::{journal_of, Binding, Bound, BoundCodec, Sealed, TokenId};
}

/// Support for macro-generated code; not a public API.
#[doc(hidden)]
pub mod __private {
    pub use crate::handler::describe::{
        prompt, resource, resource_template, tool, ResourceSpec, ToolSpec,
    };
    pub use crate::handler::extract::failed;
    pub use crate::handler::form::{parse_single, single_select};
    pub use crate::wire::BoxFuture;
    pub use indexmap::IndexMap;
    /// Without the `derive` feature, `#[mcp_type]` gets one error, which names the feature.
    #[cfg(not(feature = "derive"))]
    pub use oxmcp_macros::{
        JsonSchemaNeedsDeriveFeature as DeriveJsonSchema,
        SerdeNeedsDeriveFeature as DeriveDeserialize, SerdeNeedsDeriveFeature as DeriveSerialize,
    };
    #[cfg(feature = "schemars")]
    pub use schemars;
    /// The serde facade, which `#[mcp_type]`'s derives name; without `derive` the runtime builds
    /// on serde_core alone.
    #[cfg(feature = "derive")]
    pub use serde;
    pub use serde_json;
    /// The derives `#[mcp_type]` applies.
    #[cfg(feature = "derive")]
    pub use {
        schemars::JsonSchema as DeriveJsonSchema, serde::Deserialize as DeriveDeserialize,
        serde::Serialize as DeriveSerialize,
    };

    use oxmcp_schema::{Error, ToolInputSchema};
    use serde_json::{Map, Value};

    #[cfg(not(feature = "schemars"))]
    pub use crate::handler::schema::NeedsSchemarsFeature;
    pub use crate::handler::schema::{builtin, schema_of, Builtin, Defs};

    /// One argument of a tool, as `#[mcp_tool]` describes it for the `inputSchema`.
    pub struct ArgSchema {
        /// The property name on the wire.
        pub name: &'static str,
        /// `#[arg(description = ...)]`.
        pub description: Option<&'static str>,
        /// `#[arg(header = ...)]`: the `x-mcp-header` extension.
        pub header: Option<&'static str>,
        /// An `Option<T>` argument: may be left out.
        pub optional: bool,
        /// The argument type's schema: [`builtin`] for the types the macro recognizes,
        /// [`schema_of`] (schemars) for any other.
        pub schema: fn(&mut Defs) -> Value,
    }

    /// The `inputSchema` of a tool's arguments: an object with one property per argument, the
    /// non-optional ones required, and the definitions of the types they refer to.
    pub fn input_schema(args: &[ArgSchema]) -> ToolInputSchema {
        let schema = args_schema(args);
        // Through schemars' own serializer when a schemars schema may be in it: it puts the
        // keywords in their usual order (`$schema`, `description`, `type`, ... `$defs`) at every
        // level. The built-in schemas and the object around them are written in that order.
        #[cfg(feature = "schemars")]
        let value = serde_json::to_value(schemars::Schema::from(schema)).unwrap_or(Value::Null);
        #[cfg(not(feature = "schemars"))]
        let value = Value::Object(schema);
        crate::handler::describe::input_schema(value)
    }

    /// The arguments object schema of [`input_schema`], before it becomes a descriptor.
    pub(crate) fn args_schema(args: &[ArgSchema]) -> Map<String, Value> {
        let mut defs = Defs::new();
        let mut properties = Map::new();
        let mut required = Vec::new();
        for arg in args {
            let mut property = Map::new();
            if let Some(text) = arg.description.filter(|d| !d.is_empty()) {
                property.insert("description".into(), text.into());
            }
            match (arg.schema)(&mut defs) {
                Value::Object(schema) => property.extend(schema),
                // `false`: no value is valid; `true` (any value) is the empty object.
                Value::Bool(false) => {
                    property.insert("not".into(), Value::Object(Map::new()));
                }
                _ => {}
            }
            if let Some(header) = arg.header {
                property.insert("x-mcp-header".into(), header.into());
            }
            if arg.optional {
                // Left out, the argument is `None`: what the schema says as its default.
                property.insert("default".into(), Value::Null);
            } else {
                required.push(Value::from(arg.name));
            }
            properties.insert(arg.name.into(), Value::Object(property));
        }
        let mut object = Map::new();
        object.insert("$schema".into(), crate::handler::schema::DIALECT.into());
        object.insert("type".into(), "object".into());
        object.insert("properties".into(), Value::Object(properties));
        if !required.is_empty() {
            object.insert("required".into(), Value::Array(required));
        }
        let definitions = defs.take();
        if !definitions.is_empty() {
            object.insert("$defs".into(), Value::Object(definitions));
        }
        object
    }

    /// The argument `name` taken out of `args` and deserialized, or the message for a tool
    /// error. An absent argument is `None` when `optional` (an `Option` parameter) and an error
    /// otherwise; arguments no parameter names are ignored.
    pub fn arg<T: serde_core::de::DeserializeOwned>(
        args: &mut Map<String, Value>,
        name: &str,
        optional: bool,
    ) -> Result<T, String> {
        // The map is the handler's own and is dropped after the last argument: its order need
        // not be kept.
        let value = match args.swap_remove(name) {
            Some(value) => value,
            None if optional => Value::Null,
            None => return Err(format!("invalid arguments: missing field `{name}`")),
        };
        serde_json::from_value(value).map_err(|e| format!("invalid arguments: `{name}`: {e}"))
    }

    /// Box a handler future.
    pub fn boxed<T, F>(f: F) -> BoxFuture<T>
    where
        F: std::future::Future<Output = T> + Send + 'static,
    {
        Box::pin(f)
    }

    /// A tool error result for bad arguments.
    pub fn bad_args(message: String) -> Result<oxmcp_schema::CallToolResult, Error> {
        Ok(oxmcp_schema::CallToolResult::error(message))
    }
}
