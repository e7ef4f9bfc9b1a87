#!/usr/bin/env bash
# Cold start and size of an MCP server as an AWS Lambda function, under the Lambda emulator of
# cargo-lambda (`cargo lambda watch --only-lambda-apis`, PyPI `cargo-lambda`): a one-tool server
# written with this project (oxmcp `default-features = false, features = ["lambda"]`,
# `oxmcp::lambda::run`) and with rmcp 3.11 (its stateless `StreamableHttpService` with JSON
# replies, wrapped in `lambda_http::run_with_streaming_response` the same way), the same tool in
# each, and the repository's Lambda example (the conformance fixture's tools). Release builds,
# as `cargo lambda build --release` makes them; the sizes are of those binaries and stripped.
#
# Each round starts a fresh function process and, at the same instant, sends one `tools/call`
# to the function URL (the emulator holds it until the function asks for an event):
# - init: from the process's start to its line saying it polls for events (each side prints it
#   just before the runtime loop, after building its server: Lambda's init phase);
# - first response: from the start to the call's full response (init, the first event's
#   handling, the emulator's own hops).
# Sides take turns in every round. Usage: benches/lambda-cold-start.sh [ROUNDS] (default 15).
set -euo pipefail
rounds=${1:-15}
repo=$(cd "$(dirname "$0")/.." && pwd)
cargo lambda --version >/dev/null 2>&1 || python3 -m pip install -q --root-user-action=ignore "cargo-lambda==1.9.2"
# shellcheck source=benches/build-common.sh
. "$repo/benches/build-common.sh"
work=$(mktemp -d)
trap '[ -n "${KEEP:-}" ] || rm -rf "$work"' EXIT
mkdir -p "$work/ours/src" "$work/rmcp/src"
cat > "$work/Cargo.toml" <<TOML
[workspace]
resolver = "2"
members = ["ours", "rmcp"]
TOML
cp "$repo/Cargo.lock" "$work/Cargo.lock"
cat > "$work/ours/Cargo.toml" <<TOML
[package]
name = "lambda-tool-ours"
version = "0.1.0"
edition = "2021"
[dependencies]
oxmcp = { path = "$repo/runtime", default-features = false, features = ["lambda"] }
tokio = { version = "1", features = ["rt", "macros"] }
TOML
cat > "$work/ours/src/main.rs" <<'RS'
use oxmcp::prelude::*;

/// Greets someone.
#[mcp_tool]
async fn greet(name: String) -> String {
    format!("Hello, {name}! EDIT0")
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), oxmcp::lambda::LambdaError> {
    // The runtime logs "serving MCP as a Lambda function" (to stderr) before it polls; without a
    // subscriber, say it here the same way.
    let lambda = oxmcp::lambda::Lambda::new(oxmcp::Server::builder().tool(greet));
    let (router, responses) = lambda.service()?;
    eprintln!("ready: serving MCP as a Lambda function ({responses:?})");
    lambda_http_run(router).await
}

async fn lambda_http_run(router: axum::Router) -> Result<(), oxmcp::lambda::LambdaError> {
    lambda_http::run_with_streaming_response(router)
        .await
        .map_err(|e| oxmcp::lambda::LambdaError::Runtime(oxmcp::Cause::boxed(e)))
}
RS
cat >> "$work/ours/Cargo.toml" <<TOML
lambda_http = { version = "1.3", default-features = false, features = ["apigw_http"] }
axum = { version = "0.8", default-features = false }
TOML
cat > "$work/rmcp/Cargo.toml" <<TOML
[package]
name = "lambda-tool-rmcp"
version = "0.1.0"
edition = "2021"
[dependencies]
rmcp = { version = "=3.11.0", default-features = false, features = ["server", "macros", "transport-streamable-http-server"] }
lambda_http = { version = "1.3", default-features = false, features = ["apigw_http"] }
axum = { version = "0.8", default-features = false }
tokio = { version = "1", features = ["rt", "macros"] }
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

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), lambda_http::Error> {
    let service = StreamableHttpService::new(
        || Ok(Greeter),
        Arc::new(LocalSessionManager::default()),
        StreamableHttpServerConfig::default()
            .with_legacy_session_mode(false)
            .with_json_response(true)
            .with_sse_keep_alive(None),
    );
    let router = axum::Router::new().nest_service("/mcp", service);
    eprintln!("ready: serving MCP as a Lambda function");
    lambda_http::run_with_streaming_response(router).await
}
RS
(cd "$work" && cargo build -q --release -p lambda-tool-ours -p lambda-tool-rmcp)
(cd "$repo" && cargo build -q --release -p oxmcp-lambda-example)
bins="$work/target/release/lambda-tool-ours $work/target/release/lambda-tool-rmcp $repo/target/release/oxmcp-lambda-example"
for b in $bins; do cp "$b" "$work/$(basename "$b").stripped"; strip "$work/$(basename "$b").stripped"; done

port=$(( 20000 + RANDOM % 20000 ))
(cd "$work" && exec cargo lambda watch --only-lambda-apis -A 127.0.0.1 -P "$port") >"$work/watch.log" 2>&1 &
watch_pid=$!
trap 'kill "$watch_pid" 2>/dev/null || true; [ -n "${KEEP:-}" ] || rm -rf "$work"' EXIT
for _ in $(seq 100); do (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break; sleep 0.1; done

python3 - "$port" "$rounds" "$work" $bins <<'PY'
import http.client, json, os, secrets, statistics, subprocess, sys, threading, time
port, rounds, work, bins = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4:]
names = {"lambda-tool-ours": "ours, one tool", "lambda-tool-rmcp": "rmcp, one tool",
         "oxmcp-lambda-example": "ours, the conformance fixture"}
tool = {"lambda-tool-ours": "greet", "lambda-tool-rmcp": "greet", "oxmcp-lambda-example": "test_simple_text"}
meta = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "bench", "version": "1"}}
env = dict(os.environ, AWS_LAMBDA_FUNCTION_NAME="_", AWS_LAMBDA_FUNCTION_VERSION="1",
           AWS_LAMBDA_FUNCTION_MEMORY_SIZE="1024", AWS_LAMBDA_RUNTIME_API=f"http://127.0.0.1:{port}/.rt",
           AWS_REGION="eu-west-1", MCP_STATE_KEYS="1:" + secrets.token_hex(32), RUST_LOG="info")
env.pop("MCP_TASK_STORE", None)

def call(name, out):
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                       "params": {"name": tool[name], "arguments": {"name": "Ada"}, "_meta": meta}})
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    c.request("POST", "/lambda-url/_/mcp", body, {
        "content-type": "application/json", "accept": "application/json, text/event-stream",
        "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/call", "mcp-name": tool[name]})
    r = c.getresponse(); data = r.read()
    out["done"] = time.perf_counter(); out["status"] = r.status; out["body"] = data[:300]

def once(path):
    name = os.path.basename(path)
    out = {}
    t0 = time.perf_counter()
    p = subprocess.Popen([path], env=env, stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True)
    t = threading.Thread(target=call, args=(name, out)); t.start()
    ready = None
    for line in p.stderr:
        if "serving MCP as a Lambda function" in line:
            ready = time.perf_counter(); break
    t.join(60)
    p.kill(); p.wait()
    assert ready and out.get("status") == 200 and b'"result"' in out["body"], (name, out)
    return (ready - t0) * 1000, (out["done"] - t0) * 1000

results = {b: ([], []) for b in bins}
for b in bins:
    once(b)  # a first run warms the page cache, as a host's image cache would
for _ in range(rounds):
    for b in bins:
        init, first = once(b)
        results[b][0].append(init); results[b][1].append(first)
print(f"| function (release, {rounds} cold starts each) | binary (MiB) | stripped (MiB) | init, median (ms) | first response, median (ms) | first response, max (ms) |")
print("|---|---|---|---|---|---|")
for b in bins:
    name = os.path.basename(b)
    size = os.path.getsize(b) / 2**20
    stripped = os.path.getsize(os.path.join(work, name + ".stripped")) / 2**20
    init, first = results[b]
    print(f"| {names[name]} | {size:.1f} | {stripped:.1f} | {statistics.median(init):.1f} | {statistics.median(first):.1f} | {max(first):.1f} |")
PY
