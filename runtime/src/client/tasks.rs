//! Tasks (the `io.modelcontextprotocol/tasks` extension) from the client's side. A client that
//! declares the extension ([`Capabilities::tasks`]) may be answered a task where it called a
//! tool: [`Client::call_tool`] then follows it to its end (polling `tasks/get` at the server's
//! interval, answering its input requests with `tasks/update`, cancelling it with `tasks/cancel`
//! when the caller stops waiting), and [`Client::start_tool`] hands the caller a [`ToolRun`] to
//! follow it itself. [`Client::get_task`], [`Client::update_task`] and [`Client::cancel_task`]
//! are the raw methods.

use super::*;

/// The extension's key in the client's capabilities and the server's.
pub(super) const TASKS_EXTENSION: &str = "io.modelcontextprotocol/tasks";

/// The shortest and the longest pause between two polls of a task, whatever the server asks.
const POLL_BOUNDS: (Duration, Duration) = (Duration::from_millis(10), Duration::from_secs(10));

/// The pause between polls when the server names none.
const DEFAULT_POLL: Duration = Duration::from_millis(500);

/// Where a task stands, as `tasks/get` reports it.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum TaskStatus {
    /// Running.
    Working,
    /// Waiting for the answers to its input requests.
    InputRequired,
    /// Finished with the tool's result (which may be a tool error, `isError`).
    Completed,
    /// Cancelled before it finished.
    Cancelled,
    /// Failed with a JSON-RPC error.
    Failed,
    /// A status this client does not know, as the server wrote it.
    Other(String),
}

impl TaskStatus {
    fn of(text: &str) -> TaskStatus {
        match text {
            "working" => TaskStatus::Working,
            "input_required" => TaskStatus::InputRequired,
            "completed" => TaskStatus::Completed,
            "cancelled" => TaskStatus::Cancelled,
            "failed" => TaskStatus::Failed,
            other => TaskStatus::Other(other.to_string()),
        }
    }

    /// Whether the task has ended (completed, cancelled or failed).
    pub fn is_final(&self) -> bool {
        matches!(
            self,
            TaskStatus::Completed | TaskStatus::Cancelled | TaskStatus::Failed
        )
    }
}

/// A tool call the caller follows itself ([`Client::start_tool`]): a task the server created
/// for it, or the result the server gave at once. Its methods take `&self`, so one part of a
/// host can wait for the result while another cancels.
pub struct ToolRun<'c> {
    client: &'c Client,
    run: Run,
}

enum Run {
    /// The server answered the call itself.
    Answered(Box<CallToolResult>),
    /// The server runs the call as this task, to be polled at this interval.
    Task { id: String, poll: Duration },
}

impl std::fmt::Debug for ToolRun<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ToolRun")
            .field("task_id", &self.task_id())
            .finish_non_exhaustive()
    }
}

impl ToolRun<'_> {
    /// The task's id, when the server runs the call as a task (`None` when it answered at once).
    pub fn task_id(&self) -> Option<&str> {
        match &self.run {
            Run::Task { id, .. } => Some(id),
            Run::Answered(_) => None,
        }
    }

    /// Where the call stands now: one `tasks/get` (a call answered at once is `Completed`).
    pub async fn status(&self) -> Result<TaskStatus, ClientError> {
        match &self.run {
            Run::Answered(_) => Ok(TaskStatus::Completed),
            Run::Task { id, .. } => {
                let got = self.client.get_task(id).await?;
                Ok(TaskStatus::of(got["status"].as_str().unwrap_or("")))
            }
        }
    }

    /// Wait for the tool's result, answering the task's input requests through the client's
    /// input handler. A tool error (`isError`) is a result; a task that failed is
    /// [`ClientError::Rpc`] with its error, one that was cancelled
    /// [`ClientError::TaskCancelled`].
    pub async fn result(&self) -> Result<CallToolResult, ClientError> {
        match &self.run {
            Run::Answered(result) => Ok((**result).clone()),
            Run::Task { id, poll } => self.client.follow_task(id, *poll).await,
        }
    }

    /// Ask the server to cancel the task (nothing to do for a call answered at once). The task
    /// shows `cancelled` once the server has stopped it.
    pub async fn cancel(&self) -> Result<(), ClientError> {
        match &self.run {
            Run::Answered(_) => Ok(()),
            Run::Task { id, .. } => self.client.cancel_task(id).await,
        }
    }
}

/// Sends `tasks/cancel` for a task whose follower is dropped before the task ended (the caller
/// stopped waiting, or its time limit passed): from a task of its own, as nothing can be awaited
/// in a drop.
struct CancelUnlessDone {
    send: Option<BoxFuture<()>>,
}

impl CancelUnlessDone {
    fn done(mut self) {
        self.send = None;
    }
}

impl Drop for CancelUnlessDone {
    fn drop(&mut self) {
        let Some(send) = self.send.take() else { return };
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            runtime.spawn(send);
        }
    }
}

/// The task a `tools/call` reply created, if it is one (`resultType: "task"`): its id and poll
/// interval.
pub(super) fn created_task(reply: &Value) -> Option<(String, Duration)> {
    if reply.get("resultType").and_then(Value::as_str) != Some("task") {
        return None;
    }
    let id = reply.get("taskId")?.as_str()?.to_string();
    Some((id, poll_interval(reply)))
}

/// The pause a task's report asks for between polls, within [`POLL_BOUNDS`].
fn poll_interval(task: &Value) -> Duration {
    task.get("pollIntervalMs")
        .and_then(Value::as_u64)
        .map_or(DEFAULT_POLL, Duration::from_millis)
        .clamp(POLL_BOUNDS.0, POLL_BOUNDS.1)
}

impl Client {
    /// Call a tool and hand back its run without waiting for its end: a task when the server
    /// runs the call as one (the client declared the tasks extension, [`Capabilities::tasks`]),
    /// else the result it gave at once. Input requests before the task exists are answered as in
    /// [`Client::call_tool`].
    pub async fn start_tool(
        &self,
        name: &str,
        arguments: Value,
    ) -> Result<ToolRun<'_>, ClientError> {
        let reply = self.call_tool_reply(name, arguments).await?;
        let run = match created_task(&reply) {
            Some((id, poll)) => Run::Task { id, poll },
            None => Run::Answered(Box::new(Self::typed(reply)?)),
        };
        Ok(ToolRun { client: self, run })
    }

    /// `tasks/get`: the task as the server reports it now (its status, and by status its input
    /// requests, its result or its error), as JSON.
    pub async fn get_task(&self, task_id: &str) -> Result<Value, ClientError> {
        self.request(TASKS_GET, json!({"taskId": task_id})).await
    }

    /// `tasks/update`: answers to some or all of a task's outstanding input requests, by key
    /// (each a bare `ElicitResult`, `CreateMessageResult` or `ListRootsResult`).
    pub async fn update_task(
        &self,
        task_id: &str,
        input_responses: Map<String, Value>,
    ) -> Result<(), ClientError> {
        let params = json!({"taskId": task_id, "inputResponses": input_responses});
        self.request(TASKS_UPDATE, params).await.map(drop)
    }

    /// `tasks/cancel`: ask the server to stop the task (acknowledged also for a task that has
    /// already ended).
    pub async fn cancel_task(&self, task_id: &str) -> Result<(), ClientError> {
        self.request(TASKS_CANCEL, json!({"taskId": task_id}))
            .await
            .map(drop)
    }

    /// Follow the task `task_id` to its end: poll it every `poll` (or as its reports ask),
    /// answer its input requests through the input handler, and give the tool's result.
    pub(super) async fn follow_task(
        &self,
        task_id: &str,
        mut poll: Duration,
    ) -> Result<CallToolResult, ClientError> {
        loop {
            let mut got = self.get_task(task_id).await?;
            poll = got
                .get("pollIntervalMs")
                .map_or(poll, |_| poll_interval(&got));
            match TaskStatus::of(got["status"].as_str().unwrap_or("")) {
                TaskStatus::Completed => {
                    let result = got.get_mut("result").map(Value::take).ok_or_else(|| {
                        ClientError::protocol(format!("task {task_id} completed without a result"))
                    })?;
                    return Self::typed(result);
                }
                TaskStatus::Failed => {
                    let error = got.get_mut("error").map(Value::take).unwrap_or(Value::Null);
                    return Err(match serde_json::from_value::<oxmcp_schema::Error>(error) {
                        Ok(error) => ClientError::Rpc(error),
                        Err(_) => ClientError::protocol(format!(
                            "task {task_id} failed without a readable error"
                        )),
                    });
                }
                TaskStatus::Cancelled => {
                    return Err(ClientError::TaskCancelled {
                        task_id: task_id.to_string(),
                    })
                }
                TaskStatus::InputRequired => {
                    let asked = match got.get_mut("inputRequests").map(Value::take) {
                        Some(Value::Object(asked)) => asked,
                        _ => Map::new(),
                    };
                    if asked.is_empty() {
                        tokio::time::sleep(poll).await;
                        continue;
                    }
                    let mut answers = Map::new();
                    for (key, request) in asked {
                        let request: InputRequest =
                            serde_json::from_value(request).map_err(|e| {
                                ClientError::protocol(format!(
                                    "task {task_id}: input request `{key}`: {e}"
                                ))
                            })?;
                        let answer = self.handler.answer(&key, request).await?;
                        answers.insert(key, answer);
                    }
                    self.update_task(task_id, answers).await?;
                }
                TaskStatus::Working | TaskStatus::Other(_) => tokio::time::sleep(poll).await,
            }
        }
    }

    /// The first reply to a `tools/call` of `name`, through its input rounds: the tool's result,
    /// or a created task.
    pub(super) async fn call_tool_reply(
        &self,
        name: &str,
        arguments: Value,
    ) -> Result<Value, ClientError> {
        let params = json!({"name": name, "arguments": arguments});
        match self.rounds(methods::TOOLS_CALL, &params).await {
            Err(ClientError::Rpc(e))
                if e.code == error_codes::HEADER_MISMATCH
                    && matches!(self.transport, Transport::Http { .. })
                    && !self.knows_tool(name) =>
            {
                self.list_all_tools().await?;
                if !self.knows_tool(name) {
                    return Err(ClientError::Rpc(e));
                }
                self.rounds(methods::TOOLS_CALL, &params).await
            }
            other => other,
        }
    }

    /// Follow a task a call created, within the caller's time limit ([`Client::within`], else
    /// [`Client::timeout`]) for the whole task: past it, or if the caller stops waiting, the task
    /// is cancelled.
    pub(super) async fn finish_task(
        &self,
        task_id: &str,
        poll: Duration,
    ) -> Result<CallToolResult, ClientError> {
        let guard = CancelUnlessDone {
            send: self.send_detached(TASKS_CANCEL, json!({"taskId": task_id})),
        };
        let limit = CALL_LIMIT.try_with(|limit| *limit).ok().or(self.timeout);
        let followed = match limit {
            Some(after) => tokio::time::timeout(after, self.follow_task(task_id, poll))
                .await
                .unwrap_or_else(|_| {
                    Err(ClientError::Timeout {
                        method: methods::TOOLS_CALL.to_string(),
                        after,
                    })
                }),
            None => self.follow_task(task_id, poll).await,
        };
        match &followed {
            // The task has ended: there is nothing to cancel.
            Ok(_) | Err(ClientError::Rpc(_) | ClientError::TaskCancelled { .. }) => guard.done(),
            // Gave up (time limit, an unanswerable request, a lost connection): the task is
            // told, when the guard drops.
            Err(_) => drop(guard),
        }
        followed
    }

    /// A 2026-07-28 request of `method` with `params`, as a future that sends it and forgets its
    /// reply; it owns what it needs, so it can run after the client's borrow ends (a drop). None
    /// for a 2025 session, or when the request cannot be built.
    fn send_detached(&self, method: &str, params: Value) -> Option<BoxFuture<()>> {
        if !matches!(self.era.load().as_deref(), Some(Negotiated::Stateless)) {
            return None;
        }
        let mut params = match params {
            Value::Object(params) => params,
            _ => return None,
        };
        params.insert("_meta".into(), Value::Object(self.meta.clone()));
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let msg = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": &params});
        match &self.transport {
            Transport::Http { url, uri, http } => {
                let post = match uri {
                    Some(uri) => hyper::Request::post(uri.clone()),
                    None => hyper::Request::post(url.as_str()),
                };
                let mut req = message_headers(
                    post,
                    hyper::header::HeaderValue::from_static(LATEST_PROTOCOL_VERSION),
                )
                .header(hyper::header::HeaderName::from_static("mcp-method"), method);
                let name = crate::wire::name_field(method)
                    .and_then(|f| params.get(f))
                    .and_then(Value::as_str);
                if let Some(name) = name {
                    req = req.header("mcp-name", name);
                }
                let mut req = req.body(Full::new(Bytes::from(msg.to_string()))).ok()?;
                add_headers(&mut req, &self.headers);
                let http = http.clone();
                Some(Box::pin(async move {
                    if let Ok(resp) = http.request(req).await {
                        let _ = resp.into_body().collect().await;
                    }
                }))
            }
            Transport::Stdio { tx, .. } => {
                // Its reply answers no waiting request, and is let go.
                let tx = tx.clone();
                Some(Box::pin(async move {
                    let _ = tx.send(msg.to_string());
                }))
            }
            Transport::InProcess { handle } => {
                let handle = handle.clone();
                Some(Box::pin(async move {
                    let _ = handle(msg.to_string()).await;
                }))
            }
        }
    }
}

const TASKS_GET: &str = "tasks/get";
const TASKS_UPDATE: &str = "tasks/update";
const TASKS_CANCEL: &str = "tasks/cancel";
