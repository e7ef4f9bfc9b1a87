//! The JWTs the client signs: DPoP proofs (RFC 9449), which bind its tokens to a key it holds,
//! and client assertions (RFC 7523, `private_key_jwt`), with which it authenticates without a
//! secret.

use super::login_error;
use crate::client::ClientError;
use crate::client::LoginStep;
use jsonwebtoken::jwk::{
    AlgorithmParameters, CommonParameters, EllipticCurve, EllipticCurveKeyParameters,
    EllipticCurveKeyType, Jwk,
};
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use p256::pkcs8::EncodePrivateKey;
use serde_json::json;
use sha2::{Digest, Sha256};

use crate::wire::unix_seconds as now;

fn b64url(bytes: &[u8]) -> String {
    base64_simd::URL_SAFE_NO_PAD.encode_to_string(bytes)
}

/// A unique token id.
fn jti() -> Result<String, ClientError> {
    crate::wire::random_id()
        .ok_or_else(|| login_error(LoginStep::Assertion, "no randomness for a token id"))
}

/// The key a client's DPoP proofs are signed with (P-256, ES256): made once per client and
/// kept with its tokens, which are bound to it.
pub(crate) struct DpopKey {
    der: Vec<u8>,
    encoding: EncodingKey,
    jwk: Jwk,
}

impl DpopKey {
    /// A new random key.
    pub(crate) fn generate() -> Result<Self, ClientError> {
        let mut bytes = [0u8; 32];
        // A random 32-byte string is a valid scalar but with negligible probability.
        for _ in 0..8 {
            getrandom::getrandom(&mut bytes)
                .map_err(|e| login_error(LoginStep::Assertion, format!("no randomness: {e}")))?;
            if let Ok(key) = p256::ecdsa::SigningKey::from_slice(&bytes) {
                let der = key
                    .to_pkcs8_der()
                    .map_err(|e| login_error(LoginStep::Assertion, format!("DPoP key: {e}")))?;
                return Self::from_der(der.as_bytes());
            }
        }
        Err(login_error(
            LoginStep::Assertion,
            "could not make a DPoP key",
        ))
    }

    /// The key in `der` (PKCS #8), as [`DpopKey::der`] gave it.
    pub(crate) fn from_der(der: &[u8]) -> Result<Self, ClientError> {
        use p256::pkcs8::DecodePrivateKey;
        let key = p256::ecdsa::SigningKey::from_pkcs8_der(der)
            .map_err(|e| login_error(LoginStep::Assertion, format!("DPoP key: {e}")))?;
        let point = key.verifying_key().to_sec1_point(false);
        let (Some(x), Some(y)) = (point.x(), point.y()) else {
            return Err(login_error(
                LoginStep::Assertion,
                "DPoP key: no public point",
            ));
        };
        let jwk = Jwk {
            common: CommonParameters::default(),
            algorithm: AlgorithmParameters::EllipticCurve(EllipticCurveKeyParameters {
                key_type: EllipticCurveKeyType::EC,
                curve: EllipticCurve::P256,
                x: b64url(x),
                y: b64url(y),
            }),
        };
        Ok(DpopKey {
            der: der.to_vec(),
            encoding: EncodingKey::from_ec_der(der),
            jwk,
        })
    }

    /// The private key, PKCS #8 DER, to keep with the tokens bound to it.
    pub(crate) fn der(&self) -> &[u8] {
        &self.der
    }

    /// A proof for one HTTP request: `method` to `url` (its query and fragment left out),
    /// with the hash of `token` when it presents one, and the server's `nonce` when it asked
    /// for one.
    pub(crate) fn proof(
        &self,
        method: &str,
        url: &str,
        token: Option<&str>,
        nonce: Option<&str>,
    ) -> Result<String, ClientError> {
        let htu = url.split(['?', '#']).next().unwrap_or(url);
        let mut claims = json!({
            "jti": jti()?,
            "htm": method,
            "htu": htu,
            "iat": now(),
        });
        if let Some(token) = token {
            claims["ath"] = b64url(&Sha256::digest(token.as_bytes())).into();
        }
        if let Some(nonce) = nonce {
            claims["nonce"] = nonce.into();
        }
        let mut header = Header::new(Algorithm::ES256);
        header.typ = Some("dpop+jwt".to_string());
        header.jwk = Some(self.jwk.clone());
        jsonwebtoken::encode(&header, &claims, &self.encoding)
            .map_err(|e| login_error(LoginStep::Assertion, format!("DPoP proof: {e}")))
    }
}

/// A private key the client authenticates to the token endpoint with (`private_key_jwt`).
pub(crate) struct AssertionKey {
    encoding: EncodingKey,
    algorithm: Algorithm,
}

impl AssertionKey {
    /// The key in `pem` (PKCS #8, or PKCS #1 for RSA) for the JWS algorithm `algorithm`
    /// (`ES256`, `ES384`, `RS256`, `PS256`, `EdDSA`, ...).
    pub(crate) fn from_pem(pem: &str, algorithm: &str) -> Result<Self, ClientError> {
        let algorithm: Algorithm = algorithm.parse().map_err(|_| {
            login_error(
                LoginStep::Assertion,
                format!("unknown signing algorithm {algorithm}"),
            )
        })?;
        let pem = pem.as_bytes();
        let encoding = match algorithm {
            Algorithm::ES256 | Algorithm::ES384 => EncodingKey::from_ec_pem(pem),
            Algorithm::EdDSA => EncodingKey::from_ed_pem(pem),
            Algorithm::RS256
            | Algorithm::RS384
            | Algorithm::RS512
            | Algorithm::PS256
            | Algorithm::PS384
            | Algorithm::PS512 => EncodingKey::from_rsa_pem(pem),
            other => {
                return Err(login_error(
                    LoginStep::Assertion,
                    format!("{other:?} is not a signing algorithm for client assertions"),
                ))
            }
        }
        .map_err(|e| login_error(LoginStep::Assertion, format!("client assertion key: {e}")))?;
        Ok(AssertionKey {
            encoding,
            algorithm,
        })
    }

    /// A short-lived assertion that `client_id` is calling, for the authorization server
    /// `audience` (its issuer).
    pub(crate) fn assertion(&self, client_id: &str, audience: &str) -> Result<String, ClientError> {
        let issued = now();
        let claims = json!({
            "iss": client_id,
            "sub": client_id,
            "aud": audience,
            "iat": issued,
            "exp": issued + 300,
            "jti": jti()?,
        });
        jsonwebtoken::encode(&Header::new(self.algorithm), &claims, &self.encoding)
            .map_err(|e| login_error(LoginStep::Assertion, format!("client assertion: {e}")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use jsonwebtoken::{DecodingKey, Validation};

    #[test]
    fn a_dpop_proof_verifies_with_the_key_it_carries_and_binds_the_token() {
        let key = DpopKey::generate().unwrap();
        let proof = key
            .proof("POST", "https://h.example/mcp?x=1", Some("tok"), Some("n1"))
            .unwrap();
        let header = jsonwebtoken::decode_header(&proof).unwrap();
        assert_eq!(header.typ.as_deref(), Some("dpop+jwt"));
        let jwk = header.jwk.expect("the public key travels in the proof");
        let mut validation = Validation::new(Algorithm::ES256);
        validation.required_spec_claims.clear();
        validation.validate_exp = false;
        let claims = jsonwebtoken::decode::<serde_json::Value>(
            &proof,
            &DecodingKey::from_jwk(&jwk).unwrap(),
            &validation,
        )
        .unwrap()
        .claims;
        assert_eq!(claims["htm"], "POST");
        assert_eq!(claims["htu"], "https://h.example/mcp");
        assert_eq!(claims["nonce"], "n1");
        assert_eq!(claims["ath"], b64url(&Sha256::digest(b"tok")));
        // The same key again from its DER; every proof has its own id.
        let again = DpopKey::from_der(key.der()).unwrap();
        let other = again
            .proof("POST", "https://h.example/mcp", None, None)
            .unwrap();
        let ids = |p: &str| {
            jsonwebtoken::dangerous::insecure_decode::<serde_json::Value>(p)
                .unwrap()
                .claims["jti"]
                .clone()
        };
        assert_ne!(ids(&proof), ids(&other));
        assert_eq!(
            jsonwebtoken::decode_header(&other).unwrap().jwk,
            Some(jwk),
            "the key survives its DER"
        );
    }
}
