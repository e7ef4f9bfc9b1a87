//! A rollout under load, as an operator lives it: three fixture instances sharing a key ring and
//! a real Redis behind a real HAProxy (the repository's `deploy/haproxy.cfg`), while a load
//! generator drives, all at once, 3-round MRTR flows (their retries spread over the instances),
//! tasks whose `input_required` is answered through `tasks/update`, durable tasks whose step
//! must run once, and 2025 sessions whose calls elicit. Meanwhile every instance is restarted
//! in turn (SIGTERM: not ready while it drains, then a new process), the key ring is rotated in
//! its three steps (staged, switched, old key dropped after the state lifetime), and one
//! instance is killed with SIGKILL and started again. Every flow is counted; the figures are
//! printed (BENCHMARKS.md keeps them).
//!
//! The whole rollout runs several times in a row (`MCP_ROLLOUT_RUNS`, default 3), each from
//! fresh processes, and every run must lose nothing. Run with
//! `cargo test -p mcp-tests --features rollout-tests --test it rollout:: -- --nocapture`; it needs
//! `redis-server` (or `MCP_TEST_REDIS_URL`) and `haproxy`, and fails without them.

use mcp_tests::support::{free_port, get, redis, wait_for_port, ChildGuard};
use oxmcp::client::{Client, ClientError, DeclineAll, Era};
use oxmcp::schema::{ClientCapabilities, ElicitRequestParams, InputRequest};
use serde_json::{json, Map, Value};
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// How long a `requestState` lives on the instances (short, so the rotation's last step comes
/// soon).
const STATE_TTL_SECS: u64 = 3;
/// How long a rollout step waits between taking an instance out of the proxy's rotation and
/// stopping it: the requests the proxy routed to it just before arrive meanwhile.
const DISPATCHED: Duration = Duration::from_millis(200);

fn key(byte: &str) -> String {
    byte.repeat(32)
}

/// One fixture instance on a fixed port (a restart keeps the port, as a pod keeps its
/// address in the load balancer's list), known to the proxy as `name`.
struct Instance {
    name: String,
    port: u16,
    child: Option<Child>,
    /// Where the running process logs (stderr).
    log: PathBuf,
    /// The processes started so far.
    starts: u32,
}

impl Instance {
    fn new(name: String, port: u16, ring: &str, redis: &str) -> Instance {
        let mut instance = Instance {
            name,
            port,
            child: None,
            log: PathBuf::new(),
            starts: 0,
        };
        instance.start(ring, redis);
        instance
    }

    fn start(&mut self, ring: &str, redis: &str) {
        self.starts += 1;
        self.log = std::env::temp_dir().join(format!(
            "mcp-rollout-{}-{}-{}.log",
            std::process::id(),
            self.port,
            self.starts
        ));
        let log = std::fs::File::create(&self.log).expect("a log file");
        self.child = Some(
            Command::new(env!("CARGO_BIN_EXE_conformance-server"))
                .args(["--task-lease-ms", "1000", "--threads", "1"])
                .env("MCP_PORT", self.port.to_string())
                .env("MCP_STATE_KEYS", ring)
                .env("MCP_TASK_STORE", redis)
                .env("MCP_DRAIN_SECS", "1")
                .env("MCP_STATE_TTL_SECS", STATE_TTL_SECS.to_string())
                // Finished tasks go soon: every flow here is the same (anonymous) caller, whose
                // share of kept tasks is bounded.
                .env("MCP_TASK_TTL_SECS", "20")
                // The line a stopping server logs: how many new requests reached it while it
                // was not ready.
                .env("RUST_LOG", "warn,oxmcp::http=info")
                .stdout(Stdio::null())
                .stderr(log)
                .spawn()
                .expect("the fixture server starts"),
        );
    }

    /// Until the instance answers `/readyz` with 200, then long enough for the proxy's health
    /// check to take it back (two checks 500 ms apart).
    async fn ready(&self) {
        let url = format!("http://127.0.0.1:{}/readyz", self.port);
        let deadline = Instant::now() + Duration::from_secs(15);
        loop {
            if std::net::TcpStream::connect(("127.0.0.1", self.port)).is_ok()
                && get(&url).await.0 == 200
            {
                break;
            }
            assert!(
                Instant::now() < deadline,
                "instance {} never ready",
                self.port
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        tokio::time::sleep(Duration::from_millis(1300)).await;
    }

    /// SIGTERM, and wait for the process to drain and exit: the new requests that reached it
    /// while it was not ready, as it logged them.
    async fn stop(&mut self) -> u64 {
        let mut child = self.child.take().expect("running");
        let pid = child.id().to_string();
        let sent = Command::new("kill").args(["-TERM", &pid]).status().unwrap();
        assert!(sent.success());
        let status = tokio::task::spawn_blocking(move || child.wait())
            .await
            .unwrap()
            .unwrap();
        assert!(
            status.success(),
            "a drained instance exits cleanly: {status}"
        );
        let log = std::fs::read_to_string(&self.log).unwrap_or_default();
        let _ = std::fs::remove_file(&self.log);
        log.lines()
            .find_map(|line| {
                let at = line.find("requests_while_draining=")?;
                let digits: String = line[at + "requests_while_draining=".len()..]
                    .chars()
                    .take_while(char::is_ascii_digit)
                    .collect();
                digits.parse().ok()
            })
            .unwrap_or_else(|| panic!("instance {} logged no stop:\n{log}", self.port))
    }

    /// A rollout step as an operator does it: out of the proxy's rotation, SIGTERM and drain, a
    /// new process, and back into rotation once it is ready. The new requests that reached the
    /// old process while it was not ready.
    async fn restart(&mut self, proxy: &Admin, ring: &str, redis: &str) -> u64 {
        let began = Instant::now();
        proxy.command(&format!("set server oxmcp/{} state drain", self.name));
        // The command keeps the proxy from choosing this instance from now on; a request it
        // chose it for just before is still on its way (on this shared 2-core machine, up to a
        // few milliseconds), and reaching a draining instance it would count as routed late.
        tokio::time::sleep(DISPATCHED).await;
        let strays = self.stop().await;
        eprintln!(
            "rollout: instance {} drained and stopped in {:?} ({strays} new requests while not ready)",
            self.port,
            began.elapsed()
        );
        self.start(ring, redis);
        self.ready().await;
        proxy.command(&format!("set server oxmcp/{} state ready", self.name));
        strays
    }
}

impl Drop for Instance {
    fn drop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
        let _ = std::fs::remove_file(&self.log);
    }
}

/// HAProxy's runtime API, on its Unix socket.
struct Admin(PathBuf);

impl Admin {
    fn command(&self, command: &str) {
        use std::io::{Read, Write};
        let mut socket = std::os::unix::net::UnixStream::connect(&self.0)
            .unwrap_or_else(|e| panic!("HAProxy's runtime API at {}: {e}", self.0.display()));
        socket.write_all(format!("{command}\n").as_bytes()).unwrap();
        let mut answer = String::new();
        socket.read_to_string(&mut answer).unwrap();
        assert!(answer.trim().is_empty(), "`{command}`: {answer}");
    }
}

/// What happened to the flows, by kind.
#[derive(Default)]
struct Tally {
    ok: BTreeMap<&'static str, u64>,
    /// Failures as (kind, phase, error).
    failed: Vec<(&'static str, String, String)>,
    /// Latency of each 3-round MRTR flow, by phase kind (steady or rollout).
    latency: BTreeMap<&'static str, Vec<Duration>>,
}

struct Load {
    tally: Mutex<Tally>,
    phase: Mutex<String>,
    stop: AtomicBool,
    flows: AtomicU64,
}

impl Load {
    fn phase(&self) -> String {
        self.phase.lock().unwrap().clone()
    }

    fn record(&self, kind: &'static str, started: Instant, outcome: Result<(), String>) {
        let phase = self.phase();
        let mut tally = self.tally.lock().unwrap();
        match outcome {
            Ok(()) => {
                *tally.ok.entry(kind).or_default() += 1;
                if kind == "2026 MRTR (3 rounds)" {
                    let when = if phase == "steady" {
                        "steady"
                    } else {
                        "rollout"
                    };
                    tally
                        .latency
                        .entry(when)
                        .or_default()
                        .push(started.elapsed());
                }
            }
            Err(e) => tally.failed.push((kind, phase, e)),
        }
        self.flows.fetch_add(1, Ordering::Relaxed);
    }
}

/// A form answer with a value for each field, from the field's name and type.
fn fill(schema: &Value) -> Value {
    let mut content = Map::new();
    if let Some(props) = schema["properties"].as_object() {
        for (name, field) in props {
            let value = match field["type"].as_str() {
                Some("boolean") => json!(true),
                Some("integer") | Some("number") => json!(1),
                _ if name.contains("email") => json!("ada@example.com"),
                _ if name.contains("color") => json!("teal"),
                _ => json!("Ada"),
            };
            content.insert(name.clone(), value);
        }
    }
    json!({"action": "accept", "content": content})
}

fn answering(client: Client) -> Client {
    let caps: ClientCapabilities = serde_json::from_value(json!({"elicitation": {}})).unwrap();
    client.with_input(
        caps,
        |_key: &str, req: InputRequest| -> oxmcp::BoxFuture<Result<Value, ClientError>> {
            Box::pin(async move {
                match req {
                    InputRequest::ElicitRequest(e) => match e.params {
                        ElicitRequestParams::ElicitRequestFormParams(form) => {
                            Ok(fill(&serde_json::to_value(&form.requested_schema).unwrap()))
                        }
                        _ => Err(ClientError::Unanswerable {
                            request: oxmcp::client::InputKind::Elicitation,
                        }),
                    },
                    other => Err(ClientError::unanswerable(&other)),
                }
            })
        },
    )
}

fn tasks_client(url: &str) -> Client {
    let caps: ClientCapabilities = serde_json::from_value(json!({
        "elicitation": {}, "extensions": {"io.modelcontextprotocol/tasks": {}}
    }))
    .unwrap();
    Client::http(url).with_input(caps, DeclineAll)
}

/// Poll `tasks/get` until the task is in one of `statuses` (a poll that fails is tried again:
/// the instance it reached may be going away).
async fn poll(client: &Client, task: &str, statuses: &[&str]) -> Result<Value, String> {
    let deadline = Instant::now() + Duration::from_secs(30);
    let mut last = String::new();
    while Instant::now() < deadline {
        match client.request("tasks/get", json!({"taskId": task})).await {
            Ok(got) if statuses.contains(&got["status"].as_str().unwrap_or("")) => return Ok(got),
            Ok(got) => last = got["status"].to_string(),
            Err(e) => last = e.to_string(),
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    Err(format!("task {task} stuck ({last})"))
}

async fn mrtr_flow(client: &Client) -> Result<(), String> {
    let result = client
        .call_tool("test_input_required_result_multi_round", json!({}))
        .await
        .map_err(|e| e.to_string())?;
    let text = mcp_tests::support::text(&result);
    if text == "Ada likes teal" {
        Ok(())
    } else {
        Err(format!("unexpected result: {text}"))
    }
}

/// Call `tool` as a task: its id.
async fn create_task(client: &Client, tool: &str, arguments: Value) -> Result<String, String> {
    let created = client
        .request("tools/call", json!({"name": tool, "arguments": arguments}))
        .await
        .map_err(|e| e.to_string())?;
    created["taskId"]
        .as_str()
        .map(str::to_string)
        .ok_or(format!("no task: {created}"))
}

async fn answered_task_flow(client: &Client, n: u64) -> Result<(), String> {
    let file = format!("f{n}.txt");
    let task = create_task(client, "confirm_delete", json!({"filename": file})).await?;
    let parked = poll(client, &task, &["input_required"]).await?;
    let key = parked["inputRequests"]
        .as_object()
        .and_then(|m| m.keys().next())
        .cloned()
        .ok_or("no input request")?;
    let answer = json!({"taskId": task,
        "inputResponses": {key: {"action": "accept", "content": {"confirm": true}}}});
    // An update that fails in transit is sent again: the task takes the first.
    let mut sent = Err(String::new());
    for _ in 0..3 {
        sent = client
            .request("tasks/update", answer.clone())
            .await
            .map_err(|e| e.to_string());
        if sent.is_ok() {
            break;
        }
    }
    sent?;
    let done = poll(client, &task, &["completed", "failed", "cancelled"]).await?;
    let text = done["result"]["content"][0]["text"].as_str().unwrap_or("");
    if text == format!("Deleted {file}") {
        Ok(())
    } else {
        Err(format!("task ended {done}"))
    }
}

async fn durable_task_flow(client: &Client, n: u64) -> Result<(), String> {
    let marker = format!("rollout-{}-{n}", std::process::id());
    let log = std::env::temp_dir().join(format!("mcp-durable-{marker}.log"));
    let arguments = json!({"marker": marker, "seconds": 0.5});
    let task = create_task(client, "durable_job", arguments).await?;
    let done = poll(client, &task, &["completed", "failed", "cancelled"]).await?;
    let runs = std::fs::read_to_string(&log)
        .unwrap_or_default()
        .lines()
        .count();
    let _ = std::fs::remove_file(&log);
    let text = done["result"]["content"][0]["text"].as_str().unwrap_or("");
    if done["status"] == "completed" && runs == 1 && text.contains("ran 1 time(s)") {
        Ok(())
    } else {
        Err(format!("step ran {runs} time(s): {done}"))
    }
}

async fn session_call(client: &Client) -> Result<(), String> {
    let result = client
        .call_tool("test_elicitation", json!({"message": "Who is asking?"}))
        .await
        .map_err(|e| e.to_string())?;
    let text = mcp_tests::support::text(&result);
    if text.contains("action=accept") && text.contains("ada@example.com") {
        Ok(())
    } else {
        Err(format!("unexpected result: {text}"))
    }
}

/// Run `flow` over and over until the load stops, recording each as `kind`.
fn repeat<F, Fut>(load: &Arc<Load>, kind: &'static str, flow: F) -> tokio::task::JoinHandle<()>
where
    F: Fn() -> Fut + Send + 'static,
    Fut: std::future::Future<Output = Result<(), String>> + Send,
{
    let load = load.clone();
    tokio::spawn(async move {
        while !load.stop.load(Ordering::Relaxed) {
            let started = Instant::now();
            let outcome = flow().await;
            load.record(kind, started, outcome);
        }
    })
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

/// How many whole rollouts the test runs, one after the other, each from fresh instances, a
/// fresh proxy and a fresh store (`MCP_ROLLOUT_RUNS`, default 3): a lost flow is rare enough
/// that one clean run proves little.
fn runs() -> u32 {
    std::env::var("MCP_ROLLOUT_RUNS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(3)
        .max(1)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rollouts_with_key_rotation_and_a_killed_instance_lose_nothing_run_after_run() {
    let runs = runs();
    for run in 1..=runs {
        eprintln!("rollout: run {run} of {runs}");
        rollout().await;
    }
}

/// One rollout under load, asserting that no flow failed.
async fn rollout() {
    let (redis, _redis) = redis();
    let ring = |text: &str| text.to_string();
    let (k1, k2) = (key("a1"), key("b2"));
    let first = ring(&format!("1:{k1}"));
    let mut instances: Vec<Instance> = (0..3)
        .map(|i| Instance::new(format!("mcp{}", i + 1), free_port(), &first, &redis))
        .collect();
    for instance in &instances {
        wait_for_port(instance.port);
    }
    let proxy_port = free_port();
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    let admin = Admin(
        std::env::temp_dir().join(format!("mcp-rollout-{}-haproxy.sock", std::process::id())),
    );
    let haproxy = Command::new("haproxy")
        .args(["-W", "-db", "-f"])
        .arg(root.join("deploy/haproxy.cfg"))
        .env("MCP_PROXY_BIND", format!("127.0.0.1:{proxy_port}"))
        .env("MCP_PROXY_ADMIN", &admin.0)
        .env("MCP_BACKEND_1", format!("127.0.0.1:{}", instances[0].port))
        .env("MCP_BACKEND_2", format!("127.0.0.1:{}", instances[1].port))
        .env("MCP_BACKEND_3", format!("127.0.0.1:{}", instances[2].port))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap_or_else(|e| panic!("haproxy is needed (Debian: apt-get install haproxy): {e}"));
    let _haproxy = ChildGuard(haproxy);
    wait_for_port(proxy_port);
    for instance in &instances {
        instance.ready().await;
    }
    let url = format!("http://127.0.0.1:{proxy_port}/mcp");

    let load = Arc::new(Load {
        tally: Mutex::new(Tally::default()),
        phase: Mutex::new("steady".into()),
        stop: AtomicBool::new(false),
        flows: AtomicU64::new(0),
    });
    let mut workers = Vec::new();
    for _ in 0..6 {
        // A request in flight on the killed instance is lost; it is sent again.
        let client = Arc::new(answering(
            Client::http(&url).era(Era::Stateless).resend_lost(2),
        ));
        workers.push(repeat(&load, "2026 MRTR (3 rounds)", move || {
            let client = client.clone();
            async move { mrtr_flow(&client).await }
        }));
    }
    for w in 0..2u64 {
        let (load, client) = (load.clone(), tasks_client(&url));
        workers.push(tokio::spawn(async move {
            let mut n = w * 1_000_000;
            while !load.stop.load(Ordering::Relaxed) {
                n += 1;
                let started = Instant::now();
                let outcome = if n % 2 == 0 {
                    answered_task_flow(&client, n).await
                } else {
                    durable_task_flow(&client, n).await
                };
                let kind = if n % 2 == 0 {
                    "task, input through tasks/update"
                } else {
                    "durable task (step once)"
                };
                load.record(kind, started, outcome);
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
        }));
    }
    for _ in 0..2 {
        let client = Arc::new(answering(
            Client::http(&url).era(Era::Session).resend_lost(2),
        ));
        workers.push(repeat(
            &load,
            "2025 session call (elicitation)",
            move || {
                let client = client.clone();
                async move { session_call(&client).await }
            },
        ));
    }

    let set_phase = |name: &str| {
        *load.phase.lock().unwrap() = name.to_string();
        eprintln!("rollout: {name}");
    };
    let began = Instant::now();
    tokio::time::sleep(Duration::from_secs(3)).await;
    let steady_flows = load.flows.load(Ordering::Relaxed);

    // New requests that reached an instance while it was not ready, over every graceful stop.
    let mut strays = Vec::new();
    set_phase("rolling restart");
    for instance in &mut instances {
        strays.push(instance.restart(&admin, &first, &redis).await);
    }
    // The rotation's three steps, each rolled out to every instance in turn.
    let staged = format!("1:{k1},+2:{k2}");
    let switched = format!("1:{k1},2:{k2}");
    let last = format!("2:{k2}");
    set_phase("rotation: new key staged");
    for instance in &mut instances {
        strays.push(instance.restart(&admin, &staged, &redis).await);
    }
    set_phase("rotation: new key seals");
    for instance in &mut instances {
        strays.push(instance.restart(&admin, &switched, &redis).await);
    }
    set_phase("rotation: old tokens expire");
    tokio::time::sleep(Duration::from_secs(STATE_TTL_SECS + 1)).await;
    set_phase("rotation: old key dropped");
    for instance in &mut instances {
        strays.push(instance.restart(&admin, &last, &redis).await);
    }
    set_phase("instance killed (SIGKILL)");
    if let Some(mut child) = instances[0].child.take() {
        child.kill().unwrap();
        child.wait().unwrap();
    }
    tokio::time::sleep(Duration::from_secs(2)).await;
    set_phase("killed instance back");
    instances[0].start(&last, &redis);
    instances[0].ready().await;
    tokio::time::sleep(Duration::from_secs(2)).await;
    load.stop.store(true, Ordering::Relaxed);
    for worker in workers {
        worker.await.unwrap();
    }
    let took = began.elapsed();

    let tally = load.tally.lock().unwrap();
    eprintln!(
        "rollout: {} s, {} flows ({} in the 3 s steady run)",
        took.as_secs(),
        load.flows.load(Ordering::Relaxed),
        steady_flows
    );
    for (kind, n) in &tally.ok {
        eprintln!("  ok     {n:>6}  {kind}");
    }
    let mut causes: BTreeMap<(&str, &str, String), u64> = BTreeMap::new();
    for (kind, phase, error) in &tally.failed {
        *causes
            .entry((kind, phase.as_str(), error.clone()))
            .or_default() += 1;
    }
    for ((kind, phase, error), n) in &causes {
        eprintln!("  failed {n:>6}  {kind} during {phase}: {error}");
    }
    for (when, latencies) in &tally.latency {
        let mut sorted = latencies.clone();
        sorted.sort();
        eprintln!(
            "  2026 MRTR flow latency, {when}: p50 {:?}, p99 {:?}, max {:?} ({} flows)",
            percentile(&sorted, 0.5),
            percentile(&sorted, 0.99),
            sorted.last().copied().unwrap_or_default(),
            sorted.len()
        );
    }

    for kind in [
        "2026 MRTR (3 rounds)",
        "task, input through tasks/update",
        "durable task (step once)",
        "2025 session call (elicitation)",
    ] {
        assert!(
            tally.ok.get(kind).copied().unwrap_or(0) > 0,
            "no {kind} flow finished"
        );
    }
    // Nothing fails, not even what was in flight on the instance at the moment it was killed:
    // the clients send a request whose reply was lost again.
    assert!(tally.failed.is_empty(), "flows failed: {:?}", tally.failed);
    // Taken out of rotation before it stopped, no instance got new work while not ready.
    eprintln!(
        "  new requests that reached an instance while not ready, per graceful stop: {strays:?}"
    );
    assert_eq!(strays.len(), 12, "every graceful stop reported");
    assert!(
        strays.iter().all(|&n| n == 0),
        "the proxy routed new requests to a draining instance: {strays:?}"
    );
}
