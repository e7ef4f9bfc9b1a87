//! How a host configures the login ([`OAuth`]): the grant, the client's identity, the issuer
//! its credentials belong to, and where tokens are kept.

use super::*;

/// Where a host's assertions come from: a workload's identity token, or a user's ID token
/// (read again on each login, so a token the platform rotates is picked up).
pub type AssertionSource = Arc<dyn Fn() -> BoxFuture<Result<String, ClientError>> + Send + Sync>;

/// Enterprise-managed authorization: the user's identity provider vouches for them to the
/// MCP server's authorization server.
#[derive(Clone)]
#[non_exhaustive]
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

impl Enterprise {
    /// The identity provider at `idp_token_endpoint`, where this client is `idp_client_id`,
    /// and where the user's ID token comes from (called each time one is needed).
    pub fn new(
        idp_token_endpoint: impl Into<String>,
        idp_client_id: impl Into<String>,
        id_token: AssertionSource,
    ) -> Self {
        Enterprise {
            idp_token_endpoint: idp_token_endpoint.into(),
            idp_client_id: idp_client_id.into(),
            idp_client_secret: None,
            id_token,
        }
    }

    /// The client's secret at the identity provider.
    #[must_use]
    pub fn idp_client_secret(mut self, secret: impl Into<String>) -> Self {
        self.idp_client_secret = Some(secret.into());
        self
    }
}

/// How the client obtains tokens.
#[derive(Clone)]
pub(crate) enum Grant {
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
pub(crate) const CLIENT_ASSERTION: &str = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer";

/// The JWT bearer grant type (RFC 7523).
pub(crate) const JWT_BEARER: &str = "urn:ietf:params:oauth:grant-type:jwt-bearer";

/// How a client logs in to OAuth-protected MCP servers; given to
/// [`Client::oauth`](crate::client::Client::oauth).
#[derive(Clone)]
pub struct OAuth {
    pub(crate) grant: Grant,
    pub(crate) client_name: String,
    pub(crate) application_type: String,
    pub(crate) pre_registered: Option<(String, Option<String>)>,
    /// The authorization server the configured credentials belong to, if the host named it.
    pub(crate) issuer: Option<String>,
    pub(crate) metadata_document: Option<String>,
    pub(crate) offline_access: bool,
    pub(crate) dpop: bool,
    pub(crate) max_attempts: u32,
    pub(crate) store: Arc<dyn TokenStore>,
}

impl OAuth {
    /// The defaults, with `grant`: no refresh token asked for but by a user's login.
    pub(crate) fn with_grant(grant: Grant) -> Self {
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
    pub(crate) fn configured_credentials(&self) -> bool {
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
