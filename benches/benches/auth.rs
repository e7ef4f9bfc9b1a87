//! The cost per request of bearer authentication: verifying one JWT access token with
//! `oxmcp::auth::JwtVerifier` (key cached by `kid`, so no JWKS fetch), for an RS256 and an
//! ES256 token signed with the test keys of `runtime/tests/keys`: the first time a token is
//! seen (signature and claims checked) and again (the verifier's cache of verified tokens).

use criterion::{black_box, criterion_group, criterion_main, Criterion};
use jsonwebtoken::{encode, Algorithm, EncodingKey, Header};
use oxmcp::auth::{JwtVerifier, StaticJwks};
use serde_json::json;
use std::path::PathBuf;

fn keys() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join("runtime")
        .join("tests")
        .join("keys")
}

fn bench(c: &mut Criterion) {
    let read = |name: &str| std::fs::read(keys().join(name)).expect("a test key");
    let jwks = String::from_utf8(read("jwks.json")).expect("UTF-8");
    let audience = "https://mcp.example.com/mcp";
    let issuer = "https://auth.example.com";
    let verifier = JwtVerifier::new(StaticJwks(jwks), issuer, audience);
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .expect("after 1970")
        .as_secs();
    let claims = json!({"sub": "alice", "iss": issuer, "aud": audience, "exp": now + 3600,
                        "scope": "read write"});
    let sign = |alg, kid: &str, key: EncodingKey| {
        let mut header = Header::new(alg);
        header.kid = Some(kid.into());
        encode(&header, &claims, &key).expect("signs")
    };
    let rs = sign(
        Algorithm::RS256,
        "rsa-1",
        EncodingKey::from_rsa_pem(&read("rsa.pem")).expect("RSA key"),
    );
    let es = sign(
        Algorithm::ES256,
        "ec-1",
        EncodingKey::from_ec_pem(&read("ec.pem")).expect("EC key"),
    );
    let rt = tokio::runtime::Builder::new_current_thread()
        .build()
        .expect("a runtime");
    // Warm the key cache once, as the first request of a running server does.
    for token in [&rs, &es] {
        rt.block_on(verifier.verify_jwt(token)).expect("valid");
    }
    let mut group = c.benchmark_group("auth");
    for (name, token) in [("RS256", &rs), ("ES256", &es)] {
        // A token seen for the first time: signature and claims checked.
        group.bench_function(format!("verify {name}, first sight"), |b| {
            b.iter(|| {
                rt.block_on(verifier.verify_jwt_uncached(black_box(token)))
                    .expect("valid")
            })
        });
        // The same token again (clients reuse their access token): answered from the cache.
        group.bench_function(format!("verify {name}, seen before"), |b| {
            b.iter(|| {
                rt.block_on(verifier.verify_jwt(black_box(token)))
                    .expect("valid")
            })
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
