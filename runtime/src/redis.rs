//! State that outlives one instance, in Redis: [`RedisTaskStore`] keeps tasks so any instance
//! behind a load balancer answers `tasks/get`, `tasks/update` and `tasks/cancel` and takes over
//! a task whose instance died; [`RedisReplayGuard`] makes a `requestState` open once across all
//! instances. Each task is one key holding its record as JSON, expiring with the task; updates
//! are compare-and-set (a Lua script), retried when another instance wrote first.

use crate::request_state::{GuardFuture, SharedReplayGuard, TokenId};
use crate::tasks::{now_ms, StoreFuture, TaskChange, TaskRecord, TaskStore, TaskStoreError};
use redis::aio::MultiplexedConnection;

/// Writes `ARGV[2]` over `KEYS[1]` (keeping its expiry) if it still holds `ARGV[1]`: 1 done,
/// 0 someone wrote first, -1 the key is gone.
const COMPARE_AND_SET: &str = r"
local current = redis.call('GET', KEYS[1])
if not current then return -1 end
if current ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[2], 'KEEPTTL')
return 1
";

/// Keeps a new task within its owner's share: `KEYS[1]` the task, `KEYS[2]` the owner's sorted
/// set of task ids by expiry; `ARGV` the record, its TTL in ms, now, its expiry, the share, the
/// id. Drops the owner's expired entries, refuses (0) when the share is held, refuses (-1) an id
/// that exists, else stores the task and counts it (1).
const INSERT_WITHIN: &str = r"
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', ARGV[3])
if redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[5]) then return 0 end
if not redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then return -1 end
redis.call('ZADD', KEYS[2], ARGV[4], ARGV[6])
local left = redis.call('PTTL', KEYS[2])
if left < tonumber(ARGV[2]) then redis.call('PEXPIRE', KEYS[2], ARGV[2]) end
return 1
";

/// How often an update is retried when other instances keep writing the same task first.
const MAX_ATTEMPTS: usize = 32;

fn unavailable(e: impl std::fmt::Display) -> TaskStoreError {
    TaskStoreError::Unavailable(crate::wire::Cause::words(e.to_string()))
}

/// Connect to the Redis server at `url` (`redis://host:port/db`).
async fn connect(url: &str) -> Result<MultiplexedConnection, String> {
    let client = redis::Client::open(url).map_err(|e| e.to_string())?;
    client
        .get_multiplexed_async_connection()
        .await
        .map_err(|e| e.to_string())
}

/// Tasks in Redis, shared by every instance that connects to the same server and prefix.
#[derive(Clone)]
pub struct RedisTaskStore {
    connection: MultiplexedConnection,
    prefix: String,
    cas: redis::Script,
    insert_within: redis::Script,
}

impl std::fmt::Debug for RedisTaskStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisTaskStore")
            .field("prefix", &self.prefix)
            .finish()
    }
}

impl RedisTaskStore {
    /// Connect to `url` (`redis://host:port`); keys start with `mcp:task:`.
    pub async fn connect(url: &str) -> Result<Self, TaskStoreError> {
        let connection = connect(url)
            .await
            .map_err(|e| TaskStoreError::Unavailable(crate::wire::Cause::words(e)))?;
        Ok(RedisTaskStore {
            connection,
            prefix: "mcp:task:".into(),
            cas: redis::Script::new(COMPARE_AND_SET),
            insert_within: redis::Script::new(INSERT_WITHIN),
        })
    }

    /// Keys start with `prefix` instead (several deployments on one Redis).
    pub fn with_prefix(mut self, prefix: impl Into<String>) -> Self {
        self.prefix = prefix.into();
        self
    }

    /// The key of task `id`, none for an id with a `:`. The runtime issues none such, and one
    /// could name another of the store's keys (`owner:<principal>`, an owner's index): such an
    /// id is an unknown task, never a lookup.
    fn key(&self, id: &str) -> Option<String> {
        (!id.contains(':')).then(|| format!("{}{id}", self.prefix))
    }

    /// [`Self::key`] of a task being stored, which the runtime named.
    fn new_key(&self, id: &str) -> Result<String, TaskStoreError> {
        self.key(id).ok_or_else(|| {
            TaskStoreError::Unavailable(crate::wire::Cause::words(format!(
                "a task id may not contain ':': {id}"
            )))
        })
    }

    async fn read(&self, key: &str) -> Result<Option<(String, TaskRecord)>, TaskStoreError> {
        let mut con = self.connection.clone();
        let text: Option<String> = redis::cmd("GET")
            .arg(key)
            .query_async(&mut con)
            .await
            .map_err(unavailable)?;
        match text {
            None => Ok(None),
            Some(text) => {
                let record = crate::wire::from_text(&text).map_err(|e| {
                    TaskStoreError::Unavailable(crate::wire::Cause::words(format!(
                        "a stored task does not parse: {e}"
                    )))
                })?;
                Ok(Some((text, record)))
            }
        }
    }
}

impl TaskStore for RedisTaskStore {
    fn insert(&self, record: TaskRecord) -> StoreFuture<'_, ()> {
        Box::pin(async move {
            let text = serde_json::to_string(&record).map_err(unavailable)?;
            let ttl = record
                .created_ms
                .saturating_add(record.ttl_ms)
                .saturating_sub(now_ms())
                .max(1);
            let key = self.new_key(&record.id)?;
            let mut con = self.connection.clone();
            let set: Option<String> = redis::cmd("SET")
                .arg(key)
                .arg(text)
                .arg("NX")
                .arg("PX")
                .arg(ttl)
                .query_async(&mut con)
                .await
                .map_err(unavailable)?;
            match set {
                Some(_) => Ok(()),
                None => Err(TaskStoreError::Unavailable(crate::wire::Cause::words(
                    "a task with this id exists already",
                ))),
            }
        })
    }

    fn ping(&self) -> StoreFuture<'_, ()> {
        Box::pin(async move {
            let mut con = self.connection.clone();
            let pong: String = redis::cmd("PING")
                .query_async(&mut con)
                .await
                .map_err(unavailable)?;
            if pong == "PONG" {
                Ok(())
            } else {
                Err(TaskStoreError::Unavailable(crate::wire::Cause::words(
                    format!("PING answered {pong}"),
                )))
            }
        })
    }

    fn insert_within(&self, record: TaskRecord, per_owner: usize) -> StoreFuture<'_, ()> {
        Box::pin(async move {
            let text = serde_json::to_string(&record).map_err(unavailable)?;
            let now = now_ms();
            let expiry = record.created_ms.saturating_add(record.ttl_ms);
            let ttl = expiry.saturating_sub(now).max(1);
            let owner = format!(
                "{}owner:{}",
                self.prefix,
                record.owner.as_deref().unwrap_or("")
            );
            let mut con = self.connection.clone();
            let outcome: i64 = self
                .insert_within
                .key(self.new_key(&record.id)?)
                .key(owner)
                .arg(text)
                .arg(ttl)
                .arg(now)
                .arg(expiry)
                .arg(per_owner)
                .arg(&record.id)
                .invoke_async(&mut con)
                .await
                .map_err(unavailable)?;
            match outcome {
                1 => Ok(()),
                0 => Err(TaskStoreError::OwnerFull),
                _ => Err(TaskStoreError::Unavailable(crate::wire::Cause::words(
                    "a task with this id exists already",
                ))),
            }
        })
    }

    fn get<'a>(&'a self, id: &'a str) -> StoreFuture<'a, Option<TaskRecord>> {
        Box::pin(async move {
            let Some(key) = self.key(id) else {
                return Ok(None);
            };
            Ok(self.read(&key).await?.map(|(_, r)| r))
        })
    }

    fn update<'a>(
        &'a self,
        id: &'a str,
        change: TaskChange<'a>,
    ) -> StoreFuture<'a, Option<TaskRecord>> {
        Box::pin(async move {
            let Some(key) = self.key(id) else {
                return Ok(None);
            };
            for _ in 0..MAX_ATTEMPTS {
                let Some((text, mut record)) = self.read(&key).await? else {
                    return Ok(None);
                };
                if !change(&mut record) {
                    return Ok(Some(record));
                }
                let next = serde_json::to_string(&record).map_err(unavailable)?;
                let mut con = self.connection.clone();
                let outcome: i64 = self
                    .cas
                    .key(&key)
                    .arg(text)
                    .arg(next)
                    .invoke_async(&mut con)
                    .await
                    .map_err(unavailable)?;
                match outcome {
                    1 => return Ok(Some(record)),
                    -1 => return Ok(None),
                    _ => continue,
                }
            }
            Err(TaskStoreError::Unavailable(crate::wire::Cause::words(
                format!("task {id} kept changing under {MAX_ATTEMPTS} attempts to update it"),
            )))
        })
    }
}

/// Single use of `requestState` across instances: the first instance to open a token records
/// its id in Redis until the token expires (`SET NX`); any later open, anywhere, is refused.
#[derive(Clone)]
pub struct RedisReplayGuard {
    connection: MultiplexedConnection,
    prefix: String,
}

impl std::fmt::Debug for RedisReplayGuard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisReplayGuard")
            .field("prefix", &self.prefix)
            .finish()
    }
}

impl RedisReplayGuard {
    /// Connect to `url`; keys start with `mcp:used:`.
    pub async fn connect(url: &str) -> Result<Self, TaskStoreError> {
        let connection = connect(url)
            .await
            .map_err(|e| TaskStoreError::Unavailable(crate::wire::Cause::words(e)))?;
        Ok(RedisReplayGuard {
            connection,
            prefix: "mcp:used:".into(),
        })
    }

    /// Keys start with `prefix` instead.
    pub fn with_prefix(mut self, prefix: impl Into<String>) -> Self {
        self.prefix = prefix.into();
        self
    }

    fn key(&self, token_id: &TokenId) -> String {
        let mut key = self.prefix.clone();
        crate::wire::push_hex(&mut key, token_id);
        key
    }
}

impl SharedReplayGuard for RedisReplayGuard {
    fn first_use(&self, token_id: TokenId, expires_at: u64) -> GuardFuture<'_> {
        Box::pin(async move {
            let now = now_ms() / 1000;
            // Kept until the token expires (a second past it, for clock skew).
            let ttl = expires_at.saturating_sub(now).saturating_add(1);
            let mut con = self.connection.clone();
            let set: Option<String> = redis::cmd("SET")
                .arg(self.key(&token_id))
                .arg(1)
                .arg("NX")
                .arg("EX")
                .arg(ttl)
                .query_async(&mut con)
                .await
                .map_err(crate::wire::Cause::of)?;
            Ok(set.is_some())
        })
    }

    fn release(&self, token_id: TokenId) {
        let key = self.key(&token_id);
        let mut con = self.connection.clone();
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            runtime.spawn(async move {
                let deleted: Result<i64, _> =
                    redis::cmd("DEL").arg(key).query_async(&mut con).await;
                if let Err(e) = deleted {
                    tracing::debug!(error = %e, "a requestState claim could not be given back");
                }
            });
        }
    }
}
