//! The resumable engine: runs a handler under a per-call context in which `elicit`, `sample`,
//! `list_roots` and `step` either return a recorded answer or register an input request. When
//! the handler can go no further without input, the call suspends into an `InputRequiredResult`
//! carrying every request registered so far and the journal to seal into `requestState`.

use super::events::{Change, Notifier};
use crate::handler::Principal;
use crate::request_state::Journal;
use indexmap::IndexMap;
use oxmcp_schema::{ClientCapabilities, InputRequest, InputResponses, RequestMetaObject};
use sha2::{Digest, Sha256};
use std::collections::HashMap;
use std::future::Future;
use std::io::Write as _;
use std::panic::Location;
use std::pin::Pin;
use std::sync::{Arc, Mutex, MutexGuard};
use std::task::{Context, Poll};

/// What the handler sees of the request it serves.
#[derive(Debug, Clone)]
pub struct RequestInfo {
    /// The request's method (`tools/call`, `prompts/get`, `resources/read`).
    pub method: String,
    /// The tool or prompt name, or the resource URI.
    pub target: String,
    /// Who the transport says is calling, when it knows.
    pub principal: Option<Principal>,
    /// The request's whole `_meta`, as sent: protocol version, client capabilities and info, log
    /// level, progress token, and any other key in `extra`. Boxed, as the request holds it.
    pub meta: Box<RequestMetaObject>,
}

impl Default for RequestInfo {
    /// No method or target, no caller, and the `_meta` of the newest protocol version with no
    /// client capabilities.
    fn default() -> Self {
        RequestInfo {
            method: String::new(),
            target: String::new(),
            principal: None,
            meta: Box::new(RequestMetaObject::new(
                ClientCapabilities::default(),
                oxmcp_schema::LATEST_PROTOCOL_VERSION,
            )),
        }
    }
}

impl RequestInfo {
    /// The client's capabilities declared on this request.
    pub fn capabilities(&self) -> &ClientCapabilities {
        &self.meta.client_capabilities
    }

    /// The protocol version of this request.
    pub fn protocol_version(&self) -> &str {
        &self.meta.protocol_version
    }
}

/// The per-call state shared between the driver and the asks.
#[derive(Debug)]
pub(crate) struct CallState {
    pub(crate) info: RequestInfo,
    /// Answers on this request (`inputResponses`), by key.
    pub(crate) responses: InputResponses,
    /// Answers and step results recorded in earlier rounds and in this one.
    pub(crate) journal: Journal,
    /// Input requests registered in this round, by key.
    pub(crate) pending: IndexMap<String, InputRequest>,
    /// How often each call site or explicit key was used in this run, for unique keys.
    pub(crate) occurrences: HashMap<String, u32>,
    /// Where notifications for this request go (progress, log messages), if the transport
    /// can deliver them.
    pub(crate) notifier: Option<Notifier>,
    /// The server's list-change channel, so handlers can announce changes.
    pub(crate) changes: Option<tokio::sync::broadcast::Sender<Change>>,
    /// The largest answer recorded in the journal, in bytes of JSON.
    pub(crate) answer_limit: usize,
    /// Whether this round recorded an answer from the request.
    pub(crate) answered: bool,
    /// Whether this round started a step (ran code with side effects).
    pub(crate) stepped: bool,
    /// The request carried no `requestState`: its answers count only for asks with an explicit
    /// key (one the tool documents), since no key was issued to this client.
    pub(crate) stateless: bool,
    /// On a 2025 session: asks are real requests to the client, sent through this.
    pub(crate) live: Option<super::live::Live>,
    /// Set when an answer on the request is refused: the round ends with this error.
    pub(crate) refused: Option<oxmcp_schema::Error>,
    /// Where `start_task()` stands in this run.
    pub(crate) task_gate: TaskGate,
    /// Set when the handler reached `start_task()` in a request that becomes a task.
    pub(crate) detached: bool,
    /// In a task: where the journal goes each time a `step` records a result, so the task's
    /// store keeps it before the handler goes on (another instance that takes the task over
    /// does not run the step again).
    pub(crate) checkpoint: Option<tokio::sync::mpsc::UnboundedSender<Journal>>,
}

/// What `start_task()` does in a run.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) enum TaskGate {
    /// The call cannot become a task here (the tool does not support tasks, or the client did
    /// not declare the extension): `start_task()` returns at once and the call goes on.
    #[default]
    Off,
    /// An ordinary request to a tool that may become a task: `start_task()` ends the round,
    /// and the call goes on as a task.
    Request,
    /// The run is a task's: `start_task()` returns at once.
    #[cfg(feature = "tasks")]
    InTask,
}

impl Default for CallState {
    fn default() -> Self {
        CallState::new(RequestInfo::default())
    }
}

impl CallState {
    /// The state a call of `info` starts from: no answers, journal or pending asks yet. The call
    /// paths build on this rather than on `Default`, whose `RequestInfo` they would make (two
    /// allocations for its `_meta`) only to drop it.
    pub(crate) fn new(info: RequestInfo) -> Self {
        CallState {
            info,
            responses: InputResponses::default(),
            journal: Journal::default(),
            pending: IndexMap::new(),
            occurrences: HashMap::new(),
            notifier: None,
            changes: None,
            answer_limit: usize::MAX,
            answered: false,
            stepped: false,
            stateless: false,
            live: None,
            refused: None,
            task_gate: TaskGate::Off,
            detached: false,
            checkpoint: None,
        }
    }

    /// A unique key for an ask at `site` (or with the explicit key `explicit`).
    pub(crate) fn key(
        &mut self,
        kind: &str,
        site: &Location<'_>,
        explicit: Option<&str>,
    ) -> String {
        let base = match explicit {
            Some(k) => k.to_string(),
            None => {
                // The digest of `file:line:column`, its text written piece by piece.
                let mut position = [0u8; 24];
                let capacity = position.len();
                let written = {
                    let mut rest = &mut position[..];
                    let _ = write!(rest, ":{}:{}", site.line(), site.column());
                    capacity - rest.len()
                };
                let digest = Sha256::new()
                    .chain_update(site.file())
                    .chain_update(&position[..written])
                    .finalize();
                let mut base = String::with_capacity(kind.len() + 9);
                base.push_str(kind);
                base.push('-');
                crate::wire::push_hex(&mut base, &digest[..4]);
                base
            }
        };
        let n = self.occurrences.entry(base.clone()).or_default();
        let key = match *n {
            0 => base,
            n => format!("{base}-{n}"),
        };
        *n += 1;
        key
    }
}

/// A handle on the current call's state.
#[derive(Debug, Clone, Default)]
pub(crate) struct Call(Arc<Mutex<CallState>>);

impl Call {
    pub(crate) fn new(state: CallState) -> Self {
        Call(Arc::new(Mutex::new(state)))
    }

    pub(crate) fn lock(&self) -> MutexGuard<'_, CallState> {
        // A panic inside a handler must not wedge the call's bookkeeping.
        crate::wire::lock(&self.0)
    }
}

tokio::task_local! {
    static CURRENT: Call;
}

/// Run `f` with the current call, if the caller is inside a handler.
pub(crate) fn with_call<R>(f: impl FnOnce(&Call) -> R) -> Option<R> {
    CURRENT.try_with(|c| f(c)).ok()
}

/// The request the current handler serves (`None` outside a handler).
pub fn current_request() -> Option<RequestInfo> {
    with_call(|c| c.lock().info.clone())
}

/// The error a call whose handler panicked is answered with (a call's reply or a task's
/// error): internal, and nothing of the panic, whose message stays in the server's log.
pub(crate) fn panicked_error() -> oxmcp_schema::Error {
    oxmcp_schema::Error::internal("the handler failed unexpectedly")
}

/// How a handler run ended.
#[derive(Debug)]
pub enum Outcome<T> {
    /// The handler returned.
    Done(T),
    /// The handler panicked; the message, when the panic carried one. The call is answered
    /// with an internal error instead of no answer at all.
    Panicked(String),
    /// An answer on the request was refused (too large): the call is answered with this error.
    Refused(oxmcp_schema::Error),
    /// The handler reached `start_task()` in a request that becomes a task: the journal so
    /// far, from which the task replays.
    Detached {
        /// Answers and step results so far.
        journal: Journal,
    },
    /// The handler needs input: these requests, and the journal to seal.
    Suspended {
        /// Input requests registered before suspension, by key.
        requests: IndexMap<String, InputRequest>,
        /// Answers and step results so far.
        journal: Journal,
        /// Whether this round recorded answers from the request (if the sealed state is too
        /// large, they are what made it so).
        answered: bool,
    },
}

/// Drives a handler future: returns when it completes, or as soon as it is pending with input
/// requests registered (it cannot make progress before the client answers them).
struct Drive<F> {
    fut: F,
    call: Call,
}

impl<F: Future + Unpin> Future for Drive<F> {
    type Output = Outcome<F::Output>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let call = self.call.clone();
        let fut = Pin::new(&mut self.fut);
        // A panic in the handler must not take the reply with it: it is caught here, on every
        // transport, and the call ends with an internal error.
        let polled = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            CURRENT.sync_scope(call.clone(), || fut.poll(cx))
        }));
        let polled = match polled {
            Ok(p) => p,
            Err(payload) => {
                let message = payload
                    .downcast_ref::<&str>()
                    .map(|s| s.to_string())
                    .or_else(|| payload.downcast_ref::<String>().cloned())
                    .unwrap_or_default();
                return Poll::Ready(Outcome::Panicked(message));
            }
        };
        match polled {
            Poll::Ready(v) => Poll::Ready(Outcome::Done(v)),
            Poll::Pending => {
                let mut st = call.lock();
                if let Some(error) = st.refused.take() {
                    Poll::Ready(Outcome::Refused(error))
                } else if st.detached && st.pending.is_empty() {
                    Poll::Ready(Outcome::Detached {
                        journal: std::mem::take(&mut st.journal),
                    })
                } else if st.pending.is_empty() {
                    Poll::Pending
                } else {
                    Poll::Ready(Outcome::Suspended {
                        requests: std::mem::take(&mut st.pending),
                        journal: std::mem::take(&mut st.journal),
                        answered: st.answered,
                    })
                }
            }
        }
    }
}

/// Run `handler` (already boxed by the handler trait, so not boxed again) for one round of a
/// call.
pub(crate) async fn run<F: Future + Unpin>(call: Call, handler: F) -> Outcome<F::Output> {
    Drive { fut: handler, call }.await
}

/// Mark the point where a task-supporting tool's call becomes a task (with
/// `#[mcp_tool(task = "...", task_start = "explicit")]`): before it, asks are ordinary
/// `input_required` rounds of the request; at it, a client that declared the tasks extension
/// is answered with the created task, and the handler goes on inside the task (replayed from
/// its journal: code before this point may run again, `step` results are kept). Anywhere else
/// (no task support, a client without the extension, already in a task) it returns at once.
pub async fn start_task() {
    let detach = with_call(|call| {
        let mut st = call.lock();
        if st.task_gate == TaskGate::Request {
            st.detached = true;
            true
        } else {
            false
        }
    })
    .unwrap_or(false);
    if detach {
        match Suspend.await {}
    }
}

/// A future that never completes: an ask waiting for the client's answer. The driver sees the
/// registered request and suspends the call instead of waiting.
pub(crate) struct Suspend;

impl Future for Suspend {
    type Output = std::convert::Infallible;
    fn poll(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<Self::Output> {
        Poll::Pending
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An ask's key is its kind and the first four bytes, in hex, of the SHA-256 of its call
    /// site's `file:line:column`, then `-n` for its nth repeat in the run. Keys are recorded in
    /// sealed states, so the derivation must not change between releases: an instance would not
    /// find the answers a state sealed by an older one records.
    #[test]
    fn ask_keys_are_derived_from_the_call_site() {
        let site = Location::caller();
        let digest = Sha256::digest(format!("{}:{}:{}", site.file(), site.line(), site.column()));
        let mut hex = String::new();
        crate::wire::push_hex(&mut hex, &digest[..4]);
        let mut st = CallState::default();
        assert_eq!(st.key("elicit", site, None), format!("elicit-{hex}"));
        assert_eq!(st.key("elicit", site, None), format!("elicit-{hex}-1"));
        assert_eq!(st.key("sample", site, None), format!("sample-{hex}"));
        assert_eq!(st.key("elicit", site, Some("mine")), "mine");
        assert_eq!(st.key("elicit", site, Some("mine")), "mine-1");
    }
}
