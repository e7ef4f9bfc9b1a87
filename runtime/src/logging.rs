//! One line of logging setup that is safe for stdio servers: `oxmcp::logging::init()`
//! sends `tracing` events to stderr (stdout carries the protocol and must hold nothing else),
//! filtered by `RUST_LOG` (`info` by default; `warn,oxmcp=debug` and the like).

use tracing_subscriber::filter::{LevelFilter, Targets};
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::util::SubscriberInitExt;

/// Install a subscriber that writes to stderr, filtered by `RUST_LOG`. Does nothing if the
/// process already has one. A `RUST_LOG` that cannot be read falls back to `info` (and says so).
pub fn init() {
    let (filter, bad) = match std::env::var("RUST_LOG") {
        Ok(text) if !text.trim().is_empty() => match text.parse::<Targets>() {
            Ok(t) => (t, None),
            Err(e) => (
                Targets::new().with_default(LevelFilter::INFO),
                Some((text, e)),
            ),
        },
        _ => (Targets::new().with_default(LevelFilter::INFO), None),
    };
    let fmt = tracing_subscriber::fmt::layer()
        .with_writer(std::io::stderr)
        .with_ansi(false);
    let installed = tracing_subscriber::registry()
        .with(fmt)
        .with(filter)
        .try_init()
        .is_ok();
    if let (true, Some((text, e))) = (installed, bad) {
        tracing::warn!(rust_log = %text, error = %e, "RUST_LOG not understood; logging at info");
    }
}
