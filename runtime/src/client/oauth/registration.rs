//! The client's identity at an authorization server: held, pre-registered, a Client ID Metadata
//! Document, or registered dynamically (RFC 7591).

use super::*;

/// The client's registration at one authorization server.
pub(crate) struct Registration {
    pub(crate) client_id: String,
    pub(crate) client_secret: Option<String>,
    pub(crate) auth_method: String,
}

impl Authorizer {
    /// The token endpoint authentication to use with a secret (or without one), from what
    /// the server supports (RFC 8414's default: `client_secret_basic`).
    pub(crate) fn auth_method(server: &AuthServer, has_secret: bool) -> String {
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
    pub(crate) async fn register(
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
        self.register_dynamically(server, scope).await
    }

    /// A new registration at `server`'s registration endpoint (RFC 7591), for the code grant
    /// with `scope`: the token endpoint's authentication is the first of `none`,
    /// `client_secret_basic` and `client_secret_post` the server supports.
    async fn register_dynamically(
        &self,
        server: &AuthServer,
        scope: &str,
    ) -> Result<Registration, ClientError> {
        let Some(endpoint) = &server.registration_endpoint else {
            return Err(login_error(
                LoginStep::Registration,
                format!(
                    "the authorization server {} offers no registration, and the client has no \
                 pre-registered credentials for it",
                    server.key()
                ),
            ));
        };
        let supported = server.auth_methods.clone().unwrap_or_default();
        let asked = ["none", "client_secret_basic", "client_secret_post"]
            .into_iter()
            .find(|m| supported.iter().any(|s| s == m))
            .unwrap_or("none");
        let Grant::Code(handler) = &self.config.grant else {
            return Err(login_error(
                LoginStep::Registration,
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
            .map_err(|e| ClientError::transport(endpoint.to_string(), Cause::of(e)))?;
        let resp = self
            .exchange(req)
            .await
            .map_err(|e| ClientError::transport(e.0.clone(), Cause::of(e)))?;
        let answer: Value = serde_json::from_slice(resp.body()).unwrap_or(Value::Null);
        if !resp.status().is_success() {
            return Err(login_error(
                LoginStep::Registration,
                format!(
                    "registration at {endpoint} refused (HTTP {}): {answer}",
                    resp.status()
                ),
            ));
        }
        let client_id = answer
            .get("client_id")
            .and_then(Value::as_str)
            .ok_or_else(|| {
                login_error(
                    LoginStep::Registration,
                    format!("registration at {endpoint} gave no client_id"),
                )
            })?;
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
}
