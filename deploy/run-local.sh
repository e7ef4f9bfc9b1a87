#!/usr/bin/env bash
# A deployment on this machine: Redis, three fixture server instances sharing one key ring and
# the Redis task store, and HAProxy in front (deploy/haproxy.cfg), at http://127.0.0.1:8080/mcp.
# Needs redis-server and haproxy (Debian: apt-get install redis-server haproxy). Stops
# everything on ctrl-c.
# Usage: deploy/run-local.sh   (environment: MCP_PROXY_PORT, default 8080)
set -euo pipefail
cd "$(dirname "$0")/.."
for tool in redis-server redis-cli haproxy; do
  command -v "$tool" >/dev/null || { echo "$tool is needed (Debian: apt-get install redis-server haproxy)"; exit 1; }
done
cargo build -q --release -p mcp-tests --bin conformance-server
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
work=$(mktemp -d)
pids=()
cleanup() { kill "${pids[@]}" 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT
redis_port=$(free_port)
redis-server --port "$redis_port" --bind 127.0.0.1 --save '' --appendonly no >"$work/redis.log" &
pids+=($!)
for _ in $(seq 50); do redis-cli -p "$redis_port" ping >/dev/null 2>&1 && break; sleep 0.1; done
# One key ring for every instance: a retry may land on any of them.
export MCP_STATE_KEYS="1:$(python3 -c 'import secrets; print(secrets.token_hex(32))')"
export MCP_TASK_STORE="redis://127.0.0.1:$redis_port" MCP_DRAIN_SECS=2 MCP_METRICS=1
for i in 1 2 3; do
  port=$(free_port)
  MCP_PORT=$port ./target/release/conformance-server >"$work/mcp$i.log" 2>&1 &
  pids+=($!)
  export "MCP_BACKEND_$i=127.0.0.1:$port"
done
export MCP_PROXY_BIND="127.0.0.1:${MCP_PROXY_PORT:-8080}" MCP_PROXY_ADMIN="$work/haproxy.sock"
haproxy -W -db -f deploy/haproxy.cfg &
pids+=($!)
echo "serving http://$MCP_PROXY_BIND/mcp through HAProxy to $MCP_BACKEND_1, $MCP_BACKEND_2 and $MCP_BACKEND_3 (logs in $work)"
echo "HAProxy's runtime API: $MCP_PROXY_ADMIN (e.g. echo 'set server oxmcp/mcp1 state drain' | socat stdio $MCP_PROXY_ADMIN)"
wait
