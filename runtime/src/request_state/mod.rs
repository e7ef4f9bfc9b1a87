//! Sealed `requestState`: the journal of an MRTR call, encrypted and authenticated with a key
//! ring, bound to the request it belongs to, and given an expiry.
//!
//! Token layout, format version 3 (then base64url without padding):
//! `version (1) | key id (1) | nonce (12) | AES-256-GCM-SIV ciphertext of the payload | tag (16)`,
//! where the payload is `expiry (Unix seconds, u64 big-endian) | handler fingerprint digest (8) |
//! journal`, and the journal is its entry count, then its entries in order, each `key length |
//! key | value length | value` (count and lengths as LEB128 varints, key in UTF-8, value the
//! entry's JSON text). The value is JSON this server wrote and the AEAD vouches for, so opening a
//! token only frames and copies it; it is parsed once, into the type its `await` wants, when a
//! replay reads it. The associated data is a SHA-256 digest of the [`Binding`] (method,
//! tool/prompt name or resource URI, a digest of the arguments, principal, protocol version), so
//! a token opens only for the request it was issued for.
//!
//! AES-GCM-SIV (RFC 8452) is misuse-resistant: nonces never repeat within a process and are
//! random across processes, and should two ever collide under one key, all that leaks is whether
//! the two payloads were identical. With AES-NI
//! it is also several times faster than a ChaCha20-based AEAD at token sizes, and its 12-byte
//! nonce keeps the fixed part of a token at 46 bytes before base64.

use aes_gcm_siv::aead::{AeadInOut, KeyInit};
use aes_gcm_siv::{Aes256GcmSiv, Nonce, Tag};
use base64_simd::URL_SAFE_NO_PAD;
use indexmap::IndexMap;
use serde_json::value::RawValue;
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};
use std::fmt;
use std::io::Write as _;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, OnceLock};
use std::time::Duration;
use zeroize::{Zeroize, Zeroizing};

/// Recorded answers and step results by key, each kept as JSON text: opening a token only frames
/// and copies that text, and a replay parses an entry straight into the type its `await` wants.
pub type Journal = IndexMap<String, Recorded>;

/// One journal entry: the JSON text of an answer or a step's result, as this server recorded it.
/// It serializes as that JSON (not as a string), so a task record stores it as it is.
#[derive(Clone, PartialEq, Eq)]
pub struct Recorded(Box<str>);

impl Recorded {
    /// The entry's JSON text.
    pub fn get(&self) -> &str {
        &self.0
    }

    /// `value` recorded as JSON.
    pub fn of<T: serde_core::Serialize + ?Sized>(value: &T) -> serde_json::Result<Self> {
        serde_json::to_string(value).map(|text| Recorded(text.into_boxed_str()))
    }

    /// Text this server wrote and an authenticated token returned: kept without parsing it.
    fn trusted(text: &str) -> Self {
        Recorded(text.into())
    }
}

impl fmt::Debug for Recorded {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl serde_core::Serialize for Recorded {
    fn serialize<S: serde_core::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let raw: &RawValue =
            crate::wire::from_text(&self.0).map_err(serde_core::ser::Error::custom)?;
        raw.serialize(serializer)
    }
}

impl<'de> serde_core::Deserialize<'de> for Recorded {
    fn deserialize<D: serde_core::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let raw = Box::<RawValue>::deserialize(deserializer)?;
        Ok(Recorded(raw.into()))
    }
}

/// A journal from JSON values (for tests, tools and benchmarks that build one by hand).
#[cfg(any(test, feature = "bench"))]
pub fn journal_of<K: Into<String>>(entries: impl IntoIterator<Item = (K, Value)>) -> Journal {
    entries
        .into_iter()
        .filter_map(|(k, v)| Some((k.into(), Recorded::of(&v).ok()?)))
        .collect()
}

/// A byte buffer that is wiped when dropped, all of its capacity at once (the zeroize crate's
/// slice fill, with its optimization barrier). `Zeroizing<Vec<u8>>` wipes a `Vec` one volatile
/// byte at a time, which showed in the profile of opening a token.
struct Wiped(Vec<u8>);

impl Drop for Wiped {
    fn drop(&mut self) {
        self.0.as_mut_slice().zeroize();
        self.0.spare_capacity_mut().zeroize();
    }
}

impl std::ops::Deref for Wiped {
    type Target = Vec<u8>;
    fn deref(&self) -> &Vec<u8> {
        &self.0
    }
}

impl std::ops::DerefMut for Wiped {
    fn deref_mut(&mut self) -> &mut Vec<u8> {
        &mut self.0
    }
}

/// The token format version this build writes and reads.
const VERSION: u8 = 3;
const NONCE_LEN: usize = 12;
/// Version, key id, nonce: sent in the clear; a changed nonce or key id fails authentication.
const HEADER_LEN: usize = 2 + NONCE_LEN;
const FINGERPRINT_LEN: usize = 8;
/// Expiry and fingerprint digest, the encrypted part before the journal.
const FIXED_LEN: usize = 8 + FINGERPRINT_LEN;
const TAG_LEN: usize = 16;

/// What identifies one token for single-use enforcement: its authentication tag, which differs
/// between any two tokens (random nonce, and the tag covers nonce and payload).
pub type TokenId = [u8; TAG_LEN];

/// One state-sealing key: at least 32 bytes of secret, never printed; the cipher's expanded key
/// is zeroized on drop.
pub struct SealingKey {
    id: u8,
    cipher: Aes256GcmSiv,
}

impl SealingKey {
    /// A key with id `id` from `secret` (at least 32 bytes; longer secrets are hashed down).
    pub fn new(id: u8, secret: &[u8]) -> Result<Self, KeyRingError> {
        if secret.len() < 32 {
            return Err(KeyRingError(format!(
                "request-state key {id}: {} bytes, need at least 32",
                secret.len()
            )));
        }
        let mut key = Zeroizing::new([0u8; 32]);
        if secret.len() == 32 {
            key.copy_from_slice(secret);
        } else {
            key.copy_from_slice(&Sha256::digest(secret));
        }
        let cipher = Aes256GcmSiv::new((&*key).into());
        Ok(SealingKey { id, cipher })
    }

    /// A fresh random key with id `id`.
    pub fn random(id: u8) -> Result<Self, KeyRingError> {
        let mut secret = Zeroizing::new([0u8; 32]);
        getrandom::getrandom(secret.as_mut())
            .map_err(|e| KeyRingError(format!("no randomness for a request-state key: {e}")))?;
        Self::new(id, secret.as_ref())
    }

    /// A fresh random key as an `MCP_STATE_KEYS` entry, `id:<64 hex digits>`, for
    /// [`KeyRing::parse`]. Print one with `cargo run -p oxmcp --example state-key -- ID`.
    pub fn generate_entry(id: u8) -> Result<String, KeyRingError> {
        let mut secret = Zeroizing::new([0u8; 32]);
        getrandom::getrandom(secret.as_mut())
            .map_err(|e| KeyRingError(format!("no randomness for a request-state key: {e}")))?;
        let mut entry = format!("{id}:");
        crate::wire::push_hex(&mut entry, secret.as_ref());
        Ok(entry)
    }

    /// The key id written into tokens.
    pub fn id(&self) -> u8 {
        self.id
    }
}

impl fmt::Debug for SealingKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SealingKey")
            .field("id", &self.id)
            .field("key", &"<redacted>")
            .finish()
    }
}

/// A bad key configuration.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyRingError(pub String);

impl fmt::Display for KeyRingError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for KeyRingError {}

/// The environment variable [`KeyRing::from_env`] reads: `id:hex` pairs, oldest first.
pub const KEY_RING_ENV: &str = "MCP_STATE_KEYS";

/// The key ring: tokens are sealed with the newest key and opened with whichever key their id
/// names, so keys can rotate without breaking flows in progress.
///
/// Rotating across instances that restart one at a time takes three steps, each rolled out to
/// every instance before the next: add the new key *staged* (it opens tokens, seals none:
/// `1:...,+2:...`), so no instance meets a token sealed with a key it lacks; make it the
/// sealing key (`1:...,2:...`); and once the state lifetime has passed, drop the old one
/// (`2:...`).
#[derive(Debug)]
pub struct KeyRing {
    /// Oldest first; the last one seals.
    keys: Vec<SealingKey>,
    /// Keys that open tokens but seal none yet (a rotation's first step).
    staged: Vec<SealingKey>,
}

impl KeyRing {
    /// A ring from keys, oldest first. Key ids must be unique.
    pub fn new(keys: Vec<SealingKey>) -> Result<Self, KeyRingError> {
        if keys.is_empty() {
            return Err(KeyRingError("the request-state key ring is empty".into()));
        }
        for (i, k) in keys.iter().enumerate() {
            if keys[..i].iter().any(|o| o.id == k.id) {
                return Err(KeyRingError(format!(
                    "duplicate request-state key id {}",
                    k.id
                )));
            }
        }
        Ok(KeyRing {
            keys,
            staged: Vec::new(),
        })
    }

    /// The ring with `key` staged: tokens sealed with it open, but it seals none (the first
    /// step of a rotation; see [`KeyRing`]).
    pub fn stage(mut self, key: SealingKey) -> Result<Self, KeyRingError> {
        if self.by_id(key.id).is_some() {
            return Err(KeyRingError(format!(
                "duplicate request-state key id {}",
                key.id
            )));
        }
        self.staged.push(key);
        Ok(self)
    }

    /// A ring with one random key (for a server started without configured keys: flows then
    /// survive only as long as this process, and only on this instance).
    pub fn random() -> Result<Self, KeyRingError> {
        Self::new(vec![SealingKey::random(0)?])
    }

    /// A ring from text such as `1:9f86d0...,2:60303a...`: comma-separated `id:hex` pairs,
    /// oldest first, each secret at least 32 bytes (64 hex digits); a pair written `+id:hex` is
    /// staged (it opens tokens, seals none). The usual way to hand every instance the same ring
    /// (e.g. through an environment variable).
    pub fn parse(text: &str) -> Result<Self, KeyRingError> {
        let mut keys = Vec::new();
        let mut staged = Vec::new();
        for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let (part, to) = match part.strip_prefix('+') {
                Some(rest) => (rest, &mut staged),
                None => (part, &mut keys),
            };
            let (id, hex) = part
                .split_once(':')
                .ok_or_else(|| KeyRingError("request-state keys are `id:hex` pairs".into()))?;
            let id: u8 = id
                .trim()
                .parse()
                .map_err(|_| KeyRingError(format!("request-state key id `{id}` is not 0-255")))?;
            let hex = hex.trim();
            if hex.len() % 2 != 0 || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
                return Err(KeyRingError(format!("request-state key {id} is not hex")));
            }
            let bytes: Zeroizing<Vec<u8>> = Zeroizing::new(
                (0..hex.len())
                    .step_by(2)
                    .filter_map(|i| u8::from_str_radix(&hex[i..i + 2], 16).ok())
                    .collect(),
            );
            to.push(SealingKey::new(id, &bytes)?);
        }
        let mut ring = Self::new(keys)?;
        for key in staged {
            ring = ring.stage(key)?;
        }
        Ok(ring)
    }

    /// The ring in the environment variable [`KEY_RING_ENV`] (`MCP_STATE_KEYS`), in the form
    /// [`KeyRing::parse`] reads; `None` when it is unset or empty. A malformed value is an
    /// error naming the variable, never a silent fallback.
    pub fn from_env() -> Result<Option<Self>, KeyRingError> {
        match std::env::var(KEY_RING_ENV) {
            Ok(text) if !text.trim().is_empty() => Self::parse(&text)
                .map(Some)
                .map_err(|e| KeyRingError(format!("{KEY_RING_ENV}: {e}"))),
            Ok(_) | Err(std::env::VarError::NotPresent) => Ok(None),
            Err(std::env::VarError::NotUnicode(_)) => {
                Err(KeyRingError(format!("{KEY_RING_ENV} is not valid UTF-8")))
            }
        }
    }

    /// The ring with `key` added as the newest (it seals from now on).
    pub fn rotate(mut self, key: SealingKey) -> Result<Self, KeyRingError> {
        self.staged.retain(|k| k.id != key.id);
        self.keys.push(key);
        let staged = std::mem::take(&mut self.staged);
        let mut ring = Self::new(self.keys)?;
        for key in staged {
            ring = ring.stage(key)?;
        }
        Ok(ring)
    }

    fn sealing(&self) -> &SealingKey {
        // `new` refuses an empty ring.
        &self.keys[self.keys.len() - 1]
    }

    fn by_id(&self, id: u8) -> Option<&SealingKey> {
        self.keys.iter().chain(&self.staged).find(|k| k.id == id)
    }
}

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
pub(crate) struct BindingDigest([u8; 32]);

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
fn push_str(buf: &mut Vec<u8>, s: &str) {
    buf.extend_from_slice(&(s.len() as u64).to_be_bytes());
    buf.extend_from_slice(s.as_bytes());
}

/// `v` in an unambiguous, key-order-independent encoding (a type tag, then length-prefixed
/// contents; object members sorted by key), so equal arguments hash equally whatever order
/// the client sent the keys in, without building a sorted copy.
fn push_canonical(buf: &mut Vec<u8>, v: &Value) {
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
fn push_object(buf: &mut Vec<u8>, map: &Map<String, Value>) {
    buf.push(b'{');
    buf.extend_from_slice(&(map.len() as u64).to_be_bytes());
    let mut entries: Vec<(&String, &Value)> = map.iter().collect();
    entries.sort_unstable_by(|a, b| a.0.cmp(b.0));
    for (k, v) in entries {
        push_str(buf, k);
        push_canonical(buf, v);
    }
}

/// The most bytes a LEB128 varint of a `usize` takes.
const MAX_VARINT_LEN: usize = 10;

/// `n` as a LEB128 varint.
fn push_varint(buf: &mut Vec<u8>, mut n: usize) {
    while n >= 0x80 {
        buf.push((n as u8 & 0x7f) | 0x80);
        n >>= 7;
    }
    buf.push(n as u8);
}

/// `bytes`, preceded by its length as a LEB128 varint.
fn push_framed(buf: &mut Vec<u8>, bytes: &[u8]) {
    push_varint(buf, bytes.len());
    buf.extend_from_slice(bytes);
}

/// The LEB128 varint at the start of `input`, advancing past it; `None` if it does not end or
/// does not fit a `usize`.
fn next_varint(input: &mut &[u8]) -> Option<usize> {
    let mut n: usize = 0;
    let mut shift = 0;
    loop {
        let (&byte, rest) = input.split_first()?;
        *input = rest;
        n |= usize::from(byte & 0x7f).checked_shl(shift)?;
        if byte & 0x80 == 0 {
            return Some(n);
        }
        shift += 7;
        if shift >= usize::BITS {
            return None;
        }
    }
}

/// The next length-prefixed UTF-8 string of `input` (see [`push_framed`]), advancing past it;
/// `None` if the framing or the UTF-8 is broken.
fn next_framed<'a>(input: &mut &'a [u8]) -> Option<&'a str> {
    let len = next_varint(input)?;
    if len > input.len() {
        return None;
    }
    let (text, rest) = input.split_at(len);
    *input = rest;
    std::str::from_utf8(text).ok()
}

/// The journal framed in an opened payload (its entry count, then its entries in order); `None`
/// unless the count and the entries agree exactly.
fn read_journal(mut input: &[u8]) -> Option<Journal> {
    let count = next_varint(&mut input)?;
    // An entry takes at least two bytes: a count past that is not believed for the allocation.
    let mut journal = Journal::with_capacity(count.min(input.len() / 2));
    for _ in 0..count {
        let key = next_framed(&mut input)?;
        let value = next_framed(&mut input)?;
        journal.insert(key.to_owned(), Recorded::trusted(value));
    }
    // Every byte read, and no key twice (a map wrote it, so each key is there once).
    (input.is_empty() && journal.len() == count).then_some(journal)
}

/// The digest of a handler fingerprint kept in a token: enough to tell one version of a handler
/// from another (authenticity comes from the AEAD, not from this). The server computes it once
/// per handler, when the handler is registered, instead of on every open and seal.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct FingerprintDigest([u8; FINGERPRINT_LEN]);

impl FingerprintDigest {
    /// The digest of `fingerprint`.
    pub(crate) fn of(fingerprint: &str) -> Self {
        let mut out = [0u8; FINGERPRINT_LEN];
        out.copy_from_slice(&Sha256::digest(fingerprint.as_bytes())[..FINGERPRINT_LEN]);
        FingerprintDigest(out)
    }
}

/// The opened content of a token.
#[derive(Debug, Clone)]
pub struct Sealed {
    /// Unix time (seconds) after which the token is refused.
    pub expires_at: u64,
    /// Digest of the handler fingerprint the journal was recorded by.
    fingerprint: [u8; FINGERPRINT_LEN],
    /// Recorded answers and step results, by key.
    pub journal: Journal,
    /// The token's identity, as single use records it.
    pub(crate) token_id: TokenId,
}

impl Sealed {
    /// Whether the journal was recorded by the handler with this fingerprint (a handler whose
    /// code changed between rounds starts over instead of replaying a journal it did not write).
    pub fn recorded_by(&self, fingerprint: &str) -> bool {
        self.recorded_by_digest(&FingerprintDigest::of(fingerprint))
    }

    /// [`Sealed::recorded_by`] for a fingerprint whose digest the caller already has.
    pub(crate) fn recorded_by_digest(&self, fingerprint: &FingerprintDigest) -> bool {
        self.fingerprint == fingerprint.0
    }
}

/// Why a token was refused. Logged server-side; the client only ever sees "invalid requestState".
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RequestStateError {
    /// Longer than the configured cap.
    Oversize(usize),
    /// Not base64url, too short, or an unknown format version.
    Malformed(&'static str),
    /// Its key id is not in the ring (rotated out, or forged).
    UnknownKey(u8),
    /// Authentication failed: tampered, or bound to another request, principal or version.
    Authentication,
    /// The payload did not decode.
    Payload,
    /// Past its expiry.
    Expired,
    /// Already used once, and single use is enforced.
    Replayed,
    /// The shared single-use check could not be made (its store is unreachable); the token is
    /// refused rather than risk a second use.
    GuardUnavailable(String),
}

impl fmt::Display for RequestStateError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RequestStateError::Oversize(n) => write!(f, "token of {n} bytes exceeds the size cap"),
            RequestStateError::Malformed(why) => write!(f, "malformed token: {why}"),
            RequestStateError::UnknownKey(id) => write!(f, "unknown key id {id}"),
            RequestStateError::Authentication => {
                f.write_str("authentication failed (tampered, or bound to another request)")
            }
            RequestStateError::Payload => f.write_str("payload does not decode"),
            RequestStateError::Expired => f.write_str("expired"),
            RequestStateError::Replayed => f.write_str("already used"),
            RequestStateError::GuardUnavailable(why) => {
                write!(f, "the shared single-use check is unavailable: {why}")
            }
        }
    }
}

/// The answer of a [`SharedReplayGuard`]: whether this is the token's first use, or why it
/// could not be told.
pub type GuardFuture<'a> =
    std::pin::Pin<Box<dyn std::future::Future<Output = Result<bool, String>> + Send + 'a>>;

/// Single use across instances: a check every instance makes against a store they share (e.g.
/// `oxmcp::redis::RedisReplayGuard`), on top of the in-process [`ReplayGuard`], so a
/// state opens once whichever instance the retry reaches.
pub trait SharedReplayGuard: Send + Sync {
    /// Record `token_id` as used until `expires_at` (Unix seconds); `Ok(false)` if any instance
    /// used it before.
    fn first_use(&self, token_id: TokenId, expires_at: u64) -> GuardFuture<'_>;
    /// Forget a use whose retry was refused before it had any effect (best effort).
    fn release(&self, token_id: TokenId);
}

/// Enforces single use of tokens: a state opens once, so a replayed retry cannot run the rest
/// of a call a second time. The server uses an [`InMemoryReplayGuard`] by default; a shared
/// store extends the guarantee across instances.
pub trait ReplayGuard: Send + Sync {
    /// Record `token_id` as used until `expires_at`; false if it was already used.
    fn first_use(&self, token_id: TokenId, expires_at: u64) -> bool;
    /// Forget a use: the retry that claimed `token_id` was refused before it had any effect, so
    /// the state may be sent again. The default keeps the claim.
    fn release(&self, token_id: TokenId) {
        let _ = token_id;
    }
}

/// An in-process [`ReplayGuard`] (one instance only; use a shared store across instances). It
/// remembers each opened token until it expires, so its memory is the rate of retries times the
/// state lifetime (about 9 to 18 bytes a token), up to `capacity` tokens; past that the tokens
/// that expire first are forgotten first, and only they lose their protection.
///
/// Tokens are kept in sets by expiry, one set per [`Self::BUCKET_SECS`] seconds of expiry
/// times, under the first 8 bytes of their id: an id is an AEAD tag, which nobody without the
/// key can choose, so two tokens opened within one lifetime share those bytes with a chance
/// near 2^-64 per pair. A set goes whole once every expiry in it has passed, so nothing is
/// kept per token but its 8 bytes, and nothing is scanned.
#[derive(Debug)]
pub struct InMemoryReplayGuard {
    seen: Mutex<Seen>,
    capacity: usize,
}

/// The 8-byte prefixes of opened tokens' ids, in sets by expiry bucket (the bucket's first
/// second divided by [`InMemoryReplayGuard::BUCKET_SECS`]), and how many there are in all.
/// The buckets are kept in order of expiry: a state lifetime spans a few hundred at most, new
/// ones nearly always go last, and the first goes once per bucket width.
#[derive(Debug, Default)]
struct Seen {
    buckets: Vec<(u64, TagSet)>,
    len: usize,
}

/// A set of tag prefixes: the tags are already uniformly distributed, so they are their own
/// hash (mixed by one multiplication, in case a caller passes ids that are not tags).
type TagSet = std::collections::HashSet<u64, std::hash::BuildHasherDefault<TagHasher>>;

/// The hasher of [`TagSet`]: one multiplication by an odd constant.
#[derive(Debug, Default)]
struct TagHasher(u64);

impl std::hash::Hasher for TagHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut word = [0u8; 8];
            word[..chunk.len()].copy_from_slice(chunk);
            self.write_u64(u64::from_le_bytes(word));
        }
    }

    fn write_u64(&mut self, n: u64) {
        self.0 = (self.0 ^ n).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    }
}

impl InMemoryReplayGuard {
    /// Tokens remembered at most by default: a million, about 9 to 18 MB.
    pub const DEFAULT_CAPACITY: usize = 1_000_000;
    /// Width of an expiry bucket in seconds: a bucket is forgotten whole when its last expiry
    /// has passed, or when it holds the earliest expiries and the guard is full.
    pub const BUCKET_SECS: u64 = 8;

    /// A guard that remembers at most `capacity` tokens at once.
    pub fn with_capacity(capacity: usize) -> Self {
        InMemoryReplayGuard {
            seen: Mutex::default(),
            capacity: capacity.max(1),
        }
    }

    /// Tokens remembered now.
    pub fn len(&self) -> usize {
        crate::wire::lock(&self.seen).len
    }

    /// Whether no token is remembered.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl Default for InMemoryReplayGuard {
    fn default() -> Self {
        Self::with_capacity(Self::DEFAULT_CAPACITY)
    }
}

/// The part of a token id the guard keeps.
fn tag_prefix(token_id: &TokenId) -> u64 {
    let mut prefix = [0u8; 8];
    prefix.copy_from_slice(&token_id[..8]);
    u64::from_le_bytes(prefix)
}

impl Seen {
    /// Forget the bucket of the earliest expiries.
    fn pop_first(&mut self) {
        if !self.buckets.is_empty() {
            let (_, set) = self.buckets.remove(0);
            self.len -= set.len();
        }
    }

    /// Where `bucket` is, or where it would go to keep the order.
    fn find(&self, bucket: u64) -> Result<usize, usize> {
        self.buckets.binary_search_by_key(&bucket, |(b, _)| *b)
    }
}

impl ReplayGuard for InMemoryReplayGuard {
    fn first_use(&self, token_id: TokenId, expires_at: u64) -> bool {
        let now = unix_now();
        let bucket = expires_at / Self::BUCKET_SECS;
        let tag = tag_prefix(&token_id);
        let mut seen = crate::wire::lock(&self.seen);
        // A bucket whose every expiry has passed: each of its tokens is refused as expired
        // before it gets here.
        while seen
            .buckets
            .first()
            .is_some_and(|(b, _)| (b + 1).saturating_mul(Self::BUCKET_SECS) <= now)
        {
            seen.pop_first();
        }
        if let Ok(at) = seen.find(bucket) {
            if seen.buckets[at].1.contains(&tag) {
                return false;
            }
        }
        while seen.len >= self.capacity && !seen.buckets.is_empty() {
            seen.pop_first();
        }
        // Found again: making room may have forgotten buckets before it.
        let at = match seen.find(bucket) {
            Ok(at) => at,
            Err(at) => {
                seen.buckets.insert(at, (bucket, TagSet::default()));
                at
            }
        };
        seen.buckets[at].1.insert(tag);
        seen.len += 1;
        true
    }

    fn release(&self, token_id: TokenId) {
        let tag = tag_prefix(&token_id);
        let mut seen = crate::wire::lock(&self.seen);
        let removed = seen
            .buckets
            .iter_mut()
            .map(|(_, set)| set.remove(&tag))
            .filter(|removed| *removed)
            .count();
        seen.len -= removed;
    }
}

/// A fresh nonce: a random base drawn once per process, its last eight bytes XORed with a counter.
/// Unique within a process, and across processes sharing a key with overwhelming probability (the
/// bases are 96 random bits), without a system call per token; AES-GCM-SIV makes even a repeat
/// harmless beyond showing that two payloads were identical.
fn next_nonce() -> Result<[u8; NONCE_LEN], RequestStateError> {
    static BASE: OnceLock<[u8; NONCE_LEN]> = OnceLock::new();
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let base = match BASE.get() {
        Some(base) => base,
        None => {
            let mut fresh = [0u8; NONCE_LEN];
            getrandom::getrandom(&mut fresh)
                .map_err(|_| RequestStateError::Malformed("no randomness"))?;
            BASE.get_or_init(|| fresh)
        }
    };
    let count = COUNTER.fetch_add(1, Ordering::Relaxed).to_le_bytes();
    let mut nonce = *base;
    for (byte, c) in nonce[NONCE_LEN - 8..].iter_mut().zip(count) {
        *byte ^= c;
    }
    Ok(nonce)
}

/// The time in Unix seconds, as tokens carry their expiry.
pub(crate) use crate::wire::unix_seconds as unix_now;

/// Seals and opens tokens with a key ring, a lifetime and a size cap.
pub struct RequestStateCodec {
    keys: KeyRing,
    ttl: Duration,
    max_len: usize,
    replay: Option<Box<dyn ReplayGuard>>,
    shared: Option<std::sync::Arc<dyn SharedReplayGuard>>,
}

impl fmt::Debug for RequestStateCodec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RequestStateCodec")
            .field("keys", &self.keys)
            .field("ttl", &self.ttl)
            .field("max_len", &self.max_len)
            .field("single_use", &self.replay.is_some())
            .field("shared_single_use", &self.shared.is_some())
            .finish()
    }
}

impl RequestStateCodec {
    /// Default lifetime of a token.
    pub const DEFAULT_TTL: Duration = Duration::from_secs(5 * 60);
    /// Default cap on a token's length in bytes.
    pub const DEFAULT_MAX_LEN: usize = 64 * 1024;

    /// A codec with the default lifetime and size cap and no single-use enforcement.
    pub fn new(keys: KeyRing) -> Self {
        RequestStateCodec {
            keys,
            ttl: Self::DEFAULT_TTL,
            max_len: Self::DEFAULT_MAX_LEN,
            replay: None,
            shared: None,
        }
    }

    /// How long a token stays valid. The server counts it from the arrival of the request that
    /// sealed the token.
    pub fn ttl(mut self, ttl: Duration) -> Self {
        self.ttl = ttl;
        self
    }

    /// The longest token accepted (and produced).
    pub fn max_len(mut self, max_len: usize) -> Self {
        self.max_len = max_len;
        self
    }

    /// Refuse a token seen before.
    pub fn single_use(mut self, guard: impl ReplayGuard + 'static) -> Self {
        self.replay = Some(Box::new(guard));
        self
    }

    /// Also check single use against `guard`, shared by every instance (the server does this
    /// after opening a token, before the handler runs).
    pub fn shared_single_use(mut self, guard: std::sync::Arc<dyn SharedReplayGuard>) -> Self {
        self.shared = Some(guard);
        self
    }

    /// The shared single-use check of an opened token, when one is configured.
    pub async fn claim_shared(&self, sealed: &Sealed) -> Result<(), RequestStateError> {
        let Some(shared) = &self.shared else {
            return Ok(());
        };
        match shared.first_use(sealed.token_id, sealed.expires_at).await {
            Ok(true) => Ok(()),
            Ok(false) => Err(RequestStateError::Replayed),
            Err(why) => Err(RequestStateError::GuardUnavailable(why)),
        }
    }

    /// Let a state open any number of times until it expires: a client may resend a retry
    /// whose answer it lost, and a replayed retry runs the rest of the call again (its steps
    /// still replay from the journal).
    pub fn reusable(mut self) -> Self {
        self.replay = None;
        self.shared = None;
        self
    }

    /// Give back the single use of an opened token whose retry was refused before it had any
    /// effect, so the client can send it again.
    pub fn release(&self, sealed: &Sealed) {
        self.release_token(sealed.token_id);
    }

    /// Give back only this instance's claim (the shared check refused the token: the claim
    /// there is another retry's).
    pub(crate) fn release_local(&self, sealed: &Sealed) {
        if let Some(guard) = &self.replay {
            guard.release(sealed.token_id);
        }
    }

    pub(crate) fn release_token(&self, token_id: TokenId) {
        if let Some(guard) = &self.replay {
            guard.release(token_id);
        }
        if let Some(shared) = &self.shared {
            shared.release(token_id);
        }
    }

    /// The largest answer a journal records, in bytes of JSON: what still fits a token under
    /// the size cap once encrypted and encoded (base64 takes 4 bytes for 3), with room for the
    /// binding and the other entries.
    pub fn answer_limit(&self) -> usize {
        (self.max_len / 4 * 3).saturating_sub(1024)
    }

    /// Seal a journal for `binding`. Fails only if the result would exceed the size cap or the
    /// system has no randomness.
    pub fn seal(
        &self,
        binding: &Binding<'_>,
        fingerprint: &str,
        journal: &Journal,
    ) -> Result<String, RequestStateError> {
        self.seal_at(binding, fingerprint, journal, unix_now())
    }

    /// [`RequestStateCodec::seal`] as if the time were `now` (Unix seconds).
    pub fn seal_at(
        &self,
        binding: &Binding<'_>,
        fingerprint: &str,
        journal: &Journal,
        now: u64,
    ) -> Result<String, RequestStateError> {
        let fingerprint = FingerprintDigest::of(fingerprint);
        self.seal_bound(&binding.digest(), &fingerprint, journal, now)
    }

    /// [`RequestStateCodec::seal_at`] for a binding and a fingerprint whose digests the caller already
    /// has; the round passes the request's time, read once for its open and its seal.
    pub(crate) fn seal_bound(
        &self,
        bound: &BindingDigest,
        fingerprint: &FingerprintDigest,
        journal: &Journal,
        now: u64,
    ) -> Result<String, RequestStateError> {
        let key = self.keys.sealing();
        let nonce = next_nonce()?;
        let expires_at = now.saturating_add(self.ttl.as_secs().max(1));
        // One buffer: header, then the payload (encrypted in place), then the tag.
        // Sized for the whole token, so the buffer never moves (and leaves no copy behind).
        let payload: usize = journal
            .iter()
            .map(|(k, v)| k.len() + v.get().len() + 2 * MAX_VARINT_LEN)
            .sum::<usize>()
            + MAX_VARINT_LEN;
        let mut raw = Wiped(Vec::with_capacity(
            HEADER_LEN + FIXED_LEN + payload + TAG_LEN,
        ));
        raw.extend_from_slice(&[VERSION, key.id]);
        raw.extend_from_slice(&nonce);
        raw.extend_from_slice(&expires_at.to_be_bytes());
        raw.extend_from_slice(&fingerprint.0);
        push_varint(&mut raw, journal.len());
        for (key, value) in journal {
            push_framed(&mut raw, key.as_bytes());
            push_framed(&mut raw, value.get().as_bytes());
        }
        let encoded_len = ((raw.len() + TAG_LEN) * 4).div_ceil(3);
        if encoded_len > self.max_len {
            return Err(RequestStateError::Oversize(encoded_len));
        }
        let tag = key
            .cipher
            .encrypt_inout_detached(
                &Nonce::from(nonce),
                &bound.0,
                (&mut raw[HEADER_LEN..]).into(),
            )
            .map_err(|_| RequestStateError::Authentication)?;
        // Encrypted in place, the buffer holds nothing secret any more: it leaves the wiping
        // wrapper (which wipes only what it still holds, here nothing) and is freed as it is.
        let mut sealed = std::mem::take(&mut *raw);
        sealed.extend_from_slice(&tag);
        Ok(URL_SAFE_NO_PAD.encode_to_string(&sealed))
    }

    /// Open a token for `binding`: checks size, format, key id, authenticity (which covers the
    /// binding), expiry and, when enforced, single use.
    pub fn open(&self, token: &str, binding: &Binding<'_>) -> Result<Sealed, RequestStateError> {
        self.open_at(token, binding, unix_now())
    }

    /// [`RequestStateCodec::open`] as if the time were `now` (Unix seconds).
    pub fn open_at(
        &self,
        token: &str,
        binding: &Binding<'_>,
        now: u64,
    ) -> Result<Sealed, RequestStateError> {
        self.open_bound(token, &binding.digest(), now)
    }

    /// [`RequestStateCodec::open_at`] for a binding whose digest the caller already has.
    pub(crate) fn open_bound(
        &self,
        token: &str,
        bound: &BindingDigest,
        now: u64,
    ) -> Result<Sealed, RequestStateError> {
        if token.len() > self.max_len {
            return Err(RequestStateError::Oversize(token.len()));
        }
        let mut raw = Wiped(
            URL_SAFE_NO_PAD
                .decode_to_vec(token.as_bytes())
                .map_err(|_| RequestStateError::Malformed("not base64url"))?,
        );
        if raw.len() < HEADER_LEN + FIXED_LEN + TAG_LEN {
            return Err(RequestStateError::Malformed("too short"));
        }
        if raw[0] != VERSION {
            return Err(RequestStateError::Malformed("unknown version"));
        }
        let key = self
            .keys
            .by_id(raw[1])
            .ok_or(RequestStateError::UnknownKey(raw[1]))?;
        // Decrypt in place: the payload is everything between the header and the tag.
        let tag_at = raw.len() - TAG_LEN;
        let (head, rest) = raw.split_at_mut(HEADER_LEN);
        let (body, tag) = rest.split_at_mut(tag_at - HEADER_LEN);
        let mut token_id: TokenId = [0u8; TAG_LEN];
        token_id.copy_from_slice(tag);
        let nonce =
            Nonce::try_from(&head[2..]).map_err(|_| RequestStateError::Malformed("nonce"))?;
        key.cipher
            .decrypt_inout_detached(&nonce, &bound.0, (&mut *body).into(), &Tag::from(token_id))
            .map_err(|_| RequestStateError::Authentication)?;
        let (fixed, journal) = body.split_at(FIXED_LEN);
        let mut expiry = [0u8; 8];
        expiry.copy_from_slice(&fixed[..8]);
        let expires_at = u64::from_be_bytes(expiry);
        if expires_at < now {
            return Err(RequestStateError::Expired);
        }
        let mut fingerprint = [0u8; FINGERPRINT_LEN];
        fingerprint.copy_from_slice(&fixed[8..]);
        let journal = read_journal(journal).ok_or(RequestStateError::Payload)?;
        if let Some(guard) = &self.replay {
            if !guard.first_use(token_id, expires_at) {
                return Err(RequestStateError::Replayed);
            }
        }
        Ok(Sealed {
            expires_at,
            fingerprint,
            journal,
            token_id,
        })
    }
}

/// A codec used the way the MRTR round uses it, for the benchmarks: the handler fingerprint's
/// digest computed once (at registration), the binding's once per request
/// ([`BoundCodec::bind`]), then the incoming token opened and checked against the fingerprint
/// and the next one sealed with the same digest. [`RequestStateCodec::seal`] and [`RequestStateCodec::open`]
/// compute both digests on every call instead.
#[cfg(feature = "bench")]
pub struct BoundCodec<'a> {
    codec: &'a RequestStateCodec,
    fingerprint: FingerprintDigest,
}

/// One request's binding digest and time, from [`BoundCodec::bind`].
#[cfg(feature = "bench")]
pub struct Bound(BindingDigest, u64);

#[cfg(feature = "bench")]
impl<'a> BoundCodec<'a> {
    /// `codec` for the handler with this fingerprint.
    pub fn new(codec: &'a RequestStateCodec, fingerprint: &str) -> Self {
        BoundCodec {
            codec,
            fingerprint: FingerprintDigest::of(fingerprint),
        }
    }

    /// The request's binding digest, as the round computes it before the handler starts, and
    /// the time it reads once for the request.
    pub fn bind(&self, binding: &Binding<'_>) -> Bound {
        Bound(binding.digest(), unix_now())
    }

    /// Open the request's token: `None` when another version of the handler recorded the
    /// journal (the round then starts the call over).
    pub fn open(&self, token: &str, bound: &Bound) -> Result<Option<Sealed>, RequestStateError> {
        let sealed = self.codec.open_bound(token, &bound.0, bound.1)?;
        Ok(sealed
            .recorded_by_digest(&self.fingerprint)
            .then_some(sealed))
    }

    /// Seal the next journal for the same request.
    pub fn seal(&self, bound: &Bound, journal: &Journal) -> Result<String, RequestStateError> {
        self.codec
            .seal_bound(&bound.0, &self.fingerprint, journal, bound.1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn codec() -> RequestStateCodec {
        RequestStateCodec::new(KeyRing::new(vec![SealingKey::new(1, &[7u8; 32]).unwrap()]).unwrap())
    }

    fn binding<'a>(args: &'a Value) -> Binding<'a> {
        Binding {
            method: "tools/call",
            target: "book",
            arguments: args.as_object(),
            principal: None,
            protocol_version: "2026-07-28",
        }
    }

    #[test]
    fn round_trip_and_canonical_arguments() {
        let args = json!({"a": 1, "b": [1, {"y": 2, "x": 1}]});
        let reordered = json!({"b": [1, {"x": 1, "y": 2}], "a": 1});
        let j = journal_of([("k", json!({"action": "accept"}))]);
        let token = codec().seal(&binding(&args), "fp", &j).unwrap();
        let opened = codec().open(&token, &binding(&reordered)).unwrap();
        assert_eq!(opened.journal.len(), 1);
        assert_eq!(opened.journal["k"].get(), r#"{"action":"accept"}"#);
        assert!(opened.recorded_by("fp"));
        assert!(!opened.recorded_by("fq"));
    }

    /// The benchmarks' codec-as-the-round-uses-it agrees with the public seal and open: same
    /// tokens both ways, another binding refused, another handler version `None`.
    #[cfg(feature = "bench")]
    #[test]
    fn bound_codec_matches_seal_and_open() {
        let (args, other) = (json!({"a": 1}), json!({"a": 2}));
        let j = journal_of([("k", json!(1))]);
        let c = codec();
        let bc = BoundCodec::new(&c, "fp");
        let bound = bc.bind(&binding(&args));
        let token = bc.seal(&bound, &j).unwrap();
        let opened = c.open(&token, &binding(&args)).unwrap();
        assert!(opened.recorded_by("fp"));
        assert_eq!(opened.journal["k"].get(), "1");
        let public = c.seal(&binding(&args), "fp", &j).unwrap();
        assert_eq!(bc.open(&public, &bound).unwrap().unwrap().journal.len(), 1);
        assert!(matches!(
            bc.open(&token, &bc.bind(&binding(&other))),
            Err(RequestStateError::Authentication)
        ));
        let elsewhere = c.seal(&binding(&args), "fq", &j).unwrap();
        assert!(bc.open(&elsewhere, &bound).unwrap().is_none());
    }

    /// A token sealed by an earlier build (aes-gcm-siv 0.11, format 3) still opens, and one
    /// changed byte does not: instances of two builds can share a key ring during a rolling
    /// upgrade, and a change of cipher implementation must not change what a token means.
    #[test]
    fn a_token_from_an_earlier_build_opens() {
        const EARLIER: &str = "AwGLenKEW3yfDj5dexh1N_xEfxhkxyExTwosQ59RQREVd1b3SoO8-7UuOGq9Dhhkth08TjNs-8WaASyvUaxU3zFsYD92a53-OKaTOFSPNsBbozGHv-fDpEs5dnXjRYumbyzCfGBiG6I";
        let args = json!({"city": "Lisbon", "nights": 3});
        let opened = codec()
            .open_at(EARLIER, &binding(&args), 1_800_000_000)
            .unwrap();
        assert_eq!(
            opened.journal["when"].get(),
            r#"{"action":"accept","content":{"date":"2026-12-24"}}"#
        );
        assert!(opened.recorded_by("fp"));
        let mut changed = EARLIER.to_string();
        changed.replace_range(40..41, if &EARLIER[40..41] == "A" { "B" } else { "A" });
        assert!(matches!(
            codec().open_at(&changed, &binding(&args), 1_800_000_000),
            Err(RequestStateError::Authentication)
        ));
        let other = json!({"city": "Porto", "nights": 3});
        assert!(matches!(
            codec().open_at(EARLIER, &binding(&other), 1_800_000_000),
            Err(RequestStateError::Authentication)
        ));
    }

    #[test]
    fn binding_digest_separates_look_alike_arguments() {
        // Arguments are an object; look-alike values are compared as the value of one argument.
        let d = |v: Value| {
            let args = json!({ "v": v });
            binding(&args).digest()
        };
        assert_eq!(
            d(json!({"a": 1, "b": [1, {"x": 1, "y": 2}]})),
            d(json!({"b": [1, {"y": 2, "x": 1}], "a": 1}))
        );
        let pairs = [
            (json!({"a": "b"}), json!({"ab": ""})),
            (json!(["a", "b"]), json!(["ab"])),
            (json!({"a": "1"}), json!({"a": 1})),
            (json!({"a": null}), json!({})),
            (json!([[]]), json!([])),
            (json!(1), json!(1.0)),
        ];
        for (x, y) in pairs {
            assert_ne!(d(x.clone()), d(y.clone()), "{x} and {y}");
        }
    }

    #[test]
    fn binding_digest_is_stable_across_releases() {
        // Tokens sealed by an earlier release must open after an upgrade, so the digest of a
        // known binding is pinned: the SHA-256 of its canonical encoding, spelled out by hand.
        let args = json!({"b": [true, null], "a": "x"});
        let mut expected = Vec::new();
        for part in ["tools/call", "t"] {
            expected.extend_from_slice(&(part.len() as u64).to_be_bytes());
            expected.extend_from_slice(part.as_bytes());
        }
        expected.extend_from_slice(b"a{");
        expected.extend_from_slice(&2u64.to_be_bytes());
        expected.extend_from_slice(&1u64.to_be_bytes());
        expected.extend_from_slice(b"as");
        expected.extend_from_slice(&1u64.to_be_bytes());
        expected.extend_from_slice(b"x");
        expected.extend_from_slice(&1u64.to_be_bytes());
        expected.extend_from_slice(b"b[");
        expected.extend_from_slice(&2u64.to_be_bytes());
        expected.extend_from_slice(b"tn");
        for part in ["", "2026-07-28"] {
            expected.extend_from_slice(&(part.len() as u64).to_be_bytes());
            expected.extend_from_slice(part.as_bytes());
        }
        let digest: [u8; 32] = Sha256::digest(&expected).into();
        let b = Binding {
            method: "tools/call",
            target: "t",
            arguments: args.as_object(),
            principal: None,
            protocol_version: "2026-07-28",
        };
        assert_eq!(b.digest(), BindingDigest(digest));
    }

    #[test]
    fn parse_rings() {
        let hex = "ab".repeat(32);
        let ring = KeyRing::parse(&format!("1:{hex}, 2:{}", "cd".repeat(32))).unwrap();
        assert_eq!(ring.sealing().id(), 2);
        assert!(KeyRing::parse("").is_err());
        assert!(KeyRing::parse("1:abcd").is_err(), "too short");
        assert!(KeyRing::parse(&format!("x:{hex}")).is_err());
        assert!(KeyRing::parse(&format!("1:{}", "zz".repeat(32))).is_err());
    }

    /// A rotation's three steps, each with instances on the step before still serving: no
    /// token sealed on one instance is refused by another for its key.
    #[test]
    fn a_staged_key_opens_tokens_but_seals_none() {
        let (k1, k2) = ("ab".repeat(32), "cd".repeat(32));
        let ring = |text: &str| RequestStateCodec::new(KeyRing::parse(text).unwrap());
        let args = json!({});
        let before = ring(&format!("1:{k1}"));
        let staged = ring(&format!("1:{k1},+2:{k2}"));
        let switched = ring(&format!("1:{k1},2:{k2}"));
        let after = ring(&format!("2:{k2}"));
        // Staged: seals with key 1, so instances still on the old ring open its tokens...
        let from_staged = staged
            .seal(&binding(&args), "fp", &IndexMap::new())
            .unwrap();
        assert!(before.open(&from_staged, &binding(&args)).is_ok());
        // ...and opens what instances that already switched seal with key 2.
        let from_switched = switched
            .seal(&binding(&args), "fp", &IndexMap::new())
            .unwrap();
        assert!(staged.open(&from_switched, &binding(&args)).is_ok());
        assert!(
            before.open(&from_switched, &binding(&args)).is_err(),
            "why the staged step is needed"
        );
        // Switched instances open the old key's tokens; the last step opens key 2's only.
        let old = before
            .seal(&binding(&args), "fp", &IndexMap::new())
            .unwrap();
        assert!(switched.open(&old, &binding(&args)).is_ok());
        assert!(after.open(&from_switched, &binding(&args)).is_ok());
        assert!(after.open(&old, &binding(&args)).is_err());
        // A staged key cannot be the whole ring, nor repeat an id.
        assert!(KeyRing::parse(&format!("+2:{k2}")).is_err());
        assert!(KeyRing::parse(&format!("2:{k1},+2:{k2}")).is_err());
    }

    #[test]
    fn keys_are_redacted_and_checked() {
        let k = SealingKey::new(3, &[9u8; 40]).unwrap();
        assert!(!format!("{k:?}").contains('9'));
        assert!(SealingKey::new(1, &[0u8; 31]).is_err());
        assert!(KeyRing::new(vec![]).is_err());
        let dup = KeyRing::new(vec![
            SealingKey::new(1, &[1; 32]).unwrap(),
            SealingKey::new(1, &[2; 32]).unwrap(),
        ]);
        assert!(dup.is_err());
    }

    #[test]
    fn rotation_opens_old_tokens_and_seals_with_new() {
        let args = json!({});
        let old = codec();
        let token = old.seal(&binding(&args), "fp", &IndexMap::new()).unwrap();
        let rotated = RequestStateCodec::new(
            KeyRing::new(vec![SealingKey::new(1, &[7u8; 32]).unwrap()])
                .unwrap()
                .rotate(SealingKey::new(2, &[8u8; 32]).unwrap())
                .unwrap(),
        );
        assert!(rotated.open(&token, &binding(&args)).is_ok());
        let new_token = rotated
            .seal(&binding(&args), "fp", &IndexMap::new())
            .unwrap();
        assert_eq!(
            old.open(&new_token, &binding(&args)).err(),
            Some(RequestStateError::UnknownKey(2))
        );
    }

    #[test]
    fn single_use_and_expiry_and_size() {
        let args = json!({});
        let c = codec().single_use(InMemoryReplayGuard::default());
        let t = c.seal(&binding(&args), "fp", &IndexMap::new()).unwrap();
        assert!(c.open(&t, &binding(&args)).is_ok());
        assert_eq!(
            c.open(&t, &binding(&args)).err(),
            Some(RequestStateError::Replayed)
        );
        let small = codec().max_len(80);
        let big = journal_of([("x", json!("y".repeat(200)))]);
        assert!(matches!(
            small.seal(&binding(&args), "fp", &big),
            Err(RequestStateError::Oversize(_))
        ));
        assert!(matches!(
            small.open(&"A".repeat(81), &binding(&args)),
            Err(RequestStateError::Oversize(81))
        ));
    }

    #[test]
    fn the_in_memory_guard_forgets_expired_tokens_and_keeps_to_its_capacity() {
        let now = unix_now();
        let guard = InMemoryReplayGuard::with_capacity(3);
        let id = |n: u8| [n; TAG_LEN];
        // Each token below expires in a bucket of its own, later for a higher n.
        let expiry = |n: u8| now + 60 + u64::from(n) * InMemoryReplayGuard::BUCKET_SECS;
        // Expired entries go as soon as a newer token is opened.
        assert!(guard.first_use(id(1), now - 2 * InMemoryReplayGuard::BUCKET_SECS));
        assert!(guard.first_use(id(2), expiry(2)));
        assert_eq!(guard.len(), 1);
        assert!(!guard.first_use(id(2), expiry(2)), "a replay is refused");
        // At capacity the earliest expiries are forgotten first.
        for n in 3..=5 {
            assert!(guard.first_use(id(n), expiry(n)));
        }
        assert_eq!(guard.len(), 3);
        assert!(
            guard.first_use(id(2), expiry(2)),
            "the oldest was forgotten"
        );
        assert!(
            !guard.first_use(id(5), expiry(5)),
            "the newest is remembered"
        );
        // A released token may be used again.
        guard.release(id(5));
        assert_eq!(guard.len(), 2);
        assert!(guard.first_use(id(5), expiry(5)));
        // Tokens sharing a bucket are told apart, and each is refused a second time.
        let wide = InMemoryReplayGuard::default();
        for n in 0..200u8 {
            assert!(wide.first_use(id(n), now + 60));
        }
        assert_eq!(wide.len(), 200);
        assert!((0..200u8).all(|n| !wide.first_use(id(n), now + 60)));
        // Expiries out of order (tools with different lifetimes): the earliest still go first.
        let mixed = InMemoryReplayGuard::with_capacity(2);
        assert!(mixed.first_use(id(9), expiry(9)));
        assert!(mixed.first_use(id(7), expiry(7)));
        assert!(mixed.first_use(id(8), expiry(8)));
        assert!(
            mixed.first_use(id(7), expiry(7)),
            "the earliest was forgotten"
        );
        assert!(
            !mixed.first_use(id(9), expiry(9)),
            "the latest is remembered"
        );
    }

    #[test]
    fn fixed_overhead_is_46_bytes_before_base64() {
        let args = json!({"party": 4});
        for journal in [
            IndexMap::new(),
            journal_of([("k", json!({"action": "accept", "content": {"ok": true}}))]),
            journal_of((0..10).map(|i| (format!("q{i}"), json!("x".repeat(i * 7))))),
        ] {
            // One byte of count, and each entry costs its key and value plus one byte of length
            // each (all under 128 here): never more than the same journal as a JSON object.
            let framed: usize = 1 + journal
                .iter()
                .map(|(k, v)| k.len() + v.get().len() + 2)
                .sum::<usize>();
            assert!(framed <= serde_json::to_string(&journal).unwrap().len());
            let token = codec().seal(&binding(&args), "fp", &journal).unwrap();
            assert_eq!(token.len(), ((framed + 46) * 4).div_ceil(3), "{journal:?}");
        }
    }

    #[test]
    fn journals_keep_order_text_and_long_entries_through_a_token() {
        let args = json!({"party": 4});
        let long = "é".repeat(20_000);
        let journal = journal_of([
            ("z", json!({"b": 1, "a": [true, null]})),
            ("", json!("")),
            ("ключ", json!(long)),
            ("a", json!(1.5)),
        ]);
        let codec = codec().max_len(1 << 20);
        let token = codec.seal(&binding(&args), "fp", &journal).unwrap();
        let opened = codec.open(&token, &binding(&args)).unwrap().journal;
        assert_eq!(opened, journal);
        assert_eq!(
            opened.keys().collect::<Vec<_>>(),
            ["z", "", "ключ", "a"],
            "order kept"
        );
        assert_eq!(opened["z"].get(), r#"{"b":1,"a":[true,null]}"#);
    }

    #[test]
    fn broken_framing_is_refused_not_trusted() {
        // Framing is only ever read from an authenticated payload, but it is still checked: a
        // length past the end, a varint that never ends, bytes that are not UTF-8, a count that
        // does not match or a key given twice refuse the journal instead of reading out of
        // bounds or dropping an entry.
        for bad in [
            &[][..],
            &[1, 5, b'a'],
            &[1, 1, b'k'],
            &[1, 0x80, 0x80, 0x80],
            &[0xff; 11],
            &[1, 1, 0xff, 1, b'1'],
            &[1, 1, b'k', 1, 0xc3],
            &[2, 1, b'k', 1, b'1'],
            &[0, 1, b'k', 1, b'1'],
            &[2, 1, b'k', 1, b'1', 1, b'k', 1, b'2'],
            &[0xff, 0xff, 0xff, 0xff, 0x0f],
        ] {
            assert_eq!(read_journal(bad), None, "{bad:?}");
        }
        let mut good = vec![1];
        push_framed(&mut good, b"k");
        push_framed(&mut good, &[b'1'; 300]);
        assert_eq!(good[3..5], [0xac, 0x02], "300 as LEB128");
        let journal = read_journal(&good).unwrap();
        assert_eq!(journal["k"].get().len(), 300);
    }

    #[test]
    fn recorded_entries_serialize_as_json_not_as_strings() {
        let journal = journal_of([("k", json!({"x": [1, 2]}))]);
        let text = serde_json::to_string(&journal).unwrap();
        assert_eq!(text, r#"{"k":{"x":[1,2]}}"#);
        let back: Journal = serde_json::from_str(&text).unwrap();
        assert_eq!(back, journal);
        assert!(serde_json::from_str::<Journal>(r#"{"k": nope}"#).is_err());
    }

    #[test]
    fn every_altered_byte_and_every_other_binding_is_refused() {
        let args = json!({"a": 1});
        let c = codec();
        let j = journal_of([("k", json!({"action": "accept"}))]);
        let token = c.seal(&binding(&args), "fp", &j).unwrap();
        let raw = URL_SAFE_NO_PAD.decode_to_vec(&token).unwrap();
        for i in 0..raw.len() {
            let mut bad = raw.clone();
            bad[i] ^= 0x01;
            let bad = URL_SAFE_NO_PAD.encode_to_string(&bad);
            let err = c.open(&bad, &binding(&args)).unwrap_err();
            let expected = match i {
                0 => RequestStateError::Malformed("unknown version"),
                1 => RequestStateError::UnknownKey(0),
                _ => RequestStateError::Authentication,
            };
            assert_eq!(err, expected, "byte {i}");
        }
        let other_args = json!({"a": 2});
        assert_eq!(
            c.open(&token, &binding(&other_args)).err(),
            Some(RequestStateError::Authentication)
        );
        let mut other = binding(&args);
        other.principal = Some("mallory");
        assert_eq!(
            c.open(&token, &other).err(),
            Some(RequestStateError::Authentication)
        );
        let truncated = URL_SAFE_NO_PAD.encode_to_string(&raw[..raw.len() - 5]);
        assert_eq!(
            c.open(&truncated, &binding(&args)).err(),
            Some(RequestStateError::Authentication)
        );
        assert_eq!(
            c.open("AAAA", &binding(&args)).err(),
            Some(RequestStateError::Malformed("too short"))
        );
        assert_eq!(
            c.open("not base64!", &binding(&args)).err(),
            Some(RequestStateError::Malformed("not base64url"))
        );
    }

    #[test]
    fn non_canonical_base64_is_refused() {
        // A token whose last character differs only in bits base64 discards must not open:
        // every accepted token text is the one the server issued.
        let args = json!({});
        let c = codec();
        for n in 0..3 {
            let j = journal_of([("k", json!("x".repeat(n)))]);
            let token = c.seal(&binding(&args), "fp", &j).unwrap();
            let (head, last) = token.split_at(token.len() - 1);
            let alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
            for other in alphabet.chars().filter(|ch| ch.to_string() != last) {
                let altered = format!("{head}{other}");
                assert!(c.open(&altered, &binding(&args)).is_err(), "{altered}");
            }
        }
    }

    #[test]
    fn the_same_journal_seals_to_different_tokens() {
        let args = json!({});
        let c = codec();
        let j = journal_of([("k", json!(1))]);
        let tokens: std::collections::HashSet<String> = (0..64)
            .map(|_| c.seal(&binding(&args), "fp", &j).unwrap())
            .collect();
        assert_eq!(tokens.len(), 64);
    }
}
