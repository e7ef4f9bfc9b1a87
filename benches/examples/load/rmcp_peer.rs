//! The same tools as `ours.rs`, written the way rmcp 3.11's own examples and tests write an MRTR
//! server: `#[tool_router]` handlers that read `InputResponses` and `RequestState` and return a
//! `CallToolResponse`, carrying what earlier rounds learned in a `requestState` sealed with
//! rmcp's `RequestStateCodec` (HMAC-SHA256, bound to the tool and its arguments, with a TTL), as a
//! careful user would. Served statelessly over streamable HTTP with JSON replies and
//! `TCP_NODELAY` set on every accepted connection. The task tools run under rmcp's
//! `TaskManager` (the tasks extension, SEP-2663), one shared by every request.

use std::sync::Arc;
use std::time::Duration;

use rmcp::handler::server::tool::{InputResponses, RequestState};
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{
    CallToolResponse, CallToolResult, ContentBlock, ElicitRequest, ElicitRequestParams,
    InputRequest, InputRequests, InputRequiredResult, ProtocolVersion, RequestStateCodec,
    SealOptions, ServerCapabilities, ServerConfig,
};
use rmcp::model::{CreateTaskResult, GetTaskParams, GetTaskResult, UpdateTaskParams};
use rmcp::service::RequestContext;
use rmcp::task_manager::{TaskExit, TaskManager, TaskOptions};
use rmcp::transport::streamable_http_server::{
    session::local::LocalSessionManager, StreamableHttpServerConfig, StreamableHttpService,
};
use rmcp::{tool, tool_handler, tool_router, ErrorData, RoleServer, ServerHandler};
use serde::{Deserialize, Serialize};
use serde_json::json;

/// The rmcp server: one codec and one task manager shared by every request.
#[derive(Clone)]
pub struct Peer {
    codec: Arc<RequestStateCodec>,
    tasks: TaskManager,
}

#[derive(Deserialize, schemars::JsonSchema)]
pub struct RoundsArgs {
    /// How many questions to ask, one per round.
    rounds: u32,
}

/// What the multi-round tools carry between rounds.
#[derive(Serialize, Deserialize)]
struct Carried {
    answers: Vec<String>,
}

fn form(message: &str, field: &str) -> InputRequest {
    let schema = json!({
        "type": "object",
        "properties": { field: { "type": "string" } },
        "required": [field]
    });
    InputRequest::Elicitation(ElicitRequest::new(
        ElicitRequestParams::FormElicitationParams {
            meta: None,
            message: message.into(),
            requested_schema: serde_json::from_value(schema).expect("static schema"),
        },
    ))
}

fn ask(key: &str, message: &str, field: &str, state: Option<String>) -> CallToolResponse {
    let mut requests = InputRequests::new();
    requests.insert(key.into(), form(message, field));
    InputRequiredResult::new(Some(requests), state).into()
}

/// The accepted answer's `field`, or the action the user took instead.
fn answer(
    responses: &Option<rmcp::model::InputResponses>,
    key: &str,
    field: &str,
) -> Option<String> {
    let r = responses.as_ref()?.get(key)?;
    match r.get("action").and_then(|a| a.as_str()) {
        Some("accept") => r["content"][field].as_str().map(str::to_owned),
        Some("decline") => Some("declined".into()),
        Some(_) => Some("cancelled".into()),
        None => None,
    }
}

/// Tasks kept for as long as this project's bench server keeps its own.
fn task_options() -> TaskOptions {
    TaskOptions::new().with_ttl_ms(5_000)
}

fn text(s: String) -> CallToolResponse {
    CallToolResult::success(vec![ContentBlock::text(s)]).into()
}

impl Peer {
    fn seal(&self, binding: &str, carried: &Carried) -> Result<String, ErrorData> {
        let opts = SealOptions::new()
            .associated_data(binding.as_bytes())
            .ttl(Duration::from_secs(600));
        self.codec
            .seal_json_with(carried, &opts)
            .map_err(|e| ErrorData::internal_error(e.to_string(), None))
    }

    fn open(&self, binding: &str, state: Option<&str>) -> Result<Carried, ErrorData> {
        match state {
            None => Ok(Carried { answers: vec![] }),
            Some(s) => self
                .codec
                .open_json_with(s, binding.as_bytes())
                .map_err(|_| ErrorData::invalid_params("invalid requestState", None)),
        }
    }
}

#[tool_router]
impl Peer {
    /// Creates the server with a fresh random signing key.
    pub fn new() -> Self {
        let mut key = [0u8; 32];
        getrandom::getrandom(&mut key).expect("OS random source");
        Peer {
            codec: Arc::new(RequestStateCodec::try_new(key.to_vec()).expect("32-byte key")),
            tasks: TaskManager::new(),
        }
    }

    #[tool(description = "Returns a fixed text.")]
    async fn test_simple_text(&self) -> Result<CallToolResult, ErrorData> {
        Ok(CallToolResult::success(vec![ContentBlock::text(
            "This is a simple text response for testing.",
        )]))
    }

    #[tool(description = "Asks the user's name, then greets them.")]
    async fn test_input_required_result_elicitation(
        &self,
        InputResponses(responses): InputResponses,
    ) -> Result<CallToolResponse, ErrorData> {
        Ok(match answer(&responses, "user_name", "name") {
            Some(name) => text(format!("Hello, {name}!")),
            None => ask("user_name", "What is your name?", "name", None),
        })
    }

    #[tool(description = "Asks two things over two rounds.")]
    async fn test_input_required_result_multi_round(
        &self,
        InputResponses(responses): InputResponses,
        RequestState(state): RequestState,
    ) -> Result<CallToolResponse, ErrorData> {
        const BINDING: &str = "tools/call:test_input_required_result_multi_round";
        let mut carried = self.open(BINDING, state.as_deref())?;
        if carried.answers.is_empty() {
            match answer(&responses, "step1", "name") {
                None => return Ok(ask("step1", "Step 1: What is your name?", "name", None)),
                Some(name) => {
                    carried.answers.push(name);
                    let sealed = self.seal(BINDING, &carried)?;
                    return Ok(ask(
                        "step2",
                        "Step 2: What is your favorite color?",
                        "color",
                        Some(sealed),
                    ));
                }
            }
        }
        let color = answer(&responses, "step2", "color").unwrap_or_else(|| "none".into());
        Ok(text(format!("{} likes {color}", carried.answers[0])))
    }

    #[tool(description = "Answers at once, as a task.")]
    async fn task_quick(&self) -> Result<CallToolResponse, ErrorData> {
        let task = self.tasks.spawn(task_options(), |_| {
            Box::pin(async move {
                Ok(CallToolResult::success(vec![ContentBlock::text(
                    "task done",
                )]))
            })
        });
        Ok(CallToolResponse::Task(CreateTaskResult::new(task)))
    }

    #[tool(description = "Asks the user's name inside a task, then greets them.")]
    async fn task_greet(&self) -> Result<CallToolResponse, ErrorData> {
        let task = self.tasks.spawn(task_options(), |context| {
            Box::pin(async move {
                let answer = context
                    .request_input("name", form("What is your name?", "name"))
                    .await?;
                let name = match answer.get("action").and_then(|a| a.as_str()) {
                    Some("accept") => answer["content"]["name"].as_str().unwrap_or("nobody"),
                    _ => "nobody",
                };
                Ok::<_, TaskExit>(CallToolResult::success(vec![ContentBlock::text(format!(
                    "Hello, {name}!"
                ))]))
            })
        });
        Ok(CallToolResponse::Task(CreateTaskResult::new(task)))
    }

    #[tool(description = "Asks `rounds` questions, one per round, and lists the answers.")]
    async fn bench_rounds(
        &self,
        Parameters(RoundsArgs { rounds }): Parameters<RoundsArgs>,
        InputResponses(responses): InputResponses,
        RequestState(state): RequestState,
    ) -> Result<CallToolResponse, ErrorData> {
        if rounds > 64 {
            return Err(ErrorData::invalid_params("rounds must be at most 64", None));
        }
        let binding = format!("tools/call:bench_rounds:{rounds}");
        let mut carried = self.open(&binding, state.as_deref())?;
        let step = carried.answers.len();
        if step < rounds as usize {
            let key = format!("step{step}");
            match answer(&responses, &key, "answer") {
                Some(a) => carried.answers.push(a),
                None if step == 0 => {
                    return Ok(ask(&key, &format!("Question {step}?"), "answer", None))
                }
                None => return Err(ErrorData::invalid_params("missing answer", None)),
            }
        }
        let step = carried.answers.len();
        if step < rounds as usize {
            let key = format!("step{step}");
            let sealed = self.seal(&binding, &carried)?;
            return Ok(ask(
                &key,
                &format!("Question {step}?"),
                "answer",
                Some(sealed),
            ));
        }
        Ok(text(carried.answers.join(",")))
    }
}

#[tool_handler]
impl ServerHandler for Peer {
    fn get_info(&self) -> ServerConfig {
        let capabilities = ServerCapabilities::builder()
            .enable_tools()
            .enable_tasks()
            .build();
        let mut info = ServerConfig::new(capabilities);
        info.protocol_version = ProtocolVersion::V_2026_07_28;
        info
    }

    async fn get_task(
        &self,
        request: GetTaskParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<GetTaskResult, ErrorData> {
        Ok(GetTaskResult::new(self.tasks.get_task(&request.task_id)?))
    }

    async fn update_task(
        &self,
        request: UpdateTaskParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.tasks
            .update_task(&request.task_id, request.input_responses)
    }
}

/// Serves the rmcp server on `listener` until the process ends.
pub async fn serve(listener: tokio::net::TcpListener) -> std::io::Result<()> {
    let peer = Peer::new();
    let service = StreamableHttpService::new(
        move || Ok(peer.clone()),
        Arc::new(LocalSessionManager::default()),
        StreamableHttpServerConfig::default()
            .with_legacy_session_mode(false)
            .with_json_response(true)
            .with_sse_keep_alive(None),
    );
    let router = axum::Router::new().nest_service("/mcp", service);
    use axum::serve::ListenerExt;
    let listener = listener.tap_io(|tcp| {
        let _ = tcp.set_nodelay(true);
    });
    axum::serve(listener, router).await
}
