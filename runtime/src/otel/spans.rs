//! The spans, by the MCP semantic conventions: a SERVER span per request, the links that tie a
//! flow's rounds and a task's runs to their first call, `step` spans, and a CLIENT span per
//! request the client sends. Each is a `tracing` span under the target `oxmcp::otel`
//! ([`super::SPANS_TARGET`]) that the OpenTelemetry layer turns into an exported span.

use super::{active, meters};
use crate::request_state::{Journal, Recorded};
use crate::transport::Via;
use crate::wire::Reply;
use opentelemetry::propagation::{Extractor, Injector};
use opentelemetry::trace::{SpanContext, Status, TraceContextExt};
use opentelemetry::{Context, KeyValue};
use oxmcp_schema::{RequestId, RequestMetaObject, ServerResult};
use serde_json::{Map, Value};
use std::time::Instant;
use tracing_opentelemetry::OpenTelemetrySpanExt;

/// The journal entry holding the span context of a flow's first round, as a `traceparent`:
/// sealed in `requestState` with the rest of the journal, so every later round links to it. No
/// key of an ask or a step can take this name (it holds a NUL).
pub(crate) const FLOW: &str = "\u{0}flow";

/// What a request is about, for its span's name and attributes.
#[derive(Clone, Copy)]
pub(crate) enum Target<'a> {
    /// Nothing in particular (a list, discovery).
    None,
    /// A tool by name; whether this server has it for the caller.
    Tool(&'a str, bool),
    /// A prompt by name; whether this server has it for the caller.
    Prompt(&'a str, bool),
    /// A resource by URI.
    Resource(&'a str),
    /// A task by id.
    Task(&'a str),
}

/// The SERVER span of one request, with what its duration is recorded under.
pub(crate) struct ServerSpan {
    pub(crate) span: tracing::Span,
    started: Instant,
    labels: Vec<KeyValue>,
}

/// A `tracing` span under the export target, named `name` for OpenTelemetry, of kind `kind`.
macro_rules! otel_span {
    ($name:expr, $kind:literal) => {
        tracing::info_span!(target: "oxmcp::otel", "mcp", otel.name = %$name, otel.kind = $kind)
    };
}

/// The SERVER span of a request for `method` about `target`, with request id `id` and `_meta`
/// `meta`, that came `via` a transport. Its parent is the context in `_meta`, linked to the HTTP
/// request's own context where that differs; else the HTTP request's context; else none.
pub(crate) fn server_span(
    method: &str,
    target: Target<'_>,
    id: Option<&RequestId>,
    meta: Option<&RequestMetaObject>,
    via: &Via,
) -> ServerSpan {
    // Names stay low in cardinality: a target is named only when the server has it.
    let name = match target {
        Target::Tool(tool, true) => format!("{method} {tool}"),
        Target::Prompt(prompt, true) => format!("{method} {prompt}"),
        _ => method.to_string(),
    };
    let span = otel_span!(name, "server");
    let mut labels = Vec::with_capacity(6);
    labels.push(KeyValue::new("mcp.method.name", method.to_string()));
    match target {
        Target::Tool(tool, known) => {
            span.set_attribute("gen_ai.tool.name", tool.to_string());
            span.set_attribute("gen_ai.operation.name", "execute_tool");
            labels.push(KeyValue::new("gen_ai.operation.name", "execute_tool"));
            if known {
                labels.push(KeyValue::new("gen_ai.tool.name", tool.to_string()));
            }
        }
        Target::Prompt(prompt, known) => {
            span.set_attribute("gen_ai.prompt.name", prompt.to_string());
            if known {
                labels.push(KeyValue::new("gen_ai.prompt.name", prompt.to_string()));
            }
        }
        Target::Resource(uri) => span.set_attribute("mcp.resource.uri", uri.to_string()),
        Target::Task(task) => span.set_attribute("oxmcp.task.id", task.to_string()),
        Target::None => {}
    }
    span.set_attribute("mcp.method.name", method.to_string());
    if let Some(id) = id {
        span.set_attribute("jsonrpc.request.id", id_text(id));
    }
    if let Some(meta) = meta {
        span.set_attribute("mcp.protocol.version", meta.protocol_version.clone());
        labels.push(KeyValue::new(
            "mcp.protocol.version",
            meta.protocol_version.clone(),
        ));
    }
    let arrival = via.arrival();
    if let Some(session) = arrival.and_then(|a| a.session.as_deref()) {
        span.set_attribute("mcp.session.id", session.to_string());
    }
    if let Some(network) = arrival.map(|a| a.network) {
        span.set_attribute("network.transport", network);
        labels.push(KeyValue::new("network.transport", network));
        if network == "tcp" {
            span.set_attribute("network.protocol.name", "http");
        }
    }
    let from_meta = meta.and_then(|m| remote(&MetaCarrier(&m.extra)));
    let from_http = arrival
        .and_then(|a| a.trace_headers.as_ref())
        .and_then(|h| remote(&HeaderCarrier(h)));
    match (from_meta, from_http) {
        (Some(parent), http) => {
            if let Some(http) = http {
                if http.span().span_context() != parent.span().span_context() {
                    span.add_link(http.span().span_context().clone());
                }
            }
            let _ = span.set_parent(parent);
        }
        (None, Some(parent)) => {
            let _ = span.set_parent(parent);
        }
        (None, None) => {}
    }
    ServerSpan {
        span,
        started: Instant::now(),
        labels,
    }
}

impl ServerSpan {
    /// Record how the request ended (`reply`; none for a notification) on the span and in the
    /// duration histogram.
    pub(crate) fn finish(mut self, reply: Option<&Reply>) {
        let failed = match reply {
            Some(Reply::Error(e)) => {
                Some((e.error.code.to_string(), Some(e.error.message.clone())))
            }
            Some(Reply::Result(_, result)) => match &**result {
                ServerResult::CallToolResult(r) if r.is_error == Some(true) => {
                    Some(("tool_error".to_string(), None))
                }
                ServerResult::InputRequiredResult(_) => {
                    self.span.set_attribute("oxmcp.input_required", true);
                    None
                }
                _ => None,
            },
            None => None,
        };
        if let Some((error_type, message)) = failed {
            self.span.set_attribute("error.type", error_type.clone());
            if message.is_some() {
                self.span
                    .set_attribute("rpc.response.status_code", error_type.clone());
                self.labels.push(KeyValue::new(
                    "rpc.response.status_code",
                    error_type.clone(),
                ));
            }
            self.span
                .set_status(Status::error(message.unwrap_or_else(|| error_type.clone())));
            self.labels.push(KeyValue::new("error.type", error_type));
        }
        meters::server_operation(self.started.elapsed().as_secs_f64(), &self.labels);
    }
}

/// A request id as the conventions write it.
fn id_text(id: &RequestId) -> String {
    match id {
        RequestId::String(s) => s.clone(),
        RequestId::Integer(n) => n.to_string(),
        other => serde_json::to_string(other).unwrap_or_default(),
    }
}

/// The HTTP request's `traceparent` and `tracestate` headers, when it sent them.
#[cfg(feature = "http")]
pub(crate) fn trace_headers(headers: &axum::http::HeaderMap) -> Option<(String, Option<String>)> {
    let parent = headers.get("traceparent")?.to_str().ok()?.to_string();
    let state = headers
        .get("tracestate")
        .and_then(|v| v.to_str().ok())
        .map(str::to_string);
    Some((parent, state))
}

/// The remote context a carrier holds, if it holds a valid one.
fn remote(carrier: &dyn Extractor) -> Option<Context> {
    carrier.get("traceparent")?;
    let cx = opentelemetry::global::get_text_map_propagator(|p| p.extract(carrier));
    cx.span().span_context().is_valid().then_some(cx)
}

/// `params._meta` as a carrier: the unprefixed `traceparent`, `tracestate` and `baggage`.
struct MetaCarrier<'a>(&'a Map<String, Value>);

impl Extractor for MetaCarrier<'_> {
    fn get(&self, key: &str) -> Option<&str> {
        self.0.get(key)?.as_str()
    }
    fn keys(&self) -> Vec<&str> {
        self.0.keys().map(String::as_str).collect()
    }
}

/// An HTTP request's trace headers as a carrier.
struct HeaderCarrier<'a>(&'a (String, Option<String>));

impl Extractor for HeaderCarrier<'_> {
    fn get(&self, key: &str) -> Option<&str> {
        match key {
            "traceparent" => Some(&self.0 .0),
            "tracestate" => self.0 .1.as_deref(),
            _ => None,
        }
    }
    fn keys(&self) -> Vec<&str> {
        vec!["traceparent", "tracestate"]
    }
}

/// `params._meta` written into: what the propagators inject.
struct MetaInjector<'a>(&'a mut Map<String, Value>);

impl Injector for MetaInjector<'_> {
    fn set(&mut self, key: &str, value: String) {
        self.0.insert(key.to_string(), Value::String(value));
    }
}

/// A span context as a `traceparent`.
fn traceparent(sc: &SpanContext) -> String {
    format!(
        "00-{}-{}-{:02x}",
        sc.trace_id(),
        sc.span_id(),
        sc.trace_flags().to_u8()
    )
}

/// The span context a `traceparent` names, if valid.
fn span_context(text: &str) -> Option<SpanContext> {
    let carrier = HeaderCarrier(&(text.to_string(), None));
    let cx = opentelemetry_sdk::propagation::TraceContextPropagator::new();
    let cx = opentelemetry::propagation::TextMapPropagator::extract(&cx, &carrier);
    let sc = cx.span().span_context().clone();
    sc.is_valid().then_some(sc)
}

/// The id of the flow whose first round had span context `sc`.
fn flow_id(sc: &SpanContext) -> String {
    format!("{}-{}", sc.trace_id(), sc.span_id())
}

/// On a round of an MRTR call, with the journal its `requestState` opened: take the flow's first
/// round out of the journal and link the current request's span to it, or, on a first round,
/// take the current span as the flow's first. The entry to seal into the next state, if any.
pub(crate) fn flow_link(journal: &mut Journal) -> Option<Recorded> {
    let recorded = journal.shift_remove(FLOW);
    if !active() {
        return recorded;
    }
    let span = tracing::Span::current();
    let first = recorded
        .as_ref()
        .and_then(|r| serde_json::from_str::<String>(r.get()).ok())
        .and_then(|text| span_context(&text));
    match first {
        Some(first) => {
            span.set_attribute("oxmcp.flow.id", flow_id(&first));
            span.add_link(first);
            recorded
        }
        None => {
            let cx = span.context();
            let sc = cx.span().span_context().clone();
            if !sc.is_valid() {
                return None;
            }
            span.set_attribute("oxmcp.flow.id", flow_id(&sc));
            Recorded::of(&traceparent(&sc)).ok()
        }
    }
}

/// Put a flow's first round back into the journal a suspended round seals.
pub(crate) fn seal_flow(journal: &mut Journal, flow: Option<Recorded>) {
    if let Some(flow) = flow {
        journal.insert(FLOW.to_string(), flow);
    }
}

/// The `traceparent` of the current span, for a task record to keep as the call that created it.
pub(crate) fn task_context() -> Option<String> {
    if !active() {
        return None;
    }
    let cx = tracing::Span::current().context();
    let sc = cx.span().span_context().clone();
    sc.is_valid().then(|| traceparent(&sc))
}

/// Link the current request's span to the call that created a task (its record's `trace`).
pub(crate) fn link_task(created_by: Option<&str>) {
    if let Some(sc) = created_by.and_then(span_context) {
        let span = tracing::Span::current();
        span.add_link(sc);
    }
}

/// The span of one run of a task of `tool` (id `task`), linked to the call that created it.
pub(crate) fn task_run_span(tool: &str, task: &str, created_by: Option<&str>) -> tracing::Span {
    if !active() {
        return tracing::Span::none();
    }
    let span = otel_span!(format!("task {tool}"), "internal");
    span.set_attribute("gen_ai.tool.name", tool.to_string());
    span.set_attribute("oxmcp.task.id", task.to_string());
    if let Some(sc) = created_by.and_then(span_context) {
        span.add_link(sc);
    }
    span
}

/// The span of a `step` that runs (its result is then journaled), a child of the current span.
pub(crate) fn step_span(name: &str) -> tracing::Span {
    if !active() {
        return tracing::Span::none();
    }
    let span = otel_span!(format!("step {name}"), "internal");
    span.set_attribute("oxmcp.step.name", name.to_string());
    span.set_attribute("oxmcp.step.replayed", false);
    span
}

/// A `step` whose result came from the journal: a span of no length, marked replayed.
pub(crate) fn replayed_step(name: &str) {
    if !active() {
        return;
    }
    let span = otel_span!(format!("step {name}"), "internal");
    span.set_attribute("oxmcp.step.name", name.to_string());
    span.set_attribute("oxmcp.step.replayed", true);
}

/// The CLIENT span of one request the client sends, and when it started.
pub(crate) struct ClientSpan {
    pub(crate) span: tracing::Span,
    started: Instant,
    labels: Vec<KeyValue>,
}

/// The CLIENT span of a request for `method` with `params`, whose context is written into
/// `params._meta` (`traceparent`, `tracestate`, `baggage`) for the server to parent its span on.
/// None while telemetry is off.
pub(crate) fn client_span(method: &str, params: &mut Map<String, Value>) -> Option<ClientSpan> {
    if !active() {
        return None;
    }
    let name_of = |key: &str| params.get(key).and_then(Value::as_str).map(str::to_string);
    let (tool, prompt, uri) = match method {
        "tools/call" => (name_of("name"), None, None),
        "prompts/get" => (None, name_of("name"), None),
        "resources/read" => (None, None, name_of("uri")),
        _ => (None, None, None),
    };
    let name = match tool.as_ref().or(prompt.as_ref()) {
        Some(target) => format!("{method} {target}"),
        None => method.to_string(),
    };
    let span = otel_span!(name, "client");
    let mut labels = vec![KeyValue::new("mcp.method.name", method.to_string())];
    span.set_attribute("mcp.method.name", method.to_string());
    if let Some(tool) = tool {
        span.set_attribute("gen_ai.tool.name", tool.clone());
        span.set_attribute("gen_ai.operation.name", "execute_tool");
        labels.push(KeyValue::new("gen_ai.tool.name", tool));
    }
    if let Some(prompt) = prompt {
        span.set_attribute("gen_ai.prompt.name", prompt.clone());
        labels.push(KeyValue::new("gen_ai.prompt.name", prompt));
    }
    if let Some(uri) = uri {
        span.set_attribute("mcp.resource.uri", uri);
    }
    let cx = span.context();
    if let Value::Object(meta) = params
        .entry("_meta")
        .or_insert_with(|| Value::Object(Map::new()))
    {
        opentelemetry::global::get_text_map_propagator(|p| {
            p.inject_context(&cx, &mut MetaInjector(meta))
        });
    }
    Some(ClientSpan {
        span,
        started: Instant::now(),
        labels,
    })
}

impl ClientSpan {
    /// Record how the request ended: `error` names a failure's class (a JSON-RPC code, or
    /// `tool_error`, `timeout`, ...) and its message.
    pub(crate) fn finish(mut self, error: Option<(String, String)>) {
        if let Some((error_type, message)) = error {
            self.span.set_attribute("error.type", error_type.clone());
            if error_type.parse::<i64>().is_ok() {
                self.span
                    .set_attribute("rpc.response.status_code", error_type.clone());
            }
            self.span.set_status(Status::error(message));
            self.labels.push(KeyValue::new("error.type", error_type));
        }
        meters::client_operation(self.started.elapsed().as_secs_f64(), &self.labels);
    }
}
