#!/usr/bin/env bash
# The Lambda example under the real emulator (`cargo lambda watch`, cargo-lambda from PyPI):
# its tests (a fresh function process before every round of a flow, a changed key ring, hosts,
# bad requests, an API Gateway event through `cargo lambda invoke`, buffered responses), then
# the official conformance suite at 2026-07-28 (`--suite all`) against the function URL of
# `cargo lambda watch` running the example with eight function instances.
# Fails on any failed check. Warnings are printed: the two list-changed checks (SEP-2575) warn
# when the change lands on another instance than the subscription stream, as it may on any
# host of many instances.
# Usage: .ci/lambda.sh   (from the repository root; needs target/conformance from conformance.sh)
set -euo pipefail
cd "$(dirname "$0")/.."
CARGO_LAMBDA_VERSION=1.9.2
if ! cargo lambda --version 2>/dev/null | grep -q "$CARGO_LAMBDA_VERSION"; then
  python3 -m pip install -q --disable-pip-version-check --root-user-action=ignore "cargo-lambda==$CARGO_LAMBDA_VERSION"
fi
cargo lambda --version

cargo test -q -p oxmcp-lambda-example

dir=target/conformance
node22="$PWD/$dir/node_modules/.bin/node"
suite="$PWD/$dir/node_modules/.bin/conformance"
[ -x "$suite" ] || { echo "the conformance suite is not installed: run .ci/conformance.sh first"; exit 1; }
rm -rf "$dir/out-lambda"
port=$(( 20000 + RANDOM % 20000 ))
keys="1:$(python3 -c 'import secrets; print(secrets.token_hex(32))')"
(cd examples/lambda && exec cargo lambda watch -q -A 127.0.0.1 -P "$port" --concurrency 8 --ignore-changes \
  --env-var "MCP_STATE_KEYS=$keys") >"$dir/lambda-watch.log" 2>&1 &
watch_pid=$!
cleanup() {
  kill "$watch_pid" 2>/dev/null || true
  # Function processes outlive the emulator: stop them too.
  pkill -f 'target/debug/oxmcp-lambda-example' 2>/dev/null || true
}
trap cleanup EXIT
for _ in $(seq 300); do
  if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then break; fi
  sleep 0.2
done
url="http://127.0.0.1:$port/lambda-url/oxmcp-lambda-example/mcp"
echo "== conformance --suite all (2026-07-28) against $url"
status=0
"$node22" "$suite" server --url "$url" --suite all --spec-version 2026-07-28 -o "$dir/out-lambda" >"$dir/lambda.log" 2>&1 || status=1
sed -n '/=== SUMMARY ===/,$p' "$dir/lambda.log" | grep -E '✗|Total' || true
python3 - "$dir"/out-lambda/*/checks.json <<'PY'
import json, sys
for path in sys.argv[1:]:
    for check in json.load(open(path)):
        if check.get("status") == "WARNING":
            print("warning:", check["id"])
PY
grep -qE 'Total: [0-9]+ passed, 0 failed' "$dir/lambda.log" || status=1
if [ "$status" != 0 ]; then tail -n 60 "$dir/lambda.log"; tail -n 40 "$dir/lambda-watch.log"; fi
exit "$status"
