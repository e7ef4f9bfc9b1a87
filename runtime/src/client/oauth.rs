//! OAuth 2.1 for the client (feature `oauth`): a [`Client`](super::Client) given an [`OAuth`]
//! answers a server's `401` by logging in and sends its access token on every HTTP request.
//!
//! What it does, per the MCP authorization rules (2025-03-26 to 2026-07-28):
//! - **Discovery.** The Protected Resource Metadata named by the challenge's
//!   `resource_metadata`, else at the well-known URIs (path, then root); its `resource` must be
//!   the server's. The authorization server's metadata (RFC 8414, then OpenID discovery, with a
//!   path-aware well-known URI), whose `issuer` must be the one it was looked up by. A server
//!   without metadata (2025-03-26) is its own authorization server, with `/authorize`, `/token`
//!   and `/register` at its root.
//! - **The client's identity.** Pre-registered credentials ([`OAuth::pre_registered`]), else a
//!   Client ID Metadata Document ([`OAuth::metadata_document`]) where the server supports one,
//!   else dynamic registration (RFC 7591). A registration belongs to its authorization server:
//!   when the resource moves to another, the client registers again.
//! - **Authorization.** The authorization code grant with PKCE (S256) and the `resource`
//!   indicator (RFC 8707); the scope from the challenge, else the resource's
//!   `scopes_supported`, else none, joined with the scopes asked for before (step-up on a `403
//!   insufficient_scope`), and `offline_access` when the authorization server offers it; the
//!   redirect's `state` and `iss` (RFC 9207) checked. For a machine client: the client
//!   credentials grant with a secret or a signed assertion ([`OAuth::client_credentials`],
//!   [`OAuth::client_credentials_jwt`]), a workload identity's JWT (RFC 7523,
//!   [`OAuth::workload_identity`]), or enterprise-managed authorization, where an identity
//!   provider exchanges the user's ID token for an authorization grant (RFC 8693, ID-JAG,
//!   [`OAuth::enterprise`]).
//! - **DPoP** (RFC 9449). Where the authorization server offers it, tokens are bound to a key
//!   the client holds: every request carries a fresh proof, and the servers' nonces are used.
//! - **Tokens.** Sent as `Authorization: Bearer` (or `DPoP`); refreshed shortly before they
//!   expire and once on a `401`, never on every call; kept in a [`TokenStore`] ([`MemoryStore`]
//!   by default, or [`FileStore`]). A run of failed attempts stops after a limit ([`OAuth::max_attempts`]).
//!
//! The host shows the user the authorization page through an [`AuthorizationHandler`]:
//! [`Loopback`] for a desktop host (it opens nothing itself: the host's callback shows the URL
//! or starts a browser), or its own.

mod proof;

use super::{causes, ClientError, HttpClient};
use crate::wire::BoxFuture;
use http_body_util::{BodyExt, Full};
use hyper::body::Bytes;
use oauth2::basic::BasicClient;
/// The URL type of [`AuthorizationHandler`] (the `url` crate's, as the `oauth2` crate uses it).
pub use oauth2::url::Url;
use oauth2::{
    AuthType, AuthUrl, AuthorizationCode, ClientId, ClientSecret, CsrfToken, PkceCodeChallenge,
    RedirectUrl, RefreshToken, RequestTokenError, Scope, TokenResponse, TokenUrl,
};
use proof::{AssertionKey, DpopKey};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// How long before its expiry an access token is refreshed.
const REFRESH_MARGIN: Duration = Duration::from_secs(30);

/// The largest metadata or token document read.
const MAX_DOCUMENT: usize = 1024 * 1024;

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

/// Where access tokens, refresh tokens and registrations are kept between runs, by the MCP
/// server's URL.
pub trait TokenStore: Send + Sync + 'static {
    /// The credentials kept for `resource`, if any.
    fn load(&self, resource: &str) -> Option<Credentials>;
    /// Keep `credentials` for `resource`, replacing what was there.
    fn save(&self, resource: &str, credentials: &Credentials) -> std::io::Result<()>;
}

/// What the client holds for one MCP server: its registration with the authorization server
/// and its tokens.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Credentials {
    /// The authorization server's issuer identifier: a registration and its tokens are used
    /// with this server only.
    pub issuer: String,
    /// The token endpoint, for refreshing.
    pub token_endpoint: String,
    /// The resource indicator the tokens were issued for.
    pub resource: String,
    /// The client's id at the authorization server.
    pub client_id: String,
    /// The client's secret, for a confidential registration.
    pub client_secret: Option<String>,
    /// How the client authenticates at the token endpoint: `client_secret_basic`,
    /// `client_secret_post` or `none`.
    pub auth_method: String,
    /// The scopes asked for, space-separated.
    pub scope: String,
    /// The access token (empty when the client holds a registration only).
    pub access_token: String,
    /// How the token is presented: `Bearer`, or `DPoP` for a token bound to
    /// [`Credentials::dpop_key`].
    #[serde(default = "bearer")]
    pub token_type: String,
    /// The private key (PKCS #8 DER, base64url) a `DPoP` token is bound to.
    #[serde(default)]
    pub dpop_key: Option<String>,
    /// The refresh token, if one was issued.
    pub refresh_token: Option<String>,
    /// When the access token expires, in seconds since the Unix epoch, if the server said.
    pub expires_at: Option<u64>,
}

impl Credentials {
    fn empty() -> Self {
        Credentials {
            issuer: String::new(),
            token_endpoint: String::new(),
            resource: String::new(),
            client_id: String::new(),
            client_secret: None,
            auth_method: "none".to_string(),
            scope: String::new(),
            access_token: String::new(),
            token_type: bearer(),
            dpop_key: None,
            refresh_token: None,
            expires_at: None,
        }
    }
}

impl std::fmt::Debug for Credentials {
    /// Secrets and tokens are not printed.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Credentials")
            .field("issuer", &self.issuer)
            .field("resource", &self.resource)
            .field("client_id", &self.client_id)
            .field("auth_method", &self.auth_method)
            .field("scope", &self.scope)
            .field("expires_at", &self.expires_at)
            .finish_non_exhaustive()
    }
}

fn bearer() -> String {
    "Bearer".to_string()
}

/// Credentials kept in memory, for the life of the process (the default store).
#[derive(Default)]
pub struct MemoryStore(Mutex<BTreeMap<String, Credentials>>);

impl TokenStore for MemoryStore {
    fn load(&self, resource: &str) -> Option<Credentials> {
        crate::wire::lock(&self.0).get(resource).cloned()
    }

    fn save(&self, resource: &str, credentials: &Credentials) -> std::io::Result<()> {
        crate::wire::lock(&self.0).insert(resource.to_string(), credentials.clone());
        Ok(())
    }
}

/// Credentials kept in a JSON file (readable by its owner only, on Unix), so a host logs in
/// once across runs. The file is read and rewritten whole on each save.
pub struct FileStore {
    path: PathBuf,
    lock: Mutex<()>,
}

impl FileStore {
    /// A store in the file at `path` (created on the first save).
    pub fn new(path: impl Into<PathBuf>) -> Self {
        FileStore {
            path: path.into(),
            lock: Mutex::new(()),
        }
    }

    fn read(&self) -> BTreeMap<String, Credentials> {
        std::fs::read(&self.path)
            .ok()
            .and_then(|bytes| serde_json::from_slice(&bytes).ok())
            .unwrap_or_default()
    }
}

impl TokenStore for FileStore {
    fn load(&self, resource: &str) -> Option<Credentials> {
        let _held = crate::wire::lock(&self.lock);
        self.read().remove(resource)
    }

    fn save(&self, resource: &str, credentials: &Credentials) -> std::io::Result<()> {
        let _held = crate::wire::lock(&self.lock);
        let mut all = self.read();
        all.insert(resource.to_string(), credentials.clone());
        let text = serde_json::to_vec_pretty(&all).map_err(std::io::Error::other)?;
        write_private(&self.path, &text)
    }
}

/// Write `bytes` to `path` so that nobody but the owner can read them, and nothing planted
/// beside it receives them: into a new file of a random name in the same folder, created
/// exclusively (`O_CREAT | O_EXCL`, which never follows a link, and fails on anything already
/// there) with owner-only permissions, then renamed over `path` (a rename replaces a link at
/// `path` itself, never its target). A reader never sees half a file.
fn write_private(path: &std::path::Path, bytes: &[u8]) -> std::io::Result<()> {
    use std::io::Write;
    let name = path
        .file_name()
        .ok_or_else(|| std::io::Error::other("the token store's path names no file"))?;
    let random = crate::wire::random_id()
        .ok_or_else(|| std::io::Error::other("no random name could be made"))?;
    let mut tmp_name = std::ffi::OsString::from(".");
    tmp_name.push(name);
    tmp_name.push(format!(".{random}.tmp"));
    let tmp = path.with_file_name(tmp_name);
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    let written = options.open(&tmp).and_then(|mut file| {
        file.write_all(bytes)?;
        file.sync_all()
    });
    let renamed = written.and_then(|()| std::fs::rename(&tmp, path));
    if renamed.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    renamed
}

/// Where a host's assertions come from: a workload's identity token, or a user's ID token
/// (read again on each login, so a token the platform rotates is picked up).
pub type AssertionSource = Arc<dyn Fn() -> BoxFuture<Result<String, ClientError>> + Send + Sync>;

/// Enterprise-managed authorization: the user's identity provider vouches for them to the
/// MCP server's authorization server.
#[derive(Clone)]
pub struct Enterprise {
    /// The identity provider's token endpoint, which exchanges an ID token for an ID-JAG.
    pub idp_token_endpoint: String,
    /// The client's id at the identity provider.
    pub idp_client_id: String,
    /// The client's secret at the identity provider, if it has one.
    pub idp_client_secret: Option<String>,
    /// The user's ID token from the identity provider.
    pub id_token: AssertionSource,
}

/// How the client obtains tokens.
#[derive(Clone)]
enum Grant {
    /// The authorization code grant, the user approving through the host's handler.
    Code(Arc<dyn AuthorizationHandler>),
    /// The client credentials grant: the client acts for itself, authenticated by its secret
    /// or by an assertion signed with its key.
    ClientCredentials(Option<Arc<AssertionKey>>),
    /// The JWT bearer grant (RFC 7523) with a workload's identity token.
    Workload(AssertionSource),
    /// The JWT bearer grant with an ID-JAG the identity provider issues for the user.
    Enterprise(Enterprise),
}

/// The client assertion type of `private_key_jwt` (RFC 7523).
const CLIENT_ASSERTION: &str = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer";

/// The JWT bearer grant type (RFC 7523).
const JWT_BEARER: &str = "urn:ietf:params:oauth:grant-type:jwt-bearer";

/// How a client logs in to OAuth-protected MCP servers; given to
/// [`Client::oauth`](super::Client::oauth).
#[derive(Clone)]
pub struct OAuth {
    grant: Grant,
    client_name: String,
    application_type: String,
    pre_registered: Option<(String, Option<String>)>,
    /// The authorization server the configured credentials belong to, if the host named it.
    issuer: Option<String>,
    metadata_document: Option<String>,
    offline_access: bool,
    dpop: bool,
    max_attempts: u32,
    store: Arc<dyn TokenStore>,
}

impl OAuth {
    /// The defaults, with `grant`: no refresh token asked for but by a user's login.
    fn with_grant(grant: Grant) -> Self {
        OAuth {
            offline_access: matches!(grant, Grant::Code(_)),
            grant,
            client_name: "oxmcp client".to_string(),
            application_type: "native".to_string(),
            pre_registered: None,
            issuer: None,
            metadata_document: None,
            dpop: true,
            max_attempts: 3,
            store: Arc::new(MemoryStore::default()),
        }
    }

    /// Log in with the authorization code grant, the user approving through `handler`.
    pub fn authorization_code(handler: impl AuthorizationHandler) -> Self {
        OAuth::with_grant(Grant::Code(Arc::new(handler)))
    }

    /// Log in with the client credentials grant, as the client itself (no user), with
    /// credentials registered beforehand.
    pub fn client_credentials(client_id: &str, client_secret: &str) -> Self {
        OAuth::with_grant(Grant::ClientCredentials(None))
            .pre_registered(client_id, Some(client_secret))
    }

    /// Log in with the client credentials grant, the client authenticating with an assertion
    /// signed by its private key (`private_key_jwt`) rather than a secret: `private_key_pem`
    /// for the JWS `algorithm` (`ES256`, `RS256`, `EdDSA`, ...).
    pub fn client_credentials_jwt(
        client_id: &str,
        private_key_pem: &str,
        algorithm: &str,
    ) -> Result<Self, ClientError> {
        let key = AssertionKey::from_pem(private_key_pem, algorithm)?;
        Ok(
            OAuth::with_grant(Grant::ClientCredentials(Some(Arc::new(key))))
                .pre_registered(client_id, None),
        )
    }

    /// Log in as a workload with the JWT bearer grant (RFC 7523): `assertion` gives the
    /// workload's identity token (e.g. a platform's projected service account token). A
    /// refused assertion is final: the client does not try it again, nor another grant.
    pub fn workload_identity(
        client_id: &str,
        assertion: impl Fn() -> BoxFuture<Result<String, ClientError>> + Send + Sync + 'static,
    ) -> Self {
        OAuth::with_grant(Grant::Workload(Arc::new(assertion))).pre_registered(client_id, None)
    }

    /// Log in with enterprise-managed authorization: the identity provider exchanges the
    /// user's ID token for an ID-JAG (RFC 8693), which the MCP server's authorization server
    /// takes with the JWT bearer grant, the client authenticating with the credentials it has
    /// there (`client_id`, `client_secret`).
    pub fn enterprise(idp: Enterprise, client_id: &str, client_secret: Option<&str>) -> Self {
        OAuth::with_grant(Grant::Enterprise(idp)).pre_registered(client_id, client_secret)
    }

    /// Whether to bind tokens to a key with DPoP where the authorization server offers it
    /// (default: yes).
    pub fn dpop(mut self, use_it: bool) -> Self {
        self.dpop = use_it;
        self
    }

    /// The name the client registers under (dynamic registration's `client_name`).
    pub fn client_name(mut self, name: &str) -> Self {
        self.client_name = name.to_string();
        self
    }

    /// The `application_type` registered: `native` (the default: a desktop or command-line
    /// host with a loopback redirect) or `web`.
    pub fn application_type(mut self, kind: &str) -> Self {
        self.application_type = kind.to_string();
        self
    }

    /// Credentials registered with the authorization server beforehand: used instead of
    /// registering.
    pub fn pre_registered(mut self, client_id: &str, client_secret: Option<&str>) -> Self {
        self.pre_registered = Some((client_id.to_string(), client_secret.map(str::to_string)));
        self
    }

    /// The authorization server (its issuer identifier, exactly as its metadata states it) the
    /// configured credentials belong to: a pre-registered client's id and secret, a client
    /// credentials secret or signing key, a workload's or a user's assertion. They are sent to
    /// this server's token endpoint only; a resource whose metadata names another server is
    /// refused with [`ClientError::IssuerMismatch`]. Without it, the first server the client
    /// logs in to (or the one its stored credentials name) is the one they stay bound to.
    pub fn issuer(mut self, issuer: &str) -> Self {
        self.issuer = Some(issuer.to_string());
        self
    }

    /// Whether this login sends credentials the host configured (a secret, a key's assertion,
    /// an identity token), which must go to their own authorization server only. A login that
    /// registers dynamically gets a registration per server instead.
    fn configured_credentials(&self) -> bool {
        self.pre_registered.is_some() || !matches!(self.grant, Grant::Code(_))
    }

    /// The HTTPS URL of this client's Client ID Metadata Document, used as its `client_id` by
    /// authorization servers that support such documents (the host publishes the document).
    pub fn metadata_document(mut self, url: &str) -> Self {
        self.metadata_document = Some(url.to_string());
        self
    }

    /// Whether to ask for `offline_access` (a refresh token) when the authorization server
    /// offers it (default: yes).
    pub fn offline_access(mut self, ask: bool) -> Self {
        self.offline_access = ask;
        self
    }

    /// How many authorizations in a row may fail to satisfy the server before requests fail
    /// with [`ClientError::Unauthorized`] (default 3): a server whose challenges can never be
    /// met does not keep the user approving.
    pub fn max_attempts(mut self, n: u32) -> Self {
        self.max_attempts = n.max(1);
        self
    }

    /// Where credentials are kept (default: [`MemoryStore`]).
    pub fn store(mut self, store: impl TokenStore) -> Self {
        self.store = Arc::new(store);
        self
    }
}

/// A `Bearer` or `DPoP` challenge's parameters (`WWW-Authenticate`).
#[derive(Debug, Default)]
struct Challenge {
    resource_metadata: Option<String>,
    scope: Option<String>,
    error: Option<String>,
}

impl Challenge {
    /// The `Bearer` (or `DPoP`) challenge among those of a `WWW-Authenticate` value (none if
    /// there is no such challenge or the value does not parse).
    fn parse(value: Option<&str>) -> Challenge {
        let mut found = Challenge::default();
        let Some(challenges) = value.and_then(|v| http_auth::parse_challenges(v).ok()) else {
            return found;
        };
        for challenge in challenges {
            if !challenge.scheme.eq_ignore_ascii_case("bearer")
                && !challenge.scheme.eq_ignore_ascii_case("dpop")
            {
                continue;
            }
            for (name, value) in &challenge.params {
                let value = Some(value.to_unescaped());
                match name.to_ascii_lowercase().as_str() {
                    "resource_metadata" => found.resource_metadata = value,
                    "scope" => found.scope = value,
                    "error" => found.error = value,
                    _ => {}
                }
            }
        }
        found
    }
}

/// An authorization server, as its metadata (or the 2025-03-26 defaults) describes it.
#[derive(Debug, Clone)]
struct AuthServer {
    /// The issuer identifier, exactly as the metadata states it; `None` for a server without
    /// metadata.
    issuer: Option<String>,
    authorization_endpoint: String,
    token_endpoint: String,
    registration_endpoint: Option<String>,
    scopes_supported: Option<Vec<String>>,
    auth_methods: Option<Vec<String>>,
    metadata_documents: bool,
    iss_parameter: bool,
    /// It binds tokens to DPoP proofs signed with ES256.
    dpop: bool,
    /// It supports PKCE with S256 (a server without metadata is assumed to).
    pkce_s256: bool,
}

impl AuthServer {
    /// The key a registration is kept under: the issuer, or for a server without metadata its
    /// token endpoint.
    fn key(&self) -> &str {
        self.issuer.as_deref().unwrap_or(&self.token_endpoint)
    }
}

/// What discovery found: the resource to ask tokens for and who issues them.
#[derive(Debug)]
struct Discovered {
    resource: String,
    scopes_supported: Option<Vec<String>>,
    server: AuthServer,
}

/// The client's registration at one authorization server.
struct Registration {
    client_id: String,
    client_secret: Option<String>,
    auth_method: String,
}

/// The state a login changes, behind one lock so that concurrent requests log in once.
#[derive(Default)]
struct Session {
    loaded: bool,
    credentials: Option<Credentials>,
}

/// A client's OAuth state for one MCP server.
pub(crate) struct Authorizer {
    config: OAuth,
    http: HttpClient,
    /// The MCP server's URL (tokens are kept under it).
    server: String,
    /// The token to present, read without waiting.
    current: Mutex<Option<Presented>>,
    session: tokio::sync::Mutex<Session>,
    /// The key DPoP proofs are signed with, once there is one.
    dpop_key: Mutex<Option<Arc<DpopKey>>>,
    /// The nonces the authorization server and the MCP server last asked proofs to carry.
    as_nonce: Arc<Mutex<Option<String>>>,
    rs_nonce: Mutex<Option<String>>,
    /// Why an assertion grant was refused: final, it is not tried again.
    refused: Mutex<Option<ClientError>>,
    /// Authorizations since a request last got past the server's check.
    attempts: AtomicU32,
    /// The token was refreshed after a `401` and has not got a request past the check since:
    /// another `401` means a new authorization.
    refreshed: AtomicBool,
    /// The authorization server the configured credentials are bound to: the configured one,
    /// else the one of the stored credentials, else the first one logged in to.
    bound: Mutex<Option<String>>,
}

/// A token as requests present it.
#[derive(Clone)]
struct Presented {
    /// `Bearer <token>` or `DPoP <token>`.
    authorization: String,
    token: String,
    /// The key of a DPoP-bound token.
    dpop: Option<Arc<DpopKey>>,
}

use crate::wire::unix_seconds as now;

/// Whether `c`'s access token is to be refreshed now: it expires within the margin and there
/// is a refresh token.
fn due(c: &Credentials) -> bool {
    c.refresh_token.is_some()
        && c.expires_at
            .is_some_and(|at| now() + REFRESH_MARGIN.as_secs() >= at)
}

fn unauthorized(text: impl Into<String>) -> ClientError {
    ClientError::Unauthorized(text.into())
}

/// A failed HTTP exchange of the OAuth machinery (its `source()` is the cause).
#[derive(Debug)]
struct HttpFailure(String);

impl std::fmt::Display for HttpFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for HttpFailure {}

/// One HTTP exchange over `http`, its body read whole (up to a limit).
async fn exchange(
    http: HttpClient,
    req: oauth2::HttpRequest,
) -> Result<oauth2::HttpResponse, HttpFailure> {
    let url = req.uri().to_string();
    let req = req.map(|body| Full::new(Bytes::from(body)));
    let resp = http
        .request(req)
        .await
        .map_err(|e| HttpFailure(format!("{url}: {}", causes(&e))))?;
    let (parts, body) = resp.into_parts();
    let body = http_body_util::Limited::new(body, MAX_DOCUMENT)
        .collect()
        .await
        .map_err(|e| HttpFailure(format!("{url}: {e}")))?
        .to_bytes();
    Ok(oauth2::HttpResponse::from_parts(parts, body.to_vec()))
}

/// A DPoP key and the nonce the authorization server last asked its proofs to carry.
type DpopSigner = (Arc<DpopKey>, Arc<Mutex<Option<String>>>);

/// The client's HTTP client as token requests use it: with a DPoP proof on each, when the
/// tokens are to be bound, retried once with the nonce the server asks for (RFC 9449 §8).
struct OAuthHttp {
    http: HttpClient,
    dpop: Option<DpopSigner>,
}

impl OAuthHttp {
    async fn send(
        http: HttpClient,
        dpop: Option<DpopSigner>,
        request: oauth2::HttpRequest,
    ) -> Result<oauth2::HttpResponse, HttpFailure> {
        let Some((key, nonce)) = dpop else {
            return exchange(http, request).await;
        };
        let (parts, body) = request.into_parts();
        let url = parts.uri.to_string();
        let mut retried = false;
        loop {
            let held = crate::wire::lock(&nonce).clone();
            let proof = key
                .proof(parts.method.as_str(), &url, None, held.as_deref())
                .map_err(|e| HttpFailure(e.to_string()))?;
            let mut req = oauth2::HttpRequest::new(body.clone());
            *req.method_mut() = parts.method.clone();
            *req.uri_mut() = parts.uri.clone();
            *req.headers_mut() = parts.headers.clone();
            if let Ok(value) = hyper::header::HeaderValue::from_str(&proof) {
                req.headers_mut().insert("dpop", value);
            }
            let resp = exchange(http.clone(), req).await?;
            let asked = resp
                .headers()
                .get("dpop-nonce")
                .and_then(|v| v.to_str().ok())
                .map(str::to_string);
            if let Some(asked) = &asked {
                *crate::wire::lock(&nonce) = Some(asked.clone());
            }
            let wants_nonce = resp.status() == 400
                && serde_json::from_slice::<Value>(resp.body())
                    .ok()
                    .is_some_and(|b| b["error"] == "use_dpop_nonce");
            if wants_nonce && asked.is_some() && !retried {
                retried = true;
                continue;
            }
            return Ok(resp);
        }
    }
}

impl<'c> oauth2::AsyncHttpClient<'c> for OAuthHttp {
    type Error = HttpFailure;
    type Future = BoxFuture<Result<oauth2::HttpResponse, HttpFailure>>;

    fn call(&'c self, request: oauth2::HttpRequest) -> Self::Future {
        Box::pin(Self::send(self.http.clone(), self.dpop.clone(), request))
    }
}

/// How a token response says its token is presented.
fn token_type(t: &oauth2::basic::BasicTokenType) -> String {
    match t {
        oauth2::basic::BasicTokenType::Bearer => "Bearer".to_string(),
        oauth2::basic::BasicTokenType::Extension(e) if e.eq_ignore_ascii_case("dpop") => {
            "DPoP".to_string()
        }
        other => other.as_ref().to_string(),
    }
}

/// A token endpoint's refusal or failure, in words.
fn token_error<RE: std::error::Error + 'static, T: oauth2::ErrorResponse + 'static>(
    e: RequestTokenError<RE, T>,
) -> ClientError {
    match e {
        RequestTokenError::ServerResponse(r) => {
            unauthorized(format!("the token endpoint refused: {r}"))
        }
        RequestTokenError::Request(r) => ClientError::Transport(format!("token endpoint: {r}")),
        RequestTokenError::Parse(p, _) => {
            unauthorized(format!("the token endpoint's answer does not parse: {p}"))
        }
        RequestTokenError::Other(o) => unauthorized(format!("token endpoint: {o}")),
    }
}

/// Strings of a JSON array member.
fn strings(v: &Value, key: &str) -> Option<Vec<String>> {
    v.get(key)?.as_array().map(|a| {
        a.iter()
            .filter_map(Value::as_str)
            .map(str::to_string)
            .collect()
    })
}

/// Whether `resource` (a Protected Resource Metadata's) is one of the resource `identifiers`
/// its metadata URL was derived from (RFC 9728 §3.3): the same URL, compared once parsed (so
/// the case of the scheme and host and a default port do not count, but every path segment,
/// the query and a trailing slash do). A parent of the server's URL is not the server.
fn resource_matches(resource: &str, identifiers: &[Url]) -> bool {
    let Ok(mut resource) = Url::parse(resource) else {
        return false;
    };
    if resource.fragment().is_some() {
        return false;
    }
    resource.set_fragment(None);
    identifiers.iter().any(|id| {
        let mut id = id.clone();
        id.set_fragment(None);
        id == resource
    })
}

/// Refuses an authorization server endpoint that is not HTTPS: the authorization rules require
/// every one to be, since the client sends it codes, secrets and refresh tokens. A loopback
/// host (`127.0.0.0/8`, `::1`, `localhost`) may use plain HTTP, for development and tests.
fn secure_endpoint(url: &Url, what: &str) -> Result<(), ClientError> {
    let loopback = match url.host() {
        Some(oauth2::url::Host::Ipv4(ip)) => ip.is_loopback(),
        Some(oauth2::url::Host::Ipv6(ip)) => ip.is_loopback(),
        Some(oauth2::url::Host::Domain(d)) => {
            let d = d.trim_end_matches('.').to_ascii_lowercase();
            d == "localhost" || d.ends_with(".localhost")
        }
        None => false,
    };
    match url.scheme() {
        "https" => Ok(()),
        "http" if loopback => Ok(()),
        _ => Err(unauthorized(format!(
            "the authorization server's {what} {url} is not HTTPS (only a loopback host may use plain HTTP)"
        ))),
    }
}

/// Where an authorization server's metadata may be, in the order to try: RFC 8414's
/// path-inserted URI, then OpenID Connect discovery's two forms.
fn metadata_urls(issuer: &Url) -> Vec<Url> {
    let path = issuer.path().trim_end_matches('/');
    let with = |p: &str| {
        let mut u = issuer.clone();
        u.set_path(p);
        u.set_query(None);
        u.set_fragment(None);
        u
    };
    if path.is_empty() {
        vec![
            with("/.well-known/oauth-authorization-server"),
            with("/.well-known/openid-configuration"),
        ]
    } else {
        vec![
            with(&format!("/.well-known/oauth-authorization-server{path}")),
            with(&format!("/.well-known/openid-configuration{path}")),
            with(&format!("{path}/.well-known/openid-configuration")),
        ]
    }
}

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

    fn set_current(&self, credentials: Option<&Credentials>) {
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
    fn dpop_key(&self) -> Result<Arc<DpopKey>, ClientError> {
        let mut held = crate::wire::lock(&self.dpop_key);
        if let Some(key) = &*held {
            return Ok(key.clone());
        }
        let key = Arc::new(DpopKey::generate()?);
        *held = Some(key.clone());
        Ok(key)
    }

    /// The HTTP client of token requests: with DPoP proofs when `dpop`.
    fn token_http(&self, dpop: bool) -> Result<OAuthHttp, ClientError> {
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

    fn load(&self, session: &mut Session) {
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

    fn keep(&self, session: &mut Session, credentials: Credentials) -> Result<(), ClientError> {
        self.set_current(Some(&credentials));
        let saved = self.config.store.save(&self.server, &credentials);
        session.credentials = Some(credentials);
        saved.map_err(|e| unauthorized(format!("the token store failed: {e}")))
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
            return Err(unauthorized(format!(
                "the server still refuses after {} authorizations (HTTP {status}{})",
                self.config.max_attempts,
                challenge
                    .error
                    .as_deref()
                    .map(|e| format!(", {e}"))
                    .unwrap_or_default()
            )));
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
    async fn refresh(&self, session: &mut Session) -> Result<(), ClientError> {
        let Some(mut credentials) = session.credentials.clone() else {
            return Err(unauthorized("no credentials"));
        };
        let Some(refresh) = credentials.refresh_token.clone() else {
            return Err(unauthorized("no refresh token"));
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
    fn token_client(
        &self,
        c: &Credentials,
    ) -> Result<
        BasicClient<
            oauth2::EndpointNotSet,
            oauth2::EndpointNotSet,
            oauth2::EndpointNotSet,
            oauth2::EndpointNotSet,
            oauth2::EndpointSet,
        >,
        ClientError,
    > {
        let token = TokenUrl::new(c.token_endpoint.clone())
            .map_err(|e| unauthorized(format!("token endpoint {}: {e}", c.token_endpoint)))?;
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
    async fn exchange(
        &self,
        req: oauth2::HttpRequest,
    ) -> Result<oauth2::HttpResponse, HttpFailure> {
        exchange(self.http.clone(), req).await
    }

    /// GET a JSON document: `None` when the server has none there (any non-2xx answer).
    async fn document(&self, url: &str) -> Result<Option<Value>, ClientError> {
        let req = hyper::Request::get(url)
            .header("accept", "application/json")
            .header("mcp-protocol-version", super::LATEST_PROTOCOL_VERSION)
            .body(Vec::new())
            .map_err(|e| ClientError::Transport(format!("{url}: {e}")))?;
        let resp = self
            .exchange(req)
            .await
            .map_err(|e| ClientError::Transport(e.0))?;
        if !resp.status().is_success() {
            return Ok(None);
        }
        serde_json::from_slice(resp.body())
            .map(Some)
            .map_err(|e| unauthorized(format!("{url}: not a JSON document: {e}")))
    }

    /// Find the resource's metadata and its authorization server. The metadata comes from the
    /// URL the challenge names, when that URL is HTTPS (or HTTP on a loopback host) on the MCP
    /// server's own origin; else from the well-known URIs derived from the server's URL (path,
    /// then root). Its `resource` must be the identifier its URL was derived from (RFC 9728
    /// §3.3): the server's URL, or for the root well-known URI the server's origin.
    async fn discover(&self, challenge: &Challenge) -> Result<Discovered, ClientError> {
        let server = Url::parse(&self.server)
            .map_err(|e| ClientError::Transport(format!("{}: {e}", self.server)))?;
        // Each candidate with the resource identifiers its metadata may name.
        let mut candidates: Vec<(String, Vec<Url>)> = Vec::new();
        if let Some(named) = &challenge.resource_metadata {
            match Url::parse(named) {
                Ok(url) if url.origin() == server.origin() && secure_endpoint(&url, "").is_ok() => {
                    candidates.push((named.clone(), vec![server.clone()]));
                }
                _ => tracing::warn!(
                    resource_metadata = %named,
                    server = %self.server,
                    "the challenge names resource metadata off the server's origin or not over HTTPS; not fetched, looking at the well-known URIs instead"
                ),
            }
        }
        if candidates.is_empty() {
            let path = server.path().trim_end_matches('/');
            let mut at = server.clone();
            at.set_query(None);
            at.set_fragment(None);
            if !path.is_empty() {
                at.set_path(&format!("/.well-known/oauth-protected-resource{path}"));
                candidates.push((at.to_string(), vec![server.clone()]));
            }
            at.set_path("/.well-known/oauth-protected-resource");
            let mut origin = server.clone();
            origin.set_path("/");
            origin.set_query(None);
            origin.set_fragment(None);
            candidates.push((at.to_string(), vec![server.clone(), origin]));
        }
        let mut metadata = None;
        for (url, identifiers) in candidates {
            if let Some(found) = self.document(&url).await? {
                metadata = Some((found, identifiers));
                break;
            }
        }
        let Some((metadata, identifiers)) = metadata else {
            // A 2025-03-26 server: it is its own authorization server.
            let origin = server.origin().ascii_serialization();
            return Ok(Discovered {
                resource: server.to_string(),
                scopes_supported: None,
                server: self.auth_server(&origin, true).await?,
            });
        };
        let resource = metadata
            .get("resource")
            .and_then(Value::as_str)
            .ok_or_else(|| unauthorized("the protected resource metadata names no resource"))?;
        if !resource_matches(resource, &identifiers) {
            return Err(unauthorized(format!(
                "the protected resource metadata is for {resource}, not {}",
                self.server
            )));
        }
        let issuer = metadata
            .get("authorization_servers")
            .and_then(|a| a.get(0))
            .and_then(Value::as_str)
            .ok_or_else(|| {
                unauthorized("the protected resource metadata names no authorization server")
            })?;
        Ok(Discovered {
            resource: resource.to_string(),
            scopes_supported: strings(&metadata, "scopes_supported"),
            server: self.auth_server(issuer, false).await?,
        })
    }

    /// The authorization server `issuer`'s metadata; for a 2025-03-26 server (`fallback`), the
    /// default endpoints when it has none.
    async fn auth_server(&self, issuer: &str, fallback: bool) -> Result<AuthServer, ClientError> {
        let base = Url::parse(issuer)
            .map_err(|e| unauthorized(format!("authorization server {issuer}: {e}")))?;
        secure_endpoint(&base, "issuer")?;
        for url in metadata_urls(&base) {
            let Some(m) = self.document(url.as_str()).await? else {
                continue;
            };
            let stated = m.get("issuer").and_then(Value::as_str).unwrap_or_default();
            if stated != issuer {
                return Err(unauthorized(format!(
                    "the authorization server metadata at {url} is for issuer {stated:?}, not {issuer:?}"
                )));
            }
            let endpoint = |key: &str| {
                let at = m
                    .get(key)
                    .and_then(Value::as_str)
                    .ok_or_else(|| unauthorized(format!("{url} has no {key}")))?;
                let parsed = Url::parse(at)
                    .map_err(|e| unauthorized(format!("{url}: {key} {at:?}: {e}")))?;
                secure_endpoint(&parsed, key)?;
                Ok::<_, ClientError>(at.to_string())
            };
            return Ok(AuthServer {
                pkce_s256: strings(&m, "code_challenge_methods_supported")
                    .is_some_and(|p| p.iter().any(|p| p == "S256")),
                issuer: Some(stated.to_string()),
                authorization_endpoint: endpoint("authorization_endpoint")?,
                token_endpoint: endpoint("token_endpoint")?,
                registration_endpoint: m
                    .get("registration_endpoint")
                    .is_some()
                    .then(|| endpoint("registration_endpoint"))
                    .transpose()?,
                scopes_supported: strings(&m, "scopes_supported"),
                auth_methods: strings(&m, "token_endpoint_auth_methods_supported"),
                metadata_documents: m
                    .get("client_id_metadata_document_supported")
                    .and_then(Value::as_bool)
                    .unwrap_or(false),
                iss_parameter: m
                    .get("authorization_response_iss_parameter_supported")
                    .and_then(Value::as_bool)
                    .unwrap_or(false),
                dpop: strings(&m, "dpop_signing_alg_values_supported")
                    .is_some_and(|algs| algs.iter().any(|a| a == "ES256")),
            });
        }
        if !fallback {
            return Err(unauthorized(format!(
                "the authorization server {issuer} publishes no metadata"
            )));
        }
        let at = |path: &str| {
            let mut u = base.clone();
            u.set_path(path);
            u.to_string()
        };
        Ok(AuthServer {
            issuer: None,
            authorization_endpoint: at("/authorize"),
            token_endpoint: at("/token"),
            registration_endpoint: Some(at("/register")),
            scopes_supported: None,
            auth_methods: None,
            metadata_documents: false,
            iss_parameter: false,
            dpop: false,
            pkce_s256: true,
        })
    }

    /// The token endpoint authentication to use with a secret (or without one), from what
    /// the server supports (RFC 8414's default: `client_secret_basic`).
    fn auth_method(server: &AuthServer, has_secret: bool) -> String {
        let supported = server
            .auth_methods
            .clone()
            .unwrap_or_else(|| vec!["client_secret_basic".to_string()]);
        let order: &[&str] = if has_secret {
            &["client_secret_basic", "client_secret_post", "none"]
        } else {
            &["none"]
        };
        order
            .iter()
            .find(|m| supported.iter().any(|s| s == *m))
            .unwrap_or(&order[0])
            .to_string()
    }

    /// The client's registration at `found`'s authorization server: the one held, the
    /// pre-registered one, its metadata document, or a new one.
    async fn register(
        &self,
        found: &Discovered,
        held: Option<&Credentials>,
        scope: &str,
    ) -> Result<Registration, ClientError> {
        let server = &found.server;
        if let Some(c) = held.filter(|c| c.issuer == server.key() && !c.client_id.is_empty()) {
            return Ok(Registration {
                client_id: c.client_id.clone(),
                client_secret: c.client_secret.clone(),
                auth_method: c.auth_method.clone(),
            });
        }
        if let Some((id, secret)) = &self.config.pre_registered {
            let auth_method = if matches!(self.config.grant, Grant::ClientCredentials(Some(_))) {
                "private_key_jwt".to_string()
            } else {
                Self::auth_method(server, secret.is_some())
            };
            return Ok(Registration {
                client_id: id.clone(),
                client_secret: secret.clone(),
                auth_method,
            });
        }
        if let (Some(url), true) = (&self.config.metadata_document, server.metadata_documents) {
            return Ok(Registration {
                client_id: url.clone(),
                client_secret: None,
                auth_method: "none".to_string(),
            });
        }
        let Some(endpoint) = &server.registration_endpoint else {
            return Err(unauthorized(format!(
                "the authorization server {} offers no registration, and the client has no \
                 pre-registered credentials for it",
                server.key()
            )));
        };
        let supported = server.auth_methods.clone().unwrap_or_default();
        let asked = ["none", "client_secret_basic", "client_secret_post"]
            .into_iter()
            .find(|m| supported.iter().any(|s| s == m))
            .unwrap_or("none");
        let Grant::Code(handler) = &self.config.grant else {
            return Err(unauthorized(
                "the client credentials grant needs credentials",
            ));
        };
        let mut body = json!({
            "client_name": self.config.client_name,
            "redirect_uris": [handler.redirect_uri()],
            "grant_types": ["authorization_code", "refresh_token"],
            "response_types": ["code"],
            "token_endpoint_auth_method": asked,
            "application_type": self.config.application_type,
        });
        if !scope.is_empty() {
            body["scope"] = Value::String(scope.to_string());
        }
        let req = hyper::Request::post(endpoint.as_str())
            .header("content-type", "application/json")
            .header("accept", "application/json")
            .body(body.to_string().into_bytes())
            .map_err(|e| ClientError::Transport(format!("{endpoint}: {e}")))?;
        let resp = self
            .exchange(req)
            .await
            .map_err(|e| ClientError::Transport(e.0))?;
        let answer: Value = serde_json::from_slice(resp.body()).unwrap_or(Value::Null);
        if !resp.status().is_success() {
            return Err(unauthorized(format!(
                "registration at {endpoint} refused (HTTP {}): {answer}",
                resp.status()
            )));
        }
        let client_id = answer
            .get("client_id")
            .and_then(Value::as_str)
            .ok_or_else(|| unauthorized(format!("registration at {endpoint} gave no client_id")))?;
        let client_secret = answer
            .get("client_secret")
            .and_then(Value::as_str)
            .map(str::to_string);
        let auth_method = answer
            .get("token_endpoint_auth_method")
            .and_then(Value::as_str)
            .map(str::to_string)
            .unwrap_or_else(|| {
                if asked == "none" {
                    "none".to_string()
                } else {
                    Self::auth_method(server, client_secret.is_some())
                }
            });
        Ok(Registration {
            client_id: client_id.to_string(),
            client_secret,
            auth_method,
        })
    }

    /// Discover, register if need be, and obtain a token with the scopes the challenge asks
    /// for (joined with those asked for before from the same server).
    async fn authorize(
        &self,
        session: &mut Session,
        challenge: &Challenge,
    ) -> Result<(), ClientError> {
        let found = self.discover(challenge).await?;
        let server = &found.server;
        // The host's own credentials go to the server they belong to, and nowhere else: a
        // resource that now names another server is refused before anything is sent to it.
        if self.config.configured_credentials() {
            let bound = crate::wire::lock(&self.bound).clone();
            if let Some(bound) = bound.filter(|b| b != server.key()) {
                return Err(ClientError::IssuerMismatch {
                    bound,
                    named: server.key().to_string(),
                });
            }
        }
        // Credentials of another authorization server are not shown to this one.
        let held = session
            .credentials
            .as_ref()
            .filter(|c| c.issuer == server.key());
        let mut scopes: BTreeSet<String> = match &challenge.scope {
            Some(s) => s.split_whitespace().map(str::to_string).collect(),
            None => found
                .scopes_supported
                .clone()
                .unwrap_or_default()
                .into_iter()
                .collect(),
        };
        if let Some(c) = held {
            scopes.extend(c.scope.split_whitespace().map(str::to_string));
        }
        let code_grant = matches!(self.config.grant, Grant::Code(_));
        if code_grant
            && self.config.offline_access
            && server
                .scopes_supported
                .as_ref()
                .is_some_and(|s| s.iter().any(|s| s == "offline_access"))
        {
            scopes.insert("offline_access".to_string());
        }
        let scope = scopes.iter().cloned().collect::<Vec<_>>().join(" ");
        let registration = self.register(&found, held, &scope).await?;
        let mut credentials = Credentials {
            issuer: server.key().to_string(),
            token_endpoint: server.token_endpoint.clone(),
            resource: found.resource.clone(),
            client_id: registration.client_id,
            client_secret: registration.client_secret,
            auth_method: registration.auth_method,
            scope: scope.clone(),
            ..Credentials::empty()
        };
        let client = self.token_client(&credentials)?;
        let use_dpop = self.config.dpop && server.dpop;
        let http = self.token_http(use_dpop)?;
        let resource = found.resource.clone();
        let answer = match &self.config.grant {
            Grant::ClientCredentials(key) => {
                let mut request = client
                    .exchange_client_credentials()
                    .add_scopes(scopes.iter().cloned().map(Scope::new))
                    .add_extra_param("resource", resource);
                if let Some(key) = key {
                    request = request
                        .add_extra_param("client_assertion_type", CLIENT_ASSERTION)
                        .add_extra_param(
                            "client_assertion",
                            key.assertion(&credentials.client_id, server.key())?,
                        );
                }
                request.request_async(&http).await.map_err(token_error)?
            }
            Grant::Workload(assertion) => {
                if let Some(refused) = crate::wire::lock(&self.refused).clone() {
                    return Err(refused);
                }
                let assertion = assertion().await?;
                let answer = self
                    .jwt_bearer(server, assertion, resource, &scope, &credentials, &http)
                    .await;
                if let Err(e @ ClientError::Unauthorized(_)) = &answer {
                    *crate::wire::lock(&self.refused) = Some(e.clone());
                }
                answer?
            }
            Grant::Enterprise(idp) => {
                let id_jag = self.id_jag(idp, server, &resource, &scope).await?;
                self.jwt_bearer(server, id_jag, resource, &scope, &credentials, &http)
                    .await?
            }
            Grant::Code(handler) => {
                if !server.pkce_s256 {
                    return Err(unauthorized(format!(
                        "the authorization server {} does not support PKCE with S256",
                        server.key()
                    )));
                }
                let auth = AuthUrl::new(server.authorization_endpoint.clone()).map_err(|e| {
                    unauthorized(format!(
                        "authorization endpoint {}: {e}",
                        server.authorization_endpoint
                    ))
                })?;
                let redirect = RedirectUrl::new(handler.redirect_uri())
                    .map_err(|e| unauthorized(format!("redirect URI: {e}")))?;
                let client = client.set_auth_uri(auth).set_redirect_uri(redirect);
                let (challenge, verifier) = PkceCodeChallenge::new_random_sha256();
                let (url, state) = client
                    .authorize_url(CsrfToken::new_random)
                    .add_scopes(scopes.iter().cloned().map(Scope::new))
                    .set_pkce_challenge(challenge)
                    .add_extra_param("resource", resource.clone())
                    .url();
                let back = handler.authorize(url).await?;
                let code = Self::code_from(&back, state.secret(), server)?;
                client
                    .exchange_code(AuthorizationCode::new(code))
                    .set_pkce_verifier(verifier)
                    .add_extra_param("resource", resource)
                    .request_async(&http)
                    .await
                    .map_err(token_error)?
            }
        };
        credentials.access_token = answer.access_token().secret().clone();
        credentials.token_type = token_type(answer.token_type());
        credentials.refresh_token = answer.refresh_token().map(|r| r.secret().clone());
        credentials.expires_at = answer.expires_in().map(|d| now() + d.as_secs());
        credentials.dpop_key = match (&http.dpop, credentials.token_type.as_str()) {
            (Some((key, _)), "DPoP") => {
                Some(base64_simd::URL_SAFE_NO_PAD.encode_to_string(key.der()))
            }
            _ => None,
        };
        // Logged in: the configured credentials stay with this server from now on.
        crate::wire::lock(&self.bound).get_or_insert_with(|| server.key().to_string());
        self.keep(session, credentials)
    }

    /// The JWT bearer grant (RFC 7523): a token for `assertion`.
    async fn jwt_bearer(
        &self,
        server: &AuthServer,
        assertion: String,
        resource: String,
        scope: &str,
        client: &Credentials,
        http: &OAuthHttp,
    ) -> Result<oauth2::basic::BasicTokenResponse, ClientError> {
        let mut params = vec![
            ("grant_type", JWT_BEARER.to_string()),
            ("assertion", assertion),
            ("resource", resource),
        ];
        if !scope.is_empty() {
            params.push(("scope", scope.to_string()));
        }
        self.token_request(&server.token_endpoint, params, client, http)
            .await
    }

    /// A token request of a grant the `oauth2` crate does not make (the JWT bearer grant, token
    /// exchange), the client authenticating as `client` says.
    async fn token_request(
        &self,
        endpoint: &str,
        mut params: Vec<(&str, String)>,
        client: &Credentials,
        http: &OAuthHttp,
    ) -> Result<oauth2::basic::BasicTokenResponse, ClientError> {
        let mut req = hyper::Request::post(endpoint)
            .header("content-type", "application/x-www-form-urlencoded")
            .header("accept", "application/json");
        match (client.auth_method.as_str(), &client.client_secret) {
            ("client_secret_basic", Some(secret)) => {
                // RFC 6749 §2.3.1: each part form-encoded, then Basic.
                let encode = |v: &str| -> String {
                    oauth2::url::form_urlencoded::byte_serialize(v.as_bytes()).collect()
                };
                let pair = format!("{}:{}", encode(&client.client_id), encode(secret));
                req = req.header(
                    "authorization",
                    format!("Basic {}", base64_simd::STANDARD.encode_to_string(pair)),
                );
            }
            ("client_secret_post", Some(secret)) => {
                params.push(("client_id", client.client_id.clone()));
                params.push(("client_secret", secret.clone()));
            }
            _ => params.push(("client_id", client.client_id.clone())),
        }
        let body = oauth2::url::form_urlencoded::Serializer::new(String::new())
            .extend_pairs(params)
            .finish();
        let req = req
            .body(body.into_bytes())
            .map_err(|e| ClientError::Transport(format!("{endpoint}: {e}")))?;
        let resp = OAuthHttp::send(http.http.clone(), http.dpop.clone(), req)
            .await
            .map_err(|e| ClientError::Transport(e.0))?;
        if !resp.status().is_success() {
            let refusal = serde_json::from_slice::<oauth2::basic::BasicErrorResponse>(resp.body())
                .map(|e| e.to_string())
                .unwrap_or_else(|_| format!("HTTP {}", resp.status()));
            return Err(unauthorized(format!(
                "the token endpoint {endpoint} refused: {refusal}"
            )));
        }
        serde_json::from_slice(resp.body()).map_err(|e| {
            unauthorized(format!(
                "the token endpoint {endpoint} answered no token: {e}"
            ))
        })
    }

    /// The identity provider's ID-JAG for the user (RFC 8693 token exchange of their ID
    /// token), for `server` and the MCP server `resource`.
    async fn id_jag(
        &self,
        idp: &Enterprise,
        server: &AuthServer,
        resource: &str,
        scope: &str,
    ) -> Result<String, ClientError> {
        let id_token = (idp.id_token)().await?;
        let mut params = vec![
            (
                "grant_type",
                "urn:ietf:params:oauth:grant-type:token-exchange".to_string(),
            ),
            ("subject_token", id_token),
            (
                "subject_token_type",
                "urn:ietf:params:oauth:token-type:id_token".to_string(),
            ),
            (
                "requested_token_type",
                "urn:ietf:params:oauth:token-type:id-jag".to_string(),
            ),
            ("audience", server.key().to_string()),
            ("resource", resource.to_string()),
        ];
        if !scope.is_empty() {
            params.push(("scope", scope.to_string()));
        }
        let at_idp = Credentials {
            client_id: idp.idp_client_id.clone(),
            client_secret: idp.idp_client_secret.clone(),
            auth_method: if idp.idp_client_secret.is_some() {
                "client_secret_post".to_string()
            } else {
                "none".to_string()
            },
            ..Credentials::empty()
        };
        let answer = self
            .token_request(
                &idp.idp_token_endpoint,
                params,
                &at_idp,
                &self.token_http(false)?,
            )
            .await?;
        Ok(answer.access_token().secret().clone())
    }

    /// The authorization code in the redirect `back`, once its `state` and `iss` are checked.
    fn code_from(back: &Url, state: &str, server: &AuthServer) -> Result<String, ClientError> {
        let query: BTreeMap<String, String> = back.query_pairs().into_owned().collect();
        if let Some(error) = query.get("error") {
            return Err(unauthorized(format!(
                "authorization refused: {error}{}",
                query
                    .get("error_description")
                    .map(|d| format!(": {d}"))
                    .unwrap_or_default()
            )));
        }
        if query.get("state").map(String::as_str) != Some(state) {
            return Err(unauthorized(
                "the authorization response's state is not this request's",
            ));
        }
        // RFC 9207: an `iss` must be the issuer's, compared as strings; a server that says it
        // sends one must send it.
        match (query.get("iss"), &server.issuer) {
            (Some(iss), Some(issuer)) if iss != issuer => {
                return Err(unauthorized(format!(
                    "the authorization response comes from {iss:?}, not the issuer {issuer:?}"
                )));
            }
            (Some(iss), None) => {
                return Err(unauthorized(format!(
                    "the authorization response names an issuer ({iss:?}) where none was known"
                )));
            }
            (None, _) if server.iss_parameter => {
                return Err(unauthorized(
                    "the authorization response lacks the iss its server promises",
                ));
            }
            _ => {}
        }
        query
            .get("code")
            .cloned()
            .ok_or_else(|| unauthorized("the authorization response has no code"))
    }
}

/// How long the loopback listener waits for a connection's request.
const LOOPBACK_READ_TIMEOUT: Duration = Duration::from_secs(10);

/// An [`AuthorizationHandler`] for a desktop or command-line host: the redirect comes back to
/// a listener on the loopback interface. `show` is given the authorization URL (open a
/// browser, or print it); the page the browser lands on says it may be closed.
pub struct Loopback {
    listener: Arc<tokio::net::TcpListener>,
    port: u16,
    show: Arc<dyn Fn(&Url) + Send + Sync>,
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
            loop {
                let (stream, _) = listener
                    .accept()
                    .await
                    .map_err(|e| ClientError::Transport(format!("loopback listener: {e}")))?;
                let (tx, rx) = tokio::sync::oneshot::channel::<String>();
                let tx = Mutex::new(Some(tx));
                let service = hyper::service::service_fn(
                    move |req: hyper::Request<hyper::body::Incoming>| {
                        let found = req.uri().path() == "/callback";
                        if found {
                            if let Some(tx) = crate::wire::lock(&tx).take() {
                                let _ = tx.send(req.uri().query().unwrap_or_default().to_string());
                            }
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
                    },
                );
                let io = hyper_util::rt::TokioIo::new(stream);
                // A connection that sends no request in time is dropped, so another local
                // process cannot hold the login up.
                let _ = hyper::server::conn::http1::Builder::new()
                    .timer(hyper_util::rt::TokioTimer::new())
                    .header_read_timeout(LOOPBACK_READ_TIMEOUT)
                    .keep_alive(false)
                    .serve_connection(io, service)
                    .await;
                if let Ok(query) = rx.await {
                    let mut back = Url::parse(&base)
                        .map_err(|e| ClientError::Transport(format!("{base}: {e}")))?;
                    back.set_query(Some(&query));
                    return Ok(back);
                }
            }
        })
    }
}

/// An [`AuthorizationHandler`] for authorization servers that approve without a user (test
/// and CI servers): it requests the authorization URL and returns where the answer redirects,
/// without following it.
pub struct AutoApprove {
    redirect_uri: String,
    http: HttpClient,
}

impl AutoApprove {
    /// A handler that sends `redirect_uri` as the redirect.
    pub fn new(redirect_uri: &str) -> Self {
        AutoApprove {
            redirect_uri: redirect_uri.to_string(),
            http: super::http_client(),
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
                .map_err(|e| ClientError::Transport(format!("{url}: {e}")))?;
            let resp = http
                .request(req)
                .await
                .map_err(|e| ClientError::Transport(format!("{url}: {}", causes(&e))))?;
            let location = resp
                .headers()
                .get("location")
                .and_then(|l| l.to_str().ok())
                .map(str::to_string);
            let status = resp.status();
            let _ = resp.into_body().collect().await;
            let location = location.ok_or_else(|| {
                unauthorized(format!(
                    "the authorization endpoint did not redirect (HTTP {status})"
                ))
            })?;
            url.join(&location)
                .map_err(|e| unauthorized(format!("redirect {location}: {e}")))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(unix)]
    #[test]
    fn the_file_store_never_writes_through_a_planted_link_and_keeps_its_file_private() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("tokens.json");
        let stolen = dir.path().join("stolen");
        std::fs::write(&stolen, "").unwrap();
        // Links at every name a writer might use beside the file: the old fixed one included.
        for name in ["tokens.tmp", "tokens.json.tmp", ".tokens.json.tmp"] {
            std::os::unix::fs::symlink(&stolen, dir.path().join(name)).unwrap();
        }
        let store = FileStore::new(&path);
        let mut credentials = Credentials::empty();
        credentials.client_secret = Some("s3cret".into());
        credentials.access_token = "tok".into();
        store.save("https://mcp.example/mcp", &credentials).unwrap();
        store
            .save("https://other.example/mcp", &credentials)
            .unwrap();
        assert_eq!(
            std::fs::read_to_string(&stolen).unwrap(),
            "",
            "written through a link"
        );
        let mode = std::fs::metadata(&path).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600, "{mode:o}");
        assert_eq!(store.load("https://mcp.example/mcp"), Some(credentials));
        // Nothing of the writes is left beside the file but the planted links.
        let mut left: Vec<String> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        left.sort();
        assert_eq!(
            left,
            [
                ".tokens.json.tmp",
                "stolen",
                "tokens.json",
                "tokens.json.tmp",
                "tokens.tmp"
            ]
        );
    }

    #[test]
    fn a_bearer_challenge_is_read_among_others() {
        let c = Challenge::parse(Some(
            r#"Basic realm="x", Bearer error="insufficient_scope", scope="a b", resource_metadata="https://h/.well-known/oauth-protected-resource/mcp""#,
        ));
        assert_eq!(c.error.as_deref(), Some("insufficient_scope"));
        assert_eq!(c.scope.as_deref(), Some("a b"));
        assert_eq!(
            c.resource_metadata.as_deref(),
            Some("https://h/.well-known/oauth-protected-resource/mcp")
        );
        assert!(Challenge::parse(Some("Basic realm=\"x\"")).scope.is_none());
        assert!(Challenge::parse(Some("Bearer scope=\"unterminated"))
            .scope
            .is_none());
    }

    #[test]
    fn a_resource_is_the_identifier_its_metadata_was_found_by_never_a_parent() {
        let server = Url::parse("https://h.example/api/mcp").unwrap();
        let origin = Url::parse("https://h.example").unwrap();
        let by_server = [server.clone()];
        assert!(resource_matches("https://h.example/api/mcp", &by_server));
        assert!(resource_matches(
            "HTTPS://H.example:443/api/mcp",
            &by_server
        ));
        for parent_or_other in [
            "https://h.example/api/mcp/",
            "https://h.example/",
            "https://h.example",
            "https://h.example/api",
            "https://h.example/ap",
            "https://other.example/api/mcp",
            "http://h.example/api/mcp",
            "https://h.example/api/mcp/x",
            "https://h.example/api/mcp#f",
            "not a url",
        ] {
            assert!(
                !resource_matches(parent_or_other, &by_server),
                "{parent_or_other}"
            );
        }
        // Metadata at the root well-known URI is the origin's (or names the server itself).
        let by_root = [server, origin];
        assert!(resource_matches("https://h.example", &by_root));
        assert!(resource_matches("https://h.example/", &by_root));
        assert!(resource_matches("https://h.example/api/mcp", &by_root));
        assert!(!resource_matches("https://h.example/api", &by_root));
    }

    #[test]
    fn metadata_is_looked_for_where_its_issuer_says() {
        let at = |i: &str| {
            metadata_urls(&Url::parse(i).unwrap())
                .into_iter()
                .map(|u| u.path().to_string())
                .collect::<Vec<_>>()
        };
        assert_eq!(
            at("https://as.example"),
            [
                "/.well-known/oauth-authorization-server",
                "/.well-known/openid-configuration"
            ]
        );
        assert_eq!(
            at("https://as.example/tenant1"),
            [
                "/.well-known/oauth-authorization-server/tenant1",
                "/.well-known/openid-configuration/tenant1",
                "/tenant1/.well-known/openid-configuration"
            ]
        );
    }

    fn server(issuer: Option<&str>, iss_parameter: bool) -> AuthServer {
        AuthServer {
            issuer: issuer.map(str::to_string),
            authorization_endpoint: String::new(),
            token_endpoint: "https://as.example/token".into(),
            registration_endpoint: None,
            scopes_supported: None,
            auth_methods: None,
            metadata_documents: false,
            iss_parameter,
            dpop: false,
            pkce_s256: true,
        }
    }

    #[test]
    fn the_redirect_is_checked_before_its_code_is_used() {
        let back = |q: &str| Url::parse(&format!("http://127.0.0.1/cb?{q}")).unwrap();
        let s = server(Some("https://as.example"), true);
        let ok = Authorizer::code_from(
            &back("code=c&state=s&iss=https%3A%2F%2Fas.example"),
            "s",
            &s,
        );
        assert_eq!(ok.unwrap(), "c");
        // The wrong state, a missing or different iss, an iss not compared loosely, an error.
        for q in [
            "code=c&state=t&iss=https%3A%2F%2Fas.example",
            "code=c&state=s",
            "code=c&state=s&iss=https%3A%2F%2Fevil.example",
            "code=c&state=s&iss=https%3A%2F%2Fas.example%2F",
            "error=access_denied&state=s",
        ] {
            assert!(
                matches!(
                    Authorizer::code_from(&back(q), "s", &s),
                    Err(ClientError::Unauthorized(_))
                ),
                "{q}"
            );
        }
        // Not promised: absent is fine, present must still match.
        let quiet = server(Some("https://as.example"), false);
        assert!(Authorizer::code_from(&back("code=c&state=s"), "s", &quiet).is_ok());
        assert!(Authorizer::code_from(
            &back("code=c&state=s&iss=https%3A%2F%2Fevil.example"),
            "s",
            &quiet
        )
        .is_err());
    }

    #[test]
    fn the_token_endpoint_authentication_follows_the_server() {
        let mut s = server(None, false);
        assert_eq!(Authorizer::auth_method(&s, true), "client_secret_basic");
        s.auth_methods = Some(vec!["client_secret_post".into()]);
        assert_eq!(Authorizer::auth_method(&s, true), "client_secret_post");
        assert_eq!(Authorizer::auth_method(&s, false), "none");
    }

    #[test]
    fn a_file_store_keeps_credentials_across_instances() {
        let dir = std::env::temp_dir().join(format!("oxmcp-oauth-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("tokens.json");
        let c = Credentials {
            issuer: "https://as.example".into(),
            token_endpoint: "https://as.example/token".into(),
            resource: "https://h.example/mcp".into(),
            client_id: "id".into(),
            client_secret: None,
            auth_method: "none".into(),
            scope: "a".into(),
            access_token: "t".into(),
            token_type: "Bearer".into(),
            dpop_key: None,
            refresh_token: Some("r".into()),
            expires_at: Some(1),
        };
        FileStore::new(&path)
            .save("https://h.example/mcp", &c)
            .unwrap();
        assert_eq!(FileStore::new(&path).load("https://h.example/mcp"), Some(c));
        assert_eq!(
            FileStore::new(&path).load("https://other.example/mcp"),
            None
        );
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&path).unwrap().permissions().mode();
            assert_eq!(mode & 0o077, 0, "readable by its owner only");
        }
        let _ = std::fs::remove_dir_all(dir);
    }
}
