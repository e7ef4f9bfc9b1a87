#!/usr/bin/env bash
# Build cost of a one-tool MCP server over stdio, what a desktop server ships: written with this
# project (oxmcp with `default-features = false, features = ["stdio"]`, #[mcp_tool]) and
# with rmcp 3.11 (features server, macros, transport-io; #[tool_router] over `stdio()`), the same
# tool in each. Every build is clean: an empty target directory, dependencies included (what a
# first build or a CI run pays), in the debug profile or, with `--release`, the release one.
# Both crates share the repository's Cargo.lock; the sides take turns in every round.
# Usage: benches/stdio-build-time.sh [ROUNDS] [--release]   (default 1; prints a Markdown table
# of medians, then each round's times and ratio)
set -euo pipefail
rounds=${1:-1}
profile=debug; release=()
if [ "${2:-}" = --release ]; then profile=release; release=(--release); fi
repo=$(cd "$(dirname "$0")/.." && pwd)
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
registry_profile oxmcp oxmcp-schema oxmcp-macros >> "$work/Cargo.toml"
cp "$repo/Cargo.lock" "$work/Cargo.lock"
cat > "$work/ours/Cargo.toml" <<TOML
[package]
name = "stdio-tool-ours"
version = "0.1.0"
edition = "2021"
[dependencies]
oxmcp = { path = "$repo/runtime", default-features = false, features = ["stdio"] }
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
async fn main() -> std::io::Result<()> {
    let server = oxmcp::Server::builder().tool(greet).build().map_err(std::io::Error::other)?;
    server.serve_stdio().await
}
RS
cat > "$work/rmcp/Cargo.toml" <<TOML
[package]
name = "stdio-tool-rmcp"
version = "0.1.0"
edition = "2021"
[dependencies]
rmcp = { version = "=3.11.0", default-features = false, features = ["server", "macros", "transport-io"] }
tokio = { version = "1", features = ["rt", "macros", "io-std"] }
serde = { version = "1", features = ["derive"] }
schemars = "1"
TOML
cat > "$work/rmcp/src/main.rs" <<'RS'
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{ServerCapabilities, ServerConfig};
use rmcp::{tool, tool_handler, tool_router, ServerHandler, ServiceExt};
RS
rmcp_greeter >> "$work/rmcp/src/main.rs"
cat >> "$work/rmcp/src/main.rs" <<'RS'

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let service = Greeter.serve(rmcp::transport::stdio()).await?;
    service.waiting().await?;
    Ok(())
}
RS
cd "$work"; [ -n "${KEEP:-}" ] && echo "kept: $work" >&2
cargo fetch -q
declare -A times crates
for _ in $(seq "$rounds"); do
  for side in ours rmcp; do
    export CARGO_TARGET_DIR="$work/target-$side"
    rm -rf "$CARGO_TARGET_DIR"
    times[$side]+="$(secs cargo build -q "${release[@]}" -p "stdio-tool-$side") "
    test -x "$CARGO_TARGET_DIR/$profile/stdio-tool-$side"
  done
done
for side in ours rmcp; do
  crates[$side]=$(cd "$work" && cargo tree -q -p "stdio-tool-$side" -e normal,build --prefix none | sed 's/ (\*)//' | sort -u | wc -l)
done
o=$(printf '%s\n' ${times[ours]} | median)
r=$(printf '%s\n' ${times[rmcp]} | median)
echo "| one-tool stdio server, clean $profile build (median of $rounds) | ours (s) | rmcp (s) | ours/rmcp |"
echo "|---|---|---|---|"
echo "| time | $o | $r | $(echo "scale=2; $o / $r" | bc) |"
echo "| crates compiled | ${crates[ours]} | ${crates[rmcp]} | |"
# Each round's times and ratio, in the order built: the spread says how far one median can move.
read -ra ours_rounds <<< "${times[ours]}"
read -ra rmcp_rounds <<< "${times[rmcp]}"
per_round=()
for i in "${!ours_rounds[@]}"; do
  per_round+=("$(printf '%s/%s = %.2f' "${ours_rounds[$i]}" "${rmcp_rounds[$i]}" "$(echo "${ours_rounds[$i]} / ${rmcp_rounds[$i]}" | bc -l)")")
done
echo
echo "Rounds (ours/rmcp, s): $(IFS=';'; echo "${per_round[*]}" | sed 's/;/; /g')"
