#!/usr/bin/env bash
# Build cost of a one-tool MCP server over streamable HTTP: written with this project
# (oxmcp, #[mcp_tool]), with rmcp 3.11 (#[tool_router], StreamableHttpService) and with
# rust-mcp-sdk 2.0 (#[mcp_tool] + tool_box!, ServerHandler, its McpHttpHandler mounted on axum;
# features server, macros, streamable-http), the same tool in each. "clean" builds everything
# from an empty target directory (dependencies included, which is what a first build or a CI run
# pays); "edit" changes the tool's body and rebuilds (what an author pays per change). All crates
# share the repository's Cargo.lock. Sides take turns in every round.
# Usage: benches/server-build-time.sh [EDIT_RUNS [CLEAN_RUNS [DEADLINE]]]   (defaults 3, 3 and
# none; prints a Markdown table of medians). DEADLINE (seconds since the epoch) bounds the clean
# rounds: the first round and the edit rebuilds always run, a further clean round only starts if
# the last one would still end before DEADLINE (benches/run.sh uses this to stay in its budget).
set -euo pipefail
runs=${1:-3}
clean_runs=${2:-3}
deadline=${3:-0}
repo=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=benches/build-common.sh
. "$repo/benches/build-common.sh"
work=$(mktemp -d)
trap '[ -n "${KEEP:-}" ] || rm -rf "$work"' EXIT
mkdir -p "$work/ours/src" "$work/rmcp/src" "$work/sdk/src"
cat > "$work/Cargo.toml" <<TOML
[workspace]
resolver = "2"
members = ["ours", "rmcp", "sdk"]
TOML
registry_profile oxmcp oxmcp-schema oxmcp-macros >> "$work/Cargo.toml"
cp "$repo/Cargo.lock" "$work/Cargo.lock"
cat > "$work/ours/Cargo.toml" <<TOML
[package]
name = "one-tool-ours"
version = "0.1.0"
edition = "2021"
[dependencies]
oxmcp = { path = "$repo/runtime" }
tokio = { version = "1", features = ["rt-multi-thread", "macros"] }
TOML
cat > "$work/ours/src/main.rs" <<'RS'
use oxmcp::prelude::*;
use std::sync::Arc;

/// Greets someone.
#[mcp_tool]
async fn greet(name: String) -> String {
    format!("Hello, {name}! EDIT0")
}

#[tokio::main]
async fn main() -> std::io::Result<()> {
    let server = oxmcp::Server::builder().tool(greet).build().map_err(std::io::Error::other)?;
    oxmcp::http::serve(Arc::new(server), "127.0.0.1:3000", Default::default()).await
}
RS
cat > "$work/rmcp/Cargo.toml" <<TOML
[package]
name = "one-tool-rmcp"
version = "0.1.0"
edition = "2021"
[dependencies]
rmcp = { version = "=3.11.0", default-features = false, features = ["server", "macros", "transport-streamable-http-server"] }
tokio = { version = "1", features = ["rt-multi-thread", "macros"] }
axum = { version = "0.8", default-features = false, features = ["http1", "tokio"] }
serde = { version = "1", features = ["derive"] }
schemars = "1"
TOML
cat > "$work/rmcp/src/main.rs" <<'RS'
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{ServerCapabilities, ServerConfig};
use rmcp::transport::streamable_http_server::{
    session::local::LocalSessionManager, StreamableHttpServerConfig, StreamableHttpService,
};
use rmcp::{tool, tool_handler, tool_router, ServerHandler};
use std::sync::Arc;
RS
rmcp_greeter >> "$work/rmcp/src/main.rs"
cat >> "$work/rmcp/src/main.rs" <<'RS'

#[tokio::main]
async fn main() -> std::io::Result<()> {
    let service = StreamableHttpService::new(
        || Ok(Greeter),
        Arc::new(LocalSessionManager::default()),
        StreamableHttpServerConfig::default().with_legacy_session_mode(false).with_json_response(true),
    );
    let router = axum::Router::new().nest_service("/mcp", service);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:3000").await?;
    axum::serve(listener, router).await
}
RS
cat > "$work/sdk/Cargo.toml" <<TOML
[package]
name = "one-tool-sdk"
version = "0.1.0"
edition = "2021"
[dependencies]
rust-mcp-sdk = { version = "=2.0.0", default-features = false, features = ["server", "macros", "streamable-http"] }
tokio = { version = "1", features = ["rt-multi-thread", "macros"] }
axum = { version = "0.8", default-features = false, features = ["http1", "tokio"] }
serde = { version = "1", features = ["derive"] }
serde_json = "1"
async-trait = "0.1"
TOML
cat > "$work/sdk/src/main.rs" <<'RS'
use async_trait::async_trait;
use axum::extract::State;
use rust_mcp_sdk::id_generator::{FastIdGenerator, UuidGenerator};
use rust_mcp_sdk::macros::{mcp_tool, JsonSchema};
use rust_mcp_sdk::mcp_http::{McpAppState, McpHttpHandler, DEFAULT_MAX_LISTEN_STREAMS};
use rust_mcp_sdk::mcp_server::{ServerHandler, ToMcpServerHandler};
use rust_mcp_sdk::schema::{
    schema_utils::CallToolError, CallToolRequestParams, CallToolResult, Implementation,
    ListToolsResult, ListToolsResultCacheScope, PaginatedRequestParams, RpcError,
    ServerCapabilities, ServerCapabilitiesTools, ServerResult, TextContent,
};
use rust_mcp_sdk::{tool_box, McpServer, RequestContext, ServerDetails, TransportOptions};
use std::sync::Arc;
use std::time::Duration;

#[mcp_tool(name = "greet", description = "Greets someone.")]
#[derive(Debug, serde::Deserialize, serde::Serialize, JsonSchema)]
pub struct Greet {
    /// Who to greet.
    name: String,
}

tool_box!(Tools, [Greet]);

struct Greeter;

#[async_trait]
impl ServerHandler for Greeter {
    async fn handle_list_tools_request(
        &self,
        _params: Option<PaginatedRequestParams>,
        _context: &RequestContext,
        _runtime: Arc<dyn McpServer>,
    ) -> Result<ListToolsResult, RpcError> {
        Ok(ListToolsResult {
            cache_scope: ListToolsResultCacheScope::Private,
            result_type: "complete".into(),
            ttl_ms: 0,
            meta: None,
            next_cursor: None,
            tools: Tools::tools(),
        })
    }

    async fn handle_call_tool_request(
        &self,
        params: CallToolRequestParams,
        _context: &RequestContext,
        _runtime: Arc<dyn McpServer>,
    ) -> Result<ServerResult, CallToolError> {
        match Tools::try_from(params).map_err(CallToolError::new)? {
            Tools::Greet(Greet { name }) => Ok(CallToolResult::text_content(vec![
                TextContent::from(format!("Hello, {name}! EDIT0")),
            ])
            .into()),
        }
    }
}

async fn post(
    State((state, handler)): State<(Arc<McpAppState>, Arc<McpHttpHandler>)>,
    headers: axum::http::HeaderMap,
    uri: axum::http::Uri,
    body: String,
) -> axum::response::Response {
    let request = McpHttpHandler::create_request(axum::http::Method::POST, uri, headers, Some(&body));
    match handler.handle_streamable_http(request, state).await {
        Ok(response) => {
            let (parts, body) = response.into_parts();
            axum::response::Response::from_parts(parts, axum::body::Body::new(body))
        }
        Err(e) => axum::response::IntoResponse::into_response((
            axum::http::StatusCode::INTERNAL_SERVER_ERROR,
            e.to_string(),
        )),
    }
}

#[tokio::main]
async fn main() -> std::io::Result<()> {
    let details = ServerDetails {
        server_info: Implementation {
            name: "one-tool".into(),
            version: "0.1.0".into(),
            title: None,
            description: None,
            icons: vec![],
            website_url: None,
        },
        capabilities: ServerCapabilities {
            tools: Some(ServerCapabilitiesTools { list_changed: None }),
            ..Default::default()
        },
        instructions: None,
        meta: None,
    };
    let state = Arc::new(McpAppState {
        id_generator: Arc::new(UuidGenerator {}),
        stream_id_gen: Arc::new(FastIdGenerator::new(Some("s_"))),
        server_details: Arc::new(details),
        handler: Greeter.to_mcp_server_handler(),
        ping_interval: Duration::from_secs(12),
        transport_options: Arc::new(TransportOptions::default()),
        enable_json_response: true,
        message_observer: None,
        extensions: Arc::new(tokio::sync::RwLock::new(None)),
        active_listen_streams: Arc::new(tokio::sync::Mutex::new(Vec::new())),
        max_listen_streams: DEFAULT_MAX_LISTEN_STREAMS,
    });
    let handler = Arc::new(McpHttpHandler::new(vec![], None));
    let router = axum::Router::new()
        .route("/mcp", axum::routing::post(post))
        .with_state((state, handler));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:3000").await?;
    axum::serve(listener, router).await
}
RS
cd "$work"
cargo fetch -q
sides="ours rmcp sdk"
declare -A cleans clean edit
clean_round() { # one clean build per side, sides in turn
  for side in $sides; do
    export CARGO_TARGET_DIR="$work/target-$side"
    rm -rf "$CARGO_TARGET_DIR"
    cleans[$side]+="$(secs cargo build -q -p "one-tool-$side") "
    test -x "$CARGO_TARGET_DIR/debug/one-tool-$side"
  done
}
round_started=$(date +%s)
clean_round
round_secs=$(( $(date +%s) - round_started ))
done_rounds=1
# Edit rebuilds on the first round's target directories, so they always have their medians.
for side in $sides; do
  export CARGO_TARGET_DIR="$work/target-$side"
  edit[$side]=$(for i in $(seq "$runs"); do
    sed -i "s/EDIT[0-9]*/EDIT$i/" "$work/$side/src/main.rs"
    secs cargo build -q -p "one-tool-$side"
  done | median)
done
while [ "$done_rounds" -lt "$clean_runs" ]; do
  if [ "$deadline" -gt 0 ] && [ $(( $(date +%s) + round_secs )) -gt "$deadline" ]; then break; fi
  clean_round
  done_rounds=$(( done_rounds + 1 ))
done
for side in $sides; do
  clean[$side]=$(printf '%s\n' ${cleans[$side]} | median)
done
r() { echo "scale=2; $1 / $2" | bc; }
echo "| one-tool server (dev profile) | oxmcp (s) | rmcp 3.11 (s) | ratio rmcp/ours | rust-mcp-sdk 2.0 (s) | ratio rms/ours |"
echo "|---|---|---|---|---|---|"
if [ "$done_rounds" -gt 1 ]; then clean_label="median of $done_rounds"; else clean_label="one build each"; fi
echo "| clean build, dependencies included ($clean_label) | ${clean[ours]} | ${clean[rmcp]} | $(r "${clean[rmcp]}" "${clean[ours]}") | ${clean[sdk]} | $(r "${clean[sdk]}" "${clean[ours]}") |"
echo "| edit the tool body, rebuild (median of $runs) | ${edit[ours]} | ${edit[rmcp]} | $(r "${edit[rmcp]}" "${edit[ours]}") | ${edit[sdk]} | $(r "${edit[sdk]}" "${edit[ours]}") |"
if [ "$done_rounds" -lt "$clean_runs" ]; then
  echo
  echo "Clean builds: $done_rounds of $clean_runs rounds ($round_secs s each) fitted in the run's time budget."
fi
