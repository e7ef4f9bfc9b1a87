//! Seal and open `requestState` for journals of 1, 3 and 10 small form answers and one 4 KiB
//! sampling answer, with this project's codec (AES-256-GCM-SIV, binding digest as associated
//! data), rmcp 3.11's `RequestStateCodec` (HMAC-SHA256, not encrypted) and rust-mcp-sdk 2.0's
//! `RequestStateCodec` (HMAC-SHA256, not encrypted) on the same journals, bound the same way: to
//! the method, the tool and its arguments, with an expiry. rmcp takes the binding as associated
//! data; rust-mcp-sdk has none, so its user signs the binding with the journal and compares it on
//! open, as its docs advise.
//!
//! Each side does what a server does on one retry: it builds the request's binding once (timed in
//! `open`, the first thing a retry does) and seals the next journal with that same binding. Ours
//! goes through [`oxmcp::bench::BoundCodec`], which makes the MRTR round's calls (the
//! handler fingerprint's digest computed at registration, the binding's once per request).

use criterion::{black_box, criterion_group, BenchmarkId, Criterion};

#[path = "support/paired.rs"]
mod paired;
use paired::Side;
use rmcp::model::{RequestStateCodec, SealOptions};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use std::time::Duration;

/// What a rust-mcp-sdk user signs: the binding and the journal.
#[derive(Serialize, Deserialize)]
struct SdkPayload<B, J> {
    binding: B,
    journal: J,
}

/// The binding a rust-mcp-sdk user writes into the payload: method, tool and arguments.
fn sdk_binding(args: &Value) -> String {
    format!("tools/call\0book_table\0{args}")
}

/// The associated data an rmcp user binds the state to: method, tool and arguments.
fn rmcp_binding(args: &Value) -> Vec<u8> {
    let mut ad = b"tools/call\0book_table\0".to_vec();
    // serde_json writes a map in its stored order; the same request gives the same bytes.
    serde_json::to_writer(&mut ad, args).expect("arguments serialize");
    ad
}

fn bench(c: &mut Criterion) {
    let (codec, args) = mcp_benches::state_setup();
    let binding = mcp_benches::binding(&args);
    let ours = oxmcp::bench::BoundCodec::new(&codec, "fp");
    let rmcp = RequestStateCodec::try_new([7u8; 32].to_vec()).expect("32-byte key");
    let ttl = Duration::from_secs(600);
    let mut sdk_key = [0u8; 32];
    sdk_key[0] = 7;
    let sdk = rust_mcp_sdk::mcp_server::RequestStateCodec::with_key(sdk_key).with_max_age(ttl);
    let mut facts = serde_json::Map::new();
    let mut paired_out = serde_json::Map::new();
    let mut group = c.benchmark_group("state");
    for (slug, _, journal) in mcp_benches::journals() {
        let plain = serde_json::to_string(&journal)
            .expect("journal serializes")
            .len();
        let token = codec.seal(&binding, "fp", &journal).unwrap();
        // Each side's binding for sealing, built once per request (timed in `open`, below).
        let ad = rmcp_binding(&args);
        let rtoken = rmcp
            .seal_json_with(&journal, &SealOptions::new().associated_data(&ad).ttl(ttl))
            .unwrap();
        let sdk_bound = sdk_binding(&args);
        let sdk_seal = |journal: &oxmcp::request_state::Journal| {
            let payload = SdkPayload {
                binding: &*sdk_bound,
                journal,
            };
            sdk.encode(&serde_json::to_vec(&payload).expect("payload serializes"))
        };
        let stoken = sdk_seal(&journal);
        let sdk_open = |token: &str| {
            let bytes = sdk.decode(token).expect("verifies");
            let payload: SdkPayload<String, oxmcp::request_state::Journal> =
                serde_json::from_slice(&bytes).expect("payload parses");
            assert!(payload.binding == sdk_binding(black_box(&args)), "bound");
            payload.journal
        };
        facts.insert(
            slug.into(),
            json!({ "plaintext": plain, "oxmcp": token.len(), "rmcp": rtoken.len(),
                    "rust-mcp-sdk": stoken.len() }),
        );
        // Each operation once, for criterion and for the interleaved pass alike; each returns a
        // length so the token or journal is dropped inside the timed operation.
        let bound = ours.bind(&binding);
        let ours_seal = || ours.seal(black_box(&bound), &journal).unwrap().len();
        let ours_open = || {
            let bound = ours.bind(black_box(&binding));
            ours.open(black_box(&token), &bound)
                .unwrap()
                .expect("recorded by this handler")
                .journal
                .len()
        };
        let rmcp_seal = || {
            rmcp.seal_json_with(
                &journal,
                &SealOptions::new().associated_data(black_box(&ad)).ttl(ttl),
            )
            .unwrap()
            .len()
        };
        let rmcp_open = || {
            let ad = rmcp_binding(black_box(&args));
            rmcp.open_json_with::<oxmcp::request_state::Journal>(&rtoken, &ad)
                .unwrap()
                .len()
        };
        let sdk_seal_op = || sdk_seal(black_box(&journal)).len();
        let sdk_open_op = || sdk_open(black_box(&stoken)).len();
        let ops: [(&str, &dyn Fn() -> usize); 6] = [
            ("oxmcp/seal", &ours_seal),
            ("oxmcp/open", &ours_open),
            ("rmcp/seal", &rmcp_seal),
            ("rmcp/open", &rmcp_open),
            ("rust-mcp-sdk/seal", &sdk_seal_op),
            ("rust-mcp-sdk/open", &sdk_open_op),
        ];
        for (name, op) in ops {
            group.bench_function(BenchmarkId::new(name, slug), |b| b.iter(op));
        }
        if paired::benchmarking() {
            // Interleaved timing for the report's table (see support/paired.rs).
            let sides = ops
                .into_iter()
                .map(|(name, op)| Side::new(name, op))
                .collect();
            let s = paired::measure(sides, Duration::from_millis(600));
            let mut median_ns = serde_json::Map::new();
            for (i, name) in s.names.iter().enumerate() {
                median_ns.insert(name.clone(), s.median_ns(i).into());
            }
            for (codec_name, set) in [
                ("oxmcp", [0, 1]),
                ("rmcp", [2, 3]),
                ("rust-mcp-sdk", [4, 5]),
            ] {
                median_ns.insert(
                    format!("{codec_name}/seal+open"),
                    s.median_sum_ns(&set).into(),
                );
            }
            paired_out.insert(
                slug.into(),
                json!({ "median_ns": median_ns,
                        "vs_ours": { "rmcp": s.ratio(&[2, 3], &[0, 1]),
                                     "rust-mcp-sdk": s.ratio(&[4, 5], &[0, 1]) } }),
            );
        }
    }
    group.finish();
    mcp_benches::write_facts("state", Value::from(facts));
    if paired::benchmarking() {
        mcp_benches::write_facts("paired-state", Value::from(paired_out));
    }
}

criterion_group!(benches, bench);
fn main() {
    benches();
    Criterion::default().configure_from_args().final_summary();
}
