//! Sealing a journal into a token and opening it again: the AEAD, the expiry, the binding, the
//! single-use check, and the errors a refused token gives.

use super::*;

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
#[non_exhaustive]
pub enum RequestStateError {
    /// Longer than the configured cap.
    Oversize(usize),
    /// Not a token of this format: which way.
    Malformed(Malformation),
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
    GuardUnavailable(crate::wire::Cause),
    /// No token could be sealed: the system's randomness failed.
    NoRandomness,
}

/// How a `requestState` fails to be a token of this format at all.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Malformation {
    /// Not base64url text.
    NotBase64url,
    /// Shorter than a header, a payload's fixed fields and a tag.
    TooShort,
    /// A format version this build does not read.
    UnknownVersion,
}

impl fmt::Display for Malformation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Malformation::NotBase64url => "not base64url",
            Malformation::TooShort => "too short",
            Malformation::UnknownVersion => "unknown version",
        })
    }
}

impl fmt::Display for RequestStateError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RequestStateError::Oversize(n) => write!(f, "token of {n} bytes exceeds the size cap"),
            RequestStateError::Malformed(why) => write!(f, "malformed token: {why}"),
            RequestStateError::UnknownKey(id) => write!(
                f,
                "sealed under key id {id}, which this instance does not hold \
                 (was the key ring set with {} and shared by every instance?)",
                super::KEY_RING_ENV
            ),
            RequestStateError::Authentication => {
                f.write_str("authentication failed (tampered, or bound to another request)")
            }
            RequestStateError::Payload => f.write_str("payload does not decode"),
            RequestStateError::Expired => f.write_str("expired"),
            RequestStateError::Replayed => f.write_str("already used"),
            RequestStateError::GuardUnavailable(why) => {
                write!(f, "the shared single-use check is unavailable: {why}")
            }
            RequestStateError::NoRandomness => {
                f.write_str("no randomness for a request state's nonce")
            }
        }
    }
}

impl std::error::Error for RequestStateError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            RequestStateError::GuardUnavailable(cause) => Some(cause.get()),
            _ => None,
        }
    }
}

/// A fresh nonce: a random base drawn once per process, its last eight bytes XORed with a counter.
/// Unique within a process, and across processes sharing a key with overwhelming probability (the
/// bases are 96 random bits), without a system call per token; AES-GCM-SIV makes even a repeat
/// harmless beyond showing that two payloads were identical.
pub(crate) fn next_nonce() -> Result<[u8; NONCE_LEN], RequestStateError> {
    static BASE: OnceLock<[u8; NONCE_LEN]> = OnceLock::new();
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let base = match BASE.get() {
        Some(base) => base,
        None => {
            let mut fresh = [0u8; NONCE_LEN];
            getrandom::getrandom(&mut fresh).map_err(|_| RequestStateError::NoRandomness)?;
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

    /// Whether single use is checked against a guard every instance shares.
    #[cfg(feature = "lambda")]
    pub(crate) fn shares_single_use(&self) -> bool {
        self.shared.is_some()
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
                .map_err(|_| RequestStateError::Malformed(Malformation::NotBase64url))?,
        );
        if raw.len() < HEADER_LEN + FIXED_LEN + TAG_LEN {
            return Err(RequestStateError::Malformed(Malformation::TooShort));
        }
        if raw[0] != VERSION {
            return Err(RequestStateError::Malformed(Malformation::UnknownVersion));
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
        let nonce = Nonce::try_from(&head[2..])
            .map_err(|_| RequestStateError::Malformed(Malformation::TooShort))?;
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
