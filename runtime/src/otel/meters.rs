//! The duration histograms of the MCP semantic conventions, in seconds:
//! `mcp.server.operation.duration` and `mcp.client.operation.duration` per request,
//! `mcp.server.session.duration` per 2025 session.

use super::{active, SCOPE};
use arc_swap::ArcSwapOption;
use opentelemetry::metrics::{Histogram, MeterProvider as _};
use opentelemetry::KeyValue;
use opentelemetry_sdk::metrics::SdkMeterProvider;
use std::sync::Arc;
use std::time::Duration;

/// The buckets the conventions advise for every MCP duration, in seconds.
const BOUNDARIES: [f64; 14] = [
    0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0,
];

/// The instruments, made from the installed meter provider.
struct Instruments {
    server_operation: Histogram<f64>,
    client_operation: Histogram<f64>,
    server_session: Histogram<f64>,
}

/// The instruments of the provider installed last.
static INSTRUMENTS: ArcSwapOption<Instruments> = ArcSwapOption::const_empty();

/// Make the instruments from `provider` (meter `oxmcp`).
pub(super) fn install(provider: &SdkMeterProvider) {
    let meter = provider.meter(SCOPE);
    let histogram = |name: &'static str, description: &'static str| {
        meter
            .f64_histogram(name)
            .with_unit("s")
            .with_description(description)
            .with_boundaries(BOUNDARIES.to_vec())
            .build()
    };
    INSTRUMENTS.store(Some(Arc::new(Instruments {
        server_operation: histogram(
            "mcp.server.operation.duration",
            "MCP request or notification duration as observed on the receiver from the time it was received until the result or ack is sent.",
        ),
        client_operation: histogram(
            "mcp.client.operation.duration",
            "The duration of the MCP request or notification as observed on the sender from the time it was sent until the response or ack is received.",
        ),
        server_session: histogram(
            "mcp.server.session.duration",
            "The duration of the MCP session as observed on the MCP server.",
        ),
    })));
}

/// Record one request served in `seconds`.
pub(super) fn server_operation(seconds: f64, labels: &[KeyValue]) {
    if let Some(i) = &*INSTRUMENTS.load() {
        i.server_operation.record(seconds, labels);
    }
}

/// Record one request the client sent, answered in `seconds`.
pub(super) fn client_operation(seconds: f64, labels: &[KeyValue]) {
    if let Some(i) = &*INSTRUMENTS.load() {
        i.client_operation.record(seconds, labels);
    }
}

/// Record a 2025 session of `version`, over `network` (`tcp`, `pipe`), that lasted `lasted`.
pub(crate) fn session_ended(lasted: Duration, version: &str, network: &'static str) {
    if !active() {
        return;
    }
    if let Some(i) = &*INSTRUMENTS.load() {
        i.server_session.record(
            lasted.as_secs_f64(),
            &[
                KeyValue::new("mcp.protocol.version", version.to_string()),
                KeyValue::new("network.transport", network),
            ],
        );
    }
}
