//! Interleaved ("paired") timing of the sides of one comparison, for the ratio tables.
//!
//! On these shared machines a fixed busy loop timed in 100 ms windows flips between two speeds
//! about 2x apart (another guest on the sibling hyperthread, or the clock), so sides timed one
//! after another in half-second windows, as criterion does, can differ by 2x for no reason of
//! their own. Here every round runs one short batch of each side, in rotating order, so all
//! sides see the same machine; the ratio of two sides is the median of their per-round ratios.

// Included by both bench targets, each of which uses part of it.
#![allow(dead_code)]

use mcp_benches::median;
use std::hint::black_box;
use std::time::{Duration, Instant};

/// Length of one side's batch in a round: short against the machine's speed changes, long
/// against the clock's resolution.
const BATCH: Duration = Duration::from_micros(100);

/// One side of a comparison: a name and the operation to time (its result is black-boxed).
pub struct Side<'a> {
    /// How the side is reported.
    pub name: String,
    /// One operation.
    pub op: Box<dyn FnMut() -> usize + 'a>,
}

impl<'a> Side<'a> {
    /// A side named `name` timing `op`.
    pub fn new(name: impl Into<String>, op: impl FnMut() -> usize + 'a) -> Self {
        Side {
            name: name.into(),
            op: Box::new(op),
        }
    }
}

/// Per-round nanoseconds per operation of every side, rounds aligned across sides.
pub struct Samples {
    /// The sides' names, in the order given.
    pub names: Vec<String>,
    /// `per_side[i][r]`: side `i` in round `r`.
    pub per_side: Vec<Vec<f64>>,
}

impl Samples {
    /// Per round, the summed time of the sides in `set` (one side, or e.g. seal plus open).
    fn round_sums<'s>(&'s self, set: &'s [usize]) -> impl Iterator<Item = f64> + 's {
        let rounds = self.per_side.first().map_or(0, Vec::len);
        (0..rounds).map(move |r| set.iter().map(|&i| self.per_side[i][r]).sum::<f64>())
    }

    /// The median time per operation of side `i`, in nanoseconds.
    pub fn median_ns(&self, i: usize) -> f64 {
        self.median_sum_ns(&[i])
    }

    /// The median over rounds of the summed time of `set` (e.g. seal plus open).
    pub fn median_sum_ns(&self, set: &[usize]) -> f64 {
        median(self.round_sums(set).collect())
    }

    /// The index of the side called `name`.
    pub fn index(&self, name: &str) -> Option<usize> {
        self.names.iter().position(|n| n == name)
    }

    /// The median over rounds of `sum(num) / sum(den)`, each a set of sides (so seal and open
    /// can be added up within a round before dividing).
    pub fn ratio(&self, num: &[usize], den: &[usize]) -> f64 {
        median(
            self.round_sums(num)
                .zip(self.round_sums(den))
                .map(|(n, d)| n / d.max(f64::MIN_POSITIVE))
                .collect(),
        )
    }
}

/// Runs `op` `n` times and returns the elapsed time.
fn batch(op: &mut dyn FnMut() -> usize, n: u64) -> Duration {
    let start = Instant::now();
    for _ in 0..n {
        black_box(op());
    }
    start.elapsed()
}

/// Times `sides` interleaved for about `budget`: warm-up and calibration (each side's batch is
/// sized to about 100 µs), then rounds of one batch per side in rotating order.
pub fn measure(mut sides: Vec<Side<'_>>, budget: Duration) -> Samples {
    let mut iters = Vec::with_capacity(sides.len());
    for side in &mut sides {
        // Warm up for a few milliseconds, then size the batch from the warm timing.
        let mut n = 1u64;
        let mut spent = Duration::ZERO;
        let warm_until = Instant::now() + Duration::from_millis(5);
        while Instant::now() < warm_until {
            spent = batch(&mut side.op, n);
            if spent < BATCH {
                n *= 2;
            }
        }
        let per_op = spent.as_secs_f64() / n as f64;
        iters.push(((BATCH.as_secs_f64() / per_op.max(1e-9)).ceil() as u64).max(1));
    }
    let round_time = BATCH.as_secs_f64() * sides.len() as f64;
    let rounds = ((budget.as_secs_f64() / round_time) as usize).clamp(30, 5000);
    let mut per_side = vec![Vec::with_capacity(rounds); sides.len()];
    for r in 0..rounds {
        for k in 0..sides.len() {
            let i = (k + r) % sides.len();
            let spent = batch(&mut sides[i].op, iters[i]);
            per_side[i].push(spent.as_nanos() as f64 / iters[i] as f64);
        }
    }
    Samples {
        names: sides.into_iter().map(|s| s.name).collect(),
        per_side,
    }
}

/// Whether this run is a measuring one (`cargo bench`), not a `cargo test` smoke run.
pub fn benchmarking() -> bool {
    std::env::args().any(|a| a == "--bench")
}
