//! Where the user approves: the host's [`AuthorizationHandler`], a loopback listener for
//! desktop hosts, and an approver for servers that need no user.

use super::*;

/// The host's part in the authorization code grant: show the user the authorization page and
/// hand back where the authorization server sent the browser.
pub trait AuthorizationHandler: Send + Sync + 'static {
    /// The redirect URI sent with each authorization request (and registered, when the client
    /// registers itself).
    fn redirect_uri(&self) -> String;

    /// Have the user approve `url` (open it in a browser, or show it), and return the URL the
    /// authorization server redirected to, with its query (`code`, `state`, `iss`, or `error`).
    fn authorize(&self, url: Url) -> BoxFuture<Result<Url, ClientError>>;
}

/// How long the loopback listener waits for a connection's request.
pub(crate) const LOOPBACK_READ_TIMEOUT: Duration = Duration::from_secs(10);

/// An [`AuthorizationHandler`] for a desktop or command-line host: the redirect comes back to
/// a listener on the loopback interface. `show` is given the authorization URL (open a
/// browser, or print it); the page the browser lands on says it may be closed.
pub struct Loopback {
    pub(crate) listener: Arc<tokio::net::TcpListener>,
    pub(crate) port: u16,
    pub(crate) show: Arc<dyn Fn(&Url) + Send + Sync>,
}

impl Loopback {
    /// Listen on `127.0.0.1` at a free port.
    pub async fn bind(show: impl Fn(&Url) + Send + Sync + 'static) -> std::io::Result<Self> {
        let listener = tokio::net::TcpListener::bind(("127.0.0.1", 0)).await?;
        let port = listener.local_addr()?.port();
        Ok(Loopback {
            listener: Arc::new(listener),
            port,
            show: Arc::new(show),
        })
    }
}

impl AuthorizationHandler for Loopback {
    fn redirect_uri(&self) -> String {
        format!("http://127.0.0.1:{}/callback", self.port)
    }

    fn authorize(&self, url: Url) -> BoxFuture<Result<Url, ClientError>> {
        let listener = self.listener.clone();
        let base = self.redirect_uri();
        (self.show)(&url);
        Box::pin(async move {
            // Connections are served side by side, so one that sends nothing (another local
            // process, or a browser's speculative preconnect) cannot hold up the redirect; the
            // first connection that delivers `/callback` and has had its answer written ends
            // the wait, and dropping the set closes the others.
            let mut connections = tokio::task::JoinSet::new();
            loop {
                tokio::select! {
                    accepted = listener.accept(), if connections.len() < LOOPBACK_MAX_CONNECTIONS => {
                        let (stream, _) = accepted.map_err(|e| {
                            ClientError::transport("the loopback listener", Cause::of(e))
                        })?;
                        connections.spawn(serve_redirect(stream));
                    }
                    Some(served) = connections.join_next() => {
                        if let Ok(Some(query)) = served {
                            let mut back = Url::parse(&base)
                                .map_err(|e| ClientError::transport(base.as_str(), Cause::of(e)))?;
                            back.set_query(Some(&query));
                            return Ok(back);
                        }
                    }
                }
            }
        })
    }
}

/// How many connections the loopback listener serves at once; more wait to be accepted.
const LOOPBACK_MAX_CONNECTIONS: usize = 16;

/// Serve one connection to the loopback listener: the query of its `/callback` request once the
/// answer has been written, or none (another path, no request in time, or a broken connection).
async fn serve_redirect(stream: tokio::net::TcpStream) -> Option<String> {
    let received = Arc::new(Mutex::new(None::<String>));
    let slot = received.clone();
    let service = hyper::service::service_fn(move |req: hyper::Request<hyper::body::Incoming>| {
        let found = req.uri().path() == "/callback";
        if found {
            crate::wire::lock(&slot)
                .get_or_insert_with(|| req.uri().query().unwrap_or_default().to_string());
        }
        let (status, text) = if found {
            (200, "Authorization received: you may close this window.")
        } else {
            (404, "Not found")
        };
        async move {
            hyper::Response::builder()
                .status(status)
                .header("content-type", "text/plain; charset=utf-8")
                .body(Full::new(Bytes::from_static(text.as_bytes())))
        }
    });
    // A connection that sends no request in time is closed.
    let _ = hyper::server::conn::http1::Builder::new()
        .timer(hyper_util::rt::TokioTimer::new())
        .header_read_timeout(LOOPBACK_READ_TIMEOUT)
        .keep_alive(false)
        .serve_connection(hyper_util::rt::TokioIo::new(stream), service)
        .await;
    let query = crate::wire::lock(&received).take();
    query
}

/// An [`AuthorizationHandler`] for authorization servers that approve without a user (test
/// and CI servers): it requests the authorization URL and returns where the answer redirects,
/// without following it.
pub struct AutoApprove {
    pub(crate) redirect_uri: String,
    pub(crate) http: HttpClient,
}

impl AutoApprove {
    /// A handler that sends `redirect_uri` as the redirect.
    pub fn new(redirect_uri: &str) -> Self {
        AutoApprove {
            redirect_uri: redirect_uri.to_string(),
            http: crate::client::http_client(),
        }
    }
}

impl AuthorizationHandler for AutoApprove {
    fn redirect_uri(&self) -> String {
        self.redirect_uri.clone()
    }

    fn authorize(&self, url: Url) -> BoxFuture<Result<Url, ClientError>> {
        let http = self.http.clone();
        Box::pin(async move {
            let req = hyper::Request::get(url.as_str())
                .body(Full::new(Bytes::new()))
                .map_err(|e| ClientError::transport(url.as_str(), Cause::of(e)))?;
            let resp = http
                .request(req)
                .await
                .map_err(|e| ClientError::transport(url.as_str(), Cause::of(e)))?;
            let location = resp
                .headers()
                .get("location")
                .and_then(|l| l.to_str().ok())
                .map(str::to_string);
            let status = resp.status();
            let _ = resp.into_body().collect().await;
            let location = location.ok_or_else(|| {
                login_error(
                    LoginStep::Authorization,
                    format!("the authorization endpoint did not redirect (HTTP {status})"),
                )
            })?;
            url.join(&location).map_err(|e| {
                login_error(
                    LoginStep::Authorization,
                    format!("redirect {location}: {e}"),
                )
            })
        })
    }
}
