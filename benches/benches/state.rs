//! Seal and open `requestState` for journals of 1, 3 and 10 small form answers and one 4 KiB
//! sampling answer.

use criterion::{black_box, criterion_group, criterion_main, BenchmarkId, Criterion};
use indexmap::IndexMap;
use mcp_runtime::state::Binding;
use mcp_runtime::{StateCodec, StateKey, StateKeys};
use serde_json::{json, Value};

fn form(i: usize) -> Value {
    json!({"action": "accept", "content": {"name": format!("User {i}"), "email": format!("user{i}@example.com"), "party": 4}})
}

fn bench(c: &mut Criterion) {
    let codec =
        StateCodec::new(StateKeys::new(vec![StateKey::new(1, &[7u8; 32]).unwrap()]).unwrap());
    let args = json!({"restaurant": "Chez Rust", "party": 4});
    let binding = Binding {
        method: "tools/call",
        target: "book_table",
        arguments: Some(&args),
        principal: None,
        protocol_version: "2026-07-28",
    };
    let sampling = json!({"role": "assistant", "model": "m", "content": {"type": "text", "text": "x".repeat(4096)}});
    let cases: Vec<(&str, IndexMap<String, Value>)> = vec![
        (
            "1_form",
            (0..1).map(|i| (format!("k{i}"), form(i))).collect(),
        ),
        (
            "3_forms",
            (0..3).map(|i| (format!("k{i}"), form(i))).collect(),
        ),
        (
            "10_forms",
            (0..10).map(|i| (format!("k{i}"), form(i))).collect(),
        ),
        (
            "4k_sampling",
            [("s".to_string(), sampling)].into_iter().collect(),
        ),
    ];
    let mut group = c.benchmark_group("state");
    for (name, journal) in cases {
        let token = codec.seal(&binding, "fp", journal.clone()).unwrap();
        group.bench_with_input(BenchmarkId::new("seal", name), &journal, |b, j| {
            b.iter(|| codec.seal(black_box(&binding), "fp", j.clone()).unwrap())
        });
        group.bench_with_input(BenchmarkId::new("open", name), &token, |b, t| {
            b.iter(|| codec.open(black_box(t), &binding).unwrap())
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
