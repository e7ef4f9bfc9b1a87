//! One request's exchange with the server: the era found on first use (a `server/discover`
//! probe, else `initialize`), the message sent over HTTP or stdio, lost replies sent again, and a
//! 2025 session renewed when the server no longer knows it.

use super::*;

impl Client {
    /// The server's era: found with a `server/discover` probe on first use. A result that
    /// lists the version this client speaks means a 2026 server; anything else (an error,
    /// no answer, a result that is not a discover result, as a 2025 server that answers every
    /// unknown request with `{}` sends) falls back to `initialize`.
    pub(crate) async fn negotiated(&self) -> Result<Arc<Negotiated>, ClientError> {
        if let Some(known) = self.era.load_full() {
            return Ok(known);
        }
        let _finding = self.finding.lock().await;
        if let Some(known) = self.era.load_full() {
            return Ok(known);
        }
        let found = match self.forced {
            Some(Era::Stateless) => Negotiated::Stateless,
            Some(Era::Session) => self.initialize().await?,
            None => {
                let id = self.next_id.fetch_add(1, Ordering::Relaxed);
                let probe = json!({"jsonrpc": "2.0", "id": id, "method": methods::SERVER_DISCOVER,
                                   "params": {"_meta": self.meta.clone()}});
                match self.send(&probe).await {
                    Ok(reply) if reply.get("result").is_some_and(speaks_ours) => {
                        Negotiated::Stateless
                    }
                    _ => self.initialize().await?,
                }
            }
        };
        let found = Arc::new(found);
        self.era.store(Some(found.clone()));
        Ok(found)
    }

    /// The server ended the session `ended`: the next request opens a new one (unless another
    /// already did), and the old session's stream reader stops.
    pub(crate) fn forget_session(&self, ended: &Arc<Negotiated>) {
        let previous = self.era.compare_and_swap(ended, None);
        if previous.as_ref().is_none_or(|p| Arc::ptr_eq(p, ended)) {
            crate::wire::lock(&self.listener).take();
        }
    }

    /// Open a 2025 session: `initialize`, then `notifications/initialized`.
    pub(crate) async fn initialize(&self) -> Result<Negotiated, ClientError> {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let msg = json!({"jsonrpc": "2.0", "id": id, "method": "initialize", "params": {
            "protocolVersion": SESSION_VERSION, "capabilities": self.meta[META_CAPS],
            "clientInfo": self.meta[META_CLIENT_INFO]}});
        let (reply, session) = match &self.transport {
            Transport::Http { url, http, .. } => {
                let mut resent = 0;
                loop {
                    match self
                        .post_in_session(url, http, SESSION_VERSION, None, &msg)
                        .await
                    {
                        // Nothing is lost but a session the server will expire.
                        Err(ClientError::ReplyLost { .. }) if resent < self.resend_lost => {
                            resent += 1;
                            tokio::time::sleep(resend_pause(resent)).await;
                        }
                        other => break other?,
                    }
                }
            }
            Transport::Stdio { .. } | Transport::InProcess { .. } => (self.send(&msg).await?, None),
        };
        let version = reply
            .pointer("/result/protocolVersion")
            .and_then(Value::as_str)
            .ok_or_else(|| {
                ClientError::protocol(format!(
                    "the server answered neither server/discover nor initialize: {reply}"
                ))
            })?
            .to_string();
        let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
        match &self.transport {
            Transport::Http { url, http, .. } => {
                self.post_in_session(url, http, &version, session.as_deref(), &initialized)
                    .await?;
                // Many 2025 servers send their requests on the standalone stream rather than
                // on the stream of the call they belong to: listen there too, with the stream
                // open before any request is sent (a server drops what it has no stream for).
                let listener = SessionHttp {
                    url: url.clone(),
                    http: http.clone(),
                    headers: self.headers.clone(),
                    version: version.clone(),
                    session: session.clone(),
                };
                // A server that holds back the response head is given a moment, then read
                // from the background.
                let first = tokio::time::timeout(Duration::from_secs(2), listener.open(None)).await;
                let first = match first {
                    Ok(Opened::Stream(first)) => Some(Some(first)),
                    Ok(Opened::Refused(_) | Opened::Failed(_) | Opened::Gone) => None,
                    Err(_) => Some(None),
                };
                if let Some(first) = first {
                    let task = tokio::spawn(standalone_stream(
                        listener,
                        first,
                        self.handler.clone(),
                        self.notifications.clone(),
                    ));
                    *crate::wire::lock(&self.listener) = Some(StopOnDrop(task.abort_handle()));
                }
            }
            Transport::Stdio { tx, .. } => {
                tx.send(initialized.to_string()).map_err(|_| {
                    ClientError::transport(STDIO, Cause::words("server stdin closed"))
                })?;
            }
            Transport::InProcess { handle } => {
                handle(initialized.to_string()).await;
            }
        }
        Ok(Negotiated::Session { version, session })
    }

    /// Send one request (with `_meta` filled in) and return its `result`, within the time
    /// limit ([`Client::timeout`], or [`Client::within`] around the call). The first request
    /// also finds the server's era, within the same limit.
    pub async fn request(&self, method: &str, params: Value) -> Result<Value, ClientError> {
        self.request_noting(method, params, &AtomicBool::new(false))
            .await
    }

    /// [`Client::request`], setting `resent` if the request was sent again after its reply was
    /// lost.
    pub(crate) async fn request_noting(
        &self,
        method: &str,
        params: Value,
        resent: &AtomicBool,
    ) -> Result<Value, ClientError> {
        // With telemetry on: a CLIENT span, whose context the request carries in `_meta`.
        #[cfg(feature = "otel")]
        if crate::otel::active() {
            let mut params = match params {
                Value::Object(m) => m,
                Value::Null => Map::new(),
                _ => return Err(ClientError::protocol("params must be an object")),
            };
            if let Some(traced) = crate::otel::client_span(method, &mut params) {
                let sent = self.request_within(method, Value::Object(params), resent);
                let result =
                    opentelemetry::context::FutureExt::with_context(sent, traced.cx.clone()).await;
                traced.finish(traced_error(&result));
                return result;
            }
            return self
                .request_within(method, Value::Object(params), resent)
                .await;
        }
        self.request_within(method, params, resent).await
    }

    /// [`Client::request`] within the time limit, as is.
    async fn request_within(
        &self,
        method: &str,
        params: Value,
        resent: &AtomicBool,
    ) -> Result<Value, ClientError> {
        let limit = CALL_LIMIT.try_with(|limit| *limit).ok().or(self.timeout);
        match limit {
            Some(after) => tokio::time::timeout(after, self.exchange(method, params, resent))
                .await
                .unwrap_or_else(|_| {
                    Err(ClientError::Timeout {
                        method: method.to_string(),
                        after,
                    })
                }),
            None => self.exchange(method, params, resent).await,
        }
    }

    /// [`Client::request`] without the time limit.
    pub(crate) async fn exchange(
        &self,
        method: &str,
        params: Value,
        resent_flag: &AtomicBool,
    ) -> Result<Value, ClientError> {
        let mut params = match params {
            Value::Object(m) => m,
            Value::Null => Map::new(),
            _ => return Err(ClientError::protocol("params must be an object")),
        };
        // Inside `with_progress`: this request carries a progress token of its own.
        let _watching = match PROGRESS.try_with(Arc::clone) {
            Ok(callback) if method != methods::SERVER_DISCOVER => {
                let token = format!("oxmcp-{}", self.next_id.fetch_add(1, Ordering::Relaxed));
                if let Value::Object(meta) = params.entry("_meta").or_insert_with(|| json!({})) {
                    meta.insert("progressToken".into(), Value::String(token.clone()));
                }
                crate::wire::lock(&self.watchers).insert(token.clone(), callback);
                Some(Watching {
                    watchers: &self.watchers,
                    token,
                })
            }
            _ => None,
        };
        // An explicit discover decides the era itself; anything else needs it known.
        let era = if method == methods::SERVER_DISCOVER && self.forced.is_none() {
            self.era
                .load_full()
                .unwrap_or_else(|| Arc::new(Negotiated::Stateless))
        } else {
            self.negotiated().await?
        };
        if matches!(&*era, Negotiated::Session { .. }) {
            return self.exchange_in_session(method, &params, era).await;
        }
        self.exchange_stateless(method, params, resent_flag).await
    }

    /// A request in the 2025 session `era` names: sent again in a new session when the server
    /// no longer knows this one, and again in the session when its reply was lost.
    async fn exchange_in_session(
        &self,
        method: &str,
        params: &Map<String, Value>,
        era: Arc<Negotiated>,
    ) -> Result<Value, ClientError> {
        let reply = match &self.transport {
            Transport::Http { url, http, .. } => {
                let mut era = era;
                let (mut renewals, mut resent) = (0, 0);
                loop {
                    let Negotiated::Session { version, session } = &*era else {
                        return Err(ClientError::protocol("the server left the 2025 protocol"));
                    };
                    let id = self.next_id.fetch_add(1, Ordering::Relaxed);
                    // The span names the id the request was first sent with.
                    #[cfg(feature = "otel")]
                    if renewals == 0 && resent == 0 {
                        crate::otel::client_request_id(id);
                    }
                    let msg =
                        json!({"jsonrpc": "2.0", "id": id, "method": method, "params": &params});
                    match self
                        .post_in_session(url, http, version, session.as_deref(), &msg)
                        .await
                    {
                        // The server no longer knows the session (it restarted, or another
                        // instance answered): open a new one and send the request there.
                        // Behind a load balancer the new session may land on an instance
                        // that is itself stopping: a few tries, a little apart.
                        Err(ClientError::SessionEnded { .. }) if renewals < SESSION_RENEWALS => {
                            self.forget_session(&era);
                            era = loop {
                                if renewals > 0 {
                                    tokio::time::sleep(Duration::from_millis(
                                        100 * renewals as u64,
                                    ))
                                    .await;
                                }
                                renewals += 1;
                                match self.negotiated().await {
                                    Ok(era) => break era,
                                    // The new session's instance went away as it opened.
                                    Err(
                                        ClientError::SessionEnded { .. }
                                        | ClientError::ReplyLost { .. },
                                    ) if renewals < SESSION_RENEWALS => {}
                                    Err(e) => return Err(e),
                                }
                            };
                        }
                        // Sent again in the session: if the session went with its
                        // instance, the answer is a 404 and the arm above moves on.
                        Err(ClientError::ReplyLost { .. }) if resent < self.resend_lost => {
                            resent += 1;
                            tokio::time::sleep(resend_pause(resent)).await;
                        }
                        other => break other?.0,
                    }
                }
            }
            Transport::Stdio { .. } | Transport::InProcess { .. } => {
                let id = self.next_id.fetch_add(1, Ordering::Relaxed);
                #[cfg(feature = "otel")]
                crate::otel::client_request_id(id);
                self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))
                    .await?
            }
        };
        Self::result_of(reply)
    }

    /// A 2026 request, self-contained: the client's `_meta` filled in, sent again under a new id
    /// when its reply was lost, and once more with the latest version when the server asks.
    async fn exchange_stateless(
        &self,
        method: &str,
        mut params: Map<String, Value>,
        resent_flag: &AtomicBool,
    ) -> Result<Value, ClientError> {
        match params.get_mut("_meta") {
            Some(Value::Object(m)) => {
                for (k, v) in &self.meta {
                    if !m.contains_key(k) {
                        m.insert(k.clone(), v.clone());
                    }
                }
            }
            Some(_) => {}
            None => {
                params.insert("_meta".into(), Value::Object(self.meta.clone()));
            }
        }
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        #[cfg(feature = "otel")]
        crate::otel::client_request_id(id);
        let mut msg = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        let mut resent = 0;
        let mut reply = loop {
            match self.send(&msg).await {
                // Self-contained: any instance can take it again, under a new id.
                Err(ClientError::ReplyLost { .. }) if resent < self.resend_lost => {
                    resent += 1;
                    resent_flag.store(true, Ordering::Relaxed);
                    tokio::time::sleep(resend_pause(resent)).await;
                    msg["id"] = json!(self.next_id.fetch_add(1, Ordering::Relaxed));
                }
                other => break other?,
            }
        };
        // -32022: the server does not take our version. Retry once, with a new id, if it lists
        // one we speak (this client speaks only the latest).
        let unsupported = reply
            .get("error")
            .and_then(|e| e.get("code"))
            .and_then(Value::as_i64)
            == Some(error_codes::UNSUPPORTED_PROTOCOL_VERSION);
        if unsupported {
            let offers_ours = reply["error"]["data"]["supported"]
                .as_array()
                .is_some_and(|v| v.iter().any(|x| x == LATEST_PROTOCOL_VERSION));
            if offers_ours {
                let mut retry = msg.clone();
                retry["id"] = json!(self.next_id.fetch_add(1, Ordering::Relaxed));
                retry["params"]["_meta"][META_VERSION] = json!(LATEST_PROTOCOL_VERSION);
                reply = self.send(&retry).await?;
            }
        }
        let result = Self::result_of(reply)?;
        if method == methods::SERVER_DISCOVER && speaks_ours(&result) && self.era.load().is_none() {
            self.era.store(Some(Arc::new(Negotiated::Stateless)));
        }
        if method == methods::TOOLS_LIST {
            self.learn_header_params(&result);
        }
        Ok(result)
    }

    /// The `result` of a reply, or its error.
    pub(crate) fn result_of(reply: Value) -> Result<Value, ClientError> {
        let mut reply = match reply {
            Value::Object(m) => m,
            _ => return Err(ClientError::protocol("reply is not an object")),
        };
        if let Some(err) = reply.remove("error") {
            let e: oxmcp_schema::Error = serde_json::from_value(err)
                .map_err(|e| ClientError::protocol(format!("bad error object: {e}")))?;
            return Err(ClientError::Rpc(e));
        }
        reply
            .remove("result")
            .ok_or_else(|| ClientError::protocol("reply has neither result nor error"))
    }

    /// Record the header arguments of every tool in a `tools/list` result.
    pub(crate) fn learn_header_params(&self, result: &Value) {
        let Some(tools) = result.get("tools").and_then(Value::as_array) else {
            return;
        };
        let mut known = crate::wire::lock(&self.header_params);
        for tool in tools {
            if let Some(name) = tool.get("name").and_then(Value::as_str) {
                known.insert(
                    name.to_string(),
                    crate::wire::param::checked_header_params(
                        tool.get("inputSchema").and_then(|s| s.get("properties")),
                    ),
                );
            }
        }
    }

    /// Whether a `tools/list` result has described `tool`.
    pub(crate) fn knows_tool(&self, tool: &str) -> bool {
        crate::wire::lock(&self.header_params).contains_key(tool)
    }

    /// The `Mcp-Param-*` headers of a `tools/call` with these params, as (header, value).
    pub(crate) fn param_headers(
        &self,
        params: Option<&Value>,
    ) -> Result<Vec<(String, String)>, ClientError> {
        let Some(tool) = params.and_then(|p| p.get("name")).and_then(Value::as_str) else {
            return Ok(Vec::new());
        };
        let known = crate::wire::lock(&self.header_params);
        let declared = match known.get(tool) {
            None => return Ok(Vec::new()),
            Some(Ok(declared)) => declared,
            // A client must not call a tool whose header declarations are invalid.
            Some(Err(why)) => {
                return Err(ClientError::protocol(format!(
                    "tool `{tool}` declares an invalid x-mcp-header ({why}); it is not called"
                )))
            }
        };
        let args = params.and_then(|p| p.get("arguments"));
        let mut headers = Vec::new();
        for (arg, header) in declared {
            // An absent or null argument has no header.
            let Some(value) = args.and_then(|a| a.get(arg)).filter(|v| !v.is_null()) else {
                continue;
            };
            let name = format!("mcp-param-{}", header.to_ascii_lowercase());
            if hyper::header::HeaderName::from_bytes(name.as_bytes()).is_err() {
                return Err(ClientError::protocol(format!(
                    "tool `{tool}` mirrors `{arg}` in `{header}`, which is not a valid header name"
                )));
            }
            headers.push((
                name,
                crate::wire::param::encode_param(&crate::wire::param::param_text(value)),
            ));
        }
        Ok(headers)
    }
}

/// How a request the client sent failed, as its span records it: a JSON-RPC error's code, a
/// tool error, a time limit, or another failure; none when it succeeded.
#[cfg(feature = "otel")]
fn traced_error(result: &Result<Value, ClientError>) -> Option<(String, String)> {
    match result {
        Ok(result) if result.get("isError") == Some(&Value::Bool(true)) => Some((
            "tool_error".to_string(),
            "the tool answered an error".to_string(),
        )),
        Ok(_) => None,
        Err(ClientError::Rpc(e)) => Some((e.code.to_string(), e.message.clone())),
        Err(e @ ClientError::Timeout { .. }) => Some(("timeout".to_string(), e.to_string())),
        Err(e) => Some(("_OTHER".to_string(), e.to_string())),
    }
}
