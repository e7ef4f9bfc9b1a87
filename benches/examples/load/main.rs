//! End-to-end load over streamable HTTP on 127.0.0.1: this project's server and equivalent
//! servers on rmcp 3.11 and on rust-mcp-sdk 2.0 (built on rust-mcp-schema 2.0), each in its own
//! process, measured in turn in one invocation.
//!
//! `cargo run --release -p mcp-benches --example load -- [--seconds S] [--reps N]` prints the
//! Markdown tables that `benches/run.sh` puts into BENCHMARKS.md: every scenario runs N times
//! for S seconds per server (defaults 16 and 0.125), the servers taking turns, so a stall of the
//! shared machine falls on all of them alike. `load serve NAME` is the server
//! side (it prints `PORT <n>` once listening); the generator starts all three itself.
//! `load legacy [--seconds S] [--reps N]` measures the 2025-era flow instead (initialize, a
//! call whose elicitation is a real request to the client, DELETE) against rmcp's legacy
//! session mode.

mod generator;
mod legacy_flow;
mod ours;
mod rmcp_legacy;
mod rmcp_peer;
mod rmsdk_peer;

use std::process::Stdio;
use std::time::Duration;

use generator::{quantile, Flow, Outcome};
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{Child, Command};

/// One server process under test.
struct Target {
    name: &'static str,
    child: Child,
    url: String,
    /// The generator's client for this server, kept for the whole invocation.
    client: generator::HttpClient,
}

impl Target {
    async fn start(name: &'static str) -> Result<Self, String> {
        let exe = std::env::current_exe().map_err(|e| e.to_string())?;
        let mut child = Command::new(exe)
            .args(["serve", name])
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
        Ok(Target {
            name,
            url: format!("http://127.0.0.1:{port}/mcp"),
            child,
            client: generator::client(),
        })
    }

    fn pid(&self) -> u32 {
        self.child.id().unwrap_or(0)
    }

    /// User + system CPU time of the server process, in microseconds.
    fn cpu_us(&self) -> u64 {
        let stat =
            std::fs::read_to_string(format!("/proc/{}/stat", self.pid())).unwrap_or_default();
        // Fields after the parenthesised command name; utime and stime are fields 14 and 15.
        let rest = stat.rsplit_once(')').map(|(_, r)| r).unwrap_or("");
        let f: Vec<&str> = rest.split_whitespace().collect();
        let ticks: u64 = f.get(11).and_then(|v| v.parse().ok()).unwrap_or(0)
            + f.get(12).and_then(|v| v.parse().ok()).unwrap_or(0);
        ticks * 1_000_000 / clock_ticks()
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

fn clock_ticks() -> u64 {
    std::process::Command::new("getconf")
        .arg("CLK_TCK")
        .output()
        .ok()
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .and_then(|s| s.trim().parse().ok())
        .unwrap_or(100)
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
    first_error: Option<String>,
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
}

async fn measure(t: &Target, flow: &Flow, conc: usize, d: Duration, into: &mut Merged) {
    let before = t.cpu_us();
    let o = generator::run(&t.client, &t.url, flow, conc, d).await;
    into.add(o, t.cpu_us().saturating_sub(before));
}

async fn measure_open(t: &Target, flow: &Flow, rate: f64, d: Duration, into: &mut Merged) {
    let before = t.cpu_us();
    let o = generator::run_open(&t.client, &t.url, flow, rate, d).await;
    into.add(o, t.cpu_us().saturating_sub(before));
}

#[tokio::main]
async fn main() -> std::process::ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("serve") {
        return serve(args.get(1).map(String::as_str)).await;
    }
    let legacy = args.first().map(String::as_str) == Some("legacy");
    let mut seconds = 0.125f64;
    let mut reps = 16usize;
    let mut it = args.iter().skip(usize::from(legacy));
    while let Some(a) = it.next() {
        let v = it.next().and_then(|v| v.parse::<f64>().ok());
        match (a.as_str(), v) {
            ("--seconds", Some(v)) if v > 0.0 => seconds = v,
            ("--reps", Some(v)) if v >= 1.0 => reps = v as usize,
            _ => {
                eprintln!(
                    "usage: load [legacy] [--seconds S] [--reps N] | load serve {}|rmcp-legacy",
                    SERVERS.join("|")
                );
                return std::process::ExitCode::from(2);
            }
        }
    }
    let d = Duration::from_secs_f64(seconds);
    let outcome = if legacy {
        run_legacy(d, reps).await
    } else {
        run(d, reps).await
    };
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
        Some("ours") => ours::serve(listener).await,
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

/// The servers under test; this project's first, then the peers.
const SERVERS: [&str; 3] = ["ours", "rmcp", "rust-mcp-sdk"];
/// How many servers are measured side by side.
const N: usize = SERVERS.len();

/// The servers' CPU time per HTTP request (every completed request), one cell each.
fn cpu_cells(ms: &[Merged; N]) -> String {
    ms.iter()
        .map(|m| format!("{:.0}", m.cpu_per(m.all_requests)))
        .collect::<Vec<_>>()
        .join(" | ")
}

/// The servers' failed flows, in one cell.
fn error_cell(ms: &[Merged; N]) -> String {
    ms.iter()
        .map(|m| m.errors.to_string())
        .collect::<Vec<_>>()
        .join(" / ")
}

/// `a / b`, as a table cell.
fn ratio(a: f64, b: f64) -> String {
    format!("{:.2}", a / b.max(1e-9))
}

async fn run(d: Duration, reps: usize) -> Result<(), String> {
    let mut targets = Vec::new();
    for name in SERVERS {
        targets.push(Target::start(name).await?);
    }
    // Warm up every server (connections, allocator, lazy statics) and check they do the same job.
    for t in &targets {
        for flow in [
            Flow::plain(),
            Flow::elicitation(),
            Flow::multi_round(),
            Flow::rounds(3),
        ] {
            let o = generator::run(&t.client, &t.url, &flow, 32, Duration::from_millis(300)).await;
            if o.flows == 0 || o.errors > 0 {
                return Err(format!(
                    "{} server failed the {} warm-up: {}",
                    t.name,
                    flow.label,
                    o.first_error.unwrap_or_default()
                ));
            }
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
    for rep in 0..reps {
        // Rotate who goes first in each repetition.
        let order: [usize; N] = std::array::from_fn(|i| (i + rep) % N);
        for (i, (flow, conc)) in e2e.iter().enumerate() {
            for &s in &order {
                measure(&targets[s], flow, *conc, d, &mut e2e_results[i][s]).await;
                rss_after_run[s].push(targets[s].rss_kib().0);
            }
        }
        for (i, flow) in replay.iter().enumerate() {
            for &s in &order {
                measure(&targets[s], flow, 1, d, &mut replay_results[i][s]).await;
            }
        }
        for (i, (flow, rate)) in open.iter().enumerate() {
            for &s in &order {
                measure_open(&targets[s], flow, *rate, d, &mut open_results[i][s]).await;
            }
        }
    }

    println!("#### End to end over streamable HTTP (flows/s: median of {reps} runs of {:.3} s; latency of a whole flow over all runs; CPU = server user+system time per HTTP request, summed over all runs because /proc counts it in 10-ms ticks; rms = rust-mcp-sdk)\n", d.as_secs_f64());
    println!("| flow | concurrency | ours flows/s | rmcp flows/s | ratio ours/rmcp | rust-mcp-sdk flows/s | ratio ours/rms | ours p50 / p99 ms | rmcp p50 / p99 ms | rust-mcp-sdk p50 / p99 ms | ours CPU µs/req | rmcp CPU µs/req | rust-mcp-sdk CPU µs/req | errors ours / rmcp / rms |");
    println!("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|");
    for ((flow, conc), ms) in e2e.iter().zip(&e2e_results) {
        let [o, r, k] = ms;
        println!(
            "| {} | {} | {:.0} | {:.0} | {} | {:.0} | {} | {:.2} / {:.2} | {:.2} / {:.2} | {:.2} / {:.2} | {} | {} |",
            flow.label,
            conc,
            o.rate(),
            r.rate(),
            ratio(o.rate(), r.rate()),
            k.rate(),
            ratio(o.rate(), k.rate()),
            o.ms(0.5),
            o.ms(0.99),
            r.ms(0.5),
            r.ms(0.99),
            k.ms(0.5),
            k.ms(0.99),
            cpu_cells(ms),
            error_cell(ms)
        );
    }
    println!("\n#### Latency at a fixed offered load (open loop: flows start on schedule whether or not earlier ones finished; {reps} runs of {:.3} s per server; latency of a whole flow from its start)\n", d.as_secs_f64());
    println!("| flow | offered flows/s | ours p50 / p99 / p99.9 ms | rmcp p50 / p99 / p99.9 ms | rust-mcp-sdk p50 / p99 / p99.9 ms | p99 ratio rmcp/ours | p99 ratio rms/ours | ours CPU µs/req | rmcp CPU µs/req | rust-mcp-sdk CPU µs/req | errors ours / rmcp / rms |");
    println!("|---|---|---|---|---|---|---|---|---|---|---|");
    for ((flow, rate), ms) in open.iter().zip(&open_results) {
        let [o, r, k] = ms;
        let p = |m: &Merged| format!("{:.2} / {:.2} / {:.2}", m.ms(0.5), m.ms(0.99), m.ms(0.999));
        println!(
            "| {} | {:.0} | {} | {} | {} | {} | {} | {} | {} |",
            flow.label,
            rate,
            p(o),
            p(r),
            p(k),
            ratio(r.ms(0.99), o.ms(0.99)),
            ratio(k.ms(0.99), o.ms(0.99)),
            cpu_cells(ms),
            error_cell(ms)
        );
    }
    println!("\n#### Replay cost (`bench_rounds`: N questions, N + 1 requests per flow, concurrency 1; server CPU per complete flow, summed over all runs; flows/s: median of the runs)\n");
    println!("| input rounds | ours CPU µs/flow | rmcp CPU µs/flow | ratio rmcp/ours | rust-mcp-sdk CPU µs/flow | ratio rms/ours | flows/s ours / rmcp / rms | errors ours / rmcp / rms |");
    println!("|---|---|---|---|---|---|---|---|");
    for (flow, ms) in replay.iter().zip(&replay_results) {
        let [o, r, k] = ms;
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
            error_cell(ms)
        );
    }
    println!("\n#### Server memory (KiB; RSS after warm-up, median and highest RSS seen after each end-to-end run, RSS at the end, peak RSS of the process; ratio = the server's peak / ours)\n");
    println!(
        "| server | flows served | RSS after warm-up | median after a run | highest after a run | at the end | peak | ratio peak/ours |"
    );
    println!("|---|---|---|---|---|---|---|---|");
    let rss_end: Vec<(u64, u64)> = targets.iter().map(Target::rss_kib).collect();
    for (s, t) in targets.iter().enumerate() {
        let served: u64 = e2e_results.iter().map(|m| m[s].flows).sum::<u64>()
            + replay_results.iter().map(|m| m[s].flows).sum::<u64>()
            + open_results.iter().map(|m| m[s].flows).sum::<u64>();
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
    for m in e2e_results
        .iter()
        .flatten()
        .chain(replay_results.iter().flatten())
        .chain(open_results.iter().flatten())
    {
        if let Some(e) = &m.first_error {
            eprintln!("first error: {e}");
        }
    }
    Ok(())
}

/// The legacy flow from `concurrency` workers against `t` for `d`.
async fn measure_legacy(t: &Target, conc: usize, d: Duration, into: &mut Merged) {
    let before = t.cpu_us();
    let (client, url) = (t.client.clone(), t.url.clone());
    let o = generator::run_closed(conc, d, move |base| {
        let (client, url) = (client.clone(), url.clone());
        Box::pin(async move { legacy_flow::run(&client, &url, base).await })
    })
    .await;
    into.add(o, t.cpu_us().saturating_sub(before));
}

/// This project's server and rmcp's legacy session mode, the 2025-era flow at concurrency 1, 8
/// and 32, `reps` runs of `d` each, taking turns.
async fn run_legacy(d: Duration, reps: usize) -> Result<(), String> {
    let targets = [
        Target::start("ours").await?,
        Target::start("rmcp-legacy").await?,
    ];
    for t in &targets {
        let mut warm = Merged::default();
        measure_legacy(t, 32, Duration::from_millis(300), &mut warm).await;
        if warm.flows == 0 || warm.errors > 0 {
            return Err(format!(
                "{} server failed the legacy warm-up: {}",
                t.name,
                warm.first_error.unwrap_or_default()
            ));
        }
    }
    let rss_start: Vec<u64> = targets.iter().map(|t| t.rss_kib().0).collect();
    let concurrency = [1usize, 8, 32];
    let mut results: Vec<[Merged; 2]> = concurrency.iter().map(|_| Default::default()).collect();
    for rep in 0..reps {
        for (i, conc) in concurrency.iter().enumerate() {
            for s in [rep % 2, (rep + 1) % 2] {
                measure_legacy(&targets[s], *conc, d, &mut results[i][s]).await;
            }
        }
    }
    println!("#### A 2025-era client's flow over streamable HTTP (initialize, notifications/initialized, tools/call whose elicitation is a real request on the call's SSE stream answered by a POST, DELETE: 5 requests; flows/s: median of {reps} runs of {:.3} s; latency of a whole flow over all runs; CPU = server user+system time per flow, summed over all runs)\n", d.as_secs_f64());
    println!("| concurrency | ours flows/s | rmcp flows/s | ratio ours/rmcp | ours p50 / p99 ms | rmcp p50 / p99 ms | ours CPU µs/flow | rmcp CPU µs/flow | ratio rmcp/ours | errors ours / rmcp |");
    println!("|---|---|---|---|---|---|---|---|---|---|");
    for (conc, [o, r]) in concurrency.iter().zip(&results) {
        let per_flow =
            |m: &Merged| m.cpu_per(m.all_requests) * m.requests as f64 / m.flows.max(1) as f64;
        println!(
            "| {} | {:.0} | {:.0} | {} | {:.2} / {:.2} | {:.2} / {:.2} | {:.0} | {:.0} | {} | {} / {} |",
            conc,
            o.rate(),
            r.rate(),
            ratio(o.rate(), r.rate()),
            o.ms(0.5),
            o.ms(0.99),
            r.ms(0.5),
            r.ms(0.99),
            per_flow(o),
            per_flow(r),
            ratio(per_flow(r), per_flow(o)),
            o.errors,
            r.errors
        );
    }
    let rss_end: Vec<u64> = targets.iter().map(|t| t.rss_kib().0).collect();
    println!(
        "\nServer RSS (KiB) after warm-up and at the end: ours {} and {}, rmcp {} and {}.",
        rss_start[0], rss_end[0], rss_start[1], rss_end[1]
    );
    for m in results.iter().flatten() {
        if let Some(e) = &m.first_error {
            eprintln!("first error: {e}");
        }
    }
    Ok(())
}
