//! The round: one run of a handler through the engine, whichever way the call came. An MRTR
//! call (`tools/call`, `prompts/get`, `resources/read`) opens the `requestState` its retry
//! carries (bound to the request), runs, and replies or seals the journal into the next state
//! beside the input requests; a 2025 session's call runs with its asks answered in place; a
//! task's run replays from the journal its store keeps ([`execute`]). The request-state codec's open,
//! claim and seal are called from here only.

use super::Server;
use crate::handler::extract::StateMap;
use crate::handler::{CallParts, CancelSlot, Principal};
use crate::request_state::{
    unix_now, Binding, BindingDigest, FingerprintDigest, Journal, Recorded, RequestStateError,
    TokenId,
};
use crate::resume::engine::{self, Call, CallState, Outcome, RequestInfo, TaskGate};
use crate::resume::events::Notifier;
use crate::resume::live::Live;
use crate::wire::{BoxFuture, Reply};
use indexmap::IndexMap;
use oxmcp_schema::{
    Error, InputRequests, InputRequiredResult, InputResponses, RequestId, RequestMetaObject,
    ServerResult,
};
use serde_json::{Map, Value};
use std::future::Future;
use std::pin::Pin;
use tracing::Instrument;

/// Who a call runs for and how it talks back: the authenticated principal, where the request's
/// notifications go (if the transport delivers them), and on a 2025 session the channel its
/// asks are sent to the client through.
#[derive(Default)]
pub(crate) struct Caller<'a> {
    pub(crate) principal: Option<&'a Principal>,
    pub(crate) notifier: Option<Notifier>,
    pub(crate) live: Option<Live>,
    /// How the request came (for its telemetry).
    #[cfg_attr(not(feature = "otel"), allow(dead_code))]
    pub(crate) via: crate::wire::Via,
}

impl<'a> Caller<'a> {
    /// A caller whose notifications go to `notifier`, with no 2025 session.
    pub(crate) fn new(principal: Option<&'a Principal>, notifier: Option<Notifier>) -> Self {
        Caller {
            principal,
            notifier,
            live: None,
            via: crate::wire::Via::default(),
        }
    }

    /// The same caller, whose request came `via` a transport.
    #[cfg(any(feature = "http", feature = "stdio"))]
    pub(crate) fn via(mut self, via: crate::wire::Via) -> Self {
        self.via = via;
        self
    }
}

/// How a run of a handler came, as the `round` span records it.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Mode {
    /// A 2026-07-28 request: its rounds travel in `requestState`.
    Rounds,
    /// A 2025 session's request: asks are answered in place.
    Session,
    /// A task's run, from its stored journal.
    #[cfg(feature = "tasks")]
    Task,
}

impl Mode {
    fn as_str(self) -> &'static str {
        match self {
            Mode::Rounds => "rounds",
            Mode::Session => "session",
            #[cfg(feature = "tasks")]
            Mode::Task => "task",
        }
    }
}

/// Run a handler once through the engine: `start` builds its future from the call's parts
/// (state map, principal, method, target, `_meta`, notifier, cancellation), then the engine
/// drives it with `state` (journal, answers, asks) to an outcome, inside a `round` span that
/// names the method, the target and the mode. Dropped before the outcome (the request was
/// cancelled, a task's lease lost), the handler is told through its cancellation slot. Gives
/// the outcome and the call's bookkeeping (whether a step ran).
// A plain function returning the future, not an `async fn`: an `async fn` would keep `state`
// (with the request's `_meta`) in its future beside the call it is moved into.
pub(crate) fn execute<T>(
    app_state: &StateMap,
    method: &'static str,
    mode: Mode,
    state: CallState,
    start: impl FnOnce(&CallParts<'_>) -> BoxFuture<Result<T, Error>>,
) -> impl Future<Output = (Outcome<Result<T, Error>>, Call)> {
    let span = tracing::debug_span!(
        "round",
        method,
        target = %state.info.target,
        mode = mode.as_str()
    );
    let mut cancel = CancelSlot::default();
    let handler = start(&CallParts {
        app_state,
        principal: state.info.principal.as_ref(),
        method,
        target: &state.info.target,
        meta: &state.info.meta,
        notifier: state.notifier.clone(),
        cancel: &cancel,
    });
    let call = Call::new(state);
    async move {
        let outcome = engine::run(call.clone(), handler).instrument(span).await;
        cancel.disarm();
        (outcome, call)
    }
}

/// The journal entry that records the keys of the input requests the last round issued. No key
/// of an ask or a step can take this name (it holds a NUL).
const ASKED: &str = "\u{0}asked";

/// Everything one round of a call is, apart from the handler.
pub(super) struct Round<'a> {
    pub(super) method: &'static str,
    /// The tool or prompt name, or the resource URI.
    pub(super) target: &'a str,
    /// The digest of what the state is bound to (see [`bind`]); none for a call in a 2025-era
    /// session, which carries and seals no state.
    pub(super) bound: Option<BindingDigest>,
    /// Boxed: about 1 KiB that would otherwise be moved with every future that holds a round.
    pub(super) meta: Box<RequestMetaObject>,
    pub(super) responses: InputResponses,
    /// The `requestState` the request carries.
    pub(super) request_state: Option<String>,
    /// The digest of the handler's fingerprint (see [`FingerprintDigest`]).
    pub(super) fingerprint: FingerprintDigest,
    /// Who the call runs for, and where its notifications and asks go.
    pub(super) caller: Caller<'a>,
    /// Whether `start_task()` turns this call into a task.
    pub(super) task_gate: TaskGate,
}

/// What this request's `requestState` is bound to, hashed once: it opens the state the request
/// carries and seals the next. Computed before the handler starts so that the handler can own the
/// arguments. None for a call in a 2025 session: its asks are answered in place, so it opens
/// no state and seals none, and the hash would be thrown away.
pub(super) fn bind(
    method: &str,
    target: &str,
    arguments: Option<&Map<String, Value>>,
    caller: &Caller<'_>,
    meta: &RequestMetaObject,
) -> Option<BindingDigest> {
    if caller.live.is_some() {
        return None;
    }
    let principal = caller.principal.map(Principal::binding_key);
    let digest = Binding {
        method,
        target,
        arguments,
        principal: principal.as_deref(),
        protocol_version: &meta.protocol_version,
    }
    .digest();
    Some(digest)
}

/// The reply of a call that may take rounds: boxed, and small (see [`Server::call_tool`]).
pub(crate) type ReplyFuture<'a> = Pin<Box<dyn Future<Output = Reply> + Send + 'a>>;

/// A reply known before any await.
pub(super) fn ready<'a>(reply: Reply) -> ReplyFuture<'a> {
    Box::pin(std::future::ready(reply))
}

/// How a round ended.
pub(super) enum Finished<T> {
    Done(T),
    Suspended(Box<InputRequiredResult>),
    /// The handler reached `start_task()`: the call goes on as a task, from this journal.
    Detached(#[cfg_attr(not(feature = "tasks"), allow(dead_code))] crate::request_state::Journal),
}

/// The reply to request `id` for a finished round.
pub(super) fn respond<T: Into<ServerResult>>(
    id: RequestId,
    finished: Result<Finished<T>, Error>,
) -> Reply {
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
    /// Count a `requestState` refused for `reason`, when metrics are on.
    fn count_refused(&self, reason: &'static str) {
        #[cfg(feature = "metrics")]
        if let Some(m) = self.metrics() {
            m.state_refused(reason);
        }
        #[cfg(not(feature = "metrics"))]
        let _ = reason;
    }

    /// One round of a call: open the request state it carries, run the handler from that
    /// journal with this request's answers, then finish, or suspend with the next request state.
    pub(super) async fn round<T>(
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
            request_state,
            fingerprint,
            caller:
                Caller {
                    principal: caller,
                    notifier,
                    live,
                    ..
                },
            task_gate,
        } = round;
        // A 2025 session has no requestState: its asks are answered in place.
        let request_state = if live.is_some() { None } else { request_state };
        // The time of a retry that carries a request state, read once: the state is checked
        // against it and the next one expires a lifetime after it (a slow handler makes that
        // lifetime shorter, never longer). A call without one reads the clock only if it seals.
        let now = request_state.is_some().then(unix_now);
        let opened = match (&request_state, now, &bound) {
            (Some(token), Some(now), Some(bound)) => {
                self.open_request_state(token, bound, now, &fingerprint, method, target)
                    .await?
            }
            _ => Opened::default(),
        };
        let Opened { mut journal, claim } = opened;
        // The flow's first round, which every later round's span links to (with `otel`).
        #[cfg(feature = "otel")]
        let flow = live
            .is_none()
            .then(|| crate::otel::flow_link(&mut journal))
            .flatten();
        let responses = answers_to_the_last_asks(&mut journal, responses, request_state.is_some());
        let info = RequestInfo {
            method: method.to_string(),
            target: target.to_string(),
            principal: caller.cloned(),
            meta,
        };
        let mode = if live.is_some() {
            Mode::Session
        } else {
            Mode::Rounds
        };
        let call_state = CallState {
            responses,
            journal,
            notifier,
            changes: Some(self.changes.clone()),
            answer_limit: self.codec.answer_limit(),
            stateless: request_state.is_none(),
            live,
            task_gate,
            ..CallState::new(info)
        };
        let (outcome, call) = execute(&self.app_state, method, mode, call_state, start).await;
        // A retry refused with an error before any step ran had no effect: its request state
        // may be sent again (with other answers, or after the server's fault is fixed).
        let release = || {
            if let Some(id) = claim {
                if !call.lock().stepped {
                    self.codec.release_token(id);
                }
            }
        };
        match outcome {
            Outcome::Done(Ok(result)) => Ok(Finished::Done(result)),
            Outcome::Detached { journal } => Ok(Finished::Detached(journal)),
            Outcome::Done(Err(error)) | Outcome::Refused(error) => {
                release();
                Err(error)
            }
            Outcome::Panicked(message) => {
                release();
                tracing::error!(method, target, panic = %message, "handler panicked");
                Err(engine::panicked_error())
            }
            Outcome::Suspended {
                requests,
                journal,
                answered,
            } => {
                #[cfg(feature = "otel")]
                let journal = {
                    let mut journal = journal;
                    crate::otel::seal_flow(&mut journal, flow);
                    journal
                };
                // Only a call that asks in rounds suspends; one in a 2025 session asks in
                // place and has no binding to seal to.
                let sealed = match bound {
                    Some(bound) => {
                        let now = now.unwrap_or_else(unix_now);
                        self.seal_next(&bound, &fingerprint, &requests, journal, answered, now)
                    }
                    None => Err(Error::internal(
                        "a call in a 2025 session cannot take rounds",
                    )),
                };
                let token = sealed.inspect_err(|_| release())?;
                let mut ask = InputRequiredResult::new().with_state(token);
                ask.input_requests = Some(requests);
                Ok(Finished::Suspended(Box::new(ask)))
            }
        }
    }

    /// Open the request state `token` a retry carries, for the request `bound` describes, at
    /// `now`: its journal and its single-use claim; or the error that refuses the retry. A
    /// state sealed by an earlier version of the handler (another `fingerprint`) starts the
    /// call over, keeping only which keys were asked.
    async fn open_request_state(
        &self,
        token: &str,
        bound: &BindingDigest,
        now: u64,
        fingerprint: &FingerprintDigest,
        method: &str,
        target: &str,
    ) -> Result<Opened, Error> {
        let opened = match self.codec.open_bound(token, bound, now) {
            Ok(sealed) => match self.codec.claim_shared(&sealed).await {
                Ok(()) => Ok(sealed),
                Err(e) => {
                    // Refused by the shared check: this instance's claim is given back.
                    self.codec.release_local(&sealed);
                    Err(e)
                }
            },
            Err(e) => Err(e),
        };
        match opened {
            Ok(sealed) if sealed.recorded_by_digest(fingerprint) => Ok(Opened {
                claim: Some(sealed.token_id),
                journal: sealed.journal,
            }),
            Ok(sealed) => {
                tracing::info!(
                    method,
                    target,
                    "handler changed since the request state was sealed; starting the call over"
                );
                // What was asked still counts: answers to it are used by key.
                let mut journal = IndexMap::new();
                if let Some(asked) = sealed.journal.get(ASKED) {
                    journal.insert(ASKED.to_string(), asked.clone());
                }
                Ok(Opened {
                    claim: Some(sealed.token_id),
                    journal,
                })
            }
            Err(RequestStateError::GuardUnavailable(why)) => {
                self.count_refused("guard_unavailable");
                tracing::error!(method, target, reason = %why, "single-use check unavailable");
                Err(Error::internal(
                    "the requestState cannot be checked now; try again",
                ))
            }
            Err(e) => {
                self.count_refused(match &e {
                    RequestStateError::Expired => "expired",
                    RequestStateError::Replayed => "replayed",
                    RequestStateError::UnknownKey(_) => "unknown_key",
                    RequestStateError::Authentication => "authentication",
                    _ => "malformed",
                });
                tracing::warn!(method, target, reason = %e, "rejected requestState");
                Err(Error::invalid_params("invalid requestState"))
            }
        }
    }

    /// Seal the journal of a suspended call, with the keys of the `requests` it now asks, into
    /// the request state its retry will carry. `answered`: this request brought answers, which
    /// are then what grew a state past its cap.
    fn seal_next(
        &self,
        bound: &BindingDigest,
        fingerprint: &FingerprintDigest,
        requests: &InputRequests,
        mut journal: Journal,
        answered: bool,
        now: u64,
    ) -> Result<String, Error> {
        let keys: Vec<&String> = requests.keys().collect();
        if let Ok(raw) = Recorded::of(&keys) {
            journal.insert(ASKED.to_string(), raw);
        }
        self.codec
            .seal_bound(bound, fingerprint, &journal, now)
            .map_err(|e| match e {
                RequestStateError::Oversize(n) if answered => Error::invalid_params(format!(
                    "the answers on this request would make a requestState of {n} bytes, over the size cap"
                )),
                RequestStateError::Oversize(n) => Error::internal(format!(
                    "the call's requestState would be {n} bytes, over the size cap"
                )),
                other => Error::internal(other.to_string()),
            })
    }
}

/// An opened request state: the journal the call replays from, and the token's single-use
/// claim, given back if the retry is refused before it has any effect.
#[derive(Default)]
struct Opened {
    journal: Journal,
    claim: Option<TokenId>,
}

/// The answers of this request that count. On a retry that carries a request state, only
/// answers to what the last round asked (the keys are sealed in the journal, taken out of it
/// here); others are ignored, and asked again if needed. A request without one may still
/// answer asks whose key the tool fixed with `.key()` (the conformance suite's
/// input-required-result-ignore-extra-params expects that), but not call-site keys, which were
/// never issued to this client.
fn answers_to_the_last_asks(
    journal: &mut Journal,
    mut responses: InputResponses,
    carried_state: bool,
) -> InputResponses {
    let asked = journal
        .shift_remove(ASKED)
        .and_then(|raw| crate::wire::from_text::<Vec<String>>(raw.get()).ok());
    if carried_state {
        let asked = asked.unwrap_or_default();
        responses.retain(|key, _| asked.contains(key));
    }
    responses
}
