//! An MCP server as an AWS Lambda function: the conformance fixture's tools, prompts and
//! resources, whose multi-round flows resume on whichever instance their next round reaches.
//!
//! The environment configures it (see `oxmcp::lambda` for what each variable does):
//! `MCP_STATE_KEYS` (required: the key ring every instance shares), `MCP_TASK_STORE` (a
//! `redis://` URL: tasks, and single use of `requestState` across instances; without it the
//! tools that run only as tasks are left out), `MCP_LAMBDA_RESPONSES` (`streamed`, the
//! default, or `buffered`), `MCP_ALLOWED_HOSTS`, and `RUST_LOG` for the log.

use oxmcp::lambda::Lambda;
use oxmcp::Server;
use std::process::ExitCode;
use std::sync::Arc;

// One thread: a function instance serves one event at a time, and a smaller runtime starts
// sooner.
#[tokio::main(flavor = "current_thread")]
async fn main() -> ExitCode {
    oxmcp::logging::init();
    let builder = Server::builder();
    let builder = match std::env::var("MCP_TASK_STORE") {
        Ok(url) => {
            use oxmcp::redis::{RedisReplayGuard, RedisTaskStore};
            let (store, guard) = match (
                RedisTaskStore::connect(&url).await,
                RedisReplayGuard::connect(&url).await,
            ) {
                (Ok(store), Ok(guard)) => (store, guard),
                (Err(e), _) | (_, Err(e)) => {
                    eprintln!("MCP_TASK_STORE={url}: {e}");
                    return ExitCode::FAILURE;
                }
            };
            mcp_tests::conformance::server(builder)
                .task_store(Arc::new(store))
                .request_state_codec(move |codec| codec.shared_single_use(Arc::new(guard)))
        }
        Err(_) => mcp_tests::conformance::stateless_server(builder),
    };
    match Lambda::new(builder).run().await {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("oxmcp-lambda-example: {e}");
            ExitCode::FAILURE
        }
    }
}
