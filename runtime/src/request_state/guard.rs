//! Single use: the replay guards that remember which tokens were opened, in this process or
//! shared between instances.

use super::*;

/// The answer of a [`SharedReplayGuard`]: whether this is the token's first use, or why it
/// could not be told.
pub type GuardFuture<'a> = std::pin::Pin<
    Box<dyn std::future::Future<Output = Result<bool, crate::wire::Cause>> + Send + 'a>,
>;

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
pub(crate) struct Seen {
    buckets: Vec<(u64, TagSet)>,
    len: usize,
}

/// A set of tag prefixes: the tags are already uniformly distributed, so they are their own
/// hash (mixed by one multiplication, in case a caller passes ids that are not tags).
pub(crate) type TagSet = std::collections::HashSet<u64, std::hash::BuildHasherDefault<TagHasher>>;

/// The hasher of [`TagSet`]: one multiplication by an odd constant.
#[derive(Debug, Default)]
pub(crate) struct TagHasher(u64);

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
pub(crate) fn tag_prefix(token_id: &TokenId) -> u64 {
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
