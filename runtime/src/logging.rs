//! One line of logging setup that is safe for stdio servers: `oxmcp::logging::init()`
//! sends `tracing` events to stderr (stdout carries the protocol and must hold nothing else),
//! filtered by `RUST_LOG` (`info` by default; `warn,oxmcp=debug` and the like).

use tracing_subscriber::filter::{LevelFilter, Targets};
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::util::SubscriberInitExt;

/// Install a subscriber that writes to stderr, filtered by `RUST_LOG`. Does nothing if the
/// process already has one. A `RUST_LOG` that cannot be read falls back to `info` (and says so).
pub fn init() {
    let installed = tracing_subscriber::registry()
        .with(stderr_layer())
        .try_init()
        .is_ok();
    if installed {
        warn_if_unread();
    }
}

/// `RUST_LOG` as a filter (`info` when unset, empty or unreadable), and the text and error when
/// it could not be read.
pub(crate) fn rust_log() -> (Targets, Option<(String, String)>) {
    match std::env::var("RUST_LOG") {
        Ok(text) if !text.trim().is_empty() => match text.parse::<Targets>() {
            Ok(t) => (t, None),
            Err(e) => (
                Targets::new().with_default(LevelFilter::INFO),
                Some((text, e.to_string())),
            ),
        },
        _ => (Targets::new().with_default(LevelFilter::INFO), None),
    }
}

/// Say once, after a subscriber is installed, that `RUST_LOG` could not be read.
pub(crate) fn warn_if_unread() {
    if let (_, Some((text, e))) = rust_log() {
        tracing::warn!(rust_log = %text, error = %e, "RUST_LOG not understood; logging at info");
    }
}

/// The stderr half of the setup: lines without colour, filtered by `RUST_LOG`.
pub(crate) fn stderr_layer<S>() -> impl tracing_subscriber::Layer<S> + Send + Sync
where
    S: tracing::Subscriber + for<'span> tracing_subscriber::registry::LookupSpan<'span>,
{
    use tracing_subscriber::Layer as _;
    let filter = rust_log().0;
    tracing_subscriber::fmt::layer()
        .with_writer(std::io::stderr)
        .with_ansi(false)
        .with_filter(filter)
}
