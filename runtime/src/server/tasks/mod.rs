//! The tasks extension (`io.modelcontextprotocol/tasks`, SEP-2663): a `tools/call` of a tool
//! that supports tasks, from a client that declared the extension, is answered with a created
//! task; the handler then runs in the background under the same engine as an MRTR call, its
//! journal kept in the [`TaskStore`] instead of a `requestState`. An ask inside a task parks it
//! in `input_required` with every outstanding request; `tasks/update` delivers answers and,
//! once none is outstanding, the handler runs again from its journal (replay: `step` results
//! are kept, code before the last ask may run again). `tasks/get` shows the task with its
//! requests, result or error; `tasks/cancel` stops it. A task is visible to the principal that
//! created it only: anyone else is told it does not exist.

mod run;

use super::dispatch::raw_result;
use super::mrtr::TaskDecision;
use super::Server;
use crate::handler::{Principal, TaskMode, ToolHandler};
use crate::request_state::Journal;
use crate::tasks::{now_ms, TaskRecord, TaskStatus, TaskStore};
use crate::wire::{ExtensionRequest, Reply};
use indexmap::IndexMap;
use oxmcp_schema::{
    ClientCapabilities, Error, InputResponse, InputResponses, RequestId, RequestMetaObject,
};
use run::{release, spawn_run, RunEnv};
use serde_json::{json, Map, Value};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

pub(crate) use crate::tasks::TASKS_EXTENSION;

/// How long a task is kept after it is created, by default.
pub(crate) const DEFAULT_TASK_TTL: Duration = Duration::from_secs(60 * 60);

/// How often clients are told to poll, in milliseconds.
const POLL_INTERVAL_MS: u64 = 500;

/// How long an instance holds a running task without renewing, by default.
pub(crate) const DEFAULT_TASK_LEASE: Duration = Duration::from_secs(30);

/// The most JSON a task keeps of its arguments, by default.
pub(crate) const DEFAULT_TASK_BUDGET: usize = 256 * 1024;

/// How many live tasks one principal may keep, by default.
pub(crate) const DEFAULT_TASKS_PER_PRINCIPAL: usize = 256;

/// How long a caller over its task quota is told to wait.
const QUOTA_RETRY_MS: u64 = 60_000;

/// The tasks of one server: the store, and the runs this process is driving.
pub(crate) struct TaskEngine {
    pub(crate) store: Arc<dyn TaskStore>,
    pub(crate) ttl: Duration,
    /// How long this instance holds a task it runs before it must renew the lease.
    pub(crate) lease: Duration,
    /// This instance's name in leases (random).
    instance: String,
    running: Mutex<HashMap<String, tokio::task::AbortHandle>>,
    /// The most JSON a task keeps of its arguments.
    budget: usize,
    /// How many live tasks one principal may keep.
    per_owner: usize,
    /// Set once the background sweep of expired tasks runs.
    sweeping: std::sync::OnceLock<()>,
    /// Whether the tasks extension is offered: off, tools that may run as tasks answer at once.
    pub(crate) offered: bool,
    /// Where task outcomes and store errors are counted, when metrics are on.
    #[cfg(feature = "metrics")]
    metrics: Option<Arc<crate::metrics::Metrics>>,
}

impl TaskEngine {
    pub(crate) fn new(store: Arc<dyn TaskStore>, ttl: Duration, lease: Duration) -> Self {
        TaskEngine {
            store,
            ttl,
            lease: lease.max(Duration::from_millis(100)),
            instance: crate::wire::random_id()
                .unwrap_or_else(|| format!("pid-{}", std::process::id())),
            running: Mutex::default(),
            budget: DEFAULT_TASK_BUDGET,
            per_owner: DEFAULT_TASKS_PER_PRINCIPAL,
            sweeping: std::sync::OnceLock::new(),
            offered: true,
            #[cfg(feature = "metrics")]
            metrics: None,
        }
    }

    /// Offering the tasks extension, or not.
    pub(crate) fn offered(mut self, offered: bool) -> Self {
        self.offered = offered;
        self
    }

    /// With these metrics.
    #[cfg(feature = "metrics")]
    pub(crate) fn with_metrics(mut self, metrics: Option<Arc<crate::metrics::Metrics>>) -> Self {
        self.metrics = metrics;
        self
    }

    /// Count a task created or ended (`status`).
    fn count(&self, status: &'static str) {
        #[cfg(feature = "metrics")]
        if let Some(m) = &self.metrics {
            m.task(status);
        }
        #[cfg(not(feature = "metrics"))]
        let _ = status;
    }

    /// Count an error of the task store.
    fn store_error(&self) {
        #[cfg(feature = "metrics")]
        if let Some(m) = &self.metrics {
            m.store_error();
        }
    }

    /// The reply to request `id` when the store failed it: counted and logged with the store's
    /// own error; the client learns only that the store is unavailable (the error may name the
    /// deployment's hosts, or keys).
    fn store_failed(
        &self,
        id: RequestId,
        method: &str,
        error: &crate::tasks::TaskStoreError,
    ) -> Reply {
        self.store_error();
        tracing::warn!(method, error = %error, "the task store failed a request");
        Reply::error(
            Some(id),
            Error::internal("the task store is unavailable; try again later"),
        )
    }

    /// With this argument budget and per-principal quota.
    pub(crate) fn with_budget(mut self, budget: usize, per_owner: usize) -> Self {
        self.budget = budget;
        self.per_owner = per_owner.max(1);
        self
    }

    /// Sweep expired tasks out of the store every so often in the background (once a task
    /// exists), for as long as this engine exists.
    fn start_sweeping(self: &Arc<Self>) {
        let every = crate::wire::sweep_period(self.ttl);
        crate::wire::every_while_alive(self, &self.sweeping, every, |engine| async move {
            if let Err(e) = engine.store.sweep().await {
                tracing::warn!(error = %e, "expired tasks could not be swept");
            }
        });
    }

    fn lease_ms(&self) -> u64 {
        self.lease.as_millis() as u64
    }
}

/// Whether the request's client capabilities declare the tasks extension.
pub(crate) fn declares_tasks(meta: &RequestMetaObject) -> bool {
    meta.client_capabilities
        .extensions
        .as_ref()
        .is_some_and(|e| e.contains_key(TASKS_EXTENSION))
}

/// The -32021 error naming the tasks extension.
pub(crate) fn tasks_required() -> Error {
    let caps = ClientCapabilities {
        extensions: Some(
            [(TASKS_EXTENSION.to_string(), Map::new())]
                .into_iter()
                .collect(),
        ),
        ..Default::default()
    };
    Error::missing_required_client_capability(&caps)
}

/// An RFC 3339 timestamp for milliseconds since the epoch.
fn timestamp(ms: u64) -> String {
    let at = UNIX_EPOCH + Duration::from_millis(ms);
    humantime::format_rfc3339_millis(at.max(SystemTime::UNIX_EPOCH)).to_string()
}

/// The task as the wire shows it (`Task`): id, status, times, TTL, poll interval.
fn task_fields(record: &TaskRecord) -> Map<String, Value> {
    let mut task = Map::new();
    task.insert("taskId".into(), json!(record.id));
    task.insert("status".into(), json!(record.status));
    if let Some(message) = &record.status_message {
        task.insert("statusMessage".into(), json!(message));
    }
    task.insert("createdAt".into(), json!(timestamp(record.created_ms)));
    task.insert("lastUpdatedAt".into(), json!(timestamp(record.updated_ms)));
    task.insert("ttlMs".into(), json!(record.ttl_ms));
    task.insert("pollIntervalMs".into(), json!(POLL_INTERVAL_MS));
    task
}

/// The empty acknowledgement of `tasks/update` and `tasks/cancel`.
fn ack(id: RequestId) -> Reply {
    let mut fields = Map::new();
    fields.insert("resultType".into(), json!("complete"));
    raw_result(id, fields)
}

/// The error for a task that does not exist (or is not the caller's).
fn unknown_task(task_id: &str) -> Error {
    Error::invalid_params(format!("unknown task: {task_id}"))
}

impl Server {
    /// Create a task for a `tools/call` of `tool` and start it; the `CreateTaskResult` reply.
    /// `journal` is what the request's rounds recorded before the task began.
    pub(crate) async fn create_task(
        &self,
        id: RequestId,
        tool: &str,
        arguments: Map<String, Value>,
        meta: RequestMetaObject,
        principal: Option<&Principal>,
        journal: Journal,
    ) -> Reply {
        let Some(env) = self.run_env(tool) else {
            return Reply::error(
                Some(id),
                Error::invalid_params(format!("unknown tool: {tool}")),
            );
        };
        // Everything the task keeps counts: its arguments, the request's `_meta` and the journal
        // of the rounds before it.
        let kept = crate::wire::json_len(&arguments)
            + crate::wire::json_len(&meta)
            + crate::wire::json_len(&journal);
        if kept > self.tasks.budget {
            return Reply::error(Some(id), over_budget("the call", kept, self.tasks.budget));
        }
        let Some(task_id) = crate::wire::random_id() else {
            return Reply::error(Some(id), Error::internal("no random task id could be made"));
        };
        let now = now_ms();
        let record = TaskRecord {
            id: task_id,
            owner: principal.map(Principal::binding_key),
            principal: principal.cloned(),
            tool: tool.to_string(),
            arguments,
            meta,
            status: TaskStatus::Working,
            status_message: None,
            created_ms: now,
            updated_ms: now,
            ttl_ms: self.tasks.ttl.as_millis() as u64,
            journal,
            pending: IndexMap::new(),
            answers: InputResponses::default(),
            result: None,
            error: None,
            run: 1,
            lease_owner: Some(self.tasks.instance.clone()),
            lease_until_ms: now + self.tasks.lease_ms(),
            #[cfg(feature = "otel")]
            trace: crate::otel::task_context(),
            #[cfg(not(feature = "otel"))]
            trace: None,
        };
        // Durable before the client hears of it: an immediate tasks/get must find it.
        self.tasks.start_sweeping();
        match self
            .tasks
            .store
            .insert_within(record.clone(), self.tasks.per_owner)
            .await
        {
            Ok(()) => self.tasks.count("created"),
            Err(crate::tasks::TaskStoreError::OwnerFull) => {
                let error = Error::new(
                    super::QUOTA_EXCEEDED,
                    format!(
                        "this caller keeps {} tasks already; try again when one expires",
                        self.tasks.per_owner
                    ),
                )
                .with_data(json!({"retryAfterMs": QUOTA_RETRY_MS}));
                return Reply::error(Some(id), error);
            }
            Err(e) => return self.tasks.store_failed(id, "tools/call", &e),
        }
        let mut fields = task_fields(&record);
        fields.insert("resultType".into(), json!("task"));
        spawn_run(env, record.id.clone(), record.run);
        raw_result(id, fields)
    }

    /// What a run of `tool` needs, if this server has the tool.
    fn run_env(&self, tool: &str) -> Option<RunEnv> {
        let registry = self.registry();
        let registered = registry.tools.get(tool)?;
        Some(RunEnv {
            engine: self.tasks.clone(),
            handler: registered.handler.clone(),
            app_state: self.app_state.clone(),
            changes: self.changes.clone(),
            answer_limit: self.codec.answer_limit(),
        })
    }

    /// `tasks/get`, `tasks/update` and `tasks/cancel`.
    pub(crate) async fn task_request(
        &self,
        request: ExtensionRequest,
        principal: Option<&Principal>,
    ) -> Reply {
        let ExtensionRequest {
            id,
            method,
            params,
            meta,
        } = request;
        if !declares_tasks(&meta) {
            return Reply::error(Some(id), tasks_required());
        }
        let Some(task_id) = params.get("taskId").and_then(Value::as_str) else {
            return Reply::error(Some(id), Error::invalid_params("missing taskId"));
        };
        let owner = principal.map(Principal::binding_key);
        let store = &self.tasks.store;
        let found = match store.get(task_id).await {
            Ok(found) => found.filter(|r| r.owner == owner),
            Err(e) => return self.tasks.store_failed(id, &method, &e),
        };
        let Some(mut record) = found else {
            return Reply::error(Some(id), unknown_task(task_id));
        };
        // The request's span links to the call that created the task.
        #[cfg(feature = "otel")]
        crate::otel::link_task(record.trace.as_deref());
        // A working task whose instance stopped renewing its lease (it died) is taken over
        // here and run again from its journal.
        if record.status == TaskStatus::Working && record.lease_until_ms < now_ms() {
            record = self.take_over(record).await;
        }
        match method.as_str() {
            "tasks/get" => raw_result(id, detailed(&record)),
            "tasks/cancel" => self.cancel_task(id, &method, record).await,
            "tasks/update" => self.update_task(id, &method, &params, record).await,
            other => Reply::error(Some(id), Error::method_not_found(other)),
        }
    }

    /// Claim `record`, a working task whose lease expired, for this instance and run it again
    /// from its journal; the record as it now stands (another instance may have claimed it
    /// first).
    async fn take_over(&self, record: TaskRecord) -> TaskRecord {
        let instance = self.tasks.instance.clone();
        let lease = self.tasks.lease_ms();
        let seen = record.run;
        let claim = |r: &mut TaskRecord| {
            if r.status != TaskStatus::Working || r.run != seen {
                return false;
            }
            let now = now_ms();
            if r.lease_until_ms >= now {
                return false;
            }
            r.run += 1;
            r.lease_owner = Some(instance.clone());
            r.lease_until_ms = now + lease;
            true
        };
        match self.tasks.store.update(&record.id, &claim).await {
            Ok(Some(claimed)) => {
                if claimed.run > seen && claimed.lease_owner.as_deref() == Some(&instance) {
                    tracing::info!(task = %claimed.id, "taking over a task whose lease expired");
                    if let Some(env) = self.run_env(&claimed.tool) {
                        spawn_run(env, claimed.id.clone(), claimed.run);
                    }
                }
                claimed
            }
            _ => record,
        }
    }

    /// `tasks/cancel` of `record`: a task not yet ended is cancelled, and its run here stopped.
    async fn cancel_task(&self, id: RequestId, method: &str, record: TaskRecord) -> Reply {
        if record.status.is_terminal() {
            return ack(id);
        }
        let cancel = |r: &mut TaskRecord| {
            if r.status.is_terminal() {
                return false;
            }
            r.status = TaskStatus::Cancelled;
            release(r);
            r.updated_ms = now_ms();
            r.run += 1;
            true
        };
        match self.tasks.store.update(&record.id, &cancel).await {
            Ok(Some(r)) if r.status == TaskStatus::Cancelled => self.tasks.count("cancelled"),
            Ok(_) => {}
            Err(e) => return self.tasks.store_failed(id, method, &e),
        }
        if let Some(run) = crate::wire::lock(&self.tasks.running).remove(&record.id) {
            run.abort();
        }
        ack(id)
    }

    /// `tasks/update` of `record` with the request's `params`: answers to pending requests are
    /// taken (others are ignored), and once nothing is pending the task runs again.
    async fn update_task(
        &self,
        id: RequestId,
        method: &str,
        params: &Map<String, Value>,
        record: TaskRecord,
    ) -> Reply {
        let answers: IndexMap<String, InputResponse> = match params.get("inputResponses") {
            None | Some(Value::Null) => IndexMap::new(),
            Some(Value::Object(given)) => given
                .iter()
                .filter_map(|(k, v)| {
                    crate::wire::from_value_text::<InputResponse>(v)
                        .ok()
                        .map(|r| (k.clone(), r))
                })
                .collect(),
            Some(_) => {
                return Reply::error(
                    Some(id),
                    Error::invalid_params("inputResponses must be an object"),
                )
            }
        };
        // What the task would keep with the answers must fit its budget: they are kept until
        // the task ends.
        let budget = self.tasks.budget;
        let over = Mutex::new(None);
        let take = |r: &mut TaskRecord| {
            // A store may call this again on a newer record: only its last say counts.
            *crate::wire::lock(&over) = None;
            if r.status != TaskStatus::InputRequired {
                return false;
            }
            let taken: Vec<_> = answers
                .iter()
                .filter(|(key, _)| r.pending.contains_key(*key))
                .collect();
            let kept = kept_bytes(r)
                + taken
                    .iter()
                    .map(|(k, a)| k.len() + crate::wire::json_len(*a))
                    .sum::<usize>();
            if !taken.is_empty() && kept > budget {
                *crate::wire::lock(&over) = Some(kept);
                return false;
            }
            let mut changed = false;
            for (key, answer) in taken {
                if r.pending.shift_remove(key).is_some() {
                    r.answers.insert(key.clone(), answer.clone());
                    changed = true;
                }
            }
            if changed && r.pending.is_empty() {
                r.status = TaskStatus::Working;
                r.run += 1;
                r.lease_owner = Some(self.tasks.instance.clone());
                r.lease_until_ms = now_ms() + self.tasks.lease_ms();
            }
            if changed {
                r.updated_ms = now_ms();
            }
            changed
        };
        let updated = match self.tasks.store.update(&record.id, &take).await {
            Ok(updated) => updated,
            Err(e) => return self.tasks.store_failed(id, method, &e),
        };
        if let Some(kept) = crate::wire::lock(&over).take() {
            return Reply::error(Some(id), over_budget("the answers", kept, budget));
        }
        if let Some(r) = updated {
            let resumed = r.status == TaskStatus::Working && r.run > record.run;
            if resumed {
                if let Some(env) = self.run_env(&r.tool) {
                    spawn_run(env, r.id.clone(), r.run);
                }
            }
        }
        ack(id)
    }

    /// Whether `tools/call` of this tool answers with a task for this request, or refuses.
    pub(crate) fn task_decision(
        &self,
        handler: &dyn ToolHandler,
        meta: &RequestMetaObject,
    ) -> Result<TaskDecision, Error> {
        let support = handler.task_support();
        match (support.mode, self.tasks.offered && declares_tasks(meta)) {
            (TaskMode::Never, _) | (TaskMode::Optional, false) => Ok(TaskDecision::Answer),
            (TaskMode::Required, false) => Err(tasks_required()),
            (_, true) if support.explicit_start => Ok(TaskDecision::WhenStarted),
            (_, true) => Ok(TaskDecision::Task),
        }
    }
}

/// What a task keeps of its call while it runs, in bytes of JSON: its arguments, the request's
/// `_meta`, its journal, and the requests and answers it holds.
fn kept_bytes(r: &TaskRecord) -> usize {
    crate::wire::json_len(&r.arguments)
        + crate::wire::json_len(&r.meta)
        + crate::wire::json_len(&r.journal)
        + crate::wire::json_len(&r.pending)
        + crate::wire::json_len(&r.answers)
}

/// The -32602 error for `what` that would make a task keep `kept` bytes, over its `budget`.
fn over_budget(what: &str, kept: usize, budget: usize) -> Error {
    Error::invalid_params(format!(
        "{what} would make the task keep {kept} bytes (its arguments, _meta, journal, input \
         requests and answers); a task keeps at most {budget} (ServerBuilder::task_budget)"
    ))
    .with_data(json!({"limit": "task_budget", "max": budget}))
}

/// The `tasks/get` result: the task, and by status its requests, result or error.
fn detailed(record: &TaskRecord) -> Map<String, Value> {
    let mut fields = task_fields(record);
    fields.insert("resultType".into(), json!("complete"));
    match record.status {
        TaskStatus::InputRequired => {
            let pending = crate::wire::to_value_text(&record.pending).unwrap_or_default();
            fields.insert("inputRequests".into(), pending);
        }
        TaskStatus::Completed => {
            if let Some(result) = &record.result {
                fields.insert("result".into(), result.clone());
            }
        }
        TaskStatus::Failed => {
            if let Some(error) = &record.error {
                fields.insert("error".into(), error.clone());
            }
        }
        TaskStatus::Working | TaskStatus::Cancelled => {}
    }
    fields
}
