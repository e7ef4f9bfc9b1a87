//! The tasks extension: a tool marked as a task runs in the background; its asks park it in
//! `input_required` until `tasks/update` answers; `tasks/cancel` stops it; only its creator can
//! see it.

use crate::common;

use common::{accept, all_caps, meta};
use oxmcp::prelude::*;
use oxmcp::{ElicitForm, Principal};
use serde_json::{json, Value};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

#[derive(ElicitForm)]
struct Name {
    /// Who?
    name: String,
}

#[derive(ElicitForm)]
struct City {
    /// Where to?
    city: String,
}

/// Counts the side effects of `book`, shared with the test.
#[derive(Default, Clone)]
struct Counter(Arc<AtomicUsize>);

/// Asks two forms, books once, samples a tagline: all inside a task.
#[mcp_tool(task = "optional")]
async fn book(counter: State<Counter>) -> Result<String, ToolError> {
    let who = match elicit::<Name>("Who travels?").await? {
        Elicited::Accept(n) => n.name,
        _ => return Ok("nobody".into()),
    };
    let hits = Counter::clone(&counter).0;
    let booking = step("book", async move {
        Ok::<_, ToolError>(hits.fetch_add(1, Ordering::SeqCst) + 1)
    })
    .await?;
    let city = match elicit::<City>("Where to?").await? {
        Elicited::Accept(c) => c.city,
        _ => return Ok("nowhere".into()),
    };
    let tagline = sample(Sampling::user(format!("A tagline for {city}"))).await?;
    Ok(format!(
        "{who} to {city}, booking {booking}: {}",
        tagline.text().unwrap_or_default()
    ))
}

/// Sleeps a long time.
#[mcp_tool(task = "required")]
async fn forever() -> String {
    tokio::time::sleep(Duration::from_secs(3600)).await;
    "woke".into()
}

fn server(counter: Counter) -> Server {
    Server::builder()
        .state(counter)
        .tool(book)
        .tool(forever)
        .build()
        .unwrap()
}

/// Capabilities with the tasks extension.
fn task_caps() -> Value {
    let mut caps = all_caps();
    caps["extensions"] = json!({"io.modelcontextprotocol/tasks": {}});
    caps
}

/// Send one request as `principal`; the whole response.
async fn send_as(
    server: &Server,
    principal: Option<&Principal>,
    method: &str,
    mut params: Value,
) -> Value {
    params["_meta"] = meta(task_caps());
    let msg = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
    server
        .handle_message(&msg.to_string(), principal)
        .await
        .expect("a request gets a reply")
        .to_value()
}

/// Poll `tasks/get` until the task leaves `working`.
/// Call the argument-less tool `tool` as `principal`, which makes it a task: the task's id.
async fn create_task(server: &Server, principal: Option<&Principal>, tool: &str) -> String {
    let created = send_as(
        server,
        principal,
        "tools/call",
        json!({"name": tool, "arguments": {}}),
    )
    .await;
    created["result"]["taskId"]
        .as_str()
        .unwrap_or_else(|| panic!("no task: {created}"))
        .to_string()
}

async fn settled(server: &Server, principal: Option<&Principal>, task: &str) -> Value {
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let got = send_as(server, principal, "tasks/get", json!({"taskId": task})).await;
        let status = got["result"]["status"].as_str().unwrap_or("").to_string();
        if status != "working" || Instant::now() > deadline {
            return got["result"].clone();
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

#[tokio::test]
async fn a_task_that_elicits_twice_and_samples_completes_through_tasks_update() {
    let counter = Counter::default();
    let s = server(counter.clone());
    let created = send_as(
        &s,
        None,
        "tools/call",
        json!({"name": "book", "arguments": {}}),
    )
    .await;
    let created = &created["result"];
    assert_eq!(created["resultType"], "task", "{created}");
    assert!(created.get("requestState").is_none());
    let task = created["taskId"].as_str().expect("a task id").to_string();
    assert!(task.len() >= 32, "at least 128 random bits: {task}");
    let answers = [
        accept(json!({"name": "Ada"})),
        accept(json!({"city": "Oslo"})),
        json!({"role": "assistant", "content": {"type": "text", "text": "Fjords!"}, "model": "m"}),
    ];
    for answer in answers {
        let parked = settled(&s, None, &task).await;
        assert_eq!(parked["status"], "input_required", "{parked}");
        let pending = parked["inputRequests"].as_object().expect("requests");
        assert_eq!(pending.len(), 1, "{parked}");
        let key = pending.keys().next().unwrap().clone();
        let ack = send_as(
            &s,
            None,
            "tasks/update",
            json!({"taskId": task, "inputResponses": {key: answer}}),
        )
        .await;
        assert_eq!(ack["result"], json!({"resultType": "complete"}), "{ack}");
    }
    let done = settled(&s, None, &task).await;
    assert_eq!(done["status"], "completed", "{done}");
    assert_eq!(
        done["result"]["content"][0]["text"],
        "Ada to Oslo, booking 1: Fjords!"
    );
    assert_eq!(counter.0.load(Ordering::SeqCst), 1, "the step ran once");
}

#[tokio::test]
async fn cancelling_a_running_task_settles_it_within_a_second() {
    let s = server(Counter::default());
    let task = create_task(&s, None, "forever").await;
    let started = Instant::now();
    let ack = send_as(&s, None, "tasks/cancel", json!({"taskId": task})).await;
    assert_eq!(ack["result"], json!({"resultType": "complete"}));
    let got = send_as(&s, None, "tasks/get", json!({"taskId": task})).await;
    assert_eq!(got["result"]["status"], "cancelled", "{got}");
    assert!(started.elapsed() < Duration::from_secs(1));
    // Cancelling again is the same acknowledgement.
    let again = send_as(&s, None, "tasks/cancel", json!({"taskId": task})).await;
    assert_eq!(again["result"], json!({"resultType": "complete"}));
}

#[tokio::test]
async fn a_task_is_invisible_to_anyone_but_its_creator() {
    let s = server(Counter::default());
    let alice = Principal::new("alice").with_issuer("https://issuer.example");
    let mallory = Principal::new("mallory").with_issuer("https://issuer.example");
    let task = create_task(&s, Some(&alice), "forever").await;
    let unknown = send_as(
        &s,
        Some(&alice),
        "tasks/get",
        json!({"taskId": "no-such-task"}),
    )
    .await;
    for method in ["tasks/get", "tasks/cancel", "tasks/update"] {
        for who in [Some(&mallory), None] {
            let reply = send_as(
                &s,
                who,
                method,
                json!({"taskId": task, "inputResponses": {}}),
            )
            .await;
            assert_eq!(reply["error"]["code"], -32602, "{method}: {reply}");
            assert_eq!(
                reply["error"]["message"]
                    .as_str()
                    .map(|m| m.replace(&task, "ID")),
                unknown["error"]["message"]
                    .as_str()
                    .map(|m| m.replace("no-such-task", "ID")),
                "the same answer as for an unknown task"
            );
        }
    }
    let own = send_as(&s, Some(&alice), "tasks/get", json!({"taskId": task})).await;
    assert_eq!(own["result"]["status"], "working", "{own}");
}

#[tokio::test]
async fn without_the_extension_a_task_tool_runs_in_the_request_or_is_refused() {
    let s = server(Counter::default());
    let caps = all_caps();
    let msg = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                     "params": {"name": "forever", "arguments": {}, "_meta": meta(caps.clone())}});
    let reply = s
        .handle_message(&msg.to_string(), None)
        .await
        .unwrap()
        .to_value();
    assert_eq!(reply["error"]["code"], -32021, "{reply}");
    assert!(
        reply["error"]["data"]["requiredCapabilities"]["extensions"]
            ["io.modelcontextprotocol/tasks"]
            .is_object(),
        "{reply}"
    );
    let msg = json!({"jsonrpc": "2.0", "id": 2, "method": "tasks/get",
                     "params": {"taskId": "x", "_meta": meta(caps)}});
    let reply = s
        .handle_message(&msg.to_string(), None)
        .await
        .unwrap()
        .to_value();
    assert_eq!(reply["error"]["code"], -32021, "{reply}");
}

/// The `mode` and `target` of every `round` span opened while it is the default subscriber.
#[derive(Clone, Default)]
struct Rounds(Arc<std::sync::Mutex<Vec<(String, String)>>>);

/// The fields of a `round` span.
#[derive(Default)]
struct RoundFields {
    mode: String,
    target: String,
}

impl tracing::field::Visit for RoundFields {
    fn record_str(&mut self, field: &tracing::field::Field, value: &str) {
        if field.name() == "mode" {
            self.mode = value.to_string();
        }
    }

    fn record_debug(&mut self, field: &tracing::field::Field, value: &dyn std::fmt::Debug) {
        if field.name() == "target" {
            self.target = format!("{value:?}");
        }
    }
}

impl tracing::Subscriber for Rounds {
    fn enabled(&self, _: &tracing::Metadata<'_>) -> bool {
        true
    }

    fn new_span(&self, span: &tracing::span::Attributes<'_>) -> tracing::span::Id {
        if span.metadata().name() == "round" {
            let mut fields = RoundFields::default();
            span.record(&mut fields);
            self.0.lock().unwrap().push((fields.mode, fields.target));
        }
        tracing::span::Id::from_u64(1)
    }

    fn record(&self, _: &tracing::span::Id, _: &tracing::span::Record<'_>) {}
    fn record_follows_from(&self, _: &tracing::span::Id, _: &tracing::span::Id) {}
    fn event(&self, _: &tracing::Event<'_>) {}
    fn enter(&self, _: &tracing::span::Id) {}
    fn exit(&self, _: &tracing::span::Id) {}
}

#[tokio::test]
async fn one_handler_runs_through_the_round_as_an_mrtr_call_and_as_a_task() {
    let rounds = Rounds::default();
    let _default = tracing::subscriber::set_default(rounds.clone());
    let s = server(Counter::default());

    // As an MRTR call: a client without the tasks extension gets input_required.
    let msg = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                     "params": {"name": "book", "arguments": {}, "_meta": meta(all_caps())}});
    let asked = s
        .handle_message(&msg.to_string(), None)
        .await
        .unwrap()
        .to_value();
    assert_eq!(asked["result"]["resultType"], "input_required", "{asked}");
    assert_eq!(
        *rounds.0.lock().unwrap(),
        [("rounds".to_string(), "book".to_string())]
    );

    // As a task: created, then run in the background until it asks.
    let task = create_task(&s, None, "book").await;
    assert_eq!(settled(&s, None, &task).await["status"], "input_required");
    assert_eq!(
        *rounds.0.lock().unwrap(),
        [
            ("rounds".to_string(), "book".to_string()),
            ("task".to_string(), "book".to_string())
        ]
    );
}

/// A task store that is down, with an error that names its host.
struct Down;

impl oxmcp::tasks::TaskStore for Down {
    fn insert(&self, _: oxmcp::tasks::TaskRecord) -> oxmcp::tasks::StoreFuture<'_, ()> {
        Box::pin(async { Err(down()) })
    }
    fn get<'a>(
        &'a self,
        _: &'a str,
    ) -> oxmcp::tasks::StoreFuture<'a, Option<oxmcp::tasks::TaskRecord>> {
        Box::pin(async { Err(down()) })
    }
    fn update<'a>(
        &'a self,
        _: &'a str,
        _: oxmcp::tasks::TaskChange<'a>,
    ) -> oxmcp::tasks::StoreFuture<'a, Option<oxmcp::tasks::TaskRecord>> {
        Box::pin(async { Err(down()) })
    }
}

fn down() -> oxmcp::tasks::TaskStoreError {
    oxmcp::tasks::TaskStoreError::Unavailable(oxmcp::Cause::words(
        "connection refused: redis-7.internal:6379",
    ))
}

/// With the store down, every task request is answered with an internal error that says the
/// store is unavailable and no more: the store's own error (here, a host name) stays in the
/// server's log.
#[tokio::test]
async fn a_store_that_is_down_fails_task_requests_without_naming_its_hosts() {
    let server = Server::builder()
        .state(Counter::default())
        .tool(book)
        .tool(forever)
        .task_store(Arc::new(Down))
        .build()
        .unwrap();
    let created = send_as(
        &server,
        None,
        "tools/call",
        json!({"name": "forever", "arguments": {}}),
    )
    .await;
    for (method, params) in [
        ("tools/call", json!({"name": "forever", "arguments": {}})),
        ("tasks/get", json!({"taskId": "0123"})),
        ("tasks/cancel", json!({"taskId": "0123"})),
        (
            "tasks/update",
            json!({"taskId": "0123", "inputResponses": {}}),
        ),
    ] {
        let reply = if method == "tools/call" {
            created.clone()
        } else {
            send_as(&server, None, method, params).await
        };
        assert_eq!(reply["error"]["code"], -32603, "{method}: {reply}");
        let text = reply.to_string();
        assert!(
            text.contains("task store is unavailable"),
            "{method}: {text}"
        );
        assert!(!text.contains("redis-7.internal"), "{method}: {text}");
    }
}
