//! Prometheus metrics of a server (feature `metrics`), turned on with
//! [`ServerBuilder::metrics`](crate::ServerBuilder::metrics) and served in the Prometheus text
//! format at `/metrics` of the HTTP server ([`HttpConfig::metrics_path`](crate::http::HttpConfig)):
//!
//! | metric | kind | labels |
//! | --- | --- | --- |
//! | `mcp_requests_total` | counter | `method`, `outcome` (`ok`, `error`, `input_required`) |
//! | `mcp_request_duration_seconds` | histogram | `method` |
//! | `mcp_mrtr_rounds_total` | counter | `method`: answers that asked the client for input |
//! | `mcp_sessions_open` | gauge | 2025-era HTTP sessions |
//! | `mcp_streams_open` | gauge | `era` (`stateless`, `session`): SSE streams open |
//! | `mcp_tasks_total` | counter | `status`: tasks created, and ended by status |
//! | `mcp_request_state_refused_total` | counter | `reason`: `requestState` tokens refused |
//! | `mcp_task_store_errors_total` | counter | errors of the task store (Redis) |
//! | `mcp_requests_while_draining_total` | counter | requests outside a 2025 session that arrived while the server drained (a load balancer still routing to it) |

use prometheus_client::encoding::text::encode;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::{exponential_buckets, Histogram};
use prometheus_client::registry::Registry;
use std::sync::Arc;

type Labels<const N: usize> = [(&'static str, &'static str); N];

fn latency_histogram() -> Histogram {
    // 25 µs to about 1.6 s.
    Histogram::new(exponential_buckets(0.000_025, 2.0, 17))
}

/// One method's series, looked up once: a request then updates them without hashing labels or
/// taking the families' locks.
struct ByMethod {
    method: &'static str,
    ok: Counter,
    error: Counter,
    input_required: Counter,
    rounds: Counter,
    duration: Histogram,
}

/// The metrics of one server, and the registry that renders them.
pub(crate) struct Metrics {
    /// The series of each method seen so far (a handful: a scan beats a hash).
    by_method: arc_swap::ArcSwap<Vec<Arc<ByMethod>>>,
    registry: Registry,
    requests: Family<Labels<2>, Counter>,
    duration: Family<Labels<1>, Histogram, fn() -> Histogram>,
    rounds: Family<Labels<1>, Counter>,
    sessions: Gauge,
    streams: Family<Labels<1>, Gauge>,
    #[cfg(feature = "tasks")]
    tasks: Family<Labels<1>, Counter>,
    state_refused: Family<Labels<1>, Counter>,
    #[cfg(feature = "tasks")]
    store_errors: Counter,
    while_draining: Counter,
}

impl Metrics {
    pub(crate) fn new() -> Self {
        let mut registry = Registry::default();
        let requests = Family::<Labels<2>, Counter>::default();
        let duration = Family::<Labels<1>, Histogram, fn() -> Histogram>::new_with_constructor(
            latency_histogram,
        );
        let rounds = Family::<Labels<1>, Counter>::default();
        let sessions = Gauge::default();
        let streams = Family::<Labels<1>, Gauge>::default();
        #[cfg(feature = "tasks")]
        let tasks = Family::<Labels<1>, Counter>::default();
        let state_refused = Family::<Labels<1>, Counter>::default();
        #[cfg(feature = "tasks")]
        let store_errors = Counter::default();
        let while_draining = Counter::default();
        registry.register(
            "mcp_requests",
            "Requests answered, by method and outcome",
            requests.clone(),
        );
        registry.register(
            "mcp_request_duration_seconds",
            "Time to answer a request, by method",
            duration.clone(),
        );
        registry.register(
            "mcp_mrtr_rounds",
            "Answers that asked the client for input (input_required), by method",
            rounds.clone(),
        );
        registry.register(
            "mcp_sessions_open",
            "2025-era HTTP sessions open",
            sessions.clone(),
        );
        registry.register(
            "mcp_streams_open",
            "SSE response streams open, by era (stateless requests, or 2025-era sessions)",
            streams.clone(),
        );
        #[cfg(feature = "tasks")]
        registry.register(
            "mcp_tasks",
            "Tasks created, and ended by status",
            tasks.clone(),
        );
        registry.register(
            "mcp_request_state_refused",
            "requestState tokens refused, by reason",
            state_refused.clone(),
        );
        #[cfg(feature = "tasks")]
        registry.register(
            "mcp_task_store_errors",
            "Errors of the task store",
            store_errors.clone(),
        );
        registry.register(
            "mcp_requests_while_draining",
            "Requests outside a 2025-era session that arrived while the server drained",
            while_draining.clone(),
        );
        Metrics {
            by_method: arc_swap::ArcSwap::from_pointee(Vec::new()),
            registry,
            requests,
            duration,
            rounds,
            sessions,
            streams,
            #[cfg(feature = "tasks")]
            tasks,
            state_refused,
            #[cfg(feature = "tasks")]
            store_errors,
            while_draining,
        }
    }

    /// The series of `method`, made on its first request.
    fn of(&self, method: &'static str) -> Arc<ByMethod> {
        let known = self.by_method.load();
        if let Some(found) = known.iter().find(|m| m.method == method) {
            return found.clone();
        }
        let made = Arc::new(ByMethod {
            method,
            ok: self.counter(method, "ok"),
            error: self.counter(method, "error"),
            input_required: self.counter(method, "input_required"),
            rounds: self.rounds.get_or_create(&[("method", method)]).clone(),
            duration: self.duration.get_or_create(&[("method", method)]).clone(),
        });
        self.by_method.rcu(|known| {
            let mut more = Vec::clone(known);
            if !more.iter().any(|m| m.method == method) {
                more.push(made.clone());
            }
            more
        });
        made
    }

    fn counter(&self, method: &'static str, outcome: &'static str) -> Counter {
        self.requests
            .get_or_create(&[("method", method), ("outcome", outcome)])
            .clone()
    }

    /// A request of `method` answered with `outcome` (`ok`, `error` or `input_required`)
    /// after `seconds`.
    pub(crate) fn request(&self, method: &'static str, outcome: &'static str, seconds: f64) {
        let series = self.of(method);
        match outcome {
            "input_required" => {
                series.input_required.inc();
                series.rounds.inc();
            }
            "error" => {
                series.error.inc();
            }
            _ => {
                series.ok.inc();
            }
        }
        series.duration.observe(seconds);
    }

    /// A session opened (`+1`) or closed (`-1`).
    pub(crate) fn sessions(&self, delta: i64) {
        self.sessions.inc_by(delta);
    }

    /// An SSE stream of `era` opened: counted in `mcp_streams_open` until the guard is dropped
    /// with the stream.
    pub(crate) fn stream(self: &Arc<Self>, era: &'static str) -> OpenStream {
        self.streams.get_or_create(&[("era", era)]).inc();
        OpenStream {
            metrics: self.clone(),
            era,
        }
    }

    /// A task created, or ended with `status`.
    #[cfg(feature = "tasks")]
    pub(crate) fn task(&self, status: &'static str) {
        self.tasks.get_or_create(&[("status", status)]).inc();
    }

    /// A `requestState` refused for `reason`.
    pub(crate) fn state_refused(&self, reason: &'static str) {
        self.state_refused
            .get_or_create(&[("reason", reason)])
            .inc();
    }

    /// An error of the task store.
    #[cfg(feature = "tasks")]
    pub(crate) fn store_error(&self) {
        self.store_errors.inc();
    }

    /// A request outside a 2025-era session arrived while the server drained.
    pub(crate) fn while_draining(&self) {
        self.while_draining.inc();
    }

    /// Every metric in the Prometheus text format.
    pub(crate) fn render(&self) -> String {
        let mut text = String::new();
        // Writing to a String cannot fail.
        let _ = encode(&mut text, &self.registry);
        text
    }
}

/// An open SSE stream, counted in `mcp_streams_open` while it lives.
pub(crate) struct OpenStream {
    metrics: Arc<Metrics>,
    era: &'static str,
}

impl Drop for OpenStream {
    fn drop(&mut self) {
        self.metrics
            .streams
            .get_or_create(&[("era", self.era)])
            .dec();
    }
}
