//! A bounded, closed-loop load generator: `concurrency` workers each run complete flows back to
//! back over kept-alive HTTP/1.1 connections (TCP_NODELAY) for a fixed time. A flow is one
//! `tools/call`, retried with answers to every `input_required` round until the tool completes;
//! the final text is checked, so a flow only counts when the server did the whole job.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::future::Future;
use std::sync::Arc;
use std::time::{Duration, Instant};

use http_body_util::{BodyExt, Full};
use hyper::body::Bytes;
use hyper::client::conn::http1::SendRequest;
use hyper_util::client::legacy::{connect::HttpConnector, Client};
use hyper_util::rt::{TokioExecutor, TokioIo};
use serde::de::IgnoredAny;
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use serde_json::{json, Value};

/// What a flow calls and what it must end with.
#[derive(Clone, Debug)]
pub struct Flow {
    /// Short label for tables.
    pub label: String,
    /// The tool to call.
    pub tool: &'static str,
    /// Its arguments, as JSON text written into every request of the flow.
    pub arguments: Box<RawValue>,
    /// The text the completed result must carry.
    pub expect: String,
}

impl Flow {
    fn new(label: String, tool: &'static str, arguments: Value, expect: String) -> Self {
        let arguments =
            serde_json::value::to_raw_value(&arguments).expect("a Value always serializes");
        Flow {
            label,
            tool,
            arguments,
            expect,
        }
    }

    /// One `tools/call` of `test_simple_text`.
    pub fn plain() -> Self {
        Flow::new(
            "plain tools/call".into(),
            "test_simple_text",
            json!({}),
            "This is a simple text response for testing.".into(),
        )
    }

    /// `test_input_required_result_elicitation`: one form, two requests.
    pub fn elicitation() -> Self {
        Flow::new(
            "2-round elicitation".into(),
            "test_input_required_result_elicitation",
            json!({}),
            "Hello, Ada!".into(),
        )
    }

    /// `test_input_required_result_multi_round`: two forms in sequence, three requests.
    pub fn multi_round() -> Self {
        Flow::new(
            "3-round multi-round".into(),
            "test_input_required_result_multi_round",
            json!({}),
            "Ada likes blue".into(),
        )
    }

    /// `bench_rounds`: `n` questions in sequence, `n + 1` requests.
    pub fn rounds(n: u32) -> Self {
        Flow::new(
            format!("{n} input rounds"),
            "bench_rounds",
            json!({ "rounds": n }),
            (0..n)
                .map(|i| format!("step{i}"))
                .collect::<Vec<_>>()
                .join(","),
        )
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
#[allow(dead_code)] // benches/tests/load.rs
pub fn client() -> HttpClient {
    let mut connector = HttpConnector::new();
    connector.set_nodelay(true);
    Client::builder(TokioExecutor::new())
        .pool_idle_timeout(Duration::from_secs(60))
        .build(connector)
}

/// What a user types into `field` of the form asked under `key`: `name` is Ada, `color` is
/// blue, anything else is the request's key (so multi-round tools show they carried every
/// answer).
pub fn field_answer<'a>(field: &str, key: &'a str) -> &'a str {
    match field {
        "name" => "Ada",
        "color" => "blue",
        _ => key,
    }
}

/// Sends one `tools/call` of `tool` with `params` over the pooled client and returns the
/// JSON-RPC reply as a `Value` (for tests that alter a request).
#[allow(dead_code)] // benches/tests/load.rs
pub async fn call(
    client: &HttpClient,
    url: &str,
    tool: &str,
    id: u64,
    params: &Value,
) -> Result<Value, String> {
    let body = json!({ "jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params });
    let body = serde_json::to_vec(&body).map_err(|e| e.to_string())?;
    let req = mcp_request(hyper::Request::post(url), "tools/call", tool, body)?;
    let resp = client
        .request(req)
        .await
        .map_err(|e| format!("send: {e}"))?;
    let status = resp.status();
    let bytes = read_body(resp).await?;
    serde_json::from_slice(&bytes)
        .map_err(|e| format!("HTTP {status}: {e}: {}", String::from_utf8_lossy(&bytes)))
}

/// `post` (a POST builder with its URI) as a 2026-07-28 request of `method` naming `name` (its
/// `Mcp-Name`), with the headers every request of a flow carries, and `body`.
fn mcp_request(
    post: hyper::http::request::Builder,
    method: &str,
    name: &str,
    body: Vec<u8>,
) -> Result<hyper::Request<Full<Bytes>>, String> {
    post.header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", method)
        .header("mcp-name", name)
        .body(Full::new(Bytes::from(body)))
        .map_err(|e| e.to_string())
}

/// The whole body of `resp`.
pub async fn read_body(resp: hyper::Response<hyper::body::Incoming>) -> Result<Bytes, String> {
    Ok(resp
        .into_body()
        .collect()
        .await
        .map_err(|e| format!("body: {e}"))?
        .to_bytes())
}

/// One kept-alive HTTP/1.1 connection to the server under test, owned by one flow at a time, so
/// a request goes straight to its connection: no pool lookup, no URI parsing per request.
pub struct Conn {
    send: SendRequest<Full<Bytes>>,
}

/// The connections kept open to one server for a whole invocation: a worker takes one for a run
/// and gives it back, so no run pays for connecting once the warm-up has opened enough of them.
pub struct Conns {
    addr: String,
    path: String,
    idle: std::sync::Mutex<Vec<Conn>>,
}

impl Conns {
    /// Connections to the server at `url` (`http://HOST:PORT/PATH`); none is opened yet.
    pub fn new(url: &str) -> Result<Arc<Self>, String> {
        let rest = url
            .strip_prefix("http://")
            .ok_or_else(|| format!("not an http:// URL: {url}"))?;
        let (addr, path) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
        Ok(Arc::new(Conns {
            addr: addr.to_string(),
            path: if path.is_empty() { "/" } else { path }.to_string(),
            idle: std::sync::Mutex::new(Vec::new()),
        }))
    }

    /// The server's base URL (`http://HOST:PORT`).
    pub fn base(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// An idle connection, or a new one.
    pub async fn take(&self) -> Result<Conn, String> {
        let idle = self.idle.lock().ok().and_then(|mut v| v.pop());
        match idle {
            Some(c) if !c.send.is_closed() => Ok(c),
            _ => self.connect().await,
        }
    }

    /// Runs one complete flow on an idle connection (or a new one) and gives it back; returns
    /// how many requests it took.
    pub async fn flow(&self, flow: &Flow, id: &mut u64) -> Result<u64, String> {
        let mut conn = self.take().await?;
        let result = run_flow(self, &mut conn, flow, id).await;
        self.give(conn);
        result
    }

    /// Gives `conn` back for the next run (a closed one is dropped).
    pub fn give(&self, conn: Conn) {
        if !conn.send.is_closed() {
            if let Ok(mut v) = self.idle.lock() {
                v.push(conn);
            }
        }
    }

    async fn connect(&self) -> Result<Conn, String> {
        let tcp = tokio::net::TcpStream::connect(&self.addr)
            .await
            .map_err(|e| format!("connect {}: {e}", self.addr))?;
        tcp.set_nodelay(true).map_err(|e| e.to_string())?;
        let (send, connection) = hyper::client::conn::http1::handshake(TokioIo::new(tcp))
            .await
            .map_err(|e| format!("handshake: {e}"))?;
        tokio::spawn(async move {
            let _ = connection.await;
        });
        Ok(Conn { send })
    }

    /// POSTs one 2026-07-28 request of `method` naming `name` on `conn` and returns the reply's
    /// body; an HTTP error status is an error.
    pub async fn post(
        &self,
        conn: &mut Conn,
        method: &str,
        name: &str,
        body: Vec<u8>,
    ) -> Result<Bytes, String> {
        let req = mcp_request(self.request(hyper::Method::POST), method, name, body)?;
        let resp = self.send(conn, req).await?;
        let status = resp.status();
        let bytes = read_body(resp).await?;
        if !status.is_success() {
            return Err(format!(
                "{method}: HTTP {status}: {}",
                String::from_utf8_lossy(&bytes)
            ));
        }
        Ok(bytes)
    }

    /// A request to this server's MCP path, `method`, with the `Host` header set.
    pub fn request(&self, method: hyper::Method) -> hyper::http::request::Builder {
        hyper::Request::builder()
            .method(method)
            .uri(self.path.as_str())
            .header("host", self.addr.as_str())
    }

    /// Sends `req` on `conn` and returns the response head (the body still to read). A request
    /// the connection could not send (the server closed it while idle) goes again on a new one;
    /// one that was sent is never repeated.
    pub async fn send(
        &self,
        conn: &mut Conn,
        mut req: hyper::Request<Full<Bytes>>,
    ) -> Result<hyper::Response<hyper::body::Incoming>, String> {
        let mut fresh = false;
        loop {
            if conn.send.ready().await.is_err() {
                if fresh {
                    return Err("a new connection closed at once".into());
                }
                *conn = self.connect().await?;
                fresh = true;
                continue;
            }
            match conn.send.try_send_request(req).await {
                Ok(resp) => return Ok(resp),
                Err(mut e) => match e.take_message() {
                    Some(unsent) if !fresh => {
                        req = unsent;
                        *conn = self.connect().await?;
                        fresh = true;
                    }
                    _ => return Err(format!("send: {}", e.into_error())),
                },
            }
        }
    }
}

/// The `_meta` every request of a flow carries.
static META: std::sync::LazyLock<Box<RawValue>> = std::sync::LazyLock::new(|| {
    RawValue::from_string(META_JSON.to_string()).expect("META_JSON is JSON")
});

/// [`META`] as written.
const META_JSON: &str = r#"{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{"form":{}}},"io.modelcontextprotocol/clientInfo":{"name":"mcp-load","version":"0.1.0"}}"#;

/// A `tools/call` request as the generator writes it: fixed parts borrowed, the answers and the
/// state of the round before carried as JSON text.
#[derive(Serialize)]
struct CallBody<'a> {
    jsonrpc: &'static str,
    id: u64,
    method: &'static str,
    params: CallParams<'a>,
}

#[derive(Serialize)]
struct CallParams<'a> {
    name: &'a str,
    arguments: &'a RawValue,
    #[serde(rename = "_meta")]
    meta: &'a RawValue,
    #[serde(rename = "inputResponses", skip_serializing_if = "Option::is_none")]
    input_responses: Option<&'a RawValue>,
    #[serde(rename = "requestState", skip_serializing_if = "Option::is_none")]
    request_state: Option<&'a RawValue>,
}

/// What the generator reads of a reply: borrowed from its bytes, everything else skipped.
#[derive(Deserialize)]
struct Reply<'a> {
    #[serde(borrow)]
    result: Option<ReplyResult<'a>>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct ReplyResult<'a> {
    #[serde(borrow)]
    result_type: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    input_requests: BTreeMap<Cow<'a, str>, InputRequest<'a>>,
    #[serde(borrow)]
    request_state: Option<&'a RawValue>,
    #[serde(borrow, default)]
    content: Vec<ReplyContent<'a>>,
    #[serde(default)]
    is_error: bool,
}

/// One input request (or a server's own `elicitation/create`) as the generator reads it: the
/// fields its form asks for.
#[derive(Deserialize)]
pub struct InputRequest<'a> {
    #[serde(borrow)]
    params: Option<InputParams<'a>>,
}

impl<'a> InputRequest<'a> {
    /// The names of the fields the form asks for.
    pub fn fields(&self) -> Vec<&str> {
        self.params
            .as_ref()
            .map(InputParams::fields)
            .unwrap_or_default()
    }
}

/// The params of an elicitation: its requested schema's properties.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct InputParams<'a> {
    #[serde(borrow)]
    requested_schema: Option<RequestedSchema<'a>>,
}

impl<'a> InputParams<'a> {
    /// The names of the fields the form asks for.
    pub fn fields(&self) -> Vec<&str> {
        self.requested_schema
            .as_ref()
            .map(|s| s.properties.keys().map(|f| f.as_ref()).collect())
            .unwrap_or_default()
    }
}

#[derive(Deserialize)]
struct RequestedSchema<'a> {
    #[serde(borrow, default)]
    properties: BTreeMap<Cow<'a, str>, IgnoredAny>,
}

/// One content block of a result, as the generator reads it: its text.
#[derive(Deserialize)]
pub struct ReplyContent<'a> {
    #[serde(borrow)]
    text: Option<Cow<'a, str>>,
}

/// The text of a result's first content block.
pub fn first_text<'c>(content: &'c [ReplyContent<'_>]) -> Option<&'c str> {
    content.first().and_then(|c| c.text.as_deref())
}

/// The answers to one round's input requests, written as [`answer`] does.
struct Answers<'r, 'a>(&'r BTreeMap<Cow<'a, str>, InputRequest<'a>>);

/// One answer: accept, with every requested field filled.
struct Accept<'r> {
    key: &'r str,
    fields: Vec<&'r str>,
}

impl Serialize for Answers<'_, '_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_map(self.0.iter().map(|(k, r)| {
            let fields = r.fields();
            (
                k.as_ref(),
                Accept {
                    key: k.as_ref(),
                    fields,
                },
            )
        }))
    }
}

impl Serialize for Accept<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        struct Content<'c>(&'c Accept<'c>);
        impl Serialize for Content<'_> {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.collect_map(
                    self.0
                        .fields
                        .iter()
                        .map(|f| (*f, field_answer(f, self.0.key))),
                )
            }
        }
        let mut m = s.serialize_map(Some(2))?;
        m.serialize_entry("action", "accept")?;
        m.serialize_entry("content", &Content(self))?;
        m.end()
    }
}

/// The answer to one elicitation asked under `key` whose form has `fields`, as JSON text
/// (accept, every field filled by [`field_answer`]).
pub fn answer_text(key: &str, fields: Vec<&str>) -> Result<String, String> {
    serde_json::to_string(&Accept { key, fields }).map_err(|e| e.to_string())
}

/// Runs one complete flow on `conn`; returns how many requests it took.
pub async fn run_flow(
    conns: &Conns,
    conn: &mut Conn,
    flow: &Flow,
    id: &mut u64,
) -> Result<u64, String> {
    run_flow_timed(conns, conn, flow, id, None).await
}

/// [`run_flow`], recording each request's latency (µs, in the order sent) into `each`.
pub async fn run_flow_timed(
    conns: &Conns,
    conn: &mut Conn,
    flow: &Flow,
    id: &mut u64,
    mut each: Option<&mut Vec<u32>>,
) -> Result<u64, String> {
    let mut answers: Option<Box<RawValue>> = None;
    let mut state: Option<Box<RawValue>> = None;
    for round in 1..=70u64 {
        *id += 1;
        let mut body = Vec::with_capacity(
            256 + flow.arguments.get().len()
                + answers.as_ref().map_or(0, |a| a.get().len())
                + state.as_ref().map_or(0, |s| s.get().len()),
        );
        serde_json::to_writer(
            &mut body,
            &CallBody {
                jsonrpc: "2.0",
                id: *id,
                method: "tools/call",
                params: CallParams {
                    name: flow.tool,
                    arguments: &flow.arguments,
                    meta: &META,
                    input_responses: answers.as_deref(),
                    request_state: state.as_deref(),
                },
            },
        )
        .map_err(|e| e.to_string())?;
        let sent = Instant::now();
        let bytes = conns.post(conn, "tools/call", flow.tool, body).await?;
        if let Some(each) = each.as_deref_mut() {
            each.push(sent.elapsed().as_micros().min(u32::MAX as u128) as u32);
        }
        let reply: Reply<'_> = serde_json::from_slice(&bytes)
            .map_err(|e| format!("reply: {e}: {}", String::from_utf8_lossy(&bytes)))?;
        let Some(result) = reply.result else {
            return Err(format!("error reply: {}", String::from_utf8_lossy(&bytes)));
        };
        if result.result_type.as_deref() == Some("input_required") {
            answers = Some(
                serde_json::value::to_raw_value(&Answers(&result.input_requests))
                    .map_err(|e| e.to_string())?,
            );
            state = result.request_state.map(ToOwned::to_owned);
            continue;
        }
        let text = first_text(&result.content).unwrap_or_default();
        if text != flow.expect || result.is_error {
            return Err(format!(
                "unexpected result {}",
                String::from_utf8_lossy(&bytes)
            ));
        }
        return Ok(round);
    }
    Err("more than 70 rounds".into())
}

/// Runs `flow` from `concurrency` workers for `duration`, each on a connection of its own from
/// `conns`, and collects what they saw.
pub async fn run(
    conns: &Arc<Conns>,
    flow: &Flow,
    concurrency: usize,
    duration: Duration,
) -> Outcome {
    // Every worker's connection is open before the window starts.
    let mut taken = Vec::with_capacity(concurrency);
    for _ in 0..concurrency {
        match conns.take().await {
            Ok(c) => taken.push(tokio::sync::Mutex::new(Some(c))),
            Err(e) => {
                return Outcome {
                    errors: 1,
                    first_error: Some(e),
                    elapsed: duration,
                    ..Outcome::default()
                }
            }
        }
    }
    let slots = Arc::new(taken);
    let (c, f, s) = (conns.clone(), Arc::new(flow.clone()), slots.clone());
    let outcome = run_closed(concurrency, duration, move |worker, mut id| {
        let (conns, flow, slots) = (c.clone(), f.clone(), s.clone());
        Box::pin(async move {
            let mut slot = slots[worker].lock().await;
            let conn = slot.as_mut().ok_or("no connection")?;
            run_flow(&conns, conn, &flow, &mut id).await
        })
    })
    .await;
    for slot in slots.iter() {
        if let Some(conn) = slot.lock().await.take() {
            conns.give(conn);
        }
    }
    outcome
}

/// One flow, started with a JSON-RPC id base of its own; it resolves to the number of HTTP
/// requests it took.
pub type FlowFuture = std::pin::Pin<Box<dyn Future<Output = Result<u64, String>> + Send>>;

/// Runs the flows `start` makes from `concurrency` workers, back to back, for `duration`;
/// `start` is given the worker's index and the flow's id base.
pub async fn run_closed(
    concurrency: usize,
    duration: Duration,
    start: impl Fn(usize, u64) -> FlowFuture + Clone + Send + 'static,
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
                match start(w, id).await {
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
pub async fn run_open(conns: &Arc<Conns>, flow: &Flow, rate: f64, duration: Duration) -> Outcome {
    const MAX_IN_FLIGHT: usize = 512;
    // Have 32 connections open first (32 flows at once), so the schedule does not pay for
    // set-up.
    let _ = run(conns, flow, 32, Duration::from_millis(1)).await;
    let slots = Arc::new(tokio::sync::Semaphore::new(MAX_IN_FLIGHT));
    let flow = Arc::new(flow.clone());
    let interval = Duration::from_secs_f64(1.0 / rate.max(1.0));
    let count = (duration.as_secs_f64() * rate).max(1.0) as u64;
    let start = tokio::time::Instant::now();
    let mut tasks = Vec::with_capacity(count as usize);
    for i in 0..count {
        let due = start + interval.mul_f64(i as f64);
        tokio::time::sleep_until(due).await;
        let (conns, flow, slots) = (conns.clone(), flow.clone(), slots.clone());
        tasks.push(tokio::spawn(async move {
            let t = Instant::now();
            let _slot = slots.acquire_owned().await;
            let mut id = (i + 1) << 20;
            let result = conns.flow(&flow, &mut id).await;
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
