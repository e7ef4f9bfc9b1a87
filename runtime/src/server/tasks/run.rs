//! One run of a task: the handler replayed from the task's journal with the answers received,
//! in the background of this process, and where it ended written back to the task's record.

use super::TaskEngine;
use crate::handler::extract::StateMap;
use crate::handler::{CallParts, ToolHandler};
use crate::request_state::Journal;
use crate::resume::engine::{panicked_error, CallState, Outcome, RequestInfo, TaskGate};
use crate::resume::events::Change;
use crate::server::round::{execute, Mode};
use crate::tasks::{now_ms, TaskRecord, TaskStatus};
use oxmcp_schema::{methods, ClientCapabilities, Error, RequestMetaObject};
use serde_json::Map;
use std::sync::Arc;

/// What a run needs that outlives the request that started it.
#[derive(Clone)]
pub(super) struct RunEnv {
    pub(super) engine: Arc<TaskEngine>,
    pub(super) handler: Arc<dyn ToolHandler>,
    pub(super) app_state: StateMap,
    pub(super) changes: tokio::sync::broadcast::Sender<Change>,
    pub(super) answer_limit: usize,
}

/// Whether the record `r` is the outcome run `run` wrote.
fn holds_after(r: &TaskRecord, run: u64) -> bool {
    r.run == run && r.lease_owner.is_none()
}

/// What a task no longer needs once it has ended: its arguments, journal, pending requests,
/// answers and request metadata (a finished task is never run again; its result or error
/// stays, for `tasks/get`, until the task expires).
pub(super) fn release(r: &mut TaskRecord) {
    r.arguments = Map::new();
    r.journal.clear();
    r.pending.clear();
    r.answers.clear();
    r.meta = RequestMetaObject::new(
        ClientCapabilities::default(),
        r.meta.protocol_version.clone(),
    );
}

/// Run task `task_id` (its run number `run`) in the background of this process.
pub(super) fn spawn_run(env: RunEnv, task_id: String, run: u64) {
    let engine = env.engine.clone();
    let key = task_id.clone();
    let mut running = crate::wire::lock(&engine.running);
    let handle = tokio::spawn(async move {
        drive(&env, &task_id, run).await;
        let mut running = crate::wire::lock(&env.engine.running);
        // Only this run's own entry: a later run may have replaced it.
        if running
            .get(&task_id)
            .is_some_and(|h| h.id() == tokio::task::id())
        {
            running.remove(&task_id);
        }
    });
    if let Some(old) = running.insert(key, handle.abort_handle()) {
        old.abort();
    }
}

/// One run of a task: replay the handler from the journal with the answers received, then
/// record where it ended, unless the task moved on meanwhile (cancelled, or another run).
async fn drive(env: &RunEnv, task_id: &str, run: u64) {
    let record = match env.engine.store.get(task_id).await {
        Ok(Some(r)) if r.run == run && r.status == TaskStatus::Working => r,
        Ok(_) => return,
        Err(e) => {
            tracing::warn!(task = task_id, error = %e, "a task could not be loaded");
            return;
        }
    };
    let (checkpoint, checkpoints) = tokio::sync::mpsc::unbounded_channel::<Journal>();
    let state = run_state(env, &record, checkpoint);
    let lease = Lease {
        instance: env.engine.instance.clone(),
        run,
        ms: env.engine.lease_ms(),
    };
    // Dropped before the run finishes (cancelled, taken over, aborted), the round tells the
    // handler.
    let arguments = record.arguments.clone();
    let running = execute(
        &env.app_state,
        methods::TOOLS_CALL,
        Mode::Task,
        state,
        |parts: &CallParts<'_>| env.handler.call(arguments, parts),
    );
    // The run is a span of its own, linked to the call that created the task; with the tool's
    // opt-in, it records the arguments and the result.
    #[cfg(feature = "otel")]
    let payloads = env.handler.trace_payloads();
    #[cfg(feature = "otel")]
    let run_span = crate::otel::task_run_span(
        &record.tool,
        task_id,
        record.trace.as_deref(),
        payloads.then_some(crate::otel::Payloads(Some(&record.arguments))),
    );
    #[cfg(feature = "otel")]
    let running = opentelemetry::context::FutureExt::with_context(
        running,
        run_span
            .clone()
            .unwrap_or_else(opentelemetry::Context::current),
    );
    let Some(outcome) = hold_lease(env, task_id, &lease, running, checkpoints).await else {
        // Cancelled, or taken over: this run stops.
        return;
    };
    #[cfg(feature = "otel")]
    if let Some(cx) = &run_span {
        trace_run_end(cx, &outcome, payloads);
    }
    if let Outcome::Panicked(message) = &outcome {
        tracing::error!(task = task_id, panic = %message, "a task's handler panicked");
    }
    // Checkpoints still queued need no write: a suspended run's outcome carries the whole
    // journal, and a finished task is never replayed.
    let finish = lease.while_held(|r| record_outcome(r, &outcome));
    match env.engine.store.update(task_id, &finish).await {
        Ok(Some(r)) if holds_after(&r, run) => env.engine.count(r.status.as_str()),
        Ok(_) => {}
        Err(e) => {
            env.engine.store_error();
            tracing::warn!(task = task_id, error = %e, "a task's outcome could not be stored");
        }
    }
}

/// A run's hold on its task: the record names this instance as the lease's owner, for this run,
/// while the task is working; renewed `ms` at a time.
struct Lease {
    instance: String,
    run: u64,
    ms: u64,
}

impl Lease {
    /// Whether `r` is still held by this run.
    fn holds(&self, r: &TaskRecord) -> bool {
        r.run == self.run
            && r.status == TaskStatus::Working
            && r.lease_owner.as_deref() == Some(&self.instance)
    }

    /// `change` as a task store change that applies only while this run holds the task: to a
    /// record it no longer holds, nothing is written.
    fn while_held<'a>(
        &'a self,
        change: impl Fn(&mut TaskRecord) + Send + Sync + 'a,
    ) -> impl Fn(&mut TaskRecord) -> bool + Send + Sync + 'a {
        move |r| {
            if !self.holds(r) {
                return false;
            }
            change(r);
            true
        }
    }
}

/// The outcome of `running`, reached while this run holds the task's lease: the lease is renewed
/// every third of its length, and each step's journal sent to `checkpoints` is stored as it is
/// recorded. `None` when the lease was lost (the task cancelled, or taken over by another
/// instance): the run stops there, and `running` is dropped.
async fn hold_lease<F>(
    env: &RunEnv,
    task_id: &str,
    lease: &Lease,
    running: F,
    mut checkpoints: tokio::sync::mpsc::UnboundedReceiver<Journal>,
) -> Option<RunOutcome>
where
    F: std::future::Future<Output = (RunOutcome, crate::resume::engine::Call)>,
{
    let store = &env.engine.store;
    let renew = lease.while_held(|r| r.lease_until_ms = now_ms() + lease.ms);
    tokio::pin!(running);
    // The first renewal a third of the lease from now (an interval's immediate first tick would
    // make the run wait for the timer's next millisecond before it starts).
    let every = env.engine.lease / 3;
    let mut ticker = tokio::time::interval_at(tokio::time::Instant::now() + every, every);
    loop {
        tokio::select! {
            (outcome, _) = &mut running => return Some(outcome),
            Some(journal) = checkpoints.recv() => {
                let save = lease.while_held(|r| r.journal = journal.clone());
                if let Err(e) = store.update(task_id, &save).await {
                    tracing::warn!(task = task_id, error = %e, "a step's result could not be stored");
                }
            }
            _ = ticker.tick() => {
                match store.update(task_id, &renew).await {
                    Ok(Some(r)) if lease.holds(&r) => {}
                    Ok(_) => return None,
                    Err(e) => tracing::warn!(task = task_id, error = %e, "a task's lease could not be renewed"),
                }
            }
        }
    }
}

/// How a run of a tool ended.
type RunOutcome = Outcome<Result<oxmcp_schema::CallToolResult, Error>>;

/// End the run's span with how the run ended.
#[cfg(feature = "otel")]
fn trace_run_end(cx: &opentelemetry::Context, outcome: &RunOutcome, payloads: bool) {
    use crate::otel::RunEnd;
    let panicked;
    let end = match outcome {
        Outcome::Done(Ok(result)) => RunEnd::Done(result),
        Outcome::Done(Err(e)) | Outcome::Refused(e) => RunEnd::Failed(e),
        Outcome::Panicked(_) => {
            panicked = panicked_error();
            RunEnd::Failed(&panicked)
        }
        Outcome::Suspended { .. } => RunEnd::Suspended,
        Outcome::Detached { .. } => RunEnd::Other,
    };
    crate::otel::task_run_ended(cx, end, payloads);
}

/// What a run of the task in `record` starts from: its call, the answers received, its journal,
/// and `checkpoint`, where each step's journal is sent as it is recorded.
fn run_state(
    env: &RunEnv,
    record: &TaskRecord,
    checkpoint: tokio::sync::mpsc::UnboundedSender<Journal>,
) -> CallState {
    let info = RequestInfo {
        method: methods::TOOLS_CALL.to_string(),
        target: record.tool.clone(),
        principal: record.principal.clone(),
        meta: Box::new(record.meta.clone()),
    };
    CallState {
        responses: record.answers.clone(),
        journal: record.journal.clone(),
        changes: Some(env.changes.clone()),
        answer_limit: env.answer_limit,
        task_gate: TaskGate::InTask,
        checkpoint: Some(checkpoint),
        ..CallState::new(info)
    }
}

/// Record in `r` where a run ended: completed or failed (the task's holds released), waiting
/// for input, or detached to run once more.
fn record_outcome(r: &mut TaskRecord, outcome: &RunOutcome) {
    r.updated_ms = now_ms();
    r.answers.clear();
    r.lease_owner = None;
    match outcome {
        Outcome::Done(Ok(result)) => {
            r.status = TaskStatus::Completed;
            r.result = crate::wire::to_value_text(result).ok();
            release(r);
        }
        Outcome::Done(Err(error)) | Outcome::Refused(error) => {
            r.status = TaskStatus::Failed;
            r.error = crate::wire::to_value_text(error).ok();
            release(r);
        }
        Outcome::Panicked(_) => {
            r.status = TaskStatus::Failed;
            r.error = crate::wire::to_value_text(&panicked_error()).ok();
            release(r);
        }
        Outcome::Suspended {
            requests, journal, ..
        } => {
            r.status = TaskStatus::InputRequired;
            r.pending = requests.clone();
            r.journal = journal.clone();
        }
        Outcome::Detached { journal } => {
            // A task does not detach again: run once more from here.
            r.journal = journal.clone();
        }
    }
}
