//! Seal and open the 10-form journal in a loop, for a profiler:
//! `perf record -g target/release/examples/state_profile`.
fn main() {
    let (codec, args) = mcp_benches::state_setup();
    let binding = mcp_benches::binding(&args);
    let journals = mcp_benches::journals();
    let which = std::env::args().nth(1).unwrap_or_else(|| "10_forms".into());
    let journal = &journals
        .iter()
        .find(|j| j.0 == which)
        .expect("journal slug")
        .2;
    let mut n = 0usize;
    for _ in 0..200_000 {
        let token = codec.seal(&binding, "fp", journal).expect("seal");
        n += codec.open(&token, &binding).expect("open").journal.len();
    }
    println!("{n}");
}
