#!/usr/bin/env bash
# The library crates package (`cargo package`, which builds each from its packaged sources), and
# the packaged generator works for a build.rs user outside this workspace: a fresh crate in a
# temporary directory depends on the unpacked oxmcp-codegen package by path, generates the
# 2026-07-28 bindings in its build script and tests them.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
target=${CARGO_TARGET_DIR:-$root/target}

# cargo verifies each package against the others through a temporary local registry, and keeps
# what it extracted from that registry under CARGO_HOME; an extraction left by an earlier run of
# the same version would be used instead of this run's packages, so it goes first.
# Cargo also never rebuilds a registry crate it has built before (a registry version is taken as
# immutable), so verification builds in a target directory of its own, emptied first.
pkg_target="$target/package-verify"
rm -rf "$pkg_target"
for stale in "${CARGO_HOME:-$HOME/.cargo}"/registry/src/-*/mcp-{codegen,schema,macros,runtime}-0.1.0; do
  rm -rf "$stale"
done
CARGO_TARGET_DIR="$pkg_target" cargo package -q --allow-dirty -p oxmcp-codegen -p oxmcp-schema -p oxmcp-macros -p oxmcp

spec=${MCP_SPEC_DIR:-$root/../shared/mcp-spec}
spec=$(cd "$spec" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
tar -xzf "$pkg_target/package/oxmcp-codegen-0.1.0.crate" -C "$work"
mkdir -p "$work/user/src"
cat > "$work/user/Cargo.toml" <<TOML
[package]
name = "outside-user"
version = "0.0.0"
edition = "2021"
publish = false

[workspace]

[dependencies]
serde = "1"
serde_json = { version = "1", features = ["preserve_order"] }
indexmap = { version = "2", features = ["serde"] }

[build-dependencies]
oxmcp-codegen = { path = "../oxmcp-codegen-0.1.0", default-features = false }
TOML
cat > "$work/user/build.rs" <<'RS'
fn main() -> Result<(), Box<dyn std::error::Error>> {
    let out = std::path::PathBuf::from(std::env::var("OUT_DIR")?).join("mcp.rs");
    oxmcp_codegen::Builder::new().version("2026-07-28").out_file(out).generate()?;
    Ok(())
}
RS
cat > "$work/user/src/lib.rs" <<'RS'
#[allow(clippy::all, missing_docs)]
pub mod mcp {
    include!(concat!(env!("OUT_DIR"), "/mcp.rs"));
}

#[test]
fn packaged_generator_output_parses_a_request() {
    let text = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"x":0.5},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#;
    let req: mcp::ClientRequest = serde_json::from_str(text).unwrap();
    assert!(matches!(req, mcp::ClientRequest::CallToolRequest(_)));
    let back: serde_json::Value = serde_json::to_value(&req).unwrap();
    assert_eq!(back, serde_json::from_str::<serde_json::Value>(text).unwrap());
}
RS
# Outside the workspace the schema is found through MCP_SPEC_DIR; without it the build fails with
# a one-line error that says where it looked.
if (cd "$work/user" && env -u MCP_SPEC_DIR CARGO_TARGET_DIR="$target/outside-user" cargo build -q 2> "$work/err.txt"); then
  echo "a build without any schema available succeeded"; exit 1
fi
grep -q "no schema.json for 2026-07-28 (looked in $work/user/schema/2026-07-28/schema.json" "$work/err.txt" \
  || { echo "unexpected error:"; cat "$work/err.txt"; exit 1; }
(cd "$work/user" && MCP_SPEC_DIR="$spec" CARGO_TARGET_DIR="$target/outside-user" cargo test -q)
echo "packaged: oxmcp-codegen, oxmcp-schema, oxmcp-macros, oxmcp; the packaged generator built bindings outside the workspace"
