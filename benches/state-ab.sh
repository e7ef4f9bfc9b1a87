#!/usr/bin/env bash
# The requestState work of this checkout's codec ("now") and an earlier commit's ("base"), beside
# rmcp 3.11's codec, all in ONE process and timed in rotating order, so that the machine's speed
# (up to 2x between runs here) moves every side alike. It answers "is a state cell slower than
# before the change?", which separate runs cannot: rmcp's own time moves by 30% between runs of
# the state bench.
#
# Two kinds of work per journal:
# - "public seal+open": seal, then open, through the codec's public API, each call computing the
#   binding's digest (and seal the fingerprint's): the state bench up to the nineteenth session;
# - "one retry": what the commit's MRTR round does on a retry: open the request's token, check the
#   handler fingerprint, seal the next journal. rmcp builds its associated data once for both.
#
# Each side's `state.rs` is compiled as it is, in a crate of its own with the dependency versions
# of its commit (the cipher crates differ: aes-gcm-siv 0.11 / aes 0.8 / sha2 0.10 at the default
# base, 0.12 / 0.9 / 0.11 now). Both sides are linked twice, each copy a crate of its own name:
# the copy/copy ratios (A/A) show how far placement alone moves a cell.
# Usage: benches/state-ab.sh [BASE_COMMIT [PASSES [ROUNDS]]]
#   BASE_COMMIT: default b6e6178, the last commit before issue 19's work (the codec then had the
#   same public API: seal and open with a Binding, journal_of). "now" is the working tree.
#   PASSES (default 8) of ROUNDS (default 1500); prints a Markdown table of the medians over the
#   passes of each pass's median time and of each pass's median per-round ratio.
set -euo pipefail
base=${1:-b6e6178}
passes=${2:-8}
rounds=${3:-1500}
repo=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
. "$repo/benches/ab-common.sh"
state_path() {
  # The module moved under resume/ during issue 19.
  for p in runtime/src/resume/state.rs runtime/src/state.rs; do
    if git -C "$repo" cat-file -e "$1:$p" 2>/dev/null; then echo "$p"; return; fi
  done
  echo "no state.rs at $1" >&2
  exit 1
}
# The cipher dependencies of a commit's runtime, as its Cargo.toml names them.
# "now" is the working tree, as for state.rs.
cipher_deps() {
  local toml sha2
  if [ "$1" = now ]; then
    toml=$(cat "$repo/runtime/Cargo.toml")
    sha2=$(grep -E '^sha2 *=' "$repo/Cargo.toml" | head -1)
  else
    toml=$(git -C "$repo" show "$1:runtime/Cargo.toml")
    sha2=$(git -C "$repo" show "$1:Cargo.toml" | grep -E '^sha2 *=' | head -1)
  fi
  echo "$toml" | grep -E '^(aes-gcm-siv|aes|zeroize|base64-simd|getrandom|serde_core) *='
  echo "$toml" | grep -qE '^sha2 *= *\{ *workspace' && echo "$sha2" || echo "$toml" | grep -E '^sha2 *='
}
for side in now base; do
  commit=$([ "$side" = now ] && echo now || echo "$base")
  for i in 0 1; do
    dir="$work/$side-$i"
    mkdir -p "$dir/src"
    if [ "$side" = now ]; then
      cp "$repo/runtime/src/resume/state.rs" "$dir/src/state.rs"
    else
      git -C "$repo" show "$commit:$(state_path "$commit")" > "$dir/src/state.rs"
    fi
    # One retry's state work as the commit's MRTR round does it: with `BoundCodec` (the
    # fingerprint digest at registration, the binding's once per request), or else as the round
    # did before b225027 and f18f695 (public open, fingerprint check and seal, each computing its
    # digests; for a base between those commits and BoundCodec this overstates its cost).
    if grep -q "pub struct BoundCodec" "$dir/src/state.rs"; then
      prepared='s::BoundCodec<'"'"'static>'
      prepare='s::BoundCodec::new(codec, "fp")'
      retry='let bc = &self.prepared;
        let bound = bc.bind(&self.binding());
        let opened = bc.open(&self.token, &bound).expect("open").expect("recorded here");
        bc.seal(&bound, &self.journal).expect("seal").len() + opened.journal.len()'
    else
      prepared='()'
      prepare='()'
      retry='let binding = self.binding();
        let opened = self.codec.open(&self.token, &binding).expect("open");
        assert!(opened.recorded_by("fp"));
        self.codec.seal(&binding, "fp", &self.journal).expect("seal").len() + opened.journal.len()'
    fi
    cat > "$dir/src/lib.rs" <<RS
//! One side's requestState codec, compiled from its commit's source.
#![allow(dead_code, unused_imports)]
mod wire {
    pub fn lock<T>(m: &std::sync::Mutex<T>) -> std::sync::MutexGuard<'_, T> {
        m.lock().unwrap_or_else(|e| e.into_inner())
    }
}
#[path = "state.rs"]
pub mod state;
use serde_json::Value;
use state as s;

/// A codec, a journal and a token sealed for the bench binding.
pub struct Side {
    codec: &'static s::StateCodec,
    journal: s::Journal,
    token: String,
    args: &'static Value,
    /// What the round computes once per handler (the fingerprint's digest), where it does.
    prepared: $prepared,
}

impl Side {
    pub fn new(entries: Vec<(String, Value)>, args: &'static Value) -> Self {
        let keys = s::StateKeys::new(vec![s::StateKey::new(1, &[7u8; 32]).expect("key")]).expect("keys");
        let codec: &'static s::StateCodec = Box::leak(Box::new(s::StateCodec::new(keys)));
        let journal = s::journal_of(entries);
        let mut side = Side { codec, journal, token: String::new(), args, prepared: $prepare };
        side.token = codec.seal(&side.binding(), "fp", &side.journal).expect("seal");
        side
    }

    fn binding(&self) -> s::Binding<'static> {
        s::Binding { method: "tools/call", target: "book_table", arguments: self.args.as_object(), principal: None, protocol_version: "2026-07-28" }
    }

    /// Public seal, then public open, each computing its digests (the state bench before the
    /// twentieth session).
    pub fn public(&self) -> usize {
        let binding = self.binding();
        let token = self.codec.seal(std::hint::black_box(&binding), "fp", &self.journal).expect("seal");
        self.codec.open(std::hint::black_box(&token), &binding).expect("open").journal.len()
    }

    /// Open the request's token, check the handler, seal the next journal.
    pub fn retry(&self) -> usize {
        $retry
    }
}
RS
    cat > "$dir/Cargo.toml" <<TOML
[package]
name = "state-$side-$i"
version = "0.1.0"
edition = "2021"
[dependencies]
serde_json = { version = "1", features = ["preserve_order", "raw_value"] }
indexmap = { version = "2", features = ["serde"] }
serde = { version = "1", features = ["derive"] }
$(cipher_deps "$commit")
[features]
# journal_of is behind it in the runtime.
bench = []
TOML
    ab_side "state-$side-$i" "$side-$i" '"bench"'
  done
done
ab_manifests state-ab "$members" "$deps"
{
cat <<'RS'
use rmcp::model::{RequestStateCodec, SealOptions};
use serde_json::Value;
use std::hint::black_box;
use std::time::{Duration, Instant};

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    let args: Vec<usize> = std::env::args().skip(1).filter_map(|a| a.parse().ok()).collect();
    let (passes, rounds) = (args.first().copied().unwrap_or(8), args.get(1).copied().unwrap_or(1500));
    let (_, bargs) = mcp_benches::state_setup();
    let bargs: &'static Value = Box::leak(Box::new(bargs));
    println!("| journal | work | now µs | base µs | rmcp µs | now/base | now/base per pass (min-max) | A/A now copy 2/1 | A/A base copy 2/1 | rmcp/now | rmcp/base |");
    println!("|---|---|---|---|---|---|---|---|---|---|---|");
    for (slug, _, journal) in mcp_benches::journals() {
      for retry in [false, true] {
        let entries: Vec<(String, Value)> = journal.iter()
            .map(|(k, v)| (k.clone(), serde_json::from_str(v.get()).expect("recorded JSON")))
            .collect();
        let rmcp = RequestStateCodec::try_new([7u8; 32].to_vec()).expect("32-byte key");
        let rjournal = state_now_0::state::journal_of(entries.clone());
        let ad_of = |args: &Value| {
            let mut ad = b"tools/call\0book_table\0".to_vec();
            serde_json::to_writer(&mut ad, black_box(args)).expect("arguments");
            ad
        };
        let rtoken = rmcp.seal_json_with(&rjournal, &SealOptions::new().associated_data(&ad_of(bargs)).ttl(Duration::from_secs(600))).expect("seal");
        // rmcp, the same two ways: the binding built for each operation, or once per retry.
        let rmcp_op = move || {
            let ad = ad_of(bargs);
            let opts = SealOptions::new().associated_data(&ad).ttl(Duration::from_secs(600));
            if retry {
                let opened = rmcp.open_json_with::<state_now_0::state::Journal>(&rtoken, &ad).expect("open");
                rmcp.seal_json_with(&rjournal, &opts).expect("seal").len() + opened.len()
            } else {
                let token = rmcp.seal_json_with(&rjournal, &opts).expect("seal");
                let ad = ad_of(bargs);
                rmcp.open_json_with::<state_now_0::state::Journal>(&token, &ad).expect("open").len()
            }
        };
        macro_rules! side {
            ($lib:ident) => {{
                let side = $lib::Side::new(entries.clone(), bargs);
                Box::new(move || if retry { side.retry() } else { side.public() }) as Box<dyn Fn() -> usize>
            }};
        }
        let sides: Vec<Box<dyn Fn() -> usize>> = vec![
            side!(state_now_0),
            side!(state_now_1),
            side!(state_base_0),
            side!(state_base_1),
            Box::new(rmcp_op),
        ];
        let n = sides.len();
        // Batch size: about 50 µs of the slowest side per turn.
        let mut per_op = 0f64;
        for f in &sides {
            let st = Instant::now();
            for _ in 0..200 { black_box(f()); }
            per_op = per_op.max(st.elapsed().as_secs_f64() / 200.0);
        }
        let batch = ((50e-6 / per_op).ceil() as usize).max(1);
        let ratio = |a: &[f64], b: &[f64]| median(a.iter().zip(b).map(|(x, y)| x / y).collect());
        // Per pass: each side's median time and the median per-round ratios.
        let (mut t_now, mut t_base, mut t_rmcp) = (Vec::new(), Vec::new(), Vec::new());
        let (mut nb, mut aa_now, mut aa_base, mut r_now, mut r_base) = (Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new());
        for _ in 0..passes {
            let mut per: Vec<Vec<f64>> = vec![Vec::new(); n];
            for r in 0..rounds {
                for k in 0..n {
                    let i = (k + r) % n;
                    let st = Instant::now();
                    for _ in 0..batch { black_box(sides[i]()); }
                    per[i].push(st.elapsed().as_nanos() as f64 / batch as f64);
                }
            }
            // A side's time in a round: the mean of its two copies.
            let both = |a: usize| -> Vec<f64> { per[a].iter().zip(&per[a + 1]).map(|(x, y)| (x + y) / 2.0).collect() };
            let (now, base) = (both(0), both(2));
            nb.push(ratio(&now, &base));
            aa_now.push(ratio(&per[1], &per[0]));
            aa_base.push(ratio(&per[3], &per[2]));
            r_now.push(ratio(&per[4], &now));
            r_base.push(ratio(&per[4], &base));
            t_now.push(median(now));
            t_base.push(median(base));
            t_rmcp.push(median(per[4].clone()));
        }
        let us = |v: &Vec<f64>| format!("{:.2}", median(v.clone()) / 1000.0);
        let r = |v: &Vec<f64>| format!("{:.3}", median(v.clone()));
        let lo = nb.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = nb.iter().copied().fold(0f64, f64::max);
        let work = if retry { "one retry" } else { "public seal+open" };
        println!("| {slug} | {work} | {} | {} | {} | {} | {lo:.3}-{hi:.3} | {} | {} | {} | {} |",
            us(&t_now), us(&t_base), us(&t_rmcp), r(&nb), r(&aa_now), r(&aa_base), r(&r_now), r(&r_base));
      }
    }
}
RS
} > "$work/ab/src/main.rs"
program=$(ab_build state-ab)
echo "Base: $(git -C "$repo" rev-parse --short "$base"), now: $(git -C "$repo" rev-parse --short HEAD)$(git -C "$repo" diff --quiet HEAD -- runtime/src/resume/state.rs runtime/Cargo.toml Cargo.toml || echo ' with uncommitted changes to state.rs or the manifests'); two copies of each; $passes passes of $rounds rounds; ratios above 1: the first-named side takes longer (now/base above 1: now is slower)."
echo
"$program" "$passes" "$rounds"
