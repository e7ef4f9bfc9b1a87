//! The JSON Schema of a tool's arguments. The built-in argument types (strings, characters,
//! booleans, numbers, and `Option`s, `Vec`s and string-keyed maps of them) are described here,
//! any other type through schemars (the `schemars` feature), so a server whose tools take only
//! built-in types compiles no schemars. Both give the same schema for a built-in type, keyword
//! for keyword.

use serde_json::{Map, Value};
use std::collections::BTreeMap;

/// The definitions (`$defs`) the schemas of one tool's arguments refer to, collected while they
/// are built.
pub struct Defs {
    #[cfg(feature = "schemars")]
    generator: schemars::SchemaGenerator,
}

impl Defs {
    pub(crate) fn new() -> Self {
        Defs {
            #[cfg(feature = "schemars")]
            generator: schemars::SchemaGenerator::default(),
        }
    }

    /// The definitions collected, by name.
    pub(crate) fn take(&mut self) -> Map<String, Value> {
        #[cfg(feature = "schemars")]
        {
            self.generator.take_definitions(false)
        }
        #[cfg(not(feature = "schemars"))]
        {
            Map::new()
        }
    }
}

/// The dialect every tool input schema declares in `$schema` (schemars' default as well).
pub(crate) const DIALECT: &str = "https://json-schema.org/draft/2020-12/schema";

/// An argument type whose schema the runtime writes itself: `#[mcp_tool]` uses it for the types
/// it recognizes by name, and the compiler checks that the name meant that type.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is named like a built-in argument type but is not one",
    note = "built-in argument types are String, char, bool, the integer and float types, and Option, Vec, HashMap<String, _> or BTreeMap<String, _> of these; name a type of your own through a type alias (`type Said = String;`)"
)]
pub trait Builtin {
    /// The type's schema, its keywords in the order schemars writes them.
    fn schema() -> Map<String, Value>;
}

/// A schema of JSON type `ty` with the keywords `rest` after it.
fn typed<const N: usize>(ty: &str, rest: [(&str, Value); N]) -> Map<String, Value> {
    let mut m = Map::with_capacity(1 + N);
    m.insert("type".into(), ty.into());
    m.extend(rest.map(|(k, v)| (k.to_owned(), v)));
    m
}

impl Builtin for String {
    fn schema() -> Map<String, Value> {
        typed("string", [])
    }
}

impl Builtin for bool {
    fn schema() -> Map<String, Value> {
        typed("boolean", [])
    }
}

impl Builtin for char {
    fn schema() -> Map<String, Value> {
        typed("string", [("minLength", 1.into()), ("maxLength", 1.into())])
    }
}

macro_rules! number {
    ($($t:ty => $ty:literal, $format:literal $(, $min:expr)? $(=> $max:expr)?;)*) => {$(
        impl Builtin for $t {
            fn schema() -> Map<String, Value> {
                typed($ty, [
                    ("format", $format.into()),
                    $(("minimum", $min.into()),)?
                    $(("maximum", $max.into()),)?
                ])
            }
        }
    )*};
}

number! {
    f32 => "number", "float";
    f64 => "number", "double";
    i8 => "integer", "int8", i8::MIN => i8::MAX;
    i16 => "integer", "int16", i16::MIN => i16::MAX;
    i32 => "integer", "int32";
    i64 => "integer", "int64";
    i128 => "integer", "int128";
    isize => "integer", "int";
    u8 => "integer", "uint8", 0 => u8::MAX;
    u16 => "integer", "uint16", 0 => u16::MAX;
    u32 => "integer", "uint32", 0;
    u64 => "integer", "uint64", 0;
    u128 => "integer", "uint128", 0;
    usize => "integer", "uint", 0;
}

impl<T: Builtin> Builtin for Option<T> {
    fn schema() -> Map<String, Value> {
        // A built-in type is one JSON type, or already that type or null (`Option<Option<_>>`).
        let mut schema = T::schema();
        if let Some(ty @ Value::String(_)) = schema.get_mut("type") {
            *ty = Value::Array(vec![ty.take(), "null".into()]);
        }
        schema
    }
}

impl<T: Builtin> Builtin for Vec<T> {
    fn schema() -> Map<String, Value> {
        typed("array", [("items", Value::Object(T::schema()))])
    }
}

impl<T: Builtin, S> Builtin for std::collections::HashMap<String, T, S> {
    fn schema() -> Map<String, Value> {
        BTreeMap::<String, T>::schema()
    }
}

impl<T: Builtin> Builtin for BTreeMap<String, T> {
    fn schema() -> Map<String, Value> {
        // Any string is a key: no `propertyNames` or `patternProperties`.
        typed(
            "object",
            [("additionalProperties", Value::Object(T::schema()))],
        )
    }
}

/// The schema of a built-in argument type (what `#[mcp_tool]` writes for `String`, `u8`,
/// `Option<bool>`, ...).
pub fn builtin<T: Builtin>(_: &mut Defs) -> Value {
    Value::Object(T::schema())
}

/// The schema of an argument type through its `schemars::JsonSchema` impl (a `$ref` into
/// `$defs` for the user's own types).
#[cfg(feature = "schemars")]
pub fn schema_of<T: schemars::JsonSchema>(defs: &mut Defs) -> Value {
    defs.generator.subschema_for::<T>().to_value()
}

/// Without the `schemars` feature, an argument type that is not built in is this one error.
#[cfg(not(feature = "schemars"))]
#[diagnostic::on_unimplemented(
    message = "the schema of `{Self}` needs oxmcp's `schemars` feature",
    note = "built-in argument types (String, char, bool, integers, floats, and Option, Vec or string-keyed HashMap and BTreeMap of these) need none; enable `schemars` (or `derive`, for `#[mcp_type]`) for any other"
)]
pub trait NeedsSchemarsFeature {}

/// Without the `schemars` feature: see [`NeedsSchemarsFeature`].
#[cfg(not(feature = "schemars"))]
pub fn schema_of<T: NeedsSchemarsFeature>(_: &mut Defs) -> Value {
    Value::Bool(true)
}

#[cfg(all(test, feature = "schemars"))]
mod tests {
    use super::*;
    use crate::__private::{args_schema, ArgSchema};

    /// The built-in schema of `T` is the one schemars writes, byte for byte, and needs no
    /// definitions.
    fn same<T: Builtin + schemars::JsonSchema>() {
        let ours = serde_json::to_string(&builtin::<T>(&mut Defs::new())).unwrap_or_default();
        let mut generator = schemars::SchemaGenerator::default();
        let theirs = serde_json::to_string(&generator.subschema_for::<T>()).unwrap_or_default();
        assert!(generator.take_definitions(false).is_empty());
        assert_eq!(ours, theirs, "{}", std::any::type_name::<T>());
    }

    /// [`same`] for each type, and for `Option`, `Vec`, `Option<Vec<_>>` and `Vec<Option<_>>`
    /// of it.
    macro_rules! same {
        ($($t:ty),* $(,)?) => {$(
            same::<$t>();
            same::<Option<$t>>();
            same::<Vec<$t>>();
            same::<Option<Vec<$t>>>();
            same::<Vec<Option<$t>>>();
        )*};
    }

    #[test]
    fn built_in_schemas_are_the_ones_schemars_writes() {
        same!(
            String,
            bool,
            char,
            f32,
            f64,
            i8,
            i16,
            i32,
            i64,
            i128,
            isize,
            u8,
            u16,
            u32,
            u64,
            u128,
            usize,
            BTreeMap<String, u8>,
            std::collections::HashMap<String, Vec<String>>,
        );
        same::<Option<Option<u8>>>();
        same::<Vec<Vec<String>>>();
        same::<BTreeMap<String, Option<BTreeMap<String, char>>>>();
    }

    /// Without schemars, the arguments object is written as built; with it, through schemars'
    /// keyword order. For built-in arguments both are the same bytes.
    #[test]
    fn built_in_arguments_need_no_reordering() {
        let args = [
            ArgSchema {
                name: "city",
                description: Some("The city."),
                header: Some("City"),
                optional: false,
                schema: builtin::<String>,
            },
            ArgSchema {
                name: "stamps",
                description: None,
                header: None,
                optional: true,
                schema: builtin::<Option<u8>>,
            },
            ArgSchema {
                name: "tags",
                description: Some("Tags."),
                header: None,
                optional: false,
                schema: builtin::<Vec<Option<f64>>>,
            },
        ];
        let plain = Value::Object(args_schema(&args));
        let ordered = schemars::Schema::from(args_schema(&args));
        let plain = serde_json::to_string(&plain).unwrap_or_default();
        assert_eq!(plain, serde_json::to_string(&ordered).unwrap_or_default());
        assert!(plain.starts_with(
            r#"{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","properties":{"city":{"description":"The city.","type":"string","x-mcp-header":"City"},"stamps":{"type":["integer","null"],"format":"uint8","minimum":0,"maximum":255,"default":null}"#
        ), "{plain}");
    }
}
