//! Requests over streamable HTTP: a message POSTed with the client's headers (and, under
//! OAuth, its token), and its reply read as JSON or from an event stream; a 2025 session's POSTs.

use super::*;
use hyper::header::{HeaderName, HeaderValue};

impl Client {
    /// POST one message of a 2025 session and read its reply, answering the server's own
    /// requests on the response stream; the reply (`Null` for a notification or response) and
    /// the session id the server set.
    pub(super) async fn post_in_session(
        &self,
        url: &str,
        http: &HttpClient,
        version: &str,
        session: Option<&str>,
        msg: &Value,
    ) -> Result<(Value, Option<String>), ClientError> {
        let body = Bytes::from(msg.to_string());
        let build = || {
            let mut req = message_headers(hyper::Request::post(target(url)?), version);
            if let Some(s) = session {
                req = req.header("mcp-session-id", s);
            }
            req.body(Full::new(body.clone()))
                .map_err(|e| ClientError::transport(url, Cause::of(e)))
        };
        // A request of an open session (never `initialize`) whose reply is abandoned is
        // cancelled in the session.
        let mut in_flight = match (session, msg.get("id"), msg.get("method")) {
            (Some(session), Some(id), Some(_)) => Some(CancelInSession {
                session: SessionHttp {
                    url: url.to_string(),
                    http: http.clone(),
                    headers: self.headers.clone(),
                    version: version.to_string(),
                    session: Some(session.to_string()),
                },
                id: Some(id.clone()),
            }),
            _ => None,
        };
        let resp = self.send_authorized(http, url, build).await?;
        if resp.status() == hyper::StatusCode::NOT_FOUND {
            if let Some(session) = session {
                if let Some(guard) = &mut in_flight {
                    guard.id = None;
                }
                return Err(ClientError::SessionEnded {
                    target: url.to_string(),
                    session: session.to_string(),
                });
            }
        }
        let set_session = resp
            .headers()
            .get("mcp-session-id")
            .and_then(|v| v.to_str().ok())
            .map(str::to_string);
        let back = SessionHttp {
            url: url.to_string(),
            http: http.clone(),
            headers: self.headers.clone(),
            version: version.to_string(),
            session: set_session.clone().or_else(|| session.map(str::to_string)),
        };
        let reply = self.read_reply(url, resp, msg.get("id"), Some(back)).await;
        if let Some(guard) = &mut in_flight {
            guard.id = None;
        }
        Ok((reply?, set_session))
    }

    /// The reply to the request `id` in `resp`: plain JSON, or an SSE stream whose other
    /// messages are notifications (sent to [`Client::notifications`]) or, on a 2025 session
    /// (`session`), the server's own requests, answered and POSTed back. A 2025-era POST without
    /// a reply (a notification or response, or 202) gives `Null`.
    pub(super) async fn read_reply(
        &self,
        url: &str,
        resp: hyper::Response<hyper::body::Incoming>,
        id: Option<&Value>,
        session: Option<SessionHttp>,
    ) -> Result<Value, ClientError> {
        let status = resp.status();
        let challenge = resp
            .headers()
            .get(hyper::header::WWW_AUTHENTICATE)
            .and_then(|v| v.to_str().ok())
            .map(str::to_string);
        let is_sse = resp
            .headers()
            .get("content-type")
            .and_then(|v| v.to_str().ok())
            .is_some_and(|c| c.starts_with("text/event-stream"));
        if is_sse {
            return self.read_stream(url, resp.into_body(), id, session).await;
        }
        let body = resp
            .into_body()
            .collect()
            .await
            .map_err(|e| ClientError::reply_lost(url, Cause::of(e)))?
            .to_bytes();
        if session.is_some() && (id.is_none() || body.is_empty()) {
            return Ok(Value::Null);
        }
        self.read_json(url, status, challenge.as_deref(), &body)
    }

    /// The reply to the request `id` in an SSE stream (`body`): the other messages are
    /// notifications or, on a 2025 session, the server's requests, answered and POSTed back; a
    /// session's stream that ends before the reply is resumed from its last event id.
    async fn read_stream(
        &self,
        url: &str,
        mut body: hyper::body::Incoming,
        id: Option<&Value>,
        session: Option<SessionHttp>,
    ) -> Result<Value, ClientError> {
        // A 2025-era stream that ends before the reply is resumed from its last event id,
        // after the server's `retry` hint, a bounded number of times in a row.
        let mut cursor = Cursor::new();
        let mut reconnects = 0;
        loop {
            let mut events = eventsource_stream::EventStream::new(body.into_data_stream());
            let mut progressed = false;
            while let Some(ev) = events.next().await {
                let ev = match ev {
                    Ok(ev) => ev,
                    // A stream that is not UTF-8 or not SSE came whole but unreadable: the
                    // server answered, so it is not sent again as a lost reply would be.
                    Err(
                        e @ (eventsource_stream::EventStreamError::Utf8(_)
                        | eventsource_stream::EventStreamError::Parser(_)),
                    ) => {
                        return Err(ClientError::protocol(format!(
                            "the event stream does not read: {e}"
                        )))
                    }
                    // A session's stream is resumed below; any other is lost.
                    Err(_) if session.is_some() => break,
                    Err(e) => return Err(ClientError::reply_lost(url, Cause::of(e))),
                };
                cursor.saw(&ev);
                let Ok(v) = crate::wire::from_text::<Value>(&ev.data) else {
                    continue;
                };
                progressed = true;
                if v.get("method").is_none() && v.get("id").is_some() && v.get("id") == id {
                    return Ok(v);
                }
                watch(&self.watchers, &v);
                match &session {
                    // The server's requests are answered and POSTed back in the session.
                    Some(s) => {
                        s.deliver(&self.handler, self.notifications.as_ref(), v)
                            .await?
                    }
                    None => {
                        if let Some(tx) = &self.notifications {
                            let _ = tx.send(v);
                        }
                    }
                }
            }
            reconnects = if progressed { 1 } else { reconnects + 1 };
            let (Some(s), Some(last)) = (&session, &cursor.last) else {
                break;
            };
            if reconnects > MAX_RECONNECTS {
                break;
            }
            tokio::time::sleep(cursor.retry).await;
            body = match s.open(Some(last)).await {
                Opened::Stream(body) => body,
                // The session is gone (its instance stopped, say): the request is sent
                // again in a new one.
                Opened::Gone => {
                    return Err(ClientError::SessionEnded {
                        target: s.url.clone(),
                        session: s.session.clone().unwrap_or_default(),
                    })
                }
                Opened::Refused(why) | Opened::Failed(why) => {
                    return Err(ClientError::transport(
                        url,
                        Cause::words(format!("resuming the event stream: {why}")),
                    ))
                }
            };
        }
        Err(ClientError::reply_lost(
            url,
            Cause::words("the event stream ended without a response"),
        ))
    }

    /// The reply in a plain HTTP body, answered `status` (with the `WWW-Authenticate`
    /// `challenge`, if any): a refusal at the door is the error its challenge says.
    fn read_json(
        &self,
        url: &str,
        status: hyper::StatusCode,
        challenge: Option<&str>,
        body: &[u8],
    ) -> Result<Value, ClientError> {
        // Refused at the door, whatever the body says: the challenge says what to do.
        match status.as_u16() {
            401 => {
                return Err(ClientError::Unauthorized {
                    challenge: Challenge::parse(challenge),
                    logged_in: self.logs_in(),
                })
            }
            403 => {
                let challenge = Challenge::parse(challenge);
                if challenge.error.as_deref() == Some("insufficient_scope") {
                    return Err(ClientError::Forbidden {
                        scopes: challenge.scopes(),
                        challenge,
                    });
                }
            }
            _ => {}
        }
        serde_json::from_slice(body).map_err(|_| match status.as_u16() {
            // A gateway's own answer: the instance behind it never replied.
            502..=504 => ClientError::reply_lost(
                url,
                Cause::words(format!("HTTP {status} without a JSON-RPC body")),
            ),
            status => ClientError::HttpStatus {
                target: url.to_string(),
                status,
            },
        })
    }

    pub(super) async fn send_http(
        &self,
        url: &str,
        uri: Option<&hyper::Uri>,
        http: &HttpClient,
        msg: &Value,
    ) -> Result<Value, ClientError> {
        let method = msg.get("method").and_then(Value::as_str).unwrap_or("");
        let params = msg.get("params");
        // The field `Mcp-Name` mirrors: a tool or prompt name, a resource URI, a task id.
        let name = crate::wire::name_field(method)
            .and_then(|f| params.and_then(|p| p.get(f)))
            .and_then(Value::as_str);
        let mirrored = if method == methods::TOOLS_CALL {
            self.param_headers(params)?
        } else {
            Vec::new()
        };
        let body = Bytes::from(msg.to_string());
        let build = || {
            let post = match uri {
                Some(uri) => hyper::Request::post(uri.clone()),
                None => hyper::Request::post(target(url)?),
            };
            let mut req = message_headers(post, HeaderValue::from_static(LATEST_PROTOCOL_VERSION))
                .header(HeaderName::from_static("mcp-method"), method);
            if let Some(n) = name {
                req = req.header("mcp-name", n);
            }
            for (header, value) in &mirrored {
                req = req.header(header, value);
            }
            req.body(Full::new(body.clone()))
                .map_err(|e| ClientError::transport(url, Cause::of(e)))
        };
        let resp = self.send_authorized(http, url, build).await?;
        self.read_reply(url, resp, msg.get("id"), None).await
    }

    /// Send the request `build` makes, with the client's headers. Under OAuth it carries the
    /// access token (refreshed first when it is about to expire), and a challenge the client
    /// meets (a login, a refresh, a step-up) sends it again, as often as the authorizer allows.
    #[cfg_attr(not(feature = "oauth"), allow(clippy::never_loop))]
    pub(super) async fn send_authorized(
        &self,
        http: &HttpClient,
        url: &str,
        build: impl Fn() -> Result<hyper::Request<Full<Bytes>>, ClientError>,
    ) -> Result<hyper::Response<hyper::body::Incoming>, ClientError> {
        #[cfg(feature = "oauth")]
        let mut sends = 0;
        loop {
            let mut req = build()?;
            #[cfg(feature = "oauth")]
            if let Some(auth) = &self.headers.auth {
                auth.refresh_if_due().await;
            }
            add_headers(&mut req, &self.headers);
            #[cfg(feature = "oauth")]
            let sent = req
                .headers()
                .get(hyper::header::AUTHORIZATION)
                .and_then(|v| v.to_str().ok())
                .map(str::to_string);
            let resp = http
                .request(req)
                .await
                .map_err(|e| error::exchange_failed(url, e))?;
            // A server whose challenges never end (a new DPoP nonce each time) gets its answer
            // passed on after a few sends.
            #[cfg(feature = "oauth")]
            if let Some(auth) = self.headers.auth.as_ref().filter(|_| sends < MAX_SENDS) {
                sends += 1;
                let status = resp.status().as_u16();
                let header = |name: &str| {
                    resp.headers()
                        .get(name)
                        .and_then(|v| v.to_str().ok())
                        .map(str::to_string)
                };
                let nonce = header("dpop-nonce");
                if status == 401 || status == 403 {
                    let challenge = header("www-authenticate");
                    if auth
                        .challenged(
                            status,
                            challenge.as_deref(),
                            nonce.as_deref(),
                            sent.as_deref(),
                        )
                        .await?
                    {
                        continue;
                    }
                } else {
                    if let Some(nonce) = &nonce {
                        auth.server_nonce(nonce);
                    }
                    auth.passed();
                }
            }
            return Ok(resp);
        }
    }
}

/// `url` as the URI of a request: an absolute `http://` or `https://` URL. Anything else is the
/// caller's mistake, found before anything is sent: a transport error naming it, not a reply
/// lost in transit (which would be sent again).
pub(super) fn target(url: &str) -> Result<hyper::Uri, ClientError> {
    let invalid = |why: String| {
        ClientError::transport(
            url,
            Cause::words(format!("not an absolute http:// or https:// URL{why}")),
        )
    };
    let uri = hyper::Uri::try_from(url).map_err(|e| invalid(format!(" ({e})")))?;
    if !matches!(uri.scheme_str(), Some("http" | "https")) || uri.authority().is_none() {
        return Err(invalid(String::new()));
    }
    Ok(uri)
}
