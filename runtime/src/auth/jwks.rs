//! Where a [`JwtVerifier`](super::JwtVerifier) gets its keys: a file, a URL, a document, a
//! function.

use super::AuthError;
use crate::wire::BoxFuture;
#[cfg(feature = "jwks-url")]
use std::fmt;
use std::path::PathBuf;
#[cfg(feature = "jwks-url")]
use std::time::Duration;

/// Where a [`JwtVerifier`](super::JwtVerifier) gets its JSON Web Key Set (a JSON document `{"keys": [...]}`).
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
