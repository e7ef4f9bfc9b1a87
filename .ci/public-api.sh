#!/usr/bin/env bash
# The public API of the published crates, item by item, against the listing kept beside each
# crate (`<crate>/public-api.txt`): a change of the public surface fails here until the listing
# is updated with it, so it is reviewed as a diff. `--bless` rewrites the listings.
#
# cargo-public-api (from crates.io, at a pinned version) reads rustdoc's JSON output, which the
# stable toolchain writes when RUSTC_BOOTSTRAP allows its unstable flag.
set -euo pipefail
cd "$(dirname "$0")/.."
version=0.52.0
tools="$PWD/target/tools"
if ! "$tools/bin/cargo-public-api" --version 2>/dev/null | grep -q "$version"; then
  # Optimized lightly: it reads three crates' rustdoc output once, and a release build of it
  # would take CI half a minute longer than it saves.
  cargo install -q cargo-public-api --version "$version" --locked --root "$tools" \
    --config 'profile.release.opt-level=1' --config 'profile.release.lto=false' \
    --config 'profile.release.codegen-units=256' --config 'profile.release.debug=false'
fi
export PATH="$tools/bin:$PATH"
status=0
# crate, folder, features
while read -r krate folder features; do
  fresh=$(mktemp)
  # shellcheck disable=SC2086
  RUSTC_BOOTSTRAP=1 cargo public-api -p "$krate" $features -ss --color never 2>"$fresh.log" >"$fresh" \
    || { cat "$fresh.log"; exit 1; }
  if [ "${1:-}" = "--bless" ]; then
    cp "$fresh" "$folder/public-api.txt"
  elif ! diff -u "$folder/public-api.txt" "$fresh" --label "$folder/public-api.txt" --label "$krate now"; then
    echo "the public API of $krate changed: review the diff above, then run .ci/public-api.sh --bless"
    status=1
  fi
  rm -f "$fresh" "$fresh.log"
done <<'CRATES'
oxmcp runtime --all-features
oxmcp-macros macros
oxmcp-codegen codegen --all-features
CRATES
exit "$status"
