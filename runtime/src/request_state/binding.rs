//! What a token is bound to: the request's method, target, arguments, principal and version,
//! digested in a canonical form, and the handler's fingerprint.

use super::*;

/// What a token is bound to: it opens only for the same values.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Binding<'a> {
    /// `tools/call`, `prompts/get` or `resources/read`.
    pub method: &'a str,
    /// The tool or prompt name, or the resource URI.
    pub target: &'a str,
    /// The arguments (tool or prompt); canonicalised before hashing.
    pub arguments: Option<&'a Map<String, Value>>,
    /// Who the transport says is calling, when it knows.
    pub principal: Option<&'a str>,
    /// The request's protocol version.
    pub protocol_version: &'a str,
}

/// The SHA-256 digest of a [`Binding`]: computed once per request, it opens the request's state
/// and seals the next one (the AEAD's associated data).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct BindingDigest(pub(crate) [u8; 32]);

impl Binding<'_> {
    /// This binding's digest, for [`RequestStateCodec::seal_bound`] and [`RequestStateCodec::open_bound`].
    pub(crate) fn digest(&self) -> BindingDigest {
        // The encoding is built in one buffer and hashed at once: many small `update` calls
        // cost more than the hashing itself for typical arguments.
        let mut buf = Vec::with_capacity(256);
        for part in [self.method, self.target] {
            push_str(&mut buf, part);
        }
        match self.arguments {
            Some(args) => {
                buf.push(b'a');
                push_object(&mut buf, args);
            }
            None => buf.push(b'-'),
        }
        push_str(&mut buf, self.principal.unwrap_or(""));
        push_str(&mut buf, self.protocol_version);
        BindingDigest(Sha256::digest(&buf).into())
    }
}

/// A length-prefixed string.
pub(crate) fn push_str(buf: &mut Vec<u8>, s: &str) {
    buf.extend_from_slice(&(s.len() as u64).to_be_bytes());
    buf.extend_from_slice(s.as_bytes());
}

/// `v` in an unambiguous, key-order-independent encoding (a type tag, then length-prefixed
/// contents; object members sorted by key), so equal arguments hash equally whatever order
/// the client sent the keys in, without building a sorted copy.
pub(crate) fn push_canonical(buf: &mut Vec<u8>, v: &Value) {
    match v {
        Value::Null => buf.push(b'n'),
        Value::Bool(b) => buf.push(if *b { b't' } else { b'f' }),
        Value::Number(n) => {
            // As `push_str` of the number's JSON text, written in place (no `String`): the
            // length goes in front once the text is there.
            buf.push(b'#');
            let at = buf.len();
            buf.extend_from_slice(&[0; 8]);
            // Writing into a `Vec` cannot fail.
            let _ = write!(buf, "{n}");
            let len = (buf.len() - at - 8) as u64;
            buf[at..at + 8].copy_from_slice(&len.to_be_bytes());
        }
        Value::String(s) => {
            buf.push(b's');
            push_str(buf, s);
        }
        Value::Array(items) => {
            buf.push(b'[');
            buf.extend_from_slice(&(items.len() as u64).to_be_bytes());
            for item in items {
                push_canonical(buf, item);
            }
        }
        Value::Object(map) => push_object(buf, map),
    }
}

/// An object in the encoding of [`push_canonical`].
pub(crate) fn push_object(buf: &mut Vec<u8>, map: &Map<String, Value>) {
    buf.push(b'{');
    buf.extend_from_slice(&(map.len() as u64).to_be_bytes());
    let mut entries: Vec<(&String, &Value)> = map.iter().collect();
    entries.sort_unstable_by(|a, b| a.0.cmp(b.0));
    for (k, v) in entries {
        push_str(buf, k);
        push_canonical(buf, v);
    }
}

/// The digest of a handler fingerprint kept in a token: enough to tell one version of a handler
/// from another (authenticity comes from the AEAD, not from this). The server computes it once
/// per handler, when the handler is registered, instead of on every open and seal.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct FingerprintDigest(pub(crate) [u8; FINGERPRINT_LEN]);

impl FingerprintDigest {
    /// The digest of `fingerprint`.
    pub(crate) fn of(fingerprint: &str) -> Self {
        let mut out = [0u8; FINGERPRINT_LEN];
        out.copy_from_slice(&Sha256::digest(fingerprint.as_bytes())[..FINGERPRINT_LEN]);
        FingerprintDigest(out)
    }
}
