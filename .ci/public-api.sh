#!/usr/bin/env bash
# The public API of the published crates, item by item, against the listing kept beside each
# crate (`<crate>/public-api.txt`): a change of the public surface fails here until the listing
# is updated with it, so it is reviewed as a diff. `--bless` rewrites the listings.
#
# rustdoc writes each crate's JSON description (the stable toolchain does when RUSTC_BOOTSTRAP
# allows its unstable flag), and the `public-api` library (in .ci/public-api, a tool of its own
# with its own lock file) lists it, leaving out blanket and auto-trait impls.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build -q --manifest-path .ci/public-api/Cargo.toml --locked --target-dir target/tools
listing="$PWD/target/tools/debug/public-api-listing"
# Only rustdoc is given RUSTC_BOOTSTRAP (through a wrapper cargo runs as its rustdoc): in cargo's
# own environment it would change every dependency's fingerprint, and the dependencies the docs
# were just built against would all be checked again.
rustdoc_json="$PWD/target/tools/rustdoc-json"
printf '#!/bin/sh\nRUSTC_BOOTSTRAP=1 exec %s "$@"\n' "$(rustup which rustdoc 2>/dev/null || command -v rustdoc)" >"$rustdoc_json"
chmod +x "$rustdoc_json"
status=0
# crate, folder, features
while read -r krate folder features; do
  fresh=$(mktemp)
  # shellcheck disable=SC2086
  RUSTDOC="$rustdoc_json" cargo rustdoc -q --lib -p "$krate" $features --color never \
    -- -Z unstable-options --output-format json 2>"$fresh.log" || { cat "$fresh.log"; exit 1; }
  "$listing" "target/doc/${krate//-/_}.json" >"$fresh"
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
