//! End-to-end load over streamable HTTP on 127.0.0.1: this project's server and equivalent
//! servers on rmcp 3.11 and on rust-mcp-sdk 2.0 (built on rust-mcp-schema 2.0), each in its own
//! process, measured in turn in one invocation.
//!
//! `cargo run --release -p mcp-benches --example load -- [--seconds S] [--reps N]
//! [--generator-threads T]` prints the Markdown tables that `benches/run.sh` puts into
//! BENCHMARKS.md: every scenario runs N times for S seconds per server (defaults 16 and 0.125),
//! the servers taking turns, so a stall of the shared machine falls on all of them alike. The
//! generator runs on T threads (default 2; 1 is a single-threaded runtime, one client thread as
//! a separate load generator would have). `load serve NAME` is the server side (it prints
//! `PORT <n>` once listening); the generator starts every server itself: this project's bench
//! server (`ours`), its conformance fixture server (`fixture`, end-to-end table only: it has no
//! `bench_rounds`), rmcp's and rust-mcp-sdk's.
//! `load legacy [--flow plain|session] [--concurrency C] [--seconds S] [--reps N]` measures the 2025-era flows
//! instead (a plain call in a session held open; a whole session whose call's elicitation is a
//! real request to the client) against rmcp's session mode, and `load tasks` the task flows over
//! HTTP against rmcp's `TaskManager`, with ours keeping its tasks in memory and in Redis. `taskset -c 0 load one-cpu [--seconds S] [--reps N]` measures concurrency 1
//! with the generator and the servers on one CPU, where no flow waits for a CPU to wake, and
//! `load halting` concurrency 1, 8 and 32 on two CPUs with the host's idle states. `load metrics` measures
//! the cost of the `metrics` feature: the bench server with and without `ServerBuilder::metrics`
//! (`ours-metrics`), the three flows at concurrency 1, 8 and 32, taking turns. `--poll-idle` makes
//! idle CPUs poll instead of halting while the invocation runs (see `idle`); `benches/run.sh`
//! gives it to the main tables. `LOAD_SERVER_CPUS=<list>` moves every server process onto
//! those CPUs once it listens (`taskset -a -p`); with the generator under `taskset -c` on
//! another, no server shares a CPU with the load it is measured by.

mod floor;
mod generator;
mod idle;
mod legacy_flow;
mod ours;
mod rmcp_legacy;
mod rmcp_peer;
mod rmsdk_peer;
mod task_flow;

use std::process::Stdio;
use std::sync::Arc;
use std::time::Duration;

use generator::{quantile, Flow, Outcome};
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{Child, Command};
use tokio::sync::Mutex;

/// One server process under test.
struct Target {
    name: &'static str,
    child: Child,
    /// The generator's connections to this server, kept for the whole invocation.
    conns: std::sync::Arc<generator::Conns>,
}

impl Target {
    async fn start(name: &'static str) -> Result<Self, String> {
        Self::start_with(name, &[]).await
    }

    /// [`Target::start`] with these environment variables set for the server.
    async fn start_with(name: &'static str, env: &[(&str, &str)]) -> Result<Self, String> {
        // A/B runs: the fixture's slot may hold another build's bench server instead.
        let (exe, served) = match (name, baseline()) {
            ("fixture", Some(other)) => (other, "ours"),
            _ => (std::env::current_exe().map_err(|e| e.to_string())?, name),
        };
        Self::start_exe(name, exe, served, env).await
    }

    /// The bench server `served` of the build at `exe`, known as `name` in the tables.
    async fn start_exe(
        name: &'static str,
        exe: std::path::PathBuf,
        served: &str,
        env: &[(&str, &str)],
    ) -> Result<Self, String> {
        let mut child = Command::new(exe)
            .args(["serve", served])
            .envs(env.iter().copied())
            .stdout(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .map_err(|e| format!("start {name}: {e}"))?;
        let stdout = child.stdout.take().ok_or("no stdout")?;
        let mut line = String::new();
        BufReader::new(stdout)
            .read_line(&mut line)
            .await
            .map_err(|e| e.to_string())?;
        let port = line
            .trim()
            .strip_prefix("PORT ")
            .ok_or_else(|| format!("{name} server said {line:?}"))?;
        if let Ok(cpus) = std::env::var("LOAD_SERVER_CPUS") {
            let pid = child.id().unwrap_or(0).to_string();
            let moved = std::process::Command::new("taskset")
                .args(["-a", "-p", "-c", &cpus, &pid])
                .stdout(Stdio::null())
                .status()
                .map_err(|e| format!("taskset: {e}"))?;
            if !moved.success() {
                return Err(format!("taskset could not move {name} to CPUs {cpus}"));
            }
        }
        let url = format!("http://127.0.0.1:{port}/mcp");
        Ok(Target {
            name,
            conns: generator::Conns::new(&url)?,
            child,
        })
    }

    fn pid(&self) -> u32 {
        self.child.id().unwrap_or(0)
    }

    /// User + system CPU time of the server process, in microseconds.
    fn cpu_us(&self) -> u64 {
        process_cpu_us(&self.pid().to_string())
    }

    /// (VmRSS, VmHWM) in KiB.
    fn rss_kib(&self) -> (u64, u64) {
        let status =
            std::fs::read_to_string(format!("/proc/{}/status", self.pid())).unwrap_or_default();
        let field = |name: &str| {
            status
                .lines()
                .find_map(|l| l.strip_prefix(name))
                .and_then(|v| v.split_whitespace().next())
                .and_then(|v| v.parse().ok())
                .unwrap_or(0)
        };
        (field("VmRSS:"), field("VmHWM:"))
    }
}

/// User + system CPU time of process `pid` (`self` for this one), in microseconds.
fn process_cpu_us(pid: &str) -> u64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    // Fields after the parenthesised command name; utime and stime are fields 14 and 15.
    let rest = stat.rsplit_once(')').map(|(_, r)| r).unwrap_or("");
    let f: Vec<&str> = rest.split_whitespace().collect();
    let ticks: u64 = f.get(11).and_then(|v| v.parse().ok()).unwrap_or(0)
        + f.get(12).and_then(|v| v.parse().ok()).unwrap_or(0);
    ticks * 1_000_000 / clock_ticks()
}

/// The kernel's clock ticks per second, asked once (a process start inside a timed window
/// would cost the generator's own CPU figure).
fn clock_ticks() -> u64 {
    static TICKS: std::sync::OnceLock<u64> = std::sync::OnceLock::new();
    *TICKS.get_or_init(|| {
        std::process::Command::new("getconf")
            .arg("CLK_TCK")
            .output()
            .ok()
            .and_then(|o| String::from_utf8(o.stdout).ok())
            .and_then(|s| s.trim().parse().ok())
            .unwrap_or(100)
    })
}

/// Several runs of one scenario against one server, merged.
#[derive(Default)]
struct Merged {
    rates: Vec<f64>,
    latencies: Vec<u32>,
    errors: u64,
    flows: u64,
    requests: u64,
    all_requests: u64,
    cpu_us: u64,
    /// The load generator's own CPU time over the same windows (counted by `measure_slots`: the
    /// 2025-era and task flows; the 2025-era table shows it).
    generator_cpu_us: u64,
    first_error: Option<String>,
    /// Flows of the untimed warm-ups before each run (counted as served, not measured).
    warm_up_flows: u64,
}

impl Merged {
    fn add(&mut self, o: Outcome, cpu_us: u64) {
        self.rates.push(o.flows as f64 / o.elapsed.as_secs_f64());
        self.latencies.extend(o.latencies_us);
        self.errors += o.errors;
        self.flows += o.flows;
        self.requests += o.requests;
        self.all_requests += o.all_requests;
        self.cpu_us += cpu_us;
        if self.first_error.is_none() {
            self.first_error = o.first_error;
        }
    }

    fn rate(&self) -> f64 {
        mcp_benches::median(self.rates.clone())
    }

    fn ms(&self, q: f64) -> f64 {
        let mut l = self.latencies.clone();
        l.sort_unstable();
        quantile(&l, q) as f64 / 1000.0
    }

    fn cpu_per(&self, n: u64) -> f64 {
        self.cpu_us as f64 / n.max(1) as f64
    }

    /// The generator's own CPU per flow, counted as the server's is: over every completed
    /// request, times requests per flow.
    fn generator_per_flow(&self) -> f64 {
        self.generator_cpu_us as f64 / self.all_requests.max(1) as f64 * self.requests as f64
            / self.flows.max(1) as f64
    }
}

/// The untimed run of the same flow on the same server before every timed one. Measured
/// without it, a server timed right after a peer ran slower at concurrency 1 than one timed
/// after this project's other server (the same code in both slots, and either server in the
/// slow slot when the rotation was reversed): what the previous server leaves behind reaches
/// into the next slice.
const SLICE_WARM_UP: Duration = Duration::from_millis(20);

/// Which of `n` servers goes `k`th in repetition `rep`: who goes first rotates each repetition,
/// and the cycle is reversed every other one, so each server follows each of its two
/// neighbours in the cycle equally often.
fn turn(rep: usize, k: usize, n: usize) -> usize {
    if rep.is_multiple_of(2) {
        (k + rep) % n
    } else {
        (n - 1 - k + rep) % n
    }
}

/// 0.3 s of `flow` from `conc` workers against `t` (connections, allocator, lazy statics), which
/// must complete flows without an error: every server does the same job before it is timed.
async fn warm_up(t: &Target, flow: &Flow, conc: usize) -> Result<(), String> {
    let o = generator::run(&t.conns, flow, conc, Duration::from_millis(300)).await;
    if o.flows == 0 || o.errors > 0 {
        return Err(format!(
            "{} server failed the {} warm-up: {}",
            t.name,
            flow.label,
            o.first_error.unwrap_or_default()
        ));
    }
    Ok(())
}

async fn measure(t: &Target, flow: &Flow, conc: usize, d: Duration, into: &mut Merged) {
    let warm = generator::run(&t.conns, flow, conc, SLICE_WARM_UP).await;
    into.warm_up_flows += warm.flows;
    let before = t.cpu_us();
    let o = generator::run(&t.conns, flow, conc, d).await;
    into.add(o, t.cpu_us().saturating_sub(before));
}

async fn measure_open(t: &Target, flow: &Flow, rate: f64, d: Duration, into: &mut Merged) {
    let warm = generator::run(&t.conns, flow, 1, SLICE_WARM_UP).await;
    into.warm_up_flows += warm.flows;
    let before = t.cpu_us();
    let o = generator::run_open(&t.conns, flow, rate, d).await;
    into.add(o, t.cpu_us().saturating_sub(before));
}

/// `LOAD_FIXTURE_EXE`: a `load` binary of another build (another commit) whose bench server
/// (`serve ours`) takes the fixture's place in the main tables (and is a third side of `legacy`,
/// in a table of its own), so that two builds are compared with each other and with the peers in
/// one run.
fn baseline() -> Option<std::path::PathBuf> {
    std::env::var_os("LOAD_FIXTURE_EXE").map(Into::into)
}

fn main() -> std::process::ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("serve") {
        // Each server in its best configuration on this host, which it shares with the
        // generator: this project's two servers sized as the README advises there ("Sizing the
        // runtime": a worker fewer than the cores, as the fixture binary ships), the peers on
        // tokio's default (a worker per core), which measured faster for them than one worker
        // (BENCHMARKS.md, "What the numbers say", Workers). LOAD_SERVER_THREADS=N overrides it for every server.
        let which = args.get(1).map(String::as_str);
        let threads = match std::env::var("LOAD_SERVER_THREADS")
            .ok()
            .and_then(|t| t.parse::<usize>().ok())
        {
            Some(n) => Some(n),
            None if matches!(
                which,
                Some("fixture" | "ours" | "ours-metrics" | "ours-redis")
            ) =>
            {
                Some(mcp_tests::fixture_threads())
            }
            None => None,
        };
        let runtime = match threads {
            Some(n) => tokio::runtime::Builder::new_multi_thread()
                .worker_threads(n.max(1))
                .enable_all()
                .build(),
            None => tokio::runtime::Runtime::new(),
        };
        return match runtime {
            Ok(rt) => rt.block_on(serve(args.get(1).map(String::as_str))),
            Err(e) => {
                eprintln!("runtime: {e}");
                std::process::ExitCode::FAILURE
            }
        };
    }
    // The mode, when the first argument names one; the main tables otherwise.
    let mode = args.first().map(String::as_str).filter(|m| {
        [
            "legacy", "tasks", "probe", "one-cpu", "halting", "metrics", "otel",
        ]
        .contains(m)
    });
    let (probe, halting) = (mode == Some("probe"), mode == Some("halting"));
    let mut poll_idle = false;
    let mut seconds = 0.125f64;
    let mut reps = 16usize;
    let mut threads = 2usize;
    let mut server = "ours".to_string();
    let mut flow = String::new();
    let mut concurrency = 0usize;
    let mut it = args.iter().skip(usize::from(mode.is_some()));
    while let Some(a) = it.next() {
        if a == "--poll-idle" && !halting {
            poll_idle = true;
            continue;
        }
        let legacy = mode == Some("legacy");
        if (probe && a == "--server") || ((probe || legacy) && a == "--flow") {
            let Some(v) = it.next() else { break };
            if a == "--server" {
                server = v.clone();
            } else {
                flow = v.clone();
            }
            continue;
        }
        let v = it.next().and_then(|v| v.parse::<f64>().ok());
        match (a.as_str(), v) {
            ("--seconds", Some(v)) if v > 0.0 => seconds = v,
            ("--reps", Some(v)) if v >= 1.0 => reps = v as usize,
            ("--generator-threads", Some(v)) if v >= 1.0 => threads = v as usize,
            ("--concurrency", Some(v)) if (probe || legacy) && v >= 1.0 => concurrency = v as usize,
            _ => {
                eprintln!(
                    "usage: load [legacy [--flow plain|session] [--concurrency C]|tasks|one-cpu|halting] [--seconds S] [--reps N] [--generator-threads T] [--poll-idle] | load probe [--server NAME] [--flow plain|elicitation|multi] [--concurrency C] [--seconds S] [--reps N] [--generator-threads T] [--poll-idle] | load serve {}|rmcp-legacy\n(--poll-idle: idle CPUs poll instead of halting while it runs; not with halting)",
                    SERVERS.join("|")
                );
                return std::process::ExitCode::from(2);
            }
        }
    }
    let runtime = if threads == 1 {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
    } else {
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(threads)
            .enable_all()
            .build()
    };
    let runtime = match runtime {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("runtime: {e}");
            return std::process::ExitCode::FAILURE;
        }
    };
    if let Some(other) = baseline() {
        println!(
            "(the \"fixture\" columns are `{} serve ours`, from LOAD_FIXTURE_EXE)\n",
            other.display()
        );
    }
    // Held until the process ends: every server started below is measured with it.
    let held = if poll_idle {
        match idle::PollIdle::hold() {
            Ok(h) => Some(h),
            Err(e) => {
                eprintln!("load: --poll-idle: {e}");
                return std::process::ExitCode::FAILURE;
            }
        }
    } else {
        None
    };
    let d = Duration::from_secs_f64(seconds);
    let outcome = match mode {
        Some("probe") => {
            let flow = if flow.is_empty() { "multi" } else { &flow };
            runtime.block_on(run_probe(
                &server,
                flow,
                if concurrency == 0 { 8 } else { concurrency },
                d,
                reps,
            ))
        }
        Some("legacy") => runtime.block_on(run_legacy(&flow, concurrency, d, reps)),
        Some("tasks") => runtime.block_on(run_tasks(d, reps)),
        Some("one-cpu") => runtime.block_on(run_c1(C1::OneCpu, d, reps)),
        Some("halting") => runtime.block_on(run_c1(C1::Halting, d, reps)),
        Some("metrics") => runtime.block_on(run_metrics(d, reps)),
        Some("otel") => runtime.block_on(run_otel(d, reps)),
        _ => runtime.block_on(run(d, reps, held.is_some())),
    };
    drop(held);
    match outcome {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("load: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}

async fn serve(which: Option<&str>) -> std::process::ExitCode {
    let listener = match tokio::net::TcpListener::bind("127.0.0.1:0").await {
        Ok(l) => l,
        Err(e) => {
            eprintln!("bind: {e}");
            return std::process::ExitCode::FAILURE;
        }
    };
    let port = listener.local_addr().map(|a| a.port()).unwrap_or(0);
    println!("PORT {port}");
    let result = match which {
        Some("ours") => ours::serve(listener, false).await,
        Some("ours-metrics") => ours::serve(listener, true).await,
        Some("ours-redis") => match std::env::var("MCP_LOAD_REDIS_URL") {
            Ok(url) => ours::serve_redis(listener, &url).await,
            Err(_) => Err(std::io::Error::other("MCP_LOAD_REDIS_URL is not set")),
        },
        Some("fixture") => ours::serve_fixture(listener).await,
        Some("floor") => floor::serve(listener).await,
        Some("otlp-sink") => floor::serve_sink(listener).await,
        Some("rmcp") => rmcp_peer::serve(listener).await,
        Some("rust-mcp-sdk") => rmsdk_peer::serve(listener).await,
        Some("rmcp-legacy") => rmcp_legacy::serve(listener).await,
        _ => {
            eprintln!("usage: load serve {}", SERVERS.join("|"));
            return std::process::ExitCode::from(2);
        }
    };
    match result {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("serve: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}

/// The servers under test; this project's two first (the bench server, then the conformance
/// fixture server), then the peers.
const SERVERS: [&str; 4] = ["ours", "fixture", "rmcp", "rust-mcp-sdk"];
/// The servers of the replay and open-loop tables (the fixture server has no `bench_rounds`).
const MAIN: [usize; 3] = [0, 2, 3];
/// How many servers are measured side by side.
const N: usize = SERVERS.len();

/// The servers' CPU time per HTTP request (every completed request), one cell each, for the
/// servers `of`.
fn cpu_cells(ms: &[Merged; N], of: &[usize]) -> String {
    of.iter()
        .map(|&s| format!("{:.0}", ms[s].cpu_per(ms[s].all_requests)))
        .collect::<Vec<_>>()
        .join(" | ")
}

/// The failed flows of the servers `of`, in one cell.
fn error_cell(ms: &[Merged; N], of: &[usize]) -> String {
    of.iter()
        .map(|&s| ms[s].errors.to_string())
        .collect::<Vec<_>>()
        .join(" / ")
}

/// p50 / p99 / p99.9 of a flow's latency in ms, as a table cell.
fn tail_cell(m: &Merged) -> String {
    format!("{:.2} / {:.2} / {:.2}", m.ms(0.5), m.ms(0.99), m.ms(0.999))
}

/// The first error of each measurement that had one, on stderr (the tables count them).
fn report_first_errors<'a>(measured: impl IntoIterator<Item = &'a Merged>) {
    for m in measured {
        if let Some(e) = &m.first_error {
            eprintln!("first error: {e}");
        }
    }
}

/// `a / b`, as a table cell.
fn ratio(a: f64, b: f64) -> String {
    format!("{:.2}", a / b.max(1e-9))
}

/// The end-to-end, floor, open-loop, replay and memory tables; `poll_idle` says whether idle
/// CPUs poll (`--poll-idle`) for the heading.
async fn run(d: Duration, reps: usize, poll_idle: bool) -> Result<(), String> {
    let mut targets = Vec::new();
    for name in SERVERS {
        targets.push(Target::start(name).await?);
    }
    // The floor (canned bytes, no MCP work), measured on every flow beside the servers.
    let floor = Target::start("floor").await?;
    for flow in [Flow::plain(), Flow::elicitation(), Flow::multi_round()] {
        warm_up(&floor, &flow, 32).await?;
    }
    // Warm up every server (connections, allocator, lazy statics) and check they do the same job.
    for (s, t) in targets.iter().enumerate() {
        let mut flows = vec![Flow::plain(), Flow::elicitation(), Flow::multi_round()];
        if MAIN.contains(&s) {
            flows.push(Flow::rounds(3));
        }
        for flow in flows {
            warm_up(t, &flow, 32).await?;
        }
    }
    let rss_start: Vec<(u64, u64)> = targets.iter().map(Target::rss_kib).collect();

    let e2e: Vec<(Flow, usize)> = [Flow::plain(), Flow::elicitation(), Flow::multi_round()]
        .into_iter()
        .flat_map(|f| [1usize, 8, 32].map(|c| (f.clone(), c)))
        .collect();
    let replay: Vec<Flow> = [1, 2, 5, 10].map(Flow::rounds).to_vec();
    // Offered loads every server sustains (under a third of the slowest one's closed-loop
    // throughput at concurrency 32), so latencies compare at equal work.
    let open: Vec<(Flow, f64)> = vec![
        (Flow::plain(), 3000.0),
        (Flow::elicitation(), 1500.0),
        (Flow::multi_round(), 900.0),
    ];
    let mut open_results: Vec<[Merged; N]> = open.iter().map(|_| Default::default()).collect();
    let mut e2e_results: Vec<[Merged; N]> = e2e.iter().map(|_| Default::default()).collect();
    let mut replay_results: Vec<[Merged; N]> = replay.iter().map(|_| Default::default()).collect();
    let mut rss_after_run: [Vec<u64>; N] = Default::default();
    let mut floor_results: Vec<Merged> = e2e.iter().map(|_| Merged::default()).collect();
    for rep in 0..reps {
        let order: [usize; N] = std::array::from_fn(|i| turn(rep, i, N));
        let main_order: Vec<usize> = order.iter().copied().filter(|s| MAIN.contains(s)).collect();
        for (i, (flow, conc)) in e2e.iter().enumerate() {
            for &s in &order {
                measure(&targets[s], flow, *conc, d, &mut e2e_results[i][s]).await;
                rss_after_run[s].push(targets[s].rss_kib().0);
            }
            measure(&floor, flow, *conc, d, &mut floor_results[i]).await;
        }
        for (i, flow) in replay.iter().enumerate() {
            for &s in &main_order {
                measure(&targets[s], flow, 1, d, &mut replay_results[i][s]).await;
            }
        }
        for (i, (flow, rate)) in open.iter().enumerate() {
            for &s in &main_order {
                measure_open(&targets[s], flow, *rate, d, &mut open_results[i][s]).await;
            }
        }
    }

    let all: Vec<usize> = (0..N).collect();
    let idle = if poll_idle {
        "idle CPUs poll instead of halting for the whole run (`--poll-idle` holds the kernel's CPU latency request at 0, as benchmark tuning tools do), so a server is not timed waiting for the hypervisor to wake a CPU; "
    } else {
        "idle CPUs as the host has them; "
    };
    println!("#### End to end over streamable HTTP ({idle}flows/s: median of {reps} runs of {:.3} s, each after an untimed 0.02-s run of the same flow on the same server, servers taking turns in a cycle reversed every other repetition; latency of a whole flow over all runs; CPU = server user+system time per HTTP request, summed over all runs because /proc counts it in 10-ms ticks; \"ours\" is the bench server, \"fixture\" the conformance fixture server (`mcp_tests::conformance::server`); rms = rust-mcp-sdk)\n", d.as_secs_f64());
    println!("| flow | concurrency | ours flows/s | fixture flows/s | rmcp flows/s | ratio ours/rmcp | ratio fixture/rmcp | rust-mcp-sdk flows/s | ratio ours/rms | ours p50 / p99 / p99.9 ms | fixture p50 / p99 / p99.9 ms | rmcp p50 / p99 / p99.9 ms | rust-mcp-sdk p50 / p99 / p99.9 ms | CPU µs/req ours / fixture / rmcp / rms | errors ours / fixture / rmcp / rms |");
    println!("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|");
    for ((flow, conc), ms) in e2e.iter().zip(&e2e_results) {
        let [o, f, r, k] = ms;
        println!(
            "| {} | {} | {:.0} | {:.0} | {:.0} | {} | {} | {:.0} | {} | {} | {} | {} | {} | {} | {} |",
            flow.label,
            conc,
            o.rate(),
            f.rate(),
            r.rate(),
            ratio(o.rate(), r.rate()),
            ratio(f.rate(), r.rate()),
            k.rate(),
            ratio(o.rate(), k.rate()),
            tail_cell(o),
            tail_cell(f),
            tail_cell(r),
            tail_cell(k),
            cpu_cells(ms, &all).replace(" | ", " / "),
            error_cell(ms, &all)
        );
    }
    println!("\n#### The floors: every flow against an HTTP server that answers it with canned bytes and does no MCP work (the plain call's result; `input_required` with a form and a `requestState` of the size ours seals, then the next form or the result by the state's round; `benches/examples/load/floor.rs`), measured in the same rotation. No server can beat its floor, so the floor bounds every ratio: at concurrency 1 the generator and the loopback round trip are most of a flow\n");
    println!("| flow | concurrency | floor flows/s | floor p50 / p99 / p99.9 ms | ours / floor flows/s | fixture / floor | rmcp / floor | rust-mcp-sdk / floor | highest ratio to rmcp any server could show (floor / rmcp) | CPU µs/req floor / ours |");
    println!("|---|---|---|---|---|---|---|---|---|---|");
    for (((flow, conc), ms), fl) in e2e.iter().zip(&e2e_results).zip(&floor_results) {
        let [o, f, r, k] = ms;
        println!(
            "| {} | {} | {:.0} | {} | {} | {} | {} | {} | {} | {:.1} / {:.1} |",
            flow.label,
            conc,
            fl.rate(),
            tail_cell(fl),
            ratio(o.rate(), fl.rate()),
            ratio(f.rate(), fl.rate()),
            ratio(r.rate(), fl.rate()),
            ratio(k.rate(), fl.rate()),
            ratio(fl.rate(), r.rate()),
            fl.cpu_per(fl.all_requests),
            o.cpu_per(o.all_requests)
        );
    }
    println!("\n#### Latency at a fixed offered load (open loop: flows start on schedule whether or not earlier ones finished; {reps} runs of {:.3} s per server; latency of a whole flow from its start)\n", d.as_secs_f64());
    println!("| flow | offered flows/s | ours p50 / p99 / p99.9 ms | rmcp p50 / p99 / p99.9 ms | rust-mcp-sdk p50 / p99 / p99.9 ms | p99 ratio rmcp/ours | p99 ratio rms/ours | ours CPU µs/req | rmcp CPU µs/req | rust-mcp-sdk CPU µs/req | errors ours / rmcp / rms |");
    println!("|---|---|---|---|---|---|---|---|---|---|---|");
    for ((flow, rate), ms) in open.iter().zip(&open_results) {
        let [o, _, r, k] = ms;
        println!(
            "| {} | {:.0} | {} | {} | {} | {} | {} | {} | {} |",
            flow.label,
            rate,
            tail_cell(o),
            tail_cell(r),
            tail_cell(k),
            ratio(r.ms(0.99), o.ms(0.99)),
            ratio(k.ms(0.99), o.ms(0.99)),
            cpu_cells(ms, &MAIN),
            error_cell(ms, &MAIN)
        );
    }
    println!("\n#### Replay cost (`bench_rounds`: N questions, N + 1 requests per flow, concurrency 1; server CPU per complete flow, summed over all runs; flows/s: median of the runs)\n");
    println!("| input rounds | ours CPU µs/flow | rmcp CPU µs/flow | ratio rmcp/ours | rust-mcp-sdk CPU µs/flow | ratio rms/ours | flows/s ours / rmcp / rms | errors ours / rmcp / rms |");
    println!("|---|---|---|---|---|---|---|---|");
    for (flow, ms) in replay.iter().zip(&replay_results) {
        let [o, _, r, k] = ms;
        // CPU per request over every completed request, times requests per flow.
        let per_flow =
            |m: &Merged| m.cpu_per(m.all_requests) * m.requests as f64 / m.flows.max(1) as f64;
        let (oc, rc, kc) = (per_flow(o), per_flow(r), per_flow(k));
        println!(
            "| {} | {:.0} | {:.0} | {} | {:.0} | {} | {:.0} / {:.0} / {:.0} | {} |",
            flow.label.split(' ').next().unwrap_or(""),
            oc,
            rc,
            ratio(rc, oc),
            kc,
            ratio(kc, oc),
            o.rate(),
            r.rate(),
            k.rate(),
            error_cell(ms, &MAIN)
        );
    }
    println!("\n#### Server memory (KiB; RSS after warm-up, median and highest RSS seen after each end-to-end run, RSS at the end, peak RSS of the process; ratio = the server's peak / ours; the fixture server runs the end-to-end table only)\n");
    println!(
        "| server | flows served | RSS after warm-up | median after a run | highest after a run | at the end | peak | ratio peak/ours |"
    );
    println!("|---|---|---|---|---|---|---|---|");
    let rss_end: Vec<(u64, u64)> = targets.iter().map(Target::rss_kib).collect();
    for (s, t) in targets.iter().enumerate() {
        let served: u64 = e2e_results
            .iter()
            .chain(&replay_results)
            .chain(&open_results)
            .map(|m| m[s].flows + m[s].warm_up_flows)
            .sum();
        let (now, peak) = rss_end[s];
        let after = &rss_after_run[s];
        println!(
            "| {} | {} | {} | {:.0} | {} | {} | {} | {} |",
            t.name,
            served,
            rss_start[s].0,
            mcp_benches::median(after.iter().map(|&k| k as f64).collect()),
            after.iter().max().copied().unwrap_or(0),
            now,
            peak,
            ratio(peak as f64, rss_end[0].1 as f64)
        );
    }
    report_first_errors(
        e2e_results
            .iter()
            .flatten()
            .chain(replay_results.iter().flatten())
            .chain(open_results.iter().flatten()),
    );
    Ok(())
}

/// Where `run_c1` measures: concurrency 1 on one CPU, or concurrency 1, 8 and 32 with the
/// host's idle states.
#[derive(Clone, Copy)]
enum C1 {
    /// The generator and every server on one CPU (the process must run under `taskset -c 0`;
    /// the servers it starts inherit that). On two CPUs a flow at concurrency 1 mostly waits for
    /// one CPU to wake the other (the floor's CPU per request is four times what it is on one
    /// CPU); on one, the wake-up is a context switch, so the table shows each server's own work.
    OneCpu,
    /// Two or more CPUs whose idle states are the host's (nothing holds a CPU latency of 0):
    /// every request wakes the server's CPU and then the generator's, which on a VM whose idle
    /// vCPUs halt goes through the hypervisor.
    Halting,
}

/// The three flows at concurrency 1 where `mode` says, against both of this project's servers,
/// rmcp and (the plain call only) the floor, taking turns as in [`run`].
async fn run_c1(mode: C1, d: Duration, reps: usize) -> Result<(), String> {
    let cpus = std::thread::available_parallelism().map_or(0, |n| n.get());
    let heading = match mode {
        C1::OneCpu if cpus != 1 => {
            return Err(format!(
                "one-cpu needs the process on one CPU (it may use {cpus}): run it as `taskset -c 0 load one-cpu`"
            ))
        }
        C1::OneCpu => "on one CPU (`taskset -c 0 load one-cpu`: the generator and the server share CPU 0".to_string(),
        C1::Halting if cpus < 2 => {
            return Err(format!("halting needs two CPUs or more (it may use {cpus})"))
        }
        C1::Halting => {
            let target = match idle::latency_target() {
                Ok(0) => {
                    return Err(
                        "halting measures idle CPUs as the host has them, but something holds the CPU latency request at 0".into(),
                    )
                }
                Ok(t) => format!("{t} µs"),
                Err(_) => "unreadable".into(),
            };
            format!("on {cpus} CPUs with the host's idle states (`load halting`: nothing holds the CPU latency request, whose target is {target}; where an idle CPU halts (the machine line above says how long this host's vCPUs poll first), every request waits for the server's CPU and then the generator's to wake")
        }
    };
    // ours, fixture, rmcp, then the floor (canned bytes for every flow).
    let names = ["ours", "fixture", "rmcp", "floor"];
    let mut targets = Vec::new();
    for name in names {
        targets.push(Target::start(name).await?);
    }
    let flows = [Flow::plain(), Flow::elicitation(), Flow::multi_round()];
    let floor_too = |_: &Flow| true;
    // How many of the targets serve `flow`: all of them, the floor last.
    let serving = |flow: &Flow| names.len() - usize::from(!floor_too(flow));
    for flow in &flows {
        for t in &targets[..serving(flow)] {
            warm_up(t, flow, 8).await?;
        }
    }
    // With the host's idle states, the flows at concurrency 8 and 32 too: how the servers do
    // when nothing keeps a CPU awake for them.
    let concurrency: &[usize] = match mode {
        C1::OneCpu => &[1],
        C1::Halting => &[1, 8, 32],
    };
    let cells: Vec<(&Flow, usize)> = flows
        .iter()
        .flat_map(|f| concurrency.iter().map(move |c| (f, *c)))
        .collect();
    let mut results: Vec<[Merged; 4]> = cells.iter().map(|_| Default::default()).collect();
    for rep in 0..reps {
        for (i, (flow, conc)) in cells.iter().enumerate() {
            let n = serving(flow);
            for k in 0..n {
                let s = turn(rep, k, n);
                measure(&targets[s], flow, *conc, d, &mut results[i][s]).await;
            }
        }
    }
    let levels = concurrency
        .iter()
        .map(usize::to_string)
        .collect::<Vec<_>>()
        .join(", ");
    println!("#### Concurrency {levels} {heading}; flows/s: median of {reps} runs of {:.3} s, servers taking turns; latency of a whole flow over all runs; CPU = server user+system time per HTTP request; the floor answers every flow with canned bytes and no MCP work)\n", d.as_secs_f64());
    println!("| flow | concurrency | ours flows/s | fixture flows/s | rmcp flows/s | floor flows/s | ratio ours/rmcp | ratio fixture/rmcp | ours p50 / p99 / p99.9 ms | fixture p50 / p99 / p99.9 ms | rmcp p50 / p99 / p99.9 ms | CPU µs/req ours / fixture / rmcp / floor | errors ours / fixture / rmcp |");
    println!("|---|---|---|---|---|---|---|---|---|---|---|---|---|");
    for ((flow, conc), [o, f, r, fl]) in cells.iter().zip(&results) {
        let (floor_rate, floor_cpu) = if floor_too(flow) {
            (
                format!("{:.0}", fl.rate()),
                format!(" / {:.0}", fl.cpu_per(fl.all_requests)),
            )
        } else {
            (String::new(), String::new())
        };
        println!(
            "| {} | {} | {:.0} | {:.0} | {:.0} | {} | {} | {} | {} | {} | {} | {:.0} / {:.0} / {:.0}{} | {} / {} / {} |",
            flow.label,
            conc,
            o.rate(),
            f.rate(),
            r.rate(),
            floor_rate,
            ratio(o.rate(), r.rate()),
            ratio(f.rate(), r.rate()),
            tail_cell(o),
            tail_cell(f),
            tail_cell(r),
            o.cpu_per(o.all_requests),
            f.cpu_per(f.all_requests),
            r.cpu_per(r.all_requests),
            floor_cpu,
            o.errors,
            f.errors,
            r.errors
        );
    }
    report_first_errors(results.iter().flatten());
    Ok(())
}

/// The bench server without and with metrics (`ServerBuilder::metrics`, the `/metrics`
/// endpoint served, every request counted and timed): the three flows at concurrency 1, 8 and
/// 32, `reps` runs of `d` each, taking turns.
async fn run_metrics(d: Duration, reps: usize) -> Result<(), String> {
    let targets = [
        Target::start("ours").await?,
        Target::start("ours-metrics").await?,
    ];
    let flows = [Flow::plain(), Flow::elicitation(), Flow::multi_round()];
    let levels = [1usize, 8, 32];
    for flow in &flows {
        for t in &targets {
            warm_up(t, flow, 8).await?;
        }
    }
    let mut results: Vec<[Merged; 2]> = (0..flows.len() * levels.len())
        .map(|_| Default::default())
        .collect();
    for rep in 0..reps {
        for (i, flow) in flows.iter().enumerate() {
            for (j, &conc) in levels.iter().enumerate() {
                for k in 0..targets.len() {
                    let s = turn(rep, k, targets.len());
                    let cell = &mut results[i * levels.len() + j][s];
                    measure(&targets[s], flow, conc, d, cell).await;
                }
            }
        }
    }
    println!("#### The cost of metrics (`load metrics`; flows/s: median of {reps} runs of {:.3} s, the two servers taking turns; CPU = server user+system time per HTTP request)\n", d.as_secs_f64());
    println!("| flow | concurrency | without flows/s | with metrics flows/s | with / without | CPU µs/req without / with | errors without / with |");
    println!("|---|---|---|---|---|---|---|");
    for (i, flow) in flows.iter().enumerate() {
        for (j, conc) in levels.iter().enumerate() {
            let [off, on] = &results[i * levels.len() + j];
            println!(
                "| {} | {} | {:.0} | {:.0} | {} | {:.0} / {:.0} | {} / {} |",
                flow.label,
                conc,
                off.rate(),
                on.rate(),
                ratio(on.rate(), off.rate()),
                off.cpu_per(off.all_requests),
                on.cpu_per(on.all_requests),
                off.errors,
                on.errors
            );
        }
    }
    report_first_errors(results.iter().flatten());
    Ok(())
}

/// The cost of OpenTelemetry: the bench server of a build without the `otel` feature
/// (`LOAD_PLAIN_EXE`), of this build (which has it) with no exporter configured, and of this
/// build exporting every span and metric over OTLP/HTTP (sampling all) to a sink that answers
/// 200: the three flows at concurrency 1, 8 and 32, `reps` runs of `d` each, taking turns.
async fn run_otel(d: Duration, reps: usize) -> Result<(), String> {
    let plain = std::env::var_os("LOAD_PLAIN_EXE")
        .map(std::path::PathBuf::from)
        .ok_or(
            "LOAD_PLAIN_EXE names a build of `load` without the otel feature (benches/otel.sh)",
        )?;
    let sink = Target::start("otlp-sink").await?;
    let endpoint = sink.conns.base();
    let exporting = [
        ("OTEL_EXPORTER_OTLP_ENDPOINT", endpoint.as_str()),
        ("OTEL_TRACES_SAMPLER", "always_on"),
        ("OTEL_SERVICE_NAME", "mcp-bench"),
    ];
    let sampling = [
        ("OTEL_EXPORTER_OTLP_ENDPOINT", endpoint.as_str()),
        ("OTEL_TRACES_SAMPLER", "parentbased_traceidratio"),
        ("OTEL_TRACES_SAMPLER_ARG", "0.1"),
        ("OTEL_SERVICE_NAME", "mcp-bench"),
    ];
    let targets = [
        Target::start_exe("without otel", plain, "ours", &[]).await?,
        Target::start("ours").await?,
        Target::start_exe(
            "ours-otel",
            std::env::current_exe().map_err(|e| e.to_string())?,
            "ours",
            &exporting,
        )
        .await?,
        Target::start_exe(
            "ours-otel-10%",
            std::env::current_exe().map_err(|e| e.to_string())?,
            "ours",
            &sampling,
        )
        .await?,
    ];
    let flows = [Flow::plain(), Flow::elicitation(), Flow::multi_round()];
    let levels = [1usize, 8, 32];
    for flow in &flows {
        for t in &targets {
            warm_up(t, flow, 8).await?;
        }
    }
    let mut results: Vec<[Merged; 4]> = (0..flows.len() * levels.len())
        .map(|_| Default::default())
        .collect();
    for rep in 0..reps {
        for (i, flow) in flows.iter().enumerate() {
            for (j, &conc) in levels.iter().enumerate() {
                for k in 0..targets.len() {
                    let s = turn(rep, k, targets.len());
                    let cell = &mut results[i * levels.len() + j][s];
                    measure(&targets[s], flow, conc, d, cell).await;
                }
            }
        }
    }
    drop(sink);
    println!("#### The cost of OpenTelemetry (`benches/otel.sh`; flows/s: median of {reps} runs of {:.3} s, the four servers taking turns; CPU = server user+system time per HTTP request; export to a local sink, so its CPU is taken from the same two cores)\n", d.as_secs_f64());
    println!("| flow | concurrency | without the feature flows/s | compiled in, no exporter | / without | exporting, every trace | / without | exporting, 10% of traces | / without | CPU µs/req: without / off / every / 10% | errors |");
    println!("|---|---|---|---|---|---|---|---|---|---|---|");
    for (i, flow) in flows.iter().enumerate() {
        for (j, conc) in levels.iter().enumerate() {
            let [plain, off, on, some] = &results[i * levels.len() + j];
            println!(
                "| {} | {} | {:.0} | {:.0} | {} | {:.0} | {} | {:.0} | {} | {:.0} / {:.0} / {:.0} / {:.0} | {} |",
                flow.label,
                conc,
                plain.rate(),
                off.rate(),
                ratio(off.rate(), plain.rate()),
                on.rate(),
                ratio(on.rate(), plain.rate()),
                some.rate(),
                ratio(some.rate(), plain.rate()),
                plain.cpu_per(plain.all_requests),
                off.cpu_per(off.all_requests),
                on.cpu_per(on.all_requests),
                some.cpu_per(some.all_requests),
                plain.errors + off.errors + on.errors + some.errors
            );
        }
    }
    report_first_errors(results.iter().flatten());
    Ok(())
}

/// The 2025-era flows: a plain `tools/call` in a session the worker holds, a whole session
/// with one plain call, and a whole session with one elicitation.
#[derive(Clone, Copy, PartialEq)]
enum Legacy {
    Plain,
    PlainSession,
    Session,
}

/// A flow from `slots.len()` workers against `t` for `d`, after an untimed run of the same
/// flow: each worker owns its slot (its connections and whatever else its flows keep), and the
/// slots come back when the run ends. `flow` starts one flow of worker `w` with an id base.
async fn measure_slots<S: Send + 'static>(
    t: &Target,
    slots: Vec<S>,
    d: Duration,
    into: &mut Merged,
    flow: impl Fn(Arc<generator::Conns>, Arc<Vec<Mutex<S>>>, usize, u64) -> generator::FlowFuture
        + Clone
        + Send
        + 'static,
) -> Result<Vec<S>, String> {
    let conc = slots.len();
    let slots = Arc::new(slots.into_iter().map(Mutex::new).collect::<Vec<_>>());
    let start = {
        let (conns, slots) = (t.conns.clone(), slots.clone());
        move |w: usize, base: u64| flow(conns.clone(), slots.clone(), w, base)
    };
    let warm = generator::run_closed(conc, SLICE_WARM_UP, start.clone()).await;
    into.warm_up_flows += warm.flows;
    let (before, generator_before) = (t.cpu_us(), process_cpu_us("self"));
    let o = generator::run_closed(conc, d, start).await;
    into.add(o, t.cpu_us().saturating_sub(before));
    into.generator_cpu_us += process_cpu_us("self").saturating_sub(generator_before);
    let slots = Arc::try_unwrap(slots).map_err(|_| "a worker still holds its slot")?;
    Ok(slots.into_iter().map(Mutex::into_inner).collect())
}

/// A legacy flow from `concurrency` workers against `t` for `d`, each worker on two
/// connections of its own. For the plain call each worker opens its session first and ends it
/// after, both outside the timed window.
async fn measure_legacy(
    t: &Target,
    flow: Legacy,
    conc: usize,
    d: Duration,
    into: &mut Merged,
) -> Result<(), String> {
    let conns = t.conns.clone();
    let mut slots = Vec::with_capacity(conc);
    for w in 0..conc {
        let mut pair = legacy_flow::Pair::take(&conns).await?;
        let session = match flow {
            Legacy::Session | Legacy::PlainSession => None,
            Legacy::Plain => Some(legacy_flow::open(&conns, &mut pair, w as u64).await?),
        };
        slots.push((pair, session, flow));
    }
    let slots = measure_slots(t, slots, d, into, |conns, slots, w, base| {
        Box::pin(async move {
            let mut slot = slots[w].lock().await;
            let (pair, session, flow) = &mut *slot;
            match (session, *flow) {
                (Some(session), _) => legacy_flow::plain(&conns, pair, session, base).await,
                (None, Legacy::PlainSession) => legacy_flow::run_plain(&conns, pair, base).await,
                (None, _) => legacy_flow::run(&conns, pair, base).await,
            }
        })
    })
    .await?;
    for (mut pair, session, _) in slots {
        if let Some(session) = session {
            legacy_flow::close(&conns, &mut pair, &session).await?;
        }
        pair.give(&conns);
    }
    Ok(())
}

/// This project's bench server and rmcp's legacy session mode: the 2025-era flows at
/// concurrency 1, 8 and 32, `reps` runs of `d` each, taking turns.
async fn run_legacy(
    only: &str,
    only_concurrency: usize,
    d: Duration,
    reps: usize,
) -> Result<(), String> {
    // With LOAD_FIXTURE_EXE, another build's bench server is a third side (its own table).
    // The floor (canned bytes, no MCP work) is the third side; with LOAD_FIXTURE_EXE, another
    // build's bench server is a fourth (its own table).
    let mut targets = vec![
        Target::start("ours").await?,
        Target::start("rmcp-legacy").await?,
        Target::start("floor").await?,
    ];
    if baseline().is_some() {
        targets.push(Target::start("fixture").await?);
    }
    let flows: &[Legacy] = match only {
        "plain" => &[Legacy::Plain],
        "plain-session" => &[Legacy::PlainSession],
        "session" => &[Legacy::Session],
        "" => &[Legacy::Plain, Legacy::PlainSession, Legacy::Session],
        other => {
            return Err(format!(
                "no legacy flow {other}; plain, plain-session or session"
            ))
        }
    };
    for t in &targets {
        for &flow in flows {
            let mut warm = Merged::default();
            measure_legacy(t, flow, 32, Duration::from_millis(300), &mut warm).await?;
            if warm.flows == 0 || warm.errors > 0 {
                return Err(format!(
                    "{} server failed the legacy warm-up: {}",
                    t.name,
                    warm.first_error.unwrap_or_default()
                ));
            }
        }
    }
    let rss_start: Vec<u64> = targets.iter().map(|t| t.rss_kib().0).collect();
    let concurrency: &[usize] = match only_concurrency {
        0 => &[1, 8, 32],
        c => &[c][..],
    };
    let mut results: Vec<Vec<Vec<Merged>>> = flows
        .iter()
        .map(|_| {
            concurrency
                .iter()
                .map(|_| targets.iter().map(|_| Merged::default()).collect())
                .collect()
        })
        .collect();
    for rep in 0..reps {
        // The servers take turns, the cycle reversed every other repetition.
        let order: Vec<usize> = if rep % 2 == 0 {
            (0..targets.len()).collect()
        } else {
            (0..targets.len()).rev().collect()
        };
        for (f, flow) in flows.iter().enumerate() {
            for (i, conc) in concurrency.iter().enumerate() {
                for &s in &order {
                    measure_legacy(&targets[s], *flow, *conc, d, &mut results[f][i][s]).await?;
                }
            }
        }
    }
    let per_flow =
        |m: &Merged| m.cpu_per(m.all_requests) * m.requests as f64 / m.flows.max(1) as f64;
    let label = |flow: &Legacy| match flow {
        Legacy::Plain => "plain tools/call",
        Legacy::PlainSession => "plain session",
        Legacy::Session => "elicitation session",
    };
    println!("#### A 2025-11-25 client over streamable HTTP, in sessions: this project's bench server against rmcp 3.11's legacy session mode (flows/s: median of {reps} runs of {:.3} s; p50 / p99 of a whole flow over all runs; CPU = server user+system time per flow, summed over all runs; generator = the load generator's own CPU per flow, on its one thread)
", d.as_secs_f64());
    println!("The plain call is one `tools/call` of `test_simple_text` in a session the worker opened before the timed window. The plain session is a whole session around it: `initialize`, `notifications/initialized`, the call, `DELETE` (4 requests). The elicitation session is a whole session: `initialize`, `notifications/initialized`, a `tools/call` whose `elicitation/create` arrives on the call's SSE stream and is answered by a POST, then `DELETE` (5 requests). The floor answers every request with canned bytes and does no MCP work (`benches/examples/load/floor.rs`), in the same rotation.
");
    println!("| flow | concurrency | ours flows/s | rmcp flows/s | floor flows/s | ratio ours/rmcp | ours / floor | rmcp / floor | ours p50 / p99 ms | rmcp p50 / p99 ms | floor p50 / p99 ms | ours CPU µs/flow | rmcp CPU µs/flow | floor CPU µs/flow | ratio rmcp/ours | generator µs/flow ours / rmcp | errors ours / rmcp / floor |");
    println!("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|");
    for (flow, rows) in flows.iter().zip(&results) {
        for (conc, sides) in concurrency.iter().zip(rows) {
            let (o, r, fl) = (&sides[0], &sides[1], &sides[2]);
            println!(
                "| {} | {} | {:.0} | {:.0} | {:.0} | {} | {} | {} | {:.2} / {:.2} | {:.2} / {:.2} | {:.2} / {:.2} | {:.0} | {:.0} | {:.0} | {} | {:.0} / {:.0} | {} / {} / {} |",
                label(flow),
                conc,
                o.rate(),
                r.rate(),
                fl.rate(),
                ratio(o.rate(), r.rate()),
                ratio(o.rate(), fl.rate()),
                ratio(r.rate(), fl.rate()),
                o.ms(0.5),
                o.ms(0.99),
                r.ms(0.5),
                r.ms(0.99),
                fl.ms(0.5),
                fl.ms(0.99),
                per_flow(o),
                per_flow(r),
                per_flow(fl),
                ratio(per_flow(r), per_flow(o)),
                o.generator_per_flow(),
                r.generator_per_flow(),
                o.errors,
                r.errors,
                fl.errors
            );
        }
    }
    let rss_end: Vec<u64> = targets.iter().map(|t| t.rss_kib().0).collect();
    println!(
        "\nServer RSS (KiB) after warm-up and at the end: ours {} and {}, rmcp {} and {}.",
        rss_start[0], rss_end[0], rss_start[1], rss_end[1]
    );
    if let Some(other) = baseline().filter(|_| targets.len() > 3) {
        println!(
            "\nThis build against `{} serve ours` (LOAD_FIXTURE_EXE), in the same rotation:\n",
            other.display()
        );
        println!("| flow | concurrency | this flows/s | other flows/s | this / other | this p50 / p99 ms | other p50 / p99 ms | CPU µs/flow this / other | errors this / other |");
        println!("|---|---|---|---|---|---|---|---|---|");
        for (flow, rows) in flows.iter().zip(&results) {
            for (conc, sides) in concurrency.iter().zip(rows) {
                let (o, b) = (&sides[0], &sides[3]);
                println!(
                    "| {} | {} | {:.0} | {:.0} | {} | {:.2} / {:.2} | {:.2} / {:.2} | {:.0} / {:.0} | {} / {} |",
                    label(flow),
                    conc,
                    o.rate(),
                    b.rate(),
                    ratio(o.rate(), b.rate()),
                    o.ms(0.5),
                    o.ms(0.99),
                    b.ms(0.5),
                    b.ms(0.99),
                    per_flow(o),
                    per_flow(b),
                    o.errors,
                    b.errors
                );
            }
        }
    }
    report_first_errors(results.iter().flatten().flatten());
    Ok(())
}

/// A task flow from `concurrency` workers against `t` for `d`, each worker on a connection of
/// its own.
async fn measure_task(
    t: &Target,
    task: task_flow::Task,
    conc: usize,
    d: Duration,
    into: &mut Merged,
) -> Result<(), String> {
    let mut slots = Vec::with_capacity(conc);
    for _ in 0..conc {
        slots.push(t.conns.take().await?);
    }
    let slots = measure_slots(t, slots, d, into, move |conns, slots, w, base| {
        Box::pin(async move {
            let mut conn = slots[w].lock().await;
            let mut id = base;
            task_flow::run(&conns, &mut conn, task, &mut id).await
        })
    })
    .await?;
    for conn in slots {
        t.conns.give(conn);
    }
    Ok(())
}

/// This project's bench server with its tasks in memory and in Redis, and rmcp's server (its
/// `TaskManager`): the task flows at concurrency 1, 8 and 32, `reps` runs of `d` each, taking
/// turns. Redis is `MCP_TEST_REDIS_URL`, or a `redis-server` started here.
async fn run_tasks(d: Duration, reps: usize) -> Result<(), String> {
    use task_flow::Task;
    let (redis, _own_redis) = mcp_tests::support::redis();
    let targets = [
        Target::start("ours").await?,
        Target::start_with("ours-redis", &[("MCP_LOAD_REDIS_URL", &redis)]).await?,
        Target::start("rmcp").await?,
    ];
    let n = targets.len();
    let flows = [Task::Quick, Task::Greet];
    for t in &targets {
        for flow in flows {
            let mut warm = Merged::default();
            measure_task(t, flow, 32, Duration::from_millis(300), &mut warm).await?;
            if warm.flows == 0 || warm.errors > 0 {
                return Err(format!(
                    "{} server failed the {} warm-up: {}",
                    t.name,
                    flow.label(),
                    warm.first_error.unwrap_or_default()
                ));
            }
        }
    }
    let concurrency = [1usize, 8, 32];
    let mut results: Vec<Vec<[Merged; 3]>> = flows
        .iter()
        .map(|_| concurrency.iter().map(|_| Default::default()).collect())
        .collect();
    for rep in 0..reps {
        for (f, flow) in flows.iter().enumerate() {
            for (i, conc) in concurrency.iter().enumerate() {
                for k in 0..n {
                    let s = turn(rep, k, n);
                    measure_task(&targets[s], *flow, *conc, d, &mut results[f][i][s]).await?;
                }
            }
        }
    }
    println!("#### Tasks over streamable HTTP (2026-07-28, the tasks extension): this project's bench server with its tasks in memory and in Redis, against rmcp 3.11's `TaskManager` (in memory); every server keeps a task {} s (flows/s: median of {reps} runs of {:.3} s; p50 / p99 of a whole flow over all runs; requests = HTTP requests per flow, polls included; CPU = server user+system time per flow, summed over all runs; Redis's own CPU is not counted)\n", ours::TASK_TTL_SECS, d.as_secs_f64());
    println!("A flow is a `tools/call` answered with a task, then `tasks/get` until the task has completed (polled again at once while it works); the task with one input asks the user's name, answered with `tasks/update`.\n");
    println!("| flow | concurrency | ours flows/s | ours Redis flows/s | rmcp flows/s | ratio ours/rmcp | ratio ours Redis/rmcp | p50 / p99 ms ours / ours Redis / rmcp | requests ours / Redis / rmcp | CPU µs/flow ours / Redis / rmcp | errors |");
    println!("|---|---|---|---|---|---|---|---|---|---|---|");
    for (flow, rows) in flows.iter().zip(&results) {
        for (conc, [o, x, r]) in concurrency.iter().zip(rows) {
            let per_flow =
                |m: &Merged| m.cpu_per(m.all_requests) * m.requests as f64 / m.flows.max(1) as f64;
            let requests = |m: &Merged| m.requests as f64 / m.flows.max(1) as f64;
            println!(
                "| {} | {} | {:.0} | {:.0} | {:.0} | {} | {} | {:.2} / {:.2}, {:.2} / {:.2}, {:.2} / {:.2} | {:.1} / {:.1} / {:.1} | {:.0} / {:.0} / {:.0} | {} / {} / {} |",
                flow.label(),
                conc,
                o.rate(),
                x.rate(),
                r.rate(),
                ratio(o.rate(), r.rate()),
                ratio(x.rate(), r.rate()),
                o.ms(0.5),
                o.ms(0.99),
                x.ms(0.5),
                x.ms(0.99),
                r.ms(0.5),
                r.ms(0.99),
                requests(o),
                requests(x),
                requests(r),
                per_flow(o),
                per_flow(x),
                per_flow(r),
                o.errors,
                x.errors,
                r.errors
            );
        }
    }
    report_first_errors(results.iter().flatten().flatten());
    Ok(())
}

/// One server, one flow, one concurrency: latency of the whole flow and of each request of it
/// by its place in the flow (p50 / p99 / p99.9 / max) and a histogram of flow latencies, to find
/// where a tail comes from. `reps` runs of `d`.
async fn run_probe(
    server: &str,
    flow: &str,
    conc: usize,
    d: Duration,
    reps: usize,
) -> Result<(), String> {
    let name = SERVERS
        .into_iter()
        .chain(["floor"])
        .find(|s| *s == server)
        .ok_or_else(|| format!("no server {server}; one of {}", SERVERS.join(", ")))?;
    let flow = match flow {
        "plain" => Flow::plain(),
        "elicitation" => Flow::elicitation(),
        "multi" => Flow::multi_round(),
        other => return Err(format!("no flow {other}; plain, elicitation or multi")),
    };
    let t = Target::start(name).await?;
    generator::run(&t.conns, &flow, 32, Duration::from_millis(300)).await;
    let mut flows: Vec<u32> = Vec::new();
    let mut by_place: Vec<Vec<u32>> = Vec::new();
    let (mut count, mut cpu, mut requests) = (0u64, 0u64, 0u64);
    for _ in 0..reps {
        let before = t.cpu_us();
        let deadline = std::time::Instant::now() + d;
        let workers: Vec<_> = (0..conc)
            .map(|w| {
                let (conns, flow) = (t.conns.clone(), flow.clone());
                tokio::spawn(async move {
                    let mut id = (w as u64) << 40;
                    let mut conn = match conns.take().await {
                        Ok(c) => c,
                        Err(_) => return Vec::new(),
                    };
                    let mut out: Vec<(u32, Vec<u32>)> = Vec::new();
                    while std::time::Instant::now() < deadline {
                        let start = std::time::Instant::now();
                        let mut each = Vec::new();
                        if generator::run_flow_timed(
                            &conns,
                            &mut conn,
                            &flow,
                            &mut id,
                            Some(&mut each),
                        )
                        .await
                        .is_ok()
                        {
                            out.push((start.elapsed().as_micros() as u32, each));
                        }
                    }
                    conns.give(conn);
                    out
                })
            })
            .collect();
        for w in workers {
            for (total, each) in w.await.map_err(|e| e.to_string())? {
                count += 1;
                requests += each.len() as u64;
                flows.push(total);
                for (i, us) in each.into_iter().enumerate() {
                    if by_place.len() <= i {
                        by_place.push(Vec::new());
                    }
                    by_place[i].push(us);
                }
            }
        }
        cpu += t.cpu_us().saturating_sub(before);
    }
    let stats = |l: &mut Vec<u32>| {
        l.sort_unstable();
        format!(
            "{:.3} / {:.3} / {:.3} / {:.3} ms",
            quantile(l, 0.5) as f64 / 1000.0,
            quantile(l, 0.99) as f64 / 1000.0,
            quantile(l, 0.999) as f64 / 1000.0,
            l.last().copied().unwrap_or(0) as f64 / 1000.0
        )
    };
    println!(
        "{name} {} at concurrency {conc}: {count} flows in {reps} runs of {:.1} s, {:.0} flows/s, server CPU {:.1} µs/request",
        flow.label,
        d.as_secs_f64(),
        count as f64 / (d.as_secs_f64() * reps as f64),
        cpu as f64 / requests.max(1) as f64
    );
    println!("flow p50 / p99 / p99.9 / max: {}", stats(&mut flows));
    for (i, l) in by_place.iter_mut().enumerate() {
        println!("request {} p50 / p99 / p99.9 / max: {}", i + 1, stats(l));
    }
    // Histogram of flow latencies in 0.25-ms buckets up to 10 ms.
    let mut buckets = [0u64; 41];
    for &us in &flows {
        buckets[(us as usize / 250).min(40)] += 1;
    }
    for (i, n) in buckets.iter().enumerate().filter(|(_, n)| **n > 0) {
        let share = *n as f64 * 100.0 / flows.len().max(1) as f64;
        println!(
            "  {:>5.2} ms{} {:>7} {:6.2}%",
            i as f64 * 0.25,
            if i == 40 { "+" } else { " " },
            n,
            share
        );
    }
    Ok(())
}
