//! Measures `requestState` journal encodings (JSON, CBOR, each with and without DEFLATE) and the
//! sealed token's size, against the bound the project holds it to (1.4 times the plaintext
//! journal plus 64 bytes), and its seal+open time, for journals of 1, 3 and 10 form answers and
//! one 4 KiB sampling answer. `cargo run --release -p mcp-benches --example state_size`

use std::time::Instant;

fn main() {
    let (codec, args) = mcp_benches::state_setup();
    let binding = mcp_benches::binding(&args);
    println!("| journal | JSON | JSON+deflate | CBOR | CBOR+deflate | token | bound (1.4 JSON + 64) | seal+open (µs) |");
    println!("|---|---|---|---|---|---|---|---|");
    for (_, name, journal) in mcp_benches::journals() {
        let j = serde_json::to_vec(&journal).expect("journal serializes");
        // CBOR of the answers themselves (a raw JSON value would go into CBOR as its text).
        let tree = serde_json::to_value(&journal).expect("journal is JSON");
        let mut c = Vec::new();
        ciborium::into_writer(&tree, &mut c).expect("journal encodes");
        let jd = miniz_oxide::deflate::compress_to_vec(&j, 6);
        let cd = miniz_oxide::deflate::compress_to_vec(&c, 6);
        let n = 2000;
        let start = Instant::now();
        let mut token = String::new();
        for _ in 0..n {
            token = codec
                .seal(&binding, "0123456789abcdef", &journal)
                .expect("seals");
            codec.open(&token, &binding).expect("opens");
        }
        let per = start.elapsed().as_secs_f64() * 1e6 / n as f64;
        println!(
            "| {name} | {} | {} | {} | {} | {} | {:.0} | {per:.1} |",
            j.len(),
            jd.len(),
            c.len(),
            cd.len(),
            token.len(),
            1.4 * j.len() as f64 + 64.0
        );
    }
}
