#!/usr/bin/env bash
# Parse and write of the realistic messages with the generated bindings of this checkout ("now")
# and of an earlier commit ("base"), beside rust-mcp-schema 2.0.0 and rmcp 3.11, all in ONE
# process and timed one operation at a time in rotating order: a before/after comparison of the
# bindings that the machine's speed changes (up to 2x between runs here) cannot bias, because
# every round times every side. A second copy of the base bindings under another name
# ("control") is timed too: base against itself, an A/A test of what placement alone does.
# Usage: benches/bindings-ab.sh [BASE_COMMIT [PASSES [ROUNDS]]]
#   BASE_COMMIT: default cedddb8, the last commit before the bindings were compacted (issue 18).
#   PASSES (default 8) of ROUNDS (default 1500) rounds; prints a Markdown table: medians over the
#   passes of each pass's median time and of each pass's median per-round ratio.
set -euo pipefail
base=${1:-cedddb8}
passes=${2:-8}
rounds=${3:-1500}
repo=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/base/src" "$work/control" "$work/ab/src"
# The earlier bindings as a crate of another name, so both link into one program.
git -C "$repo" archive "$base" generated/src | tar -x -C "$work/base" --strip-components=1
cat > "$work/base/Cargo.toml" <<TOML
[package]
name = "mcp-schema-base"
version = "0.1.0"
edition = "2021"
[dependencies]
serde = { version = "1", features = ["derive"] }
serde_json = { version = "1", features = ["preserve_order", "raw_value"] }
indexmap = { version = "2", features = ["serde"] }
[features]
default = []
v2025_11_25 = []
v2025_06_18 = []
v2025_03_26 = []
v2024_11_05 = []
all-versions = []
TOML
# The A/A control: the same base sources once more under a third name. Identical code linked at
# other addresses shows how far placement alone moves the timing (the noise floor of now/base).
cp -r "$work/base/src" "$work/control/src"
sed 's/^name = "mcp-schema-base"/name = "mcp-schema-control"/' "$work/base/Cargo.toml" > "$work/control/Cargo.toml"
cat > "$work/Cargo.toml" <<TOML
[workspace]
resolver = "2"
members = ["base", "control", "ab"]
TOML
cat > "$work/ab/Cargo.toml" <<TOML
[package]
name = "bindings-ab"
version = "0.1.0"
edition = "2021"
[dependencies]
mcp-schema = { path = "$repo/generated" }
mcp-schema-base = { path = "../base" }
mcp-schema-control = { path = "../control" }
mcp-benches = { path = "$repo/benches" }
serde = { version = "1", features = ["derive"] }
serde_json = { version = "1", features = ["preserve_order", "raw_value"] }
rust-mcp-schema = { version = "=2.0.0", default-features = false, features = ["2026_07_28"] }
rmcp = { version = "=3.11.0", default-features = false, features = ["server", "macros", "transport-streamable-http-server", "request-state", "elicitation", "schemars"] }
TOML
cat > "$work/ab/src/main.rs" <<'RS'
use serde::de::DeserializeOwned;
use serde::Serialize;
use std::hint::black_box;
use std::time::Instant;

/// One side's parse and write of one text; `None` where the library cannot read the text.
type Ops<'a> = (Box<dyn Fn() -> usize + 'a>, Box<dyn Fn() -> usize + 'a>);

fn ops<'a, T: DeserializeOwned + Serialize + 'a>(text: &'a str) -> Option<Ops<'a>> {
    let parsed: T = serde_json::from_str(text).ok()?;
    let parse = move || {
        let v: T = serde_json::from_str(text).unwrap_or_else(|e| panic!("parse: {e}"));
        std::mem::size_of_val(black_box(&v))
    };
    let write = move || serde_json::to_string(&parsed).map_or(0, |s| s.len());
    Some((Box::new(parse), Box::new(write)))
}

macro_rules! typed {
    ($lib:path, $name:expr, $text:expr) => {{
        use $lib as lib;
        match $name {
            "tools_call_1k" | "retry_3" => ops::<lib::ClientRequest>($text),
            "tools_list_50" => ops::<lib::ListToolsResultResponse>($text),
            _ => ops::<lib::CallToolResultResponse>($text),
        }
    }};
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// Sides: 0 now, 1 base, 2 a second copy of base (the A/A control), 3 rust-mcp-schema, 4 rmcp.
const SIDES: usize = 5;
/// The ratios reported, (numerator, denominator): now/base, control/base, then each peer over
/// now and over base.
const PAIRS: [(usize, usize); 6] = [(0, 1), (2, 1), (3, 0), (3, 1), (4, 0), (4, 1)];

fn main() {
    let args: Vec<usize> = std::env::args().skip(1).filter_map(|a| a.parse().ok()).collect();
    let (passes, rounds) = (args.first().copied().unwrap_or(8), args.get(1).copied().unwrap_or(1500));
    println!("| message | op | now µs | base µs | rust-mcp-schema µs | rmcp µs | now/base | control/base (A/A) | rust-mcp-schema/now | rust-mcp-schema/base | rmcp/now | rmcp/base | now/base per pass (min-max) | control/base per pass (min-max) |");
    println!("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|");
    for (name, text) in mcp_benches::messages() {
        let t = text.as_str();
        let sides: [Option<Ops<'_>>; SIDES] = [
            typed!(mcp_schema, name, t),
            typed!(mcp_schema_base, name, t),
            typed!(mcp_schema_control, name, t),
            typed!(rust_mcp_schema, name, t),
            ops::<rmcp::model::ServerJsonRpcMessage>(t).or_else(|| ops::<rmcp::model::ClientJsonRpcMessage>(t)),
        ];
        for op in ["parse", "write"] {
            let run = |i: usize| -> Option<&dyn Fn() -> usize> {
                sides[i].as_ref().map(|s| if op == "parse" { &*s.0 } else { &*s.1 })
            };
            let present: Vec<usize> = (0..SIDES).filter(|&i| run(i).is_some()).collect();
            // Batch size: about 50 µs of the slowest side per turn.
            let mut per_op = 0f64;
            for &i in &present {
                let f = run(i).expect("present");
                let st = Instant::now();
                for _ in 0..200 { black_box(f()); }
                per_op = per_op.max(st.elapsed().as_secs_f64() / 200.0);
            }
            let batch = ((50e-6 / per_op).ceil() as usize).max(1);
            let mut times = vec![Vec::new(); SIDES];
            let mut ratios: Vec<Vec<f64>> = vec![Vec::new(); PAIRS.len()];
            for _ in 0..passes {
                let mut per: Vec<Vec<f64>> = vec![Vec::new(); SIDES];
                for r in 0..rounds {
                    for k in 0..present.len() {
                        let i = present[(k + r) % present.len()];
                        let f = run(i).expect("present");
                        let st = Instant::now();
                        for _ in 0..batch { black_box(f()); }
                        per[i].push(st.elapsed().as_nanos() as f64 / batch as f64);
                    }
                }
                for (slot, &(a, b)) in PAIRS.iter().enumerate() {
                    let r = if per[a].is_empty() || per[b].is_empty() {
                        f64::NAN
                    } else {
                        median(per[a].iter().zip(&per[b]).map(|(x, y)| x / y).collect())
                    };
                    ratios[slot].push(r);
                }
                for i in 0..SIDES {
                    if !per[i].is_empty() { times[i].push(median(per[i].clone())); }
                }
            }
            let us = |i: usize| if times[i].is_empty() { "-".to_string() } else { format!("{:.2}", median(times[i].clone()) / 1000.0) };
            let r = |s: usize| if ratios[s].iter().any(|x| x.is_nan()) { "-".to_string() } else { format!("{:.3}", median(ratios[s].clone())) };
            let span = |s: usize| {
                let lo = ratios[s].iter().copied().fold(f64::INFINITY, f64::min);
                let hi = ratios[s].iter().copied().fold(0f64, f64::max);
                format!("{lo:.3}-{hi:.3}")
            };
            println!("| {name} | {op} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |", us(0), us(1), us(3), us(4), r(0), r(1), r(2), r(3), r(4), r(5), span(0), span(1));
        }
    }
}
RS
cp "$repo/Cargo.lock" "$work/Cargo.lock"
# AB_TARGET_DIR: a target directory of its own, e.g. for a build with other RUSTFLAGS.
target=${AB_TARGET_DIR:-$repo/target}
(cd "$work" && CARGO_TARGET_DIR="$target" cargo build -q --release -p bindings-ab)
echo "Base: $(git -C "$repo" rev-parse --short "$base"), now: $(git -C "$repo" rev-parse --short HEAD)$(git -C "$repo" diff --quiet HEAD -- generated || echo ' with uncommitted bindings'); $passes passes of $rounds rounds; ratios above 1: the first-named side takes longer (now/base above 1: now is slower)."
echo
"$target/release/bindings-ab" "$passes" "$rounds"
