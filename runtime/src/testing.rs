//! Drive a multi-round call in process, with scripted answers, as a test would: no transport,
//! no client, the same core the transports use.
//!
//! ```no_run
//! # async fn demo(server: oxmcp::Server) {
//! use oxmcp::testing::Rounds;
//! use serde_json::json;
//!
//! let mut rounds = Rounds::new(&server);
//! let result = rounds
//!     .call_tool("book_table", json!({"restaurant": "Chez Rust", "party": 2}), |_key, _request| {
//!         json!({"action": "accept", "content": {"name": "Ada", "email": "ada@example.com"}})
//!     })
//!     .await
//!     .unwrap();
//! assert_eq!(rounds.asked().len(), 1);
//! # }
//! ```

use crate::handler::Principal;
use crate::server::Server;
use crate::wire::{META_CAPS, META_VERSION};
use oxmcp_schema::{
    methods, CallToolResult, ClientCapabilities, ClientCapabilitiesElicitation,
    ClientCapabilitiesRoots, ClientCapabilitiesSampling, Error, InputRequest, InputRequiredResult,
    ResultType, LATEST_PROTOCOL_VERSION,
};
use serde_json::{json, Map, Value};

/// In-process MRTR rounds against a [`Server`]: each input request is answered by a closure, the
/// retry carries the answers and the `requestState`, until the call completes.
pub struct Rounds<'a> {
    server: &'a Server,
    capabilities: ClientCapabilities,
    principal: Option<Principal>,
    max_rounds: usize,
    asked: Vec<(String, InputRequest)>,
}

impl<'a> Rounds<'a> {
    /// Rounds against `server`, as a client that declares every capability (form and URL
    /// elicitation, sampling with tools, roots), with no principal, for at most 16 rounds.
    pub fn new(server: &'a Server) -> Self {
        Rounds {
            server,
            capabilities: ClientCapabilities {
                elicitation: Some(ClientCapabilitiesElicitation {
                    form: Some(Map::new()),
                    url: Some(Map::new()),
                    ..Default::default()
                }),
                sampling: Some(ClientCapabilitiesSampling {
                    tools: Some(Map::new()),
                    ..Default::default()
                }),
                roots: Some(ClientCapabilitiesRoots::default()),
                ..Default::default()
            },
            principal: None,
            max_rounds: 16,
            asked: Vec::new(),
        }
    }

    /// Declare these capabilities instead.
    pub fn capabilities(mut self, capabilities: ClientCapabilities) -> Self {
        self.capabilities = capabilities;
        self
    }

    /// Call as this principal.
    pub fn principal(mut self, principal: Principal) -> Self {
        self.principal = Some(principal);
        self
    }

    /// Give up after this many rounds.
    pub fn max_rounds(mut self, n: usize) -> Self {
        self.max_rounds = n;
        self
    }

    /// Every input request the server made so far, by key, in order.
    pub fn asked(&self) -> &[(String, InputRequest)] {
        &self.asked
    }

    /// Call `tool` with `arguments`, answering each input request with `answer(key, request)`
    /// (a bare `ElicitResult`, `CreateMessageResult` or `ListRootsResult` as JSON). The tool's
    /// result, or the JSON-RPC error the call ended with.
    pub async fn call_tool(
        &mut self,
        tool: &str,
        arguments: Value,
        mut answer: impl FnMut(&str, &InputRequest) -> Value,
    ) -> Result<CallToolResult, Error> {
        let mut state: Option<String> = None;
        let mut responses = Map::new();
        for round in 0..self.max_rounds {
            let mut params = json!({
                "name": tool,
                "arguments": arguments,
                "_meta": {
                    META_VERSION: LATEST_PROTOCOL_VERSION,
                    META_CAPS: self.capabilities,
                },
            });
            if let Value::Object(p) = &mut params {
                if let Some(s) = state.take() {
                    p.insert("requestState".into(), Value::String(s));
                }
                if !responses.is_empty() {
                    p.insert(
                        "inputResponses".into(),
                        Value::Object(std::mem::take(&mut responses)),
                    );
                }
            }
            let message = json!({"jsonrpc": "2.0", "id": round, "method": methods::TOOLS_CALL,
                                 "params": params});
            let reply = self
                .server
                .handle_message(&message.to_string(), self.principal.as_ref())
                .await
                .ok_or_else(|| Error::internal("no reply"))?
                .to_value();
            if let Some(error) = reply.get("error") {
                return Err(serde_json::from_value(error.clone())
                    .unwrap_or_else(|_| Error::internal(error.to_string())));
            }
            let result = reply.get("result").cloned().unwrap_or(Value::Null);
            let kind = result.get("resultType").and_then(Value::as_str);
            if kind != Some(ResultType::InputRequired.as_str()) {
                return serde_json::from_value(result)
                    .map_err(|e| Error::internal(format!("not a tool result: {e}")));
            }
            let ask: InputRequiredResult = serde_json::from_value(result)
                .map_err(|e| Error::internal(format!("not an input_required result: {e}")))?;
            for (key, request) in ask.input_requests.into_iter().flatten() {
                responses.insert(key.clone(), answer(&key, &request));
                self.asked.push((key, request));
            }
            state = ask.request_state;
        }
        Err(Error::internal(format!(
            "still input_required after {} rounds",
            self.max_rounds
        )))
    }
}
