/// Required key paths that set a member apart, and optional keys only it declares.
pub type Candidate = (&'static [&'static [&'static str]], &'static [&'static str]);
pub fn error(message: &str) -> ::serde_json::Error {
    <::serde_json::Error as ::serde::de::Error>::custom(message)
}
pub fn context(label: &str, e: ::serde_json::Error) -> ::serde_json::Error {
    error(&::std::format!("{label}: {e}"))
}
/// `label: message` for any error type; a position serde_json already appended is
/// dropped, since serde_json appends it again on the way out.
pub fn context_any<E: ::serde::de::Error>(label: &str, e: E) -> E {
    let text = e.to_string();
    E::custom(::std::format!("{label}: {}", without_position(& text)))
}
/// An error's text without the ` at line L column C` serde_json ends it with.
fn without_position(text: &str) -> &str {
    match text.rfind(" at line ") {
        ::core::option::Option::Some(at) if text[at..].contains(" column ") => {
            &text[..at]
        }
        _ => text,
    }
}
/// A union that reads its input up to its discriminator, then hands the member the
/// rest unbuffered (see [`deserialize_streamed`]).
pub trait Streamed: ::core::marker::Sized {
    const NAME: &'static str;
    /// The discriminating property.
    const TAG: &'static str;
    /// The member (index, label) a value of the tag alone decides, if it does.
    fn by_tag(tag: &Content<'_>) -> ::core::option::Option<(usize, &'static str)>;
    /// Dispatch on a fully buffered input.
    fn from_buffer(
        content: Content<'_>,
    ) -> ::core::result::Result<Self, ::serde_json::Error>;
    /// Build member `which` from the entries read so far and the rest of the map.
    fn build<'de, A: ::serde::de::MapAccess<'de>>(
        which: usize,
        rest: Prefixed<'de, A>,
    ) -> ::core::result::Result<Self, A::Error>;
}
/// Deserialize a [`Streamed`] union: objects are read up to the tag and then streamed
/// into the member; anything else (or an object whose tag does not decide) is
/// buffered and dispatched whole.
pub fn deserialize_streamed<'de, T: Streamed, D: ::serde::Deserializer<'de>>(
    deserializer: D,
) -> ::core::result::Result<T, D::Error> {
    deserializer.deserialize_any(StreamVisitor(::core::marker::PhantomData))
}
struct StreamVisitor<T>(::core::marker::PhantomData<T>);
impl<T: Streamed> StreamVisitor<T> {
    fn buffered<E: ::serde::de::Error>(
        content: Content<'_>,
    ) -> ::core::result::Result<T, E> {
        T::from_buffer(content).map_err(E::custom)
    }
}
impl<'de, T: Streamed> ::serde::de::Visitor<'de> for StreamVisitor<T> {
    type Value = T;
    fn expecting(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
        f.write_str(T::NAME)
    }
    fn visit_map<A: ::serde::de::MapAccess<'de>>(
        self,
        mut map: A,
    ) -> ::core::result::Result<T, A::Error> {
        let mut read = ::std::vec::Vec::new();
        let mut nested = false;
        while let ::core::option::Option::Some(key) = map.next_key::<Content<'de>>()? {
            let value: Content<'de> = map.next_value()?;
            let chosen = if nested {
                ::core::option::Option::None
            } else if key.as_str() == ::core::option::Option::Some(T::TAG) {
                T::by_tag(&value)
            } else {
                nested = matches!(value, Content::Seq(_) | Content::Map(_));
                ::core::option::Option::None
            };
            read.push((key, value));
            if let ::core::option::Option::Some((which, label)) = chosen {
                return T::build(which, Prefixed::new(read, map))
                    .map_err(|e| context_any(label, e));
            }
        }
        Self::buffered(Content::Map(read))
    }
    fn visit_seq<A: ::serde::de::SeqAccess<'de>>(
        self,
        seq: A,
    ) -> ::core::result::Result<T, A::Error> {
        Self::buffered(Content::visit_seq(seq)?)
    }
    fn visit_bool<E: ::serde::de::Error>(self, v: bool) -> ::core::result::Result<T, E> {
        Self::buffered(Content::Bool(v))
    }
    fn visit_u64<E: ::serde::de::Error>(self, v: u64) -> ::core::result::Result<T, E> {
        Self::buffered(Content::U64(v))
    }
    fn visit_i64<E: ::serde::de::Error>(self, v: i64) -> ::core::result::Result<T, E> {
        Self::buffered(Content::I64(v))
    }
    fn visit_f64<E: ::serde::de::Error>(self, v: f64) -> ::core::result::Result<T, E> {
        Self::buffered(Content::F64(v))
    }
    fn visit_borrowed_str<E: ::serde::de::Error>(
        self,
        v: &'de str,
    ) -> ::core::result::Result<T, E> {
        Self::buffered(Content::Str(v))
    }
    fn visit_str<E: ::serde::de::Error>(self, v: &str) -> ::core::result::Result<T, E> {
        Self::buffered(Content::String(v.into()))
    }
    fn visit_string<E: ::serde::de::Error>(
        self,
        v: ::std::string::String,
    ) -> ::core::result::Result<T, E> {
        Self::buffered(Content::String(v))
    }
    fn visit_unit<E: ::serde::de::Error>(self) -> ::core::result::Result<T, E> {
        Self::buffered(Content::Null)
    }
    fn visit_none<E: ::serde::de::Error>(self) -> ::core::result::Result<T, E> {
        Self::buffered(Content::Null)
    }
    fn visit_some<D: ::serde::Deserializer<'de>>(
        self,
        d: D,
    ) -> ::core::result::Result<T, D::Error> {
        deserialize_streamed(d)
    }
}
/// A map whose first entries were already read into [`Content`] (scalars only, see
/// [`StreamVisitor`]): replays them, then reads on from the input.
pub struct Prefixed<'de, A> {
    read: ::std::vec::IntoIter<(Content<'de>, Content<'de>)>,
    value: ::core::option::Option<Content<'de>>,
    rest: A,
}
impl<'de, A> Prefixed<'de, A> {
    pub fn new(read: ::std::vec::Vec<(Content<'de>, Content<'de>)>, rest: A) -> Self {
        Prefixed {
            read: read.into_iter(),
            value: ::core::option::Option::None,
            rest,
        }
    }
}
impl<'de, A: ::serde::de::MapAccess<'de>> ::serde::de::MapAccess<'de>
for Prefixed<'de, A> {
    type Error = A::Error;
    fn next_key_seed<K: ::serde::de::DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> ::core::result::Result<::core::option::Option<K::Value>, A::Error> {
        match self.read.next() {
            ::core::option::Option::Some((key, value)) => {
                self.value = ::core::option::Option::Some(value);
                seed.deserialize(ScalarDeserializer::<A::Error>::new(key))
                    .map(::core::option::Option::Some)
            }
            ::core::option::Option::None => self.rest.next_key_seed(seed),
        }
    }
    fn next_value_seed<V: ::serde::de::DeserializeSeed<'de>>(
        &mut self,
        seed: V,
    ) -> ::core::result::Result<V::Value, A::Error> {
        match self.value.take() {
            ::core::option::Option::Some(value) => {
                seed.deserialize(ScalarDeserializer::<A::Error>::new(value))
            }
            ::core::option::Option::None => self.rest.next_value_seed(seed),
        }
    }
    fn size_hint(&self) -> ::core::option::Option<usize> {
        self.rest.size_hint().map(|n| n + self.read.len())
    }
}
impl<'de, A: ::serde::de::MapAccess<'de>> ::serde::Deserializer<'de>
for Prefixed<'de, A> {
    type Error = A::Error;
    fn deserialize_any<V: ::serde::de::Visitor<'de>>(
        self,
        visitor: V,
    ) -> ::core::result::Result<V::Value, A::Error> {
        visitor.visit_map(self)
    }
    ::serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes
        byte_buf option unit unit_struct newtype_struct seq tuple tuple_struct map struct
        enum identifier ignored_any
    }
}
pub fn kind(v: &Content<'_>) -> &'static str {
    match v {
        Content::Null => "null",
        Content::Bool(_) => "boolean",
        Content::U64(_) | Content::I64(_) | Content::F64(_) => "number",
        Content::Str(_) | Content::String(_) => "string",
        Content::Seq(_) => "array",
        Content::Map(_) => "object",
    }
}
pub fn show(v: ::core::option::Option<&Content<'_>>) -> ::std::string::String {
    match v {
        ::core::option::Option::Some(c) => {
            match c.as_str() {
                ::core::option::Option::Some(s) => ::std::format!("`{s}`"),
                ::core::option::Option::None => ::std::format!("of type {}", kind(c)),
            }
        }
        ::core::option::Option::None => "(absent)".into(),
    }
}
/// The value of `key` in a buffered object (the last one, as serde_json keeps).
pub fn get<'a, 'de>(
    map: &'a [(Content<'de>, Content<'de>)],
    key: &str,
) -> ::core::option::Option<&'a Content<'de>> {
    map.iter()
        .rev()
        .find(|(k, _)| k.as_str() == ::core::option::Option::Some(key))
        .map(|(_, v)| v)
}
fn has(map: &[(Content<'_>, Content<'_>)], path: &[&str]) -> bool {
    let ::core::option::Option::Some((last, parents)) = path.split_last() else {
        return true
    };
    let mut cur = map;
    for key in parents {
        match get(cur, key) {
            ::core::option::Option::Some(Content::Map(next)) => cur = next,
            _ => return false,
        }
    }
    get(cur, last).is_some()
}
/// The candidate whose distinguishing keys are all present and that matches the most of
/// its own keys; failing that, the one missing the fewest (so its error names them).
pub fn choose(map: &[(Content<'_>, Content<'_>)], table: &[Candidate]) -> usize {
    let mut best: ::core::option::Option<(usize, usize)> = ::core::option::Option::None;
    for (i, (required, unique)) in table.iter().enumerate() {
        if required.iter().all(|p| has(map, p)) {
            let score = required.len()
                + unique.iter().filter(|k| get(map, k).is_some()).count();
            if best.is_none_or(|(_, s)| score > s) {
                best = ::core::option::Option::Some((i, score));
            }
        }
    }
    if let ::core::option::Option::Some((i, _)) = best {
        return i;
    }
    let mut nearest = (0, usize::MAX);
    for (i, (required, _)) in table.iter().enumerate() {
        let missing = required.iter().filter(|p| !has(map, p)).count();
        if missing < nearest.1 {
            nearest = (i, missing);
        }
    }
    nearest.0
}
/// A buffered JSON value: what a union reads before it knows its member. Cheaper than
/// `serde_json::Value`: strings are borrowed from the input where possible and objects
/// are plain vectors, so nothing is hashed or copied twice.
pub enum Content<'de> {
    Null,
    Bool(bool),
    U64(u64),
    I64(i64),
    F64(f64),
    Str(&'de str),
    String(::std::string::String),
    Seq(::std::vec::Vec<Content<'de>>),
    Map(::std::vec::Vec<(Content<'de>, Content<'de>)>),
}
impl<'de> Content<'de> {
    pub fn as_str(&self) -> ::core::option::Option<&str> {
        match self {
            Content::Str(s) => ::core::option::Option::Some(s),
            Content::String(s) => ::core::option::Option::Some(s),
            _ => ::core::option::Option::None,
        }
    }
    pub fn visit_seq<A: ::serde::de::SeqAccess<'de>>(
        mut seq: A,
    ) -> ::core::result::Result<Content<'de>, A::Error> {
        let mut items = ::std::vec::Vec::with_capacity(
            seq.size_hint().unwrap_or(0).min(4096),
        );
        while let ::core::option::Option::Some(item) = seq.next_element()? {
            items.push(item);
        }
        ::core::result::Result::Ok(Content::Seq(items))
    }
}
impl<'de> ::serde::Deserialize<'de> for Content<'de> {
    fn deserialize<D: ::serde::Deserializer<'de>>(
        deserializer: D,
    ) -> ::core::result::Result<Self, D::Error> {
        struct Visitor;
        impl<'de> ::serde::de::Visitor<'de> for Visitor {
            type Value = Content<'de>;
            fn expecting(
                &self,
                f: &mut ::core::fmt::Formatter<'_>,
            ) -> ::core::fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_unit<E>(self) -> ::core::result::Result<Content<'de>, E> {
                ::core::result::Result::Ok(Content::Null)
            }
            fn visit_none<E>(self) -> ::core::result::Result<Content<'de>, E> {
                ::core::result::Result::Ok(Content::Null)
            }
            fn visit_some<D: ::serde::Deserializer<'de>>(
                self,
                d: D,
            ) -> ::core::result::Result<Content<'de>, D::Error> {
                ::serde::Deserialize::deserialize(d)
            }
            fn visit_bool<E>(self, v: bool) -> ::core::result::Result<Content<'de>, E> {
                ::core::result::Result::Ok(Content::Bool(v))
            }
            fn visit_u64<E>(self, v: u64) -> ::core::result::Result<Content<'de>, E> {
                ::core::result::Result::Ok(Content::U64(v))
            }
            fn visit_i64<E>(self, v: i64) -> ::core::result::Result<Content<'de>, E> {
                ::core::result::Result::Ok(Content::I64(v))
            }
            fn visit_f64<E>(self, v: f64) -> ::core::result::Result<Content<'de>, E> {
                ::core::result::Result::Ok(Content::F64(v))
            }
            fn visit_borrowed_str<E>(
                self,
                v: &'de str,
            ) -> ::core::result::Result<Content<'de>, E> {
                ::core::result::Result::Ok(Content::Str(v))
            }
            fn visit_str<E>(self, v: &str) -> ::core::result::Result<Content<'de>, E> {
                ::core::result::Result::Ok(Content::String(v.into()))
            }
            fn visit_string<E>(
                self,
                v: ::std::string::String,
            ) -> ::core::result::Result<Content<'de>, E> {
                ::core::result::Result::Ok(Content::String(v))
            }
            fn visit_seq<A: ::serde::de::SeqAccess<'de>>(
                self,
                seq: A,
            ) -> ::core::result::Result<Content<'de>, A::Error> {
                Content::visit_seq(seq)
            }
            fn visit_map<A: ::serde::de::MapAccess<'de>>(
                self,
                mut map: A,
            ) -> ::core::result::Result<Content<'de>, A::Error> {
                let mut entries = ::std::vec::Vec::with_capacity(
                    map.size_hint().unwrap_or(0).min(4096),
                );
                while let ::core::option::Option::Some(entry) = map.next_entry()? {
                    entries.push(entry);
                }
                ::core::result::Result::Ok(Content::Map(entries))
            }
        }
        deserializer.deserialize_any(Visitor)
    }
}
/// Replays a [`Content`] to any `Deserialize` type, with errors of type `E`.
pub struct ContentDeserializer<'de, E>(Content<'de>, ::core::marker::PhantomData<E>);
impl<'de, E> ContentDeserializer<'de, E> {
    pub fn new(content: Content<'de>) -> Self {
        ContentDeserializer(content, ::core::marker::PhantomData)
    }
}
impl<'de, E: ::serde::de::Error> ::serde::de::IntoDeserializer<'de, E> for Content<'de> {
    type Deserializer = ContentDeserializer<'de, E>;
    fn into_deserializer(self) -> ContentDeserializer<'de, E> {
        ContentDeserializer::new(self)
    }
}
impl<'de, E: ::serde::de::Error> ::serde::Deserializer<'de>
for ContentDeserializer<'de, E> {
    type Error = E;
    fn deserialize_any<V: ::serde::de::Visitor<'de>>(
        self,
        visitor: V,
    ) -> ::core::result::Result<V::Value, E> {
        match self.0 {
            Content::Seq(v) => visit_content_seq(v, visitor),
            Content::Map(v) => visit_content_map(v, visitor),
            scalar => ScalarDeserializer::<E>::new(scalar).deserialize_any(visitor),
        }
    }
    fn deserialize_option<V: ::serde::de::Visitor<'de>>(
        self,
        visitor: V,
    ) -> ::core::result::Result<V::Value, E> {
        match self.0 {
            Content::Null => visitor.visit_none(),
            other => visitor.visit_some(ContentDeserializer::<E>::new(other)),
        }
    }
    fn deserialize_newtype_struct<V: ::serde::de::Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> ::core::result::Result<V::Value, E> {
        visitor.visit_newtype_struct(self)
    }
    fn deserialize_map<V: ::serde::de::Visitor<'de>>(
        self,
        visitor: V,
    ) -> ::core::result::Result<V::Value, E> {
        match self.0 {
            Content::Map(v) => visit_content_map(v, visitor),
            other => {
                ::core::result::Result::Err(
                    E::invalid_type(unexpected(&other), &visitor),
                )
            }
        }
    }
    fn deserialize_seq<V: ::serde::de::Visitor<'de>>(
        self,
        visitor: V,
    ) -> ::core::result::Result<V::Value, E> {
        match self.0 {
            Content::Seq(v) => visit_content_seq(v, visitor),
            other => {
                ::core::result::Result::Err(
                    E::invalid_type(unexpected(&other), &visitor),
                )
            }
        }
    }
    fn deserialize_str<V: ::serde::de::Visitor<'de>>(
        self,
        visitor: V,
    ) -> ::core::result::Result<V::Value, E> {
        ScalarDeserializer::<E>::new(self.0).deserialize_str(visitor)
    }
    fn deserialize_string<V: ::serde::de::Visitor<'de>>(
        self,
        visitor: V,
    ) -> ::core::result::Result<V::Value, E> {
        self.deserialize_str(visitor)
    }
    fn deserialize_bool<V: ::serde::de::Visitor<'de>>(
        self,
        visitor: V,
    ) -> ::core::result::Result<V::Value, E> {
        ScalarDeserializer::<E>::new(self.0).deserialize_bool(visitor)
    }
    fn deserialize_struct<V: ::serde::de::Visitor<'de>>(
        self,
        _name: &'static str,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> ::core::result::Result<V::Value, E> {
        self.deserialize_map(visitor)
    }
    ::serde::forward_to_deserialize_any! {
        i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char bytes byte_buf unit
        unit_struct tuple tuple_struct enum identifier ignored_any
    }
}
/// Replays a scalar [`Content`] (null, a boolean, a number or a string), for
/// [`ContentDeserializer`] too, with errors of type `E`; an object or array is refused
/// as the wrong type. It never hands a visitor a map or a sequence, so a type read
/// through it does not compile its members' decoding for it: replaying the scalars
/// read before a union's tag costs little code per member.
pub struct ScalarDeserializer<'de, E>(Content<'de>, ::core::marker::PhantomData<E>);
impl<'de, E> ScalarDeserializer<'de, E> {
    pub fn new(content: Content<'de>) -> Self {
        ScalarDeserializer(content, ::core::marker::PhantomData)
    }
}
impl<'de, E: ::serde::de::Error> ::serde::Deserializer<'de>
for ScalarDeserializer<'de, E> {
    type Error = E;
    fn deserialize_any<V: ::serde::de::Visitor<'de>>(
        self,
        visitor: V,
    ) -> ::core::result::Result<V::Value, E> {
        match self.0 {
            Content::Null => visitor.visit_unit(),
            Content::Bool(v) => visitor.visit_bool(v),
            Content::U64(v) => visitor.visit_u64(v),
            Content::I64(v) => visitor.visit_i64(v),
            Content::F64(v) => visitor.visit_f64(v),
            Content::Str(v) => visitor.visit_borrowed_str(v),
            Content::String(v) => visitor.visit_string(v),
            other => {
                ::core::result::Result::Err(
                    E::invalid_type(unexpected(&other), &visitor),
                )
            }
        }
    }
    fn deserialize_option<V: ::serde::de::Visitor<'de>>(
        self,
        visitor: V,
    ) -> ::core::result::Result<V::Value, E> {
        match self.0 {
            Content::Null => visitor.visit_none(),
            other => visitor.visit_some(ScalarDeserializer::<E>::new(other)),
        }
    }
    fn deserialize_newtype_struct<V: ::serde::de::Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> ::core::result::Result<V::Value, E> {
        visitor.visit_newtype_struct(self)
    }
    fn deserialize_map<V: ::serde::de::Visitor<'de>>(
        self,
        visitor: V,
    ) -> ::core::result::Result<V::Value, E> {
        ::core::result::Result::Err(E::invalid_type(unexpected(&self.0), &visitor))
    }
    fn deserialize_seq<V: ::serde::de::Visitor<'de>>(
        self,
        visitor: V,
    ) -> ::core::result::Result<V::Value, E> {
        ::core::result::Result::Err(E::invalid_type(unexpected(&self.0), &visitor))
    }
    fn deserialize_struct<V: ::serde::de::Visitor<'de>>(
        self,
        _name: &'static str,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> ::core::result::Result<V::Value, E> {
        self.deserialize_map(visitor)
    }
    fn deserialize_str<V: ::serde::de::Visitor<'de>>(
        self,
        visitor: V,
    ) -> ::core::result::Result<V::Value, E> {
        match self.0 {
            Content::Str(v) => visitor.visit_borrowed_str(v),
            Content::String(v) => visitor.visit_string(v),
            other => {
                ::core::result::Result::Err(
                    E::invalid_type(unexpected(&other), &visitor),
                )
            }
        }
    }
    fn deserialize_string<V: ::serde::de::Visitor<'de>>(
        self,
        visitor: V,
    ) -> ::core::result::Result<V::Value, E> {
        self.deserialize_str(visitor)
    }
    fn deserialize_bool<V: ::serde::de::Visitor<'de>>(
        self,
        visitor: V,
    ) -> ::core::result::Result<V::Value, E> {
        match self.0 {
            Content::Bool(v) => visitor.visit_bool(v),
            other => {
                ::core::result::Result::Err(
                    E::invalid_type(unexpected(&other), &visitor),
                )
            }
        }
    }
    ::serde::forward_to_deserialize_any! {
        i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char bytes byte_buf unit
        unit_struct tuple tuple_struct enum identifier ignored_any
    }
}
/// A buffered object of a [`Streamed`] union whose tag picked member `label`, read
/// again from its JSON text with the tag moved first (the last one given, which
/// `get` and so the choice read), so the streaming code builds the member: the
/// member is not compiled a second time to be read from the buffer.
pub fn reread<T: Streamed + ::serde::de::DeserializeOwned>(
    content: Content<'_>,
    label: &str,
) -> ::core::result::Result<T, ::serde_json::Error> {
    let Content::Map(mut entries) = content else {
        return ::core::result::Result::Err(
            error(&::std::format!("{label}: expected an object")),
        );
    };
    let tag = entries
        .iter()
        .rposition(|(k, _)| k.as_str() == ::core::option::Option::Some(T::TAG));
    match tag {
        ::core::option::Option::Some(at) if T::by_tag(&entries[at].1).is_some() => {
            let tag = entries.remove(at);
            entries.insert(0, tag);
        }
        _ => {
            return ::core::result::Result::Err(
                error(&::std::format!("{label}: no member chosen")),
            );
        }
    }
    let text = ::serde_json::to_vec(&Content::Map(entries))?;
    ::serde_json::from_slice::<T>(&text)
        .map_err(|e| error(without_position(&e.to_string())))
}
/// A buffered value written back as JSON, members in the order read.
impl ::serde::Serialize for Content<'_> {
    fn serialize<S: ::serde::Serializer>(
        &self,
        serializer: S,
    ) -> ::core::result::Result<S::Ok, S::Error> {
        match self {
            Content::Null => serializer.serialize_unit(),
            Content::Bool(v) => serializer.serialize_bool(*v),
            Content::U64(v) => serializer.serialize_u64(*v),
            Content::I64(v) => serializer.serialize_i64(*v),
            Content::F64(v) => serializer.serialize_f64(*v),
            Content::Str(v) => serializer.serialize_str(v),
            Content::String(v) => serializer.serialize_str(v),
            Content::Seq(items) => serializer.collect_seq(items),
            Content::Map(entries) => {
                serializer.collect_map(entries.iter().map(|(k, v)| (k, v)))
            }
        }
    }
}
/// An array's items to `visitor`; all of them must be taken.
fn visit_content_seq<'de, V: ::serde::de::Visitor<'de>, E: ::serde::de::Error>(
    items: ::std::vec::Vec<Content<'de>>,
    visitor: V,
) -> ::core::result::Result<V::Value, E> {
    let mut seq = ::serde::de::value::SeqDeserializer::new(items.into_iter());
    let value = visitor.visit_seq(&mut seq)?;
    seq.end()?;
    ::core::result::Result::Ok(value)
}
/// An object's members to `visitor`; all of them must be taken.
fn visit_content_map<'de, V: ::serde::de::Visitor<'de>, E: ::serde::de::Error>(
    entries: ::std::vec::Vec<(Content<'de>, Content<'de>)>,
    visitor: V,
) -> ::core::result::Result<V::Value, E> {
    let mut map = ::serde::de::value::MapDeserializer::new(entries.into_iter());
    let value = visitor.visit_map(&mut map)?;
    map.end()?;
    ::core::result::Result::Ok(value)
}
fn unexpected<'a>(content: &'a Content<'_>) -> ::serde::de::Unexpected<'a> {
    use ::serde::de::Unexpected;
    match content {
        Content::Null => Unexpected::Unit,
        Content::Bool(v) => Unexpected::Bool(*v),
        Content::U64(v) => Unexpected::Unsigned(*v),
        Content::I64(v) => Unexpected::Signed(*v),
        Content::F64(v) => Unexpected::Float(*v),
        Content::Str(v) => Unexpected::Str(v),
        Content::String(v) => Unexpected::Str(v),
        Content::Seq(_) => Unexpected::Seq,
        Content::Map(_) => Unexpected::Map,
    }
}
pub fn expect_const<'de, D: ::serde::Deserializer<'de>>(
    deserializer: D,
    expected: &'static str,
) -> ::core::result::Result<(), D::Error> {
    struct Visitor(&'static str);
    impl<'de> ::serde::de::Visitor<'de> for Visitor {
        type Value = ();
        fn expecting(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
            write!(f, "the string `{}`", self.0)
        }
        fn visit_str<E: ::serde::de::Error>(
            self,
            v: &str,
        ) -> ::core::result::Result<(), E> {
            if v == self.0 {
                ::core::result::Result::Ok(())
            } else {
                ::core::result::Result::Err(
                    E::invalid_value(::serde::de::Unexpected::Str(v), &self),
                )
            }
        }
    }
    deserializer.deserialize_str(Visitor(expected))
}
/// An object key, borrowed from the input where the input allows it.
pub struct Key<'de>(::std::borrow::Cow<'de, str>);
impl<'de> Key<'de> {
    pub fn as_str(&self) -> &str {
        &self.0
    }
    pub fn into_string(self) -> ::std::string::String {
        self.0.into_owned()
    }
}
impl<'de> ::serde::Deserialize<'de> for Key<'de> {
    fn deserialize<D: ::serde::Deserializer<'de>>(
        deserializer: D,
    ) -> ::core::result::Result<Self, D::Error> {
        struct Visitor;
        impl<'de> ::serde::de::Visitor<'de> for Visitor {
            type Value = Key<'de>;
            fn expecting(
                &self,
                f: &mut ::core::fmt::Formatter<'_>,
            ) -> ::core::fmt::Result {
                f.write_str("a string key")
            }
            fn visit_borrowed_str<E: ::serde::de::Error>(
                self,
                v: &'de str,
            ) -> ::core::result::Result<Key<'de>, E> {
                ::core::result::Result::Ok(Key(::std::borrow::Cow::Borrowed(v)))
            }
            fn visit_str<E: ::serde::de::Error>(
                self,
                v: &str,
            ) -> ::core::result::Result<Key<'de>, E> {
                ::core::result::Result::Ok(Key(::std::borrow::Cow::Owned(v.to_string())))
            }
            fn visit_string<E: ::serde::de::Error>(
                self,
                v: ::std::string::String,
            ) -> ::core::result::Result<Key<'de>, E> {
                ::core::result::Result::Ok(Key(::std::borrow::Cow::Owned(v)))
            }
        }
        deserializer.deserialize_str(Visitor)
    }
}
