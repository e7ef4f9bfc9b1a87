/// Support code for the generated types; not a public API.
#[doc(hidden)]
#[allow(dead_code, unused_macros, unused_imports)]
mod __private {
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
    /// `Serialize` and `Deserialize` for a generated struct: each field by its wire name (`req`
    /// fields must be present, `opt` fields may be absent but never `null` unless their type takes
    /// `null`), a key given twice is an error, and unknown properties go to the named map field (or
    /// are refused when the schema closes the object). Rules in brackets, after the name for the
    /// object's own and after a field for that field's, are what `Validate` checks.
    macro_rules! object {
        ($name:ident $([$($trule:tt)*])? { $($kind:ident $field:ident = $json:literal $([$($rule:tt)*])?,)* } $($extra:ident)?) => {
            impl ::serde::Serialize for $name {
                fn serialize<__S: ::serde::Serializer>(&self, serializer: __S) -> ::core::result::Result<__S::Ok, __S::Error> {
                    let len = 0 $(+ __private::count!($kind self.$field))* $(+ self.$extra.len())?;
                    let mut map = serializer.serialize_map(::core::option::Option::Some(len))?;
                    $(__private::put!($kind map $json self.$field);)*
                    $(for (key, value) in &self.$extra {
                        ::serde::ser::SerializeMap::serialize_entry(&mut map, key, value)?;
                    })?
                    ::serde::ser::SerializeMap::end(map)
                }
            }
            impl<'de> ::serde::Deserialize<'de> for $name {
                fn deserialize<__D: ::serde::Deserializer<'de>>(deserializer: __D) -> ::core::result::Result<Self, __D::Error> {
                    struct __Visitor;
                    impl<'de> ::serde::de::Visitor<'de> for __Visitor {
                        type Value = $name;
                        fn expecting(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                            f.write_str(::core::concat!("struct ", ::core::stringify!($name)))
                        }
                        #[allow(unused_mut)]
                        fn visit_map<__A: ::serde::de::MapAccess<'de>>(self, mut map: __A) -> ::core::result::Result<$name, __A::Error> {
                            $(let mut $field = ::core::option::Option::None;)*
                            $(let mut $extra = ::core::default::Default::default();)?
                            while let ::core::option::Option::Some(key) = map.next_key::<__private::Key<'de>>()? {
                                match key.as_str() {
                                    $($json => __private::once(&mut $field, $json, &mut map)?,)*
                                    _ => __private::unknown!(key map [$($json),*] $($extra)?),
                                }
                            }
                            ::core::result::Result::Ok($name {
                                $($field: __private::take!($kind $field $json),)*
                                $($extra,)?
                            })
                        }
                    }
                    deserializer.deserialize_map(__Visitor)
                }
            }
            __private::validate_object!($name [$($($trule)*)?] { $($kind $field $json [$($($rule)*)?])* } $($extra)?);
        };
    }
    pub(crate) use object;

    /// How many entries a field writes: one when required, one when present when optional.
    macro_rules! count {
        (req $value:expr) => { 1usize };
        (opt $value:expr) => { usize::from($value.is_some()) };
    }
    pub(crate) use count;

    /// Write one field's entry (an absent optional field writes nothing).
    macro_rules! put {
        (req $map:ident $json:literal $value:expr) => {
            ::serde::ser::SerializeMap::serialize_entry(&mut $map, $json, &$value)?
        };
        (opt $map:ident $json:literal $value:expr) => {
            if let ::core::option::Option::Some(value) = &$value {
                ::serde::ser::SerializeMap::serialize_entry(&mut $map, $json, value)?;
            }
        };
    }
    pub(crate) use put;

    /// A field's value once the map is read: required fields must have been seen.
    macro_rules! take {
        (req $field:ident $json:literal) => {
            $field.ok_or_else(|| <__A::Error as ::serde::de::Error>::missing_field($json))?
        };
        (opt $field:ident $json:literal) => { $field };
    }
    pub(crate) use take;

    /// A key the struct does not name: kept in the extra map, or refused.
    macro_rules! unknown {
        ($key:ident $map:ident [$($json:literal),*] $extra:ident) => {
            __private::put_extra(&mut $extra, $key, &mut $map)?
        };
        ($key:ident $map:ident [$($json:literal),*]) => {
            return ::core::result::Result::Err(<__A::Error as ::serde::de::Error>::unknown_field($key.as_str(), &[$($json),*]))
        };
    }
    pub(crate) use unknown;

    /// `Serialize` (the member as it is), `From` each member type marked `from` (or `boxed`, held
    /// in a `Box`) and `Validate` (the member it holds) for a generated union.
    macro_rules! union {
        ($name:ident { $($variant:ident $([$how:ident $from:ty])?,)* }) => {
            impl ::serde::Serialize for $name {
                fn serialize<__S: ::serde::Serializer>(&self, serializer: __S) -> ::core::result::Result<__S::Ok, __S::Error> {
                    match self {
                        $(Self::$variant(value) => ::serde::Serialize::serialize(value, serializer),)*
                    }
                }
            }
            $($(__private::union_from!($how $name $variant $from);)?)*
            __private::validate_union!($name { $($variant)* });
        };
    }
    pub(crate) use union;

    /// One `From` of a union's member type.
    macro_rules! union_from {
        (from $name:ident $variant:ident $from:ty) => {
            impl ::core::convert::From<$from> for $name {
                fn from(value: $from) -> Self {
                    Self::$variant(value)
                }
            }
        };
        (boxed $name:ident $variant:ident $from:ty) => {
            impl ::core::convert::From<$from> for $name {
                fn from(value: $from) -> Self {
                    Self::$variant(::std::boxed::Box::new(value))
                }
            }
        };
    }
    pub(crate) use union_from;

    /// `VALUE`, `Serialize` and `Deserialize` for a constant marker type.
    macro_rules! constant {
        ($name:ident = $value:literal) => {
            impl $name {
                /// The only value this type takes on the wire.
                pub const VALUE: &'static str = $value;
            }
            impl ::serde::Serialize for $name {
                fn serialize<__S: ::serde::Serializer>(&self, serializer: __S) -> ::core::result::Result<__S::Ok, __S::Error> {
                    serializer.serialize_str(Self::VALUE)
                }
            }
            impl<'de> ::serde::Deserialize<'de> for $name {
                fn deserialize<__D: ::serde::Deserializer<'de>>(deserializer: __D) -> ::core::result::Result<Self, __D::Error> {
                    __private::expect_const(deserializer, Self::VALUE).map(|()| $name)
                }
            }
            __private::validate_none!($name);
        };
    }
    pub(crate) use constant;

    /// `as_str`, conversions from strings, `Display`, `Serialize` and `Deserialize` for an open
    /// string enum (a value it does not know becomes `Other`).
    macro_rules! string_enum {
        ($name:ident { $($variant:ident = $value:literal,)* }) => {
            impl $name {
                /// The value as it appears on the wire.
                pub fn as_str(&self) -> &str {
                    match self {
                        $(Self::$variant => $value,)*
                        Self::Other(value) => value.as_str(),
                    }
                }
            }
            impl ::core::convert::From<&str> for $name {
                fn from(value: &str) -> Self {
                    match value {
                        $($value => Self::$variant,)*
                        other => Self::Other(other.to_string()),
                    }
                }
            }
            impl ::core::convert::From<::std::string::String> for $name {
                fn from(value: ::std::string::String) -> Self {
                    match value.as_str() {
                        $($value => Self::$variant,)*
                        _ => Self::Other(value),
                    }
                }
            }
            impl ::core::fmt::Display for $name {
                fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                    f.write_str(self.as_str())
                }
            }
            impl ::serde::Serialize for $name {
                fn serialize<__S: ::serde::Serializer>(&self, serializer: __S) -> ::core::result::Result<__S::Ok, __S::Error> {
                    serializer.serialize_str(self.as_str())
                }
            }
            impl<'de> ::serde::Deserialize<'de> for $name {
                fn deserialize<__D: ::serde::Deserializer<'de>>(deserializer: __D) -> ::core::result::Result<Self, __D::Error> {
                    <::std::string::String as ::serde::Deserialize>::deserialize(deserializer).map(Self::from)
                }
            }
            __private::validate_none!($name);
        };
    }
    pub(crate) use string_enum;

    /// Read a field's value into its slot; a second occurrence of the key is an error.
    #[inline]
    pub fn once<'de, T: ::serde::Deserialize<'de>, A: ::serde::de::MapAccess<'de>>(
        slot: &mut ::core::option::Option<T>,
        name: &'static str,
        map: &mut A,
    ) -> ::core::result::Result<(), A::Error> {
        if slot.is_some() {
            return ::core::result::Result::Err(<A::Error as ::serde::de::Error>::duplicate_field(name));
        }
        *slot = ::core::option::Option::Some(map.next_value()?);
        ::core::result::Result::Ok(())
    }

    /// A map that keeps the properties a struct does not name.
    pub trait Extra<'de> {
        /// Read the value of `key` into the map; a key given twice is an error.
        fn put<A: ::serde::de::MapAccess<'de>>(
            &mut self,
            key: Key<'de>,
            map: &mut A,
        ) -> ::core::result::Result<(), A::Error>;
    }

    impl<'de> Extra<'de> for ::serde_json::Map<::std::string::String, ::serde_json::Value> {
        fn put<A: ::serde::de::MapAccess<'de>>(
            &mut self,
            key: Key<'de>,
            map: &mut A,
        ) -> ::core::result::Result<(), A::Error> {
            // One lookup: insert, and refuse if the key was there (the parse fails as a whole, so
            // the replaced value is not lost to anyone).
            let value = map.next_value()?;
            first(self.insert(key.as_str().to_owned(), value), &key)
        }
    }

    impl<'de, T: ::serde::Deserialize<'de>> Extra<'de> for ::indexmap::IndexMap<::std::string::String, T> {
        fn put<A: ::serde::de::MapAccess<'de>>(
            &mut self,
            key: Key<'de>,
            map: &mut A,
        ) -> ::core::result::Result<(), A::Error> {
            let value = map.next_value()?;
            first(self.insert(key.as_str().to_owned(), value), &key)
        }
    }

    /// What an insert into an extra map replaced: nothing, or the value of a key given twice.
    fn first<V, E: ::serde::de::Error>(replaced: ::core::option::Option<V>, key: &Key<'_>) -> ::core::result::Result<(), E> {
        match replaced {
            ::core::option::Option::None => ::core::result::Result::Ok(()),
            ::core::option::Option::Some(_) => ::core::result::Result::Err(E::custom(::std::format!("duplicate field `{}`", key.as_str()))),
        }
    }

    /// Keep an unknown property (see [`Extra`]).
    #[inline]
    pub fn put_extra<'de, M: Extra<'de>, A: ::serde::de::MapAccess<'de>>(
        extra: &mut M,
        key: Key<'de>,
        map: &mut A,
    ) -> ::core::result::Result<(), A::Error> {
        extra.put(key, map)
    }

    mod validation {
        /// Where a value sits in the message being validated: keys and indices from the root, built on
        /// the stack as validation goes down and written out as a JSON Pointer only for an error.
        #[derive(Debug, Clone, Copy)]
        pub enum ValidationPath<'a> {
            /// The value validation started from.
            Root,
            /// The property `key` of the object at the parent path.
            Key(&'a ValidationPath<'a>, &'a str),
            /// The item at `index` of the array at the parent path.
            Index(&'a ValidationPath<'a>, usize),
        }

        impl ValidationPath<'_> {
            /// The path as a JSON Pointer (RFC 6901): `""` for the root, `/params/uri` below it.
            pub fn pointer(&self) -> ::std::string::String {
                let mut parts = ::std::vec::Vec::new();
                let mut at = self;
                loop {
                    match at {
                        ValidationPath::Root => break,
                        ValidationPath::Key(parent, key) => {
                            parts.push(key.replace('~', "~0").replace('/', "~1"));
                            at = parent;
                        }
                        ValidationPath::Index(parent, index) => {
                            parts.push(index.to_string());
                            at = parent;
                        }
                    }
                }
                parts.iter().rev().map(|p| ::std::format!("/{p}")).collect()
            }
            /// An error at this path for the schema keyword `rule`.
            pub fn error(&self, rule: ::std::string::String, message: ::std::string::String) -> ValidationError {
                ValidationError { path: self.pointer(), rule, message }
            }
        }

        /// A value that breaks a rule its schema states (`maxLength`, `pattern`, `format`, `minimum`,
        /// ...): where it is, as a JSON Pointer, and which rule.
        #[derive(Debug, Clone, PartialEq, Eq)]
        pub struct ValidationError {
            path: ::std::string::String,
            rule: ::std::string::String,
            message: ::std::string::String,
        }

        impl ValidationError {
            /// Where the value is, as a JSON Pointer from the validated value (`""` for itself).
            pub fn path(&self) -> &str {
                &self.path
            }
            /// The rule, as the schema states it, e.g. `maxLength 256` or `format uri`.
            pub fn rule(&self) -> &str {
                &self.rule
            }
            /// What is wrong with the value.
            pub fn message(&self) -> &str {
                &self.message
            }
        }

        impl ::core::fmt::Display for ValidationError {
            fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                let path = if self.path.is_empty() { "the value" } else { self.path.as_str() };
                ::core::write!(f, "{path}: {} ({})", self.message, self.rule)
            }
        }

        impl ::std::error::Error for ValidationError {}

        /// Checks the rules the schema states for a value and everything in it (lengths, patterns,
        /// formats, bounds, item counts), which parsing leaves to the caller: peers send values out of
        /// range in the wild, so parsing is lenient and validation a separate step.
        pub trait Validate {
            /// The first rule the value breaks, with where it is.
            fn validate(&self) -> ::core::result::Result<(), ValidationError> {
                self.validate_at(&ValidationPath::Root)
            }
            /// [`Validate::validate`] for a value at `at` inside a larger one.
            fn validate_at(&self, at: &ValidationPath<'_>) -> ::core::result::Result<(), ValidationError>;
        }

        /// Values with no rules of their own.
        macro_rules! no_rules {
            ($($ty:ty),*) => {
                $(impl Validate for $ty {
                    #[inline]
                    fn validate_at(&self, _: &ValidationPath<'_>) -> ::core::result::Result<(), ValidationError> {
                        ::core::result::Result::Ok(())
                    }
                })*
            };
        }
        no_rules!(::std::string::String, bool, i64, (), ::serde_json::Number, ::serde_json::Value, ::serde_json::Map<::std::string::String, ::serde_json::Value>);

        impl<T: Validate> Validate for ::core::option::Option<T> {
            #[inline]
            fn validate_at(&self, at: &ValidationPath<'_>) -> ::core::result::Result<(), ValidationError> {
                match self {
                    ::core::option::Option::Some(value) => value.validate_at(at),
                    ::core::option::Option::None => ::core::result::Result::Ok(()),
                }
            }
        }

        impl<T: Validate> Validate for ::std::boxed::Box<T> {
            #[inline]
            fn validate_at(&self, at: &ValidationPath<'_>) -> ::core::result::Result<(), ValidationError> {
                (**self).validate_at(at)
            }
        }

        impl<T: Validate> Validate for ::std::vec::Vec<T> {
            fn validate_at(&self, at: &ValidationPath<'_>) -> ::core::result::Result<(), ValidationError> {
                for (index, item) in self.iter().enumerate() {
                    item.validate_at(&ValidationPath::Index(at, index))?;
                }
                ::core::result::Result::Ok(())
            }
        }

        impl<T: Validate> Validate for ::indexmap::IndexMap<::std::string::String, T> {
            fn validate_at(&self, at: &ValidationPath<'_>) -> ::core::result::Result<(), ValidationError> {
                for (key, value) in self {
                    value.validate_at(&ValidationPath::Key(at, key))?;
                }
                ::core::result::Result::Ok(())
            }
        }

        /// A value whose properties `minProperties` and `maxProperties` count: a map, or a generated
        /// struct (its fields present plus the properties it keeps unnamed).
        pub trait Props {
            /// How many properties the value has on the wire.
            fn property_count(&self) -> usize;
        }

        impl<T> Props for ::indexmap::IndexMap<::std::string::String, T> {
            fn property_count(&self) -> usize {
                self.len()
            }
        }

        impl Props for ::serde_json::Map<::std::string::String, ::serde_json::Value> {
            fn property_count(&self) -> usize {
                self.len()
            }
        }

        /// A number a bound applies to.
        pub trait Num {
            /// The value as a float, for comparing with a bound.
            fn as_f64(&self) -> f64;
            /// The value as an integer, when it is one.
            fn as_i128(&self) -> ::core::option::Option<i128>;
        }

        impl Num for i64 {
            fn as_f64(&self) -> f64 {
                *self as f64
            }
            fn as_i128(&self) -> ::core::option::Option<i128> {
                ::core::option::Option::Some(i128::from(*self))
            }
        }

        impl Num for ::serde_json::Number {
            fn as_f64(&self) -> f64 {
                ::serde_json::Number::as_f64(self).unwrap_or(f64::NAN)
            }
            fn as_i128(&self) -> ::core::option::Option<i128> {
                self.as_i64().map(i128::from).or_else(|| self.as_u64().map(i128::from))
            }
        }

        pub fn check_minimum(value: &impl Num, bound: f64, exclusive: bool, at: &ValidationPath<'_>) -> ::core::result::Result<(), ValidationError> {
            let v = value.as_f64();
            let ok = if exclusive { v > bound } else { v >= bound };
            if ok {
                return ::core::result::Result::Ok(());
            }
            let rule = if exclusive { "exclusiveMinimum" } else { "minimum" };
            ::core::result::Result::Err(at.error(::std::format!("{rule} {bound}"), ::std::format!("{v} is below the bound")))
        }

        pub fn check_maximum(value: &impl Num, bound: f64, exclusive: bool, at: &ValidationPath<'_>) -> ::core::result::Result<(), ValidationError> {
            let v = value.as_f64();
            let ok = if exclusive { v < bound } else { v <= bound };
            if ok {
                return ::core::result::Result::Ok(());
            }
            let rule = if exclusive { "exclusiveMaximum" } else { "maximum" };
            ::core::result::Result::Err(at.error(::std::format!("{rule} {bound}"), ::std::format!("{v} is above the bound")))
        }

        pub fn check_multiple_of(value: &impl Num, factor: f64, at: &ValidationPath<'_>) -> ::core::result::Result<(), ValidationError> {
            let ok = match (value.as_i128(), factor.fract() == 0.0 && factor.abs() < 1e18) {
                (::core::option::Option::Some(v), true) => v % (factor as i128) == 0,
                _ => {
                    let q = value.as_f64() / factor;
                    q.is_finite() && (q - q.round()).abs() < 1e-9
                }
            };
            if ok {
                return ::core::result::Result::Ok(());
            }
            ::core::result::Result::Err(at.error(::std::format!("multipleOf {factor}"), ::std::format!("{} is not a multiple", value.as_f64())))
        }

        pub fn check_min_length(value: &str, n: usize, at: &ValidationPath<'_>) -> ::core::result::Result<(), ValidationError> {
            let len = value.chars().count();
            if len >= n {
                return ::core::result::Result::Ok(());
            }
            ::core::result::Result::Err(at.error(::std::format!("minLength {n}"), ::std::format!("{len} characters")))
        }

        pub fn check_max_length(value: &str, n: usize, at: &ValidationPath<'_>) -> ::core::result::Result<(), ValidationError> {
            if value.len() <= n {
                return ::core::result::Result::Ok(());
            }
            let len = value.chars().count();
            if len <= n {
                return ::core::result::Result::Ok(());
            }
            ::core::result::Result::Err(at.error(::std::format!("maxLength {n}"), ::std::format!("{len} characters")))
        }

        pub fn check_min_items(len: usize, n: usize, at: &ValidationPath<'_>) -> ::core::result::Result<(), ValidationError> {
            if len >= n {
                return ::core::result::Result::Ok(());
            }
            ::core::result::Result::Err(at.error(::std::format!("minItems {n}"), ::std::format!("{len} items")))
        }

        pub fn check_max_items(len: usize, n: usize, at: &ValidationPath<'_>) -> ::core::result::Result<(), ValidationError> {
            if len <= n {
                return ::core::result::Result::Ok(());
            }
            ::core::result::Result::Err(at.error(::std::format!("maxItems {n}"), ::std::format!("{len} items")))
        }

        pub fn check_min_properties(len: usize, n: usize, at: &ValidationPath<'_>) -> ::core::result::Result<(), ValidationError> {
            if len >= n {
                return ::core::result::Result::Ok(());
            }
            ::core::result::Result::Err(at.error(::std::format!("minProperties {n}"), ::std::format!("{len} properties")))
        }

        pub fn check_max_properties(len: usize, n: usize, at: &ValidationPath<'_>) -> ::core::result::Result<(), ValidationError> {
            if len <= n {
                return ::core::result::Result::Ok(());
            }
            ::core::result::Result::Err(at.error(::std::format!("maxProperties {n}"), ::std::format!("{len} properties")))
        }

        /// `value` as JSON with every object's keys sorted, so equal values (in JSON's sense) are equal
        /// text.
        fn canonical(value: &::serde_json::Value, out: &mut ::std::string::String) {
            match value {
                ::serde_json::Value::Object(map) => {
                    let mut keys: ::std::vec::Vec<&::std::string::String> = map.keys().collect();
                    keys.sort();
                    out.push('{');
                    for (i, key) in keys.into_iter().enumerate() {
                        if i > 0 {
                            out.push(',');
                        }
                        out.push_str(&::serde_json::Value::String(key.clone()).to_string());
                        out.push(':');
                        canonical(&map[key], out);
                    }
                    out.push('}');
                }
                ::serde_json::Value::Array(items) => {
                    out.push('[');
                    for (i, item) in items.iter().enumerate() {
                        if i > 0 {
                            out.push(',');
                        }
                        canonical(item, out);
                    }
                    out.push(']');
                }
                other => out.push_str(&other.to_string()),
            }
        }

        pub fn check_unique_items<T: ::serde::Serialize>(items: &[T], at: &ValidationPath<'_>) -> ::core::result::Result<(), ValidationError> {
            let mut seen = ::std::collections::HashMap::new();
            for (index, item) in items.iter().enumerate() {
                let mut text = ::std::string::String::new();
                if let ::core::result::Result::Ok(value) = ::serde_json::to_value(item) {
                    canonical(&value, &mut text);
                }
                if let ::core::option::Option::Some(first) = seen.insert(text, index) {
                    return ::core::result::Result::Err(at.error("uniqueItems".into(), ::std::format!("items {first} and {index} are equal")));
                }
            }
            ::core::result::Result::Ok(())
        }

        /// The outcome of a `pattern` rule: whether the value matched, or `None` when the pattern did
        /// not compile (the regex crate is used by the rule's expansion alone, so a schema with no
        /// `pattern` needs no regex).
        pub fn check_pattern(matched: ::core::option::Option<bool>, source: &str, at: &ValidationPath<'_>) -> ::core::result::Result<(), ValidationError> {
            match matched {
                ::core::option::Option::Some(true) => ::core::result::Result::Ok(()),
                ::core::option::Option::Some(false) => ::core::result::Result::Err(at.error(::std::format!("pattern {source}"), "does not match".into())),
                ::core::option::Option::None => ::core::result::Result::Err(at.error(::std::format!("pattern {source}"), "the pattern does not compile".into())),
            }
        }

        /// Whether `bytes[i..]` starts with a percent-encoded octet.
        fn pct(bytes: &[u8], i: usize) -> bool {
            bytes.get(i) == ::core::option::Option::Some(&b'%')
                && bytes.get(i + 1).is_some_and(u8::is_ascii_hexdigit)
                && bytes.get(i + 2).is_some_and(u8::is_ascii_hexdigit)
        }

        /// RFC 3986's characters of a URI after the scheme: unreserved, reserved, or percent-encoded.
        fn uri_chars(rest: &str) -> bool {
            let bytes = rest.as_bytes();
            let mut i = 0;
            while i < bytes.len() {
                let b = bytes[i];
                if b == b'%' {
                    if !pct(bytes, i) {
                        return false;
                    }
                    i += 3;
                    continue;
                }
                let ok = b.is_ascii_alphanumeric() || b"-._~:/?#[]@!$&'()*+,;=".contains(&b);
                if !ok {
                    return false;
                }
                i += 1;
            }
            true
        }

        /// An RFC 3986 scheme followed by `:`; the rest after it.
        fn scheme(value: &str) -> ::core::option::Option<&str> {
            let (scheme, rest) = value.split_once(':')?;
            let mut bytes = scheme.bytes();
            let first = bytes.next()?;
            (first.is_ascii_alphabetic() && bytes.all(|b| b.is_ascii_alphanumeric() || b == b'+' || b == b'-' || b == b'.')).then_some(rest)
        }

        /// An RFC 6570 URI template: literals, and expressions of variables with an optional operator,
        /// prefix length or explode.
        fn uri_template(value: &str) -> bool {
            let bytes = value.as_bytes();
            let mut i = 0;
            while i < bytes.len() {
                match bytes[i] {
                    b'{' => {
                        let ::core::option::Option::Some(end) = value[i..].find('}') else { return false };
                        let mut body = &value[i + 1..i + end];
                        if body.starts_with(|c: char| "+#./;?&=,!@|".contains(c)) {
                            body = &body[1..];
                        }
                        let varspec = |spec: &str| {
                            let (name, modifier) = match spec.find([':', '*']) {
                                ::core::option::Option::Some(at) => spec.split_at(at),
                                ::core::option::Option::None => (spec, ""),
                            };
                            let name_ok = !name.is_empty() && !name.starts_with('.') && !name.ends_with('.') && !name.contains("..") && {
                                let nb = name.as_bytes();
                                let mut j = 0;
                                let mut ok = true;
                                while j < nb.len() {
                                    if nb[j] == b'%' {
                                        ok &= pct(nb, j);
                                        j += 3;
                                    } else {
                                        ok &= nb[j].is_ascii_alphanumeric() || nb[j] == b'_' || nb[j] == b'.';
                                        j += 1;
                                    }
                                }
                                ok
                            };
                            let modifier_ok = match modifier.strip_prefix(':') {
                                ::core::option::Option::Some(len) => (1..=4).contains(&len.len()) && !len.starts_with('0') && len.bytes().all(|b| b.is_ascii_digit()),
                                ::core::option::Option::None => modifier.is_empty() || modifier == "*",
                            };
                            name_ok && modifier_ok
                        };
                        if !body.split(',').all(varspec) {
                            return false;
                        }
                        i += end + 1;
                    }
                    b'%' if !pct(bytes, i) => return false,
                    b if b <= 0x20 || b == 0x7f || b"\"'<>\\^`|}".contains(&b) => return false,
                    _ => i += 1,
                }
            }
            true
        }

        fn digits(text: &str, n: usize) -> ::core::option::Option<u32> {
            (text.len() == n && text.bytes().all(|b| b.is_ascii_digit())).then(|| text.parse().ok()).flatten()
        }

        /// RFC 3339 `full-date`.
        fn date(value: &str) -> bool {
            let mut parts = value.split('-');
            let (::core::option::Option::Some(y), ::core::option::Option::Some(m), ::core::option::Option::Some(d), ::core::option::Option::None) = (parts.next(), parts.next(), parts.next(), parts.next()) else { return false };
            let (::core::option::Option::Some(y), ::core::option::Option::Some(m), ::core::option::Option::Some(d)) = (digits(y, 4), digits(m, 2), digits(d, 2)) else { return false };
            let leap = y.is_multiple_of(4) && (!y.is_multiple_of(100) || y.is_multiple_of(400));
            let days = match m {
                1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
                4 | 6 | 9 | 11 => 30,
                2 if leap => 29,
                2 => 28,
                _ => return false,
            };
            (1..=days).contains(&d)
        }

        /// RFC 3339 `full-time`: `HH:MM:SS`, optional fraction, then `Z` or an offset.
        fn time(value: &str) -> bool {
            let (clock, offset) = match value.find(['Z', 'z', '+', '-']) {
                ::core::option::Option::Some(at) => value.split_at(at),
                ::core::option::Option::None => return false,
            };
            let clock = match clock.split_once('.') {
                ::core::option::Option::Some((c, frac)) if !frac.is_empty() && frac.bytes().all(|b| b.is_ascii_digit()) => c,
                ::core::option::Option::Some(_) => return false,
                ::core::option::Option::None => clock,
            };
            let hms: ::std::vec::Vec<_> = clock.split(':').map(|p| digits(p, 2)).collect();
            let [::core::option::Option::Some(h), ::core::option::Option::Some(m), ::core::option::Option::Some(s)] = hms[..] else { return false };
            if h > 23 || m > 59 || s > 60 {
                return false;
            }
            if offset.eq_ignore_ascii_case("z") {
                return true;
            }
            let hm: ::std::vec::Vec<_> = offset[1..].split(':').map(|p| digits(p, 2)).collect();
            matches!(hm[..], [::core::option::Option::Some(oh), ::core::option::Option::Some(om)] if oh <= 23 && om <= 59)
        }

        /// Whether `value` is in the closed `format` named `name`.
        pub fn check_format(value: &str, name: &str, at: &ValidationPath<'_>) -> ::core::result::Result<(), ValidationError> {
            let ok = match name {
                "uri" => scheme(value).is_some_and(uri_chars),
                "uri-reference" => uri_chars(value),
                "uri-template" => uri_template(value),
                "byte" => {
                    let body = value.trim_end_matches('=');
                    value.len().is_multiple_of(4) && value.len() - body.len() <= 2 && body.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'+' || b == b'/')
                }
                "date" => date(value),
                "time" => time(value),
                "date-time" => match value.find(['T', 't']) {
                    ::core::option::Option::Some(at) => date(&value[..at]) && time(&value[at + 1..]),
                    ::core::option::Option::None => false,
                },
                "ipv4" => value.parse::<::std::net::Ipv4Addr>().is_ok(),
                "ipv6" => value.parse::<::std::net::Ipv6Addr>().is_ok(),
                "uuid" => {
                    let groups: ::std::vec::Vec<&str> = value.split('-').collect();
                    groups.iter().map(|g| g.len()).eq([8, 4, 4, 4, 12]) && groups.iter().all(|g| g.bytes().all(|b| b.is_ascii_hexdigit()))
                }
                "json-pointer" => (value.is_empty() || value.starts_with('/')) && {
                    let bytes = value.as_bytes();
                    bytes.iter().enumerate().all(|(i, b)| *b != b'~' || matches!(bytes.get(i + 1), ::core::option::Option::Some(b'0' | b'1')))
                },
                _ => true,
            };
            if ok {
                return ::core::result::Result::Ok(());
            }
            ::core::result::Result::Err(at.error(::std::format!("format {name}"), ::std::format!("not a valid {name}")))
        }

        /// The rules of one value, as the generated code lists them after its field.
        macro_rules! rules {
            ($v:ident, $at:expr, ) => {};
            ($v:ident, $at:expr, minimum($n:expr) $($rest:tt)*) => { __private::check_minimum($v, $n as f64, false, $at)?; __private::rules!($v, $at, $($rest)*); };
            ($v:ident, $at:expr, exclusive_minimum($n:expr) $($rest:tt)*) => { __private::check_minimum($v, $n as f64, true, $at)?; __private::rules!($v, $at, $($rest)*); };
            ($v:ident, $at:expr, maximum($n:expr) $($rest:tt)*) => { __private::check_maximum($v, $n as f64, false, $at)?; __private::rules!($v, $at, $($rest)*); };
            ($v:ident, $at:expr, exclusive_maximum($n:expr) $($rest:tt)*) => { __private::check_maximum($v, $n as f64, true, $at)?; __private::rules!($v, $at, $($rest)*); };
            ($v:ident, $at:expr, multiple_of($n:expr) $($rest:tt)*) => { __private::check_multiple_of($v, $n as f64, $at)?; __private::rules!($v, $at, $($rest)*); };
            ($v:ident, $at:expr, min_length($n:literal) $($rest:tt)*) => { __private::check_min_length($v, $n, $at)?; __private::rules!($v, $at, $($rest)*); };
            ($v:ident, $at:expr, max_length($n:literal) $($rest:tt)*) => { __private::check_max_length($v, $n, $at)?; __private::rules!($v, $at, $($rest)*); };
            ($v:ident, $at:expr, format($f:literal) $($rest:tt)*) => { __private::check_format($v, $f, $at)?; __private::rules!($v, $at, $($rest)*); };
            ($v:ident, $at:expr, pattern($p:literal) $($rest:tt)*) => {
                {
                    static REGEX: ::std::sync::OnceLock<::core::option::Option<::regex::Regex>> = ::std::sync::OnceLock::new();
                    let matched = REGEX.get_or_init(|| ::regex::Regex::new($p).ok()).as_ref().map(|regex| regex.is_match($v));
                    __private::check_pattern(matched, $p, $at)?;
                }
                __private::rules!($v, $at, $($rest)*);
            };
            ($v:ident, $at:expr, min_items($n:literal) $($rest:tt)*) => { __private::check_min_items($v.len(), $n, $at)?; __private::rules!($v, $at, $($rest)*); };
            ($v:ident, $at:expr, max_items($n:literal) $($rest:tt)*) => { __private::check_max_items($v.len(), $n, $at)?; __private::rules!($v, $at, $($rest)*); };
            ($v:ident, $at:expr, unique_items $($rest:tt)*) => { __private::check_unique_items($v, $at)?; __private::rules!($v, $at, $($rest)*); };
            ($v:ident, $at:expr, min_properties($n:literal) $($rest:tt)*) => { __private::check_min_properties(__private::Props::property_count($v), $n, $at)?; __private::rules!($v, $at, $($rest)*); };
            ($v:ident, $at:expr, max_properties($n:literal) $($rest:tt)*) => { __private::check_max_properties(__private::Props::property_count($v), $n, $at)?; __private::rules!($v, $at, $($rest)*); };
            ($v:ident, $at:expr, each($($inner:tt)*) $($rest:tt)*) => {
                for (index, item) in $v.iter().enumerate() {
                    let at = __private::ValidationPath::Index($at, index);
                    __private::rules!(item, &at, $($inner)*);
                }
                __private::rules!($v, $at, $($rest)*);
            };
            ($v:ident, $at:expr, values($($inner:tt)*) $($rest:tt)*) => {
                for (key, item) in $v.iter() {
                    let at = __private::ValidationPath::Key($at, key);
                    __private::rules!(item, &at, $($inner)*);
                }
                __private::rules!($v, $at, $($rest)*);
            };
        }
        pub(crate) use rules;

        /// One field of a struct: its rules, then whatever the value's own type checks.
        macro_rules! field {
            (req $value:expr, $at:ident, $json:literal, [$($rule:tt)*]) => {{
                let at = __private::ValidationPath::Key($at, $json);
                let value = &$value;
                __private::rules!(value, &at, $($rule)*);
                __private::Validate::validate_at(value, &at)?;
            }};
            (opt $value:expr, $at:ident, $json:literal, [$($rule:tt)*]) => {{
                if let ::core::option::Option::Some(value) = &$value {
                    let at = __private::ValidationPath::Key($at, $json);
                    __private::rules!(value, &at, $($rule)*);
                    __private::Validate::validate_at(value, &at)?;
                }
            }};
        }
        pub(crate) use field;

        /// `Validate` (and the property count) for a generated struct: its own rules, then each field's.
        macro_rules! validate_object {
            ($name:ident [$($trule:tt)*] { $($kind:ident $field:ident $json:literal [$($rule:tt)*])* } $($extra:ident)?) => {
                impl __private::Props for $name {
                    fn property_count(&self) -> usize {
                        0 $(+ __private::count!($kind self.$field))* $(+ self.$extra.len())?
                    }
                }
                impl __private::Validate for $name {
                    #[allow(unused_variables)]
                    fn validate_at(&self, at: &__private::ValidationPath<'_>) -> ::core::result::Result<(), __private::ValidationError> {
                        let this = self;
                        __private::rules!(this, at, $($trule)*);
                        $(__private::field!($kind this.$field, at, $json, [$($rule)*]);)*
                        ::core::result::Result::Ok(())
                    }
                }
            };
        }
        pub(crate) use validate_object;

        /// `Validate` for a generated union: the member it holds.
        macro_rules! validate_union {
            ($name:ident { $($variant:ident)* }) => {
                impl __private::Validate for $name {
                    fn validate_at(&self, at: &__private::ValidationPath<'_>) -> ::core::result::Result<(), __private::ValidationError> {
                        match self {
                            $(Self::$variant(value) => __private::Validate::validate_at(value, at),)*
                        }
                    }
                }
            };
        }
        pub(crate) use validate_union;

        /// `Validate` for types with no rules (string enums, constants).
        macro_rules! validate_none {
            ($name:ident) => {
                impl __private::Validate for $name {
                    #[inline]
                    fn validate_at(&self, _: &__private::ValidationPath<'_>) -> ::core::result::Result<(), __private::ValidationError> {
                        ::core::result::Result::Ok(())
                    }
                }
            };
        }
        pub(crate) use validate_none;
    }
    pub use validation::*;
}
