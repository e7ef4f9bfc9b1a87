//! The spans, by the MCP semantic conventions: a SERVER span per request, the links that tie a
//! flow's rounds and a task's runs to their first call, `step` spans, and a CLIENT span per
//! request the client sends. They are made with the installed tracer directly (one builder per
//! span, its attributes given at once) and carried in the OpenTelemetry context of the future
//! they cover, so what runs inside (a step, the application's own `tracing` spans through the
//! layer) is their child.

use super::{active, meters};
use crate::request_state::{Journal, Recorded};
use crate::wire::Reply;
use crate::wire::Via;
use arc_swap::ArcSwapOption;
use opentelemetry::propagation::{Extractor, Injector};
use opentelemetry::trace::{
    Link, SpanBuilder, SpanContext, SpanKind, SpanRef, Status, TraceContextExt,
};
use opentelemetry::{Context, Key, KeyValue, Value as AttributeValue};
use opentelemetry_sdk::trace::SdkTracer;
use oxmcp_schema::{CallToolResult, Error, RequestId, RequestMetaObject, ServerResult};
use serde_json::{Map, Value};
use std::sync::Arc;
use std::time::Instant;

/// The tracer of the provider installed last.
static TRACER: ArcSwapOption<SdkTracer> = ArcSwapOption::const_empty();

/// Record spans with `tracer` from now on.
pub(super) fn install(tracer: SdkTracer) {
    TRACER.store(Some(Arc::new(tracer)));
}

/// A span of `kind` named `name`, with `attributes` and `links`, child of `parent`; the context
/// that holds it (ended when the last clone of that context is dropped). None without a tracer.
fn start(
    name: String,
    kind: SpanKind,
    attributes: Vec<KeyValue>,
    links: Vec<Link>,
    parent: &Context,
) -> Option<Context> {
    let tracer = TRACER.load();
    let tracer = tracer.as_deref()?;
    let mut builder = SpanBuilder::from_name(name)
        .with_kind(kind)
        .with_attributes(attributes);
    if !links.is_empty() {
        builder = builder.with_links(links);
    }
    let span = builder.start_with_context(tracer, parent);
    Some(parent.with_span(span))
}

/// An attribute whose key and value are both static.
fn fixed(key: &'static str, value: &'static str) -> KeyValue {
    KeyValue::new(Key::from_static_str(key), AttributeValue::from(value))
}

/// A string attribute value that clones without copying.
fn shared(text: &str) -> opentelemetry::StringValue {
    opentelemetry::StringValue::from(Arc::<str>::from(text))
}

/// An attribute with a static key.
fn named(key: &'static str, value: impl Into<AttributeValue>) -> KeyValue {
    KeyValue::new(Key::from_static_str(key), value)
}

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

/// The arguments of a call whose tool opted in to having them and its result recorded
/// ([`ToolHandler::trace_payloads`](crate::handler::ToolHandler::trace_payloads)); none when
/// the call has none.
pub(crate) struct Payloads<'a>(pub(crate) Option<&'a Map<String, Value>>);

impl Payloads<'_> {
    /// `gen_ai.tool.call.arguments`: the arguments as JSON text, `{}` when the call has none.
    fn arguments(&self) -> KeyValue {
        let text = self
            .0
            .and_then(|a| serde_json::to_string(a).ok())
            .unwrap_or_else(|| "{}".to_string());
        named("gen_ai.tool.call.arguments", text)
    }
}

/// Record a tool's `result` on `span`, as `gen_ai.tool.call.result` when the tool opted in
/// (`payloads`); whether it is a tool error (`isError`).
fn tool_result(span: &SpanRef<'_>, result: &CallToolResult, payloads: bool) -> bool {
    if payloads {
        if let Ok(text) = serde_json::to_string(result) {
            span.set_attribute(named("gen_ai.tool.call.result", text));
        }
    }
    result.is_error == Some(true)
}

/// The SERVER span of one request, with what its duration is recorded under.
pub(crate) struct ServerSpan {
    /// The context holding the span: the request's handler runs in it.
    pub(crate) cx: Context,
    started: Instant,
    labels: Vec<KeyValue>,
    /// Whether the call's result is recorded on the span (its tool opted in).
    payloads: bool,
}

/// The SERVER span of a request for `method` about `target`, with request id `id` and `_meta`
/// `meta`, that came `via` a transport. Its parent is the context in `_meta`, linked to the HTTP
/// request's own context where that differs; else the HTTP request's context; else none. With
/// `payloads` (a tool that opted in), the arguments are recorded, and the result when it ends.
pub(crate) fn server_span(
    method: &'static str,
    target: Target<'_>,
    id: Option<&RequestId>,
    meta: Option<&RequestMetaObject>,
    via: &Via,
    payloads: Option<Payloads<'_>>,
) -> ServerSpan {
    // Names stay low in cardinality: a target is named only when the server has it.
    let name = match target {
        Target::Tool(tool, true) => format!("{method} {tool}"),
        Target::Prompt(prompt, true) => format!("{method} {prompt}"),
        _ => method.to_string(),
    };
    let mut attributes = Vec::with_capacity(10);
    let mut labels = Vec::with_capacity(6);
    attributes.push(fixed("mcp.method.name", method));
    labels.push(fixed("mcp.method.name", method));
    match target {
        Target::Tool(tool, known) => {
            let tool = shared(tool);
            attributes.push(named("gen_ai.tool.name", tool.clone()));
            attributes.push(fixed("gen_ai.operation.name", "execute_tool"));
            labels.push(fixed("gen_ai.operation.name", "execute_tool"));
            if known {
                labels.push(named("gen_ai.tool.name", tool));
            }
        }
        Target::Prompt(prompt, known) => {
            let prompt = shared(prompt);
            attributes.push(named("gen_ai.prompt.name", prompt.clone()));
            if known {
                labels.push(named("gen_ai.prompt.name", prompt));
            }
        }
        Target::Resource(uri) => attributes.push(named("mcp.resource.uri", uri.to_string())),
        Target::Task(task) => attributes.push(named("oxmcp.task.id", task.to_string())),
        Target::None => {}
    }
    if let Some(id) = id {
        attributes.push(named("jsonrpc.request.id", id_text(id)));
    }
    if let Some(payloads) = &payloads {
        attributes.push(payloads.arguments());
    }
    if let Some(meta) = meta {
        // The versions this server speaks are static; another is the client's own text.
        let version = oxmcp_schema::STATELESS_VERSIONS
            .iter()
            .chain(oxmcp_schema::SESSION_VERSIONS)
            .find(|v| **v == meta.protocol_version)
            .map_or_else(
                || shared(&meta.protocol_version),
                |v| opentelemetry::StringValue::from(*v),
            );
        attributes.push(named("mcp.protocol.version", version.clone()));
        labels.push(named("mcp.protocol.version", version));
    }
    let arrival = via.arrival();
    if let Some(session) = arrival.and_then(|a| a.session.as_deref()) {
        attributes.push(named("mcp.session.id", session.to_string()));
    }
    if let Some(network) = arrival.map(|a| a.network) {
        attributes.push(fixed("network.transport", network));
        labels.push(fixed("network.transport", network));
        if network == "tcp" {
            attributes.push(fixed("network.protocol.name", "http"));
        }
    }
    let from_meta = meta.and_then(|m| remote(&MetaCarrier(&m.extra)));
    let from_http = arrival
        .and_then(|a| a.trace_headers.as_ref())
        .and_then(|h| remote(&HeaderCarrier(h)));
    let mut links = Vec::new();
    let parent = match (from_meta, from_http) {
        (Some(parent), http) => {
            if let Some(http) = http {
                let http = http.span().span_context().clone();
                if &http != parent.span().span_context() {
                    links.push(Link::with_context(http));
                }
            }
            parent
        }
        (None, Some(parent)) => parent,
        (None, None) => Context::new(),
    };
    let cx = start(name, SpanKind::Server, attributes, links, &parent).unwrap_or(parent);
    ServerSpan {
        cx,
        started: Instant::now(),
        labels,
        payloads: payloads.is_some(),
    }
}

impl ServerSpan {
    /// Record how the request ended (`reply`; none for a notification) on the span and in the
    /// duration histogram; the span ends with the request.
    pub(crate) fn finish(mut self, reply: Option<&Reply>) {
        let span = self.cx.span();
        let failed = match reply {
            Some(Reply::Error(e)) => {
                Some((e.error.code.to_string(), Some(e.error.message.clone())))
            }
            Some(Reply::Result(_, result)) => match &**result {
                ServerResult::CallToolResult(r) => {
                    tool_result(&span, r, self.payloads).then(|| ("tool_error".to_string(), None))
                }
                ServerResult::InputRequiredResult(_) => {
                    span.set_attribute(named("oxmcp.input_required", true));
                    None
                }
                _ => None,
            },
            None => None,
        };
        if let Some((error_type, message)) = failed {
            span.set_attribute(named("error.type", error_type.clone()));
            if message.is_some() {
                span.set_attribute(named("rpc.response.status_code", error_type.clone()));
                self.labels
                    .push(named("rpc.response.status_code", error_type.clone()));
            }
            span.set_status(Status::error(message.unwrap_or_else(|| error_type.clone())));
            self.labels.push(named("error.type", error_type));
        }
        span.end();
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
    let propagator = opentelemetry_sdk::propagation::TraceContextPropagator::new();
    let cx = opentelemetry::propagation::TextMapPropagator::extract(&propagator, &carrier);
    let sc = cx.span().span_context().clone();
    sc.is_valid().then_some(sc)
}

/// The id of the flow whose first round had span context `sc`.
fn flow_id(sc: &SpanContext) -> String {
    format!("{}-{}", sc.trace_id(), sc.span_id())
}

/// Where a round stands in its MRTR flow, for the state it may seal.
pub(crate) enum Flow {
    /// A first round: if it suspends, the current span becomes the flow's first.
    First,
    /// A later round: the first round's entry, sealed again as it came.
    Later(Recorded),
}

/// On a round of an MRTR call, with the journal its `requestState` opened: take the flow's first
/// round out of the journal and link the current request's span to it. A first round does
/// nothing yet: most calls complete in one round, and only one that suspends starts a flow
/// ([`seal_flow`]).
pub(crate) fn flow_link(journal: &mut Journal) -> Option<Flow> {
    let recorded = journal.shift_remove(FLOW);
    if !active() {
        return recorded.map(Flow::Later);
    }
    let Some(recorded) = recorded else {
        return Some(Flow::First);
    };
    let first = serde_json::from_str::<String>(recorded.get())
        .ok()
        .and_then(|text| span_context(&text));
    match first {
        Some(first) => {
            let cx = Context::current();
            let span = cx.span();
            span.set_attribute(named("oxmcp.flow.id", flow_id(&first)));
            span.add_link(first, Vec::new());
            Some(Flow::Later(recorded))
        }
        // Not a span context this server wrote: the flow starts again here.
        None => Some(Flow::First),
    }
}

/// Put the flow's first round into the journal a suspended round seals: the entry a later round
/// brought, or, on a first round, the current span's context (which then names the flow).
pub(crate) fn seal_flow(journal: &mut Journal, flow: Option<Flow>) {
    let recorded = match flow {
        Some(Flow::Later(recorded)) => recorded,
        Some(Flow::First) => {
            let cx = Context::current();
            let span = cx.span();
            let sc = span.span_context().clone();
            if !sc.is_valid() {
                return;
            }
            span.set_attribute(named("oxmcp.flow.id", flow_id(&sc)));
            match Recorded::of(&traceparent(&sc)) {
                Ok(recorded) => recorded,
                Err(_) => return,
            }
        }
        None => return,
    };
    journal.insert(FLOW.to_string(), recorded);
}

/// The `traceparent` of the current request's span, for a task record to keep as the call that
/// created it.
pub(crate) fn task_context() -> Option<String> {
    if !active() {
        return None;
    }
    let cx = Context::current();
    let sc = cx.span().span_context().clone();
    sc.is_valid().then(|| traceparent(&sc))
}

/// Link the current request's span to the call that created a task (its record's `trace`).
pub(crate) fn link_task(created_by: Option<&str>) {
    if let Some(sc) = created_by.and_then(span_context) {
        Context::current().span().add_link(sc, Vec::new());
    }
}

/// The context of one run of a task of `tool` (id `task`): a span of its own, linked to the
/// call that created it. None while telemetry is off.
pub(crate) fn task_run_span(
    tool: &str,
    task: &str,
    created_by: Option<&str>,
    payloads: Option<Payloads<'_>>,
) -> Option<Context> {
    if !active() {
        return None;
    }
    let links = created_by
        .and_then(span_context)
        .map(Link::with_context)
        .into_iter()
        .collect();
    let mut attributes = vec![
        named("gen_ai.tool.name", tool.to_string()),
        named("oxmcp.task.id", task.to_string()),
    ];
    if let Some(payloads) = payloads {
        attributes.push(payloads.arguments());
    }
    start(
        format!("task {tool}"),
        SpanKind::Internal,
        attributes,
        links,
        &Context::new(),
    )
}

/// How one run of a task ended, as its span records it.
pub(crate) enum RunEnd<'a> {
    /// The tool's result (a tool error when it has `isError`).
    Done(&'a CallToolResult),
    /// A JSON-RPC error: the handler's, a refusal, or the one a panic is answered with.
    Failed(&'a Error),
    /// The run waits for input.
    Suspended,
    /// Anything else (the run was handed on).
    Other,
}

/// How one run of a task ended, recorded on its span (`cx`, from [`task_run_span`]) before it
/// ends: a tool error or a failure as `error.type` with status ERROR, a suspension as
/// `oxmcp.input_required`, and with `payloads` (the tool opted in) the result as
/// `gen_ai.tool.call.result`.
pub(crate) fn task_run_ended(cx: &Context, end: RunEnd<'_>, payloads: bool) {
    let span = cx.span();
    let failed = match end {
        RunEnd::Done(result) => tool_result(&span, result, payloads)
            .then(|| ("tool_error".to_string(), "tool_error".to_string())),
        RunEnd::Failed(e) => Some((e.code.to_string(), e.message.clone())),
        RunEnd::Suspended => {
            span.set_attribute(named("oxmcp.input_required", true));
            None
        }
        RunEnd::Other => None,
    };
    if let Some((error_type, message)) = failed {
        span.set_attribute(named("error.type", error_type));
        span.set_status(Status::error(message));
    }
}

/// The context of a `step` that runs (its result is then journaled): a child of the current
/// span. None while telemetry is off.
pub(crate) fn step_span(name: &str) -> Option<Context> {
    if !active() {
        return None;
    }
    start(
        format!("step {name}"),
        SpanKind::Internal,
        vec![
            named("oxmcp.step.name", name.to_string()),
            named("oxmcp.step.replayed", false),
        ],
        Vec::new(),
        &Context::current(),
    )
}

/// A `step` whose result came from the journal: a span of no length, marked replayed.
pub(crate) fn replayed_step(name: &str) {
    if !active() {
        return;
    }
    let cx = start(
        format!("step {name}"),
        SpanKind::Internal,
        vec![
            named("oxmcp.step.name", name.to_string()),
            named("oxmcp.step.replayed", true),
        ],
        Vec::new(),
        &Context::current(),
    );
    if let Some(cx) = cx {
        cx.span().end();
    }
}

/// The CLIENT span of one request the client sends, and when it started.
pub(crate) struct ClientSpan {
    /// The context holding the span: the request is sent in it.
    pub(crate) cx: Context,
    started: Instant,
    labels: Vec<KeyValue>,
}

/// The context the client's request is a child of: the caller's current `tracing` span (through
/// the layer), else the current OpenTelemetry context.
fn caller_context() -> Context {
    use tracing_opentelemetry::OpenTelemetrySpanExt;
    let from_tracing = tracing::Span::current().context();
    if from_tracing.span().span_context().is_valid() {
        from_tracing
    } else {
        Context::current()
    }
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
    let mut attributes = vec![named("mcp.method.name", method.to_string())];
    let mut labels = vec![named("mcp.method.name", method.to_string())];
    if let Some(tool) = tool {
        attributes.push(named("gen_ai.tool.name", tool.clone()));
        attributes.push(fixed("gen_ai.operation.name", "execute_tool"));
        labels.push(named("gen_ai.tool.name", tool));
    }
    if let Some(prompt) = prompt {
        attributes.push(named("gen_ai.prompt.name", prompt.clone()));
        labels.push(named("gen_ai.prompt.name", prompt));
    }
    if let Some(uri) = uri {
        attributes.push(named("mcp.resource.uri", uri));
    }
    let cx = start(
        name,
        SpanKind::Client,
        attributes,
        Vec::new(),
        &caller_context(),
    )?;
    if let Value::Object(meta) = params
        .entry("_meta")
        .or_insert_with(|| Value::Object(Map::new()))
    {
        opentelemetry::global::get_text_map_propagator(|p| {
            p.inject_context(&cx, &mut MetaInjector(meta))
        });
    }
    Some(ClientSpan {
        cx,
        started: Instant::now(),
        labels,
    })
}

/// Record `id`, the JSON-RPC id the client gave the request it is sending, on the current
/// CLIENT span (the request is sent in that span's context).
pub(crate) fn client_request_id(id: i64) {
    if active() {
        Context::current()
            .span()
            .set_attribute(named("jsonrpc.request.id", id.to_string()));
    }
}

impl ClientSpan {
    /// Record how the request ended: `error` names a failure's class (a JSON-RPC code, or
    /// `tool_error`, `timeout`, ...) and its message.
    pub(crate) fn finish(mut self, error: Option<(String, String)>) {
        let span = self.cx.span();
        if let Some((error_type, message)) = error {
            span.set_attribute(named("error.type", error_type.clone()));
            if error_type.parse::<i64>().is_ok() {
                span.set_attribute(named("rpc.response.status_code", error_type.clone()));
            }
            span.set_status(Status::error(message));
            self.labels.push(named("error.type", error_type));
        }
        span.end();
        meters::client_operation(self.started.elapsed().as_secs_f64(), &self.labels);
    }
}
