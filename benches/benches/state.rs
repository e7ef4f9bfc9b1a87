//! Seal and open `requestState` for journals of 1, 3 and 10 small form answers and one 4 KiB
//! sampling answer.

use criterion::{black_box, criterion_group, criterion_main, BenchmarkId, Criterion};

fn bench(c: &mut Criterion) {
    let (codec, args) = mcp_benches::state_setup();
    let binding = mcp_benches::binding(&args);
    let mut group = c.benchmark_group("state");
    for (slug, _, journal) in mcp_benches::journals() {
        let token = codec.seal(&binding, "fp", journal.clone()).unwrap();
        group.bench_with_input(BenchmarkId::new("seal", slug), &journal, |b, j| {
            b.iter(|| codec.seal(black_box(&binding), "fp", j.clone()).unwrap())
        });
        group.bench_with_input(BenchmarkId::new("open", slug), &token, |b, t| {
            b.iter(|| codec.open(black_box(t), &binding).unwrap())
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
