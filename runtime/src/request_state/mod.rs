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

mod journal;
pub use journal::*;
mod keys;
pub use keys::*;
mod binding;
pub use binding::*;
mod codec;
pub use codec::*;
mod guard;
pub use guard::*;
#[cfg(test)]
mod tests;

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

/// The time in Unix seconds, as tokens carry their expiry.
pub(crate) use crate::wire::unix_seconds as unix_now;
