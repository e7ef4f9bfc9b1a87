#!/usr/bin/env bash
# Run the whole benchmark suite side by side with rmcp 3.11, rust-mcp-schema 2.0 and rust-mcp-sdk
# 2.0 (the SDK built on rust-mcp-schema) and rewrite the generated part of BENCHMARKS.md.
# Usage: benches/run.sh
# Knobs (environment): SUITE_MINUTES (time budget of the whole run, building the benchmarks
# included; default 14), BENCH_TIME (criterion measurement seconds), LOAD_SECONDS (per load run), LOAD_GENERATOR_THREADS (default 1),
# LOAD_REPS (repetitions, servers taking turns), BUILD_RUNS (edit rebuilds of the one-tool
# servers), CLEAN_RUNS (at most this many rounds of clean builds of the one-tool servers: the
# first always runs, a further one only if it ends inside the budget), BINDINGS_RUNS (builds of
# the bindings alone; 0, the default, skips that table), BINDINGS_VIEWS ("crate user" adds the
# binding crate alone), LOAD_POLL_IDLE (1, the default, runs the main load tables with idle CPUs
# polling, which needs root; 0 leaves the host's idle states). The defaults keep a run from a
# fresh clone under 15 minutes on a 2-core machine. The tasks table needs Redis: MCP_TEST_REDIS_URL,
# or redis-server installed (started on a free port for the run).
set -euo pipefail
cd "$(dirname "$0")/.."
# Criterion's own medians are kept as baselines; the tables come from the interleaved pass each
# bench runs after criterion, so criterion gets short windows and leaves the time to the builds.
measure=${BENCH_TIME:-0.2}
criterion_args=(--warm-up-time 0.1 --measurement-time "$measure" --sample-size 20 --nresamples 1000)
started=$(date +%s)
step() { echo "[$(( $(date +%s) - started ))s] $*" >&2; }

budget_end=$(( started + ${SUITE_MINUTES:-14} * 60 ))
step "building the benchmarks"
# One invocation, so the serialization bench and the load generator compile side by side; the
# bench profile inherits release, so `cargo bench` below reuses these artifacts.
cargo build -q --release -p mcp-benches --benches --example load
measured_from=$(date +%s)
# Start from no results, so nothing from an earlier run can reach a table.
rm -rf target/criterion
step "serialization (criterion)"
cargo bench -q -p mcp-benches --bench serialization -- "${criterion_args[@]}" >/dev/null 2>&1
step "requestState (criterion)"
cargo bench -q -p mcp-benches --bench state -- "${criterion_args[@]}" >/dev/null 2>&1
tables=$(python3 benches/report.py target/criterion)
step "end-to-end load and replay cost"
# Many short runs with the servers taking turns, so a stall of the shared machine (steal time
# reaches 10-30% here) lands on every server alike instead of on one server's only window.
load_reps=${LOAD_REPS:-16}
# One generator thread, as a separate load-generating process would have: it leaves the other
# core to the server under test (LOAD_GENERATOR_THREADS=2 was the setting of earlier runs).
# Idle CPUs poll instead of halting meanwhile (`--poll-idle`, the kernel's CPU latency request
# held at 0 by the load process): on a VM whose idle vCPUs halt, a concurrency-1 request
# otherwise waits twice for the hypervisor to wake a CPU, which times the host rather than the
# server. The next step keeps that view.
poll_idle=()
if [ "${LOAD_POLL_IDLE:-1}" = 1 ]; then poll_idle=(--poll-idle); fi
load=$(target/release/examples/load --seconds "${LOAD_SECONDS:-0.125}" --reps "$load_reps" --generator-threads "${LOAD_GENERATOR_THREADS:-1}" "${poll_idle[@]}")
step "2025-era sessions"
# A 2025-11-25 client's flows against rmcp's session mode, with the same idle-state setting.
legacy=$(target/release/examples/load legacy --seconds "${LOAD_SECONDS:-0.125}" --reps "$load_reps" --generator-threads "${LOAD_GENERATOR_THREADS:-1}" "${poll_idle[@]}")
step "tasks over HTTP"
tasks=$(target/release/examples/load tasks --seconds "${LOAD_SECONDS:-0.125}" --reps "$load_reps" --generator-threads "${LOAD_GENERATOR_THREADS:-1}" "${poll_idle[@]}")
step "concurrency 1 with the host's idle states"
halting=$(target/release/examples/load halting --seconds "${LOAD_SECONDS:-0.125}" --reps "$load_reps" --generator-threads "${LOAD_GENERATOR_THREADS:-1}")
step "concurrency 1 on one CPU"
# The same servers with the generator on one CPU: what each server's own work costs at
# concurrency 1, without the wake-up of one CPU by the other that dominates the table above.
one_cpu=$(taskset -c 0 target/release/examples/load one-cpu --seconds "${LOAD_SECONDS:-0.125}" --reps "$load_reps")
step "build cost: one-tool servers"
# Leave half a minute for writing the file.
server_build=$(benches/server-build-time.sh "${BUILD_RUNS:-3}" "${CLEAN_RUNS:-3}" "$(( budget_end - 30 ))")
if [ "${BINDINGS_RUNS:-0}" -gt 0 ]; then
  step "build cost: bindings"
  build=$(benches/build-time.sh "$BINDINGS_RUNS" "${BINDINGS_VIEWS:-user}")
else
  build="Not part of the default run (it would take the suite past 15 minutes on a slow day): \`BINDINGS_RUNS=3 benches/run.sh\` or \`benches/build-time.sh 3\` measures it; the last figures are under \"Build cost of the bindings\" above."
fi
step "writing BENCHMARKS.md"
machine="$(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(free -g | awk '/Mem:/{print $2}') GiB, $(rustc --version), $(date -u +%Y-%m-%d)"
# How long an idle vCPU polls before it halts decides most of a concurrency-1 flow on a VM
# (0 here makes every wake-up go through the hypervisor).
if [ -r /sys/module/haltpoll/parameters/guest_halt_poll_ns ]; then
  machine="$machine, guest halt polling $(cat /sys/module/haltpoll/parameters/guest_halt_poll_ns) ns (cpuidle $(cat /sys/devices/system/cpu/cpuidle/current_driver 2>/dev/null || echo unknown))"
fi
minutes=$(echo "scale=1; ($(date +%s) - $measured_from) / 60" | bc)
total_minutes=$(echo "scale=1; ($(date +%s) - $started) / 60" | bc)
python3 - "$tables" "$load" "$server_build" "$build" "$machine" "$measure" "$minutes" "$total_minutes" "$load_reps" "$one_cpu" "$halting" "$legacy" "$tasks" <<'PY'
import re, sys
tables, load, server_build, build, machine, measure, minutes, total_minutes, load_reps, one_cpu, halting, legacy, tasks = sys.argv[1:14]
build_minutes = f"{float(total_minutes) - float(minutes):.1f}"
text = open("BENCHMARKS.md").read()
block = f"""<!-- generated by benches/run.sh: start -->
Machine: {machine}. Everything below comes from one invocation of `benches/run.sh`
({total_minutes} minutes in all: {build_minutes} building the benchmark binaries, {minutes} measuring); the peers are rmcp 3.11.0, rust-mcp-schema 2.0.0
and rust-mcp-sdk 2.0.0, pinned in `benches/Cargo.toml`. Serialization and requestState:
medians of interleaved timing (see the top of this file; criterion also ran, warm-up 0.1 s,
measurement {measure} s, 20 samples, and left its own medians in `target/criterion`). Load: medians of {load_reps}
runs per server, servers taking turns. Every ratio column reads "above 1: this project is better": peer time /
our time, our throughput / peer throughput; "rms" is rust-mcp-schema, or rust-mcp-sdk where a
server or a state codec is measured.

### Serialization (parse = `serde_json::from_str` into the receiver's type; write = `serde_json::to_string`)

{tables}
### End to end, replay and memory (`cargo run --release -p mcp-benches --example load`)

{load}

{legacy}

{tasks}

{halting}

{one_cpu}

### Build cost of a one-tool server (`benches/server-build-time.sh`)

{server_build}

### Build cost of the bindings alone (`benches/build-time.sh`)

{build}
<!-- generated by benches/run.sh: end -->"""
start, end = "<!-- generated by benches/run.sh: start -->", "<!-- generated by benches/run.sh: end -->"
if start in text:
    text = re.sub(re.escape(start) + ".*" + re.escape(end), lambda _: block, text, flags=re.S)
else:
    text += "\n## Latest run\n\n" + block + "\n"
open("BENCHMARKS.md", "w").write(text)
PY
step "BENCHMARKS.md updated"
