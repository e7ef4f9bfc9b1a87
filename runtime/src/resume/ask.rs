//! The asks a handler awaits: [`elicit`], [`elicit_url`], [`sample`], [`list_roots`], and
//! [`step`] for side effects that must run once across rounds.

use super::engine::{with_call, Suspend};
use crate::handler::{AskError, ElicitForm};
use crate::request_state::Recorded;
use indexmap::IndexMap;
use oxmcp_schema::{
    ClientCapabilities, ClientCapabilitiesElicitation, ClientCapabilitiesRoots,
    ClientCapabilitiesSampling, CreateMessageRequest, CreateMessageRequestParams,
    CreateMessageResult, ElicitRequest, ElicitResult, ElicitResultAction, ElicitResultContentValue,
    InputRequest, InputResponse, ListRootsRequest, ListRootsResult, Role, Root, SamplingMessage,
    Tool,
};
use serde_core::de::DeserializeOwned;
use serde_core::Serialize;
use serde_json::{Map, Number};
use std::future::{Future, IntoFuture};
use std::marker::PhantomData;
use std::panic::Location;
use std::pin::Pin;
use std::sync::OnceLock;

/// The boxed future an ask turns into.
pub type AskFuture<T> = Pin<Box<dyn Future<Output = Result<T, AskError>> + Send + 'static>>;

/// The user's answer to an elicitation. Decline and cancel are outcomes, not errors.
#[derive(Debug, Clone, PartialEq)]
pub enum Elicited<T> {
    /// The user accepted (and, for forms, filled in the fields).
    Accept(T),
    /// The user explicitly declined.
    Decline,
    /// The user dismissed the request without choosing.
    Cancel,
}

enum Step<T> {
    Answered(T),
    Missing,
    Wait,
    /// A 2025 session: send the request and await the client's response.
    Live(super::live::Live, Box<InputRequest>),
}

/// Resolve an ask: a recorded answer, then an answer on this request, else register the request
/// `request` builds (if the client can take it) and suspend. Unusable answers are asked again.
/// `parse` gives the handler's value and the answer as it is recorded: only what the handler
/// reads, so a client cannot make the sealed state carry fields nobody asked for; its second
/// argument says that the answer is one recorded so (a replay), not a fresh one. A recorded
/// answer over the call's limit refuses the request (-32602) instead of sealing it. The request
/// is built only when it is sent: most asks of a retry are replays; `request`'s argument says
/// whether this future will read the answer (a 2025 session's live ask) or a later request will
/// bring it. A recorded answer is read as the one type `R` its ask records, not tried against
/// every kind of answer.
async fn ask<T, R>(
    kind: &'static str,
    site: &'static Location<'static>,
    explicit: Option<String>,
    request: impl FnOnce(bool) -> InputRequest,
    supported: impl Fn(&ClientCapabilities) -> bool,
    required: ClientCapabilities,
    parse: impl Fn(&InputResponse, bool) -> Option<(T, InputResponse)>,
) -> Result<T, AskError>
where
    R: DeserializeOwned + Into<InputResponse>,
{
    let step = with_call(|call| {
        let mut st = call.lock();
        // A 2025 session asks in place: no key, since nothing is recorded or replayed.
        if let Some(live) = st.live.clone() {
            if !supported(st.info.capabilities()) {
                return Step::Missing;
            }
            return Step::Live(live, Box::new(request(true)));
        }
        let key = st.key(kind, site, explicit.as_deref());
        if let Some(v) = st.journal.get(&key) {
            let recorded = crate::wire::from_text::<R>(v.get()).ok().map(R::into);
            if let Some((t, _)) = recorded.as_ref().and_then(|v| parse(v, true)) {
                return Step::Answered(t);
            }
            st.journal.shift_remove(&key);
        }
        let issued = explicit.is_some() || !st.stateless;
        if let Some(v) = st.responses.get(&key).filter(|_| issued) {
            if let Some((t, kept)) = parse(v, false) {
                match Recorded::of(&kept) {
                    Ok(raw) if raw.get().len() > st.answer_limit => {
                        let error = oxmcp_schema::Error::invalid_params(format!(
                            "the answer to input request `{key}` is {} bytes, over the limit of {} for one answer",
                            raw.get().len(),
                            st.answer_limit
                        ));
                        st.refused = Some(error);
                        return Step::Wait;
                    }
                    Ok(raw) => {
                        st.journal.insert(key, raw);
                        st.answered = true;
                    }
                    Err(e) => tracing::warn!(key, error = %e, "an answer does not serialize"),
                }
                return Step::Answered(t);
            }
            tracing::debug!(key, "unusable answer; asking again");
        }
        if !supported(st.info.capabilities()) {
            return Step::Missing;
        }
        st.pending.insert(key, request(false));
        Step::Wait
    })
    .ok_or(AskError::OutsideHandler)?;
    match step {
        Step::Answered(t) => Ok(t),
        Step::Missing => Err(AskError::MissingCapability(Box::new(required))),
        Step::Wait => match Suspend.await {},
        Step::Live(live, request) => {
            // An unusable answer (wrong type, unknown action or role) is asked again, a few
            // times, as a 2026 request would be.
            for _ in 0..3 {
                let result = live.request(&request).await?;
                let answer = crate::wire::from_text::<InputResponse>(result.get()).ok();
                if let Some((t, _)) = answer.as_ref().and_then(|v| parse(v, false)) {
                    return Ok(t);
                }
                tracing::debug!(kind, "unusable answer from a 2025-era client; asking again");
            }
            Err(AskError::Refused(Box::new(
                oxmcp_schema::Error::invalid_params(
                    "the client's answers to the request were unusable",
                ),
            )))
        }
    }
}

fn form_supported(c: &ClientCapabilities) -> bool {
    // `elicitation: {}` means form only; `{url: {}}` alone means URL only.
    c.elicitation
        .as_ref()
        .is_some_and(|e| e.form.is_some() || e.url.is_none())
}

fn url_supported(c: &ClientCapabilities) -> bool {
    c.elicitation.as_ref().is_some_and(|e| e.url.is_some())
}

fn caps_elicitation(form: bool) -> ClientCapabilities {
    ClientCapabilities {
        elicitation: Some(ClientCapabilitiesElicitation {
            form: form.then(Map::new),
            url: (!form).then(Map::new),
            extra: Map::new(),
        }),
        ..Default::default()
    }
}

/// The answer to an elicitation, if `v` is one.
fn parse_action(v: &InputResponse) -> Option<&ElicitResult> {
    match v {
        InputResponse::ElicitResult(r) => Some(r),
        _ => None,
    }
}

/// An elicitation answer as it is recorded: the action, and of an accepted form's content only
/// the fields the form has.
fn kept_action(
    action: ElicitResultAction,
    content: Option<IndexMap<String, ElicitResultContentValue>>,
) -> InputResponse {
    InputResponse::ElicitResult(ElicitResult {
        action,
        content,
        extra: Map::new(),
    })
}

/// Ask the user to fill in the form `T` (derive [`crate::ElicitForm`]), showing `message`.
#[track_caller]
pub fn elicit<T: ElicitForm + Send + 'static>(message: impl Into<String>) -> Elicit<T> {
    Elicit {
        message: message.into(),
        key: None,
        site: Location::caller(),
        _form: PhantomData,
    }
}

/// A pending form elicitation; `.await` it. Keys default to the call site and iteration.
#[must_use = "an ask does nothing until awaited"]
pub struct Elicit<T> {
    message: String,
    key: Option<String>,
    site: &'static Location<'static>,
    _form: PhantomData<fn() -> T>,
}

impl<T> Elicit<T> {
    /// Use this `inputRequests` key instead of the call-site key (e.g. a key a client expects).
    pub fn key(mut self, key: impl Into<String>) -> Self {
        self.key = Some(key.into());
        self
    }
}

impl<T: ElicitForm + Send + 'static> IntoFuture for Elicit<T> {
    type Output = Result<Elicited<T>, AskError>;
    type IntoFuture = AskFuture<Elicited<T>>;

    fn into_future(self) -> Self::IntoFuture {
        let Elicit {
            message, key, site, ..
        } = self;
        Box::pin(async move {
            // The form's schema, built only when it is needed: to ask, or to reduce a fresh
            // answer to the form's fields (a recorded answer was reduced when it was recorded).
            let fields = OnceLock::new();
            let schema = || fields.get_or_init(T::requested_schema);
            // Asking with an answer this future reads (a 2025 session's) keeps the schema for
            // reading it and sends a clone; asking with an answer a later request brings (2026,
            // where this future ends at the question) builds the schema into the request,
            // unless an unusable answer built it already.
            let request = |answered_here: bool| {
                let requested = if answered_here {
                    schema().clone()
                } else {
                    fields.get().cloned().unwrap_or_else(T::requested_schema)
                };
                ElicitRequest::form(message, requested).into()
            };
            ask::<_, ElicitResult>(
                "elicit",
                site,
                key,
                request,
                form_supported,
                caps_elicitation(true),
                |v, recorded| {
                    let r = parse_action(v)?;
                    match &r.action {
                        ElicitResultAction::Accept => {
                            let mut content = r.content.clone().unwrap_or_default();
                            if !recorded {
                                content.retain(|name, _| schema().properties.contains_key(name));
                            }
                            let form = T::from_content(&content).ok()?;
                            let kept = kept_action(ElicitResultAction::Accept, Some(content));
                            Some((Elicited::Accept(form), kept))
                        }
                        ElicitResultAction::Decline => Some((
                            Elicited::Decline,
                            kept_action(ElicitResultAction::Decline, None),
                        )),
                        ElicitResultAction::Cancel => Some((
                            Elicited::Cancel,
                            kept_action(ElicitResultAction::Cancel, None),
                        )),
                        // An action this runtime does not know (or a newer schema adds).
                        _ => None,
                    }
                },
            )
            .await
        })
    }
}

/// Send the user to `url` (for secrets, payments, sign-in). Accept means the user consented to
/// go, not that the out-of-band step finished: check that on the next round.
#[track_caller]
pub fn elicit_url(message: impl Into<String>, url: impl Into<String>) -> ElicitUrl {
    ElicitUrl {
        message: message.into(),
        url: url.into(),
        key: None,
        site: Location::caller(),
    }
}

/// A pending URL-mode elicitation; `.await` it.
#[must_use = "an ask does nothing until awaited"]
pub struct ElicitUrl {
    message: String,
    url: String,
    key: Option<String>,
    site: &'static Location<'static>,
}

impl ElicitUrl {
    /// Use this `inputRequests` key instead of the call-site key.
    pub fn key(mut self, key: impl Into<String>) -> Self {
        self.key = Some(key.into());
        self
    }
}

impl IntoFuture for ElicitUrl {
    type Output = Result<Elicited<()>, AskError>;
    type IntoFuture = AskFuture<Elicited<()>>;

    fn into_future(self) -> Self::IntoFuture {
        let request = ElicitRequest::url(self.message, self.url);
        Box::pin(ask::<_, ElicitResult>(
            "elicit-url",
            self.site,
            self.key,
            move |_| request.into(),
            url_supported,
            caps_elicitation(false),
            |v, _| {
                let action = parse_action(v)?.action.clone();
                let outcome = match action {
                    ElicitResultAction::Accept => Elicited::Accept(()),
                    ElicitResultAction::Decline => Elicited::Decline,
                    ElicitResultAction::Cancel => Elicited::Cancel,
                    _ => return None,
                };
                Some((outcome, kept_action(action, None)))
            },
        ))
    }
}

/// A sampling request to the client's model, built fluently.
#[derive(Debug, Clone)]
pub struct Sampling {
    request: CreateMessageRequest,
}

impl Sampling {
    /// A request with one user message.
    pub fn user(text: impl Into<String>) -> Self {
        Sampling {
            request: CreateMessageRequest::new(CreateMessageRequestParams::new(
                1000,
                vec![SamplingMessage::user(text)],
            )),
        }
    }

    /// A request with these messages.
    pub fn messages(messages: Vec<SamplingMessage>) -> Self {
        Sampling {
            request: CreateMessageRequest::new(CreateMessageRequestParams::new(1000, messages)),
        }
    }

    /// The most tokens to sample (default 1000).
    pub fn max_tokens(mut self, n: i64) -> Self {
        self.request.params.max_tokens = n;
        self
    }

    /// A system prompt.
    pub fn system(mut self, prompt: impl Into<String>) -> Self {
        self.request.params.system_prompt = Some(prompt.into());
        self
    }

    /// Sampling temperature.
    pub fn temperature(mut self, t: f64) -> Self {
        self.request.params.temperature = Number::from_f64(t);
        self
    }

    /// Tools the model may call (needs the client's `sampling.tools` capability).
    pub fn tools(mut self, tools: Vec<Tool>) -> Self {
        self.request.params.tools = Some(tools);
        self
    }

    /// The underlying request, for fields without a builder method.
    pub fn request_mut(&mut self) -> &mut CreateMessageRequest {
        &mut self.request
    }
}

/// Ask the client's model for a completion.
#[track_caller]
pub fn sample(sampling: Sampling) -> Sample {
    Sample {
        sampling,
        key: None,
        site: Location::caller(),
    }
}

/// A pending sampling request, from [`sample`]; `.await` it for the model's
/// `CreateMessageResult` (its text through [`SampledText::text`]).
///
/// The call needs the client to declare `sampling` (and `sampling.tools` when the request offers
/// tools); without it the await fails with [`AskError::MissingCapability`], which `?` turns into
/// the protocol's -32021 error, or which the handler can match to go on without a model.
///
/// ```
/// use oxmcp::prelude::*;
///
/// /// Sums up a text with the client's model.
/// #[mcp_tool]
/// async fn summarize(text: String) -> Result<String, ToolError> {
///     let reply = sample(Sampling::user(format!("Summarize: {text}")).max_tokens(200))
///         .key("summary")
///         .await?;
///     Ok(reply.text().unwrap_or_default().to_string())
/// }
/// ```
#[must_use = "an ask does nothing until awaited"]
pub struct Sample {
    sampling: Sampling,
    key: Option<String>,
    site: &'static Location<'static>,
}

impl Sample {
    /// Use this `inputRequests` key instead of the call-site key.
    pub fn key(mut self, key: impl Into<String>) -> Self {
        self.key = Some(key.into());
        self
    }
}

impl IntoFuture for Sample {
    type Output = Result<CreateMessageResult, AskError>;
    type IntoFuture = AskFuture<CreateMessageResult>;

    fn into_future(self) -> Self::IntoFuture {
        let p = &self.sampling.request.params;
        let needs_tools = p.tools.is_some() || p.tool_choice.is_some();
        let required = ClientCapabilities {
            sampling: Some(ClientCapabilitiesSampling {
                context: None,
                tools: needs_tools.then(Map::new),
                extra: Map::new(),
            }),
            ..Default::default()
        };
        Box::pin(ask::<_, CreateMessageResult>(
            "sample",
            self.site,
            self.key,
            move |_| self.sampling.request.into(),
            move |c| {
                c.sampling
                    .as_ref()
                    .is_some_and(|s| !needs_tools || s.tools.is_some())
            },
            required,
            |v, _| match v {
                // A sampled message comes from the model or stands for the user; any other role
                // is not an answer the handler can use, so it is asked again.
                InputResponse::CreateMessageResult(r)
                    if matches!(r.role, Role::Assistant | Role::User) =>
                {
                    // What the protocol defines of it, without fields it does not name.
                    let kept = CreateMessageResult {
                        meta: None,
                        extra: Map::new(),
                        ..r.clone()
                    };
                    Some((kept.clone(), InputResponse::CreateMessageResult(kept)))
                }
                _ => None,
            },
        ))
    }
}

/// Ask the client for its roots.
#[track_caller]
pub fn list_roots() -> ListRoots {
    ListRoots {
        key: None,
        site: Location::caller(),
    }
}

/// A pending roots request, from [`list_roots`]; `.await` it for the client's roots (the
/// folders or files it lets the server work in).
///
/// The call needs the client to declare `roots`; without it the await fails with
/// [`AskError::MissingCapability`], which the handler may match to fall back:
///
/// ```
/// use oxmcp::prelude::*;
///
/// /// Where the client lets the server look.
/// #[mcp_tool]
/// async fn workspace() -> Result<String, ToolError> {
///     match list_roots().await {
///         Ok(roots) => Ok(roots.iter().map(|r| r.uri.as_str()).collect::<Vec<_>>().join("\n")),
///         Err(AskError::MissingCapability(_)) => Ok("no roots shared".into()),
///         Err(e) => Err(e.into()),
///     }
/// }
/// ```
#[must_use = "an ask does nothing until awaited"]
pub struct ListRoots {
    key: Option<String>,
    site: &'static Location<'static>,
}

impl ListRoots {
    /// Use this `inputRequests` key instead of the call-site key.
    pub fn key(mut self, key: impl Into<String>) -> Self {
        self.key = Some(key.into());
        self
    }
}

impl IntoFuture for ListRoots {
    type Output = Result<Vec<Root>, AskError>;
    type IntoFuture = AskFuture<Vec<Root>>;

    fn into_future(self) -> Self::IntoFuture {
        Box::pin(ask::<_, ListRootsResult>(
            "roots",
            self.site,
            self.key,
            |_| ListRootsRequest::new().into(),
            |c| c.roots.is_some(),
            ClientCapabilities {
                roots: Some(ClientCapabilitiesRoots::default()),
                ..Default::default()
            },
            |v, _| match v {
                InputResponse::ListRootsResult(r) => {
                    let kept = ListRootsResult {
                        roots: r.roots.clone(),
                        ..Default::default()
                    };
                    Some((r.roots.clone(), InputResponse::ListRootsResult(kept)))
                }
                _ => None,
            },
        ))
    }
}

/// Run a side effect once per call, across every round: the first run records its `Ok` value in
/// the journal, and replays of the handler get the recorded value without running `fut`.
/// An `Err` is not recorded, so a failed step runs again on the next round.
pub async fn step<T, E, F>(name: &str, fut: F) -> Result<T, E>
where
    T: Serialize + DeserializeOwned,
    F: Future<Output = Result<T, E>>,
{
    let recorded = with_call(|call| {
        let mut st = call.lock();
        let key = st.key("step", Location::caller(), Some(&format!("step:{name}")));
        let value = st
            .journal
            .get(&key)
            .and_then(|raw| crate::wire::from_text::<T>(raw.get()).ok());
        (key, value)
    });
    if let Some((_, Some(t))) = recorded {
        #[cfg(feature = "otel")]
        crate::otel::replayed_step(name);
        return Ok(t);
    }
    // From here the round has had an effect: its state may no longer be handed back.
    with_call(|call| call.lock().stepped = true);
    #[cfg(feature = "otel")]
    let out = match crate::otel::step_span(name) {
        Some(cx) => {
            use opentelemetry::trace::TraceContextExt;
            let out = opentelemetry::context::FutureExt::with_context(fut, cx.clone()).await;
            cx.span().end();
            out?
        }
        None => fut.await?,
    };
    #[cfg(not(feature = "otel"))]
    let out = fut.await?;
    if let Some((key, _)) = recorded {
        if let Ok(v) = Recorded::of(&out) {
            with_call(|call| {
                let mut st = call.lock();
                st.journal.insert(key, v);
                if let Some(checkpoint) = &st.checkpoint {
                    let _ = checkpoint.send(st.journal.clone());
                }
            });
        }
    }
    Ok(out)
}

/// `TextContent` text of a sampling answer, where it is text.
pub trait SampledText {
    /// The text of a single text answer.
    fn text(&self) -> Option<&str>;
}

impl SampledText for CreateMessageResult {
    fn text(&self) -> Option<&str> {
        match &self.content {
            oxmcp_schema::CreateMessageResultContent::TextContent(t) => Some(&t.text),
            oxmcp_schema::CreateMessageResultContent::Array(blocks) => {
                blocks.iter().find_map(|b| match b {
                    oxmcp_schema::SamplingMessageContentBlock::TextContent(t) => {
                        Some(t.text.as_str())
                    }
                    _ => None,
                })
            }
            _ => None,
        }
    }
}
