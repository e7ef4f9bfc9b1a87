//! Reading a message of a 2025 session, for both transports: [`read_message`] takes the common
//! cases (a request the handlers answer, a response to the session's own request, a
//! notification with nothing to do) without building a JSON tree, giving a request the session's
//! `_meta` by writing its members into the request's text ([`SessionRequest`]); everything else
//! comes out as a parsed tree, which the session's tree path answers.

use super::Session;
use crate::wire::lock;
use serde_core::de::{Deserialize, Deserializer, Error, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::value::RawValue;
use std::borrow::Cow;
use std::collections::HashMap;

/// The methods a 2025 session answers itself rather than through the handlers.
const SESSION_METHODS: [&str; 7] = [
    "ping",
    "initialize",
    "logging/setLevel",
    "resources/subscribe",
    "resources/unsubscribe",
    "subscriptions/listen",
    "server/discover",
];

/// JSON object members as read without building a tree: each name (which had no escapes, so it
/// is written back as it came) and its value's JSON text, in order, a repeated name keeping its
/// first place and its last value (as a parsed object would).
///
/// A message's objects have a handful of members, found faster by a scan than by hashing; an
/// object with more than [`Members::SCANNED`] is indexed by name, so a large one costs no more
/// per member than a hash map.
#[derive(Default)]
struct Members<'a> {
    entries: Vec<(&'a str, &'a RawValue)>,
    index: Option<HashMap<&'a str, usize>>,
}

impl<'a> Members<'a> {
    /// The most members found by a scan.
    const SCANNED: usize = 16;

    fn position(&self, name: &str) -> Option<usize> {
        match &self.index {
            Some(index) => index.get(name).copied(),
            None => self.entries.iter().position(|(n, _)| *n == name),
        }
    }

    fn get(&self, name: &str) -> Option<&'a RawValue> {
        self.position(name).map(|at| self.entries[at].1)
    }

    /// Add a member; a name already there keeps its place and takes this value.
    fn insert(&mut self, name: &'a str, value: &'a RawValue) {
        let at = match &mut self.index {
            // One lookup: the place of the name, or the next one.
            Some(index) => *index.entry(name).or_insert(self.entries.len()),
            None => self
                .entries
                .iter()
                .position(|(n, _)| *n == name)
                .unwrap_or(self.entries.len()),
        };
        if at < self.entries.len() {
            self.entries[at].1 = value;
            return;
        }
        self.entries.push((name, value));
        if self.index.is_none() && self.entries.len() > Self::SCANNED {
            let index = self.entries.iter().enumerate().map(|(at, (n, _))| (*n, at));
            self.index = Some(index.collect());
        }
    }

    fn iter(&self) -> impl Iterator<Item = &(&'a str, &'a RawValue)> {
        self.entries.iter()
    }
}

impl<'de> Deserialize<'de> for Members<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visit;
        impl<'de> Visitor<'de> for Visit {
            type Value = Members<'de>;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Members<'de>, A::Error> {
                read_members(map)
            }
        }
        deserializer.deserialize_map(Visit)
    }
}

/// The members of the object `map` reads.
fn read_members<'de, A: MapAccess<'de>>(mut map: A) -> Result<Members<'de>, A::Error> {
    let mut members = Members::default();
    while let Some((name, value)) = map.next_entry::<&'de str, &'de RawValue>()? {
        members.insert(name, value);
    }
    Ok(members)
}

/// A message's members as [`Members`] reads them, with its `params` read in the same pass, so
/// that their text is read once.
#[derive(Default)]
struct Message<'a> {
    /// The members other than `params`.
    members: Members<'a>,
    params: Params<'a>,
}

/// A message's `params`, as [`Message`] reads them.
#[derive(Default)]
enum Params<'a> {
    /// None were sent.
    #[default]
    Absent,
    /// An object, and its members.
    Object(Members<'a>),
    /// Something else, which this way does not take.
    Other,
}

impl<'a> Params<'a> {
    /// The members of the params, none when absent; `None` when they are not an object.
    fn members(self) -> Option<Members<'a>> {
        match self {
            Params::Absent => Some(Members::default()),
            Params::Object(members) => Some(members),
            Params::Other => None,
        }
    }
}

impl<'de> Deserialize<'de> for Message<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visit;
        impl<'de> Visitor<'de> for Visit {
            type Value = Message<'de>;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Message<'de>, A::Error> {
                let mut message = Message::default();
                while let Some(name) = map.next_key::<&'de str>()? {
                    if name == "params" {
                        // A repeated `params` keeps its last value, as a parsed object would.
                        message.params = map.next_value()?;
                    } else {
                        message.members.insert(name, map.next_value()?);
                    }
                }
                Ok(message)
            }
        }
        deserializer.deserialize_map(Visit)
    }
}

impl<'de> Deserialize<'de> for Params<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visit;
        impl<'de> Visitor<'de> for Visit {
            type Value = Params<'de>;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Params<'de>, A::Error> {
                read_members(map).map(Params::Object)
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Params<'de>, A::Error> {
                while seq.next_element::<IgnoredAny>()?.is_some() {}
                Ok(Params::Other)
            }
            fn visit_bool<E: Error>(self, _: bool) -> Result<Params<'de>, E> {
                Ok(Params::Other)
            }
            fn visit_i64<E: Error>(self, _: i64) -> Result<Params<'de>, E> {
                Ok(Params::Other)
            }
            fn visit_u64<E: Error>(self, _: u64) -> Result<Params<'de>, E> {
                Ok(Params::Other)
            }
            fn visit_f64<E: Error>(self, _: f64) -> Result<Params<'de>, E> {
                Ok(Params::Other)
            }
            fn visit_str<E: Error>(self, _: &str) -> Result<Params<'de>, E> {
                Ok(Params::Other)
            }
            fn visit_unit<E: Error>(self) -> Result<Params<'de>, E> {
                Ok(Params::Other)
            }
        }
        deserializer.deserialize_any(Visit)
    }
}

/// A request of a 2025 session that the handlers answer, read from its bytes without building
/// a JSON tree: the common case of a session's traffic. What it cannot take (a response, a
/// notification, a method the session answers itself, a name written with escapes, params that
/// are not an object) is read as a `serde_json::Value` instead, which gives each case its exact
/// answer.
pub(crate) struct SessionRequest<'a> {
    /// The members other than `params`.
    members: Members<'a>,
    params: Members<'a>,
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    method: &'a str,
    id: &'a RawValue,
}

/// A message of a 2025 session as [`read_message`] reads it.
pub(crate) enum SessionIncoming<'a> {
    /// A request the handlers answer, read without a tree.
    Request(SessionRequest<'a>),
    /// A notification the session has nothing to do for.
    Notification,
    /// A response to one of the session's requests to the client, read without a tree.
    Response(SessionResponse<'a>),
    /// Anything else (a cancellation, a request the session answers itself, an unusual shape),
    /// as a tree.
    Tree(serde_json::Value),
    /// Not JSON.
    Unreadable(serde_json::Error),
}

/// Read one message of a 2025 session: without a tree when it is one of the common kinds, else
/// as a tree (or why it is not JSON).
pub(crate) fn read_message(bytes: &[u8]) -> SessionIncoming<'_> {
    match SessionMessage::read(bytes) {
        Some(SessionMessage::Request(request)) => SessionIncoming::Request(request),
        Some(SessionMessage::Notification) => SessionIncoming::Notification,
        Some(SessionMessage::Response(response)) => SessionIncoming::Response(response),
        None => match serde_json::from_slice(bytes) {
            Ok(tree) => SessionIncoming::Tree(tree),
            Err(e) => SessionIncoming::Unreadable(e),
        },
    }
}

/// A message of a 2025 session read from its bytes without building a JSON tree, when it is
/// one of the kinds this way can take (the rest are read as a `serde_json::Value`).
pub(crate) enum SessionMessage<'a> {
    /// A request the handlers answer.
    Request(SessionRequest<'a>),
    /// A notification the session has nothing to do for: any but `notifications/cancelled`.
    Notification,
    /// A response to one of the session's requests to the client.
    Response(SessionResponse<'a>),
}

/// A client's response to one of the session's requests, read without a JSON tree: the id as
/// it was sent (an integer, or a string without escapes) and the result's or the error's JSON
/// text.
pub(crate) struct SessionResponse<'a> {
    pub(crate) id: &'a str,
    pub(crate) outcome: Result<&'a RawValue, &'a RawValue>,
}

impl<'a> SessionMessage<'a> {
    /// Read `bytes`, if they are a message this way can take.
    pub(crate) fn read(bytes: &'a [u8]) -> Option<Self> {
        let Message { members, params } = serde_json::from_slice(bytes).ok()?;
        let id = members.get("id");
        let Some(method) = members.get("method") else {
            // A response has exactly one of `result` and `error`.
            let id = id.filter(|id| plain_id(id.get()))?;
            let outcome = match (members.get("result"), members.get("error")) {
                (Some(result), None) => Ok(result),
                (None, Some(error)) => Err(error),
                _ => return None,
            };
            return Some(SessionMessage::Response(SessionResponse {
                id: id.get(),
                outcome,
            }));
        };
        let method: &'a str = crate::wire::from_text(method.get()).ok()?;
        match id {
            Some(id) => {
                SessionRequest::of(members, params, method, id).map(SessionMessage::Request)
            }
            None if method == "notifications/cancelled" => None,
            None => Some(SessionMessage::Notification),
        }
    }
}

/// A 2025-era `initialize` read from its bytes without building a JSON tree, for the HTTP
/// transport: what the session it opens keeps, borrowed from the request. The capabilities and
/// `clientInfo` are kept as the client wrote them, and written so into every request of the
/// session.
pub(crate) struct SessionInitialize<'a> {
    /// The id, as JSON text: an integer or a string without escapes.
    pub(crate) id: &'a str,
    /// The `protocolVersion` asked for, when it is a string.
    pub(crate) requested: Option<&'a str>,
    /// The capabilities, when sent: the JSON text of an object.
    pub(crate) capabilities: Option<&'a RawValue>,
    /// The `clientInfo`, when sent: the JSON text of an object.
    pub(crate) client_info: Option<&'a RawValue>,
}

impl<'a> SessionInitialize<'a> {
    /// Read `bytes` as a 2025-era `initialize` (no 2026 `_meta` version), if this way can take
    /// it; what it cannot (any error, a name or string written with escapes, a large id, a
    /// request over `budget`) is read as a `serde_json::Value` instead, which answers each case
    /// exactly. The capabilities and `clientInfo` must read as their 2026 types: each request of
    /// the session carries them as written, and reads them as those types, so text that does
    /// (a repeated member, say) is left to the tree, which keeps one value per name.
    pub(crate) fn read(bytes: &'a [u8], budget: usize) -> Option<Self> {
        let Message { members, params } = serde_json::from_slice(bytes).ok()?;
        let method: &str = crate::wire::from_text(members.get("method")?.get()).ok()?;
        let id = members.get("id")?.get();
        // As a parsed id is taken: a string, or an integer that is one as JSON reads it (not
        // `-0`, which reads as a float).
        let taken = match id.starts_with('"') {
            true => plain_id(id),
            false => crate::wire::from_text::<serde_json::Number>(id)
                .is_ok_and(|n| n.is_i64() || n.is_u64()),
        };
        if method != "initialize" || !taken {
            return None;
        }
        let params = params.members()?;
        if let Some(meta) = params.get("_meta") {
            let meta: Members<'_> = crate::wire::from_text(meta.get()).ok()?;
            if meta.get(crate::wire::META_VERSION).is_some() {
                return None;
            }
        }
        let requested = match params.get("protocolVersion") {
            None => None,
            Some(raw) if raw.get().starts_with('"') => {
                Some(crate::wire::from_text(raw.get()).ok()?)
            }
            // Not a string: asked for no version.
            Some(_) => None,
        };
        let object = |name: &str| match params.get(name) {
            Some(raw) if raw.get().starts_with('{') => Some(Some(raw)),
            Some(_) => None,
            None => Some(None),
        };
        let (capabilities, client_info) = (object("capabilities")?, object("clientInfo")?);
        let size = |raw: Option<&RawValue>| raw.map_or(2, |r| r.get().len());
        if size(capabilities) + size(client_info) > budget {
            return None;
        }
        let caps_text = capabilities.map_or("{}", RawValue::get);
        super::client_reads(caps_text, client_info.map(RawValue::get)).ok()?;
        Some(SessionInitialize {
            id,
            requested,
            capabilities,
            client_info,
        })
    }
}

impl<'a> SessionRequest<'a> {
    /// Read `bytes` as a request the handlers answer, if it is one this way can take.
    #[cfg(test)]
    pub(crate) fn read(bytes: &'a [u8]) -> Option<Self> {
        match SessionMessage::read(bytes)? {
            SessionMessage::Request(request) => Some(request),
            _ => None,
        }
    }

    /// The request of `members` and `params` with this method and id, if the handlers answer it
    /// and this way can take it.
    fn of(
        members: Members<'a>,
        params: Params<'a>,
        method: &'a str,
        id: &'a RawValue,
    ) -> Option<Self> {
        if SESSION_METHODS.contains(&method) || !plain_id(id.get()) {
            return None;
        }
        let params = params.members()?;
        Some(SessionRequest {
            members,
            params,
            method,
            id,
        })
    }

    /// The method.
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    pub(crate) fn method(&self) -> &'a str {
        self.method
    }

    /// The id, as the JSON text it was sent as (the key the session's calls are known by).
    pub(crate) fn id_text(&self) -> &'a str {
        self.id.get()
    }

    /// `params.name`, when it is a string.
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    pub(crate) fn name(&self) -> Option<Cow<'a, str>> {
        let raw = self.params.get("name")?.get();
        crate::wire::from_text::<&'a str>(raw)
            .map(Cow::Borrowed)
            .or_else(|_| crate::wire::from_text::<String>(raw).map(Cow::Owned))
            .ok()
    }

    /// The request as a 2026 request of `session` would carry it: the session's `_meta`
    /// members put into `params._meta` (replacing any the client sent under the same names);
    /// none when its `_meta` is not an object this way can read.
    pub(crate) fn with_session_meta(&self, session: &Session) -> Option<Vec<u8>> {
        let client_meta: Members<'_> = match self.params.get("_meta") {
            Some(meta) => crate::wire::from_text(meta.get()).ok()?,
            None => Members::default(),
        };
        let level = lock(&session.log_level).clone();
        let mut out = Vec::with_capacity(
            self.members
                .iter()
                .map(|(_, v)| v.get().len() + 24)
                .sum::<usize>()
                + session.meta_members.len()
                + 96,
        );
        let ours = [
            crate::wire::META_VERSION,
            crate::wire::META_CAPS,
            crate::wire::META_CLIENT_INFO,
            crate::wire::META_LOG_LEVEL,
        ];
        let replaced = |member: &str| {
            ours.contains(&member) && (member != crate::wire::META_LOG_LEVEL || level.is_some())
        };
        out.push(b'{');
        let mut first = true;
        // `params` last, with the session's `_meta` in it.
        write_members(&mut out, &mut first, &self.members, |_| true);
        member_name(&mut out, &mut first, "params");
        out.push(b'{');
        let mut first = true;
        write_members(&mut out, &mut first, &self.params, |n| n != "_meta");
        member_name(&mut out, &mut first, "_meta");
        out.push(b'{');
        let mut first = true;
        write_members(&mut out, &mut first, &client_meta, |n| !replaced(n));
        if !std::mem::take(&mut first) {
            out.push(b',');
        }
        out.extend_from_slice(session.meta_members.as_bytes());
        if let Some(level) = level {
            member_name(&mut out, &mut first, crate::wire::META_LOG_LEVEL);
            out.extend_from_slice(level.to_string().as_bytes());
        }
        out.extend_from_slice(b"}}}");
        Some(out)
    }
}

/// Write `name:` as the next member of the object being written to `out` (`first`: none is
/// written yet). A name needs no escaping: names were read borrowed (no escapes), and the
/// `_meta` names are plain.
fn member_name(out: &mut Vec<u8>, first: &mut bool, name: &str) {
    if !std::mem::take(first) {
        out.push(b',');
    }
    out.push(b'"');
    out.extend_from_slice(name.as_bytes());
    out.extend_from_slice(b"\":");
}

/// Write the members of `members` that `keep` keeps, as they were sent, next in the object
/// being written to `out`.
fn write_members(
    out: &mut Vec<u8>,
    first: &mut bool,
    members: &Members<'_>,
    keep: impl Fn(&str) -> bool,
) {
    for (name, value) in members.iter().filter(|(name, _)| keep(name)) {
        member_name(out, first, name);
        out.extend_from_slice(value.get().as_bytes());
    }
}

/// Whether an id's JSON text is an integer or a string without escapes: written as the client
/// wrote it, it is then the same text a parsed id is written as (the key the session's calls
/// are known by, and `notifications/cancelled` names them by).
fn plain_id(text: &str) -> bool {
    let digits = text.strip_prefix('-').unwrap_or(text);
    let integer = !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit());
    let string = text.len() >= 2 && text.starts_with('"') && !text.contains('\\');
    integer || string
}

#[cfg(test)]
mod tests;
