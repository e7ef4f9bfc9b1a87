//! OpenTelemetry by the MCP semantic conventions (feature `otel`): one trace per flow.
//!
//! With [`init`] at the start of `main` (inside the Tokio runtime), the standard `OTEL_*`
//! environment variables decide everything: `OTEL_EXPORTER_OTLP_ENDPOINT` (or the
//! `_TRACES_`/`_METRICS_` ones) turns export on, over OTLP/HTTP with protobuf
//! (`OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf`, the only protocol this build sends);
//! `OTEL_SERVICE_NAME` and `OTEL_RESOURCE_ATTRIBUTES` name the service; `OTEL_TRACES_SAMPLER`
//! samples; `OTEL_BSP_*` and `OTEL_METRIC_EXPORT_INTERVAL` pace the batches;
//! `OTEL_TRACES_EXPORTER=none` or `OTEL_METRICS_EXPORTER=none` turn one signal off and
//! `OTEL_SDK_DISABLED=true` both. Logs still go to stderr as with [`crate::logging::init`].
//! Code that builds its own providers hands them to a [`Builder`].
//!
//! What is recorded:
//! - a SERVER span for every request, in both eras and over every transport, named
//!   `{mcp.method.name} {target}` (`tools/call get_weather`; the method alone when the tool or
//!   prompt is unknown, so callers cannot make names up), with `mcp.method.name`,
//!   `gen_ai.tool.name`, `gen_ai.prompt.name`, `mcp.resource.uri`, `jsonrpc.request.id`,
//!   `mcp.protocol.version`, `mcp.session.id` and `network.transport`; its parent is the context
//!   in `params._meta` (`traceparent`, `tracestate`, `baggage`), linked to the HTTP request's own
//!   context where that differs, else the HTTP request's, else none. A JSON-RPC error sets
//!   `error.type` and `rpc.response.status_code` to its code and the status to ERROR; a tool
//!   result with `isError` sets `error.type` to `tool_error`.
//! - the rounds of one MRTR flow tied together: the first round's span context travels sealed in
//!   `requestState`, and every later round, on whatever instance, links to it and names the
//!   flow in `oxmcp.flow.id`; a task's run is a span linked to the call that created it, and
//!   `tasks/get`, `tasks/update` and `tasks/cancel` link to that call too (across instances that
//!   share the task store); each `step` is a child span, marked `oxmcp.step.replayed` when its
//!   result came from the journal instead of running again.
//! - a CLIENT span for every request [`crate::client::Client`] sends, its context injected into
//!   `params._meta`, so a trace runs from the caller through the server's handler and back.
//! - the histograms `mcp.server.operation.duration` and `mcp.client.operation.duration` (per
//!   request) and `mcp.server.session.duration` (per 2025 session), in seconds.
//!
//! Nothing secret is recorded: no arguments, results, tokens, `requestState` or answers.
//! Spans and metrics are flushed when a transport shuts down gracefully, and by
//! [`Telemetry::shutdown`].

// A build without a transport, the client or tasks leaves some of the recording unused.
#![cfg_attr(
    not(all(
        feature = "http",
        feature = "stdio",
        feature = "client",
        feature = "tasks"
    )),
    allow(dead_code)
)]

mod export;
mod meters;
mod spans;

// Which of these a build uses depends on its transports, client and extensions.
#[allow(unused_imports)]
pub(crate) use meters::session_ended;
#[cfg(feature = "http")]
pub(crate) use spans::trace_headers;
#[allow(unused_imports)]
pub(crate) use spans::{
    client_request_id, client_span, flow_link, link_task, replayed_step, seal_flow, server_span,
    step_span, task_context, task_run_ended, task_run_span, Payloads, RunEnd, ServerSpan, Target,
};

use crate::wire::Cause;
use opentelemetry_sdk::metrics::SdkMeterProvider;
use opentelemetry_sdk::trace::SdkTracerProvider;
use std::fmt;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

/// Whether telemetry is on: a tracer or a meter provider is installed.
static ACTIVE: AtomicBool = AtomicBool::new(false);

/// The providers [`Builder::install`] installed, for the transports' flush at shutdown.
static INSTALLED: Mutex<Option<Providers>> = Mutex::new(None);

/// What was installed.
#[derive(Clone, Default)]
struct Providers {
    tracer: Option<SdkTracerProvider>,
    meter: Option<SdkMeterProvider>,
}

/// Whether spans and metrics are recorded (cheap: one relaxed load). Off until [`Builder::install`]
/// installs a provider, so a build with the feature and no exporter does no telemetry work.
pub(crate) fn active() -> bool {
    ACTIVE.load(Ordering::Relaxed)
}

/// The instrumentation scope every span and metric of the runtime is recorded under.
const SCOPE: &str = "oxmcp";

/// Why telemetry could not be set up or shut down.
#[derive(Debug)]
#[non_exhaustive]
pub enum OtelError {
    /// An `OTEL_*` variable names a protocol this build does not send (only `http/protobuf`).
    Protocol {
        /// The variable.
        variable: &'static str,
        /// Its value.
        value: String,
    },
    /// [`init`] or [`Builder::from_env`] was called outside a Tokio runtime: the exporters send
    /// on the runtime they are set up in.
    NoRuntime,
    /// An exporter could not be built: why.
    Exporter(Cause),
    /// The process already has a global `tracing` subscriber: add [`Builder::layer`] to it instead.
    SubscriberInstalled,
    /// Flushing or shutting down the providers failed: why.
    Shutdown(Cause),
}

impl fmt::Display for OtelError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OtelError::Protocol { variable, value } => write!(
                f,
                "{variable}={value}: this build exports over OTLP/HTTP with protobuf only; set it to http/protobuf"
            ),
            OtelError::NoRuntime => f.write_str(
                "OpenTelemetry is set up inside the Tokio runtime (at the start of #[tokio::main])",
            ),
            OtelError::Exporter(cause) => write!(f, "the OTLP exporter cannot be built: {cause}"),
            OtelError::SubscriberInstalled => f.write_str(
                "a tracing subscriber is already installed: add oxmcp::otel::Builder::layer to it",
            ),
            OtelError::Shutdown(cause) => write!(f, "telemetry could not be flushed: {cause}"),
        }
    }
}

impl std::error::Error for OtelError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            OtelError::Exporter(cause) | OtelError::Shutdown(cause) => Some(cause.get()),
            _ => None,
        }
    }
}

/// Set up telemetry from the `OTEL_*` environment variables and log to stderr as
/// [`crate::logging::init`] does: the whole setup of a server that is configured the way
/// OpenTelemetry users expect. Without an OTLP endpoint in the environment nothing is exported
/// and no telemetry work is done. Keep the [`Telemetry`] for the life of the process.
///
/// ```no_run
/// # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
/// let telemetry = oxmcp::otel::init()?;
/// # let server = oxmcp::Server::builder().build()?;
/// server.serve_http("127.0.0.1:8080").await?; // flushes at a graceful shutdown
/// telemetry.shutdown().await?;
/// # Ok(()) }
/// ```
pub fn init() -> Result<Telemetry, OtelError> {
    Builder::from_env()?.install()
}

/// Telemetry set up by code: the providers to record with (built by [`Builder::from_env`], or by
/// the application itself with `opentelemetry_sdk`), and whether to log to stderr too.
#[must_use = "a builder does nothing until installed"]
pub struct Builder {
    providers: Providers,
    stderr_logs: bool,
}

impl Default for Builder {
    fn default() -> Self {
        Builder::new()
    }
}

impl fmt::Debug for Builder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Builder")
            .field("tracer_provider", &self.providers.tracer.is_some())
            .field("meter_provider", &self.providers.meter.is_some())
            .field("stderr_logs", &self.stderr_logs)
            .finish()
    }
}

impl Builder {
    /// No provider yet, and logs to stderr.
    pub fn new() -> Builder {
        Builder {
            providers: Providers::default(),
            stderr_logs: true,
        }
    }

    /// The providers the `OTEL_*` environment variables describe (see the module's
    /// documentation): none without an OTLP endpoint. Must be called inside a Tokio runtime, on
    /// which the exporters then send.
    pub fn from_env() -> Result<Builder, OtelError> {
        let providers = export::from_env()?;
        Ok(Builder {
            providers,
            stderr_logs: true,
        })
    }

    /// Record spans with `provider` (the runtime's spans go to its tracer `oxmcp`).
    pub fn tracer_provider(mut self, provider: SdkTracerProvider) -> Self {
        self.providers.tracer = Some(provider);
        self
    }

    /// Record metrics with `provider` (meter `oxmcp`).
    pub fn meter_provider(mut self, provider: SdkMeterProvider) -> Self {
        self.providers.meter = Some(provider);
        self
    }

    /// Whether [`Builder::install`] also logs to stderr, filtered by `RUST_LOG` (default on).
    pub fn stderr_logs(mut self, on: bool) -> Self {
        self.stderr_logs = on;
        self
    }

    /// Install the providers as the process's global ones (the runtime records its spans and
    /// metrics with them), the W3C trace context and baggage as its propagators, and a `tracing`
    /// subscriber whose layer sends the application's own `tracing` spans to the tracer too
    /// (children of the request they run in), and logs to stderr if asked.
    pub fn install(self) -> Result<Telemetry, OtelError> {
        use tracing_subscriber::layer::SubscriberExt;
        use tracing_subscriber::util::SubscriberInitExt;
        let (telemetry, layer) = self.layer::<tracing_subscriber::Registry>();
        let stderr = telemetry.stderr_logs.then(crate::logging::stderr_layer);
        tracing_subscriber::registry()
            .with(layer)
            .with(stderr)
            .try_init()
            .map_err(|_| OtelError::SubscriberInstalled)?;
        if telemetry.stderr_logs {
            crate::logging::warn_if_unread();
        }
        Ok(telemetry)
    }

    /// For a process with a `tracing` subscriber of its own: install the providers and
    /// propagators as [`Builder::install`] does, and give the layer to add to that subscriber
    /// (it sends the application's `tracing` spans of the level `RUST_LOG` allows to the tracer).
    pub fn layer<S>(
        self,
    ) -> (
        Telemetry,
        Box<dyn tracing_subscriber::Layer<S> + Send + Sync>,
    )
    where
        S: tracing::Subscriber
            + for<'span> tracing_subscriber::registry::LookupSpan<'span>
            + Send
            + Sync,
    {
        use opentelemetry::trace::TracerProvider as _;
        use tracing_subscriber::Layer as _;
        opentelemetry::global::set_text_map_propagator(
            opentelemetry::propagation::TextMapCompositePropagator::new(vec![
                Box::new(opentelemetry_sdk::propagation::TraceContextPropagator::new()),
                Box::new(opentelemetry_sdk::propagation::BaggagePropagator::new()),
            ]),
        );
        let layer: Box<dyn tracing_subscriber::Layer<S> + Send + Sync> =
            match &self.providers.tracer {
                Some(provider) => {
                    opentelemetry::global::set_tracer_provider(provider.clone());
                    spans::install(provider.tracer(SCOPE));
                    let filter = crate::logging::rust_log().0;
                    Box::new(
                        tracing_opentelemetry::layer()
                            .with_tracer(provider.tracer(SCOPE))
                            .with_filter(filter),
                    )
                }
                None => Box::new(tracing_subscriber::layer::Identity::new()),
            };
        if let Some(provider) = &self.providers.meter {
            opentelemetry::global::set_meter_provider(provider.clone());
            meters::install(provider);
        }
        let on = self.providers.tracer.is_some() || self.providers.meter.is_some();
        *crate::wire::lock(&INSTALLED) = Some(self.providers.clone());
        ACTIVE.store(on, Ordering::Relaxed);
        let telemetry = Telemetry {
            providers: self.providers,
            stderr_logs: self.stderr_logs,
            done: false,
        };
        (telemetry, layer)
    }
}

/// The installed telemetry: keep it for the life of the process, and [`Telemetry::shutdown`] it
/// before exiting so the last spans and metrics are sent (the transports flush at a graceful
/// shutdown too).
#[must_use = "dropping it shuts telemetry down"]
pub struct Telemetry {
    providers: Providers,
    stderr_logs: bool,
    done: bool,
}

impl fmt::Debug for Telemetry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Telemetry")
            .field("traces", &self.providers.tracer.is_some())
            .field("metrics", &self.providers.meter.is_some())
            .finish()
    }
}

impl Telemetry {
    /// Whether spans are exported.
    pub fn exports_traces(&self) -> bool {
        self.providers.tracer.is_some()
    }

    /// Whether metrics are exported.
    pub fn exports_metrics(&self) -> bool {
        self.providers.meter.is_some()
    }

    /// Send what is still buffered and stop the providers. Runs the blocking shutdown off the
    /// runtime's worker threads, so the exports it waits for can run.
    pub async fn shutdown(mut self) -> Result<(), OtelError> {
        self.done = true;
        ACTIVE.store(false, Ordering::Relaxed);
        let providers = self.providers.clone();
        tokio::task::spawn_blocking(move || shut_down(&providers))
            .await
            .map_err(|e| OtelError::Shutdown(Cause::of(e)))?
    }
}

impl Drop for Telemetry {
    fn drop(&mut self) {
        if self.done {
            return;
        }
        ACTIVE.store(false, Ordering::Relaxed);
        // The exports run on the runtime: a blocking wait on its only thread would never end.
        let flavor = tokio::runtime::Handle::try_current().map(|h| h.runtime_flavor());
        if matches!(flavor, Ok(tokio::runtime::RuntimeFlavor::CurrentThread)) {
            tracing::warn!("telemetry dropped on a current-thread runtime without Telemetry::shutdown().await: what is still buffered is not sent");
            return;
        }
        let providers = self.providers.clone();
        let joined = std::thread::spawn(move || shut_down(&providers)).join();
        if let Ok(Err(e)) = joined {
            tracing::warn!(error = %e, "telemetry shutdown");
        }
    }
}

/// Shut both providers down (blocking until their last export ends).
fn shut_down(providers: &Providers) -> Result<(), OtelError> {
    let traces = providers.tracer.as_ref().map(|p| p.shutdown());
    let metrics = providers.meter.as_ref().map(|p| p.shutdown());
    for outcome in [traces, metrics].into_iter().flatten() {
        outcome.map_err(|e| OtelError::Shutdown(Cause::of(e)))?;
    }
    Ok(())
}

/// Send what the installed providers hold (at a transport's graceful shutdown), off the
/// runtime's worker threads.
pub(crate) async fn flush() {
    let Some(providers) = crate::wire::lock(&INSTALLED).clone() else {
        return;
    };
    if !active() {
        return;
    }
    let flushed = tokio::task::spawn_blocking(move || {
        if let Some(p) = &providers.tracer {
            let _ = p.force_flush();
        }
        if let Some(p) = &providers.meter {
            let _ = p.force_flush();
        }
    })
    .await;
    if flushed.is_err() {
        tracing::debug!("telemetry flush did not finish");
    }
}
