//! A bounded, closed-loop load generator: `concurrency` workers each run complete flows back to
//! back over kept-alive HTTP/1.1 connections (TCP_NODELAY) for a fixed time. A flow is one
//! `tools/call`, retried with answers to every `input_required` round until the tool completes;
//! the final text is checked, so a flow only counts when the server did the whole job.

use std::future::Future;
use std::sync::Arc;
use std::time::{Duration, Instant};

use http_body_util::{BodyExt, Full};
use hyper::body::Bytes;
use hyper_util::client::legacy::{connect::HttpConnector, Client};
use hyper_util::rt::TokioExecutor;
use serde_json::{json, Map, Value};

/// What a flow calls and what it must end with.
#[derive(Clone, Debug)]
pub struct Flow {
    /// Short label for tables.
    pub label: String,
    /// The tool to call.
    pub tool: &'static str,
    /// Its arguments.
    pub arguments: Value,
    /// The text the completed result must carry.
    pub expect: String,
}

impl Flow {
    /// One `tools/call` of `test_simple_text`.
    pub fn plain() -> Self {
        Flow {
            label: "plain tools/call".into(),
            tool: "test_simple_text",
            arguments: json!({}),
            expect: "This is a simple text response for testing.".into(),
        }
    }

    /// `test_input_required_result_elicitation`: one form, two requests.
    pub fn elicitation() -> Self {
        Flow {
            label: "2-round elicitation".into(),
            tool: "test_input_required_result_elicitation",
            arguments: json!({}),
            expect: "Hello, Ada!".into(),
        }
    }

    /// `test_input_required_result_multi_round`: two forms in sequence, three requests.
    pub fn multi_round() -> Self {
        Flow {
            label: "3-round multi-round".into(),
            tool: "test_input_required_result_multi_round",
            arguments: json!({}),
            expect: "Ada likes blue".into(),
        }
    }

    /// `bench_rounds`: `n` questions in sequence, `n + 1` requests.
    pub fn rounds(n: u32) -> Self {
        Flow {
            label: format!("{n} input rounds"),
            tool: "bench_rounds",
            arguments: json!({ "rounds": n }),
            expect: (0..n)
                .map(|i| format!("step{i}"))
                .collect::<Vec<_>>()
                .join(","),
        }
    }
}

/// What one run measured.
#[derive(Debug, Default, Clone)]
pub struct Outcome {
    /// Completed, correct flows.
    pub flows: u64,
    /// HTTP requests sent for those flows.
    pub requests: u64,
    /// HTTP requests of every flow that completed, including those finished after a closed-loop
    /// window ended (what the server's CPU time over the run pays for).
    pub all_requests: u64,
    /// Failed flows (transport errors, error replies, wrong text).
    pub errors: u64,
    /// Latency of each completed flow, microseconds.
    pub latencies_us: Vec<u32>,
    /// Wall time of the measured window.
    pub elapsed: Duration,
    /// The first failure, for the report.
    pub first_error: Option<String>,
}

/// The load generator's HTTP/1.1 client; one per server under test, kept across runs so its
/// connections stay open and no run pays for connecting.
pub type HttpClient = Client<HttpConnector, Full<Bytes>>;

/// An HTTP client with TCP_NODELAY and kept-alive connections.
pub fn client() -> HttpClient {
    let mut connector = HttpConnector::new();
    connector.set_nodelay(true);
    Client::builder(TokioExecutor::new())
        .pool_idle_timeout(Duration::from_secs(60))
        .build(connector)
}

/// The answer a user gives to one elicitation: `name` is Ada, `color` is blue, anything else
/// is the request's key (so multi-round tools show they carried every answer).
pub fn answer(key: &str, request: &Value) -> Value {
    let mut content = Map::new();
    if let Some(props) = request
        .pointer("/params/requestedSchema/properties")
        .and_then(Value::as_object)
    {
        for field in props.keys() {
            let v = match field.as_str() {
                "name" => "Ada",
                "color" => "blue",
                _ => key,
            };
            content.insert(field.clone(), Value::String(v.into()));
        }
    }
    json!({ "action": "accept", "content": content })
}

/// Sends one `tools/call` of `tool` with `params` and returns the JSON-RPC reply.
pub async fn call(
    client: &HttpClient,
    url: &str,
    tool: &str,
    id: u64,
    params: &Value,
) -> Result<Value, String> {
    let body = json!({ "jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params });
    let body = serde_json::to_vec(&body).map_err(|e| e.to_string())?;
    let req = hyper::Request::post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", "tools/call")
        .header("mcp-name", tool)
        .body(Full::new(Bytes::from(body)))
        .map_err(|e| e.to_string())?;
    let resp = client
        .request(req)
        .await
        .map_err(|e| format!("send: {e}"))?;
    let status = resp.status();
    let bytes = resp
        .into_body()
        .collect()
        .await
        .map_err(|e| format!("body: {e}"))?
        .to_bytes();
    serde_json::from_slice(&bytes)
        .map_err(|e| format!("HTTP {status}: {e}: {}", String::from_utf8_lossy(&bytes)))
}

/// Runs one complete flow; returns how many requests it took.
pub async fn run_flow(
    client: &HttpClient,
    url: &str,
    flow: &Flow,
    id: &mut u64,
) -> Result<u64, String> {
    run_flow_timed(client, url, flow, id, None).await
}

/// [`run_flow`], recording each request's latency (µs, in the order sent) into `each`.
pub async fn run_flow_timed(
    client: &HttpClient,
    url: &str,
    flow: &Flow,
    id: &mut u64,
    mut each: Option<&mut Vec<u32>>,
) -> Result<u64, String> {
    let mut params = json!({
        "name": flow.tool,
        "arguments": flow.arguments,
        "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": { "elicitation": { "form": {} } },
            "io.modelcontextprotocol/clientInfo": { "name": "mcp-load", "version": "0.1.0" }
        }
    });
    for round in 1..=70u64 {
        *id += 1;
        let sent = Instant::now();
        let reply = call(client, url, flow.tool, *id, &params).await?;
        if let Some(each) = each.as_deref_mut() {
            each.push(sent.elapsed().as_micros().min(u32::MAX as u128) as u32);
        }
        let result = reply
            .get("result")
            .ok_or_else(|| format!("error reply: {reply}"))?;
        if result.get("resultType").and_then(Value::as_str) == Some("input_required") {
            let mut answers = Map::new();
            if let Some(reqs) = result.get("inputRequests").and_then(Value::as_object) {
                for (k, r) in reqs {
                    answers.insert(k.clone(), answer(k, r));
                }
            }
            let p = params.as_object_mut().ok_or("params")?;
            p.insert("inputResponses".into(), Value::Object(answers));
            match result.get("requestState") {
                Some(s) => p.insert("requestState".into(), s.clone()),
                None => p.remove("requestState"),
            };
            continue;
        }
        let text = result
            .pointer("/content/0/text")
            .and_then(Value::as_str)
            .unwrap_or_default();
        if text != flow.expect || result.get("isError") == Some(&Value::Bool(true)) {
            return Err(format!("unexpected result {result}"));
        }
        return Ok(round);
    }
    Err("more than 70 rounds".into())
}

/// Runs `flow` from `concurrency` workers for `duration` over `client` and collects what they
/// saw.
pub async fn run(
    client: &HttpClient,
    url: &str,
    flow: &Flow,
    concurrency: usize,
    duration: Duration,
) -> Outcome {
    let (client, url, flow) = (client.clone(), url.to_string(), flow.clone());
    run_closed(concurrency, duration, move |mut id| {
        let (client, url, flow) = (client.clone(), url.clone(), flow.clone());
        Box::pin(async move { run_flow(&client, &url, &flow, &mut id).await })
    })
    .await
}

/// One flow, started with a JSON-RPC id base of its own; it resolves to the number of HTTP
/// requests it took.
pub type FlowFuture = std::pin::Pin<Box<dyn Future<Output = Result<u64, String>> + Send>>;

/// Runs the flows `start` makes from `concurrency` workers, back to back, for `duration`.
pub async fn run_closed(
    concurrency: usize,
    duration: Duration,
    start: impl Fn(u64) -> FlowFuture + Clone + Send + 'static,
) -> Outcome {
    // Flows that end inside the window count; the flows in flight at its end are finished
    // (their requests count towards CPU per request, their errors are reported) but not counted
    // as throughput, so a slice's rate is its window's and no server gains from the drain.
    let begin = Instant::now();
    let deadline = begin + duration;
    let mut workers = Vec::new();
    for w in 0..concurrency {
        let start = start.clone();
        workers.push(tokio::spawn(async move {
            let mut out = Outcome::default();
            let mut id = (w as u64) << 40;
            while Instant::now() < deadline {
                let t = Instant::now();
                id += 1 << 8;
                match start(id).await {
                    Ok(n) => {
                        out.all_requests += n;
                        if Instant::now() <= deadline {
                            out.flows += 1;
                            out.requests += n;
                            out.latencies_us
                                .push(t.elapsed().as_micros().min(u32::MAX as u128) as u32);
                        }
                    }
                    Err(e) => {
                        out.errors += 1;
                        out.first_error.get_or_insert(e);
                        // A refused connection would otherwise spin.
                        tokio::time::sleep(Duration::from_millis(1)).await;
                    }
                }
            }
            out
        }));
    }
    let mut total = Outcome::default();
    for w in workers {
        if let Ok(o) = w.await {
            total.flows += o.flows;
            total.requests += o.requests;
            total.all_requests += o.all_requests;
            total.errors += o.errors;
            total.latencies_us.extend(o.latencies_us);
            if total.first_error.is_none() {
                total.first_error = o.first_error;
            }
        }
    }
    total.elapsed = duration;
    total.latencies_us.sort_unstable();
    total
}

/// The `q` quantile (0..=1) of sorted latencies, in microseconds.
pub fn quantile(sorted: &[u32], q: f64) -> u32 {
    if sorted.is_empty() {
        return 0;
    }
    let i = ((sorted.len() - 1) as f64 * q).round() as usize;
    sorted[i.min(sorted.len() - 1)]
}

/// Runs `flow` at a fixed offered load of `rate` flows per second for `duration` (open loop): a
/// new flow starts on schedule whether or not earlier ones have finished, so a server that falls
/// behind shows it in its latencies instead of slowing the load down. Latency runs from a flow's
/// start to its last reply; at most `MAX_IN_FLIGHT` flows are in flight (a flow waiting for a
/// slot is timed from its scheduled start).
pub async fn run_open(
    client: &HttpClient,
    url: &str,
    flow: &Flow,
    rate: f64,
    duration: Duration,
) -> Outcome {
    const MAX_IN_FLIGHT: usize = 512;
    // Have 32 connections open first (32 flows at once), so the schedule does not pay for
    // set-up.
    let warm: Vec<_> = (0..32u64)
        .map(|w| {
            let (client, url, flow) = (client.clone(), url.to_string(), flow.clone());
            tokio::spawn(async move {
                let mut id = (w + 1) << 50;
                let _ = run_flow(&client, &url, &flow, &mut id).await;
            })
        })
        .collect();
    for w in warm {
        let _ = w.await;
    }
    let slots = Arc::new(tokio::sync::Semaphore::new(MAX_IN_FLIGHT));
    let interval = Duration::from_secs_f64(1.0 / rate.max(1.0));
    let count = (duration.as_secs_f64() * rate).max(1.0) as u64;
    let start = tokio::time::Instant::now();
    let mut tasks = Vec::with_capacity(count as usize);
    for i in 0..count {
        let due = start + interval.mul_f64(i as f64);
        tokio::time::sleep_until(due).await;
        let (client, url, flow, slots) =
            (client.clone(), url.to_string(), flow.clone(), slots.clone());
        tasks.push(tokio::spawn(async move {
            let t = Instant::now();
            let _slot = slots.acquire_owned().await;
            let mut id = (i + 1) << 20;
            let result = run_flow(&client, &url, &flow, &mut id).await;
            (result, t.elapsed().as_micros().min(u32::MAX as u128) as u32)
        }));
    }
    let mut total = Outcome::default();
    for task in tasks {
        match task.await {
            Ok((Ok(n), us)) => {
                total.flows += 1;
                total.requests += n;
                total.all_requests += n;
                total.latencies_us.push(us);
            }
            Ok((Err(e), _)) => {
                total.errors += 1;
                total.first_error.get_or_insert(e);
            }
            Err(e) => {
                total.errors += 1;
                total.first_error.get_or_insert(e.to_string());
            }
        }
    }
    total.elapsed = start.elapsed();
    total.latencies_us.sort_unstable();
    total
}
