//! An OTLP/HTTP receiver for the telemetry tests: what a process exports, decoded with the
//! official protobuf definitions.

use opentelemetry_proto::tonic::collector::metrics::v1::ExportMetricsServiceRequest;
use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use opentelemetry_proto::tonic::common::v1::{any_value, KeyValue};
use opentelemetry_proto::tonic::metrics::v1::Metric;
use opentelemetry_proto::tonic::trace::v1::Span;
use prost::Message;
use std::sync::{Arc, Mutex};

/// What a receiver was sent: each request's path and body.
pub type Received = Arc<Mutex<Vec<(String, Vec<u8>)>>>;

/// An OTLP/HTTP receiver on a free port: every request's path and body, kept.
pub struct Receiver {
    /// Its base URL, for `OTEL_EXPORTER_OTLP_ENDPOINT`.
    pub url: String,
    /// What it was sent.
    pub got: Received,
}

/// A receiver on a free port, answering every request 200.
pub fn receiver() -> Receiver {
    let server = tiny_http::Server::http("127.0.0.1:0").unwrap();
    let port = server.server_addr().to_ip().unwrap().port();
    let got: Received = Arc::default();
    let sink = got.clone();
    std::thread::spawn(move || {
        for mut request in server.incoming_requests() {
            let mut body = Vec::new();
            let _ = request.as_reader().read_to_end(&mut body);
            sink.lock().unwrap().push((request.url().to_string(), body));
            let header =
                tiny_http::Header::from_bytes("Content-Type", "application/x-protobuf").unwrap();
            let _ = request.respond(tiny_http::Response::empty(200).with_header(header));
        }
    });
    Receiver {
        url: format!("http://127.0.0.1:{port}"),
        got,
    }
}

impl Receiver {
    /// Every span received, with its resource's attributes.
    pub fn spans(&self) -> Vec<(Vec<KeyValue>, Span)> {
        let mut out = Vec::new();
        for (path, body) in self.got.lock().unwrap().iter() {
            if path != "/v1/traces" {
                continue;
            }
            let request = ExportTraceServiceRequest::decode(body.as_slice()).unwrap();
            for resource_spans in request.resource_spans {
                let resource = resource_spans.resource.unwrap_or_default().attributes;
                for scope in resource_spans.scope_spans {
                    for span in scope.spans {
                        out.push((resource.clone(), span));
                    }
                }
            }
        }
        out
    }

    /// Every metric received.
    pub fn metrics(&self) -> Vec<Metric> {
        let mut out = Vec::new();
        for (path, body) in self.got.lock().unwrap().iter() {
            if path != "/v1/metrics" {
                continue;
            }
            let request = ExportMetricsServiceRequest::decode(body.as_slice()).unwrap();
            for resource in request.resource_metrics {
                for scope in resource.scope_metrics {
                    out.extend(scope.metrics);
                }
            }
        }
        out
    }
}

/// The string value of attribute `key`, if there is one.
pub fn attr<'a>(attributes: &'a [KeyValue], key: &str) -> Option<&'a str> {
    attributes
        .iter()
        .find(|kv| kv.key == key)
        .and_then(|kv| kv.value.as_ref())
        .and_then(|v| match &v.value {
            Some(any_value::Value::StringValue(s)) => Some(s.as_str()),
            _ => None,
        })
}

/// Bytes (a trace or span id) as lowercase hex.
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}
