//! One trace from the caller's code through the project's client into the project's server and
//! back, round by round: the client (in this process, which installs telemetry for itself, so it
//! is a test binary of its own) and the fixture server (a process of its own) export to one OTLP
//! receiver, and every SERVER span is the child of the CLIENT span that sent its request.
#![cfg(feature = "otel")]

use mcp_tests::otlp::{attr, hex, receiver};
use mcp_tests::support::{free_port, wait_for_port, ChildGuard};
use opentelemetry_proto::tonic::trace::v1::span::SpanKind;
use oxmcp::client::{Capabilities, Client, ClientError};
use oxmcp::schema::InputRequest;
use serde_json::{json, Value};
use std::time::{Duration, Instant};

const RING: &str = "1:0909090909090909090909090909090909090909090909090909090909090909";

#[tokio::test(flavor = "multi_thread")]
async fn a_flow_through_the_client_and_the_server_is_one_trace() {
    let otlp = receiver();
    let port = free_port();
    let server = std::process::Command::new(env!("CARGO_BIN_EXE_conformance-server"))
        .args(["--port", &port.to_string()])
        .env("MCP_STATE_KEYS", RING)
        .env("OTEL_EXPORTER_OTLP_ENDPOINT", &otlp.url)
        .env("OTEL_SERVICE_NAME", "mcp-fixture")
        .env("OTEL_BSP_SCHEDULE_DELAY", "100")
        .env_remove("RUST_LOG")
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut server = ChildGuard(server);
    wait_for_port(port);

    // This process's telemetry, configured the same way.
    std::env::set_var("OTEL_EXPORTER_OTLP_ENDPOINT", &otlp.url);
    std::env::set_var("OTEL_SERVICE_NAME", "mcp-caller");
    std::env::set_var("OTEL_BSP_SCHEDULE_DELAY", "100");
    let telemetry = oxmcp::otel::Builder::from_env()
        .unwrap()
        .stderr_logs(false)
        .install()
        .unwrap();
    assert!(telemetry.exports_traces());

    let answers =
        |_key: &str, request: InputRequest| -> oxmcp::BoxFuture<Result<Value, ClientError>> {
            Box::pin(async move {
                assert!(matches!(request, InputRequest::ElicitRequest(_)));
                Ok(json!({"action": "accept", "content": {"name": "Ada"}}))
            })
        };
    let client = Client::http(format!("http://127.0.0.1:{port}/mcp"))
        .with_input(Capabilities::new().elicitation_form().build(), answers);
    // The caller's own span: everything below belongs to its trace.
    let caller = oxmcp::tracing::info_span!("greet the user");
    let result = oxmcp::tracing::Instrument::instrument(
        client.call_tool("test_input_required_result_elicitation", json!({})),
        caller.clone(),
    )
    .await
    .unwrap();
    assert_eq!(
        serde_json::to_value(&result).unwrap()["content"][0]["text"],
        "Hello, Ada!"
    );
    drop(caller);
    telemetry.shutdown().await.unwrap();
    std::process::Command::new("kill")
        .args(["-TERM", &server.0.id().to_string()])
        .status()
        .unwrap();
    let stopped = Instant::now();
    while server.0.try_wait().unwrap().is_none() {
        assert!(
            stopped.elapsed() < Duration::from_secs(20),
            "the server did not stop"
        );
        std::thread::sleep(Duration::from_millis(20));
    }

    let spans = otlp.spans();
    let name = "tools/call test_input_required_result_elicitation";
    let of = |service: &str, kind: SpanKind| {
        spans
            .iter()
            .filter(|(resource, s)| {
                attr(resource, "service.name") == Some(service)
                    && s.name == name
                    && s.kind == kind as i32
            })
            .map(|(_, s)| s)
            .collect::<Vec<_>>()
    };
    let root = spans
        .iter()
        .map(|(_, s)| s)
        .find(|s| s.name == "greet the user")
        .expect("the caller's span");
    let client_spans = of("mcp-caller", SpanKind::Client);
    let server_spans = of("mcp-fixture", SpanKind::Server);
    // Two rounds: the first answered input_required, the retry with the answer.
    assert_eq!(client_spans.len(), 2, "{client_spans:#?}");
    assert_eq!(server_spans.len(), 2, "{server_spans:#?}");
    for c in &client_spans {
        assert_eq!(c.trace_id, root.trace_id, "one trace");
        assert_eq!(
            c.parent_span_id, root.span_id,
            "the client span is the caller's child"
        );
        assert_eq!(attr(&c.attributes, "mcp.method.name"), Some("tools/call"));
    }
    for s in &server_spans {
        assert_eq!(s.trace_id, root.trace_id, "one trace");
        let parent = client_spans
            .iter()
            .find(|c| c.span_id == s.parent_span_id)
            .unwrap_or_else(|| {
                panic!(
                    "the server span {} is the child of a client span",
                    hex(&s.span_id)
                )
            });
        // Both sides name the JSON-RPC id of the request between them.
        let id = attr(&parent.attributes, "jsonrpc.request.id");
        assert!(id.is_some(), "{parent:#?}");
        assert_eq!(attr(&s.attributes, "jsonrpc.request.id"), id);
    }
}
