#!/usr/bin/env bash
# Where a flow's server CPU goes, ours against its floor: each server (the bench server and the
# floor, which answers with canned bytes) is loaded alone by `load probe` at concurrency C while
# `perf record` samples it with DWARF call graphs; every sample is put in one category by the
# first frame above the allocator, libc and the standard library that belongs to a known part (kernel time by the
# system call it serves), and the shares are turned into microseconds per HTTP request with the
# CPU per request the probe measured (sampling slows both servers alike, a few percent).
# Needs `perf` (Debian: linux-perf) and permission to profile (perf_event_paranoid <= 1, or root).
# Usage: benches/floor-profile.sh [plain|elicitation|multi] [CONCURRENCY] [SECONDS]
set -euo pipefail
flow=${1:-elicitation}; conc=${2:-8}; seconds=${3:-3}
cd "$(dirname "$0")/.."
command -v perf >/dev/null || { echo "perf is not installed (Debian: apt-get install linux-perf)" >&2; exit 1; }
cargo build -q --release -p mcp-benches --example load
work=$(mktemp -d)
trap 'pkill -f "examples/load serve" 2>/dev/null || true; rm -rf "$work"' EXIT
for server in ours floor; do
  target/release/examples/load probe --server "$server" --flow "$flow" --concurrency "$conc" \
    --seconds "$((seconds + 3))" --reps 1 --poll-idle > "$work/$server.probe" 2>&1 &
  probe=$!
  pid=
  for _ in $(seq 50); do
    pid=$(pgrep -f "examples/load serve $server" | head -1 || true)
    [ -n "$pid" ] && break
    sleep 0.1
  done
  [ -n "$pid" ] || { echo "the $server server did not start" >&2; exit 1; }
  sleep 1.5
  perf record -q -F 1999 --call-graph dwarf,16384 -p "$pid" -o "$work/$server.data" -- sleep "$seconds" >/dev/null 2>&1
  wait "$probe"
  perf script -i "$work/$server.data" 2>/dev/null > "$work/$server.txt"
done
python3 - "$work" "$flow" "$conc" <<'PY'
import collections, re, sys
work, flow, conc = sys.argv[1:4]
# (category, pattern of a frame): the first frame above libc that matches one names the sample.
parts = [
    ("typed JSON parse", r"oxmcp_schema::|serde_json::de|serde_core::de|serde_json::read|Incoming::parse"),
    ("JSON write", r"serde_json::ser|to_json|serde_core::ser"),
    ("AEAD and SHA-256", r"\baes|sha2::|polyval|aes_gcm_siv|ctr::"),
    ("replay guard", r"ReplayGuard"),
    ("state codec (framing, base64)", r"request_state::|base64"),
    ("floor's canned reply", r"floor::|axum::handler::Handler"),
    ("ours: HTTP edge (checks, routing)", r"oxmcp::http"),
    ("ours: MCP (dispatch, round, handler)", r"oxmcp::|mcp_tests::"),
    ("hyper and http", r"hyper::|httparse|http::|hyper_util|axum::"),
    ("tokio and mio", r"tokio::|mio::"),
]
syscalls = [("kernel: send", r"writev|sendmsg|__send|libc_write"), ("kernel: receive", r"recv|__libc_read"),
            ("kernel: epoll and parking", r"epoll"), ("kernel: futex", r"futex|syscall")]
# Frames that belong to no part (libc, the standard library's generic code): skipped, so their time
# goes to the part that called them.
libc = re.compile(r"libc\.so|\(inlined\)|\[vdso\]|\[unknown\]|std::|core::|alloc::|<core::|<alloc::|<std::|__rust|digest::|<digest::|hashbrown::|indexmap::|<indexmap::|<&mut ")

def owner(frames, skip, table, unmatched, none):
    """The name in `table` whose pattern the first frame not `skip`ped matches (`unmatched` when
    none does; `none` when every frame is skipped)."""
    for f in frames:
        if not skip(f):
            return next((name for name, pat in table if re.search(pat, f)), unmatched)
    return none

def category(frames):
    if "kallsyms" in frames[0]:
        return owner(frames, lambda f: "kallsyms" in f, syscalls, "kernel: other", "kernel: interrupts")
    return owner(frames, libc.search, parts, "other", "other")

rows, cpu = {}, {}
for server in ("ours", "floor"):
    text = open(f"{work}/{server}.probe").read()
    m = re.search(r"server CPU ([0-9.]+) µs/request", text)
    if not m:
        sys.exit(f"{server}: no CPU figure in the probe's output:\n{text}")
    cpu[server] = float(m.group(1))
    counts, n = collections.Counter(), 0
    for block in open(f"{work}/{server}.txt").read().split("\n\n"):
        lines = block.strip().split("\n")
        if len(lines) < 2:
            continue
        n += 1
        counts[category(lines[1:])] += 1
    rows[server] = {k: cpu[server] * v / n for k, v in counts.items()}
names = sorted(set(rows["ours"]) | set(rows["floor"]), key=lambda k: -rows["ours"].get(k, 0) - rows["floor"].get(k, 0))
print(f"| {flow}, concurrency {conc}: µs of server CPU per request | ours | floor | ours - floor |")
print("|---|---|---|---|")
for k in names:
    o, f = rows["ours"].get(k, 0.0), rows["floor"].get(k, 0.0)
    if max(o, f) >= 0.05:
        print(f"| {k} | {o:.2f} | {f:.2f} | {o - f:+.2f} |")
print(f"| **all (the probe's CPU per request, under perf)** | **{cpu['ours']:.1f}** | **{cpu['floor']:.1f}** | **{cpu['ours'] - cpu['floor']:+.1f}** |")
PY
