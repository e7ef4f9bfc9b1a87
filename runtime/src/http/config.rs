//! The HTTP transport's settings, and the state every route shares.

use super::quota::Quotas;
use crate::server::Server;
use crate::transport::Limits;
use std::sync::Arc;

/// Settings of the HTTP transport: `HttpConfig::default().auth(auth).limits(limits)`.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct HttpConfig {
    /// The endpoint path (default `/mcp`).
    pub path: String,
    /// Largest accepted request body in bytes (default 4 MiB).
    pub max_body: usize,
    /// Host names accepted in `Host` (default: localhost, 127.0.0.1, `[::1]`), against DNS
    /// rebinding. Behind a reverse proxy, list the public host name; `*.example.com` accepts
    /// every name under `example.com` (not the name itself). Empty means any.
    pub allowed_hosts: Vec<String>,
    /// Host names accepted in `Origin`, when a browser sends one (default: the same local
    /// names; `*.` as in `allowed_hosts`). Empty means any.
    pub allowed_origins: Vec<String>,
    /// Bearer-token authentication (none by default: every request is served anonymously, or
    /// as the `Principal` an application layer puts in the request's extensions).
    #[cfg(feature = "auth")]
    pub auth: Option<crate::auth::AuthConfig>,
    /// Timeouts, the connection limit, the notification queue, quotas and the shutdown deadline.
    pub limits: Limits,
    /// Where liveness and readiness are answered, for load balancers and orchestrators
    /// (default `/healthz` and `/readyz`; `None` serves neither). Neither needs a token or an
    /// allowed `Host`, and neither says more than `ok`, `ready` or why it is not.
    pub health: Option<HealthPaths>,
    /// Where a server built with `ServerBuilder::metrics` serves its Prometheus metrics
    /// (default `/metrics`; `None` serves none). Like the health endpoints it needs no token.
    #[cfg(feature = "metrics")]
    #[cfg_attr(docsrs, doc(cfg(feature = "metrics")))]
    pub metrics_path: Option<String>,
    /// Whether responses reach the client only whole (a host that buffers them): a stream
    /// that never ends is then refused.
    pub(crate) buffered: bool,
}

/// The paths of the health endpoints: `HealthPaths::default().liveness("/live")`.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct HealthPaths {
    /// Liveness: 200 while the process serves.
    pub liveness: String,
    /// Readiness: 200 while the server takes requests; 503 while it drains before stopping,
    /// or while its task store cannot be reached.
    pub readiness: String,
}

impl Default for HealthPaths {
    fn default() -> Self {
        HealthPaths {
            liveness: "/healthz".into(),
            readiness: "/readyz".into(),
        }
    }
}

impl Default for HttpConfig {
    fn default() -> Self {
        HttpConfig {
            path: "/mcp".into(),
            max_body: 4 * 1024 * 1024,
            allowed_hosts: vec!["localhost".into(), "127.0.0.1".into(), "[::1]".into()],
            allowed_origins: vec!["localhost".into(), "127.0.0.1".into(), "[::1]".into()],
            #[cfg(feature = "auth")]
            auth: None,
            limits: Limits::default(),
            health: Some(HealthPaths::default()),
            #[cfg(feature = "metrics")]
            metrics_path: Some("/metrics".into()),
            buffered: false,
        }
    }
}

setters!(HttpConfig {
    path: impl Into<String> => path.into(),
    max_body: usize => max_body,
    allowed_hosts: Vec<String> => allowed_hosts,
    allowed_origins: Vec<String> => allowed_origins,
    #[cfg(feature = "auth")]
    auth: impl Into<Option<crate::auth::AuthConfig>> => auth.into(),
    limits: Limits => limits,
    health: impl Into<Option<HealthPaths>> => health.into(),
    #[cfg(feature = "metrics")]
    #[cfg_attr(docsrs, doc(cfg(feature = "metrics")))]
    metrics_path: Option<String> => metrics_path,
});

setters!(HealthPaths {
    liveness: impl Into<String> => liveness.into(),
    readiness: impl Into<String> => readiness.into(),
});

/// What every route of one endpoint shares but its 2025-era sessions: the server, the settings
/// and the per-caller counters.
pub(crate) struct Core {
    pub(crate) server: Arc<Server>,
    pub(crate) config: HttpConfig,
    /// Requests in flight per caller.
    pub(crate) quotas: Arc<Quotas>,
    /// Set once the server is stopping: readiness fails from then on.
    pub(crate) draining: std::sync::atomic::AtomicBool,
    /// Requests outside a 2025-era session that arrived while the server drained: new work a
    /// load balancer sent to an instance that was no longer ready (logged when it stops).
    pub(crate) while_draining: std::sync::atomic::AtomicU64,
}

impl Core {
    /// Whether requests must carry a bearer token.
    pub(crate) fn authenticates(&self) -> bool {
        #[cfg(feature = "auth")]
        return self.config.auth.is_some();
        #[cfg(not(feature = "auth"))]
        return false;
    }

    /// Count a request outside a 2025-era session if it arrived while the server drained.
    pub(crate) fn note_if_draining(&self) {
        use std::sync::atomic::Ordering;
        if self.draining.load(Ordering::Relaxed) {
            self.while_draining.fetch_add(1, Ordering::Relaxed);
            #[cfg(feature = "metrics")]
            if let Some(metrics) = self.server.metrics() {
                metrics.while_draining();
            }
        }
    }
}
