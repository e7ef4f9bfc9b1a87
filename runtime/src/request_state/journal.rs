//! The journal a call records (answers and step results, as JSON text), and how it is framed
//! inside a token: an entry count, then each key and value with a LEB128 length.

use super::*;

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

/// The most bytes a LEB128 varint of a `usize` takes.
pub(crate) const MAX_VARINT_LEN: usize = 10;

/// `n` as a LEB128 varint.
pub(crate) fn push_varint(buf: &mut Vec<u8>, mut n: usize) {
    while n >= 0x80 {
        buf.push((n as u8 & 0x7f) | 0x80);
        n >>= 7;
    }
    buf.push(n as u8);
}

/// `bytes`, preceded by its length as a LEB128 varint.
pub(crate) fn push_framed(buf: &mut Vec<u8>, bytes: &[u8]) {
    push_varint(buf, bytes.len());
    buf.extend_from_slice(bytes);
}

/// The LEB128 varint at the start of `input`, advancing past it; `None` if it does not end or
/// does not fit a `usize`.
pub(crate) fn next_varint(input: &mut &[u8]) -> Option<usize> {
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
pub(crate) fn next_framed<'a>(input: &mut &'a [u8]) -> Option<&'a str> {
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
pub(crate) fn read_journal(mut input: &[u8]) -> Option<Journal> {
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
