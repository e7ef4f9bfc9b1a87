#!/usr/bin/env bash
# The publishable crates package (`cargo package`, which builds each from its packaged sources
# against its packaged siblings), each package ships a README and the license files, and the
# packaged generator works for a build.rs user outside this workspace: a fresh crate in a
# temporary directory depends on the unpacked oxmcp-codegen package by path, generates the
# 2026-07-28 bindings in its build script from the schema the package carries (no download, no
# environment variable) and tests them.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
target=${CARGO_TARGET_DIR:-$root/target}

# cargo verifies each package against the others through a temporary local registry inside the
# target directory. Cargo never rebuilds a registry crate it has built before (a registry version
# is taken as immutable), so each run packages into a target directory of its own, whose registry
# is new to cargo; the compiled dependencies from crates.io are shared with the workspace's build
# folder (CARGO_BUILD_BUILD_DIR), so verification builds only the four packaged crates.
# Cargo also keeps what it extracted from that registry under CARGO_HOME; those go first.
pkg_target=$(mktemp -d "${TMPDIR:-/tmp}/oxmcp-package.XXXXXX")
work=$(mktemp -d)
trap 'rm -rf "$work" "$pkg_target"' EXIT
crates=(oxmcp-schema oxmcp-macros oxmcp oxmcp-codegen)
version=$(sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -1)
for krate in "${crates[@]}"; do
  rm -rf "${CARGO_HOME:-$HOME/.cargo}"/registry/src/-*/"$krate-$version"
done
CARGO_TARGET_DIR="$pkg_target" CARGO_BUILD_BUILD_DIR="$target" cargo package -q --allow-dirty "${crates[@]/#/-p}"
for krate in "${crates[@]}"; do
  listing=$(tar -tzf "$pkg_target/package/$krate-$version.crate")
  for file in README.md LICENSE-MIT LICENSE-APACHE; do
    grep -qx "$krate-$version/$file" <<<"$listing" || { echo "$krate-$version.crate lacks $file"; exit 1; }
  done
  manifest=$(tar -xzOf "$pkg_target/package/$krate-$version.crate" "$krate-$version/Cargo.toml")
  grep -q '^repository = ' <<<"$manifest" || { echo "$krate has no repository metadata"; exit 1; }
done
# The generator's package carries the schema of every pinned version.
codegen_listing=$(tar -tzf "$pkg_target/package/oxmcp-codegen-$version.crate")
for v in $(sed -n 's/.*"version": "\(.*\)".*/\1/p' schema/versions.json); do
  grep -qx "oxmcp-codegen-$version/schema/$v/schema.json" <<<"$codegen_listing" \
    || { echo "the oxmcp-codegen package lacks schema/$v/schema.json"; exit 1; }
done

tar -xzf "$pkg_target/package/oxmcp-codegen-$version.crate" -C "$work"
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
oxmcp-codegen = { path = "../oxmcp-codegen-VERSION", default-features = false }
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
sed -i "s/VERSION/$version/" "$work/user/Cargo.toml"
# Outside the workspace, with no schema anywhere on disk, the build uses the packaged copy.
(cd "$work/user" && CARGO_TARGET_DIR="$work/target" CARGO_BUILD_BUILD_DIR="$target" cargo test -q)
echo "packaged with README and licenses: ${crates[*]}; the packaged generator built bindings outside the workspace"
