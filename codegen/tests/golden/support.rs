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
        let message = match text.rfind(" at line ") {
            ::core::option::Option::Some(at) if text[at..].contains(" column ") => {
                &text[..at]
            }
            _ => text.as_str(),
        };
        E::custom(::std::format!("{label}: {message}"))
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
            while let ::core::option::Option::Some(key) = map.next_key::<Content<'de>>()? {
                let value: Content<'de> = map.next_value()?;
                let chosen = if key.as_str() == ::core::option::Option::Some(T::TAG) {
                    T::by_tag(&value)
                } else {
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
    /// A map whose first entries were already read into [`Content`]: replays them, then
    /// reads on from the input.
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
                    seed.deserialize(ContentDeserializer::<A::Error>::new(key))
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
                    seed.deserialize(ContentDeserializer::<A::Error>::new(value))
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
                Content::Null => visitor.visit_unit(),
                Content::Bool(v) => visitor.visit_bool(v),
                Content::U64(v) => visitor.visit_u64(v),
                Content::I64(v) => visitor.visit_i64(v),
                Content::F64(v) => visitor.visit_f64(v),
                Content::Str(v) => visitor.visit_borrowed_str(v),
                Content::String(v) => visitor.visit_string(v),
                Content::Seq(v) => {
                    let mut seq = ::serde::de::value::SeqDeserializer::new(v.into_iter());
                    let value = visitor.visit_seq(&mut seq)?;
                    seq.end()?;
                    ::core::result::Result::Ok(value)
                }
                Content::Map(v) => {
                    let mut map = ::serde::de::value::MapDeserializer::new(v.into_iter());
                    let value = visitor.visit_map(&mut map)?;
                    map.end()?;
                    ::core::result::Result::Ok(value)
                }
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
            match &self.0 {
                Content::Map(_) => self.deserialize_any(visitor),
                other => {
                    ::core::result::Result::Err(E::invalid_type(unexpected(other), &visitor))
                }
            }
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
            bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes
            byte_buf unit unit_struct seq tuple tuple_struct enum identifier ignored_any
        }
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
    /// are refused when the schema closes the object).
    macro_rules! object {
        ($name:ident { $($kind:ident $field:ident = $json:literal,)* } $($extra:ident)?) => {
            impl ::serde::Serialize for $name {
                fn serialize<S: ::serde::Serializer>(&self, serializer: S) -> ::core::result::Result<S::Ok, S::Error> {
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
                fn deserialize<D: ::serde::Deserializer<'de>>(deserializer: D) -> ::core::result::Result<Self, D::Error> {
                    struct Visitor;
                    impl<'de> ::serde::de::Visitor<'de> for Visitor {
                        type Value = $name;
                        fn expecting(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                            f.write_str(::core::concat!("struct ", ::core::stringify!($name)))
                        }
                        #[allow(unused_mut)]
                        fn visit_map<A: ::serde::de::MapAccess<'de>>(self, mut map: A) -> ::core::result::Result<$name, A::Error> {
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
                    deserializer.deserialize_map(Visitor)
                }
            }
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
            $field.ok_or_else(|| <A::Error as ::serde::de::Error>::missing_field($json))?
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
            return ::core::result::Result::Err(<A::Error as ::serde::de::Error>::unknown_field($key.as_str(), &[$($json),*]))
        };
    }
    pub(crate) use unknown;

    /// `VALUE`, `Serialize` and `Deserialize` for a constant marker type.
    macro_rules! constant {
        ($name:ident = $value:literal) => {
            impl $name {
                /// The only value this type takes on the wire.
                pub const VALUE: &'static str = $value;
            }
            impl ::serde::Serialize for $name {
                fn serialize<S: ::serde::Serializer>(&self, serializer: S) -> ::core::result::Result<S::Ok, S::Error> {
                    serializer.serialize_str(Self::VALUE)
                }
            }
            impl<'de> ::serde::Deserialize<'de> for $name {
                fn deserialize<D: ::serde::Deserializer<'de>>(deserializer: D) -> ::core::result::Result<Self, D::Error> {
                    __private::expect_const(deserializer, Self::VALUE).map(|()| $name)
                }
            }
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
                fn serialize<S: ::serde::Serializer>(&self, serializer: S) -> ::core::result::Result<S::Ok, S::Error> {
                    serializer.serialize_str(self.as_str())
                }
            }
            impl<'de> ::serde::Deserialize<'de> for $name {
                fn deserialize<D: ::serde::Deserializer<'de>>(deserializer: D) -> ::core::result::Result<Self, D::Error> {
                    <::std::string::String as ::serde::Deserialize>::deserialize(deserializer).map(Self::from)
                }
            }
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
}
