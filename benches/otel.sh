#!/usr/bin/env bash
# The cost of OpenTelemetry, measured side by side in one run: the bench server built without the
# `otel` feature, built with it and no exporter configured, and built with it exporting every
# span and metric over OTLP/HTTP (sampling all) to a local sink; plain calls, two- and
# three-round MRTR flows at concurrency 1, 8 and 32.
# Usage: benches/otel.sh [REPS] [SECONDS]
set -euo pipefail
cd "$(dirname "$0")/.."
reps=${1:-16}; seconds=${2:-0.125}
cargo build -q --release -p mcp-benches --example load
cp target/release/examples/load target/release/load-without-otel
cargo build -q --release -p mcp-benches --example load --features otel
LOAD_PLAIN_EXE=target/release/load-without-otel \
  target/release/examples/load otel --reps "$reps" --seconds "$seconds" --poll-idle --generator-threads 1
