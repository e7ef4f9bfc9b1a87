use std::time::Instant;
fn main() {
    let text = mcp_benches::input_required_3().to_string();
    let ours: mcp_schema::CallToolResultResponse = serde_json::from_str(&text).unwrap();
    let rms: rust_mcp_schema::CallToolResultResponse = serde_json::from_str(&text).unwrap();
    let a = serde_json::to_string(&ours).unwrap();
    let b = serde_json::to_string(&rms).unwrap();
    println!("{}\n{}\n{}", text.len(), a, b);
    let which = std::env::args().nth(1).unwrap_or_default();
    let n: usize = std::env::args()
        .nth(2)
        .and_then(|s| s.parse().ok())
        .unwrap_or(2_000_000);
    let t = Instant::now();
    let mut s = 0;
    for _ in 0..n {
        s += if which == "rms" {
            serde_json::to_string(&rms).unwrap().len()
        } else {
            serde_json::to_string(&ours).unwrap().len()
        };
    }
    println!(
        "{which} {:.3} us {s}",
        t.elapsed().as_secs_f64() * 1e6 / n as f64
    );
}
