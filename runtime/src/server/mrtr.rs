//! `tools/call`, `prompts/get` and `resources/read`: the methods that may take MRTR rounds. Each
//! round opens the `requestState` of the retry (bound to the request), runs the handler through
//! the engine with the journal and this request's answers, and either replies with the result or
//! seals the journal into a new `requestState` beside the input requests.

use super::catalog::RegisteredResource;
use super::Server;
use crate::handler::result::resource_not_found;
use crate::handler::{match_template, CallParts, CancelSlot, Principal};
use crate::resume::engine::{self, Call, CallState, Outcome, RequestInfo, TaskGate};
use crate::resume::events::Notifier;
use crate::resume::live::Live;
use crate::state::{unix_now, Binding, BindingDigest, FingerprintDigest, Recorded, StateError};
use crate::wire::{BoxFuture, Reply};
use indexmap::IndexMap;
use oxmcp_schema::{
    methods, CacheScope, CallToolRequest, CallToolRequestParams, Error, GetPromptRequest,
    GetPromptRequestParams, InputRequiredResult, InputResponses, ReadResourceRequest,
    ReadResourceRequestParams, RequestId, RequestMetaObject, ServerResult,
};
use serde_json::{Map, Value};
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

/// The journal entry that records the keys of the input requests the last round issued. No key
/// of an ask or a step can take this name (it holds a NUL).
const ASKED: &str = "\u{0}asked";

/// Everything one round of a call is, apart from the handler.
struct Round<'a> {
    method: &'static str,
    /// The tool or prompt name, or the resource URI.
    target: &'a str,
    /// The digest of what the state is bound to (see [`bind`]).
    bound: BindingDigest,
    /// Boxed: about 1 KiB that would otherwise be moved with every future that holds a round.
    meta: Box<RequestMetaObject>,
    responses: InputResponses,
    state: Option<String>,
    /// The digest of the handler's fingerprint (see [`FingerprintDigest`]).
    fingerprint: FingerprintDigest,
    principal: Option<&'a Principal>,
    notifier: Option<Notifier>,
    /// On a legacy session: asks are sent to the client and awaited in place.
    live: Option<Live>,
    /// Whether `start_task()` turns this call into a task.
    task_gate: TaskGate,
}

/// What this request's `requestState` is bound to, hashed once: it opens the state the request
/// carries and seals the next. Computed before the handler starts so that the handler can own the
/// arguments.
fn bind(
    method: &str,
    target: &str,
    arguments: Option<&Map<String, Value>>,
    principal: Option<&Principal>,
    meta: &RequestMetaObject,
) -> BindingDigest {
    let principal = principal.map(Principal::binding_key);
    Binding {
        method,
        target,
        arguments,
        principal: principal.as_deref(),
        protocol_version: &meta.protocol_version,
    }
    .digest()
}

/// The reply of a call that may take rounds: boxed, and small (see [`Server::call_tool`]).
pub(crate) type ReplyFuture<'a> = Pin<Box<dyn Future<Output = Reply> + Send + 'a>>;

/// A reply known before any await.
fn ready<'a>(reply: Reply) -> ReplyFuture<'a> {
    Box::pin(std::future::ready(reply))
}

/// How a round ended.
enum Finished<T> {
    Done(T),
    Suspended(Box<InputRequiredResult>),
    /// The handler reached `start_task()`: the call goes on as a task, from this journal.
    Detached(crate::state::Journal),
}

/// The reply to request `id` for a finished round.
fn respond<T: Into<ServerResult>>(id: RequestId, finished: Result<Finished<T>, Error>) -> Reply {
    match finished {
        Ok(Finished::Done(result)) => Reply::result(id, result),
        Ok(Finished::Suspended(ask)) => Reply::result(id, *ask),
        Ok(Finished::Detached(_)) => Reply::error(
            Some(id),
            Error::internal("only a tools/call can become a task"),
        ),
        Err(e) => Reply::error(Some(id), e),
    }
}

impl Server {
    /// `tools/call`. The request is taken apart here, before any await, so that the boxed future
    /// the dispatcher awaits holds only what the round needs (the `_meta` boxed, no copy of the
    /// request or its unknown keys): that future is built on the stack and moved to the heap on
    /// every request.
    pub(crate) fn call_tool<'a>(
        &'a self,
        request: CallToolRequest,
        principal: Option<&'a Principal>,
        notifier: Option<Notifier>,
        live: Option<Live>,
    ) -> ReplyFuture<'a> {
        let CallToolRequest { id, params, .. } = request;
        let CallToolRequestParams {
            meta,
            arguments,
            input_responses,
            name,
            request_state,
            ..
        } = params;
        let meta = Box::new(meta);
        let registry = self.registry();
        // A tool the caller may not see is answered as an unknown one, and so is a retry whose
        // requestState names a tool removed since.
        let Some(tool) = registry.tools.get(&name).filter(|t| t.offer.to(principal)) else {
            let error = Error::invalid_params(format!("unknown tool: {name}"));
            return ready(Reply::error(Some(id), error));
        };
        let (handler, fingerprint) = (tool.handler.clone(), tool.fingerprint);
        drop(registry);
        let arguments = arguments.unwrap_or_default();
        // The tasks extension: a task from the call, a task from the handler's
        // `start_task()`, or none.
        let task = match self.task_decision(&*handler, &meta) {
            Ok(task) => task,
            Err(e) => return ready(Reply::error(Some(id), e)),
        };
        if task == Some(false) {
            return Box::pin(async move {
                let journal = Default::default();
                self.create_task(id, &name, arguments, *meta, principal, journal)
                    .await
            });
        }
        // A call that may become a task keeps its arguments for the task's record; any other
        // gives them to the handler.
        let task_parts = task.is_some().then(|| (meta.clone(), arguments.clone()));
        let bound = bind(
            methods::TOOLS_CALL,
            &name,
            Some(&arguments),
            principal,
            &meta,
        );
        let task_gate = if task.is_some() {
            TaskGate::Request
        } else {
            TaskGate::Off
        };
        Box::pin(async move {
            let round = Round {
                method: methods::TOOLS_CALL,
                target: &name,
                bound,
                meta,
                responses: input_responses.unwrap_or_default(),
                state: request_state,
                fingerprint,
                principal,
                notifier,
                live,
                task_gate,
            };
            let start = |parts: &CallParts<'_>| handler.call(arguments, parts);
            match (self.round(round, start).await, task_parts) {
                (Ok(Finished::Detached(journal)), Some((meta, arguments))) => {
                    Box::pin(self.create_task(id, &name, arguments, *meta, principal, journal))
                        .await
                }
                (finished, _) => respond(id, finished),
            }
        })
    }

    /// `prompts/get`, taken apart before any await as [`Server::call_tool`] is.
    pub(crate) fn get_prompt<'a>(
        &'a self,
        request: GetPromptRequest,
        principal: Option<&'a Principal>,
        notifier: Option<Notifier>,
        live: Option<Live>,
    ) -> ReplyFuture<'a> {
        let GetPromptRequest { id, params, .. } = request;
        let GetPromptRequestParams {
            meta,
            arguments,
            input_responses,
            name,
            request_state,
            ..
        } = params;
        let meta = Box::new(meta);
        let registry = self.registry();
        let Some(prompt) = registry
            .prompts
            .get(&name)
            .filter(|p| p.offer.to(principal))
        else {
            let error = Error::invalid_params(format!("unknown prompt: {name}"));
            return ready(Reply::error(Some(id), error));
        };
        let (handler, fingerprint) = (prompt.handler.clone(), prompt.fingerprint);
        drop(registry);
        let arguments: Map<String, Value> = arguments
            .unwrap_or_default()
            .into_iter()
            .map(|(k, v)| (k, Value::String(v)))
            .collect();
        let bound = bind(
            methods::PROMPTS_GET,
            &name,
            Some(&arguments),
            principal,
            &meta,
        );
        Box::pin(async move {
            let round = Round {
                method: methods::PROMPTS_GET,
                target: &name,
                bound,
                meta,
                responses: input_responses.unwrap_or_default(),
                state: request_state,
                fingerprint,
                principal,
                notifier,
                live,
                task_gate: TaskGate::Off,
            };
            let start = |parts: &CallParts<'_>| handler.get(arguments, parts);
            respond(id, self.round(round, start).await)
        })
    }

    /// `resources/read`, taken apart before any await as [`Server::call_tool`] is.
    pub(crate) fn read_resource<'a>(
        &'a self,
        request: ReadResourceRequest,
        principal: Option<&'a Principal>,
        notifier: Option<Notifier>,
        live: Option<Live>,
    ) -> ReplyFuture<'a> {
        let ReadResourceRequest { id, params, .. } = request;
        let ReadResourceRequestParams {
            meta,
            input_responses,
            request_state,
            uri,
            ..
        } = params;
        // A skill's file is served from the skills catalog, in one round.
        #[cfg(feature = "skills")]
        if let Some(result) = self.skills().and_then(|s| s.read(&uri)) {
            return ready(
                match crate::wire::from_value_text::<oxmcp_schema::ReadResourceResult>(&result) {
                    Ok(result) => Reply::result(id, result),
                    Err(e) => Reply::error(Some(id), Error::internal(e.to_string())),
                },
            );
        }
        let meta = Box::new(meta);
        let Some((resource, vars)) = self.find_resource(&uri, principal) else {
            return ready(Reply::error(Some(id), resource_not_found(&uri)));
        };
        let (handler, fingerprint) = (resource.handler.clone(), resource.fingerprint);
        let bound = bind(methods::RESOURCES_READ, &uri, None, principal, &meta);
        Box::pin(async move {
            let round = Round {
                method: methods::RESOURCES_READ,
                target: &uri,
                bound,
                meta,
                responses: input_responses.unwrap_or_default(),
                state: request_state,
                fingerprint,
                principal,
                notifier,
                live,
                task_gate: TaskGate::Off,
            };
            let start = |parts: &CallParts<'_>| handler.read(uri.clone(), vars, parts);
            let finished = self.round(round, start).await.map(|f| match f {
                // Cache hints on every complete read (never on input_required).
                Finished::Done(mut result) => {
                    result.ttl_ms.get_or_insert(0);
                    result.cache_scope.get_or_insert(CacheScope::Private);
                    Finished::Done(result)
                }
                suspended => suspended,
            });
            respond(id, finished)
        })
    }

    /// Count a `requestState` refused for `reason`, when metrics are on.
    fn count_refused(&self, reason: &'static str) {
        #[cfg(feature = "metrics")]
        if let Some(m) = self.metrics() {
            m.state_refused(reason);
        }
        #[cfg(not(feature = "metrics"))]
        let _ = reason;
    }

    fn find_resource(
        &self,
        uri: &str,
        caller: Option<&Principal>,
    ) -> Option<(Arc<RegisteredResource>, Map<String, Value>)> {
        self.registry()
            .resources
            .iter()
            .filter(|r| r.offer.to(caller))
            .find_map(|r| {
                match_template(r.handler.uri_template(), uri).map(|vars| (r.clone(), vars))
            })
    }

    /// One round of a call: start the handler with its parameters, open the state, run the
    /// handler, finish or suspend.
    async fn round<T>(
        &self,
        round: Round<'_>,
        start: impl FnOnce(&CallParts<'_>) -> BoxFuture<Result<T, Error>>,
    ) -> Result<Finished<T>, Error> {
        // Taken apart so that the large `_meta` is not kept twice across the handler's awaits.
        let Round {
            method,
            target,
            bound,
            meta,
            responses,
            state,
            fingerprint,
            principal: caller,
            notifier,
            live,
            task_gate,
        } = round;
        // A legacy session has no requestState: its asks are answered in place.
        let state = if live.is_some() { None } else { state };
        // The time of a retry that carries a state, read once: the state is checked against it
        // and the next one expires a lifetime after it (a slow handler makes that lifetime
        // shorter, never longer). A call without a state reads the clock only if it seals.
        let now = state.is_some().then(unix_now);
        // Set to `true` if this round is dropped before it finishes (the request was cancelled).
        let mut cancel = CancelSlot::default();
        let handler = start(&CallParts {
            states: &self.states,
            principal: caller,
            method,
            target,
            meta: &meta,
            notifier: notifier.clone(),
            cancel: &cancel,
        });
        // The opened token, whose single use is given back if this retry is refused before it
        // has any effect.
        let mut claim = None;
        let opened = match (&state, now) {
            (Some(token), Some(now)) => Some(match self.codec.open_bound(token, &bound, now) {
                Ok(sealed) => match self.codec.claim_shared(&sealed).await {
                    Ok(()) => Ok(sealed),
                    Err(e) => {
                        // Refused by the shared check: this instance's claim is given back.
                        self.codec.release_local(&sealed);
                        Err(e)
                    }
                },
                Err(e) => Err(e),
            }),
            _ => None,
        };
        let mut journal = match opened {
            None => IndexMap::new(),
            Some(opened) => match opened {
                Ok(sealed) if sealed.recorded_by_digest(&fingerprint) => {
                    claim = Some(sealed.token_id);
                    sealed.journal
                }
                Ok(sealed) => {
                    claim = Some(sealed.token_id);
                    tracing::info!(
                        method,
                        target,
                        "handler changed since the state was sealed; starting the call over"
                    );
                    // What was asked still counts: answers to it are used by key.
                    let mut kept = IndexMap::new();
                    if let Some(asked) = sealed.journal.get(ASKED) {
                        kept.insert(ASKED.to_string(), asked.clone());
                    }
                    kept
                }
                Err(StateError::GuardUnavailable(why)) => {
                    self.count_refused("guard_unavailable");
                    tracing::error!(method, target, reason = %why, "single-use check unavailable");
                    return Err(Error::internal(
                        "the requestState cannot be checked now; try again",
                    ));
                }
                Err(e) => {
                    self.count_refused(match &e {
                        StateError::Expired => "expired",
                        StateError::Replayed => "replayed",
                        StateError::UnknownKey(_) => "unknown_key",
                        StateError::Authentication => "authentication",
                        _ => "malformed",
                    });
                    tracing::warn!(method, target, reason = %e, "rejected requestState");
                    return Err(Error::invalid_params("invalid requestState"));
                }
            },
        };
        // On a retry that carries a state, only answers to what the last round asked count (the
        // keys are sealed in the journal); others are ignored, and asked again if needed. A
        // request without a state may still answer asks whose key the tool fixed with `.key()`
        // (the conformance suite's input-required-result-ignore-extra-params expects that), but
        // not call-site keys, which were never issued to this client.
        let asked = journal
            .shift_remove(ASKED)
            .and_then(|raw| serde_json::from_str::<Vec<String>>(raw.get()).ok());
        let mut responses = responses;
        if state.is_some() {
            let asked = asked.unwrap_or_default();
            responses.retain(|key, _| asked.contains(key));
        }
        let info = RequestInfo {
            method: method.to_string(),
            target: target.to_string(),
            principal: caller.cloned(),
            meta: *meta,
        };
        let call = Call::new(CallState {
            info,
            responses,
            journal,
            notifier,
            changes: Some(self.changes.clone()),
            answer_limit: self.codec.answer_limit(),
            stateless: state.is_none(),
            live,
            task_gate,
            ..Default::default()
        });
        let outcome = engine::run(call.clone(), handler).await;
        cancel.disarm();
        // A retry refused with an error before any step ran had no effect: its state may be
        // sent again (with other answers, or after the server's fault is fixed).
        let release = |codec: &crate::state::StateCodec| {
            if let Some(id) = claim {
                if !call.lock().stepped {
                    codec.release_token(id);
                }
            }
        };
        match outcome {
            Outcome::Done(Ok(result)) => Ok(Finished::Done(result)),
            Outcome::Detached { journal } => Ok(Finished::Detached(journal)),
            Outcome::Done(Err(error)) => {
                release(&self.codec);
                Err(error)
            }
            Outcome::Panicked(message) => {
                release(&self.codec);
                tracing::error!(
                    method,
                    target,
                    panic = %message,
                    "handler panicked"
                );
                Err(Error::internal("the handler failed unexpectedly"))
            }
            Outcome::Refused(error) => {
                release(&self.codec);
                Err(error)
            }
            Outcome::Suspended {
                requests,
                mut journal,
                answered,
            } => {
                let keys: Vec<&String> = requests.keys().collect();
                if let Ok(raw) = Recorded::of(&keys) {
                    journal.insert(ASKED.to_string(), raw);
                }
                let sealed = self
                        .codec
                        .seal_bound(&bound, &fingerprint, &journal, now.unwrap_or_else(unix_now))
                        .map_err(|e| match e {
                            // The answers on this request are what grew it past the cap.
                            StateError::Oversize(n) if answered => Error::invalid_params(format!(
                                "the answers on this request would make a requestState of {n} bytes, over the size cap"
                            )),
                            StateError::Oversize(n) => Error::internal(format!(
                                "the call's requestState would be {n} bytes, over the size cap"
                            )),
                            other => Error::internal(other.to_string()),
                        });
                let token = match sealed {
                    Ok(token) => token,
                    Err(e) => {
                        release(&self.codec);
                        return Err(e);
                    }
                };
                let mut ask = InputRequiredResult::new().with_state(token);
                ask.input_requests = Some(requests);
                Ok(Finished::Suspended(Box::new(ask)))
            }
        }
    }
}
