//! The conformance fixture server: every tool, prompt and resource the official suite calls.
//! `conformance-server --port PORT` serves http://127.0.0.1:PORT/mcp; `--stdio` serves stdio.
//! `MCP_STATE_KEYS` (`id:hex,...`, oldest first) sets the `requestState` key ring.
//! `--auth-jwks PATH --auth-issuer ISS --auth-audience AUD` turn on bearer authentication over
//! HTTP: JWT access tokens signed by a key of the JWKS file, issued by ISS for AUD (the
//! endpoint's canonical URI, also the resource of the Protected Resource Metadata);
//! `--auth-jwks-refresh-secs N` sets how long the key set is trusted before it is read again
//! (default 300).
//! `--task-store redis://HOST:PORT` keeps tasks (and single use of `requestState`) in Redis, so
//! several processes share them; `--task-lease-ms N` sets how long a process holds a running
//! task without renewing (default 30000).
//! `--skills-dir PATH` offers every skill below PATH (the skills extension; the repository's
//! `tests/skills` is a sample tree with subfolders and binary files).
//! `--host ADDR` binds another address than 127.0.0.1 (then list the names clients use in
//! `MCP_ALLOWED_HOSTS`). The environment sets what the flags do not: `MCP_PORT`, `MCP_HOST`,
//! `MCP_ALLOWED_HOSTS` (comma-separated host names accepted in `Host`; `*` for any),
//! `MCP_TASK_STORE` (a `redis://` URL), `MCP_SKILLS_DIR`, `MCP_DRAIN_SECS` (how long a stopping
//! process reports not ready while it still serves), `MCP_MAX_SESSIONS`, `MCP_STATE_TTL_SECS`
//! (how long a `requestState` stays valid; 300 by default), `MCP_TASK_TTL_SECS` (how long a
//! task is kept) and `MCP_METRICS` (`1`: Prometheus
//! metrics at `/metrics`; also `--metrics`). With `RUST_LOG` set (`info`, say) the runtime's
//! log goes to stderr; with `OTEL_EXPORTER_OTLP_ENDPOINT` set, traces and metrics go there
//! (OpenTelemetry, configured by the standard `OTEL_*` variables).
//! `--threads N` sets the tokio worker threads. The default is one fewer than the machine's cores
//! (at least one): this server runs beside its clients (the conformance suite, the load
//! generator) on the same host, and its requests are short (tens of µs), so a worker per core
//! makes one thread more than there are cores whenever the clients are busy, and a request then
//! waits a scheduler slice (about 3 ms) in a preempted worker; see BENCHMARKS.md, "What the numbers say", Workers.

use oxmcp::{request_state::KeyRing, Server};
use std::sync::Arc;

fn main() -> std::process::ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut threads = mcp_tests::fixture_threads();
    if let Some(at) = args.iter().position(|a| a == "--threads") {
        match args.get(at + 1).and_then(|n| n.parse::<usize>().ok()) {
            Some(n) if n >= 1 => threads = n,
            _ => {
                eprintln!("--threads needs a number of at least 1");
                return std::process::ExitCode::from(2);
            }
        }
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(threads)
        .enable_all()
        .build();
    match runtime {
        Ok(runtime) => runtime.block_on(serve(args)),
        Err(e) => {
            eprintln!("conformance-server: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}

/// The environment variable `name`, read as `T`; the process stops with a one-line error when
/// it is set but unreadable.
fn env_value<T: std::str::FromStr>(name: &str) -> Result<Option<T>, String> {
    match std::env::var(name) {
        Ok(text) if !text.trim().is_empty() => text
            .trim()
            .parse()
            .map(Some)
            .map_err(|_| format!("{name}={text} cannot be read")),
        _ => Ok(None),
    }
}

async fn serve(args: Vec<String>) -> std::process::ExitCode {
    // Logs when RUST_LOG asks for them; traces and metrics when an OTLP endpoint is set.
    let logs = std::env::var_os("RUST_LOG").is_some();
    #[cfg(feature = "otel")]
    let telemetry = {
        let exports = [
            "OTEL_EXPORTER_OTLP_ENDPOINT",
            "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
            "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT",
        ]
        .iter()
        .any(|v| std::env::var_os(v).is_some());
        if logs || exports {
            match oxmcp::otel::Builder::from_env().and_then(|b| b.stderr_logs(logs).install()) {
                Ok(telemetry) => Some(telemetry),
                Err(e) => {
                    eprintln!("conformance-server: {e}");
                    return std::process::ExitCode::from(2);
                }
            }
        } else {
            None
        }
    };
    #[cfg(not(feature = "otel"))]
    if logs {
        oxmcp::logging::init();
    }
    let env = (|| -> Result<_, String> {
        Ok((
            env_value::<u16>("MCP_PORT")?,
            env_value::<String>("MCP_HOST")?,
            env_value::<String>("MCP_ALLOWED_HOSTS")?,
            env_value::<String>("MCP_TASK_STORE")?,
            env_value::<String>("MCP_SKILLS_DIR")?,
            env_value::<u64>("MCP_DRAIN_SECS")?,
            env_value::<usize>("MCP_MAX_SESSIONS")?,
            env_value::<u8>("MCP_METRICS")?,
            env_value::<u64>("MCP_STATE_TTL_SECS")?,
            env_value::<u64>("MCP_TASK_TTL_SECS")?,
        ))
    })();
    let (
        env_port,
        env_host,
        allowed_hosts,
        env_store,
        env_skills,
        drain_secs,
        max_sessions,
        env_metrics,
        request_state_ttl,
        task_ttl,
    ) = match env {
        Ok(values) => values,
        Err(e) => {
            eprintln!("conformance-server: {e}");
            return std::process::ExitCode::from(2);
        }
    };
    let mut port = env_port.unwrap_or(3000);
    let mut host = env_host.unwrap_or_else(|| "127.0.0.1".into());
    let mut stdio = false;
    let (mut jwks, mut issuer, mut audience) = (None, None, None);
    let mut task_store: Option<String> = env_store;
    let mut task_lease = std::time::Duration::from_secs(30);
    let mut jwks_max_age = std::time::Duration::from_secs(300);
    let mut skills_dir: Option<String> = env_skills;
    let mut metrics = env_metrics == Some(1);
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--stdio" => stdio = true,
            "--metrics" => metrics = true,
            "--threads" => {
                // Read before the runtime was built.
                it.next();
            }
            flag @ ("--auth-jwks" | "--auth-issuer" | "--auth-audience") => {
                let Some(value) = it.next().cloned() else {
                    eprintln!("{flag} needs a value");
                    return std::process::ExitCode::from(2);
                };
                match flag {
                    "--auth-jwks" => jwks = Some(value),
                    "--auth-issuer" => issuer = Some(value),
                    _ => audience = Some(value),
                }
            }
            "--skills-dir" => match it.next() {
                Some(dir) => skills_dir = Some(dir.clone()),
                None => {
                    eprintln!("--skills-dir needs a folder");
                    return std::process::ExitCode::from(2);
                }
            },
            "--task-store" => match it.next() {
                Some(url) => task_store = Some(url.clone()),
                None => {
                    eprintln!("--task-store needs a redis:// URL");
                    return std::process::ExitCode::from(2);
                }
            },
            "--auth-jwks-refresh-secs" => match it.next().and_then(|p| p.parse().ok()) {
                Some(secs) => jwks_max_age = std::time::Duration::from_secs(secs),
                None => {
                    eprintln!("--auth-jwks-refresh-secs needs a number of seconds");
                    return std::process::ExitCode::from(2);
                }
            },
            "--task-lease-ms" => match it.next().and_then(|p| p.parse().ok()) {
                Some(ms) => task_lease = std::time::Duration::from_millis(ms),
                None => {
                    eprintln!("--task-lease-ms needs a number");
                    return std::process::ExitCode::from(2);
                }
            },
            "--host" => match it.next() {
                Some(h) => host = h.clone(),
                None => {
                    eprintln!("--host needs an address");
                    return std::process::ExitCode::from(2);
                }
            },
            "--port" => match it.next().and_then(|p| p.parse().ok()) {
                Some(p) => port = p,
                None => {
                    eprintln!("--port needs a number");
                    return std::process::ExitCode::from(2);
                }
            },
            other => {
                eprintln!(
                    "unknown argument {other}; usage: conformance-server [--port PORT [--host ADDR] | --stdio] [--auth-jwks PATH --auth-issuer ISS --auth-audience AUD [--auth-jwks-refresh-secs N]] [--task-store redis://HOST:PORT] [--task-lease-ms N] [--skills-dir PATH] [--metrics] [--threads N]"
                );
                return std::process::ExitCode::from(2);
            }
        }
    }
    // MCP_STATE_KEYS="1:<64 hex>,2:<64 hex>" shares a key ring between instances.
    let keys = match std::env::var("MCP_STATE_KEYS") {
        Ok(text) => KeyRing::parse(&text),
        Err(_) => KeyRing::random(),
    };
    let keys = match keys {
        Ok(k) => k,
        Err(e) => {
            eprintln!("{e}");
            return std::process::ExitCode::FAILURE;
        }
    };
    let mut builder = mcp_tests::conformance::server(Server::builder())
        .request_state_keys(keys)
        .task_lease(task_lease);
    if let Some(secs) = request_state_ttl {
        builder = builder.request_state_ttl(std::time::Duration::from_secs(secs));
    }
    if let Some(secs) = task_ttl {
        builder = builder.task_ttl(std::time::Duration::from_secs(secs));
    }
    if let Some(dir) = skills_dir {
        builder = builder.skills_dir(dir);
    }
    if metrics {
        builder = builder.metrics();
    }
    if let Some(url) = task_store {
        use oxmcp::redis::{RedisReplayGuard, RedisTaskStore};
        let (store, guard) = match (
            RedisTaskStore::connect(&url).await,
            RedisReplayGuard::connect(&url).await,
        ) {
            (Ok(store), Ok(guard)) => (store, guard),
            (Err(e), _) | (_, Err(e)) => {
                eprintln!("--task-store {url}: {e}");
                return std::process::ExitCode::FAILURE;
            }
        };
        builder = builder
            .task_store(Arc::new(store))
            .request_state_codec(move |codec| codec.shared_single_use(Arc::new(guard)));
    }
    let server = match builder.build() {
        Ok(s) => Arc::new(s),
        Err(e) => {
            eprintln!("{e}");
            return std::process::ExitCode::FAILURE;
        }
    };
    let mut config = oxmcp::http::HttpConfig::default();
    if let Some(hosts) = allowed_hosts {
        config.allowed_hosts = if hosts.trim() == "*" {
            Vec::new()
        } else {
            hosts.split(',').map(|h| h.trim().to_string()).collect()
        };
    }
    if let Some(secs) = drain_secs {
        config.limits.drain = std::time::Duration::from_secs(secs);
    }
    if let Some(n) = max_sessions {
        config.limits.max_sessions = n;
    }
    match (jwks, issuer, audience) {
        (None, None, None) => {}
        (Some(jwks), Some(issuer), Some(audience)) => {
            use oxmcp::auth::{AuthConfig, JwksFile, JwtVerifier};
            let verifier =
                JwtVerifier::new(JwksFile(jwks.into()), issuer.clone(), audience.clone())
                    .min_refresh_interval(jwks_max_age.min(std::time::Duration::from_secs(30)))
                    .max_key_age(jwks_max_age);
            config.auth = Some(
                AuthConfig::new(verifier, audience)
                    .authorization_server(issuer)
                    .scopes_supported(["admin"]),
            );
        }
        _ => {
            eprintln!("--auth-jwks, --auth-issuer and --auth-audience go together");
            return std::process::ExitCode::from(2);
        }
    }
    let result = if stdio {
        oxmcp::stdio::serve(server).await
    } else {
        let addr = if host.contains(':') {
            format!("[{host}]:{port}")
        } else {
            format!("{host}:{port}")
        };
        eprintln!("conformance-server: http://{addr}/mcp");
        oxmcp::http::serve(server, &addr, config).await
    };
    #[cfg(feature = "otel")]
    if let Some(telemetry) = telemetry {
        if let Err(e) = telemetry.shutdown().await {
            eprintln!("conformance-server: {e}");
        }
    }
    match result {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("conformance-server: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}
