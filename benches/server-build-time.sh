#!/usr/bin/env bash
# Build cost of a one-tool MCP server over streamable HTTP: written with this project
# (mcp-runtime, #[mcp_tool]) and with rmcp 3.11 (#[tool_router], StreamableHttpService), the
# same tool in each. "clean" builds everything from an empty target directory (dependencies
# included, which is what a first build or a CI run pays); "edit" changes the tool's body and
# rebuilds (what an author pays per change). Both crates share the repository's Cargo.lock.
# Usage: benches/server-build-time.sh [EDIT_RUNS]   (default 3; prints a Markdown table)
set -euo pipefail
runs=${1:-3}
repo=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/ours/src" "$work/rmcp/src"
cat > "$work/Cargo.toml" <<TOML
[workspace]
resolver = "2"
members = ["ours", "rmcp"]
TOML
cp "$repo/Cargo.lock" "$work/Cargo.lock"
cat > "$work/ours/Cargo.toml" <<TOML
[package]
name = "one-tool-ours"
version = "0.1.0"
edition = "2021"
[dependencies]
mcp-runtime = { path = "$repo/runtime" }
tokio = { version = "1", features = ["rt-multi-thread", "macros"] }
TOML
cat > "$work/ours/src/main.rs" <<'RS'
use mcp_runtime::prelude::*;
use std::sync::Arc;

/// Greets someone.
#[mcp_tool]
async fn greet(name: String) -> String {
    format!("Hello, {name}! EDIT0")
}

#[tokio::main]
async fn main() -> std::io::Result<()> {
    let server = mcp_runtime::Server::builder().tool(greet).build().map_err(std::io::Error::other)?;
    mcp_runtime::http::serve(Arc::new(server), "127.0.0.1:3000", Default::default()).await
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

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct GreetArgs {
    /// Who to greet.
    name: String,
}

#[derive(Clone)]
struct Greeter;

#[tool_router]
impl Greeter {
    #[tool(description = "Greets someone.")]
    async fn greet(&self, Parameters(GreetArgs { name }): Parameters<GreetArgs>) -> String {
        format!("Hello, {name}! EDIT0")
    }
}

#[tool_handler]
impl ServerHandler for Greeter {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }
}

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
cd "$work"
cargo fetch -q
secs() { # time a command; a failed build stops the script with its output
  local s e log; s=$(date +%s.%N)
  if ! log=$("$@" 2>&1); then echo "$log" >&2; echo "failed: $*" >&2; kill $$; exit 1; fi
  e=$(date +%s.%N); printf "%.1f\n" "$(echo "$e - $s" | bc)"
}
median() { sort -n | awk '{a[NR]=$1} END {m=(NR%2)?a[(NR+1)/2]:(a[NR/2]+a[NR/2+1])/2; printf "%.1f", m}'; }
declare -A clean edit
for side in ours rmcp; do
  export CARGO_TARGET_DIR="$work/target-$side"
  clean[$side]=$(secs cargo build -q -p "one-tool-$side")
  test -x "$CARGO_TARGET_DIR/debug/one-tool-$side"
done
for side in ours rmcp; do
  export CARGO_TARGET_DIR="$work/target-$side"
  edit[$side]=$(for i in $(seq "$runs"); do
    sed -i "s/EDIT[0-9]*/EDIT$i/" "$work/$side/src/main.rs"
    secs cargo build -q -p "one-tool-$side"
  done | median)
done
echo "| one-tool server (dev profile) | mcp-runtime (s) | rmcp 3.11 (s) | ratio rmcp/ours |"
echo "|---|---|---|---|"
echo "| clean build, dependencies included | ${clean[ours]} | ${clean[rmcp]} | $(echo "scale=2; ${clean[rmcp]} / ${clean[ours]}" | bc) |"
echo "| edit the tool body, rebuild (median of $runs) | ${edit[ours]} | ${edit[rmcp]} | $(echo "scale=2; ${edit[rmcp]} / ${edit[ours]}" | bc) |"
