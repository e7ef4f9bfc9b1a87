//! Seal and open a journal in a loop, for a profiler:
//! `perf record -g target/release/examples/state_profile [JOURNAL [public|retry]]`.
//! `public` (the default) seals and opens with the public API, each call computing its digests;
//! `retry` does one retry's work as the MRTR round does it (`BoundCodec`).
fn main() {
    let (codec, args) = mcp_benches::state_setup();
    let binding = mcp_benches::binding(&args);
    let journals = mcp_benches::journals();
    let mut argv = std::env::args().skip(1);
    let which = argv.next().unwrap_or_else(|| "10_forms".into());
    let retry = argv.next().is_some_and(|a| a == "retry");
    let journal = &journals
        .iter()
        .find(|j| j.0 == which)
        .expect("journal slug")
        .2;
    let bound = oxmcp::bench::BoundCodec::new(&codec, "fp");
    let mut token = codec.seal(&binding, "fp", journal).expect("seal");
    let mut n = 0usize;
    for _ in 0..200_000 {
        if retry {
            let b = bound.bind(&binding);
            let opened = bound
                .open(&token, &b)
                .expect("open")
                .expect("recorded here");
            n += opened.journal.len();
            token = bound.seal(&b, journal).expect("seal");
        } else {
            let token = codec.seal(&binding, "fp", journal).expect("seal");
            n += codec.open(&token, &binding).expect("open").journal.len();
        }
    }
    println!("{n}");
}
