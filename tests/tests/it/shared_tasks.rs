//! Tasks and single use shared by two fixture server processes through a real Redis: a task
//! created on one is polled and answered on the other; a process killed mid-task is taken over
//! by the other, which finishes it without running its step again; a `requestState` opened on
//! one process does not open on the other. Run with `cargo test -p mcp-tests --features
//! redis-tests --test it shared_tasks::`. Redis comes from `MCP_TEST_REDIS_URL` (as `.ci/run`
//! starts it), else a `redis-server` started here; without either the tests fail.

use mcp_tests::support::{redis, spawn_http_server, ChildGuard};
use oxmcp::client::{Client, ClientError, DeclineAll};
use oxmcp::schema::ClientCapabilities;
use serde_json::{json, Value};
use std::time::{Duration, Instant};

const RING: &str = "1:0101010101010101010101010101010101010101010101010101010101010101";

/// The fixture server sharing `redis`, with a short task lease.
fn server(redis: &str) -> (ChildGuard, String) {
    let redis = redis.to_string();
    spawn_http_server(env!("CARGO_BIN_EXE_conformance-server"), RING, |_| {
        vec![
            "--task-store".into(),
            redis,
            "--task-lease-ms".into(),
            "600".into(),
        ]
    })
}

fn client(url: &str) -> Client {
    let caps: ClientCapabilities = serde_json::from_value(json!({
        "elicitation": {}, "extensions": {"io.modelcontextprotocol/tasks": {}}
    }))
    .unwrap();
    Client::http(url).with_input(caps, DeclineAll)
}

/// Make `confirm_delete` a task on `client`: the task's id.
async fn create(client: &Client) -> String {
    let created = client
        .request(
            "tools/call",
            json!({"name": "confirm_delete", "arguments": {"filename": "notes.txt"}}),
        )
        .await
        .unwrap();
    assert_eq!(created["resultType"], "task", "{created}");
    created["taskId"].as_str().unwrap().to_string()
}

/// Poll `tasks/get` on `client` until the task is in one of `statuses`.
async fn poll(client: &Client, task: &str, statuses: &[&str]) -> Value {
    let deadline = Instant::now() + Duration::from_secs(15);
    loop {
        let got = client
            .request("tasks/get", json!({"taskId": task}))
            .await
            .unwrap();
        if statuses.contains(&got["status"].as_str().unwrap_or("")) {
            return got;
        }
        assert!(Instant::now() < deadline, "task stuck: {got}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test]
async fn a_task_created_on_one_instance_is_polled_and_answered_on_another() {
    let (redis, _redis) = redis();
    let (_a, url_a) = server(&redis);
    let (_b, url_b) = server(&redis);
    let (a, b) = (client(&url_a), client(&url_b));
    let task = create(&a).await;
    let parked = poll(&b, &task, &["input_required"]).await;
    let key = parked["inputRequests"]
        .as_object()
        .and_then(|m| m.keys().next())
        .cloned()
        .unwrap();
    let ack = b
        .request(
            "tasks/update",
            json!({"taskId": task, "inputResponses": {key: {"action": "accept", "content": {"confirm": true}}}}),
        )
        .await
        .unwrap();
    assert_eq!(ack["resultType"], "complete");
    let done = poll(&a, &task, &["completed", "failed"]).await;
    assert_eq!(
        done["result"]["content"][0]["text"], "Deleted notes.txt",
        "{done}"
    );
}

#[tokio::test]
async fn a_task_whose_instance_dies_is_finished_by_another_without_running_its_step_again() {
    let (redis, _redis) = redis();
    let (a_proc, url_a) = server(&redis);
    let (_b, url_b) = server(&redis);
    let marker = format!("takeover-{}", std::process::id());
    let log = std::env::temp_dir().join(format!("mcp-durable-{marker}.log"));
    let _ = std::fs::remove_file(&log);
    let a = client(&url_a);
    let created = a
        .request(
            "tools/call",
            json!({"name": "durable_job", "arguments": {"marker": marker, "seconds": 2.0}}),
        )
        .await
        .unwrap();
    let task = created["taskId"].as_str().unwrap().to_string();
    // The step has run (and its result was stored as it was recorded); A dies mid-task.
    let deadline = Instant::now() + Duration::from_secs(5);
    while std::fs::read_to_string(&log)
        .unwrap_or_default()
        .lines()
        .count()
        < 1
    {
        assert!(Instant::now() < deadline, "the step never ran");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    tokio::time::sleep(Duration::from_millis(200)).await;
    drop(a_proc);
    let b = client(&url_b);
    let done = poll(&b, &task, &["completed", "failed", "cancelled"]).await;
    assert_eq!(done["status"], "completed", "{done}");
    let text = done["result"]["content"][0]["text"].as_str().unwrap_or("");
    assert!(text.contains("ran 1 time(s)"), "{text}");
    let runs = std::fs::read_to_string(&log)
        .unwrap_or_default()
        .lines()
        .count();
    assert_eq!(runs, 1, "the step ran once across both instances");
    let _ = std::fs::remove_file(&log);
}

#[tokio::test]
async fn a_request_state_opens_once_across_instances() {
    let (redis, _redis) = redis();
    let (_a, url_a) = server(&redis);
    let (_b, url_b) = server(&redis);
    let (a, b) = (client(&url_a), client(&url_b));
    let call = |responses: Value, state: Value| {
        json!({"name": "test_input_required_result_multi_round", "arguments": {},
               "inputResponses": responses, "requestState": state})
    };
    let r1 = a
        .request(
            "tools/call",
            json!({"name": "test_input_required_result_multi_round", "arguments": {}}),
        )
        .await
        .unwrap();
    let step1 = json!({"step1": {"action": "accept", "content": {"name": "Ada"}}});
    let state = r1["requestState"].clone();
    assert!(state.is_string(), "{r1}");
    let r2 = a
        .request("tools/call", call(step1.clone(), state.clone()))
        .await
        .unwrap();
    assert!(r2["inputRequests"]["step2"].is_object(), "{r2}");
    // The same retry replayed on the other instance is refused.
    match b.request("tools/call", call(step1, state)).await {
        Err(ClientError::Rpc(e)) => assert_eq!(e.code, -32602, "{e:?}"),
        other => panic!("a replayed requestState opened on another instance: {other:?}"),
    }
}

/// A task id is only ever looked up as a task: ids shaped like the store's other keys (its
/// per-owner index, `owner:<principal>`) are unknown tasks, whether that owner has tasks or
/// not, so they neither fail the store nor tell whether someone has tasks.
#[tokio::test]
async fn a_task_id_shaped_like_another_store_key_is_an_unknown_task() {
    let (redis, _redis) = redis();
    let (_a, url) = server(&redis);
    let client = client(&url);
    create(&client).await;
    for id in ["owner:", "owner:nobody", "no-such-task", "*", "owner:*"] {
        for method in ["tasks/get", "tasks/cancel", "tasks/update"] {
            let params = json!({"taskId": id, "inputResponses": {}});
            match client.request(method, params).await {
                Err(ClientError::Rpc(e)) => assert_eq!(e.code, -32602, "{method} {id}: {e:?}"),
                other => panic!("{method} {id}: {other:?}"),
            }
        }
    }
}
