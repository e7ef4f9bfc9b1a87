//! Finding who issues tokens for a resource: the server's challenge, its Protected Resource
//! Metadata (RFC 9728) and the authorization server's metadata (RFC 8414, OpenID discovery).

use super::*;

/// An authorization server, as its metadata (or the 2025-03-26 defaults) describes it.
#[derive(Debug, Clone)]
pub(crate) struct AuthServer {
    /// The issuer identifier, exactly as the metadata states it; `None` for a server without
    /// metadata.
    pub(crate) issuer: Option<String>,
    pub(crate) authorization_endpoint: String,
    pub(crate) token_endpoint: String,
    pub(crate) registration_endpoint: Option<String>,
    pub(crate) scopes_supported: Option<Vec<String>>,
    pub(crate) auth_methods: Option<Vec<String>>,
    pub(crate) metadata_documents: bool,
    pub(crate) iss_parameter: bool,
    /// It binds tokens to DPoP proofs signed with ES256.
    pub(crate) dpop: bool,
    /// It supports PKCE with S256 (a server without metadata is assumed to).
    pub(crate) pkce_s256: bool,
}

impl AuthServer {
    /// The key a registration is kept under: the issuer, or for a server without metadata its
    /// token endpoint.
    pub(crate) fn key(&self) -> &str {
        self.issuer.as_deref().unwrap_or(&self.token_endpoint)
    }
}

/// What discovery found: the resource to ask tokens for and who issues them.
#[derive(Debug)]
pub(crate) struct Discovered {
    pub(crate) resource: String,
    pub(crate) scopes_supported: Option<Vec<String>>,
    pub(crate) server: AuthServer,
}

/// Strings of a JSON array member.
pub(crate) fn strings(v: &Value, key: &str) -> Option<Vec<String>> {
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
pub(crate) fn resource_matches(resource: &str, identifiers: &[Url]) -> bool {
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
pub(crate) fn secure_endpoint(url: &Url, what: &str) -> Result<(), ClientError> {
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
        _ => Err(login_error(LoginStep::Discovery, format!(
            "the authorization server's {what} {url} is not HTTPS (only a loopback host may use plain HTTP)"
        ))),
    }
}

/// Where an authorization server's metadata may be, in the order to try: RFC 8414's
/// path-inserted URI, then OpenID Connect discovery's two forms.
pub(crate) fn metadata_urls(issuer: &Url) -> Vec<Url> {
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
    /// GET a JSON document: `None` when the server has none there (any non-2xx answer).
    pub(crate) async fn document(&self, url: &str) -> Result<Option<Value>, ClientError> {
        let req = hyper::Request::get(url)
            .header("accept", "application/json")
            .header(
                "mcp-protocol-version",
                crate::client::LATEST_PROTOCOL_VERSION,
            )
            .body(Vec::new())
            .map_err(|e| ClientError::transport(url, Cause::of(e)))?;
        let resp = self
            .exchange(req)
            .await
            .map_err(|e| ClientError::transport(e.0.clone(), Cause::of(e)))?;
        if !resp.status().is_success() {
            return Ok(None);
        }
        serde_json::from_slice(resp.body()).map(Some).map_err(|e| {
            login_error(
                LoginStep::Discovery,
                format!("{url}: not a JSON document: {e}"),
            )
        })
    }

    /// Find the resource's metadata and its authorization server. The metadata comes from the
    /// URL the challenge names, when that URL is HTTPS (or HTTP on a loopback host) on the MCP
    /// server's own origin; else from the well-known URIs derived from the server's URL (path,
    /// then root). Its `resource` must be the identifier its URL was derived from (RFC 9728
    /// §3.3): the server's URL, or for the root well-known URI the server's origin.
    pub(crate) async fn discover(&self, challenge: &Challenge) -> Result<Discovered, ClientError> {
        let server = Url::parse(&self.server)
            .map_err(|e| ClientError::transport(self.server.clone(), Cause::of(e)))?;
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
            .ok_or_else(|| {
                login_error(
                    LoginStep::Discovery,
                    "the protected resource metadata names no resource",
                )
            })?;
        if !resource_matches(resource, &identifiers) {
            return Err(login_error(
                LoginStep::Discovery,
                format!(
                    "the protected resource metadata is for {resource}, not {}",
                    self.server
                ),
            ));
        }
        let issuer = metadata
            .get("authorization_servers")
            .and_then(|a| a.get(0))
            .and_then(Value::as_str)
            .ok_or_else(|| {
                login_error(
                    LoginStep::Discovery,
                    "the protected resource metadata names no authorization server",
                )
            })?;
        Ok(Discovered {
            resource: resource.to_string(),
            scopes_supported: strings(&metadata, "scopes_supported"),
            server: self.auth_server(issuer, false).await?,
        })
    }

    /// The authorization server `issuer`'s metadata; for a 2025-03-26 server (`fallback`), the
    /// default endpoints when it has none.
    pub(crate) async fn auth_server(
        &self,
        issuer: &str,
        fallback: bool,
    ) -> Result<AuthServer, ClientError> {
        let base = Url::parse(issuer).map_err(|e| {
            login_error(
                LoginStep::Discovery,
                format!("authorization server {issuer}: {e}"),
            )
        })?;
        secure_endpoint(&base, "issuer")?;
        for url in metadata_urls(&base) {
            let Some(m) = self.document(url.as_str()).await? else {
                continue;
            };
            let stated = m.get("issuer").and_then(Value::as_str).unwrap_or_default();
            if stated != issuer {
                return Err(login_error(LoginStep::Discovery, format!(
                    "the authorization server metadata at {url} is for issuer {stated:?}, not {issuer:?}"
                )));
            }
            let endpoint = |key: &str| {
                let at = m.get(key).and_then(Value::as_str).ok_or_else(|| {
                    login_error(LoginStep::Discovery, format!("{url} has no {key}"))
                })?;
                let parsed = Url::parse(at).map_err(|e| {
                    login_error(LoginStep::Discovery, format!("{url}: {key} {at:?}: {e}"))
                })?;
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
            return Err(login_error(
                LoginStep::Discovery,
                format!("the authorization server {issuer} publishes no metadata"),
            ));
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
}
