#!/usr/bin/env bash
# The client's side of the end-to-end flows, two builds side by side: `client_flows` built from
# REV and from this checkout take turns (the order reversed every other round) against one
# bench server of this checkout, REPS rounds per concurrency; prints, per flow and concurrency,
# the median flows/s and client CPU per flow of each build and their ratio (above 1: this
# checkout is better).
# Usage: benches/client-ab.sh REV [REPS] [SECONDS]
set -euo pipefail
cd "$(dirname "$0")/.."
rev=$1; reps=${2:-8}; seconds=${3:-0.5}
old=$(benches/build-at.sh "$rev" client_flows benches/examples/client_flows.rs)
cargo build -q --release -p mcp-benches --example client_flows --example load
new=target/release/examples/client_flows
out=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$out"' EXIT
target/release/examples/load serve ours >"$out/port" &
for _ in $(seq 100); do grep -q PORT "$out/port" 2>/dev/null && break; sleep 0.1; done
url="http://127.0.0.1:$(sed -n 's/^PORT //p' "$out/port")/mcp"
for rep in $(seq "$reps"); do
  for conc in 1 8; do
    if [ $((rep % 2)) -eq 0 ]; then order="old new"; else order="new old"; fi
    for side in $order; do
      bin=$old; [ "$side" = new ] && bin=$new
      "$bin" "$url" --seconds "$seconds" --concurrency "$conc" | sed "s/^/$side /" >>"$out/runs"
    done
  done
done
python3 - "$out/runs" "$rev" <<'PY'
import sys, statistics
rows = {}
for line in open(sys.argv[1]):
    side, flow, conc, rate, cpu, errors = line.split()
    r = rows.setdefault((flow, int(conc)), {"old": [], "new": [], "errors": 0})
    r[side].append((float(rate), float(cpu)))
    r["errors"] += int(errors)
print(f"| flow | concurrency | {sys.argv[2]} flows/s | this flows/s | ratio | {sys.argv[2]} client CPU µs/flow | this client CPU µs/flow | ratio | errors |")
print("|---|---|---|---|---|---|---|---|---|")
for (flow, conc), r in rows.items():
    o_rate = statistics.median(x[0] for x in r["old"]); n_rate = statistics.median(x[0] for x in r["new"])
    o_cpu = statistics.median(x[1] for x in r["old"]); n_cpu = statistics.median(x[1] for x in r["new"])
    print(f"| {flow} | {conc} | {o_rate:.0f} | {n_rate:.0f} | {n_rate/o_rate:.2f} | {o_cpu:.1f} | {n_cpu:.1f} | {o_cpu/n_cpu:.2f} | {r['errors']} |")
PY
