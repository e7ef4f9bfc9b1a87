//! This project's side: the conformance fixture tools from `mcp-tests` plus `bench_rounds`, a
//! tool that asks one question per round, written as a plain loop of `elicit` awaits, and two
//! task tools (one answering at once, one asking a question inside the task).

use std::sync::Arc;

use oxmcp::prelude::*;
use oxmcp::{ElicitForm, Server};

/// One free-text answer.
#[derive(ElicitForm)]
pub struct AnswerForm {
    /// The answer.
    pub answer: String,
}

/// The name a task asks for.
#[derive(ElicitForm)]
pub struct NameForm {
    /// Your name.
    pub name: String,
}

/// How long both servers keep a task after it is created, in seconds.
pub const TASK_TTL_SECS: u64 = 5;

/// Answers at once, as a task.
#[mcp_tool(task = "required")]
pub async fn task_quick() -> String {
    "task done".into()
}

/// Asks the user's name inside a task, then greets them.
#[mcp_tool(task = "required")]
pub async fn task_greet() -> Result<String, ToolError> {
    let name = match elicit::<NameForm>("What is your name?").key("name").await? {
        Elicited::Accept(form) => form.name,
        _ => "nobody".into(),
    };
    Ok(format!("Hello, {name}!"))
}

/// Asks `rounds` questions, one per round, and lists the answers.
#[mcp_tool]
pub async fn bench_rounds(rounds: u32) -> Result<String, ToolError> {
    if rounds > 64 {
        return Err(ToolError::new("rounds must be at most 64"));
    }
    let mut answers = Vec::with_capacity(rounds as usize);
    for step in 0..rounds {
        let a = elicit::<AnswerForm>(format!("Question {step}?"))
            .key(format!("step{step}"))
            .await?;
        answers.push(match a {
            Elicited::Accept(f) => f.answer,
            Elicited::Decline => "declined".into(),
            Elicited::Cancel => "cancelled".into(),
        });
    }
    Ok(answers.join(","))
}

/// Serves this project's server on `listener` until the process ends; with `metrics`, counting
/// and timing every request and serving `/metrics`.
pub async fn serve(listener: tokio::net::TcpListener, metrics: bool) -> std::io::Result<()> {
    // With the `otel` feature and an OTLP endpoint in the environment (`load otel`), every
    // span and metric is exported.
    #[cfg(feature = "otel")]
    let telemetry = match std::env::var_os("OTEL_EXPORTER_OTLP_ENDPOINT") {
        Some(_) => Some(
            oxmcp::otel::Builder::from_env()
                .and_then(|b| b.stderr_logs(false).install())
                .map_err(std::io::Error::other)?,
        ),
        None => None,
    };
    let store = Arc::new(oxmcp::tasks::InMemoryTaskStore::new(10_000_000));
    let served = serve_with(listener, metrics, store).await;
    #[cfg(feature = "otel")]
    if let Some(telemetry) = telemetry {
        let _ = telemetry.shutdown().await;
    }
    served
}

/// [`serve`] with its tasks kept in the Redis at `url`.
pub async fn serve_redis(listener: tokio::net::TcpListener, url: &str) -> std::io::Result<()> {
    let store = oxmcp::redis::RedisTaskStore::connect(url)
        .await
        .map_err(|e| std::io::Error::other(e.to_string()))?;
    serve_with(listener, false, Arc::new(store)).await
}

async fn serve_with(
    listener: tokio::net::TcpListener,
    metrics: bool,
    store: Arc<dyn oxmcp::tasks::TaskStore>,
) -> std::io::Result<()> {
    use mcp_tests::conformance::{
        test_input_required_result_elicitation, test_input_required_result_multi_round,
        test_simple_text,
    };
    // Built before any await: the builder is not `Send`.
    let server = {
        let builder = Server::builder()
            .tool(test_simple_text)
            .tool(test_input_required_result_elicitation)
            .tool(test_input_required_result_multi_round)
            .tool(bench_rounds)
            .tool(task_quick)
            .tool(task_greet)
            // Under load one caller (the generator) creates thousands of tasks a second: they
            // are kept for as long as the peer keeps its own, without a per-caller cap.
            .task_ttl(std::time::Duration::from_secs(TASK_TTL_SECS))
            .tasks_per_principal(usize::MAX)
            .task_store(store);
        let builder = if metrics { builder.metrics() } else { builder };
        builder.build().map_err(std::io::Error::other)?
    };
    oxmcp::http::serve_listener(
        Arc::new(server),
        listener,
        Default::default(),
        std::future::pending(),
    )
    .await
}

/// Serves the conformance fixture server (`mcp_tests::conformance::server`, what the
/// `conformance-server` binary serves over HTTP) on `listener` until the process ends.
pub async fn serve_fixture(listener: tokio::net::TcpListener) -> std::io::Result<()> {
    let server = mcp_tests::conformance::server(Server::builder())
        .build()
        .map_err(std::io::Error::other)?;
    oxmcp::http::serve_listener(
        Arc::new(server),
        listener,
        Default::default(),
        std::future::pending(),
    )
    .await
}
