//! Drive a multi-round call in process, with scripted answers, as a test would: the project's
//! client over its in-process transport ([`client`], [`Client::in_process`]), so the rounds run
//! exactly as they do against a served instance, through the same core the transports use.
//!
//! ```no_run
//! # async fn demo(server: oxmcp::Server) {
//! use oxmcp::testing::Rounds;
//! use serde_json::json;
//!
//! let mut rounds = Rounds::new(server); // or an `Arc<Server>` shared with other tests
//! let result = rounds
//!     .call_tool("book_table", json!({"restaurant": "Chez Rust", "party": 2}), |_key, _request| {
//!         json!({"action": "accept", "content": {"name": "Ada", "email": "ada@example.com"}})
//!     })
//!     .await
//!     .unwrap();
//! assert_eq!(rounds.asked().len(), 1);
//! # }
//! ```

use crate::client::{Capabilities, Client, ClientError, InputHandler};
use crate::handler::Principal;
use crate::server::Server;
use crate::wire::BoxFuture;
use oxmcp_schema::{CallToolResult, ClientCapabilities, Error, InputRequest};
use serde_json::Value;
use std::sync::{Arc, Mutex};

/// A client of `server` in this process, calling as `principal` ([`Client::in_process`]).
pub fn client(server: Arc<Server>, principal: Option<Principal>) -> Client {
    Client::in_process(move |text| {
        let (server, principal) = (server.clone(), principal.clone());
        Box::pin(async move {
            server
                .handle_message(&text, principal.as_ref())
                .await
                .map(|reply| reply.to_value().to_string())
        })
    })
}

/// In-process MRTR rounds against a [`Server`]: each input request is answered by a closure, the
/// retry carries the answers and the `requestState`, until the call completes.
pub struct Rounds {
    server: Arc<Server>,
    capabilities: ClientCapabilities,
    principal: Option<Principal>,
    max_rounds: usize,
    asked: Arc<Mutex<Vec<(String, InputRequest)>>>,
}

/// The scripted answers, as the client's input handler: each request is recorded, then
/// answered by the test's closure.
struct Scripted<F> {
    answer: Mutex<F>,
    asked: Arc<Mutex<Vec<(String, InputRequest)>>>,
}

impl<F> InputHandler for Scripted<F>
where
    F: FnMut(&str, &InputRequest) -> Value + Send + 'static,
{
    fn answer(&self, key: &str, request: InputRequest) -> BoxFuture<Result<Value, ClientError>> {
        let value = (crate::wire::lock(&self.answer))(key, &request);
        crate::wire::lock(&self.asked).push((key.to_string(), request));
        Box::pin(async move { Ok(value) })
    }
}

impl Rounds {
    /// Rounds against `server` (a `Server`, or an `Arc<Server>` shared with other tests), as a
    /// client that declares every capability (form and URL elicitation, sampling with tools,
    /// roots), with no principal, for at most 16 rounds.
    pub fn new(server: impl Into<Arc<Server>>) -> Self {
        Rounds {
            server: server.into(),
            capabilities: Capabilities::new()
                .elicitation_form()
                .elicitation_url()
                .sampling_with_tools()
                .roots()
                .build(),
            principal: None,
            max_rounds: 16,
            asked: Arc::default(),
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
    pub fn asked(&self) -> Vec<(String, InputRequest)> {
        crate::wire::lock(&self.asked).clone()
    }

    /// Call `tool` with `arguments`, answering each input request with `answer(key, request)`
    /// (a bare `ElicitResult`, `CreateMessageResult` or `ListRootsResult` as JSON). The tool's
    /// result, or the JSON-RPC error the call ended with.
    pub async fn call_tool(
        &mut self,
        tool: &str,
        arguments: Value,
        answer: impl FnMut(&str, &InputRequest) -> Value + Send + 'static,
    ) -> Result<CallToolResult, Error> {
        let handler = Scripted {
            answer: Mutex::new(answer),
            asked: self.asked.clone(),
        };
        let client = client(self.server.clone(), self.principal.clone())
            .max_rounds(self.max_rounds)
            .timeout(None)
            .with_input(self.capabilities.clone(), handler);
        client
            .call_tool(tool, arguments)
            .await
            .map_err(|e| match e {
                ClientError::Rpc(error) => error,
                other => Error::internal(other.to_string()),
            })
    }
}
