//! Obtaining a token: the authorization code grant with PKCE, client credentials, the JWT bearer
//! grant (workload identity, enterprise-managed authorization), and the redirect's checks.

use super::*;

impl Authorizer {
    /// Discover, register if need be, and obtain a token with the scopes the challenge asks
    /// for (joined with those asked for before from the same server).
    pub(crate) async fn authorize(
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
        let scopes = self.scopes_to_ask(&found, challenge, held);
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
                if let Err(e @ ClientError::Login { .. }) = &answer {
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
                self.code_grant(client, handler.as_ref(), server, &scopes, resource, &http)
                    .await?
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

    /// The scopes to ask `found`'s authorization server for: those the `challenge` names (else
    /// every scope the resource supports), those `held` already, and `offline_access` for a
    /// refresh token where the code grant may ask for it.
    fn scopes_to_ask(
        &self,
        found: &Discovered,
        challenge: &Challenge,
        held: Option<&Credentials>,
    ) -> BTreeSet<String> {
        let server = &found.server;
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
        scopes
    }

    /// The authorization code grant with PKCE (S256): the user approves at the authorization
    /// endpoint through the host's `handler`, and the code that comes back is exchanged.
    async fn code_grant(
        &self,
        client: super::authorizer::TokenClient,
        handler: &dyn AuthorizationHandler,
        server: &AuthServer,
        scopes: &BTreeSet<String>,
        resource: String,
        http: &OAuthHttp,
    ) -> Result<oauth2::basic::BasicTokenResponse, ClientError> {
        if !server.pkce_s256 {
            return Err(login_error(
                LoginStep::Discovery,
                format!(
                    "the authorization server {} does not support PKCE with S256",
                    server.key()
                ),
            ));
        }
        let auth = AuthUrl::new(server.authorization_endpoint.clone()).map_err(|e| {
            login_error(
                LoginStep::Discovery,
                format!(
                    "authorization endpoint {}: {e}",
                    server.authorization_endpoint
                ),
            )
        })?;
        let redirect = RedirectUrl::new(handler.redirect_uri())
            .map_err(|e| login_error(LoginStep::Authorization, format!("redirect URI: {e}")))?;
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
            .request_async(http)
            .await
            .map_err(token_error)
    }

    /// The JWT bearer grant (RFC 7523): a token for `assertion`.
    pub(crate) async fn jwt_bearer(
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
    pub(crate) async fn token_request(
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
            .map_err(|e| ClientError::transport(endpoint.to_string(), Cause::of(e)))?;
        let resp = OAuthHttp::send(http.http.clone(), http.dpop.clone(), req)
            .await
            .map_err(|e| ClientError::transport(e.0.clone(), Cause::of(e)))?;
        if !resp.status().is_success() {
            let refusal = serde_json::from_slice::<oauth2::basic::BasicErrorResponse>(resp.body())
                .map(|e| e.to_string())
                .unwrap_or_else(|_| format!("HTTP {}", resp.status()));
            return Err(login_error(
                LoginStep::Token,
                format!("the token endpoint {endpoint} refused: {refusal}"),
            ));
        }
        serde_json::from_slice(resp.body()).map_err(|e| {
            login_error(
                LoginStep::Token,
                format!("the token endpoint {endpoint} answered no token: {e}"),
            )
        })
    }

    /// The identity provider's ID-JAG for the user (RFC 8693 token exchange of their ID
    /// token), for `server` and the MCP server `resource`.
    pub(crate) async fn id_jag(
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
    pub(crate) fn code_from(
        back: &Url,
        state: &str,
        server: &AuthServer,
    ) -> Result<String, ClientError> {
        let query: BTreeMap<String, String> = back.query_pairs().into_owned().collect();
        if let Some(error) = query.get("error") {
            return Err(login_error(
                LoginStep::Authorization,
                format!(
                    "authorization refused: {error}{}",
                    query
                        .get("error_description")
                        .map(|d| format!(": {d}"))
                        .unwrap_or_default()
                ),
            ));
        }
        if query.get("state").map(String::as_str) != Some(state) {
            return Err(login_error(
                LoginStep::Authorization,
                "the authorization response's state is not this request's",
            ));
        }
        // RFC 9207: an `iss` must be the issuer's, compared as strings; a server that says it
        // sends one must send it.
        match (query.get("iss"), &server.issuer) {
            (Some(iss), Some(issuer)) if iss != issuer => {
                return Err(login_error(
                    LoginStep::Authorization,
                    format!(
                        "the authorization response comes from {iss:?}, not the issuer {issuer:?}"
                    ),
                ));
            }
            (Some(iss), None) => {
                return Err(login_error(
                    LoginStep::Authorization,
                    format!(
                        "the authorization response names an issuer ({iss:?}) where none was known"
                    ),
                ));
            }
            (None, _) if server.iss_parameter => {
                return Err(login_error(
                    LoginStep::Authorization,
                    "the authorization response lacks the iss its server promises",
                ));
            }
            _ => {}
        }
        query.get("code").cloned().ok_or_else(|| {
            login_error(
                LoginStep::Authorization,
                "the authorization response has no code",
            )
        })
    }
}
