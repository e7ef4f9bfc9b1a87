//! Seal and open `requestState` for journals of 1, 3 and 10 small form answers and one 4 KiB
//! sampling answer, with this project's codec (AES-256-GCM-SIV, binding digest as associated
//! data) and rmcp 3.11's `RequestStateCodec` (HMAC-SHA256, not encrypted) on the same journals,
//! bound the same way: to the method, the tool and its arguments, with an expiry.

use criterion::{black_box, criterion_group, criterion_main, BenchmarkId, Criterion};
use rmcp::model::{RequestStateCodec, SealOptions};
use serde_json::{json, Value};
use std::time::Duration;

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
    let rmcp = RequestStateCodec::try_new([7u8; 32].to_vec()).expect("32-byte key");
    let ttl = Duration::from_secs(600);
    let mut facts = serde_json::Map::new();
    let mut group = c.benchmark_group("state");
    for (slug, _, journal) in mcp_benches::journals() {
        let plain = serde_json::to_string(&journal)
            .expect("journal serializes")
            .len();
        let token = codec.seal(&binding, "fp", &journal).unwrap();
        let ad = rmcp_binding(&args);
        let rtoken = rmcp
            .seal_json_with(&journal, &SealOptions::new().associated_data(&ad).ttl(ttl))
            .unwrap();
        facts.insert(
            slug.into(),
            json!({ "plaintext": plain, "mcp-runtime": token.len(), "rmcp": rtoken.len() }),
        );
        group.bench_with_input(
            BenchmarkId::new("mcp-runtime/seal", slug),
            &journal,
            |b, j| b.iter(|| codec.seal(black_box(&binding), "fp", j).unwrap()),
        );
        group.bench_with_input(
            BenchmarkId::new("mcp-runtime/open", slug),
            &token,
            |b, t| b.iter(|| codec.open(black_box(t), &binding).unwrap()),
        );
        group.bench_with_input(BenchmarkId::new("rmcp/seal", slug), &journal, |b, j| {
            b.iter(|| {
                let ad = rmcp_binding(black_box(&args));
                rmcp.seal_json_with(j, &SealOptions::new().associated_data(&ad).ttl(ttl))
                    .unwrap()
            })
        });
        group.bench_with_input(BenchmarkId::new("rmcp/open", slug), &rtoken, |b, t| {
            b.iter(|| {
                let ad = rmcp_binding(black_box(&args));
                rmcp.open_json_with::<mcp_runtime::state::Journal>(t, &ad)
                    .unwrap()
            })
        });
    }
    group.finish();
    mcp_benches::write_facts("state", Value::from(facts));
}

criterion_group!(benches, bench);
criterion_main!(benches);
