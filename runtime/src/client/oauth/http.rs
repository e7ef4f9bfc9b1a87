//! The OAuth machinery's HTTP exchanges: bounded bodies, DPoP proofs on token requests, and the
//! token endpoint's errors in words.

use super::*;

/// A failed HTTP exchange of the OAuth machinery (its `source()` is the cause).
#[derive(Debug)]
pub(crate) struct HttpFailure(pub(crate) String);

impl std::fmt::Display for HttpFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for HttpFailure {}

/// One HTTP exchange over `http`, its body read whole (up to a limit).
pub(crate) async fn exchange(
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
pub(crate) type DpopSigner = (Arc<DpopKey>, Arc<Mutex<Option<String>>>);

/// The client's HTTP client as token requests use it: with a DPoP proof on each, when the
/// tokens are to be bound, retried once with the nonce the server asks for (RFC 9449 §8).
pub(crate) struct OAuthHttp {
    pub(crate) http: HttpClient,
    pub(crate) dpop: Option<DpopSigner>,
}

impl OAuthHttp {
    pub(crate) async fn send(
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
pub(crate) fn token_type(t: &oauth2::basic::BasicTokenType) -> String {
    match t {
        oauth2::basic::BasicTokenType::Bearer => "Bearer".to_string(),
        oauth2::basic::BasicTokenType::Extension(e) if e.eq_ignore_ascii_case("dpop") => {
            "DPoP".to_string()
        }
        other => other.as_ref().to_string(),
    }
}

/// A token endpoint's refusal or failure, in words.
pub(crate) fn token_error<RE: std::error::Error + 'static, T: oauth2::ErrorResponse + 'static>(
    e: RequestTokenError<RE, T>,
) -> ClientError {
    match e {
        RequestTokenError::ServerResponse(r) => {
            login_error(LoginStep::Token, format!("the token endpoint refused: {r}"))
        }
        RequestTokenError::Request(r) => ClientError::Login {
            step: LoginStep::Token,
            detail: "the token endpoint could not be reached".into(),
            cause: Some(Cause::words(r.to_string())),
        },
        RequestTokenError::Parse(p, _) => login_error(
            LoginStep::Token,
            format!("the token endpoint's answer does not parse: {p}"),
        ),
        RequestTokenError::Other(o) => {
            login_error(LoginStep::Token, format!("token endpoint: {o}"))
        }
    }
}
