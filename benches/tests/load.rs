//! The load generator's servers do the same job: every flow the benchmark runs completes with
//! the expected text against this project's bench and fixture servers, the rmcp peer and the rust-mcp-sdk peer, and a
//! tampered `requestState` is refused by all three (so neither side skips the integrity check it is timed on);
//! the 2025-era flows complete on this project's server and on rmcp's session mode, and the task
//! flows on this project's server (tasks in memory and in Redis) and on rmcp's.

#[path = "../examples/load/floor.rs"]
#[allow(dead_code)]
mod floor;
#[path = "../examples/load/generator.rs"]
#[allow(dead_code)]
mod generator;
#[path = "../examples/load/legacy_flow.rs"]
mod legacy_flow;
#[path = "../examples/load/ours.rs"]
mod ours;
#[path = "../examples/load/rmcp_legacy.rs"]
mod rmcp_legacy;
#[path = "../examples/load/rmcp_peer.rs"]
mod rmcp_peer;
#[path = "../examples/load/rmsdk_peer.rs"]
mod rmsdk_peer;
#[path = "../examples/load/task_flow.rs"]
#[allow(dead_code)]
mod task_flow;

use generator::Flow;
use serde_json::{json, Value};
use std::time::Duration;

async fn spawn(which: &str) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    match which {
        "ours" => tokio::spawn(ours::serve(listener, false)),
        "ours-metrics" => tokio::spawn(ours::serve(listener, true)),
        "fixture" => tokio::spawn(ours::serve_fixture(listener)),
        "rmcp" => tokio::spawn(rmcp_peer::serve(listener)),
        "rmcp-legacy" => tokio::spawn(rmcp_legacy::serve(listener)),
        "floor" => tokio::spawn(floor::serve(listener)),
        _ => tokio::spawn(rmsdk_peer::serve(listener)),
    };
    url
}

fn flows() -> Vec<Flow> {
    vec![
        Flow::plain(),
        Flow::elicitation(),
        Flow::multi_round(),
        Flow::rounds(1),
        Flow::rounds(5),
    ]
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_flow_completes_on_both_servers() {
    for which in ["ours", "ours-metrics", "rmcp", "rust-mcp-sdk"] {
        let url = spawn(which).await;
        let conns = generator::Conns::new(&url).unwrap();
        let mut conn = conns.take().await.unwrap();
        for flow in flows() {
            let mut id = 0;
            let rounds = generator::run_flow(&conns, &mut conn, &flow, &mut id)
                .await
                .unwrap_or_else(|e| panic!("{which}: {}: {e}", flow.label));
            let arguments: Value = serde_json::from_str(flow.arguments.get()).unwrap();
            let want = match flow.tool {
                "test_simple_text" => 1,
                "test_input_required_result_elicitation" => 2,
                "test_input_required_result_multi_round" => 3,
                _ => arguments["rounds"].as_u64().unwrap() + 1,
            };
            assert_eq!(rounds, want, "{which}: {}", flow.label);
        }
        // The bounded run counts flows and sees no errors under concurrency.
        conns.give(conn);
        let o = generator::run(&conns, &Flow::multi_round(), 4, Duration::from_millis(200)).await;
        assert!(o.flows > 0 && o.errors == 0, "{which}: {o:?}");
        assert_eq!(o.requests, o.flows * 3);
        // Flows in flight when the window closed are finished and paid for, not counted.
        assert!(o.all_requests >= o.requests, "{which}: {o:?}");
        assert_eq!(o.elapsed, Duration::from_millis(200));
        // The open-loop run starts every scheduled flow and each one completes.
        let o = generator::run_open(
            &conns,
            &Flow::elicitation(),
            200.0,
            Duration::from_millis(200),
        )
        .await;
        assert_eq!((o.flows, o.errors), (40, 0), "{which}: {o:?}");
        assert_eq!(o.latencies_us.len(), 40);
    }
}

/// Round two of `bench_rounds(2)` with the state of round one altered in one character.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn both_servers_refuse_a_tampered_state() {
    for which in ["ours", "rmcp", "rust-mcp-sdk"] {
        let url = spawn(which).await;
        let client = generator::client();
        let post = |params: Value| {
            let (client, url) = (client.clone(), url.clone());
            async move {
                generator::call(&client, &url, "bench_rounds", 1, &params)
                    .await
                    .unwrap()
            }
        };
        let meta = json!({
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": { "elicitation": { "form": {} } },
            "io.modelcontextprotocol/clientInfo": { "name": "t", "version": "1" }
        });
        let answer = |k: &str| json!({ k: { "action": "accept", "content": { "answer": k } } });
        let first =
            post(json!({"name": "bench_rounds", "arguments": {"rounds": 2}, "_meta": meta})).await;
        assert_eq!(
            first["result"]["resultType"], "input_required",
            "{which}: {first}"
        );
        let second = post(
            json!({"name": "bench_rounds", "arguments": {"rounds": 2}, "_meta": meta,
            "inputResponses": answer("step0")}),
        )
        .await;
        let state = second["result"]["requestState"]
            .as_str()
            .expect("state")
            .to_string();
        let mut bytes = state.into_bytes();
        let mid = bytes.len() / 2;
        bytes[mid] = if bytes[mid] == b'A' { b'B' } else { b'A' };
        let tampered = String::from_utf8(bytes).unwrap();
        let third = post(
            json!({"name": "bench_rounds", "arguments": {"rounds": 2}, "_meta": meta,
            "inputResponses": answer("step1"), "requestState": tampered}),
        )
        .await;
        assert_eq!(third["error"]["code"], -32602, "{which}: {third}");
    }
}

/// The conformance fixture server, which the end-to-end table also measures, completes the
/// flows it is timed on (it has no `bench_rounds`).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_fixture_server_completes_the_end_to_end_flows() {
    let url = spawn("fixture").await;
    let conns = generator::Conns::new(&url).unwrap();
    let mut conn = conns.take().await.unwrap();
    for (flow, want) in [
        (Flow::plain(), 1),
        (Flow::elicitation(), 2),
        (Flow::multi_round(), 3),
    ] {
        let mut id = 0;
        let rounds = generator::run_flow(&conns, &mut conn, &flow, &mut id)
            .await
            .unwrap_or_else(|e| panic!("fixture: {}: {e}", flow.label));
        assert_eq!(rounds, want, "fixture: {}", flow.label);
    }
}

/// A server that closes every connection after its reply (as one does to an idle kept-alive
/// connection) costs the generator a new connection, never a failed flow or a request sent
/// twice.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_connection_the_server_closed_is_replaced() {
    use std::sync::atomic::{AtomicU64, Ordering};
    use std::sync::Arc;
    const RESULT: &str = r#"{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","content":[{"type":"text","text":"This is a simple text response for testing."}]}}"#;
    let served = Arc::new(AtomicU64::new(0));
    let counter = served.clone();
    let app = axum::Router::new().route(
        "/mcp",
        axum::routing::post(move || {
            let counter = counter.clone();
            async move {
                counter.fetch_add(1, Ordering::SeqCst);
                (
                    [
                        (axum::http::header::CONTENT_TYPE, "application/json"),
                        (axum::http::header::CONNECTION, "close"),
                    ],
                    RESULT,
                )
            }
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await });
    let conns = generator::Conns::new(&url).unwrap();
    let mut conn = conns.take().await.unwrap();
    for i in 0..5u64 {
        let mut id = i;
        let rounds = generator::run_flow(&conns, &mut conn, &Flow::plain(), &mut id)
            .await
            .unwrap_or_else(|e| panic!("flow {i}: {e}"));
        assert_eq!(rounds, 1);
    }
    assert_eq!(served.load(Ordering::SeqCst), 5, "each flow sent once");
    conns.give(conn);
    let o = generator::run(&conns, &Flow::plain(), 2, Duration::from_millis(100)).await;
    assert!(o.flows > 0 && o.errors == 0, "{o:?}");
    assert_eq!(served.load(Ordering::SeqCst), 5 + o.all_requests);
}

/// The 2025-era flows complete with the expected text on this project's server and rmcp's
/// session mode, each elicitation answered on the way; a flow in a session that was ended fails.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_legacy_flows_complete_on_both_servers() {
    for which in ["ours", "rmcp-legacy"] {
        let url = spawn(which).await;
        let conns = generator::Conns::new(&url).unwrap();
        let mut pair = legacy_flow::Pair::take(&conns).await.unwrap();
        for base in [1u64 << 8, 2 << 8] {
            // initialize, initialized, the call, the answer to its elicitation, DELETE.
            let requests = legacy_flow::run(&conns, &mut pair, base)
                .await
                .unwrap_or_else(|e| panic!("{which}: session: {e}"));
            assert_eq!(requests, 5, "{which}");
        }
        // initialize, initialized, the call, DELETE.
        let requests = legacy_flow::run_plain(&conns, &mut pair, 3 << 8)
            .await
            .unwrap_or_else(|e| panic!("{which}: plain session: {e}"));
        assert_eq!(requests, 4, "{which}");
        let session = legacy_flow::open(&conns, &mut pair, 7).await.unwrap();
        for id in 10..13 {
            let requests = legacy_flow::plain(&conns, &mut pair, &session, id)
                .await
                .unwrap_or_else(|e| panic!("{which}: plain: {e}"));
            assert_eq!(requests, 1, "{which}");
        }
        legacy_flow::close(&conns, &mut pair, &session)
            .await
            .unwrap();
        let ended = legacy_flow::plain(&conns, &mut pair, &session, 20).await;
        assert!(ended.is_err(), "{which}: a call in an ended session");
        pair.give(&conns);
    }
}

/// Both task flows complete with the expected text on this project's server (tasks in memory
/// and in Redis) and rmcp's: the quick task in two requests once it has settled, the one that
/// asks through `tasks/update`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_task_flows_complete_on_every_server() {
    let (redis, _own_redis) = mcp_tests::support::redis();
    for which in ["ours", "ours-redis", "rmcp"] {
        let url = if which == "ours-redis" {
            let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
            let url = format!("http://{}/mcp", listener.local_addr().unwrap());
            let redis = redis.clone();
            tokio::spawn(async move { ours::serve_redis(listener, &redis).await });
            url
        } else {
            spawn(which).await
        };
        let conns = generator::Conns::new(&url).unwrap();
        let mut conn = conns.take().await.unwrap();
        let mut id = 0;
        for task in [task_flow::Task::Quick, task_flow::Task::Greet] {
            let requests = task_flow::run(&conns, &mut conn, task, &mut id)
                .await
                .unwrap_or_else(|e| panic!("{which}: {task:?}: {e}"));
            // Created, (input asked and answered,) completed: polls only add to that.
            let least = if task == task_flow::Task::Quick { 2 } else { 4 };
            assert!(requests >= least, "{which}: {task:?}: {requests}");
        }
    }
}

/// The project's own client, as an application would use it, against every server of the
/// tables: it finds the 2026 servers' era by itself (a `server/discover` probe), answers the
/// forms it is asked, and every flow the server has completes with the expected text. rmcp's
/// session mode asks with real `elicitation/create` requests on the call's stream; the 2026
/// servers answer `input_required`. rmcp answers the probe with 2026-07-28 in its session mode
/// too, where its `Peer::elicit` then fails, so that server is reached as a 2025 one
/// (`Era::Session`), as an application that knows it would.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_project_client_completes_the_flows_on_every_server() {
    use oxmcp::client::{Client, ClientError, Protocol};
    use oxmcp::schema::{ClientCapabilities, InputRequest};
    let plain = (
        "test_simple_text",
        "This is a simple text response for testing.",
    );
    let elicitation = ("test_input_required_result_elicitation", "Hello, Ada!");
    let multi = ("test_input_required_result_multi_round", "Ada likes blue");
    for (which, flows, legacy) in [
        ("ours", vec![plain, elicitation, multi], false),
        ("rmcp", vec![plain, elicitation, multi], false),
        ("rust-mcp-sdk", vec![plain, elicitation, multi], false),
        ("rmcp-legacy", vec![plain, elicitation], true),
    ] {
        let url = spawn(which).await;
        let caps: ClientCapabilities = serde_json::from_value(json!({"elicitation": {}})).unwrap();
        let client = if legacy {
            Client::http(&url).era(oxmcp::client::Era::Session)
        } else {
            Client::http(&url)
        };
        let client = client.with_input(
            caps,
            |key: &str, req: InputRequest| -> oxmcp::BoxFuture<Result<Value, ClientError>> {
                let answer = match &req {
                    InputRequest::ElicitRequest(e) => {
                        let params = serde_json::to_value(&e.params).unwrap_or_default();
                        let fields = params["requestedSchema"]["properties"]
                            .as_object()
                            .cloned()
                            .unwrap_or_default();
                        let content: serde_json::Map<String, Value> = fields
                            .keys()
                            .map(|f| (f.clone(), json!(generator::field_answer(f, key))))
                            .collect();
                        Ok(json!({"action": "accept", "content": content}))
                    }
                    other => Err(ClientError::unanswerable(other)),
                };
                Box::pin(async move { answer })
            },
        );
        for (tool, want) in flows {
            let result = client
                .call_tool(tool, json!({}))
                .await
                .unwrap_or_else(|e| panic!("{which}: {tool}: {e}"));
            let result = serde_json::to_value(&result).unwrap();
            assert_eq!(
                result["content"][0]["text"], want,
                "{which}: {tool}: {result}"
            );
        }
        let era = client.protocol();
        assert_eq!(
            matches!(era, Some(Protocol::Session { .. })),
            legacy,
            "{which}: {era:?}"
        );
        client
            .close()
            .await
            .unwrap_or_else(|e| panic!("{which}: close: {e}"));
    }
}

/// The floor answers every flow the tables measure as the servers do (the expected text, the
/// same number of requests), in both eras and under concurrency, so a floor cell is the same
/// flow with the MCP work taken out.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_floor_answers_every_measured_flow() {
    let url = spawn("floor").await;
    let conns = generator::Conns::new(&url).unwrap();
    let mut conn = conns.take().await.unwrap();
    for (flow, want) in [
        (Flow::plain(), 1),
        (Flow::elicitation(), 2),
        (Flow::multi_round(), 3),
    ] {
        let mut id = 0;
        let rounds = generator::run_flow(&conns, &mut conn, &flow, &mut id)
            .await
            .unwrap_or_else(|e| panic!("floor: {}: {e}", flow.label));
        assert_eq!(rounds, want, "{}", flow.label);
        let o = generator::run(&conns, &flow, 8, Duration::from_millis(100)).await;
        assert!(o.flows > 0 && o.errors == 0, "{}: {o:?}", flow.label);
    }
    conns.give(conn);
    let mut pair = legacy_flow::Pair::take(&conns).await.unwrap();
    assert_eq!(legacy_flow::run(&conns, &mut pair, 1 << 8).await, Ok(5));
    assert_eq!(
        legacy_flow::run_plain(&conns, &mut pair, 2 << 8).await,
        Ok(4)
    );
    let session = legacy_flow::open(&conns, &mut pair, 7).await.unwrap();
    assert_eq!(
        legacy_flow::plain(&conns, &mut pair, &session, 10).await,
        Ok(1)
    );
    legacy_flow::close(&conns, &mut pair, &session)
        .await
        .unwrap();
    pair.give(&conns);
}
