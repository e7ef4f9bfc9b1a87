//! The OTLP/HTTP exporters the `OTEL_*` environment variables describe. They send with the
//! runtime's hyper client on the Tokio runtime they were set up in: the SDK's batch span
//! processor and periodic metric reader export from threads of their own, and each send is
//! handed to that runtime and awaited there.

use super::{OtelError, Providers};
use crate::wire::Cause;
use http_body_util::{BodyExt, Full, Limited};
use opentelemetry_http::{Bytes, HttpClient, HttpError, Request, Response};
use opentelemetry_otlp::{Protocol, WithExportConfig, WithHttpConfig};
use opentelemetry_sdk::metrics::{PeriodicReader, SdkMeterProvider};
use opentelemetry_sdk::trace::SdkTracerProvider;
use opentelemetry_sdk::Resource;
use std::sync::Arc;
use std::time::Duration;

/// The one protocol this build sends.
const HTTP_PROTOBUF: &str = "http/protobuf";

/// The most of a collector's answer that is read.
const MAX_ANSWER: usize = 1024 * 1024;

/// How long one export may take when `OTEL_EXPORTER_OTLP_TIMEOUT` does not say (the
/// specification's default).
const DEFAULT_TIMEOUT: Duration = Duration::from_secs(10);

/// A variable's value, when set and not empty.
fn var(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.trim().is_empty())
}

/// The providers the environment describes: none without an OTLP endpoint, or with
/// `OTEL_SDK_DISABLED=true`; a signal whose `OTEL_*_EXPORTER` is `none` is left out.
pub(super) fn from_env() -> Result<Providers, OtelError> {
    if var("OTEL_SDK_DISABLED").is_some_and(|v| v.trim().eq_ignore_ascii_case("true")) {
        return Ok(Providers::default());
    }
    for variable in [
        "OTEL_EXPORTER_OTLP_PROTOCOL",
        "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL",
        "OTEL_EXPORTER_OTLP_METRICS_PROTOCOL",
    ] {
        if let Some(value) = var(variable) {
            if value.trim() != HTTP_PROTOBUF {
                return Err(OtelError::Protocol { variable, value });
            }
        }
    }
    let general = var("OTEL_EXPORTER_OTLP_ENDPOINT").is_some();
    let exporting = |signal: &str| {
        let endpoint = general || var(&format!("OTEL_EXPORTER_OTLP_{signal}_ENDPOINT")).is_some();
        let exporter = var(&format!("OTEL_{signal}_EXPORTER"));
        endpoint
            && exporter
                .as_deref()
                .is_none_or(|e| e.split(',').any(|e| e.trim() == "otlp"))
    };
    let (traces, metrics) = (exporting("TRACES"), exporting("METRICS"));
    if !traces && !metrics {
        return Ok(Providers::default());
    }
    let handle = tokio::runtime::Handle::try_current().map_err(|_| OtelError::NoRuntime)?;
    let timeout = var("OTEL_EXPORTER_OTLP_TIMEOUT")
        .and_then(|ms| ms.trim().parse::<u64>().ok())
        .map_or(DEFAULT_TIMEOUT, Duration::from_millis);
    let client: Arc<dyn HttpClient> = Arc::new(OnRuntime {
        handle,
        client: crate::outbound::http_client(),
        timeout,
    });
    let resource = resource();
    let failed = |e: opentelemetry_otlp::ExporterBuildError| OtelError::Exporter(Cause::of(e));
    let tracer = if traces {
        let exporter = opentelemetry_otlp::SpanExporter::builder()
            .with_http()
            .with_protocol(Protocol::HttpBinary)
            .with_shared_http_client(client.clone())
            .build()
            .map_err(failed)?;
        Some(
            SdkTracerProvider::builder()
                .with_batch_exporter(exporter)
                .with_resource(resource.clone())
                .build(),
        )
    } else {
        None
    };
    let meter = if metrics {
        let exporter = opentelemetry_otlp::MetricExporter::builder()
            .with_http()
            .with_protocol(Protocol::HttpBinary)
            .with_shared_http_client(client)
            .build()
            .map_err(failed)?;
        Some(
            SdkMeterProvider::builder()
                .with_reader(PeriodicReader::builder(exporter).build())
                .with_resource(resource)
                .build(),
        )
    } else {
        None
    };
    Ok(Providers { tracer, meter })
}

/// The resource the environment describes (`OTEL_SERVICE_NAME`, `OTEL_RESOURCE_ATTRIBUTES`);
/// without a service name there, the executable's name.
fn resource() -> Resource {
    let named = var("OTEL_SERVICE_NAME").is_some()
        || var("OTEL_RESOURCE_ATTRIBUTES").is_some_and(|a| {
            a.split(',')
                .any(|kv| kv.split('=').next().map(str::trim) == Some("service.name"))
        });
    let builder = Resource::builder();
    let executable = std::env::current_exe()
        .ok()
        .and_then(|p| p.file_stem().map(|s| s.to_string_lossy().into_owned()));
    match (named, executable) {
        (false, Some(name)) => builder.with_service_name(name).build(),
        _ => builder.build(),
    }
}

/// The exporters' HTTP client: each send runs on the runtime `handle` names, with the runtime's
/// hyper client, and is awaited from whichever thread exports.
struct OnRuntime {
    handle: tokio::runtime::Handle,
    client: crate::outbound::HttpClient,
    timeout: Duration,
}

impl std::fmt::Debug for OnRuntime {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OnRuntime")
            .field("timeout", &self.timeout)
            .finish()
    }
}

#[async_trait::async_trait]
impl HttpClient for OnRuntime {
    async fn send_bytes(&self, request: Request<Bytes>) -> Result<Response<Bytes>, HttpError> {
        let (parts, body) = request.into_parts();
        let request = Request::from_parts(parts, Full::new(body));
        let (client, timeout) = (self.client.clone(), self.timeout);
        let sent = self.handle.spawn(async move {
            let response = tokio::time::timeout(timeout, client.request(request))
                .await
                .map_err(|_| HttpError::from(format!("no answer within {timeout:?}")))??;
            let (parts, body) = response.into_parts();
            let body = Limited::new(body, MAX_ANSWER)
                .collect()
                .await
                .map_err(|e| HttpError::from(e.to_string()))?
                .to_bytes();
            Ok::<_, HttpError>(Response::from_parts(parts, body))
        });
        sent.await?
    }
}
