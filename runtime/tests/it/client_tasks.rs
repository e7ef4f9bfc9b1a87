//! The client follows tasks (the tasks extension) with the client API alone, over HTTP and
//! stdio, against the fixture server: `call_tool` gives a task's final result, answers an
//! elicitation asked inside the task, and gives a tool error as a result; `start_tool` hands back
//! a run that is cancelled within two seconds; a call the caller stops waiting for cancels its
//! task.

use oxmcp::client::{Capabilities, Client, ClientError};
use oxmcp::schema::{ContentBlock, InputRequest};
use oxmcp::tasks::{InMemoryTaskStore, StoreFuture, TaskChange, TaskRecord, TaskStatus, TaskStore};
use oxmcp::BoxFuture;
use serde_json::{json, Value};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

fn text(result: &oxmcp::schema::CallToolResult) -> String {
    result
        .content
        .iter()
        .filter_map(|b| match b {
            ContentBlock::TextContent(t) => Some(t.text.clone()),
            _ => None,
        })
        .collect()
}

/// The tasks kept in memory, and the ids of every task created, for the test to look at.
#[derive(Default)]
struct Recording {
    store: InMemoryTaskStore,
    created: Mutex<Vec<String>>,
}

impl TaskStore for Recording {
    fn insert(&self, record: TaskRecord) -> StoreFuture<'_, ()> {
        self.created.lock().unwrap().push(record.id.clone());
        self.store.insert(record)
    }
    fn insert_within(&self, record: TaskRecord, per_owner: usize) -> StoreFuture<'_, ()> {
        self.created.lock().unwrap().push(record.id.clone());
        self.store.insert_within(record, per_owner)
    }
    fn get<'a>(&'a self, id: &'a str) -> StoreFuture<'a, Option<TaskRecord>> {
        self.store.get(id)
    }
    fn update<'a>(
        &'a self,
        id: &'a str,
        change: TaskChange<'a>,
    ) -> StoreFuture<'a, Option<TaskRecord>> {
        self.store.update(id, change)
    }
}

impl Recording {
    /// The status of every task created so far.
    async fn statuses(&self) -> Vec<TaskStatus> {
        let ids = self.created.lock().unwrap().clone();
        let mut out = Vec::new();
        for id in ids {
            if let Ok(Some(record)) = self.store.get(&id).await {
                out.push(record.status);
            }
        }
        out
    }
}

/// The fixture server over HTTP on a free port: its URL.
async fn fixture_url() -> String {
    fixture_with(Arc::new(Recording::default())).await
}

/// The fixture server over HTTP on a free port, keeping its tasks in `store`: its URL.
async fn fixture_with(store: Arc<Recording>) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    let server = mcp_tests::conformance::server(oxmcp::Server::builder().task_store(store))
        .build()
        .unwrap();
    tokio::spawn(oxmcp::http::serve_listener(
        Arc::new(server),
        listener,
        oxmcp::http::HttpConfig::default(),
        std::future::pending(),
    ));
    url
}

/// A client that declares forms and tasks, accepting every confirmation, and counting the
/// elicitations it answered.
fn with_tasks(client: Client, asked: Arc<AtomicUsize>) -> Client {
    let caps = Capabilities::new().elicitation_form().tasks().build();
    client.with_input(
        caps,
        move |_key: &str, request: InputRequest| -> BoxFuture<Result<Value, ClientError>> {
            let asked = asked.clone();
            Box::pin(async move {
                match request {
                    InputRequest::ElicitRequest(_) => {
                        asked.fetch_add(1, Ordering::SeqCst);
                        Ok(json!({"action": "accept", "content": {"confirm": true}}))
                    }
                    other => Err(ClientError::unanswerable(&other)),
                }
            })
        },
    )
}

/// The calls every transport must get right.
async fn tasks_work(client: &Client, asked: &AtomicUsize) {
    // A task's final result, through call_tool.
    let started = Instant::now();
    let done = client
        .call_tool("slow_compute", json!({"seconds": 0.3, "label": "sum"}))
        .await
        .unwrap();
    assert_eq!(text(&done), "Computed sum after 0.3 s");
    assert!(started.elapsed() >= Duration::from_millis(300));
    // An elicitation asked inside the task, answered through the input handler.
    let deleted = client
        .call_tool("confirm_delete", json!({"filename": "a.txt"}))
        .await
        .unwrap();
    assert_eq!(text(&deleted), "Deleted a.txt");
    assert_eq!(asked.load(Ordering::SeqCst), 1);
    // A tool error is the task's result.
    let failed = client.call_tool("failing_job", json!({})).await.unwrap();
    assert_eq!(failed.is_error, Some(true), "{failed:?}");
    // A task that fails with a protocol error gives that error.
    let refused = client.call_tool("protocol_error_job", json!({})).await;
    assert!(matches!(refused, Err(ClientError::Rpc(_))), "{refused:?}");
    // A run the caller controls: a minute-long task, cancelled, shows so within two seconds.
    let run = client
        .start_tool("slow_compute", json!({"seconds": 60}))
        .await
        .unwrap();
    let id = run.task_id().expect("a task").to_string();
    assert!(!run.status().await.unwrap().is_final());
    let cancelled = Instant::now();
    run.cancel().await.unwrap();
    loop {
        if run.status().await.unwrap() == oxmcp::client::TaskStatus::Cancelled {
            break;
        }
        assert!(
            cancelled.elapsed() < Duration::from_secs(2),
            "not cancelled"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(cancelled.elapsed() < Duration::from_secs(2));
    assert!(
        matches!(run.result().await, Err(ClientError::TaskCancelled { task_id }) if task_id == id)
    );
    // The raw methods.
    let got = client.get_task(&id).await.unwrap();
    assert_eq!(got["status"], "cancelled");
    client.cancel_task(&id).await.unwrap();
}

#[tokio::test]
async fn a_client_follows_tasks_over_http() {
    let url = fixture_url().await;
    let asked = Arc::new(AtomicUsize::new(0));
    let client = with_tasks(Client::http(&url), asked.clone());
    tasks_work(&client, &asked).await;
}

#[tokio::test]
async fn a_client_follows_tasks_over_stdio() {
    let asked = Arc::new(AtomicUsize::new(0));
    // The fixture server on the other end of a pipe, as a spawned process would be.
    let server = mcp_tests::conformance::server(oxmcp::Server::builder())
        .build()
        .unwrap();
    let (client_end, server_end) = tokio::io::duplex(64 * 1024);
    let (server_read, server_write) = tokio::io::split(server_end);
    tokio::spawn(oxmcp::stdio::serve_io_with_limit(
        Arc::new(server),
        server_read,
        server_write,
        oxmcp::stdio::DEFAULT_MAX_LINE,
    ));
    let (client_read, client_write) = tokio::io::split(client_end);
    let client = with_tasks(Client::over_io(client_read, client_write), asked.clone());
    tasks_work(&client, &asked).await;
}

#[tokio::test]
async fn a_task_the_caller_stops_waiting_for_is_cancelled() {
    let store = Arc::new(Recording::default());
    let url = fixture_with(store.clone()).await;
    let asked = Arc::new(AtomicUsize::new(0));
    let client = with_tasks(Client::http(&url), asked).timeout(Some(Duration::from_millis(600)));
    // The time limit covers the whole task: past it the call gives up and the task is
    // cancelled.
    let gave_up = client
        .call_tool("slow_compute", json!({"seconds": 60, "label": "limited"}))
        .await;
    assert!(
        matches!(gave_up, Err(ClientError::Timeout { .. })),
        "{gave_up:?}"
    );
    // A dropped call cancels its task as well.
    let dropped = tokio::time::timeout(
        Duration::from_millis(300),
        client.within(
            Duration::from_secs(600),
            client.call_tool("slow_compute", json!({"seconds": 60, "label": "dropped"})),
        ),
    )
    .await;
    assert!(dropped.is_err(), "the call was still waiting");
    let deadline = Instant::now() + Duration::from_secs(3);
    let statuses = loop {
        let statuses = store.statuses().await;
        if statuses.iter().all(|s| *s == TaskStatus::Cancelled) || Instant::now() > deadline {
            break statuses;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    assert_eq!(statuses, [TaskStatus::Cancelled, TaskStatus::Cancelled]);
}
