//! Tasks (the `io.modelcontextprotocol/tasks` extension) and where they live between requests:
//! the [`TaskStore`] trait, which any instance of a deployment reads and updates, and
//! [`InMemoryTaskStore`], the bounded default for one process (`crate::redis` has one that
//! instances share). A task is a [`TaskRecord`]: who created it, what it calls, its status, and
//! the journal its handler replays from, so any instance holding the store can resume it. A
//! tool runs as a task when it is marked `#[mcp_tool(task = "optional")]` (or `"required"`) and
//! the client declares the extension.

use crate::handler::Principal;
use crate::request_state::Journal;
use indexmap::IndexMap;
use oxmcp_schema::{InputRequest, InputResponses, RequestMetaObject};
#[cfg(feature = "derive")]
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::collections::{HashMap, VecDeque};
use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::Mutex;

/// The extension's identifier, in client and server capabilities.
pub const TASKS_EXTENSION: &str = "io.modelcontextprotocol/tasks";

/// A task's status, as the extension names it on the wire.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum TaskStatus {
    /// The handler is running (or about to).
    Working,
    /// The handler waits for answers to `pending`.
    InputRequired,
    /// The handler returned a result (which may be a tool error).
    Completed,
    /// The client cancelled it.
    Cancelled,
    /// The call ended with a JSON-RPC error.
    Failed,
}

impl TaskStatus {
    const ALL: [TaskStatus; 5] = [
        TaskStatus::Working,
        TaskStatus::InputRequired,
        TaskStatus::Completed,
        TaskStatus::Cancelled,
        TaskStatus::Failed,
    ];
    const NAMES: &'static [&'static str] = &[
        "working",
        "input_required",
        "completed",
        "cancelled",
        "failed",
    ];

    /// The status as the wire writes it (`"working"`, `"input_required"`, ...).
    pub fn as_str(self) -> &'static str {
        Self::NAMES[self as usize]
    }

    /// Whether nothing more will happen to the task.
    pub fn is_terminal(self) -> bool {
        matches!(
            self,
            TaskStatus::Completed | TaskStatus::Cancelled | TaskStatus::Failed
        )
    }
}

impl serde_core::Serialize for TaskStatus {
    fn serialize<S: serde_core::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl<'de> serde_core::Deserialize<'de> for TaskStatus {
    fn deserialize<D: serde_core::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = std::borrow::Cow::<'de, str>::deserialize(deserializer)?;
        TaskStatus::ALL
            .into_iter()
            .find(|s| s.as_str() == text)
            .ok_or_else(|| serde_core::de::Error::unknown_variant(&text, Self::NAMES))
    }
}

/// One task, as stored. With the `derive` feature it is `Serialize` and `Deserialize`, for stores
/// that keep it outside the process (as `RedisTaskStore` does).
#[derive(Debug, Clone)]
#[cfg_attr(feature = "derive", derive(Serialize, Deserialize))]
#[non_exhaustive]
pub struct TaskRecord {
    /// The unguessable id the client names it by.
    pub id: String,
    /// Who created it (issuer and subject); only they can see it. `None` without
    /// authentication.
    pub owner: Option<String>,
    /// The creating caller, as the handler sees it on every run.
    pub principal: Option<Principal>,
    /// The tool it calls, and the arguments.
    pub tool: String,
    /// The call's arguments.
    pub arguments: Map<String, Value>,
    /// The creating request's `_meta` (capabilities, client info), given to every run.
    pub meta: RequestMetaObject,
    /// Where it stands.
    pub status: TaskStatus,
    /// A human-readable word on the status, if any.
    pub status_message: Option<String>,
    /// When it was created, in milliseconds since the Unix epoch.
    pub created_ms: u64,
    /// When its status last changed, in milliseconds since the Unix epoch.
    pub updated_ms: u64,
    /// How long after creation it may be dropped, in milliseconds.
    pub ttl_ms: u64,
    /// Answers and step results recorded so far: what a run replays from.
    pub journal: Journal,
    /// The input requests the handler waits for, by key.
    pub pending: IndexMap<String, InputRequest>,
    /// Answers received for pending requests, not yet given to a run.
    pub answers: InputResponses,
    /// The tool's result, once completed.
    pub result: Option<Value>,
    /// The JSON-RPC error, once failed.
    pub error: Option<Value>,
    /// Bumped on every run started, so a run that finds the record moved on knows to stop.
    pub run: u64,
    /// The instance running the task, while it is `working`.
    #[cfg_attr(feature = "derive", serde(default))]
    pub lease_owner: Option<String>,
    /// Until when (milliseconds since the epoch) that instance holds it: past this, another
    /// instance may take the task over and run it again from its journal.
    #[cfg_attr(feature = "derive", serde(default))]
    pub lease_until_ms: u64,
    /// The `traceparent` of the request that created it (with the `otel` feature): its runs and
    /// the requests about it link to that span, on whichever instance they happen.
    #[cfg_attr(feature = "derive", serde(default))]
    pub trace: Option<String>,
}

impl TaskRecord {
    /// Whether the task may be dropped at `now_ms`.
    pub fn expired(&self, now_ms: u64) -> bool {
        now_ms >= self.created_ms.saturating_add(self.ttl_ms)
    }
}

/// Why the store could not do what was asked.
#[derive(Debug)]
#[non_exhaustive]
pub enum TaskStoreError {
    /// The store holds as many tasks as it may.
    Full,
    /// The task's owner keeps as many live tasks as it may ([`TaskStore::insert_within`]).
    OwnerFull,
    /// The store could not be reached or answered nonsense: why (kept for `source()`).
    Unavailable(crate::wire::Cause),
}

impl fmt::Display for TaskStoreError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TaskStoreError::Full => write!(f, "too many tasks are kept; try again later"),
            TaskStoreError::OwnerFull => write!(f, "this caller keeps too many tasks"),
            TaskStoreError::Unavailable(why) => write!(f, "the task store is unavailable: {why}"),
        }
    }
}

impl std::error::Error for TaskStoreError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            TaskStoreError::Unavailable(cause) => Some(cause.get()),
            _ => None,
        }
    }
}

/// The future a store method returns.
pub type StoreFuture<'a, T> = Pin<Box<dyn Future<Output = Result<T, TaskStoreError>> + Send + 'a>>;

/// A change to one task, applied atomically by [`TaskStore::update`]: it edits the record and
/// says whether to write it back (false leaves it as it was). It may be called more than once
/// (a store that retries on a concurrent write), so it must not have effects of its own.
pub type TaskChange<'a> = &'a (dyn Fn(&mut TaskRecord) -> bool + Send + Sync);

/// Where tasks are kept. Implement it to share tasks between instances; every method must be
/// atomic with respect to the others for one task.
pub trait TaskStore: Send + Sync + 'static {
    /// Keep a new task.
    fn insert(&self, record: TaskRecord) -> StoreFuture<'_, ()>;
    /// The task `id`, if kept and not expired.
    fn get<'a>(&'a self, id: &'a str) -> StoreFuture<'a, Option<TaskRecord>>;
    /// Apply `change` to the task `id` atomically; the record as it is afterwards, or none if
    /// the task is not kept.
    fn update<'a>(
        &'a self,
        id: &'a str,
        change: TaskChange<'a>,
    ) -> StoreFuture<'a, Option<TaskRecord>>;
    /// Keep a new task unless its owner (`record.owner`; anonymous callers are one owner)
    /// already keeps `per_owner` live tasks, then [`TaskStoreError::OwnerFull`], checked and
    /// inserted atomically. The default has no per-owner count and inserts: a store that
    /// implements it makes one caller's tasks leave room for the others'.
    fn insert_within(&self, record: TaskRecord, per_owner: usize) -> StoreFuture<'_, ()> {
        let _ = per_owner;
        self.insert(record)
    }
    /// Whether the store can be reached now (readiness checks call it). The default, for a
    /// store in this process, always can.
    fn ping(&self) -> StoreFuture<'_, ()> {
        Box::pin(std::future::ready(Ok(())))
    }
    /// Drop the tasks that have expired now, rather than when they are next touched (the
    /// server calls it every so often). The default does nothing: a store whose entries expire
    /// by themselves (as Redis keys do) needs no sweep.
    fn sweep(&self) -> StoreFuture<'_, ()> {
        Box::pin(std::future::ready(Ok(())))
    }
}

/// Milliseconds since the Unix epoch, now.
pub(crate) use crate::wire::unix_millis as now_ms;

/// The tasks of one process, at most `capacity` of them; expired ones are dropped as new ones
/// come. The default store: tasks do not outlive the process or reach other instances.
pub struct InMemoryTaskStore {
    capacity: usize,
    inner: Mutex<Tasks>,
}

#[derive(Default)]
struct Tasks {
    map: HashMap<String, TaskRecord>,
    /// Ids in creation order, with their expiry, to drop expired tasks cheaply.
    order: VecDeque<(u64, String)>,
    /// Live tasks per owner (`None`: anonymous).
    owned: HashMap<Option<String>, usize>,
}

impl InMemoryTaskStore {
    /// A store for at most `capacity` live tasks.
    pub fn new(capacity: usize) -> Self {
        InMemoryTaskStore {
            capacity: capacity.max(1),
            inner: Mutex::default(),
        }
    }
}

impl Default for InMemoryTaskStore {
    /// At most 10,000 live tasks.
    fn default() -> Self {
        InMemoryTaskStore::new(10_000)
    }
}

impl Tasks {
    fn expire(&mut self, now: u64) {
        while let Some((expiry, _)) = self.order.front() {
            if *expiry > now {
                break;
            }
            if let Some((_, id)) = self.order.pop_front() {
                // A record whose TTL was changed since is checked against its own expiry.
                if self.map.get(&id).is_some_and(|r| r.expired(now)) {
                    if let Some(record) = self.map.remove(&id) {
                        if let Some(n) = self.owned.get_mut(&record.owner) {
                            *n -= 1;
                            if *n == 0 {
                                self.owned.remove(&record.owner);
                            }
                        }
                    }
                }
            }
        }
    }
}

impl InMemoryTaskStore {
    /// Keep `record` unless the store, or its owner's share when `per_owner` is given, is full.
    fn keep(&self, record: TaskRecord, per_owner: Option<usize>) -> Result<(), TaskStoreError> {
        let mut tasks = crate::wire::lock(&self.inner);
        let now = now_ms();
        tasks.expire(now);
        if tasks.map.len() >= self.capacity {
            return Err(TaskStoreError::Full);
        }
        let held = tasks.owned.get(&record.owner).copied().unwrap_or(0);
        if per_owner.is_some_and(|max| held >= max) {
            return Err(TaskStoreError::OwnerFull);
        }
        *tasks.owned.entry(record.owner.clone()).or_insert(0) += 1;
        let expiry = record.created_ms.saturating_add(record.ttl_ms);
        tasks.order.push_back((expiry, record.id.clone()));
        tasks.map.insert(record.id.clone(), record);
        Ok(())
    }
}

impl TaskStore for InMemoryTaskStore {
    fn insert(&self, record: TaskRecord) -> StoreFuture<'_, ()> {
        Box::pin(std::future::ready(self.keep(record, None)))
    }

    fn insert_within(&self, record: TaskRecord, per_owner: usize) -> StoreFuture<'_, ()> {
        Box::pin(std::future::ready(self.keep(record, Some(per_owner))))
    }

    fn sweep(&self) -> StoreFuture<'_, ()> {
        crate::wire::lock(&self.inner).expire(now_ms());
        Box::pin(std::future::ready(Ok(())))
    }

    fn get<'a>(&'a self, id: &'a str) -> StoreFuture<'a, Option<TaskRecord>> {
        let tasks = crate::wire::lock(&self.inner);
        let now = now_ms();
        let found = tasks.map.get(id).filter(|r| !r.expired(now)).cloned();
        Box::pin(std::future::ready(Ok(found)))
    }

    fn update<'a>(
        &'a self,
        id: &'a str,
        change: TaskChange<'a>,
    ) -> StoreFuture<'a, Option<TaskRecord>> {
        let mut tasks = crate::wire::lock(&self.inner);
        let now = now_ms();
        let found = match tasks.map.get_mut(id).filter(|r| !r.expired(now)) {
            None => None,
            Some(record) => {
                let mut edited = record.clone();
                if change(&mut edited) {
                    *record = edited.clone();
                    Some(edited)
                } else {
                    Some(record.clone())
                }
            }
        };
        Box::pin(std::future::ready(Ok(found)))
    }
}

#[cfg(test)]
mod tests {
    use super::TaskStatus;

    #[test]
    fn statuses_are_written_and_read_by_their_wire_names() {
        let wire = [
            (TaskStatus::Working, "working"),
            (TaskStatus::InputRequired, "input_required"),
            (TaskStatus::Completed, "completed"),
            (TaskStatus::Cancelled, "cancelled"),
            (TaskStatus::Failed, "failed"),
        ];
        for (status, name) in wire {
            assert_eq!(serde_json::to_value(status).unwrap(), name);
            assert_eq!(
                serde_json::from_value::<TaskStatus>(name.into()).unwrap(),
                status
            );
        }
        let e = serde_json::from_value::<TaskStatus>("done".into()).unwrap_err();
        assert!(e.to_string().contains("unknown variant `done`"), "{e}");
    }
}
