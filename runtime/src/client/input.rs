//! Answering the server's input requests: the untyped [`InputHandler`], the typed
//! [`TypedInput`], the capabilities a client declares, and a 2025 server's own requests
//! answered through the handler (over HTTP or stdio).

use super::*;

/// Answers the server's input requests (elicitation, sampling, roots) during MRTR rounds.
pub trait InputHandler: Send + Sync + 'static {
    /// The answer to `request` (a bare `ElicitResult`, `CreateMessageResult` or `ListRootsResult`).
    fn answer(&self, key: &str, request: InputRequest) -> BoxFuture<Result<Value, ClientError>>;
}

/// A handler from a closure.
impl<F> InputHandler for F
where
    F: Fn(&str, InputRequest) -> BoxFuture<Result<Value, ClientError>> + Send + Sync + 'static,
{
    fn answer(&self, key: &str, request: InputRequest) -> BoxFuture<Result<Value, ClientError>> {
        self(key, request)
    }
}

/// Declines every elicitation and answers nothing else: for clients that declare no capabilities.
#[derive(Debug, Clone, Copy, Default)]
pub struct DeclineAll;

impl InputHandler for DeclineAll {
    fn answer(&self, _key: &str, request: InputRequest) -> BoxFuture<Result<Value, ClientError>> {
        Box::pin(async move {
            match request {
                InputRequest::ElicitRequest(_) => Ok(json!({"action": "decline"})),
                other => Err(ClientError::Unanswerable {
                    request: InputKind::of(&other),
                }),
            }
        })
    }
}

/// An input handler with typed answers, for a host that would rather build an
/// `ElicitResult`, a `CreateMessageResult` or a `ListRootsResult` than JSON: implement the kinds
/// of input the host can give and wrap it in [`Typed`]. Unimplemented, an elicitation is
/// declined and a sampling or roots request is [`ClientError::Unanswerable`]; [`InputHandler`]
/// stays the escape hatch for raw JSON answers.
pub trait TypedInput: Send + Sync + 'static {
    /// Answer an elicitation (a form or a URL to visit).
    fn elicit(
        &self,
        request: oxmcp_schema::ElicitRequest,
    ) -> BoxFuture<Result<oxmcp_schema::ElicitResult, ClientError>> {
        let _ = request;
        Box::pin(async { Ok(oxmcp_schema::ElicitResult::decline()) })
    }

    /// Answer a sampling request with the client's model.
    fn sample(
        &self,
        request: oxmcp_schema::CreateMessageRequest,
    ) -> BoxFuture<Result<oxmcp_schema::CreateMessageResult, ClientError>> {
        let _ = request;
        Box::pin(async {
            Err(ClientError::Unanswerable {
                request: InputKind::Sampling,
            })
        })
    }

    /// List the client's roots.
    fn roots(
        &self,
        request: oxmcp_schema::ListRootsRequest,
    ) -> BoxFuture<Result<oxmcp_schema::ListRootsResult, ClientError>> {
        let _ = request;
        Box::pin(async {
            Err(ClientError::Unanswerable {
                request: InputKind::Roots,
            })
        })
    }
}

/// A [`TypedInput`] as the [`InputHandler`] a client takes:
/// `client.with_input(caps, Typed(MyHost))`.
#[derive(Debug, Clone, Copy, Default)]
pub struct Typed<T>(pub T);

impl<T: TypedInput> InputHandler for Typed<T> {
    fn answer(&self, _key: &str, request: InputRequest) -> BoxFuture<Result<Value, ClientError>> {
        fn json<R: serde_core::Serialize>(result: R) -> Result<Value, ClientError> {
            serde_json::to_value(result)
                .map_err(|e| ClientError::protocol_because("an answer does not serialize", e))
        }
        match request {
            InputRequest::ElicitRequest(r) => {
                let answer = self.0.elicit(r);
                Box::pin(async move { json(answer.await?) })
            }
            InputRequest::CreateMessageRequest(r) => {
                let answer = self.0.sample(r);
                Box::pin(async move { json(answer.await?) })
            }
            InputRequest::ListRootsRequest(r) => {
                let answer = self.0.roots(r);
                Box::pin(async move { json(answer.await?) })
            }
            other => {
                let request = InputKind::of(&other);
                Box::pin(async move { Err(ClientError::Unanswerable { request }) })
            }
        }
    }
}

/// Builds the capabilities a client declares on its requests:
/// `Capabilities::new().elicitation_form().sampling().roots().build()`.
#[derive(Debug, Clone, Default)]
pub struct Capabilities(ClientCapabilities);

impl Capabilities {
    /// No capabilities: the client answers no input request.
    pub fn new() -> Self {
        Capabilities::default()
    }

    fn elicitation(&mut self) -> &mut oxmcp_schema::ClientCapabilitiesElicitation {
        self.0.elicitation.get_or_insert_with(Default::default)
    }

    /// Form-mode elicitation (the user fills in a form).
    pub fn elicitation_form(mut self) -> Self {
        self.elicitation().form = Some(Map::new());
        self
    }

    /// URL-mode elicitation (the user is sent to a URL).
    pub fn elicitation_url(mut self) -> Self {
        self.elicitation().url = Some(Map::new());
        self
    }

    /// Sampling (the client's model answers).
    pub fn sampling(mut self) -> Self {
        self.0.sampling.get_or_insert_with(Default::default);
        self
    }

    /// Sampling with tool use.
    pub fn sampling_with_tools(mut self) -> Self {
        self.0.sampling.get_or_insert_with(Default::default).tools = Some(Map::new());
        self
    }

    /// The client's roots.
    pub fn roots(mut self) -> Self {
        self.0.roots.get_or_insert_with(Default::default);
        self
    }

    /// The tasks extension (`io.modelcontextprotocol/tasks`): the server may run a tool call as
    /// a task, which [`Client::call_tool`] follows to its end and [`Client::start_tool`] hands
    /// over as a [`ToolRun`].
    pub fn tasks(mut self) -> Self {
        self.0
            .extensions
            .get_or_insert_with(Default::default)
            .insert(tasks::TASKS_EXTENSION.to_string(), Map::new());
        self
    }

    /// The capabilities, for [`Client::with_input`].
    pub fn build(self) -> ClientCapabilities {
        self.0
    }
}

/// The answer to a server's request (a 2025-era server's `elicitation/create`, `sampling/
/// createMessage`, `roots/list` or `ping`), as the JSON-RPC response to send back.
pub(super) async fn answer_server_request(
    handler: &Arc<dyn InputHandler>,
    request: &Value,
) -> Value {
    let id = request.get("id").cloned().unwrap_or(Value::Null);
    let method = request.get("method").and_then(Value::as_str).unwrap_or("");
    if method == "ping" {
        return json!({"jsonrpc": "2.0", "id": id, "result": {}});
    }
    let ask =
        json!({"method": method, "params": request.get("params").cloned().unwrap_or(json!({}))});
    let outcome = match serde_json::from_value::<InputRequest>(ask) {
        Ok(input) => handler.answer(&id.to_string(), input).await,
        Err(_) => {
            return json!({"jsonrpc": "2.0", "id": id,
                          "error": {"code": error_codes::METHOD_NOT_FOUND, "message": format!("method not found: {method}")}})
        }
    };
    match outcome {
        Ok(result) => json!({"jsonrpc": "2.0", "id": id, "result": result}),
        Err(e) => json!({"jsonrpc": "2.0", "id": id,
                         "error": {"code": error_codes::INTERNAL_ERROR, "message": e.to_string()}}),
    }
}
