//! The same tools as `ours.rs`, written the way rust-mcp-sdk 2.0 (the SDK built on
//! rust-mcp-schema) writes an MRTR server: `#[mcp_tool]` structs gathered by `tool_box!`, a
//! `ServerHandler` whose `handle_call_tool_request_mrtr` reads `inputResponses` and
//! `requestState` from the request and returns an `InputRequiredResult`, and what earlier rounds
//! learned carried in a `requestState` signed with the SDK's `RequestStateCodec` (HMAC-SHA256,
//! with a max age; the tool and its arguments go into the signed payload, as the codec's docs
//! advise for binding). Served by the SDK's own streamable HTTP handler (`McpHttpHandler`), with
//! JSON replies, mounted on axum the way the `rust-mcp-axum` crate mounts it, with `TCP_NODELAY`
//! set on every accepted connection.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use axum::extract::State;
use axum::response::IntoResponse;
use rust_mcp_sdk::id_generator::{FastIdGenerator, UuidGenerator};
use rust_mcp_sdk::macros::{mcp_tool, JsonSchema};
use rust_mcp_sdk::mcp_http::{McpAppState, McpHttpHandler, DEFAULT_MAX_LISTEN_STREAMS};
use rust_mcp_sdk::mcp_server::{RequestStateCodec, ServerHandler, ToMcpServerHandler};
use rust_mcp_sdk::schema::{
    CallToolRequestParams, CallToolResult, ElicitRequest, ElicitRequestFormParams,
    ElicitRequestFormParamsRequestedSchema, ElicitRequestParams, ElicitResultAction,
    ElicitResultContent, ElicitResultContentPrimitive, Implementation, InputRequest, InputRequests,
    InputRequiredResult, InputResponse, InputResponses, ListToolsResult, ListToolsResultCacheScope,
    PaginatedRequestParams, RpcError, ServerCapabilities, ServerCapabilitiesTools, ServerResult,
    StringSchema, TextContent,
};
use rust_mcp_sdk::{tool_box, McpServer, RequestContext, ServerDetails, TransportOptions};
use serde::{Deserialize, Serialize};

/// Returns a fixed text.
#[mcp_tool(name = "test_simple_text", description = "Returns a fixed text.")]
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
pub struct SimpleText {}

/// Asks the user's name, then greets them.
#[mcp_tool(
    name = "test_input_required_result_elicitation",
    description = "Asks the user's name, then greets them."
)]
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
pub struct Elicitation {}

/// Asks two things over two rounds.
#[mcp_tool(
    name = "test_input_required_result_multi_round",
    description = "Asks two things over two rounds."
)]
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
pub struct MultiRound {}

/// Asks `rounds` questions, one per round, and lists the answers.
#[mcp_tool(
    name = "bench_rounds",
    description = "Asks `rounds` questions, one per round, and lists the answers."
)]
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
pub struct BenchRounds {
    /// How many questions to ask, one per round.
    rounds: u32,
}

tool_box!(
    PeerTools,
    [SimpleText, Elicitation, MultiRound, BenchRounds]
);

/// What the multi-round tools carry between rounds, with what it is bound to.
#[derive(Serialize, Deserialize)]
struct Carried {
    binding: String,
    answers: Vec<String>,
}

/// The handler: one codec shared by every request.
pub struct Peer {
    codec: RequestStateCodec,
}

fn form(message: &str, field: &str) -> InputRequest {
    let mut properties = BTreeMap::new();
    properties.insert(
        field.to_string(),
        StringSchema::new(None, None, None, None, None, None).into(),
    );
    let schema = ElicitRequestFormParamsRequestedSchema::new(properties, vec![field.into()], None);
    ElicitRequest::new(ElicitRequestParams::FormParams(
        ElicitRequestFormParams::new(message.into(), schema),
    ))
    .into()
}

fn ask(key: &str, message: &str, field: &str, state: Option<String>) -> ServerResult {
    let mut requests = BTreeMap::new();
    requests.insert(key.to_string(), form(message, field));
    InputRequiredResult {
        input_requests: Some(InputRequests(requests)),
        meta: None,
        request_state: state,
        result_type: "input_required".into(),
    }
    .into()
}

/// The accepted answer's `field`, or the action the user took instead.
fn answer(responses: &Option<InputResponses>, key: &str, field: &str) -> Option<String> {
    match responses.as_ref()?.0.get(key)? {
        InputResponse::ElicitResult(r) => match r.action {
            ElicitResultAction::Accept => match r.content.as_ref()?.get(field)? {
                ElicitResultContent::Primitive(ElicitResultContentPrimitive::String(s)) => {
                    Some(s.clone())
                }
                _ => None,
            },
            ElicitResultAction::Decline => Some("declined".into()),
            ElicitResultAction::Cancel => Some("cancelled".into()),
        },
        _ => None,
    }
}

fn text(s: String) -> ServerResult {
    CallToolResult::text_content(vec![TextContent::from(s)]).into()
}

impl Peer {
    /// Creates the handler with a fresh random signing key.
    pub fn new() -> Self {
        let mut key = [0u8; 32];
        getrandom::getrandom(&mut key).expect("OS random source");
        Peer {
            codec: RequestStateCodec::with_key(key).with_max_age(Duration::from_secs(600)),
        }
    }

    fn seal(&self, carried: &Carried) -> Result<String, RpcError> {
        let payload = serde_json::to_vec(carried)
            .map_err(|e| RpcError::internal_error().with_message(e.to_string()))?;
        Ok(self.codec.encode(&payload))
    }

    fn open(&self, binding: &str, state: Option<&str>) -> Result<Carried, RpcError> {
        let invalid = || RpcError::invalid_params().with_message("invalid requestState");
        match state {
            None => Ok(Carried {
                binding: binding.into(),
                answers: vec![],
            }),
            Some(s) => {
                let bytes = self.codec.decode(s).ok_or_else(invalid)?;
                let carried: Carried = serde_json::from_slice(&bytes).map_err(|_| invalid())?;
                if carried.binding != binding {
                    return Err(invalid());
                }
                Ok(carried)
            }
        }
    }

    fn multi_round(
        &self,
        responses: &Option<InputResponses>,
        state: Option<&str>,
    ) -> Result<ServerResult, RpcError> {
        let mut carried = self.open("tools/call:test_input_required_result_multi_round", state)?;
        if carried.answers.is_empty() {
            return Ok(match answer(responses, "step1", "name") {
                None => ask("step1", "Step 1: What is your name?", "name", None),
                Some(name) => {
                    carried.answers.push(name);
                    let sealed = self.seal(&carried)?;
                    ask(
                        "step2",
                        "Step 2: What is your favorite color?",
                        "color",
                        Some(sealed),
                    )
                }
            });
        }
        let color = answer(responses, "step2", "color").unwrap_or_else(|| "none".into());
        Ok(text(format!("{} likes {color}", carried.answers[0])))
    }

    fn rounds(
        &self,
        rounds: u32,
        responses: &Option<InputResponses>,
        state: Option<&str>,
    ) -> Result<ServerResult, RpcError> {
        if rounds > 64 {
            return Err(RpcError::invalid_params().with_message("rounds must be at most 64"));
        }
        let mut carried = self.open(&format!("tools/call:bench_rounds:{rounds}"), state)?;
        let step = carried.answers.len();
        if step < rounds as usize {
            let key = format!("step{step}");
            match answer(responses, &key, "answer") {
                Some(a) => carried.answers.push(a),
                None if step == 0 => {
                    return Ok(ask(&key, &format!("Question {step}?"), "answer", None))
                }
                None => return Err(RpcError::invalid_params().with_message("missing answer")),
            }
        }
        let step = carried.answers.len();
        if step < rounds as usize {
            let key = format!("step{step}");
            let sealed = self.seal(&carried)?;
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

#[async_trait]
impl ServerHandler for Peer {
    async fn handle_list_tools_request(
        &self,
        _params: Option<PaginatedRequestParams>,
        _context: &RequestContext,
        _runtime: Arc<dyn McpServer>,
    ) -> Result<ListToolsResult, RpcError> {
        Ok(ListToolsResult {
            cache_scope: ListToolsResultCacheScope::Private,
            result_type: "complete".into(),
            ttl_ms: 0,
            meta: None,
            next_cursor: None,
            tools: PeerTools::tools(),
        })
    }

    async fn handle_call_tool_request_mrtr(
        &self,
        mut params: CallToolRequestParams,
        _context: &RequestContext,
        _runtime: Arc<dyn McpServer>,
    ) -> Result<ServerResult, RpcError> {
        let responses = params.input_responses.take();
        let state = params.request_state.take();
        let tool = PeerTools::try_from(params)
            .map_err(|e| RpcError::invalid_params().with_message(e.to_string()))?;
        match tool {
            PeerTools::SimpleText(_) => {
                Ok(text("This is a simple text response for testing.".into()))
            }
            PeerTools::Elicitation(_) => Ok(match answer(&responses, "user_name", "name") {
                Some(name) => text(format!("Hello, {name}!")),
                None => ask("user_name", "What is your name?", "name", None),
            }),
            PeerTools::MultiRound(_) => self.multi_round(&responses, state.as_deref()),
            PeerTools::BenchRounds(BenchRounds { rounds }) => {
                self.rounds(rounds, &responses, state.as_deref())
            }
        }
    }
}

/// One POST to the MCP endpoint, handed to the SDK's streamable HTTP handler.
async fn post(
    State((state, handler)): State<(Arc<McpAppState>, Arc<McpHttpHandler>)>,
    headers: axum::http::HeaderMap,
    uri: axum::http::Uri,
    body: axum::body::Bytes,
) -> axum::response::Response {
    let Ok(body) = std::str::from_utf8(&body) else {
        return (axum::http::StatusCode::BAD_REQUEST, "body is not UTF-8").into_response();
    };
    let request =
        McpHttpHandler::create_request(axum::http::Method::POST, uri, headers, Some(body));
    match handler.handle_streamable_http(request, state).await {
        Ok(response) => {
            let (parts, body) = response.into_parts();
            axum::response::Response::from_parts(parts, axum::body::Body::new(body))
        }
        Err(e) => (axum::http::StatusCode::INTERNAL_SERVER_ERROR, e.to_string()).into_response(),
    }
}

/// Serves the rust-mcp-sdk server on `listener` until the process ends.
pub async fn serve(listener: tokio::net::TcpListener) -> std::io::Result<()> {
    let details = ServerDetails {
        server_info: Implementation {
            name: "rmsdk-peer".into(),
            version: "0.1.0".into(),
            title: None,
            description: None,
            icons: vec![],
            website_url: None,
        },
        capabilities: ServerCapabilities {
            tools: Some(ServerCapabilitiesTools { list_changed: None }),
            ..Default::default()
        },
        instructions: None,
        meta: None,
    };
    let state = Arc::new(McpAppState {
        id_generator: Arc::new(UuidGenerator {}),
        stream_id_gen: Arc::new(FastIdGenerator::new(Some("s_"))),
        server_details: Arc::new(details),
        handler: Peer::new().to_mcp_server_handler(),
        ping_interval: Duration::from_secs(12),
        transport_options: Arc::new(TransportOptions::default()),
        enable_json_response: true,
        message_observer: None,
        extensions: Arc::new(tokio::sync::RwLock::new(None)),
        active_listen_streams: Arc::new(tokio::sync::Mutex::new(Vec::new())),
        max_listen_streams: DEFAULT_MAX_LISTEN_STREAMS,
    });
    let handler = Arc::new(McpHttpHandler::new(vec![], None));
    let router = axum::Router::new()
        .route("/mcp", axum::routing::post(post))
        .with_state((state, handler));
    use axum::serve::ListenerExt;
    let listener = listener.tap_io(|tcp| {
        let _ = tcp.set_nodelay(true);
    });
    axum::serve(listener, router).await
}
