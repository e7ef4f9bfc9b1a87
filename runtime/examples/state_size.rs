//! Measures `requestState` payload encodings (JSON, CBOR, each with and without DEFLATE) and
//! the sealed token size and seal+open time for journals of 1, 3 and 10 form answers and one
//! 4 KiB sampling answer. `cargo run --release -p mcp-runtime --example state_size`

use indexmap::IndexMap;
use mcp_runtime::state::Binding;
use mcp_runtime::{StateCodec, StateKey, StateKeys};
use serde_json::{json, Value};
use std::time::Instant;

fn form(i: usize) -> Value {
    json!({"action": "accept", "content": {"name": format!("User {i}"), "email": format!("user{i}@example.com"), "party": 4, "outside": true}})
}

fn main() {
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
    let sampling = json!({"role": "assistant", "model": "m-1", "content": {"type": "text", "text": "lorem ipsum dolor sit amet ".repeat(152)}});
    let cases: Vec<(&str, IndexMap<String, Value>)> = vec![
        (
            "1 form answer",
            (0..1)
                .map(|i| (format!("elicit-3fa2b1c0-{i}"), form(i)))
                .collect(),
        ),
        (
            "3 form answers",
            (0..3)
                .map(|i| (format!("elicit-3fa2b1c0-{i}"), form(i)))
                .collect(),
        ),
        (
            "10 form answers",
            (0..10)
                .map(|i| (format!("elicit-3fa2b1c0-{i}"), form(i)))
                .collect(),
        ),
        (
            "4 KiB sampling answer",
            [("sample-9a8b7c6d".to_string(), sampling)]
                .into_iter()
                .collect(),
        ),
    ];
    println!("| journal | JSON | JSON+deflate | CBOR | CBOR+deflate | token | token/JSON | seal+open (µs) |");
    println!("|---|---|---|---|---|---|---|---|");
    for (name, journal) in cases {
        let payload = json!({"e": 1_900_000_000u64, "f": "0123456789abcdef", "j": journal});
        let j = serde_json::to_vec(&payload).unwrap();
        let mut c = Vec::new();
        ciborium::into_writer(&payload, &mut c).unwrap();
        let jd = miniz_oxide::deflate::compress_to_vec(&j, 6);
        let cd = miniz_oxide::deflate::compress_to_vec(&c, 6);
        let n = 2000;
        let start = Instant::now();
        let mut token = String::new();
        for _ in 0..n {
            token = codec
                .seal(&binding, "0123456789abcdef", journal.clone())
                .unwrap();
            codec.open(&token, &binding).unwrap();
        }
        let per = start.elapsed().as_secs_f64() * 1e6 / n as f64;
        println!(
            "| {name} | {} | {} | {} | {} | {} | {:.2} | {per:.1} |",
            j.len(),
            jd.len(),
            c.len(),
            cd.len(),
            token.len(),
            token.len() as f64 / j.len() as f64
        );
    }
}
