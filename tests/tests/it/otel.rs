//! What the fixture server exports over OTLP/HTTP, decoded with the official protobuf
//! definitions by a receiver in the test: SERVER spans by the MCP semantic conventions, parented
//! on the context each request carries in `_meta`, the rounds of an MRTR flow linked to the
//! first, a 2025 session's call named with its session, an unknown tool's error, the
//! `mcp.server.*.duration` histograms in seconds, and the service name from the environment.

use mcp_tests::otlp::{attr, hex, receiver};
use mcp_tests::support::{free_port, post, wait_for_port, ChildGuard};
use opentelemetry_proto::tonic::common::v1::{any_value, KeyValue};
use opentelemetry_proto::tonic::metrics::v1::{metric, Metric};
use opentelemetry_proto::tonic::trace::v1::{span, status, Span};
use serde_json::{json, Value};
use std::time::{Duration, Instant};

const RING: &str = "1:0707070707070707070707070707070707070707070707070707070707070707";

/// A `traceparent` for trace `trace` (32 hex digits) and parent span `parent` (16), sampled.
fn traceparent(trace: &str, parent: &str) -> String {
    format!("00-{trace}-{parent}-01")
}

fn meta(traceparent: &str) -> Value {
    json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28",
           "io.modelcontextprotocol/clientCapabilities": {"elicitation": {"form": {}}},
           "traceparent": traceparent})
}

async fn call(url: &str, id: i64, tool: &str, params: Value) -> Value {
    let body = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params});
    let (_, _, reply) = post(
        url,
        body.to_string().into_bytes(),
        &[
            ("accept", "application/json, text/event-stream"),
            ("mcp-protocol-version", "2026-07-28"),
            ("mcp-method", "tools/call"),
            ("mcp-name", tool),
        ],
    )
    .await;
    reply
}

async fn delete(url: &str, session: &str) -> u16 {
    use http_body_util::Empty;
    let client = hyper_util::client::legacy::Client::builder(hyper_util::rt::TokioExecutor::new())
        .build_http();
    let request = hyper::Request::delete(url)
        .header("mcp-session-id", session)
        .header("mcp-protocol-version", "2025-11-25")
        .body(Empty::<hyper::body::Bytes>::new())
        .unwrap();
    client.request(request).await.unwrap().status().as_u16()
}

/// The one span named `name` in trace `trace`.
fn one<'a>(spans: &'a [(Vec<KeyValue>, Span)], name: &str, trace: &str) -> &'a Span {
    let found: Vec<&Span> = spans
        .iter()
        .map(|(_, s)| s)
        .filter(|s| s.name == name && hex(&s.trace_id) == trace)
        .collect();
    assert_eq!(found.len(), 1, "{name} in {trace}: {found:#?}");
    found[0]
}

#[tokio::test(flavor = "multi_thread")]
async fn the_fixture_exports_server_spans_and_metrics_by_the_mcp_conventions() {
    let otlp = receiver();
    let port = free_port();
    let child = std::process::Command::new(env!("CARGO_BIN_EXE_conformance-server"))
        .args(["--port", &port.to_string()])
        .env("MCP_STATE_KEYS", RING)
        .env("OTEL_EXPORTER_OTLP_ENDPOINT", &otlp.url)
        .env("OTEL_SERVICE_NAME", "mcp-fixture")
        .env("OTEL_BSP_SCHEDULE_DELAY", "100")
        .env("OTEL_METRIC_EXPORT_INTERVAL", "500")
        .env_remove("RUST_LOG")
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut child = ChildGuard(child);
    wait_for_port(port);
    let url = format!("http://127.0.0.1:{port}/mcp");

    // A plain 2026 call, under the caller's span P1 of trace T1.
    let (t1, p1) = ("4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7");
    let plain = call(
        &url,
        1,
        "test_simple_text",
        json!({"name": "test_simple_text", "arguments": {}, "_meta": meta(&traceparent(t1, p1))}),
    )
    .await;
    assert!(plain["result"]["content"].is_array(), "{plain}");

    // An MRTR flow of two rounds, each under its own caller span of trace T2.
    let (t2, p2a, p2b) = (
        "5af92f3577b34da6a3ce929d0e0e4737",
        "10f067aa0ba902b1",
        "10f067aa0ba902b2",
    );
    let tool = "test_input_required_result_elicitation";
    let first = call(
        &url,
        2,
        tool,
        json!({"name": tool, "arguments": {}, "_meta": meta(&traceparent(t2, p2a))}),
    )
    .await;
    let state = first["result"]["requestState"].clone();
    assert!(state.is_string(), "{first}");
    let second = call(
        &url,
        3,
        tool,
        json!({"name": tool, "arguments": {},
        "_meta": meta(&traceparent(t2, p2b)), "requestState": state,
        "inputResponses": {"user_name": {"action": "accept", "content": {"name": "Ada"}}}}),
    )
    .await;
    assert_eq!(
        second["result"]["content"][0]["text"], "Hello, Ada!",
        "{second}"
    );

    // A 2025 session: initialize, a call under trace T3, DELETE.
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "otel-test", "version": "1"}}});
    let (status, headers, _) = post(
        &url,
        init.to_string().into_bytes(),
        &[
            ("accept", "application/json, text/event-stream"),
            ("mcp-protocol-version", "2025-11-25"),
        ],
    )
    .await;
    assert_eq!(status, 200);
    let session = headers
        .iter()
        .find(|(k, _)| k == "mcp-session-id")
        .map(|(_, v)| v.clone())
        .expect("a session");
    let (t3, p3) = ("6af92f3577b34da6a3ce929d0e0e4738", "20f067aa0ba902b3");
    let in_session = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
        "name": "test_simple_text", "arguments": {}, "_meta": {"traceparent": traceparent(t3, p3)}}});
    let (status, _, reply) = post(
        &url,
        in_session.to_string().into_bytes(),
        &[
            ("accept", "application/json, text/event-stream"),
            ("mcp-protocol-version", "2025-11-25"),
            ("mcp-session-id", &session),
        ],
    )
    .await;
    assert_eq!(status, 200, "{reply}");
    assert!((200..300).contains(&delete(&url, &session).await));

    // A call of a tool that does not exist, under trace T4.
    let (t4, p4) = ("7af92f3577b34da6a3ce929d0e0e4739", "30f067aa0ba902b4");
    let unknown = call(
        &url,
        4,
        "no_such_tool",
        json!({"name": "no_such_tool", "arguments": {}, "_meta": meta(&traceparent(t4, p4))}),
    )
    .await;
    assert_eq!(unknown["error"]["code"], -32602, "{unknown}");

    // A step, run in the first round and replayed in the retry, under trace T5.
    let (t5, p5) = ("8af92f3577b34da6a3ce929d0e0e473a", "40f067aa0ba902b5");
    let stepped = "test_step_then_elicit";
    let first = call(
        &url,
        5,
        stepped,
        json!({"name": stepped, "arguments": {}, "_meta": meta(&traceparent(t5, p5))}),
    )
    .await;
    let state = first["result"]["requestState"].clone();
    assert!(state.is_string(), "{first}");
    let done = call(
        &url,
        6,
        stepped,
        json!({"name": stepped, "arguments": {},
        "_meta": meta(&traceparent(t5, p5)), "requestState": state,
        "inputResponses": {"user_name": {"action": "accept", "content": {"name": "Ada"}}}}),
    )
    .await;
    assert_eq!(done["result"]["content"][0]["text"], "B1 for Ada", "{done}");

    // A task, created under trace T6 and asked about under trace T7.
    let (t6, p6) = ("9af92f3577b34da6a3ce929d0e0e473b", "50f067aa0ba902b6");
    let (t7, p7) = ("aaf92f3577b34da6a3ce929d0e0e473c", "60f067aa0ba902b7");
    let with_tasks = |tp: &str| {
        let mut m = meta(tp);
        m["io.modelcontextprotocol/clientCapabilities"]["extensions"] =
            json!({"io.modelcontextprotocol/tasks": {}});
        m
    };
    let created = call(&url, 7, "slow_compute", json!({"name": "slow_compute",
        "arguments": {"seconds": 0.05, "label": "otel"}, "_meta": with_tasks(&traceparent(t6, p6))}))
    .await;
    let task = created["result"]["taskId"]
        .as_str()
        .unwrap_or_else(|| panic!("a task: {created}"))
        .to_string();
    wait_for_task(&url, &task, with_tasks(&traceparent(t7, p7)), "completed").await;
    // A task that fails, created under trace T8.
    let (t8, p8) = ("baf92f3577b34da6a3ce929d0e0e473d", "70f067aa0ba902b8");
    let created = call(
        &url,
        9,
        "protocol_error_job",
        json!({"name": "protocol_error_job",
        "arguments": {}, "_meta": with_tasks(&traceparent(t8, p8))}),
    )
    .await;
    let failed_task = created["result"]["taskId"]
        .as_str()
        .unwrap_or_else(|| panic!("a task: {created}"))
        .to_string();
    wait_for_task(
        &url,
        &failed_task,
        with_tasks(&traceparent(t8, p8)),
        "failed",
    )
    .await;

    // A graceful stop sends what is still buffered.
    let pid = child.0.id().to_string();
    std::process::Command::new("kill")
        .args(["-TERM", &pid])
        .status()
        .unwrap();
    let stopped = Instant::now();
    while child.0.try_wait().unwrap().is_none() {
        assert!(
            stopped.elapsed() < Duration::from_secs(20),
            "the server did not stop"
        );
        std::thread::sleep(Duration::from_millis(20));
    }

    let spans = otlp.spans();
    // The service is named by OTEL_SERVICE_NAME.
    assert!(!spans.is_empty(), "no span was exported");
    for (resource, _) in &spans {
        assert_eq!(attr(resource, "service.name"), Some("mcp-fixture"));
    }
    let server_kind = span::SpanKind::Server as i32;

    let plain = one(&spans, "tools/call test_simple_text", t1);
    assert_eq!(plain.kind, server_kind);
    assert_eq!(
        hex(&plain.parent_span_id),
        p1,
        "parented on _meta.traceparent"
    );
    assert_eq!(
        attr(&plain.attributes, "mcp.method.name"),
        Some("tools/call")
    );
    assert_eq!(
        attr(&plain.attributes, "gen_ai.tool.name"),
        Some("test_simple_text")
    );
    assert_eq!(attr(&plain.attributes, "jsonrpc.request.id"), Some("1"));
    assert_eq!(
        attr(&plain.attributes, "mcp.protocol.version"),
        Some("2026-07-28")
    );
    assert_eq!(attr(&plain.attributes, "network.transport"), Some("tcp"));
    assert!(attr(&plain.attributes, "error.type").is_none());
    // A call answered in one round starts no flow.
    assert!(attr(&plain.attributes, "oxmcp.flow.id").is_none());
    // A tool that did not opt in: neither its arguments nor its result leave.
    assert!(attr(&plain.attributes, "gen_ai.tool.call.arguments").is_none());
    assert!(attr(&plain.attributes, "gen_ai.tool.call.result").is_none());

    // The rounds: each parented on its own caller span, the second linked to the first, and
    // both naming the same flow.
    let rounds: Vec<&Span> = spans
        .iter()
        .map(|(_, s)| s)
        .filter(|s| s.name == format!("tools/call {tool}") && hex(&s.trace_id) == t2)
        .collect();
    assert_eq!(rounds.len(), 2, "{rounds:#?}");
    let (a, b) = if hex(&rounds[0].parent_span_id) == p2a {
        (rounds[0], rounds[1])
    } else {
        (rounds[1], rounds[0])
    };
    assert_eq!(hex(&a.parent_span_id), p2a);
    assert_eq!(hex(&b.parent_span_id), p2b);
    assert!(
        b.links
            .iter()
            .any(|l| l.span_id == a.span_id && l.trace_id == a.trace_id),
        "the second round links to the first: {b:#?}"
    );
    // The tool opted in (`trace_payloads`): each round records the arguments, the last the
    // result; the first round's `input_required` (with its `requestState`) and the answer
    // elicited in between are recorded nowhere.
    for round in [a, b] {
        assert_eq!(
            attr(&round.attributes, "gen_ai.tool.call.arguments"),
            Some("{}")
        );
    }
    assert!(attr(&a.attributes, "gen_ai.tool.call.result").is_none());
    let result: Value = serde_json::from_str(
        attr(&b.attributes, "gen_ai.tool.call.result").expect("the result is recorded"),
    )
    .unwrap();
    assert_eq!(result["content"][0]["text"], "Hello, Ada!");
    for round in [a, b] {
        for kv in &round.attributes {
            let text = match kv.value.as_ref().and_then(|v| v.value.as_ref()) {
                Some(any_value::Value::StringValue(text)) => text.as_str(),
                _ => continue,
            };
            let greeting = kv.key == "gen_ai.tool.call.result" && text.contains("Hello, Ada!");
            assert!(
                greeting || !text.contains("Ada"),
                "{} leaks the elicited answer: {text}",
                kv.key
            );
            assert!(
                !text.contains("user_name") && !text.contains("requestState"),
                "{} leaks the ask or the state: {text}",
                kv.key
            );
        }
    }
    let flow = attr(&a.attributes, "oxmcp.flow.id").expect("a flow id");
    assert_eq!(attr(&b.attributes, "oxmcp.flow.id"), Some(flow));
    let asked = a
        .attributes
        .iter()
        .find(|kv| kv.key == "oxmcp.input_required");
    assert!(
        matches!(
            asked
                .and_then(|kv| kv.value.as_ref())
                .and_then(|v| v.value.as_ref()),
            Some(any_value::Value::BoolValue(true))
        ),
        "the first round answered input_required: {a:#?}"
    );

    // The 2025 session's call names its session and version.
    let in_session = one(&spans, "tools/call test_simple_text", t3);
    assert_eq!(in_session.kind, server_kind);
    assert_eq!(hex(&in_session.parent_span_id), p3);
    assert_eq!(
        attr(&in_session.attributes, "mcp.session.id"),
        Some(session.as_str())
    );
    assert_eq!(
        attr(&in_session.attributes, "mcp.protocol.version"),
        Some("2025-11-25")
    );

    // The unknown tool: named by the method alone, failed with its JSON-RPC code.
    let failed = one(&spans, "tools/call", t4);
    assert_eq!(hex(&failed.parent_span_id), p4);
    assert_eq!(
        attr(&failed.attributes, "gen_ai.tool.name"),
        Some("no_such_tool")
    );
    assert_eq!(attr(&failed.attributes, "error.type"), Some("-32602"));
    assert_eq!(
        attr(&failed.attributes, "rpc.response.status_code"),
        Some("-32602")
    );
    assert_eq!(
        failed.status.as_ref().map(|s| s.code),
        Some(status::StatusCode::Error as i32)
    );

    // The step: a child of the first round's span that ran, and one of the retry's that was
    // replayed from the journal, not run again.
    let rounds: Vec<&Span> = spans
        .iter()
        .map(|(_, s)| s)
        .filter(|s| s.name == format!("tools/call {stepped}") && hex(&s.trace_id) == t5)
        .collect();
    assert_eq!(rounds.len(), 2, "{rounds:#?}");
    let steps: Vec<&Span> = spans
        .iter()
        .map(|(_, s)| s)
        .filter(|s| s.name == "step book" && hex(&s.trace_id) == t5)
        .collect();
    assert_eq!(steps.len(), 2, "{steps:#?}");
    let replayed = |s: &Span| {
        s.attributes
            .iter()
            .find(|kv| kv.key == "oxmcp.step.replayed")
            .and_then(|kv| match kv.value.as_ref()?.value.as_ref()? {
                any_value::Value::BoolValue(b) => Some(*b),
                _ => None,
            })
    };
    for step in &steps {
        assert!(
            rounds.iter().any(|r| r.span_id == step.parent_span_id),
            "a step is the child of its round: {step:#?}"
        );
    }
    let mut marks: Vec<Option<bool>> = steps.iter().map(|s| replayed(s)).collect();
    marks.sort();
    assert_eq!(marks, [Some(false), Some(true)]);

    // The task's run and the tasks/get about it link to the call that created it.
    let creating = one(&spans, "tools/call slow_compute", t6);
    let run = spans
        .iter()
        .map(|(_, s)| s)
        .find(|s| s.name == "task slow_compute")
        .expect("the task's run");
    assert!(
        run.links.iter().any(|l| l.span_id == creating.span_id),
        "the run links to its call: {run:#?}"
    );
    assert_eq!(attr(&run.attributes, "oxmcp.task.id"), Some(task.as_str()));
    // The tool opted in to its payloads: the run records its arguments and its result.
    let arguments: Value = serde_json::from_str(
        attr(&run.attributes, "gen_ai.tool.call.arguments").expect("the run's arguments"),
    )
    .unwrap();
    assert_eq!(arguments, json!({"seconds": 0.05, "label": "otel"}));
    let result = attr(&run.attributes, "gen_ai.tool.call.result").expect("the run's result");
    assert!(result.contains("Computed otel after"), "{result}");
    assert_eq!(attr(&run.attributes, "error.type"), None);
    // A run that fails says how, and records no payloads: its tool did not opt in.
    let failed = spans
        .iter()
        .map(|(_, s)| s)
        .find(|s| s.name == "task protocol_error_job")
        .expect("the failed task's run");
    assert_eq!(attr(&failed.attributes, "error.type"), Some("-32603"));
    let status = failed.status.as_ref().expect("a status");
    assert_eq!(status.code, status::StatusCode::Error as i32);
    for name in ["gen_ai.tool.call.arguments", "gen_ai.tool.call.result"] {
        assert_eq!(attr(&failed.attributes, name), None, "{name}");
    }
    let gets: Vec<&Span> = spans
        .iter()
        .map(|(_, s)| s)
        .filter(|s| s.name == "tasks/get" && hex(&s.trace_id) == t7)
        .collect();
    assert!(!gets.is_empty());
    for get in gets {
        assert_eq!(hex(&get.parent_span_id), p7);
        assert!(
            get.links.iter().any(|l| l.span_id == creating.span_id),
            "tasks/get links to the call that created the task: {get:#?}"
        );
    }

    // The histograms, in seconds, with the attributes the conventions list.
    let metrics = otlp.metrics();
    let histogram =
        |name: &str| -> Vec<&Metric> { metrics.iter().filter(|m| m.name == name).collect() };
    let operations = histogram("mcp.server.operation.duration");
    assert!(!operations.is_empty(), "no mcp.server.operation.duration");
    assert!(operations.iter().all(|m| m.unit == "s"));
    let points: Vec<_> = operations
        .iter()
        .filter_map(|m| match &m.data {
            Some(metric::Data::Histogram(h)) => Some(h.data_points.iter()),
            _ => None,
        })
        .flatten()
        .collect();
    assert!(
        points.iter().any(
            |p| attr(&p.attributes, "mcp.method.name") == Some("tools/call")
                && attr(&p.attributes, "gen_ai.tool.name") == Some("test_simple_text")
                && p.count >= 1
        ),
        "{points:#?}"
    );
    assert!(
        points
            .iter()
            .any(|p| attr(&p.attributes, "error.type") == Some("-32602")),
        "the failed call is counted with its error: {points:#?}"
    );
    let sessions = histogram("mcp.server.session.duration");
    assert!(
        sessions.iter().any(|m| m.unit == "s"
            && matches!(&m.data, Some(metric::Data::Histogram(h)) if h.data_points.iter().any(|p| p.count >= 1))),
        "the ended session's duration: {sessions:#?}"
    );
}

/// Poll `tasks/get` for `task` (with `meta`) until it reports `status`, for at most ten seconds.
async fn wait_for_task(url: &str, task: &str, meta: Value, status: &str) {
    let asked = Instant::now();
    loop {
        let get = json!({"jsonrpc": "2.0", "id": 8, "method": "tasks/get",
            "params": {"taskId": task, "_meta": meta}});
        let (_, _, reply) = post(
            url,
            get.to_string().into_bytes(),
            &[
                ("accept", "application/json, text/event-stream"),
                ("mcp-protocol-version", "2026-07-28"),
                ("mcp-method", "tasks/get"),
                ("mcp-name", task),
            ],
        )
        .await;
        if reply["result"]["status"] == status {
            return;
        }
        assert!(asked.elapsed() < Duration::from_secs(10), "{reply}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}
