#!/usr/bin/env bash
# Parse and write of the realistic messages with the generated bindings of this checkout ("now")
# and of an earlier commit ("base"), beside rust-mcp-schema 2.0.0 and rmcp 3.11, all in ONE
# process and timed one operation at a time in rotating order: a before/after comparison of the
# bindings that the machine's speed changes (up to 2x between runs here) cannot bias, because
# every round times every side.
#
# Placement: identical code linked at other addresses runs at another speed (loop alignment, the
# micro-op cache, cache-set conflicts), by several percent here. So each side is linked COPIES
# times (default 3), every copy a crate of its own name built from the same sources, and a side's
# time in a round is the median over its copies. The spread between the copies of one side (the
# A/A columns) is how far placement alone moves a cell; a now/base ratio inside it is not a
# difference the code made.
# The harness is not neutral either: on this machine the first-linked copy of "now" runs a few
# percent slower whatever its code. `benches/bindings-ab.sh HEAD` (both sides this checkout) is
# the A/A run that measures that bias; compare an A/B ratio with the A/A ratio of the same cell.
# Usage: benches/bindings-ab.sh [BASE_COMMIT [PASSES [ROUNDS]]]
#   BASE_COMMIT: default cedddb8, the last commit before the bindings were compacted (issue 18).
#   PASSES (default 8) of ROUNDS (default 1500) rounds; prints a Markdown table: medians over the
#   passes of each pass's median time and of each pass's median per-round ratio.
#   COPIES (environment, default 3): copies of each of now and base.
set -euo pipefail
base=${1:-cedddb8}
passes=${2:-8}
rounds=${3:-1500}
copies=${COPIES:-3}
repo=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
. "$repo/benches/ab-common.sh"
mkdir -p "$work/base-src" "$work/ab/src"
git -C "$repo" archive "$base" generated/src | tar -x -C "$work/base-src" --strip-components=1
# One crate per copy: now-0..now-K and base-0..base-K, the sources of this checkout's working tree
# and of BASE_COMMIT, each under its own name so that all link into one program.
for side in now base; do
  for ((i = 0; i < copies; i++)); do
    dir="$work/$side-$i"
    mkdir -p "$dir"
    if [ "$side" = now ]; then cp -r "$repo/generated/src" "$dir/src"; else cp -r "$work/base-src/src" "$dir/src"; fi
    cat > "$dir/Cargo.toml" <<TOML
[package]
name = "schema-$side-$i"
version = "0.1.0"
edition = "2021"
[dependencies]
serde = { version = "1", features = ["derive"] }
serde_json = { version = "1", features = ["preserve_order", "raw_value"] }
indexmap = { version = "2", features = ["serde"] }
[features]
v2025_11_25 = []
v2025_06_18 = []
v2025_03_26 = []
v2024_11_05 = []
all-versions = []
TOML
    ab_side "schema-$side-$i" "$side-$i"
  done
done
ab_manifests bindings-ab "$members" "$deps" 'serde = { version = "1", features = ["derive"] }
rust-mcp-schema = { version = "=2.0.0", default-features = false, features = ["2026_07_28"] }'
{
cat <<'RS'
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

/// The sides, in order: COPIES copies of now, COPIES of base, rust-mcp-schema, rmcp.
fn sides<'a>(name: &str, t: &'a str) -> Vec<Option<Ops<'a>>> {
    let mut v = Vec::new();
RS
for side in now base; do
  for ((i = 0; i < copies; i++)); do
    echo "    v.push(typed!(schema_${side}_$i, name, t));"
  done
done
cat <<RS
    v.push(typed!(rust_mcp_schema, name, t));
    v.push(ops::<rmcp::model::ServerJsonRpcMessage>(t).or_else(|| ops::<rmcp::model::ClientJsonRpcMessage>(t)));
    v
}

const COPIES: usize = $copies;
RS
cat <<'RS'
const RMS: usize = 2 * COPIES;
const RMCP: usize = 2 * COPIES + 1;

fn main() {
    let args: Vec<usize> = std::env::args().skip(1).filter_map(|a| a.parse().ok()).collect();
    let (passes, rounds) = (args.first().copied().unwrap_or(8), args.get(1).copied().unwrap_or(1500));
    println!("| message | op | now µs | base µs | rust-mcp-schema µs | rmcp µs | now/base | now/base per pass (min-max) | each copy of now / base | each copy of base / base (A/A) | rust-mcp-schema/now | rust-mcp-schema/base | rmcp/now | rmcp/base |");
    println!("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|");
    for (name, text) in mcp_benches::messages() {
        let t = text.as_str();
        let sides = sides(name, t);
        let n = sides.len();
        for op in ["parse", "write"] {
            let run = |i: usize| -> Option<&dyn Fn() -> usize> {
                sides[i].as_ref().map(|s| if op == "parse" { &*s.0 } else { &*s.1 })
            };
            let present: Vec<usize> = (0..n).filter(|&i| run(i).is_some()).collect();
            // Batch size: about 50 µs of the slowest side per turn.
            let mut per_op = 0f64;
            for &i in &present {
                let f = run(i).expect("present");
                let st = Instant::now();
                for _ in 0..200 { black_box(f()); }
                per_op = per_op.max(st.elapsed().as_secs_f64() / 200.0);
            }
            let batch = ((50e-6 / per_op).ceil() as usize).max(1);
            // Per pass: median time of each side; median per-round ratios.
            let mut times: Vec<Vec<f64>> = vec![Vec::new(); 4];
            let mut ratio_nb = Vec::new();
            let mut copy_ratio: Vec<Vec<f64>> = vec![Vec::new(); 2 * COPIES];
            let mut peer_ratio: Vec<Vec<f64>> = vec![Vec::new(); 4];
            for _ in 0..passes {
                let mut per: Vec<Vec<f64>> = vec![Vec::new(); n];
                for r in 0..rounds {
                    for k in 0..present.len() {
                        let i = present[(k + r) % present.len()];
                        let f = run(i).expect("present");
                        let st = Instant::now();
                        for _ in 0..batch { black_box(f()); }
                        per[i].push(st.elapsed().as_nanos() as f64 / batch as f64);
                    }
                }
                // A side's time in a round: the median over its copies.
                let side = |from: usize| -> Vec<f64> {
                    (0..rounds).map(|r| median((from..from + COPIES).map(|i| per[i][r]).collect())).collect()
                };
                let (now, base) = (side(0), side(COPIES));
                let ratio = |a: &[f64], b: &[f64]| median(a.iter().zip(b).map(|(x, y)| x / y).collect());
                ratio_nb.push(ratio(&now, &base));
                for c in 0..2 * COPIES {
                    copy_ratio[c].push(ratio(&per[c], &base));
                }
                let peers = [RMS, RMCP];
                for (p, &peer) in peers.iter().enumerate() {
                    if !per[peer].is_empty() {
                        peer_ratio[2 * p].push(ratio(&per[peer], &now));
                        peer_ratio[2 * p + 1].push(ratio(&per[peer], &base));
                    }
                }
                times[0].push(median(now));
                times[1].push(median(base));
                for (p, &peer) in peers.iter().enumerate() {
                    if !per[peer].is_empty() { times[2 + p].push(median(per[peer].clone())); }
                }
            }
            let us = |i: usize| if times[i].is_empty() { "-".to_string() } else { format!("{:.2}", median(times[i].clone()) / 1000.0) };
            let r = |v: &Vec<f64>| if v.is_empty() { "-".to_string() } else { format!("{:.3}", median(v.clone())) };
            let lo_hi = |v: &[f64]| (v.iter().copied().fold(f64::INFINITY, f64::min), v.iter().copied().fold(0f64, f64::max));
            let (plo, phi) = lo_hi(&ratio_nb);
            // Each copy's median ratio over the passes, then the range over the copies of a side.
            let per_copy: Vec<f64> = copy_ratio.iter().map(|v| median(v.clone())).collect();
            let list = |v: &[f64]| v.iter().map(|x| format!("{x:.3}")).collect::<Vec<_>>().join(" ");
            let (nc, bc) = (list(&per_copy[..COPIES]), list(&per_copy[COPIES..]));
            println!(
                "| {name} | {op} | {} | {} | {} | {} | {} | {plo:.3}-{phi:.3} | {nc} | {bc} | {} | {} | {} | {} |",
                us(0), us(1), us(2), us(3), r(&ratio_nb), r(&peer_ratio[0]), r(&peer_ratio[1]), r(&peer_ratio[2]), r(&peer_ratio[3])
            );
        }
    }
}
RS
} > "$work/ab/src/main.rs"
program=$(ab_build bindings-ab)
echo "Base: $(git -C "$repo" rev-parse --short "$base"), now: $(git -C "$repo" rev-parse --short HEAD)$(git -C "$repo" diff --quiet HEAD -- generated || echo ' with uncommitted bindings'); $copies copies of each; $passes passes of $rounds rounds; ratios above 1: the first-named side takes longer (now/base above 1: now is slower)."
echo
"$program" "$passes" "$rounds"
