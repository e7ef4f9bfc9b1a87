#!/usr/bin/env bash
# Build cost of the generated bindings next to the published rust-mcp-schema 2.0.0 (2026_07_28
# feature only) and rmcp 3.11's model types (rmcp without default features), dev profile,
# measured in one run on this machine. Two views:
#   crate: the binding crate alone, its dependencies already built;
#   user:  the binding crate plus a small binary that parses and writes ClientRequest,
#          ServerResult and JSONRPCMessage (what a server actually pays).
# Usage: benches/build-time.sh [RUNS [VIEWS]]   (defaults 3 and "crate user"; prints a Markdown
# table of medians)
set -euo pipefail
runs=${1:-3}
views=${2:-crate user}
repo=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=benches/build-common.sh
. "$repo/benches/build-common.sh"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/ours/src" "$work/theirs/src" "$work/rmcp/src"
cat > "$work/Cargo.toml" <<TOML
[workspace]
resolver = "2"
members = ["ours", "theirs", "rmcp"]
TOML
registry_profile oxmcp-schema >> "$work/Cargo.toml"
cat > "$work/ours/Cargo.toml" <<TOML
[package]
name = "bt-ours"
version = "0.1.0"
edition = "2021"
[dependencies]
oxmcp-schema = { path = "$repo/generated" }
serde_json = { version = "1", features = ["preserve_order"] }
TOML
cat > "$work/theirs/Cargo.toml" <<TOML
[package]
name = "bt-theirs"
version = "0.1.0"
edition = "2021"
[dependencies]
rust-mcp-schema = { version = "=2.0.0", default-features = false, features = ["2026_07_28"] }
serde_json = { version = "1", features = ["preserve_order"] }
TOML
cat > "$work/rmcp/Cargo.toml" <<TOML
[package]
name = "bt-rmcp"
version = "0.1.0"
edition = "2021"
[dependencies]
rmcp = { version = "=3.11.0", default-features = false }
serde_json = { version = "1", features = ["preserve_order"] }
TOML
cp "$repo/Cargo.lock" "$work/Cargo.lock"
main='fn main() {
    let input = std::env::args().nth(1).unwrap_or_default();
    let a: Result<LIB::ClientRequest, _> = serde_json::from_str(&input);
    let b: Result<LIB::ServerResult, _> = serde_json::from_str(&input);
    let c: Result<LIB::MSG, _> = serde_json::from_str(&input);
    println!("{:?} {:?} {:?}", a.map(|v| serde_json::to_string(&v).unwrap()),
        b.map(|v| serde_json::to_string(&v).unwrap()), c.map(|v| serde_json::to_string(&v).unwrap()));
}'
echo "${main//LIB/oxmcp_schema}" | sed 's/MSG/JSONRPCMessage/' > "$work/ours/src/main.rs"
echo "${main//LIB/rust_mcp_schema}" | sed 's/MSG/JsonrpcMessage/' > "$work/theirs/src/main.rs"
echo "${main//LIB/rmcp::model}" | sed 's/MSG/ClientJsonRpcMessage/' > "$work/rmcp/src/main.rs"
cd "$work"
export CARGO_TARGET_DIR="$work/target"
cargo build -q

measure() { # profile view side
  local flag=""; [ "$1" = release ] && flag="--release"
  local lib pkg
  case "$3" in ours) lib=oxmcp-schema ;; theirs) lib=rust-mcp-schema ;; *) lib=rmcp ;; esac
  pkg=bt-$3
  for _ in $(seq "$runs"); do
    if [ "$2" = crate ]; then
      cargo clean -q -p "$lib" $flag
      local s; s=$(date +%s.%N); cargo build -q -p "$lib" $flag; local e; e=$(date +%s.%N)
    else
      cargo clean -q -p "$lib" -p "$pkg" $flag
      local s; s=$(date +%s.%N); cargo build -q -p "$pkg" $flag; local e; e=$(date +%s.%N)
    fi
    echo "$e - $s" | bc
  done | median
}
echo "| build (dev profile, median of $runs) | oxmcp-schema (s) | rust-mcp-schema 2.0.0 (s) | ratio rms/ours | rmcp 3.11 model (s) | ratio rmcp/ours |"
echo "|---|---|---|---|---|---|"
for view in $views; do
  o=$(measure dev $view ours); t=$(measure dev $view theirs); r=$(measure dev $view rmcp)
  echo "| $view | $o | $t | $(echo "scale=2; $t / $o" | bc) | $r | $(echo "scale=2; $r / $o" | bc) |"
done
