//! Measures `requestState` payload encodings (JSON, CBOR, each with and without DEFLATE) and
//! the sealed token size and seal+open time for journals of 1, 3 and 10 form answers and one
//! 4 KiB sampling answer. `cargo run --release -p mcp-benches --example state_size`

use serde_json::json;
use std::time::Instant;

fn main() {
    let (codec, args) = mcp_benches::state_setup();
    let binding = mcp_benches::binding(&args);
    println!("| journal | JSON | JSON+deflate | CBOR | CBOR+deflate | token | token/JSON | seal+open (µs) |");
    println!("|---|---|---|---|---|---|---|---|");
    for (_, name, journal) in mcp_benches::journals() {
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
            token = codec.seal(&binding, "0123456789abcdef", &journal).unwrap();
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
