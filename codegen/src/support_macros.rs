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
