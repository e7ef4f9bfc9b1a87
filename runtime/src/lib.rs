//! `oxmcp`: write MCP handlers as plain async functions that ask the user, the client's
//! model or the client's roots, and resume across Multi Round-Trip Requests on any instance.
//!
//! The one crate a server author depends on. The crate root holds what a handler and a server's
//! `main` write: [`Server`] and its builder, the asks ([`elicit`], [`sample`], [`list_roots`],
//! [`step`]), the handler parameters ([`State`], [`Principal`], [`RequestContext`]), the errors
//! and the macros (`#[mcp_tool]`, `#[mcp_prompt]`, `#[mcp_resource]`, `#[mcp_type]`,
//! `#[derive(ElicitForm)]`, `#[derive(ElicitEnum)]`). Start with the [`guide`]; the [`prelude`]
//! imports the usual names at once. The rest lives in topical modules:
//!
//! | module | reach for it to |
//! | --- | --- |
//! | [`schema`] | read and write protocol messages (the typed bindings) |
//! | [`http`] | serve streamable HTTP, mount the server in an axum app |
//! | [`stdio`] | serve a client that spawned this process |
//! | [`auth`] | verify bearer tokens (OAuth 2.1 resource server) |
//! | [`request_state`] | configure the `requestState` key ring, codec and single-use guard |
//! | [`tasks`] | keep tasks somewhere else than in memory (feature `tasks`) |
//! | `redis` | share tasks and single use between instances through Redis (feature `redis`) |
//! | `otel` | trace every flow and measure every request with OpenTelemetry (feature `otel`) |
//! | `lambda` | run the server as an AWS Lambda function (feature `lambda`) |
//! | [`skills`] | offer Agent Skills (the skills extension) |
//! | [`client`] | call MCP servers, answering their input requests |
//! | [`testing`] | drive a multi-round call in a unit test (with `client`) |
//! | [`server`] | change what a running server offers ([`server::Catalog`]) |
//! | [`handler`] | implement a handler by hand, or name the types the macros use |
//! | [`wire`] | feed the server messages yourself (`Server::handle_message`) |
//!
//! Cargo features: `http` (streamable HTTP server, on axum), `stdio` (stdio server) and `client`
//! (an MRTR client over HTTP or stdio) are on by default, with `auth`, `logging`, `derive`,
//! `skills` and `tasks` (the two extensions); a stdio-only server builds with
//! `default-features = false, features = ["stdio"]` and compiles no HTTP stack; it stops at end
//! of input, and also on ctrl-c or SIGTERM with `signal` (on with `http`). `redis` adds the
//! `redis` module, `otel` the `otel` module, `lambda` the `lambda` module. `bench` exposes internals for the project's benchmarks (`oxmcp::bench`); it
//! is not a stable API.
//!
//! The crate is built in layers whose imports point one way, from the transports down to `wire`;
//! ARCHITECTURE.md in the repository draws them.

#![cfg_attr(docsrs, feature(doc_cfg))]
#![forbid(unsafe_code)]
// Handlers fail with the protocol's own error object (`oxmcp_schema::Error`, about 170 bytes):
// boxing it would make every handler signature noisier for no measurable gain on this path.
#![allow(clippy::result_large_err)]

#[macro_use]
mod cfg;

pub mod handler;
pub mod request_state;
mod resume;
pub mod server;
cfg_tasks! {
    pub mod tasks;
}
// The HTTP client the runtime sends with (the MCP client, the OTLP exporters).
#[cfg(any(feature = "client", feature = "otel"))]
mod outbound;
mod transport;
pub mod wire;

cfg_auth! {
    pub mod auth;
}
cfg_client! {
    pub mod client;
}
pub mod guide;
cfg_http! {
    pub mod http;
}
cfg_lambda! {
    pub mod lambda;
}
cfg_logging! {
    pub mod logging;
}
cfg_metrics! {
    pub mod metrics;
}
cfg_otel! {
    pub mod otel;
}
cfg_redis! {
    pub mod redis;
}
cfg_skills! {
    pub mod skills;
}
cfg_stdio! {
    pub mod stdio;
}
cfg_client! {
    pub mod testing;
}

pub use handler::{AskError, ElicitEnum, ElicitForm, Json, Principal, State, ToolError};
pub use oxmcp_macros::{mcp_prompt, mcp_resource, mcp_tool, mcp_type, ElicitEnum, ElicitForm};
pub use oxmcp_schema as schema;
pub use resume::ask::{
    elicit, elicit_url, list_roots, sample, step, Elicited, SampledText, Sampling,
};
/// What an ask is until awaited: the values [`elicit`], [`elicit_url`], [`sample`] and
/// [`list_roots`] return, and the future they become. Each is a request to the client (a
/// round of `input_required` on 2026-07-28, a real request in a 2025 session); `.key(..)`
/// names its `inputRequests` entry instead of the call site.
pub mod ask {
    pub use crate::resume::ask::{AskFuture, Elicit, ElicitUrl, ListRoots, Sample};
}
pub use resume::context::RequestContext;
pub use resume::engine::{current_request, start_task, RequestInfo};
pub use resume::events::ListKind;
pub use resume::notify::{
    close_stream, log, notify_list_changed, notify_resource_updated, progress,
};
pub use server::{
    BuildError, CompletionFn, Server, ServerBuilder, QUOTA_EXCEEDED, SESSION_VERSIONS,
    SUPPORTED_VERSIONS,
};
cfg_signal! {
    pub use transport::shutdown_signal;
}
pub use transport::Limits;
pub use wire::{BoxFuture, Cause};

/// The `tracing` crate the runtime logs with, for handlers that log to the same subscriber
/// (`oxmcp::tracing::info!(..)`) without a dependency of their own.
pub use tracing;

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

/// Everything a handler module usually needs, `tokio::join` among it (await several asks at
/// once; they are sent to the client in one round).
pub mod prelude {
    pub use crate::{
        elicit, elicit_url, list_roots, mcp_prompt, mcp_resource, mcp_tool, mcp_type, sample, step,
        AskError, ElicitEnum, ElicitForm, Elicited, Json, Principal, RequestContext, SampledText,
        Sampling, Server, State, ToolError,
    };
    pub use tokio::join;
}

/// Internals exposed for the project's benchmarks and white-box tests (feature `bench`): the
/// request-state codec's binding and sealed contents, the codec as the MRTR round uses it, the engine's
/// outcome. Not a stable API.
#[cfg(feature = "bench")]
#[doc(hidden)]
pub mod bench {
    pub use crate::request_state::{journal_of, Binding, Bound, BoundCodec, Sealed, TokenId};
    pub use crate::resume::engine::Outcome;
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

    /// `#[mcp_tool(task = ...)]` checks with this that the runtime serves tasks: nothing with
    /// the `tasks` feature, one error that names the feature without it.
    #[cfg(feature = "tasks")]
    #[macro_export]
    #[doc(hidden)]
    macro_rules! __oxmcp_tasks_on {
        () => {};
    }
    #[cfg(not(feature = "tasks"))]
    #[macro_export]
    #[doc(hidden)]
    macro_rules! __oxmcp_tasks_on {
        () => {
            ::core::compile_error!(
                "a tool that runs as a task needs oxmcp's `tasks` feature: add \"tasks\" to its features"
            );
        };
    }
    pub use crate::__oxmcp_tasks_on as tasks_on;

    /// Whether this build has the `tasks` feature, for tests of a server whose behaviour
    /// depends on it: a workspace build unifies the features its members ask for.
    pub const TASKS: bool = cfg!(feature = "tasks");
    /// Whether this build has the `signal` feature (see [`TASKS`]).
    pub const SIGNAL: bool = cfg!(feature = "signal");
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
