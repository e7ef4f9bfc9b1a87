//! Reading a 2025 session's request without building a JSON tree ([`SessionRequest`]), for the
//! HTTP transport's common case: a request the handlers answer, given the session's `_meta` by
//! writing its members into the request's text.

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
    method: &'a str,
    id: &'a RawValue,
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
    pub(crate) fn method(&self) -> &'a str {
        self.method
    }

    /// The id, as the JSON text it was sent as (the key the session's calls are known by).
    pub(crate) fn id_text(&self) -> &'a str {
        self.id.get()
    }

    /// `params.name`, when it is a string.
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
mod tests {
    use super::*;
    use crate::resume::live::Outbound;
    use crate::wire::Incoming;
    use serde_json::{json, Value};
    use std::sync::{Arc, Mutex, OnceLock};
    use std::time::Duration;

    fn session(level: Option<&str>) -> Session {
        let capabilities = json!({"elicitation": {}});
        let client_info = json!({"name": "c", "version": "1"});
        Session {
            version: "2025-11-25".into(),
            meta_members: super::super::meta_members(
                "2025-11-25",
                &capabilities.to_string(),
                Some(&client_info.to_string()),
            ),
            // Built from `meta_members` when a request read as a tree needs it.
            client: OnceLock::new(),
            log_level: Mutex::new(level.map(|l| json!(l))),
            subscriptions: Mutex::default(),
            limits: limits(Duration::from_secs(1), BUDGET),
            outbound: Arc::new(Outbound::new(Duration::from_secs(1))),
        }
    }

    fn rewritten(text: &str, session: &Session) -> Value {
        let request = SessionRequest::read(text.as_bytes()).expect("read");
        let out = request.with_session_meta(session).expect("rewritten");
        serde_json::from_slice(&out).expect("the rewritten request is JSON")
    }

    #[test]
    fn the_session_meta_is_written_into_the_request() {
        let s = session(None);
        let text = r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"t","arguments":{"a":[1,{"b":"x"}]},"_meta":{"progressToken":"p","io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}"#;
        let v = rewritten(text, &s);
        assert_eq!(v["id"], 3);
        assert_eq!(v["method"], "tools/call");
        assert_eq!(v["params"]["name"], "t");
        assert_eq!(v["params"]["arguments"], json!({"a": [1, {"b": "x"}]}));
        let meta = &v["params"]["_meta"];
        assert_eq!(meta["progressToken"], "p");
        // The session's version replaces the one the client wrote.
        assert_eq!(meta[crate::wire::META_VERSION], "2025-11-25");
        assert_eq!(meta[crate::wire::META_CAPS], json!({"elicitation": {}}));
        assert_eq!(
            meta[crate::wire::META_CLIENT_INFO],
            json!({"name": "c", "version": "1"})
        );
        assert!(meta.get(crate::wire::META_LOG_LEVEL).is_none());
        // What the handlers are given is a request of the session's version.
        let out = SessionRequest::read(text.as_bytes())
            .unwrap()
            .with_session_meta(&s)
            .unwrap();
        assert!(matches!(
            Incoming::parse(&out, &["2025-11-25"]),
            Incoming::Request(_)
        ));
    }

    #[test]
    fn params_are_made_when_absent_and_a_repeated_name_keeps_its_last_value() {
        let s = session(Some("info"));
        let v = rewritten(r#"{"jsonrpc":"2.0","id":"a","method":"tools/list"}"#, &s);
        assert_eq!(v["params"]["_meta"][crate::wire::META_LOG_LEVEL], "info");
        let v = rewritten(
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a","name":"b","_meta":{"io.modelcontextprotocol/logLevel":"debug"}}}"#,
            &s,
        );
        assert_eq!(v["params"]["name"], "b");
        // The level the session set wins over the client's.
        assert_eq!(v["params"]["_meta"][crate::wire::META_LOG_LEVEL], "info");
        let quiet = session(None);
        let v = rewritten(
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/logLevel":"debug"}}}"#,
            &quiet,
        );
        assert_eq!(v["params"]["_meta"][crate::wire::META_LOG_LEVEL], "debug");
    }

    #[test]
    fn params_read_in_the_same_pass_keep_their_last_value() {
        let s = session(None);
        let v = rewritten(
            r#"{"params":{"name":"a"},"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"b","arguments":{"k":[{"params":1}]}}}"#,
            &s,
        );
        assert_eq!(v["params"]["name"], "b");
        assert_eq!(v["params"]["arguments"], json!({"k": [{"params": 1}]}));
        assert_eq!(v.as_object().unwrap().len(), 4);
        // The last `params` not an object, or params of any other kind: the parsed path's.
        for params in [
            r#"{"name":"a"},"params":[1]"#,
            "[]",
            "[1,{}]",
            "null",
            "1",
            "\"x\"",
            "true",
        ] {
            let text =
                format!(r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{params}}}"#);
            assert!(SessionRequest::read(text.as_bytes()).is_none(), "{text}");
        }
        // A notification's params are not looked at.
        let text = r#"{"jsonrpc":"2.0","method":"notifications/progress","params":[1]}"#;
        assert!(matches!(
            SessionMessage::read(text.as_bytes()),
            Some(SessionMessage::Notification)
        ));
    }

    #[test]
    fn what_this_way_cannot_take_is_left_to_the_parsed_path() {
        for text in [
            // Not requests the handlers answer.
            r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#,
            r#"{"jsonrpc":"2.0","id":1,"result":{}}"#,
            r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
            // Ids a parsed id is written differently from, or no id at all.
            r#"{"jsonrpc":"2.0","id":1.5,"method":"tools/list"}"#,
            r#"{"jsonrpc":"2.0","id":"a\u0041","method":"tools/list"}"#,
            r#"{"jsonrpc":"2.0","id":null,"method":"tools/list"}"#,
            // A name written with escapes, params that are not an object.
            r#"{"jsonrpc":"2.0","id":1,"me\u0074hod":"tools/list"}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":[1]}"#,
            // Not JSON, or not an object.
            r#"{"jsonrpc":"2.0","id":1,"#,
            r#"[1]"#,
        ] {
            assert!(SessionRequest::read(text.as_bytes()).is_none(), "{text}");
        }
        // A `_meta` that is not an object: the parsed path gives the error.
        let text = r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":3}}"#;
        let request = SessionRequest::read(text.as_bytes()).unwrap();
        assert!(request.with_session_meta(&session(None)).is_none());
    }

    #[test]
    fn responses_and_notifications_are_read_without_a_tree_when_they_can_be() {
        fn read(text: &str) -> Option<SessionMessage<'_>> {
            SessionMessage::read(text.as_bytes())
        }
        match read(r#"{"jsonrpc":"2.0","id":"mcp-server-1","result":{"action":"accept"}}"#) {
            Some(SessionMessage::Response(r)) => {
                assert_eq!(r.id, r#""mcp-server-1""#);
                assert_eq!(
                    r.outcome.map(RawValue::get).map_err(RawValue::get),
                    Ok(r#"{"action":"accept"}"#)
                );
            }
            _ => panic!("a response"),
        }
        match read(r#"{"error":{"code":-1,"message":"no"},"id":7,"jsonrpc":"2.0"}"#) {
            Some(SessionMessage::Response(r)) => {
                assert_eq!(r.id, "7");
                assert_eq!(
                    r.outcome.map(RawValue::get).map_err(RawValue::get),
                    Err(r#"{"code":-1,"message":"no"}"#)
                );
            }
            _ => panic!("an error response"),
        }
        assert!(matches!(
            read(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#),
            Some(SessionMessage::Notification)
        ));
        assert!(matches!(
            read(r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#),
            Some(SessionMessage::Request(_))
        ));
        // What this way cannot take goes to the parsed path, which answers each exactly: both
        // or neither of result and error, an id with an escape or of another type, a
        // cancellation (which the session acts on), a method that is not a plain string, a
        // message that is not an object.
        for other in [
            r#"{"jsonrpc":"2.0","id":1,"result":{},"error":{"code":1,"message":"x"}}"#,
            r#"{"jsonrpc":"2.0","id":1}"#,
            r#"{"jsonrpc":"2.0","id":"mcp\u002dserver-1","result":{}}"#,
            r#"{"jsonrpc":"2.0","id":null,"result":{}}"#,
            r#"{"jsonrpc":"2.0","result":{}}"#,
            r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}"#,
            r#"{"jsonrpc":"2.0","method":5}"#,
            r#"{"jsonrpc":"2.0","method":"notifications/\u0069nitialized"}"#,
            r#"[{"jsonrpc":"2.0","method":"notifications/initialized"}]"#,
            r#""notifications/initialized""#,
        ] {
            assert!(read(other).is_none(), "{other}");
        }
    }

    #[test]
    fn members_keep_a_repeated_names_first_place_and_last_value_in_small_and_large_objects() {
        for n in [3, Members::SCANNED, Members::SCANNED + 1, 100] {
            // Members k0..kn, then k1 again, then k(n-1) again.
            let mut text = String::from("{");
            for k in 0..n {
                text.push_str(&format!("\"k{k}\":{k},"));
            }
            text.push_str(&format!("\"k1\":\"again\",\"k{}\":[1]}}", n - 1));
            let members: Members<'_> = serde_json::from_str(&text).unwrap();
            let names: Vec<&str> = members.iter().map(|(name, _)| *name).collect();
            let expected: Vec<String> = (0..n).map(|k| format!("k{k}")).collect();
            assert_eq!(names, expected, "{n} members");
            assert_eq!(members.get("k0").map(RawValue::get), Some("0"));
            assert_eq!(members.get("k1").map(RawValue::get), Some("\"again\""));
            assert_eq!(
                members.get(&format!("k{}", n - 1)).map(RawValue::get),
                Some("[1]")
            );
            assert!(members.get("absent").is_none());
        }
        // Names with escapes are not read this way; nor is anything but an object.
        assert!(serde_json::from_str::<Members<'_>>(r#"{"a\u0062":1}"#).is_err());
        assert!(serde_json::from_str::<Members<'_>>("[1]").is_err());
    }

    /// What a session is to its client: the reply to its `initialize`, and what every request
    /// of it carries (its version; its `_meta` members as a tree, and as the typed `_meta` each
    /// request reads them as, or why they do not read; its client, as trees).
    type Opened = (
        Value,
        Option<(String, Value, TypedMeta, super::super::Client)>,
    );

    type TypedMeta = Result<oxmcp_schema::RequestMetaObject, String>;

    fn opened(reply: String, session: Option<Arc<Session>>) -> Opened {
        let reply: Value = serde_json::from_str(&reply).expect("the reply is JSON");
        let session = session.map(|s| {
            let text = format!("{{{}}}", s.meta_members);
            let meta = serde_json::from_str(&text).expect("members");
            // Where an error was found does not count: the texts differ in spaces.
            let typed = crate::wire::from_text(&text).map_err(|e: serde_json::Error| {
                let e = e.to_string();
                e[..e.rfind(" at line ").unwrap_or(e.len())].to_string()
            });
            (s.version.clone(), meta, typed, s.client().clone())
        });
        (reply, session)
    }

    const BUDGET: usize = 200;

    fn limits(ask_timeout: Duration, bytes: usize) -> crate::server::session::SessionLimits {
        crate::server::session::SessionLimits {
            ask_timeout,
            bytes,
            subscriptions: 16,
            subscription_bytes: 1024,
        }
    }

    /// An `initialize` whose capabilities name a member twice.
    const REPEATED: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{"sampling":{},"sampling":{"tools":{}}}}}"#;

    #[test]
    fn an_initialize_read_without_a_tree_opens_the_session_a_tree_opens() {
        let server = crate::Server::builder()
            .build()
            .expect("an empty server builds");
        let timeout = Duration::from_secs(1);
        let taken = [
            r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{"elicitation":{},"roots":{"listChanged":true}},"clientInfo":{"name":"c","version":"1"}}}"#,
            // Members in another order, whitespace, a string id, an unknown version (the newest
            // 2025-era one is agreed), a version that is not a string, no params at all.
            "{ \"params\" : { \"clientInfo\" : { \"name\" : \"c\" , \"version\" : \"1\" } , \"capabilities\" : { \"sampling\" : { } } } , \"method\" : \"initialize\" , \"id\" : \"x-1\" }",
            r#"{"jsonrpc":"2.0","id":2,"method":"initialize","params":{"protocolVersion":"1999-01-01"}}"#,
            r#"{"jsonrpc":"2.0","id":3,"method":"initialize","params":{"protocolVersion":7,"capabilities":{}}}"#,
            r#"{"jsonrpc":"2.0","id":18446744073709551615,"method":"initialize"}"#,
            r#"{"jsonrpc":"2.0","id":-9,"method":"initialize","params":{"_meta":{"progressToken":1}}}"#,
            // Extension members the 2026 types keep.
            r#"{"jsonrpc":"2.0","id":4,"method":"initialize","params":{"capabilities":{"experimental":{"x":{"a":1}},"extra":[1]},"clientInfo":{"name":"c","version":"1","title":"T","more":null}}}"#,
        ];
        for text in taken {
            let read = SessionInitialize::read(text.as_bytes(), BUDGET)
                .unwrap_or_else(|| panic!("taken without a tree: {text}"));
            let (reply, session) = server.initialize_read(read, &limits(timeout, BUDGET));
            let fast = opened(reply, session);
            let (reply, session) = server.initialize(
                serde_json::from_str(text).unwrap(),
                &limits(timeout, BUDGET),
            );
            let tree = opened(reply, session);
            assert_eq!(fast, tree, "{text}");
            assert!(tree.1.is_some(), "{text}");
        }
        let left = [
            // Not an initialize, or a 2026 one.
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}"#,
            // Ids a parsed initialize refuses or writes differently.
            r#"{"jsonrpc":"2.0","id":-0,"method":"initialize"}"#,
            r#"{"jsonrpc":"2.0","id":1.5,"method":"initialize"}"#,
            r#"{"jsonrpc":"2.0","id":18446744073709551616,"method":"initialize"}"#,
            r#"{"jsonrpc":"2.0","id":"a\u0041","method":"initialize"}"#,
            r#"{"jsonrpc":"2.0","id":null,"method":"initialize"}"#,
            r#"{"jsonrpc":"2.0","method":"initialize"}"#,
            // Escapes in a name, the method or the version asked for.
            r#"{"jsonrpc":"2.0","id":1,"me\u0074hod":"initialize"}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"initiali\u007ae"}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-1\u0038"}}"#,
            // Params, capabilities or clientInfo that are not objects.
            r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":[]}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":[]}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"clientInfo":"c"}}"#,
            // What the 2026 types do not read: a repeated member, a clientInfo without a version.
            REPEATED,
            r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"clientInfo":{"name":"c"}}}"#,
            // Over the budget as written.
            r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"clientInfo":{"name":"c","version":"1","title":"                                                                                                                                                                                            "}}}"#,
            // Not JSON.
            r#"{"jsonrpc":"2.0","id":1,"method":"initialize""#,
        ];
        for text in left {
            assert!(
                SessionInitialize::read(text.as_bytes(), BUDGET).is_none(),
                "{text}"
            );
        }
        // What the tree makes of a repeated member: the last value, which every request of the
        // session then carries.
        let (_, session) = server.initialize(
            serde_json::from_str(REPEATED).unwrap(),
            &limits(timeout, BUDGET),
        );
        let (.., client) = opened(String::from("{}"), session).1.expect("opened");
        assert_eq!(client.0, json!({"sampling": {"tools": {}}}));
    }

    /// Members an `initialize` may carry, valid or not, for the property below: each is a
    /// JSON member as text, or none (left out).
    fn choice(
        options: &'static [&'static str],
    ) -> impl proptest::strategy::Strategy<Value = &'static str> {
        proptest::sample::select(options)
    }

    proptest::proptest! {
        // Cheap cases, most of them left to the tree: enough that many are taken.
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(2048))]
        /// Whatever a client sends as its `initialize`, reading it without a tree either leaves
        /// it to the tree or opens the very session the tree opens, with the same reply.
        #[test]
        fn any_initialize_read_without_a_tree_is_read_as_a_tree_reads_it(
            id in choice(&["", r#""id":1"#, r#""id":-0"#, r#""id":1.5"#, r#""id":"a""#, r#""id":"a\u0041""#, r#""id":null"#, r#""id":18446744073709551616"#, r#""id":-9223372036854775808"#]),
            method in choice(&["", r#""method":"initialize""#, r#""method":"initialize""#, r#""method":"initialize""#, r#""method":"initiali\u007ae""#, r#""method":"tools/list""#, r#""method":1"#]),
            version in choice(&["", r#""protocolVersion":"2025-06-18""#, r#""protocolVersion":"2025-03-26""#, r#""protocolVersion":"x""#, r#""protocolVersion":7"#, r#""protocolVersion":"2025-06-1\u0038""#]),
            caps in choice(&["", r#""capabilities":{}"#, r#""capabilities":{"elicitation":{}}"#, r#""capabilities":{"sampling":{},"sampling":{"tools":{}}}"#, r#""capabilities":[]"#, r#""capabilities":"x""#, r#""capabilities":{"experimental":{"a":{"b":[1,2]}}}"#, r#""capabilities":{"sampling":{"context":1}}"#, r#""capabilities":{ "roots" : { "listChanged" : true } }"#]),
            info in choice(&["", r#""clientInfo":{"name":"c","version":"1"}"#, r#""clientInfo":{"name":"c"}"#, r#""clientInfo":"c""#, r#""clientInfo":{"name":"c","version":"1","title":"a title that is rather long for a client, and then some more"}"#, r#""clientInfo":{"name":"\u0063","version":"1","name":"d"}"#]),
            meta in choice(&["", r#""_meta":{}"#, r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}"#, r#""_meta":3"#, r#""_meta":{"progressToken":"p"}"#]),
            params_kind in 0..4u8,
            order in proptest::collection::vec(0..8usize, 8),
            space in proptest::bool::ANY,
            budget in choice(&["40", "100", "4096"]),
        ) {
            let budget: usize = budget.parse().unwrap();
            let mut params: Vec<&str> = [version, caps, info, meta].into_iter().filter(|m| !m.is_empty()).collect();
            let mut top: Vec<String> = [r#""jsonrpc":"2.0""#, id, method].into_iter().filter(|m| !m.is_empty()).map(String::from).collect();
            // Members in a shuffled order.
            for (i, j) in order.iter().enumerate() {
                if !params.is_empty() { let n = params.len(); params.swap(i % n, j % n); }
                let n = top.len(); top.swap(i % n, j % n);
            }
            let sep = if space { " , " } else { "," };
            match params_kind {
                0 => top.push(format!(r#""params":{{{}}}"#, params.join(sep))),
                1 => {}
                2 => top.push(r#""params":[]"#.into()),
                _ => top.push(format!(r#""params":{{"capabilities":[]}},"params":{{{}}}"#, params.join(sep))),
            }
            let text = format!("{{{}}}", top.join(sep));
            let server = crate::Server::builder().build().unwrap();
            let timeout = Duration::from_secs(1);
            // As a tree: a session that opens gives every request a `_meta` that reads.
            let tree: Option<Value> = serde_json::from_str(&text).ok();
            let tree = tree.filter(crate::server::session::is_session_initialize).map(|tree| {
                let (reply, session) = server.initialize(tree, &limits(timeout, budget));
                opened(reply, session)
            });
            if let Some((_, Some((_, _, typed, _)))) = &tree {
                proptest::prop_assert!(typed.is_ok(), "{}: {:?}", text, typed);
            }
            if let Some(read) = SessionInitialize::read(text.as_bytes(), budget) {
                let (reply, session) = server.initialize_read(read, &limits(timeout, budget));
                proptest::prop_assert_eq!(Some(opened(reply, session)), tree, "{}", text);
            }
        }
    }

    #[test]
    fn a_client_without_client_info_is_served_and_one_that_does_not_read_is_refused() {
        let server = crate::Server::builder().build().unwrap();
        let timeout = Duration::from_secs(1);
        let call = br#"{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/clientInfo":{"name":"mine","version":"1"}}}}"#;
        let without = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{}}}"#;
        let read = SessionInitialize::read(without.as_bytes(), BUDGET).expect("taken");
        let by_tree = server.initialize(
            serde_json::from_str(without).unwrap(),
            &limits(timeout, BUDGET),
        );
        for (_, session) in [
            server.initialize_read(read, &limits(timeout, BUDGET)),
            by_tree,
        ] {
            let session = session.expect("opened");
            let out = SessionRequest::read(call)
                .unwrap()
                .with_session_meta(&session)
                .unwrap();
            let Incoming::Request(request) = Incoming::parse(&out, &["2025-06-18"]) else {
                panic!(
                    "a request of the session reads: {}",
                    String::from_utf8_lossy(&out)
                );
            };
            // Neither the session's client nor one the request names for itself.
            let meta: Value = serde_json::from_slice(&out).unwrap();
            assert!(meta["params"]["_meta"]
                .get(crate::wire::META_CLIENT_INFO)
                .is_none());
            drop(request);
        }
        for (params, why) in [
            (
                r#""clientInfo":{"name":"c"}"#,
                "initialize: clientInfo: missing field `version`",
            ),
            (
                r#""capabilities":{"sampling":{"context":1}}"#,
                "initialize: capabilities: invalid type",
            ),
        ] {
            let text = format!(
                r#"{{"jsonrpc":"2.0","id":1,"method":"initialize","params":{{{params}}}}}"#
            );
            assert!(SessionInitialize::read(text.as_bytes(), BUDGET).is_none());
            let (reply, session) = server.initialize(
                serde_json::from_str(&text).unwrap(),
                &limits(timeout, BUDGET),
            );
            assert!(session.is_none(), "{text}");
            let reply: Value = serde_json::from_str(&reply).unwrap();
            assert_eq!(reply["error"]["code"], -32602, "{reply}");
            assert!(
                reply["error"]["message"].as_str().unwrap().starts_with(why),
                "{reply}"
            );
        }
    }

    #[test]
    fn a_session_opened_without_a_tree_gives_its_client_to_requests_read_as_one() {
        let s = session(None);
        assert_eq!(
            s.client(),
            &(
                json!({"elicitation": {}}),
                Some(json!({"name": "c", "version": "1"}))
            )
        );
    }

    #[test]
    fn plain_ids_are_integers_and_strings_without_escapes() {
        for ok in ["0", "-12", "\"abc\"", "\"\""] {
            assert!(plain_id(ok), "{ok}");
        }
        for not in ["1.0", "1e3", "-", "\"a\\\"b\"", "null", "true", "{}"] {
            assert!(!plain_id(not), "{not}");
        }
    }
}
