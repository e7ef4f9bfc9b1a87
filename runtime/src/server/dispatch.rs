//! One message in, at most one reply out: the typed request is matched by its
//! `ClientRequest` variant and routed.

use super::round::Caller;
use super::{Server, SUPPORTED_VERSIONS};
use crate::handler::Principal;
use crate::resume::events::Notifier;
use crate::wire::{Incoming, Reply};
use oxmcp_schema::{ClientRequest, Error};

impl Server {
    /// Handle one JSON-RPC message given as text; the reply to write back, if any. Never panics
    /// on input: malformed JSON, batches and unknown methods get their JSON-RPC errors.
    /// Notifications a handler sends (progress, log messages) are dropped: transports that can
    /// deliver them use their own entry point.
    pub async fn handle_message(&self, text: &str, principal: Option<&Principal>) -> Option<Reply> {
        self.handle(self.read(text.as_bytes()), principal, None)
            .await
    }

    /// Read one message as this server's protocol versions allow.
    pub(crate) fn read(&self, bytes: &[u8]) -> Incoming {
        Incoming::parse(bytes, SUPPORTED_VERSIONS)
    }

    /// Handle one read message, sending the notifications its handler emits (progress, log
    /// messages, a listen stream's events) to `notifier` before the reply.
    // Plain functions returning the future, not `async fn`s: an `async fn` keeps its arguments
    // in its own state beside the inner future they are moved into, and `incoming` would be
    // carried twice.
    pub(crate) fn handle<'a>(
        &'a self,
        incoming: Incoming,
        principal: Option<&'a Principal>,
        notifier: Option<Notifier>,
    ) -> impl std::future::Future<Output = Option<Reply>> + 'a {
        self.handle_as(incoming, Caller::new(principal, notifier))
    }

    /// [`Server::handle`] for a message that came `via` a transport (its telemetry says so).
    #[cfg(any(feature = "http", feature = "stdio"))]
    pub(crate) fn handle_via<'a>(
        &'a self,
        incoming: Incoming,
        principal: Option<&'a Principal>,
        notifier: Option<Notifier>,
        via: crate::wire::Via,
    ) -> impl std::future::Future<Output = Option<Reply>> + 'a {
        self.handle_as(incoming, Caller::new(principal, notifier).via(via))
    }

    /// [`Server::handle`] for `caller`, whose asks, on a 2025 session, go to the client
    /// through its live channel. With metrics on, the request is counted and timed; a `debug`
    /// span names its method and target.
    pub(crate) fn handle_as<'a>(
        &'a self,
        incoming: Incoming,
        caller: Caller<'a>,
    ) -> impl std::future::Future<Output = Option<Reply>> + 'a {
        // With telemetry on, the request's span is its SERVER span, finished with its reply.
        #[cfg(feature = "otel")]
        let traced = if crate::otel::active() {
            self.server_span(&incoming, &caller.via).map(Box::new)
        } else {
            None
        };
        let span = request_span(&incoming);
        #[cfg(feature = "metrics")]
        let timed = self
            .metrics()
            .cloned()
            .map(|metrics| (metrics, method_name(&incoming), std::time::Instant::now()));
        let inner = tracing::Instrument::instrument(self.handle_inner(incoming, caller), span);
        // Not an `async` block: one would hold `inner` twice (as its capture and as the future
        // it awaits).
        #[cfg(feature = "metrics")]
        let inner = futures_util::FutureExt::map(inner, move |reply| {
            if let (Some((metrics, method, started)), Some(reply)) = (timed, &reply) {
                metrics.request(method, outcome(reply), started.elapsed().as_secs_f64());
            }
            reply
        });
        // The handler runs in the span's context, so what it starts (a step, a span of the
        // application's) is the span's child.
        #[cfg(feature = "otel")]
        let inner = match traced {
            Some(traced) => {
                let cx = traced.cx.clone();
                let traced_inner = opentelemetry::context::FutureExt::with_context(inner, cx);
                futures_util::future::Either::Left(futures_util::FutureExt::map(
                    traced_inner,
                    move |reply| {
                        traced.finish(reply.as_ref());
                        reply
                    },
                ))
            }
            None => futures_util::future::Either::Right(inner),
        };
        inner
    }

    /// The SERVER span of a request, named and attributed by the MCP semantic conventions.
    #[cfg(feature = "otel")]
    fn server_span(
        &self,
        incoming: &Incoming,
        via: &crate::wire::Via,
    ) -> Option<crate::otel::ServerSpan> {
        use crate::otel::Target;
        match incoming {
            Incoming::Request(r) => {
                let (method, _) = head(r);
                let registry = self.registry();
                // The arguments, only for a tool whose author opted in.
                let mut arguments = None;
                let target = match &**r {
                    ClientRequest::CallToolRequest(c) => {
                        let tool = registry.tools.get(&c.params.name);
                        if tool.is_some_and(|t| t.handler.trace_payloads()) {
                            arguments = Some(crate::otel::Payloads(c.params.arguments.as_ref()));
                        }
                        Target::Tool(&c.params.name, tool.is_some())
                    }
                    ClientRequest::GetPromptRequest(p) => Target::Prompt(
                        &p.params.name,
                        registry.prompts.contains_key(&p.params.name),
                    ),
                    ClientRequest::ReadResourceRequest(x) => Target::Resource(&x.params.uri),
                    _ => Target::None,
                };
                Some(crate::otel::server_span(
                    method,
                    target,
                    Some(crate::wire::request_id(r)),
                    Some(crate::wire::request_meta(r)),
                    via,
                    arguments,
                ))
            }
            Incoming::Extension(r) => {
                // A fixed set of names, whatever the method the client wrote.
                let method = crate::wire::EXTENSION_METHODS
                    .iter()
                    .find(|m| **m == r.method)
                    .copied()
                    .unwrap_or("other");
                let target = match r.params.get("taskId").and_then(serde_json::Value::as_str) {
                    Some(task) => Target::Task(task),
                    None => Target::None,
                };
                Some(crate::otel::server_span(
                    method,
                    target,
                    Some(&r.id),
                    Some(&r.meta),
                    via,
                    None,
                ))
            }
            _ => None,
        }
    }

    async fn handle_inner(&self, incoming: Incoming, caller: Caller<'_>) -> Option<Reply> {
        match incoming {
            Incoming::Request(request) => {
                #[cfg(feature = "validate")]
                if let Some(refused) = self.refuse_invalid(&request) {
                    return Some(refused);
                }
                let reply = self.dispatch(request, caller).await;
                #[cfg(all(debug_assertions, feature = "validate"))]
                let reply = reply.map(|r| self.check_outgoing(r));
                reply
            }
            // Skills are served in both eras.
            #[cfg(feature = "tasks")]
            Incoming::Extension(request) if !request.method.starts_with("tasks/") => {
                Some(self.skills_request(*request))
            }
            // Tasks are a 2026 extension; a 2025 session has none.
            #[cfg(feature = "tasks")]
            Incoming::Extension(request) if caller.live.is_some() => Some(Reply::error(
                Some(request.id),
                oxmcp_schema::Error::method_not_found(&request.method),
            )),
            #[cfg(feature = "tasks")]
            Incoming::Extension(request) => {
                Some(Box::pin(self.task_request(*request, caller.principal)).await)
            }
            // Without the tasks extension, `tasks/*` are unknown methods as any other.
            #[cfg(not(feature = "tasks"))]
            Incoming::Extension(request) => Some(self.skills_request(*request)),
            // Notifications (e.g. notifications/cancelled, handled by the transports) and
            // responses (servers send no requests) get no reply.
            Incoming::Notification(_) | Incoming::Response => None,
            Incoming::Rejected(rejected) => Some(Reply::error(rejected.id, rejected.error)),
        }
    }

    /// With [`ServerBuilder::validate_requests`](crate::ServerBuilder::validate_requests): a
    /// request that breaks a rule of its schema, answered -32602 with where and which rule.
    #[cfg(feature = "validate")]
    fn refuse_invalid(&self, request: &ClientRequest) -> Option<Reply> {
        if !self.validate_requests {
            return None;
        }
        let broken = oxmcp_schema::Validate::validate(request).err()?;
        Some(Reply::error(
            Some(crate::wire::request_id(request).clone()),
            Error::invalid_params(format!("the request breaks a rule of its schema: {broken}"))
                .with_data(serde_json::json!({"path": broken.path(), "rule": broken.rule()})),
        ))
    }

    /// In debug builds, a result that breaks a rule of its schema (a URI that is not one, a
    /// priority above 1) is the server's bug: it is logged and answered as an internal error
    /// naming the rule, so it shows up in development instead of at a strict client.
    #[cfg(all(debug_assertions, feature = "validate"))]
    fn check_outgoing(&self, reply: Reply) -> Reply {
        let Reply::Result(id, result) = &reply else {
            return reply;
        };
        match oxmcp_schema::Validate::validate(&**result) {
            Ok(()) => reply,
            Err(broken) => {
                tracing::error!(
                    path = broken.path(),
                    rule = broken.rule(),
                    "a result breaks a rule of its schema (checked in debug builds): {broken}"
                );
                Reply::error(
                    Some(id.clone()),
                    Error::internal(format!(
                        "the server's result breaks a rule of its schema: {broken}"
                    ))
                    .with_data(serde_json::json!({"path": broken.path(), "rule": broken.rule()})),
                )
            }
        }
    }

    async fn dispatch(&self, request: Box<ClientRequest>, caller: Caller<'_>) -> Option<Reply> {
        let principal = caller.principal;
        // The long-running methods return boxed futures that hold only what their rounds need
        // (the request taken apart, its `_meta` boxed), so that neither this future nor the
        // boxed one carries or moves the request.
        let reply = match *request {
            ClientRequest::DiscoverRequest(r) => Reply::result(r.id, self.discover()),
            ClientRequest::ListToolsRequest(r) => match self.list_tools(&r.params, principal) {
                Ok(list) => Reply::result(r.id, list),
                Err(e) => Reply::error(Some(r.id), e),
            },
            ClientRequest::ListPromptsRequest(r) => match self.list_prompts(&r.params, principal) {
                Ok(list) => Reply::result(r.id, list),
                Err(e) => Reply::error(Some(r.id), e),
            },
            ClientRequest::ListResourcesRequest(r) => {
                match self.list_resources(&r.params, principal) {
                    Ok(list) => Reply::result(r.id, list),
                    Err(e) => Reply::error(Some(r.id), e),
                }
            }
            ClientRequest::ListResourceTemplatesRequest(r) => {
                match self.list_resource_templates(&r.params, principal) {
                    Ok(list) => Reply::result(r.id, list),
                    Err(e) => Reply::error(Some(r.id), e),
                }
            }
            ClientRequest::CompleteRequest(r) => Reply::result(r.id, self.complete(&r.params)),
            ClientRequest::SubscriptionsListenRequest(r) => {
                let Some(out) = caller.notifier else {
                    return Some(Reply::error(
                        Some(r.id),
                        Error::invalid_request("subscriptions/listen needs a streaming transport"),
                    ));
                };
                return Box::pin(self.listen(r, out)).await;
            }
            ClientRequest::CallToolRequest(r) => return Some(self.call_tool(r, caller).await),
            ClientRequest::GetPromptRequest(r) => return Some(self.get_prompt(r, caller).await),
            ClientRequest::ReadResourceRequest(r) => {
                return Some(self.read_resource(r, caller).await)
            }
            // A member of a newer schema; `Incoming::parse` already answers those as unknown
            // methods, so this is only a safe default.
            other => Reply::error(None, Error::method_not_found(other.variant_name())),
        };
        Some(reply)
    }
}

/// A `debug` span for one request: its method and, for a call, its target. Disabled (and free)
/// unless a subscriber takes debug spans.
fn request_span(incoming: &Incoming) -> tracing::Span {
    let span = tracing::debug_span!(
        "mcp.request",
        method = tracing::field::Empty,
        target = tracing::field::Empty
    );
    if !span.is_disabled() {
        if let Incoming::Request(r) = incoming {
            let (method, target) = head(r);
            span.record("method", method);
            if let Some(target) = target {
                span.record("target", target);
            }
        }
        if let Incoming::Extension(r) = incoming {
            span.record("method", r.method.as_str());
        }
    }
    span
}

/// The method of a typed request and the tool, prompt or resource it targets.
fn head(r: &ClientRequest) -> (&'static str, Option<&str>) {
    use oxmcp_schema::methods;
    match r {
        ClientRequest::DiscoverRequest(_) => (methods::SERVER_DISCOVER, None),
        ClientRequest::ListResourcesRequest(_) => (methods::RESOURCES_LIST, None),
        ClientRequest::ListResourceTemplatesRequest(_) => (methods::RESOURCES_TEMPLATES_LIST, None),
        ClientRequest::ReadResourceRequest(r) => (methods::RESOURCES_READ, Some(&r.params.uri)),
        ClientRequest::SubscriptionsListenRequest(_) => (methods::SUBSCRIPTIONS_LISTEN, None),
        ClientRequest::ListPromptsRequest(_) => (methods::PROMPTS_LIST, None),
        ClientRequest::GetPromptRequest(r) => (methods::PROMPTS_GET, Some(&r.params.name)),
        ClientRequest::ListToolsRequest(_) => (methods::TOOLS_LIST, None),
        ClientRequest::CallToolRequest(r) => (methods::TOOLS_CALL, Some(&r.params.name)),
        ClientRequest::CompleteRequest(_) => (methods::COMPLETION_COMPLETE, None),
        _ => ("other", None),
    }
}

/// The method a request is counted under (a fixed set, so the label cannot grow).
#[cfg(feature = "metrics")]
fn method_name(incoming: &Incoming) -> &'static str {
    match incoming {
        Incoming::Request(r) => head(r).0,
        Incoming::Extension(r) => crate::wire::EXTENSION_METHODS
            .iter()
            .find(|m| **m == r.method)
            .copied()
            .unwrap_or("other"),
        Incoming::Rejected(_) => "rejected",
        Incoming::Notification(_) | Incoming::Response => "notification",
    }
}

/// How a reply is counted.
#[cfg(feature = "metrics")]
fn outcome(reply: &Reply) -> &'static str {
    match reply {
        Reply::Error(_) => "error",
        Reply::Result(_, result) => match &**result {
            oxmcp_schema::ServerResult::InputRequiredResult(_) => "input_required",
            _ => "ok",
        },
    }
}

/// A result reply carrying `fields` as is: the extensions' results, which the bindings do not
/// type.
#[cfg(any(feature = "skills", feature = "tasks"))]
pub(crate) fn raw_result(
    id: oxmcp_schema::RequestId,
    fields: serde_json::Map<String, serde_json::Value>,
) -> Reply {
    match oxmcp_schema::Result::from_typed(&serde_json::Value::Object(fields)) {
        Ok(result) => Reply::result(id, oxmcp_schema::ServerResult::Result(result)),
        Err(e) => Reply::error(Some(id), oxmcp_schema::Error::internal(e.to_string())),
    }
}

impl Server {
    /// `skills/list`, `skills/get` and `resources/directory/read`: answered from the skills
    /// catalog, or as unknown methods by a server that offers no skills.
    pub(crate) fn skills_request(&self, request: crate::wire::ExtensionRequest) -> Reply {
        #[cfg(feature = "skills")]
        if let Some(skills) = self.skills() {
            let params = &request.params;
            let uri = params.get("uri").and_then(serde_json::Value::as_str);
            let cursor = params.get("cursor").and_then(serde_json::Value::as_str);
            let outcome = match request.method.as_str() {
                "skills/list" => skills.list(cursor, self.page_size),
                "skills/get" => skills.get(uri),
                "resources/directory/read" => skills.directory(uri, cursor, self.page_size),
                other => Err(oxmcp_schema::Error::method_not_found(other)),
            };
            return match outcome {
                Ok(serde_json::Value::Object(fields)) => raw_result(request.id, fields),
                Ok(_) => Reply::error(
                    Some(request.id),
                    oxmcp_schema::Error::internal("a skills result that is not an object"),
                ),
                Err(e) => Reply::error(Some(request.id), e),
            };
        }
        Reply::error(
            Some(request.id),
            oxmcp_schema::Error::method_not_found(&request.method),
        )
    }
}

#[cfg(test)]
mod tests {
    use crate::handler::{CallParts, PromptHandler, ResourceHandler, ToolHandler};
    use crate::wire::BoxFuture;
    use crate::Server;
    use oxmcp_schema::{
        CallToolResult, Error, GetPromptResult, Prompt, ReadResourceResult, Resource,
        ResourceTemplate, Tool,
    };
    use serde_json::{json, Map, Value};

    /// A tool, a prompt and a resource, each named `noop`, that answer nothing.
    struct Noop;

    fn descriptor<T: serde_core::de::DeserializeOwned>(value: Value) -> T {
        serde_json::from_value(value).expect("a valid descriptor")
    }

    impl ToolHandler for Noop {
        fn tool(&self) -> Tool {
            descriptor(json!({"name": "noop", "inputSchema": {"type": "object"}}))
        }
        fn fingerprint(&self) -> &'static str {
            "noop"
        }
        fn call(
            &self,
            _: Map<String, Value>,
            _: &CallParts<'_>,
        ) -> BoxFuture<Result<CallToolResult, Error>> {
            Box::pin(async { Err(Error::internal("noop")) })
        }
    }

    impl PromptHandler for Noop {
        fn prompt(&self) -> Prompt {
            descriptor(json!({"name": "noop"}))
        }
        fn fingerprint(&self) -> &'static str {
            "noop"
        }
        fn get(
            &self,
            _: Map<String, Value>,
            _: &CallParts<'_>,
        ) -> BoxFuture<Result<GetPromptResult, Error>> {
            Box::pin(async { Err(Error::internal("noop")) })
        }
    }

    impl ResourceHandler for Noop {
        fn resource(&self) -> Option<Resource> {
            Some(descriptor(json!({"name": "noop", "uri": "noop:x"})))
        }
        fn template(&self) -> Option<ResourceTemplate> {
            None
        }
        fn uri_template(&self) -> &'static str {
            "noop:x"
        }
        fn fingerprint(&self) -> &'static str {
            "noop"
        }
        fn read(
            &self,
            _: String,
            _: Map<String, Value>,
            _: &CallParts<'_>,
        ) -> BoxFuture<Result<ReadResourceResult, Error>> {
            Box::pin(async { Err(Error::internal("noop")) })
        }
    }

    /// Every transport moves this future at least once per request: it must not carry the
    /// request's `_meta` (about 1 KiB) or the round's state inline, or the message twice. It was
    /// 10.9 KiB before the long-running methods were boxed.
    #[test]
    fn the_dispatch_future_stays_small() {
        let server = Server::builder().build().expect("an empty server builds");
        let fut = server.handle(server.read(b"{}"), None, None);
        let size = std::mem::size_of_val(&fut);
        // 744 with every feature (the tests always build `otel`): the request's arrival is a
        // word, its telemetry span and context sit beside the handler's future.
        assert!(size <= 752, "Server::handle's future is {size} bytes");
    }

    /// The boxed future of a call that may take rounds is built on the stack and moved to the
    /// heap on every `tools/call`, `prompts/get` and `resources/read`: it must not hold the
    /// request or its `_meta` inline. `tools/call`'s was 11.5 KiB when it did.
    #[test]
    fn the_round_futures_stay_small() {
        let server = Server::builder()
            .tool(Noop)
            .prompt(Noop)
            .resource(Noop)
            .build()
            .expect("a server with one of each builds");
        let params = |extra: &str| {
            format!(
                r#"{{"_meta":{{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{{}},"io.modelcontextprotocol/clientInfo":{{"name":"t","version":"1"}}}}{extra}}}"#
            )
        };
        let read = |method: &str, extra: &str| match server.read(
            format!(
                r#"{{"jsonrpc":"2.0","id":1,"method":"{method}","params":{}}}"#,
                params(extra)
            )
            .as_bytes(),
        ) {
            crate::wire::Incoming::Request(request) => *request,
            crate::wire::Incoming::Rejected(r) => panic!("{method}: {:?}", r.error),
            _ => panic!("{method} did not read as a request"),
        };
        let sizes = [
            match read("tools/call", r#","name":"noop""#) {
                oxmcp_schema::ClientRequest::CallToolRequest(r) => {
                    std::mem::size_of_val(&*server.call_tool(r, Default::default()))
                }
                _ => unreachable!(),
            },
            match read("prompts/get", r#","name":"noop""#) {
                oxmcp_schema::ClientRequest::GetPromptRequest(r) => {
                    std::mem::size_of_val(&*server.get_prompt(r, Default::default()))
                }
                _ => unreachable!(),
            },
            match read("resources/read", r#","uri":"noop:x""#) {
                oxmcp_schema::ClientRequest::ReadResourceRequest(r) => {
                    std::mem::size_of_val(&*server.read_resource(r, Default::default()))
                }
                _ => unreachable!(),
            },
        ];
        for (method, size) in ["tools/call", "prompts/get", "resources/read"]
            .iter()
            .zip(sizes)
        {
            assert!(size <= 2048, "{method}'s future is {size} bytes");
        }
    }
}
