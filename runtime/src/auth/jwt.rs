//! [`JwtVerifier`]: JWT access tokens checked against a key set, keys cached by `kid` and
//! refreshed at a bounded rate.

use super::{principal_of, AuthError, JwksSource, TokenVerifier};
use crate::handler::Principal;
use crate::wire::BoxFuture;
use jsonwebtoken::jwk::{JwkSet, KeyAlgorithm, PublicKeyUse};
use jsonwebtoken::Algorithm;
use jsonwebtoken::{decode, decode_header, DecodingKey, Validation};
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};
use std::collections::HashMap;
use std::fmt;
use std::sync::{Arc, RwLock};
use std::time::{Duration, Instant};

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

impl TokenVerifier for JwtVerifier {
    fn verify(&self, token: String) -> BoxFuture<Result<Principal, AuthError>> {
        let this = self.clone();
        Box::pin(async move { this.verify_jwt(&token).await })
    }
}
