//! Parse and write realistic messages with mcp-schema, rust-mcp-schema and the serde_json
//! `IgnoredAny` floor, on the same bytes. Each message is parsed as what a peer would parse it
//! into: requests as the client-request union, responses as the typed response of that method.

use criterion::{black_box, criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use serde::de::IgnoredAny;

macro_rules! peer {
    ($group:expr, $label:expr, $name:expr, $text:expr, $ty:ty) => {{
        let text: &str = $text;
        // Check once that this peer can represent the message at all.
        if serde_json::from_str::<$ty>(text).is_ok() {
            $group.bench_with_input(
                BenchmarkId::new(concat!($label, "/parse"), $name),
                text,
                |b, t| b.iter(|| serde_json::from_str::<$ty>(black_box(t)).unwrap()),
            );
            let value: $ty = serde_json::from_str(text).unwrap();
            $group.bench_with_input(
                BenchmarkId::new(concat!($label, "/write"), $name),
                &value,
                |b, v| b.iter(|| serde_json::to_string(black_box(v)).unwrap()),
            );
        } else {
            eprintln!("{} cannot represent {}", $label, $name);
        }
    }};
}

fn bench(c: &mut Criterion) {
    for (name, text) in mcp_benches::messages() {
        let mut group = c.benchmark_group("serialization");
        group.throughput(Throughput::Bytes(text.len() as u64));
        group.bench_with_input(
            BenchmarkId::new("floor/ignored_any", name),
            text.as_str(),
            |b, t| b.iter(|| serde_json::from_str::<IgnoredAny>(black_box(t)).unwrap()),
        );
        match name {
            "tools_call_1k" | "retry_3" => {
                peer!(group, "mcp-schema", name, &text, mcp_schema::ClientRequest);
                peer!(
                    group,
                    "rust-mcp-schema",
                    name,
                    &text,
                    rust_mcp_schema::ClientRequest
                );
            }
            "call_tool_result_10k" | "input_required_3" => {
                peer!(
                    group,
                    "mcp-schema",
                    name,
                    &text,
                    mcp_schema::CallToolResultResponse
                );
                peer!(
                    group,
                    "rust-mcp-schema",
                    name,
                    &text,
                    rust_mcp_schema::CallToolResultResponse
                );
            }
            _ => {
                peer!(
                    group,
                    "mcp-schema",
                    name,
                    &text,
                    mcp_schema::ListToolsResultResponse
                );
                peer!(
                    group,
                    "rust-mcp-schema",
                    name,
                    &text,
                    rust_mcp_schema::ListToolsResultResponse
                );
            }
        }
        group.finish();
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
