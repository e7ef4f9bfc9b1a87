//! The client's OAuth state for one MCP server: the token presented on each request, refreshed
//! before it expires, and a `401` or `403 insufficient_scope` answered by refreshing or logging in.

use super::*;

/// The state a login changes, behind one lock so that concurrent requests log in once.
#[derive(Default)]
pub(crate) struct Session {
    pub(crate) loaded: bool,
    pub(crate) credentials: Option<Credentials>,
}

/// A client's OAuth state for one MCP server.
pub(crate) struct Authorizer {
    pub(crate) config: OAuth,
    pub(crate) http: HttpClient,
    /// The MCP server's URL (tokens are kept under it).
    pub(crate) server: String,
    /// The token to present, read without waiting.
    pub(crate) current: Mutex<Option<Presented>>,
    pub(crate) session: tokio::sync::Mutex<Session>,
    /// The key DPoP proofs are signed with, once there is one.
    pub(crate) dpop_key: Mutex<Option<Arc<DpopKey>>>,
    /// The nonces the authorization server and the MCP server last asked proofs to carry.
    pub(crate) as_nonce: Arc<Mutex<Option<String>>>,
    pub(crate) rs_nonce: Mutex<Option<String>>,
    /// Why an assertion grant was refused: final, it is not tried again.
    pub(crate) refused: Mutex<Option<ClientError>>,
    /// Authorizations since a request last got past the server's check.
    pub(crate) attempts: AtomicU32,
    /// The token was refreshed after a `401` and has not got a request past the check since:
    /// another `401` means a new authorization.
    pub(crate) refreshed: AtomicBool,
    /// The authorization server the configured credentials are bound to: the configured one,
    /// else the one of the stored credentials, else the first one logged in to.
    pub(crate) bound: Mutex<Option<String>>,
}

/// A token as requests present it.
#[derive(Clone)]
pub(crate) struct Presented {
    /// `Bearer <token>` or `DPoP <token>`.
    pub(crate) authorization: String,
    pub(crate) token: String,
    /// The key of a DPoP-bound token.
    pub(crate) dpop: Option<Arc<DpopKey>>,
}

/// Whether `c`'s access token is to be refreshed now: it expires within the margin and there
/// is a refresh token.
pub(crate) fn due(c: &Credentials) -> bool {
    c.refresh_token.is_some()
        && c.expires_at
            .is_some_and(|at| now() + REFRESH_MARGIN.as_secs() >= at)
}

/// An OAuth client whose token endpoint is known, and no other endpoint yet.
pub(crate) type TokenClient = BasicClient<
    oauth2::EndpointNotSet,
    oauth2::EndpointNotSet,
    oauth2::EndpointNotSet,
    oauth2::EndpointNotSet,
    oauth2::EndpointSet,
>;

impl Authorizer {
    pub(crate) fn new(config: OAuth, http: HttpClient, server: &str) -> Self {
        Authorizer {
            http,
            server: server.to_string(),
            current: Mutex::new(None),
            session: tokio::sync::Mutex::new(Session::default()),
            attempts: AtomicU32::new(0),
            refreshed: AtomicBool::new(false),
            dpop_key: Mutex::new(None),
            as_nonce: Arc::new(Mutex::new(None)),
            rs_nonce: Mutex::new(None),
            refused: Mutex::new(None),
            bound: Mutex::new(config.issuer.clone()),
            config,
        }
    }

    /// The `Authorization` value as it stands, without refreshing (for requests sent from
    /// drops and background tasks).
    pub(crate) fn current(&self) -> Option<String> {
        crate::wire::lock(&self.current)
            .as_ref()
            .map(|p| p.authorization.clone())
    }

    /// Present the current token on `req`: its `Authorization` header and, for a DPoP-bound
    /// token, a proof for this request.
    pub(crate) fn apply(&self, req: &mut hyper::Request<Full<Bytes>>) {
        let Some(presented) = crate::wire::lock(&self.current).clone() else {
            return;
        };
        if let Ok(value) = hyper::header::HeaderValue::from_str(&presented.authorization) {
            req.headers_mut()
                .insert(hyper::header::AUTHORIZATION, value);
        }
        if let Some(key) = &presented.dpop {
            let nonce = crate::wire::lock(&self.rs_nonce).clone();
            let url = req.uri().to_string();
            let proof = key.proof(
                req.method().as_str(),
                &url,
                Some(&presented.token),
                nonce.as_deref(),
            );
            if let Some(value) = proof
                .ok()
                .and_then(|p| hyper::header::HeaderValue::from_str(&p).ok())
            {
                req.headers_mut().insert("dpop", value);
            }
        }
    }

    /// A `DPoP-Nonce` the MCP server sent: later proofs carry it.
    pub(crate) fn server_nonce(&self, nonce: &str) {
        let mut held = crate::wire::lock(&self.rs_nonce);
        if held.as_deref() != Some(nonce) {
            *held = Some(nonce.to_string());
        }
    }

    pub(crate) fn set_current(&self, credentials: Option<&Credentials>) {
        let presented = credentials.filter(|c| !c.access_token.is_empty()).map(|c| {
            let dpop = c.token_type.eq_ignore_ascii_case("dpop");
            Presented {
                authorization: format!(
                    "{} {}",
                    if dpop { "DPoP" } else { "Bearer" },
                    c.access_token
                ),
                token: c.access_token.clone(),
                dpop: if dpop {
                    crate::wire::lock(&self.dpop_key).clone()
                } else {
                    None
                },
            }
        });
        *crate::wire::lock(&self.current) = presented;
    }

    /// The DPoP key: the one the stored tokens are bound to, else a new one.
    pub(crate) fn dpop_key(&self) -> Result<Arc<DpopKey>, ClientError> {
        let mut held = crate::wire::lock(&self.dpop_key);
        if let Some(key) = &*held {
            return Ok(key.clone());
        }
        let key = Arc::new(DpopKey::generate()?);
        *held = Some(key.clone());
        Ok(key)
    }

    /// The HTTP client of token requests: with DPoP proofs when `dpop`.
    pub(crate) fn token_http(&self, dpop: bool) -> Result<OAuthHttp, ClientError> {
        Ok(OAuthHttp {
            http: self.http.clone(),
            dpop: if dpop {
                Some((self.dpop_key()?, self.as_nonce.clone()))
            } else {
                None
            },
        })
    }

    /// Before a request: the stored credentials on first use, and a refresh when the token is
    /// about to expire. A token that is not due goes without waiting for the login lock.
    pub(crate) async fn refresh_if_due(&self) {
        let presenting = crate::wire::lock(&self.current).is_some();
        if presenting {
            if let Ok(session) = self.session.try_lock() {
                if !session.credentials.as_ref().is_some_and(due) {
                    return;
                }
            }
        }
        let mut session = self.session.lock().await;
        self.load(&mut session);
        if session.credentials.as_ref().is_some_and(due)
            && self.refresh(&mut session).await.is_err()
        {
            // The refresh token is spent: the next 401 logs in again.
            if let Some(c) = &mut session.credentials {
                c.access_token.clear();
                c.refresh_token = None;
            }
            self.set_current(session.credentials.as_ref());
        }
    }

    pub(crate) fn load(&self, session: &mut Session) {
        if !session.loaded {
            session.loaded = true;
            session.credentials = self.config.store.load(&self.server);
            let key = session
                .credentials
                .as_ref()
                .and_then(|c| c.dpop_key.as_deref())
                .and_then(|k| base64_simd::URL_SAFE_NO_PAD.decode_to_vec(k).ok())
                .and_then(|der| DpopKey::from_der(&der).ok());
            if let Some(key) = key {
                *crate::wire::lock(&self.dpop_key) = Some(Arc::new(key));
            }
            if let Some(c) = session
                .credentials
                .as_ref()
                .filter(|c| !c.issuer.is_empty())
            {
                crate::wire::lock(&self.bound).get_or_insert_with(|| c.issuer.clone());
            }
            self.set_current(session.credentials.as_ref());
        }
    }

    pub(crate) fn keep(
        &self,
        session: &mut Session,
        credentials: Credentials,
    ) -> Result<(), ClientError> {
        self.set_current(Some(&credentials));
        let saved = self.config.store.save(&self.server, &credentials);
        session.credentials = Some(credentials);
        saved.map_err(|e| ClientError::Login {
            step: LoginStep::Store,
            detail: "the token store failed".into(),
            cause: Some(Cause::of(e)),
        })
    }

    /// A request got past the server's check: the run of attempts is over.
    pub(crate) fn passed(&self) {
        if self.attempts.load(Ordering::Relaxed) != 0 {
            self.attempts.store(0, Ordering::Relaxed);
        }
        if self.refreshed.load(Ordering::Relaxed) {
            self.refreshed.store(false, Ordering::Relaxed);
        }
    }

    /// Answer a `401` or a `403 insufficient_scope` to a request sent with `sent` (its
    /// `Authorization` value): refresh or log in. `Ok(true)`: send the request again;
    /// `Ok(false)`: the answer is not a challenge this client meets (pass it on).
    pub(crate) async fn challenged(
        &self,
        status: u16,
        www_authenticate: Option<&str>,
        nonce: Option<&str>,
        sent: Option<&str>,
    ) -> Result<bool, ClientError> {
        let challenge = Challenge::parse(www_authenticate);
        // RFC 9449 §9: the server wants proofs with its nonce; a new nonce is worth one more
        // try, not an authorization.
        if challenge.error.as_deref() == Some("use_dpop_nonce") {
            if let Some(nonce) = nonce {
                let fresh = crate::wire::lock(&self.rs_nonce).as_deref() != Some(nonce);
                self.server_nonce(nonce);
                if fresh {
                    return Ok(true);
                }
            }
        }
        if status == 403 && challenge.error.as_deref() != Some("insufficient_scope") {
            return Ok(false);
        }
        if status != 401 && status != 403 {
            return Ok(false);
        }
        let mut session = self.session.lock().await;
        self.load(&mut session);
        // Another request logged in or refreshed meanwhile: try its token.
        if self.current().as_deref() != sent {
            return Ok(true);
        }
        let attempts = self.attempts.fetch_add(1, Ordering::Relaxed) + 1;
        if attempts > self.config.max_attempts {
            // The server still refuses after as many authorizations as the login allows.
            return Err(if status == 403 {
                ClientError::Forbidden {
                    scopes: challenge.scopes(),
                    challenge,
                }
            } else {
                ClientError::Unauthorized {
                    challenge,
                    logged_in: true,
                }
            });
        }
        if status == 401
            && !self.refreshed.load(Ordering::Relaxed)
            && self.refresh(&mut session).await.is_ok()
        {
            self.refreshed.store(true, Ordering::Relaxed);
            return Ok(true);
        }
        self.authorize(&mut session, &challenge).await?;
        self.refreshed.store(false, Ordering::Relaxed);
        Ok(true)
    }

    /// Log in now, without waiting for a challenge (discovery from the well-known URIs).
    pub(crate) async fn login(&self) -> Result<(), ClientError> {
        let mut session = self.session.lock().await;
        self.load(&mut session);
        self.authorize(&mut session, &Challenge::default()).await
    }

    /// Refresh the access token with the refresh token, if there is one.
    pub(crate) async fn refresh(&self, session: &mut Session) -> Result<(), ClientError> {
        let Some(mut credentials) = session.credentials.clone() else {
            return Err(login_error(LoginStep::Token, "no credentials"));
        };
        let Some(refresh) = credentials.refresh_token.clone() else {
            return Err(login_error(LoginStep::Token, "no refresh token"));
        };
        let client = self.token_client(&credentials)?;
        let refresh = RefreshToken::new(refresh);
        let http = self.token_http(credentials.dpop_key.is_some())?;
        let answer = client
            .exchange_refresh_token(&refresh)
            .add_extra_param("resource", credentials.resource.clone())
            .request_async(&http)
            .await
            .map_err(token_error)?;
        credentials.access_token = answer.access_token().secret().clone();
        credentials.token_type = token_type(answer.token_type());
        if let Some(r) = answer.refresh_token() {
            credentials.refresh_token = Some(r.secret().clone());
        }
        credentials.expires_at = answer.expires_in().map(|d| now() + d.as_secs());
        self.keep(session, credentials)
    }

    /// A client for the token endpoint with this registration.
    pub(crate) fn token_client(&self, c: &Credentials) -> Result<TokenClient, ClientError> {
        let token = TokenUrl::new(c.token_endpoint.clone()).map_err(|e| {
            login_error(
                LoginStep::Token,
                format!("token endpoint {}: {e}", c.token_endpoint),
            )
        })?;
        let mut client = BasicClient::new(ClientId::new(c.client_id.clone()))
            .set_token_uri(token)
            .set_auth_type(if c.auth_method == "client_secret_basic" {
                AuthType::BasicAuth
            } else {
                AuthType::RequestBody
            });
        if let (Some(secret), false) = (&c.client_secret, c.auth_method == "none") {
            client = client.set_client_secret(ClientSecret::new(secret.clone()));
        }
        Ok(client)
    }

    /// One HTTP exchange of the OAuth machinery, over the client's own HTTP client.
    pub(crate) async fn exchange(
        &self,
        req: oauth2::HttpRequest,
    ) -> Result<oauth2::HttpResponse, HttpFailure> {
        exchange(self.http.clone(), req).await
    }
}
