//! [`Via`]: how a request reached the server, for its telemetry. The transports fill it (with
//! the `otel` feature on); the server carries it with the request; the telemetry reads it.

/// How a request reached the server, for its telemetry: over which kind of connection, in which
/// 2025 session, and under which trace context the HTTP request that carried it came (its
/// `traceparent` and `tracestate` headers). Filled by the transports only while telemetry is on
/// (feature `otel`), when it is one word in the futures that carry it; without the feature it
/// has no size at all.
#[derive(Debug, Clone, Default)]
pub(crate) struct Via(#[cfg(feature = "otel")] pub(crate) Option<Box<Arrival>>);

/// What [`Via`] knows when telemetry is on.
#[derive(Debug, Clone)]
#[cfg(feature = "otel")]
pub(crate) struct Arrival {
    /// `tcp` (HTTP) or `pipe` (stdio).
    pub(crate) network: &'static str,
    /// The 2025 session's id, over HTTP.
    pub(crate) session: Option<std::sync::Arc<str>>,
    /// The HTTP request's `traceparent` and `tracestate` headers, when it sent them.
    pub(crate) trace_headers: Option<(String, Option<String>)>,
}

impl Via {
    /// The same, in the 2025 session `id`.
    #[cfg(feature = "http")]
    #[cfg_attr(not(feature = "otel"), allow(unused_mut))]
    pub(crate) fn in_session(mut self, id: &str) -> Via {
        #[cfg(feature = "otel")]
        if let Some(arrival) = &mut self.0 {
            arrival.session = Some(std::sync::Arc::from(id));
        }
        #[cfg(not(feature = "otel"))]
        let _ = id;
        self
    }

    /// What is known of the request's arrival, when telemetry is on.
    #[cfg(feature = "otel")]
    pub(crate) fn arrival(&self) -> Option<&Arrival> {
        self.0.as_deref()
    }
}
