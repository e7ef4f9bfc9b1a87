//! The key ring that seals tokens: its keys (never printed, wiped on drop), how a ring is read
//! from `MCP_STATE_KEYS`, and which key seals and which open.

use super::*;

/// A byte buffer that is wiped when dropped, all of its capacity at once (the zeroize crate's
/// slice fill, with its optimization barrier). `Zeroizing<Vec<u8>>` wipes a `Vec` one volatile
/// byte at a time, which showed in the profile of opening a token.
pub(crate) struct Wiped(pub(crate) Vec<u8>);

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

/// One state-sealing key: at least 32 bytes of secret, never printed; the cipher's expanded key
/// is zeroized on drop.
pub struct SealingKey {
    pub(crate) id: u8,
    pub(crate) cipher: Aes256GcmSiv,
}

impl SealingKey {
    /// A key with id `id` from `secret` (at least 32 bytes; longer secrets are hashed down).
    pub fn new(id: u8, secret: &[u8]) -> Result<Self, KeyRingError> {
        if secret.len() < 32 {
            return Err(KeyRingError::TooShort {
                id,
                len: secret.len(),
            });
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
        getrandom::getrandom(secret.as_mut()).map_err(|_| KeyRingError::NoRandomness)?;
        Self::new(id, secret.as_ref())
    }

    /// A fresh random key as an `MCP_STATE_KEYS` entry, `id:<64 hex digits>`, for
    /// [`KeyRing::parse`]. Print one with `cargo run -p oxmcp --example state-key -- ID`.
    pub fn generate_entry(id: u8) -> Result<String, KeyRingError> {
        let mut secret = Zeroizing::new([0u8; 32]);
        getrandom::getrandom(secret.as_mut()).map_err(|_| KeyRingError::NoRandomness)?;
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
#[non_exhaustive]
pub enum KeyRingError {
    /// A secret shorter than 32 bytes.
    TooShort {
        /// The key's id.
        id: u8,
        /// Its length in bytes.
        len: usize,
    },
    /// A ring with no key that seals.
    Empty,
    /// Two keys with one id.
    DuplicateId(u8),
    /// Text that is not `id:hex` pairs (`1:9f86...,2:6030...`): what part is wrong.
    Malformed {
        /// What is wrong, in words (never the secret).
        detail: String,
    },
    /// No random key could be made: the system's randomness failed.
    NoRandomness,
    /// The environment variable's value is malformed (not UTF-8, or one of the other errors).
    InEnvironment {
        /// The variable.
        variable: &'static str,
        /// What is wrong with it; `None` when it is not UTF-8.
        error: Option<Box<KeyRingError>>,
    },
}

impl fmt::Display for KeyRingError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            KeyRingError::TooShort { id, len } => {
                write!(f, "request-state key {id}: {len} bytes, need at least 32")
            }
            KeyRingError::Empty => f.write_str("the request-state key ring is empty"),
            KeyRingError::DuplicateId(id) => write!(f, "duplicate request-state key id {id}"),
            KeyRingError::Malformed { detail } => write!(f, "request-state keys: {detail}"),
            KeyRingError::NoRandomness => f.write_str("no randomness for a request-state key"),
            KeyRingError::InEnvironment { variable, error } => match error {
                Some(e) => write!(f, "{variable}: {e}"),
                None => write!(f, "{variable} is not valid UTF-8"),
            },
        }
    }
}

impl std::error::Error for KeyRingError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            KeyRingError::InEnvironment {
                error: Some(error), ..
            } => Some(&**error),
            _ => None,
        }
    }
}

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
            return Err(KeyRingError::Empty);
        }
        for (i, k) in keys.iter().enumerate() {
            if keys[..i].iter().any(|o| o.id == k.id) {
                return Err(KeyRingError::DuplicateId(k.id));
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
            return Err(KeyRingError::DuplicateId(key.id));
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
                .ok_or_else(|| KeyRingError::Malformed {
                    detail: "they are `id:hex` pairs".into(),
                })?;
            let id: u8 = id.trim().parse().map_err(|_| KeyRingError::Malformed {
                detail: format!("key id `{id}` is not 0-255"),
            })?;
            let hex = hex.trim();
            if hex.len() % 2 != 0 || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
                return Err(KeyRingError::Malformed {
                    detail: format!("key {id} is not hex"),
                });
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
            Ok(text) if !text.trim().is_empty() => {
                Self::parse(&text)
                    .map(Some)
                    .map_err(|e| KeyRingError::InEnvironment {
                        variable: KEY_RING_ENV,
                        error: Some(Box::new(e)),
                    })
            }
            Ok(_) | Err(std::env::VarError::NotPresent) => Ok(None),
            Err(std::env::VarError::NotUnicode(_)) => Err(KeyRingError::InEnvironment {
                variable: KEY_RING_ENV,
                error: None,
            }),
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

    pub(crate) fn sealing(&self) -> &SealingKey {
        // `new` refuses an empty ring.
        &self.keys[self.keys.len() - 1]
    }

    pub(crate) fn by_id(&self, id: u8) -> Option<&SealingKey> {
        self.keys.iter().chain(&self.staged).find(|k| k.id == id)
    }
}
