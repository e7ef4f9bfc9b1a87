# Sourced by bindings-ab.sh and state-ab.sh: the cargo workspace around their side crates and the
# build of the one timing program. Both scripts set `repo` and `work` first.

# ab_manifests PROGRAM MEMBERS DEPS EXTRA: WORK/Cargo.toml, a workspace of MEMBERS (quoted,
# comma-separated) and the program; WORK/ab/Cargo.toml, the program PROGRAM depending on DEPS (the
# side crates), mcp-benches, serde_json, rmcp 3.11 and the lines in EXTRA.
ab_manifests() {
  local program=$1 members=$2 deps=$3 extra=${4:-}
  mkdir -p "$work/ab/src"
  cat > "$work/Cargo.toml" <<TOML
[workspace]
resolver = "2"
members = ["ab", $members]
TOML
  cat > "$work/ab/Cargo.toml" <<TOML
[package]
name = "$program"
version = "0.1.0"
edition = "2021"
[dependencies]$deps
mcp-benches = { path = "$repo/benches" }
serde_json = { version = "1", features = ["preserve_order", "raw_value"] }
rmcp = { version = "=3.11.0", default-features = false, features = ["server", "macros", "transport-streamable-http-server", "request-state", "elicitation", "schemars"] }
$extra
TOML
}

# ab_build PROGRAM: builds it with this checkout's lock file (new dependencies resolved fresh)
# and prints its path. AB_TARGET_DIR: a target directory of its own, e.g. for other RUSTFLAGS.
ab_build() {
  local target=${AB_TARGET_DIR:-$repo/target}
  cp "$repo/Cargo.lock" "$work/Cargo.lock"
  (cd "$work" && CARGO_TARGET_DIR="$target" cargo build -q --release -p "$1") >&2
  echo "$target/release/$1"
}

# ab_side CRATE DIR [FEATURES]: adds the side crate CRATE in WORK/DIR to the workspace members and
# to the program's dependencies (FEATURES: quoted and comma-separated).
members=''
deps=''
ab_side() {
  members="$members${members:+, }\"$2\""
  deps="$deps
$1 = { path = \"../$2\"${3:+, features = [$3]} }"
}
