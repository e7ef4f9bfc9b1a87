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

mod jwks;
mod jwt;

pub use jsonwebtoken::Algorithm;
#[cfg(feature = "jwks-url")]
pub use jwks::JwksUrl;
pub use jwks::{JwksFile, JwksSource, StaticJwks};
pub use jwt::JwtVerifier;

use crate::handler::Principal;
use crate::wire::BoxFuture;
use serde_json::{Map, Value};
use std::fmt;
use std::sync::Arc;

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
