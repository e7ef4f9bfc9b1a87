#!/usr/bin/env bash
# Build a benchmark example of another commit, to measure two builds side by side: the commit is
# checked out in a worktree under target/at/, FILES of this checkout are copied into it first
# (for an example the commit does not have), and the example is built in release with this
# checkout's compiled dependencies (the shared build folder). Prints the binary's path.
# Usage: benches/build-at.sh REV EXAMPLE [FILE...]
#   LOAD_FIXTURE_EXE=$(benches/build-at.sh REV load) target/release/examples/load --poll-idle
#   benches/client-ab.sh REV
set -euo pipefail
cd "$(dirname "$0")/.."
rev=$(git rev-parse --short "$1"); example=$2; shift 2
repo=$PWD
tree=$repo/target/at/$rev
if [ ! -d "$tree" ]; then
  git worktree add -q --detach "$tree" "$rev" >&2
fi
for file in "$@"; do
  mkdir -p "$tree/$(dirname "$file")"
  cp "$file" "$tree/$file"
done
# Cargo names a workspace member's artifacts by its path inside the workspace, so both checkouts'
# members share names in the shared build folder, and a member compiled for one checkout would
# pass as fresh for the other: the members' artifacts are forgotten before the build and after.
forget_members() {
  local members
  members=$(cargo metadata -q --no-deps --format-version 1 \
    | python3 -c 'import json, sys; print(" ".join("-p " + p["name"] for p in json.load(sys.stdin)["packages"]))')
  # shellcheck disable=SC2086
  cargo clean -q --release $members >&2
}
forget_members
(cd "$tree" && CARGO_TARGET_DIR="$tree/target" CARGO_BUILD_BUILD_DIR="$repo/target" \
  cargo build -q --release -p mcp-benches --example "$example" >&2)
forget_members
echo "$tree/target/release/examples/$example"
