//! Bearer-token authentication for the streamable HTTP server, as an OAuth 2.1 resource server
//! (MCP authorization, 2026-07-28): every request must carry `Authorization: Bearer <token>`;
//! a missing or invalid token gets 401 with `WWW-Authenticate: Bearer resource_metadata="..."`,
//! a tool whose `scopes` the token lacks gets 403 with `error="insufficient_scope"`, and the
//! Protected Resource Metadata (RFC 9728) is served at the well-known URI of the endpoint.
//!
//! Tokens are checked by a [`TokenVerifier`]: [`JwtVerifier`] verifies JWT access tokens
//! against a JWKS (issuer, audience naming this resource, `exp`/`nbf` with a small leeway, an
//! allow-list of asymmetric algorithms, keys cached by `kid` with a rate-limited refresh when an
//! unknown `kid` arrives); implement the trait for opaque tokens (e.g. introspection). The
//! verified caller reaches handlers as a [`Principal`] and is bound into `requestState`. The
//! token itself goes nowhere else.

use crate::handler::Principal;
use crate::wire::BoxFuture;
use jsonwebtoken::jwk::{JwkSet, KeyAlgorithm, PublicKeyUse};
pub use jsonwebtoken::Algorithm;
use jsonwebtoken::{decode, decode_header, DecodingKey, Validation};
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};
use std::collections::HashMap;
use std::fmt;
use std::path::PathBuf;
use std::sync::{Arc, RwLock};
use std::time::{Duration, Instant};

/// Why a token was not accepted. The reason is logged by the server; the client is told only
/// that its token is invalid.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum AuthError {
    /// The token is not a JWT the verifier reads, or not an access token (its `typ`).
    Malformed {
        /// What is wrong with it.
        detail: String,
    },
    /// Its algorithm is not allowed, or not one its key takes.
    Algorithm {
        /// The token's algorithm.
        algorithm: String,
        /// The algorithms that would have been taken.
        allowed: Vec<String>,
    },
    /// No key of the set has its `kid` (or the set has several keys and the token names none).
    UnknownKey {
        /// The `kid` it names.
        kid: Option<String>,
    },
    /// Its signature or claims do not hold: expired, not yet valid, another issuer or audience,
    /// a claim missing.
    Rejected {
        /// The verifier's reason.
        reason: String,
    },
    /// The key set could not be fetched or read.
    KeySet {
        /// Where from, and why not.
        detail: String,
    },
    /// The key set is older than its maximum age and could not be fetched again: no token is
    /// taken until it can (fail closed).
    KeySetExpired,
    /// A verifier of the application's refused it ([`TokenVerifier`]).
    Refused {
        /// Its reason.
        reason: String,
    },
}

impl AuthError {
    /// A refusal with `reason`, for verifiers an application writes.
    pub fn refused(reason: impl Into<String>) -> AuthError {
        AuthError::Refused {
            reason: reason.into(),
        }
    }

    fn key_set(detail: impl Into<String>) -> AuthError {
        AuthError::KeySet {
            detail: detail.into(),
        }
    }
}

impl fmt::Display for AuthError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AuthError::Malformed { detail } => write!(f, "malformed token: {detail}"),
            AuthError::Algorithm { algorithm, allowed } => write!(
                f,
                "algorithm {algorithm} not taken (allowed: {})",
                allowed.join(", ")
            ),
            AuthError::UnknownKey { kid } => write!(f, "no key with kid {kid:?}"),
            AuthError::Rejected { reason } => write!(f, "rejected token: {reason}"),
            AuthError::KeySet { detail } => write!(f, "key set: {detail}"),
            AuthError::KeySetExpired => f.write_str(
                "the key set is older than its maximum age and could not be fetched again",
            ),
            AuthError::Refused { reason } => write!(f, "refused: {reason}"),
        }
    }
}

impl std::error::Error for AuthError {}

/// Checks a bearer token and says who it belongs to.
pub trait TokenVerifier: Send + Sync + 'static {
    /// The caller `token` was issued to, or why it is not accepted.
    fn verify(&self, token: String) -> BoxFuture<Result<Principal, AuthError>>;
}

/// Where a [`JwtVerifier`] gets its JSON Web Key Set (a JSON document `{"keys": [...]}`).
pub trait JwksSource: Send + Sync + 'static {
    /// The current key set.
    fn fetch(&self) -> BoxFuture<Result<String, AuthError>>;
}

/// A JWKS file, read again whenever the verifier refreshes its keys.
#[derive(Debug, Clone)]
pub struct JwksFile(pub PathBuf);

impl JwksSource for JwksFile {
    fn fetch(&self) -> BoxFuture<Result<String, AuthError>> {
        let path = self.0.clone();
        Box::pin(async move {
            tokio::fs::read_to_string(&path).await.map_err(|e| {
                AuthError::key_set(format!("cannot read JWKS {}: {e}", path.display()))
            })
        })
    }
}

/// The JWKS at a URL (the authorization server's `jwks_uri`), fetched over HTTPS (rustls, with
/// the webpki root certificates) or HTTP, with a 10-second timeout and a 1 MiB cap (feature
/// `jwks-url`). The verifier fetches it at its first token and again, at most every
/// `min_refresh_interval`, when a token names a `kid` it does not know.
#[cfg(feature = "jwks-url")]
pub struct JwksUrl {
    url: hyper::Uri,
    client: hyper_util::client::legacy::Client<
        hyper_rustls::HttpsConnector<hyper_util::client::legacy::connect::HttpConnector>,
        http_body_util::Empty<hyper::body::Bytes>,
    >,
}

#[cfg(feature = "jwks-url")]
impl fmt::Debug for JwksUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("JwksUrl").field("url", &self.url).finish()
    }
}

#[cfg(feature = "jwks-url")]
impl JwksUrl {
    /// The longest JWKS document taken.
    const MAX_LEN: usize = 1024 * 1024;
    /// How long a fetch may take.
    const TIMEOUT: Duration = Duration::from_secs(10);

    /// The JWKS at `url` (`https://...` or `http://...`).
    pub fn new(url: &str) -> Result<Self, AuthError> {
        let url: hyper::Uri = url
            .parse()
            .map_err(|e| AuthError::key_set(format!("invalid JWKS URL {url}: {e}")))?;
        if !matches!(url.scheme_str(), Some("https" | "http")) {
            return Err(AuthError::key_set(format!(
                "JWKS URL {url} is neither https nor http"
            )));
        }
        let connector = hyper_rustls::HttpsConnectorBuilder::new()
            .with_webpki_roots()
            .https_or_http()
            .enable_http1()
            .build();
        let client =
            hyper_util::client::legacy::Client::builder(hyper_util::rt::TokioExecutor::new())
                .build(connector);
        Ok(JwksUrl { url, client })
    }
}

#[cfg(feature = "jwks-url")]
impl JwksSource for JwksUrl {
    fn fetch(&self) -> BoxFuture<Result<String, AuthError>> {
        use http_body_util::BodyExt;
        let request = hyper::Request::get(self.url.clone())
            .header(hyper::header::ACCEPT, "application/json")
            .body(http_body_util::Empty::new());
        let client = self.client.clone();
        let url = self.url.clone();
        Box::pin(async move {
            let request = request.map_err(|e| AuthError::key_set(format!("JWKS request: {e}")))?;
            let fetch = async {
                let response = client
                    .request(request)
                    .await
                    .map_err(|e| AuthError::key_set(format!("cannot fetch JWKS {url}: {e}")))?;
                if !response.status().is_success() {
                    return Err(AuthError::key_set(format!(
                        "JWKS {url}: HTTP {}",
                        response.status()
                    )));
                }
                let body = http_body_util::Limited::new(response.into_body(), Self::MAX_LEN)
                    .collect()
                    .await
                    .map_err(|e| AuthError::key_set(format!("JWKS {url}: {e}")))?
                    .to_bytes();
                String::from_utf8(body.to_vec())
                    .map_err(|_| AuthError::key_set(format!("JWKS {url} is not UTF-8")))
            };
            tokio::time::timeout(Self::TIMEOUT, fetch)
                .await
                .map_err(|_| AuthError::key_set(format!("JWKS {url}: no answer in time")))?
        })
    }
}

/// A JWKS given as a document.
#[derive(Debug, Clone)]
pub struct StaticJwks(pub String);

impl JwksSource for StaticJwks {
    fn fetch(&self) -> BoxFuture<Result<String, AuthError>> {
        let text = self.0.clone();
        Box::pin(async move { Ok(text) })
    }
}

/// A JWKS from a closure, e.g. one that fetches the authorization server's `jwks_uri` with the
/// application's HTTPS client.
impl<F> JwksSource for F
where
    F: Fn() -> BoxFuture<Result<String, AuthError>> + Send + Sync + 'static,
{
    fn fetch(&self) -> BoxFuture<Result<String, AuthError>> {
        self()
    }
}

/// The asymmetric algorithms accepted by default. HMAC is never accepted: a verifier holding
/// only public keys must not treat one as a shared secret.
const DEFAULT_ALGORITHMS: [Algorithm; 9] = [
    Algorithm::RS256,
    Algorithm::RS384,
    Algorithm::RS512,
    Algorithm::PS256,
    Algorithm::PS384,
    Algorithm::PS512,
    Algorithm::ES256,
    Algorithm::ES384,
    Algorithm::EdDSA,
];

/// A key of the set, with the algorithms it takes: the one it declares (`alg`), or for a key
/// that declares none, the configured algorithms of one family its type allows.
#[derive(Clone)]
struct CachedKey {
    key: Arc<DecodingKey>,
    algorithms: Vec<Algorithm>,
}

/// The algorithms a key without `alg` takes: of the `configured` ones, those of a single family
/// its key type (and curve) allows (RFC 8725: one algorithm family per key, so a key is never
/// used with both PKCS #1 v1.5 and PSS padding, say). An RSA key takes the RS family when any is
/// configured, else the PS family; an EC key the one algorithm of its curve; an OKP key EdDSA.
fn algorithms_of(jwk: &jsonwebtoken::jwk::Jwk, configured: &[Algorithm]) -> Vec<Algorithm> {
    use jsonwebtoken::jwk::{AlgorithmParameters, EllipticCurve};
    let allowed = |family: &[Algorithm]| -> Vec<Algorithm> {
        family
            .iter()
            .copied()
            .filter(|a| configured.contains(a))
            .collect()
    };
    match &jwk.algorithm {
        AlgorithmParameters::RSA(_) => {
            let rs = allowed(&[Algorithm::RS256, Algorithm::RS384, Algorithm::RS512]);
            if rs.is_empty() {
                allowed(&[Algorithm::PS256, Algorithm::PS384, Algorithm::PS512])
            } else {
                rs
            }
        }
        AlgorithmParameters::EllipticCurve(ec) => match ec.curve {
            EllipticCurve::P256 => allowed(&[Algorithm::ES256]),
            EllipticCurve::P384 => allowed(&[Algorithm::ES384]),
            _ => Vec::new(),
        },
        AlgorithmParameters::OctetKeyPair(_) => allowed(&[Algorithm::EdDSA]),
        _ => Vec::new(),
    }
}

/// The keys of a JWKS by `kid`, when they were last fetched, and a generation that changes
/// whenever the set does (tokens verified with an older set are checked again).
#[derive(Default)]
struct KeyCache {
    keys: HashMap<String, CachedKey>,
    /// The only key, when the set has exactly one: tokens without `kid` may use it.
    only: Option<CachedKey>,
    fetched: Option<Instant>,
    /// When the set was last fetched and read: keys are trusted for the maximum age from then.
    read: Option<Instant>,
    /// Whether tokens are refused because no fetch succeeded for longer than the maximum age
    /// (logged when this changes).
    expired: bool,
    /// The SHA-256 of the set as last fetched, and how many different sets were seen.
    digest: [u8; 32],
    generation: u64,
}

/// What a [`JwtVerifier`] checks.
#[derive(Debug, Clone)]
struct Settings {
    issuer: String,
    audience: String,
    leeway: u64,
    algorithms: Vec<Algorithm>,
    min_refresh: Duration,
    max_age: Duration,
}

/// Where a [`JwtVerifier`] gets its keys, and the keys it has.
struct Keys {
    source: Box<dyn JwksSource>,
    cache: RwLock<KeyCache>,
    refreshing: tokio::sync::Mutex<()>,
}

/// Verifies JWT access tokens against a JWKS. Cheap to clone; clones share the key cache.
#[derive(Clone)]
pub struct JwtVerifier {
    settings: Arc<Settings>,
    keys: Arc<Keys>,
    verified: Arc<Verified>,
}

/// At most this many verified tokens are remembered; past it the cache starts over.
const VERIFIED_CAPACITY: usize = 4096;

/// Tokens verified recently, by SHA-256, with the caller, until when they are valid, and the
/// generation of the key set they were verified with.
#[derive(Default)]
struct Verified(std::sync::Mutex<HashMap<[u8; 32], (Principal, u64, u64)>>);

impl Verified {
    fn get(&self, digest: &[u8; 32], now: u64, generation: u64) -> Option<Principal> {
        let map = crate::wire::lock(&self.0);
        map.get(digest)
            .filter(|(_, until, seen)| now < *until && *seen == generation)
            .map(|(p, _, _)| p.clone())
    }

    fn put(&self, digest: [u8; 32], principal: Principal, until: u64, generation: u64) {
        let mut map = crate::wire::lock(&self.0);
        if map.len() >= VERIFIED_CAPACITY {
            map.clear();
        }
        map.insert(digest, (principal, until, generation));
    }
}

use crate::wire::unix_seconds as unix_now;

impl fmt::Debug for JwtVerifier {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("JwtVerifier")
            .field("settings", &self.settings)
            .finish_non_exhaustive()
    }
}

impl JwtVerifier {
    /// Tokens must be issued by `issuer` (`iss`) for `audience` (`aud`: the canonical URI of
    /// this MCP endpoint) and signed by a key of `source` with the algorithm the key declares
    /// (when it declares one; else with one algorithm family its key type allows), with a `typ`
    /// of `at+jwt` or `JWT` when they name one. Leeway
    /// 60 s, the key set fetched again after 5 minutes and at most every 30 s, the asymmetric
    /// algorithms RS*, PS*, ES256, ES384 and EdDSA.
    pub fn new(
        source: impl JwksSource,
        issuer: impl Into<String>,
        audience: impl Into<String>,
    ) -> Self {
        JwtVerifier {
            settings: Arc::new(Settings {
                issuer: issuer.into(),
                audience: audience.into(),
                leeway: 60,
                algorithms: DEFAULT_ALGORITHMS.to_vec(),
                min_refresh: Duration::from_secs(30),
                max_age: Duration::from_secs(5 * 60),
            }),
            keys: Arc::new(Keys {
                source: Box::new(source),
                cache: RwLock::new(KeyCache::default()),
                refreshing: tokio::sync::Mutex::new(()),
            }),
            verified: Arc::default(),
        }
    }

    /// Clock skew allowed on `exp` and `nbf`, in seconds.
    pub fn leeway(mut self, seconds: u64) -> Self {
        Arc::make_mut(&mut self.settings).leeway = seconds;
        self
    }

    /// The algorithms accepted; HMAC algorithms are dropped from the list.
    pub fn algorithms(mut self, algorithms: &[Algorithm]) -> Self {
        Arc::make_mut(&mut self.settings).algorithms = algorithms
            .iter()
            .copied()
            .filter(|a| !matches!(a, Algorithm::HS256 | Algorithm::HS384 | Algorithm::HS512))
            .collect();
        self
    }

    /// The shortest time between two fetches of the key set (an unknown `kid` triggers one).
    pub fn min_refresh_interval(mut self, interval: Duration) -> Self {
        Arc::make_mut(&mut self.settings).min_refresh = interval;
        self
    }

    /// How long a fetched key set is trusted (default 5 minutes): past that it is fetched
    /// again before the next token is verified, so a key the authorization server removed stops
    /// being accepted within this time even if no token names an unknown `kid`. Tokens already
    /// verified are checked again once the set changes. A set that cannot be fetched again (the
    /// file is gone or invalid, the server does not answer) is not trusted past this age
    /// either: every token is then refused with 401 until a fetch succeeds (fail closed; logged
    /// when it starts and when it ends).
    pub fn max_key_age(mut self, age: Duration) -> Self {
        Arc::make_mut(&mut self.settings).max_age = age;
        self
    }

    /// Verify `token` and read its caller. A token verified before is answered from a cache
    /// (keyed by its SHA-256, kept until its `exp` and while the key set is the one it was
    /// verified with): clients send the same access token with every request, and a signature
    /// check costs 100-400 µs.
    pub async fn verify_jwt(&self, token: &str) -> Result<Principal, AuthError> {
        let digest: [u8; 32] = Sha256::digest(token.as_bytes()).into();
        let now = unix_now();
        let generation = self.keys.fresh(&self.settings).await?;
        if let Some(p) = self.verified.get(&digest, now, generation) {
            return Ok(p);
        }
        let principal = self.verify_jwt_uncached(token).await?;
        let generation = self.keys.generation();
        let exp = principal
            .claims
            .get("exp")
            .and_then(Value::as_u64)
            .unwrap_or(now);
        self.verified.put(
            digest,
            principal.clone(),
            exp.saturating_add(self.settings.leeway),
            generation,
        );
        Ok(principal)
    }

    /// Verify `token` without the cache of verified tokens: every call checks the signature
    /// and the claims.
    pub async fn verify_jwt_uncached(&self, token: &str) -> Result<Principal, AuthError> {
        let settings = &self.settings;
        let header = decode_header(token).map_err(|e| AuthError::Malformed {
            detail: format!("bad header: {e}"),
        })?;
        let names = |algorithms: &[Algorithm]| {
            algorithms
                .iter()
                .map(|a| format!("{a:?}"))
                .collect::<Vec<_>>()
        };
        if !settings.algorithms.contains(&header.alg) {
            return Err(AuthError::Algorithm {
                algorithm: format!("{:?}", header.alg),
                allowed: names(&settings.algorithms),
            });
        }
        // RFC 9068 access tokens say `at+jwt`; many issuers say `JWT`. Any other declared type
        // (an ID token's, a logout token's) is not an access token.
        if let Some(typ) = header.typ.as_deref() {
            let typ = typ.strip_prefix("application/").unwrap_or(typ);
            if !typ.eq_ignore_ascii_case("at+jwt") && !typ.eq_ignore_ascii_case("jwt") {
                return Err(AuthError::Malformed {
                    detail: format!("token type {typ:?} is not an access token"),
                });
            }
        }
        self.keys.fresh(settings).await?;
        let cached = self.keys.key(header.kid.as_deref(), settings).await?;
        // One algorithm per key (RFC 8725): a key that declares its algorithm takes no other,
        // and one that does not takes one family only.
        if !cached.algorithms.contains(&header.alg) {
            return Err(AuthError::Algorithm {
                algorithm: format!("{:?}", header.alg),
                allowed: names(&cached.algorithms),
            });
        }
        let key = cached.key;
        let mut validation = Validation::new(header.alg);
        validation.algorithms = vec![header.alg];
        validation.leeway = settings.leeway;
        validation.validate_nbf = true;
        validation.set_issuer(&[&settings.issuer]);
        validation.set_audience(&[&settings.audience]);
        validation.set_required_spec_claims(&["exp", "iss", "aud", "sub"]);
        let data = decode::<Map<String, Value>>(token, &key, &validation).map_err(|e| {
            AuthError::Rejected {
                reason: e.to_string(),
            }
        })?;
        principal_of(data.claims)
    }
}

impl Keys {
    fn cached(&self, kid: Option<&str>) -> Option<CachedKey> {
        let cache = self.cache.read().unwrap_or_else(|p| p.into_inner());
        match kid {
            Some(kid) => cache.keys.get(kid).cloned(),
            None => cache.only.clone(),
        }
    }

    /// The generation of the key set held now.
    fn generation(&self) -> u64 {
        self.cache
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .generation
    }

    /// Fetch the key set again if it is older than its maximum age (and the last try is at
    /// least `min_refresh` old); the generation held afterwards. A failed fetch keeps the keys
    /// held and is tried again after `min_refresh`, but only until the keys are older than the
    /// maximum age: from then on every token is refused (fail closed), since a key the
    /// authorization server removed must stop being trusted even when its set cannot be read.
    async fn fresh(&self, settings: &Settings) -> Result<u64, AuthError> {
        let stale = |cache: &KeyCache| {
            cache
                .fetched
                .is_some_and(|t| t.elapsed() >= settings.max_age.max(settings.min_refresh))
        };
        if stale(&self.cache.read().unwrap_or_else(|p| p.into_inner())) {
            let _one_at_a_time = self.refreshing.lock().await;
            let still_stale = stale(&self.cache.read().unwrap_or_else(|p| p.into_inner()));
            if still_stale {
                if let Err(e) = self.refresh(settings).await {
                    tracing::warn!(error = %e, "the key set could not be fetched again");
                }
            }
        }
        self.trusted(settings)
    }

    /// The generation of the keys held, if they may still be trusted: read within the maximum
    /// age (or never read yet, when a token's key fetches them).
    fn trusted(&self, settings: &Settings) -> Result<u64, AuthError> {
        let max_age = settings.max_age.max(settings.min_refresh);
        let expired_now = |c: &KeyCache| c.read.is_some_and(|t| t.elapsed() >= max_age);
        let (expired, changed, generation) = {
            let cache = self.cache.read().unwrap_or_else(|p| p.into_inner());
            let expired = expired_now(&cache);
            (expired, expired != cache.expired, cache.generation)
        };
        if changed {
            // Logged once per change: under the write lock, the first to see it says it.
            let mut cache = self.cache.write().unwrap_or_else(|p| p.into_inner());
            let expired = expired_now(&cache);
            if cache.expired != expired {
                cache.expired = expired;
                if expired {
                    tracing::error!(
                        max_age = ?settings.max_age,
                        "the key set could not be fetched within its maximum age: every token is refused until it can"
                    );
                } else {
                    tracing::info!("the key set was fetched again: tokens are accepted");
                }
            }
        }
        if expired {
            return Err(AuthError::KeySetExpired);
        }
        Ok(generation)
    }

    /// The key for `kid`, fetching the key set again if it is unknown and the last fetch is at
    /// least `min_refresh` old.
    async fn key(&self, kid: Option<&str>, settings: &Settings) -> Result<CachedKey, AuthError> {
        if let Some(key) = self.cached(kid) {
            return Ok(key);
        }
        let _one_at_a_time = self.refreshing.lock().await;
        if let Some(key) = self.cached(kid) {
            return Ok(key);
        }
        let recent = {
            let cache = self.cache.read().unwrap_or_else(|p| p.into_inner());
            cache
                .fetched
                .is_some_and(|t| t.elapsed() < settings.min_refresh)
        };
        if !recent {
            self.refresh(settings).await?;
        }
        self.cached(kid).ok_or_else(|| AuthError::UnknownKey {
            kid: kid.map(str::to_string),
        })
    }

    async fn refresh(&self, settings: &Settings) -> Result<(), AuthError> {
        let fetched = self.source.fetch().await;
        let parsed = fetched.as_ref().map_err(Clone::clone).and_then(|t| {
            crate::wire::from_text::<JwkSet>(t)
                .map_err(|e| AuthError::key_set(format!("invalid JWKS: {e}")))
        });
        let mut cache = self.cache.write().unwrap_or_else(|p| p.into_inner());
        cache.fetched = Some(Instant::now());
        // On failure the keys we had are kept (within their maximum age), and the next try
        // waits for the interval.
        let set = parsed?;
        cache.read = Some(Instant::now());
        let digest: [u8; 32] = Sha256::digest(fetched.unwrap_or_default().as_bytes()).into();
        if digest != cache.digest {
            cache.digest = digest;
            cache.generation += 1;
        }
        let usable: Vec<_> = set
            .keys
            .iter()
            // A key for encryption, or for another algorithm family's MAC, never signs here.
            .filter(|k| matches!(k.common.public_key_use, None | Some(PublicKeyUse::Signature)))
            .filter(|k| !matches!(k.common.key_algorithm, Some(a) if is_hmac(a)))
            .filter_map(|k| {
                let algorithms = match k.common.key_algorithm {
                    None => algorithms_of(k, &settings.algorithms),
                    Some(a) => match a.to_string().parse::<Algorithm>() {
                        Ok(alg) => vec![alg],
                        Err(_) => {
                            tracing::warn!(kid = ?k.common.key_id, alg = %a, "a JWKS key for no signature algorithm; left out");
                            return None;
                        }
                    },
                };
                if algorithms.is_empty() {
                    tracing::warn!(kid = ?k.common.key_id, "a JWKS key without `alg` whose type allows none of the configured algorithms; left out");
                    return None;
                }
                match DecodingKey::from_jwk(k) {
                    Ok(key) => Some((
                        k.common.key_id.clone(),
                        CachedKey {
                            key: Arc::new(key),
                            algorithms,
                        },
                    )),
                    Err(e) => {
                        tracing::warn!(kid = ?k.common.key_id, error = %e, "unusable key in JWKS");
                        None
                    }
                }
            })
            .collect();
        cache.only = (usable.len() == 1).then(|| usable[0].1.clone());
        cache.keys = usable
            .into_iter()
            .filter_map(|(kid, key)| kid.map(|k| (k, key)))
            .collect();
        Ok(())
    }
}

fn is_hmac(a: KeyAlgorithm) -> bool {
    matches!(
        a,
        KeyAlgorithm::HS256 | KeyAlgorithm::HS384 | KeyAlgorithm::HS512
    )
}

/// The caller a verified token's claims name: `sub`, `iss`, and the scopes of `scope` (a
/// space-separated string) or `scp` (a list or a string).
pub fn principal_of(claims: Map<String, Value>) -> Result<Principal, AuthError> {
    let subject = claims
        .get("sub")
        .and_then(Value::as_str)
        .ok_or_else(|| AuthError::Rejected {
            reason: "the token has no subject".into(),
        })?
        .to_string();
    let issuer = claims
        .get("iss")
        .and_then(Value::as_str)
        .map(str::to_string);
    let scopes = match claims.get("scope").or_else(|| claims.get("scp")) {
        Some(Value::String(s)) => s.split_whitespace().map(str::to_string).collect(),
        Some(Value::Array(items)) => items
            .iter()
            .filter_map(Value::as_str)
            .map(str::to_string)
            .collect(),
        _ => Vec::new(),
    };
    Ok(Principal {
        subject,
        issuer,
        scopes,
        claims,
    })
}

impl TokenVerifier for JwtVerifier {
    fn verify(&self, token: String) -> BoxFuture<Result<Principal, AuthError>> {
        let this = self.clone();
        Box::pin(async move { this.verify_jwt(&token).await })
    }
}

/// Authentication settings of the HTTP server (`HttpConfig::auth`).
#[derive(Clone)]
#[non_exhaustive]
pub struct AuthConfig {
    /// Checks each request's bearer token.
    pub verifier: Arc<dyn TokenVerifier>,
    /// The canonical URI of this MCP endpoint (`https://mcp.example.com/mcp`): the resource
    /// tokens are issued for, and where the metadata's well-known URI is derived from.
    pub resource: String,
    /// The authorization servers that issue tokens for this resource.
    pub authorization_servers: Vec<String>,
    /// The scopes this resource knows, advertised in the metadata and in `WWW-Authenticate`.
    pub scopes_supported: Vec<String>,
}

impl fmt::Debug for AuthConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AuthConfig")
            .field("resource", &self.resource)
            .field("authorization_servers", &self.authorization_servers)
            .field("scopes_supported", &self.scopes_supported)
            .finish_non_exhaustive()
    }
}

impl AuthConfig {
    /// Tokens checked by `verifier`, for the endpoint at `resource`.
    pub fn new(verifier: impl TokenVerifier, resource: impl Into<String>) -> Self {
        AuthConfig {
            verifier: Arc::new(verifier),
            resource: resource.into(),
            authorization_servers: Vec::new(),
            scopes_supported: Vec::new(),
        }
    }

    /// Add an authorization server (its issuer URL) to the metadata.
    pub fn authorization_server(mut self, url: impl Into<String>) -> Self {
        self.authorization_servers.push(url.into());
        self
    }

    /// The scopes this resource knows.
    pub fn scopes_supported<S: Into<String>>(
        mut self,
        scopes: impl IntoIterator<Item = S>,
    ) -> Self {
        self.scopes_supported = scopes.into_iter().map(Into::into).collect();
        self
    }

    /// The resource's origin and path (`https://host`, `/mcp`).
    fn split_resource(&self) -> (&str, &str) {
        let after_scheme = self.resource.find("://").map_or(0, |i| i + 3);
        match self.resource[after_scheme..].find('/') {
            Some(i) => self.resource.split_at(after_scheme + i),
            None => (self.resource.as_str(), ""),
        }
    }

    /// The path of the Protected Resource Metadata on this server (RFC 9728: the well-known
    /// prefix inserted before the resource's path).
    pub fn metadata_path(&self) -> String {
        let (_, path) = self.split_resource();
        format!(
            "/.well-known/oauth-protected-resource{}",
            path.trim_end_matches('/')
        )
    }

    /// The absolute URL of the Protected Resource Metadata.
    pub fn metadata_url(&self) -> String {
        let (origin, _) = self.split_resource();
        format!("{origin}{}", self.metadata_path())
    }

    /// The Protected Resource Metadata document.
    pub fn metadata(&self) -> Value {
        serde_json::json!({
            "resource": self.resource,
            "authorization_servers": self.authorization_servers,
            "scopes_supported": self.scopes_supported,
            "bearer_methods_supported": ["header"],
        })
    }

    /// The `WWW-Authenticate` value of a 401: `error` is set when a token was sent but refused.
    pub(crate) fn challenge(&self, error: Option<&str>) -> String {
        let mut parts = vec![format!("resource_metadata=\"{}\"", self.metadata_url())];
        if !self.scopes_supported.is_empty() {
            parts.push(format!("scope=\"{}\"", self.scopes_supported.join(" ")));
        }
        if let Some(e) = error {
            parts.insert(0, format!("error=\"{e}\""));
        }
        format!("Bearer {}", parts.join(", "))
    }

    /// The `WWW-Authenticate` value of a 403 for a token without `scopes`.
    pub(crate) fn insufficient_scope(&self, scopes: &[&str]) -> String {
        format!(
            "Bearer error=\"insufficient_scope\", scope=\"{}\", resource_metadata=\"{}\"",
            scopes.join(" "),
            self.metadata_url()
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(resource: &str) -> AuthConfig {
        AuthConfig::new(
            JwtVerifier::new(StaticJwks("{}".into()), "i", "a"),
            resource,
        )
    }

    #[test]
    fn the_metadata_lives_at_the_well_known_uri_of_the_resource() {
        let c = config("https://mcp.example.com/mcp");
        assert_eq!(
            c.metadata_path(),
            "/.well-known/oauth-protected-resource/mcp"
        );
        assert_eq!(
            c.metadata_url(),
            "https://mcp.example.com/.well-known/oauth-protected-resource/mcp"
        );
        let root = config("https://mcp.example.com");
        assert_eq!(
            root.metadata_path(),
            "/.well-known/oauth-protected-resource"
        );
    }

    #[test]
    fn scopes_come_from_scope_or_scp() {
        let mut claims = Map::new();
        claims.insert("sub".into(), "u".into());
        claims.insert("scope".into(), "a b".into());
        assert_eq!(principal_of(claims.clone()).unwrap().scopes, ["a", "b"]);
        claims.remove("scope");
        claims.insert("scp".into(), serde_json::json!(["c"]));
        assert_eq!(principal_of(claims.clone()).unwrap().scopes, ["c"]);
        claims.remove("sub");
        assert!(principal_of(claims).is_err());
    }
}
