//! Tasks created and completed per second, with the in-memory store and with Redis, and what a
//! Redis round trip adds to a task request. In process (no HTTP), so the store is what differs.
//!
//! `cargo run --release -p mcp-benches --example tasks -- [--seconds S] [--redis URL]`: without
//! `--redis`, `MCP_TEST_REDIS_URL` or a `redis-server` started on a free port (and stopped at the
//! end).

use oxmcp::prelude::*;
use oxmcp::redis::RedisTaskStore;
use oxmcp::tasks::{InMemoryTaskStore, TaskStore};
use serde_json::{json, Value};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Answers at once, as a task.
#[mcp_tool(task = "required")]
async fn quick(n: u64) -> String {
    format!("done {n}")
}

fn meta() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {"extensions": {"io.modelcontextprotocol/tasks": {}}},
        "io.modelcontextprotocol/clientInfo": {"name": "bench", "version": "1"}
    })
}

async fn send(server: &Server, method: &str, mut params: Value) -> Value {
    params["_meta"] = meta();
    let msg = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
    server
        .handle_message(&msg.to_string(), None)
        .await
        .map(|r| r.to_value())
        .unwrap_or(Value::Null)
}

/// One task from creation to its completed result; the number of requests it took.
async fn flow(server: &Server, n: u64) -> Result<u64, String> {
    let created = send(
        server,
        "tools/call",
        json!({"name": "quick", "arguments": {"n": n}}),
    )
    .await;
    let task = created["result"]["taskId"]
        .as_str()
        .ok_or_else(|| format!("no task: {created}"))?
        .to_string();
    let mut requests = 1;
    loop {
        let got = send(server, "tasks/get", json!({"taskId": task})).await;
        requests += 1;
        match got["result"]["status"].as_str() {
            Some("completed") => {
                let text = &got["result"]["result"]["content"][0]["text"];
                return if *text == json!(format!("done {n}")) {
                    Ok(requests)
                } else {
                    Err(format!("wrong result {got}"))
                };
            }
            Some("working") => tokio::task::yield_now().await,
            _ => return Err(format!("unexpected {got}")),
        }
    }
}

/// Tasks per second and requests per task from `concurrency` workers over `d`.
async fn run(server: Arc<Server>, concurrency: usize, d: Duration) -> (f64, f64) {
    let flows = Arc::new(AtomicU64::new(0));
    let requests = Arc::new(AtomicU64::new(0));
    let deadline = Instant::now() + d;
    let start = Instant::now();
    let mut workers = Vec::new();
    for w in 0..concurrency {
        let (server, flows, requests) = (server.clone(), flows.clone(), requests.clone());
        workers.push(tokio::spawn(async move {
            let mut n = (w as u64) << 32;
            while Instant::now() < deadline {
                n += 1;
                match flow(&server, n).await {
                    Ok(r) => {
                        flows.fetch_add(1, Ordering::Relaxed);
                        requests.fetch_add(r, Ordering::Relaxed);
                    }
                    Err(e) => panic!("{e}"),
                }
            }
        }));
    }
    for w in workers {
        let _ = w.await;
    }
    let f = flows.load(Ordering::Relaxed) as f64;
    (
        f / start.elapsed().as_secs_f64(),
        requests.load(Ordering::Relaxed) as f64 / f.max(1.0),
    )
}

/// Mean time of one `tasks/get` of a finished task, in microseconds.
async fn get_cost(server: &Server, n: u32) -> f64 {
    let created = send(
        server,
        "tools/call",
        json!({"name": "quick", "arguments": {"n": 0}}),
    )
    .await;
    let task = created["result"]["taskId"]
        .as_str()
        .unwrap_or("")
        .to_string();
    let _ = flow(server, 1).await;
    let start = Instant::now();
    for _ in 0..n {
        let _ = send(server, "tasks/get", json!({"taskId": task})).await;
    }
    start.elapsed().as_secs_f64() * 1e6 / f64::from(n)
}

fn server(store: Arc<dyn TaskStore>) -> Arc<Server> {
    Arc::new(
        Server::builder()
            .tool(quick)
            .task_store(store)
            // One caller creates thousands of tasks a second here: no per-caller cap, and tasks
            // kept 5 s, as in the load generator's task table.
            .tasks_per_principal(usize::MAX)
            .task_ttl(Duration::from_secs(5))
            .build()
            .expect("server"),
    )
}

#[tokio::main]
async fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut seconds = 2.0;
    let mut redis = None;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match (a.as_str(), it.next()) {
            ("--seconds", Some(v)) => seconds = v.parse().unwrap_or(seconds),
            ("--redis", Some(v)) => redis = Some(v.clone()),
            _ => {
                eprintln!("usage: tasks [--seconds S] [--redis URL]");
                std::process::exit(2);
            }
        }
    }
    // Without --redis: MCP_TEST_REDIS_URL, or a redis-server started (and stopped) here.
    let (url, _own_redis) = match redis {
        Some(url) => (url, None),
        None => mcp_tests::support::redis(),
    };
    let d = Duration::from_secs_f64(seconds);
    let memory = server(Arc::new(InMemoryTaskStore::new(1_000_000)));
    let redis_store = RedisTaskStore::connect(&url).await.expect("Redis");
    let shared = server(Arc::new(redis_store));
    println!("#### Tasks in process, created by `tools/call` and polled with `tasks/get` until completed ({seconds} s per cell)\n");
    println!("| store | concurrency | tasks/s | requests per task |");
    println!("|---|---|---|---|");
    for c in [1usize, 8, 32] {
        for (name, s) in [("in-memory", &memory), ("Redis", &shared)] {
            let (rate, per) = run(s.clone(), c, d).await;
            println!("| {name} | {c} | {rate:.0} | {per:.1} |");
        }
    }
    let (m, r) = (
        get_cost(&memory, 20_000).await,
        get_cost(&shared, 20_000).await,
    );
    println!("\n`tasks/get` of a finished task, one at a time: in-memory {m:.1} µs, Redis {r:.1} µs; a Redis round trip adds {:.1} µs per request.", r - m);
}
