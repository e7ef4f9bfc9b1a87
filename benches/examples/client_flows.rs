//! The project's client, measured on its own side of the end-to-end flows: `oxmcp::client::Client`
//! drives the plain call, the 2-round elicitation and the 3-round flow against a running server
//! (the bench server: `load serve ours`), and reports flows/s and the CPU this process (the
//! client) spent per flow. `benches/client-ab.sh` runs it built from two commits, taking turns,
//! against one server, to tell whether the client got slower.
//!
//! `client_flows URL [--seconds S] [--concurrency C]`: one line per flow,
//! `FLOW CONCURRENCY FLOWS_PER_S CLIENT_CPU_US_PER_FLOW ERRORS`.

use oxmcp::client::{Client, ClientError};
use oxmcp::schema::{ClientCapabilities, InputRequest};
use serde_json::{json, Value};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The flows, as (name, tool): the tools of the bench server.
const FLOWS: &[(&str, &str)] = &[
    ("plain", "test_simple_text"),
    ("elicitation", "test_input_required_result_elicitation"),
    ("multi", "test_input_required_result_multi_round"),
];

/// An answer to every form: a value for each field, from its name and type.
fn fill(schema: &Value) -> Value {
    let mut content = serde_json::Map::new();
    if let Some(props) = schema["properties"].as_object() {
        for (name, field) in props {
            let value = match field["type"].as_str() {
                Some("boolean") => json!(true),
                Some("integer") | Some("number") => json!(1),
                _ if name.contains("email") => json!("ada@example.com"),
                _ => json!("Ada"),
            };
            content.insert(name.clone(), value);
        }
    }
    json!({"action": "accept", "content": content})
}

fn client(url: &str) -> Client {
    let caps: ClientCapabilities =
        serde_json::from_value(json!({"elicitation": {}, "sampling": {}})).unwrap_or_default();
    Client::http(url).with_input(
        caps,
        |_key: &str, req: InputRequest| -> oxmcp::BoxFuture<Result<Value, ClientError>> {
            let answer = match &req {
                InputRequest::ElicitRequest(e) => serde_json::to_value(&e.params)
                    .map(|p| fill(&p["requestedSchema"]))
                    .map_err(|e| ClientError::protocol(e.to_string())),
                InputRequest::CreateMessageRequest(_) => Ok(json!({
                    "role": "assistant", "model": "bench",
                    "content": {"type": "text", "text": "teal"}})),
                other => Err(ClientError::unanswerable(other)),
            };
            Box::pin(async move { answer })
        },
    )
}

/// CPU time of this process's threads so far, in microseconds: the sum of each thread's
/// `/proc/self/task/*/schedstat` (nanoseconds, where `/proc/self/stat` counts 10-ms ticks).
fn cpu_us() -> u64 {
    let Ok(tasks) = std::fs::read_dir("/proc/self/task") else {
        return 0;
    };
    let ns: u64 = tasks
        .flatten()
        .filter_map(|task| std::fs::read_to_string(task.path().join("schedstat")).ok())
        .filter_map(|stat| stat.split_whitespace().next()?.parse::<u64>().ok())
        .sum();
    ns / 1000
}

/// Run `tool` on `clients` at once for `seconds`: (flows, errors).
async fn run(clients: &[Arc<Client>], tool: &'static str, seconds: f64) -> (u64, u64) {
    let stop = Arc::new(AtomicBool::new(false));
    let (done, errors) = (Arc::new(AtomicU64::new(0)), Arc::new(AtomicU64::new(0)));
    let mut workers = Vec::new();
    for c in clients {
        let (c, stop, done, errors) = (c.clone(), stop.clone(), done.clone(), errors.clone());
        workers.push(tokio::spawn(async move {
            while !stop.load(Ordering::Relaxed) {
                match c.call_tool(tool, json!({})).await {
                    Ok(r) if r.is_error != Some(true) => done.fetch_add(1, Ordering::Relaxed),
                    _ => errors.fetch_add(1, Ordering::Relaxed),
                };
            }
        }));
    }
    tokio::time::sleep(Duration::from_secs_f64(seconds)).await;
    stop.store(true, Ordering::Relaxed);
    for w in workers {
        let _ = w.await;
    }
    (done.load(Ordering::Relaxed), errors.load(Ordering::Relaxed))
}

fn main() -> std::process::ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(url) = args.first().cloned() else {
        eprintln!("usage: client_flows URL [--seconds S] [--concurrency C]");
        return std::process::ExitCode::from(2);
    };
    let (mut seconds, mut concurrency) = (0.5f64, 1usize);
    let mut it = args.iter().skip(1);
    while let Some(flag) = it.next() {
        let value = it.next().and_then(|v| v.parse::<f64>().ok());
        match (flag.as_str(), value) {
            ("--seconds", Some(v)) if v > 0.0 => seconds = v,
            ("--concurrency", Some(v)) if v >= 1.0 => concurrency = v as usize,
            _ => {
                eprintln!("usage: client_flows URL [--seconds S] [--concurrency C]");
                return std::process::ExitCode::from(2);
            }
        }
    }
    // One worker thread: the client's cost, not how it spreads over cores the server shares.
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("runtime: {e}");
            return std::process::ExitCode::FAILURE;
        }
    };
    runtime.block_on(async {
        let clients: Vec<Arc<Client>> = (0..concurrency).map(|_| Arc::new(client(&url))).collect();
        // Each client finds the server's era once, and every connection opens, before timing.
        for (_, tool) in FLOWS {
            run(&clients, tool, 0.05).await;
        }
        for (name, tool) in FLOWS {
            let (cpu, began) = (cpu_us(), Instant::now());
            let (flows, errors) = run(&clients, tool, seconds).await;
            let (cpu, took) = (cpu_us() - cpu, began.elapsed().as_secs_f64());
            println!(
                "{name} {concurrency} {:.0} {:.1} {errors}",
                flows as f64 / took,
                cpu as f64 / flows.max(1) as f64
            );
        }
    });
    std::process::ExitCode::SUCCESS
}
