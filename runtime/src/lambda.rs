//! Serving a [`Server`](crate::Server) as an AWS Lambda function (feature `lambda`): the same handlers, their
//! multi-round flows resumed by whichever function instance the next round reaches.
//!
//! ```no_run
//! # async fn run() -> Result<(), oxmcp::lambda::LambdaError> {
//! // The tools, prompts and resources as for any other transport; `main` changes, not them.
//! let server = oxmcp::Server::builder().name("weather");
//! oxmcp::lambda::run(server).await
//! # }
//! ```
//!
//! A function serves its endpoint at `/mcp` (as [`HttpConfig::path`] says), behind a function
//! URL or an API Gateway HTTP API. What a function host needs differs from a long-running
//! server's, so [`Lambda`] starts from these defaults and checks them before the first event:
//!
//! - **Keys.** Every round of a flow may reach another instance, so the `requestState` key ring
//!   must be shared: it comes from `MCP_STATE_KEYS` (or
//!   [`ServerBuilder::request_state_keys`]), and the function refuses to start without one
//!   ([`LambdaError::NoKeys`]).
//! - **What instances cannot keep.** 2025-era sessions live in one process, which a function
//!   instance is not, so they are not served: an `initialize` is refused with the error that
//!   names the supported versions. Tasks are offered only with a task store given
//!   ([`ServerBuilder::task_store`], shared by every instance, as
//!   `oxmcp::redis::RedisTaskStore` is); without one a tool that may run as a task answers at
//!   once, and one that runs only as a task stops the start ([`LambdaError::TaskOnly`]).
//!   Single use of `requestState` holds across instances only with a shared guard
//!   (`RequestStateCodec::shared_single_use`); without one the start log says so.
//! - **Hosts.** `Host` is still checked against DNS rebinding: the local names, every function
//!   URL and API Gateway name of the function's region (`*.lambda-url.REGION.on.aws`,
//!   `*.execute-api.REGION.amazonaws.com`, from `AWS_REGION`) and the names listed in
//!   `MCP_ALLOWED_HOSTS` (comma-separated: a custom domain) are accepted. `Origin` keeps the
//!   local names and `MCP_ALLOWED_ORIGINS`.
//! - **Callers.** The caller's address, which per-caller quotas count, is the source address
//!   of the event's request context (the function sees no connection of its own).
//! - **Responses.** Streamed by default (a function URL with the `RESPONSE_STREAM` invoke
//!   mode): progress and subscription streams reach the client as they happen. API Gateway
//!   and a function URL in `BUFFERED` mode return a response whole, so
//!   [`Responses::Buffered`] (or `MCP_LAMBDA_RESPONSES=buffered`) answers what would never
//!   end (`subscriptions/listen`) with an error that says why, and sends the rest whole.
//!
//! The function is configured by the environment Lambda gives it (`AWS_LAMBDA_*`, set by the
//! host or by `cargo lambda watch` locally) and the variables above. The repository's
//! `examples/lambda` is a function with the conformance fixture's tools, and docs/deploy.md
//! says how to deploy it.

use crate::http::HttpConfig;
use crate::request_state::{KeyRing, KeyRingError};
use crate::server::{BuildError, ServerBuilder};
use crate::wire::Cause;
use std::fmt;
use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;

/// How the function returns its responses: as the host's invoke mode says.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum Responses {
    /// Streamed (a function URL with the `RESPONSE_STREAM` invoke mode): every stream works.
    #[default]
    Streamed,
    /// Whole (API Gateway, or a function URL in `BUFFERED` mode): a stream that would never
    /// end is refused rather than left to hang until the function times out.
    Buffered,
}

impl Responses {
    /// The mode `MCP_LAMBDA_RESPONSES` names (`streamed` or `buffered`; streamed when unset).
    pub fn from_env() -> Result<Responses, LambdaError> {
        match std::env::var("MCP_LAMBDA_RESPONSES") {
            Err(_) => Ok(Responses::Streamed),
            Ok(mode) => match mode.trim().to_ascii_lowercase().as_str() {
                "" | "streamed" | "stream" | "response_stream" => Ok(Responses::Streamed),
                "buffered" => Ok(Responses::Buffered),
                _ => Err(LambdaError::Setting {
                    name: "MCP_LAMBDA_RESPONSES",
                    value: mode,
                    expected: "`streamed` or `buffered`",
                }),
            },
        }
    }
}

/// Why a function could not start.
#[derive(Debug)]
#[non_exhaustive]
pub enum LambdaError {
    /// No `requestState` key ring was configured: a flow could not resume on another instance.
    NoKeys,
    /// `MCP_STATE_KEYS` is malformed.
    Keys(KeyRingError),
    /// A tool runs only as a task, and tasks are not offered without a task store.
    TaskOnly {
        /// The tool.
        tool: String,
    },
    /// An environment variable holds a value the function cannot use.
    Setting {
        /// The variable.
        name: &'static str,
        /// What it holds.
        value: String,
        /// What it may hold.
        expected: &'static str,
    },
    /// The server could not be built.
    Build(BuildError),
    /// The Lambda runtime stopped with this error (it could not reach the runtime API, say).
    Runtime(Cause),
}

impl fmt::Display for LambdaError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LambdaError::NoKeys => f.write_str(
                "no requestState keys: a Lambda function needs the key ring every instance shares, so that a flow resumes wherever its next round lands; set MCP_STATE_KEYS to `1:<64 hex digits>` (for example `1:$(openssl rand -hex 32)`), kept in the function's configuration or a secret",
            ),
            LambdaError::Keys(e) => write!(f, "MCP_STATE_KEYS: {e}"),
            LambdaError::TaskOnly { tool } => write!(
                f,
                "the tool `{tool}` runs only as a task, and a Lambda function offers tasks only with a task store every instance shares: give ServerBuilder::task_store (oxmcp::redis::RedisTaskStore, say)"
            ),
            LambdaError::Setting {
                name,
                value,
                expected,
            } => write!(f, "{name}={value:?}: expected {expected}"),
            LambdaError::Build(e) => write!(f, "{e}"),
            LambdaError::Runtime(cause) => write!(f, "the Lambda runtime stopped: {cause}"),
        }
    }
}

impl std::error::Error for LambdaError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            LambdaError::Keys(e) => Some(e),
            LambdaError::Build(e) => Some(e),
            LambdaError::Runtime(cause) => Some(cause.get()),
            _ => None,
        }
    }
}

impl From<BuildError> for LambdaError {
    fn from(e: BuildError) -> Self {
        LambdaError::Build(e)
    }
}

/// A server about to run as a Lambda function: `Lambda::new(builder).run().await`, or
/// [`run`] for the defaults.
pub struct Lambda {
    server: ServerBuilder,
    config: Option<HttpConfig>,
    responses: Option<Responses>,
}

impl fmt::Debug for Lambda {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Lambda")
            .field("config", &self.config)
            .field("responses", &self.responses)
            .finish_non_exhaustive()
    }
}

/// Run `server` as a Lambda function with the defaults ([`Lambda`]): until the runtime stops,
/// or with the reason it cannot start.
pub async fn run(server: ServerBuilder) -> Result<(), LambdaError> {
    Lambda::new(server).run().await
}

impl Lambda {
    /// The function for the server `server` will build.
    pub fn new(server: ServerBuilder) -> Lambda {
        Lambda {
            server,
            config: None,
            responses: None,
        }
    }

    /// Settings of the endpoint instead of the defaults ([`Lambda::default_config`]): the
    /// hosts it accepts, limits, authentication.
    pub fn http(mut self, config: HttpConfig) -> Lambda {
        self.config = Some(config);
        self
    }

    /// How responses are returned, instead of what `MCP_LAMBDA_RESPONSES` says.
    pub fn responses(mut self, responses: Responses) -> Lambda {
        self.responses = Some(responses);
        self
    }

    /// The endpoint's default settings on Lambda: [`HttpConfig::default`] with the host names
    /// of the function's region (from `AWS_REGION`) and those of `MCP_ALLOWED_HOSTS` accepted
    /// in `Host`, and those of `MCP_ALLOWED_ORIGINS` in `Origin`.
    pub fn default_config() -> HttpConfig {
        let mut config = HttpConfig::default();
        let region = std::env::var("AWS_REGION")
            .or_else(|_| std::env::var("AWS_DEFAULT_REGION"))
            .ok()
            .filter(|r| !r.is_empty() && r.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-'));
        if let Some(region) = region {
            config
                .allowed_hosts
                .push(format!("*.lambda-url.{region}.on.aws"));
            config
                .allowed_hosts
                .push(format!("*.execute-api.{region}.amazonaws.com"));
        }
        config.allowed_hosts.extend(listed("MCP_ALLOWED_HOSTS"));
        config.allowed_origins.extend(listed("MCP_ALLOWED_ORIGINS"));
        config
    }

    /// The checked server and its endpoint as a service of Lambda requests, without the
    /// runtime: for a `main` that adds its own layers, or a test.
    pub fn service(self) -> Result<(axum::Router, Responses), LambdaError> {
        let responses = match self.responses {
            Some(r) => r,
            None => Responses::from_env()?,
        };
        let server = prepare(self.server)?.build()?;
        if !server.shares_single_use() {
            tracing::warn!(
                "requestState is single use on each instance only: another instance would accept a retry once more until the state expires; give a shared guard (RequestStateCodec::shared_single_use with oxmcp::redis::RedisReplayGuard) to hold it across instances"
            );
        }
        let mut config = self.config.unwrap_or_else(Lambda::default_config);
        config.buffered = responses == Responses::Buffered;
        let router = crate::http::router(Arc::new(server), config)
            .layer(axum::middleware::map_request(caller_address));
        Ok((router, responses))
    }

    /// Run the function until the Lambda runtime stops (it runs for the life of the process
    /// as a rule), or say why it cannot start.
    pub async fn run(self) -> Result<(), LambdaError> {
        let (router, responses) = self.service()?;
        tracing::info!(
            ?responses,
            "serving MCP as a Lambda function (2026-07-28 requests; no 2025 sessions)"
        );
        let outcome = match responses {
            Responses::Streamed => lambda_http::run_with_streaming_response(router).await,
            Responses::Buffered => lambda_http::run(router).await,
        };
        outcome.map_err(|e| LambdaError::Runtime(Cause::boxed(e)))
    }
}

/// The builder with what a function host needs: the shared key ring, no 2025 sessions, and
/// tasks only with a task store.
fn prepare(mut server: ServerBuilder) -> Result<ServerBuilder, LambdaError> {
    if !server.has_keys() {
        match KeyRing::from_env() {
            Ok(Some(keys)) => server = server.request_state_keys(keys),
            Ok(None) => return Err(LambdaError::NoKeys),
            Err(e) => return Err(LambdaError::Keys(e)),
        }
    }
    server = server.sessions(false);
    #[cfg(feature = "tasks")]
    if !server.has_task_store() {
        if let Some(tool) = server.task_only_tools().into_iter().next() {
            return Err(LambdaError::TaskOnly { tool });
        }
        tracing::info!(
            "tasks are not offered: no task store every instance shares (ServerBuilder::task_store); tools that may run as tasks answer at once"
        );
        server = server.without_tasks();
    }
    Ok(server)
}

/// The comma-separated names of the environment variable `name`.
fn listed(name: &str) -> Vec<String> {
    std::env::var(name)
        .unwrap_or_default()
        .split(',')
        .map(str::trim)
        .filter(|h| !h.is_empty())
        .map(str::to_string)
        .collect()
}

/// The request with its caller's address, from the event's request context, where the HTTP
/// transport reads a connection's peer.
async fn caller_address(mut request: axum::extract::Request) -> axum::extract::Request {
    use lambda_http::request::RequestContext;
    use lambda_http::RequestExt;
    let source = match request.request_context_ref() {
        Some(RequestContext::ApiGatewayV2(context)) => context.http.source_ip.as_deref(),
        _ => None,
    };
    if let Some(ip) = source.and_then(|ip| ip.parse::<IpAddr>().ok()) {
        request
            .extensions_mut()
            .insert(axum::extract::ConnectInfo(SocketAddr::new(ip, 0)));
    }
    request
}

#[cfg(test)]
mod tests {
    use super::*;
    use lambda_http::aws_lambda_events::apigw::ApiGatewayV2httpRequestContext;
    use lambda_http::request::RequestContext;

    #[tokio::test]
    async fn the_caller_is_the_source_address_of_the_events_request_context() {
        let mut context = ApiGatewayV2httpRequestContext::default();
        context.http.source_ip = Some("203.0.113.7".into());
        let mut request = axum::extract::Request::new(axum::body::Body::empty());
        request
            .extensions_mut()
            .insert(RequestContext::ApiGatewayV2(context));
        let request = caller_address(request).await;
        let peer = crate::http::edge::peer_of(request.extensions());
        assert_eq!(peer, Some("203.0.113.7:0".parse().unwrap()));

        // No context (or no address in it): no caller address, as before.
        let request = axum::extract::Request::new(axum::body::Body::empty());
        let request = caller_address(request).await;
        assert_eq!(crate::http::edge::peer_of(request.extensions()), None);
    }

    #[test]
    fn a_tool_that_runs_only_as_a_task_stops_a_start_without_a_task_store() {
        use crate::handler::{CallParts, TaskMode, TaskSupport, ToolHandler};
        struct Job;
        impl ToolHandler for Job {
            fn tool(&self) -> oxmcp_schema::Tool {
                serde_json::from_value(serde_json::json!({
                    "name": "job", "inputSchema": {"type": "object"}
                }))
                .expect("a tool descriptor")
            }
            fn fingerprint(&self) -> &'static str {
                "job"
            }
            fn call(
                &self,
                _: serde_json::Map<String, serde_json::Value>,
                _: &CallParts<'_>,
            ) -> crate::BoxFuture<Result<oxmcp_schema::CallToolResult, oxmcp_schema::Error>>
            {
                Box::pin(async { Err(oxmcp_schema::Error::internal("not run")) })
            }
            fn task_support(&self) -> TaskSupport {
                TaskSupport {
                    mode: TaskMode::Required,
                    explicit_start: false,
                }
            }
        }
        let keys = KeyRing::random().expect("a random key");
        let refused = prepare(
            crate::Server::builder()
                .request_state_keys(KeyRing::random().expect("a random key"))
                .tool(Job),
        )
        .err();
        assert!(
            matches!(&refused, Some(LambdaError::TaskOnly { tool }) if tool == "job"),
            "{refused:?}"
        );
        let store = Arc::new(crate::tasks::InMemoryTaskStore::default());
        assert!(prepare(
            crate::Server::builder()
                .request_state_keys(keys)
                .tool(Job)
                .task_store(store)
        )
        .is_ok());
    }
}
