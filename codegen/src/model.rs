//! The typed model the generator builds from a schema: named types, fields and unions, before any Rust is written.

use serde_json::Value;
use std::collections::BTreeSet;

/// A Rust type expression used by a field, a variant or an alias.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Ty {
    /// `String`.
    String,
    /// `i64`.
    Integer,
    /// `serde_json::Number`: keeps `50` as an integer and `0.5` as a float.
    Number,
    /// `bool`.
    Bool,
    /// `()` for the JSON `null` type.
    Null,
    /// `serde_json::Value`: any JSON.
    Any,
    /// A type generated from the schema, by its Rust name.
    Named(String),
    /// A replacement type path given in the settings (e.g. `::serde_json::Value`).
    Path(String),
    /// `Vec<T>`.
    Vec(Box<Ty>),
    /// An insertion-ordered map from string keys (`serde_json::Map` for any values).
    Map(Box<Ty>),
}

impl Ty {
    /// A short, stable rendering used by `diff` reports.
    pub fn describe(&self) -> String {
        match self {
            Ty::String => "string".into(),
            Ty::Integer => "integer".into(),
            Ty::Number => "number".into(),
            Ty::Bool => "boolean".into(),
            Ty::Null => "null".into(),
            Ty::Any => "any".into(),
            Ty::Named(n) => n.clone(),
            Ty::Path(p) => p.clone(),
            Ty::Vec(t) => format!("[{}]", t.describe()),
            Ty::Map(t) => format!("{{string: {}}}", t.describe()),
        }
    }
}

/// A validation keyword of the schema, kept so the generated code can check it (see
/// `Validate` in the generated support code).
#[derive(Debug, Clone, PartialEq)]
pub enum Rule {
    /// `minimum` (or `exclusiveMinimum` when the flag is set).
    Minimum(serde_json::Number, bool),
    /// `maximum` (or `exclusiveMaximum` when the flag is set).
    Maximum(serde_json::Number, bool),
    /// `multipleOf`.
    MultipleOf(serde_json::Number),
    /// `minLength`, in characters.
    MinLength(u64),
    /// `maxLength`, in characters.
    MaxLength(u64),
    /// `pattern`, an ECMA-262 regular expression the value must contain a match of.
    Pattern(String),
    /// `format`.
    Format(String),
    /// `minItems`.
    MinItems(u64),
    /// `maxItems`.
    MaxItems(u64),
    /// `uniqueItems: true`.
    UniqueItems,
    /// `minProperties`.
    MinProperties(u64),
    /// `maxProperties`.
    MaxProperties(u64),
}

impl Rule {
    /// The keyword as the schema spells it, with its value.
    pub fn keyword(&self) -> String {
        match self {
            Rule::Minimum(n, false) => format!("minimum {n}"),
            Rule::Minimum(n, true) => format!("exclusiveMinimum {n}"),
            Rule::Maximum(n, false) => format!("maximum {n}"),
            Rule::Maximum(n, true) => format!("exclusiveMaximum {n}"),
            Rule::MultipleOf(n) => format!("multipleOf {n}"),
            Rule::MinLength(n) => format!("minLength {n}"),
            Rule::MaxLength(n) => format!("maxLength {n}"),
            Rule::Pattern(p) => format!("pattern {p}"),
            Rule::Format(f) => format!("format {f}"),
            Rule::MinItems(n) => format!("minItems {n}"),
            Rule::MaxItems(n) => format!("maxItems {n}"),
            Rule::UniqueItems => "uniqueItems".into(),
            Rule::MinProperties(n) => format!("minProperties {n}"),
            Rule::MaxProperties(n) => format!("maxProperties {n}"),
        }
    }
}

/// The validation keywords of a value, and of the items (array) or values (map) inside it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Rules {
    /// Keywords on the value itself.
    pub own: Vec<Rule>,
    /// Keywords on each item of an array or each value of a map.
    pub items: Option<Box<Rules>>,
}

impl Rules {
    /// Whether there is nothing to check.
    pub fn is_empty(&self) -> bool {
        self.own.is_empty() && self.items.as_ref().is_none_or(|i| i.is_empty())
    }
}

/// One property of an object type.
#[derive(Debug, Clone)]
pub struct Field {
    /// The property name on the wire.
    pub json_name: String,
    /// The Rust field name.
    pub rust_name: String,
    /// The field's type, without the `Option` of an optional field.
    pub ty: Ty,
    /// Whether the schema requires the property.
    pub required: bool,
    /// Whether the type needs a `Box` to break a cycle.
    pub boxed: bool,
    /// The schema's description.
    pub doc: Option<String>,
    /// The validation keywords stated where the property is declared.
    pub rules: Rules,
}

/// The JSON shape of one union member, as far as dispatch needs it.
#[derive(Debug, Clone, Default)]
pub struct Shape {
    /// JSON kinds the member accepts: "object", "array", "string", "integer", "number", "boolean", "null"; all when empty.
    pub kinds: BTreeSet<&'static str>,
    /// Properties whose value is fixed: name, allowed string values, required.
    pub tags: Vec<(String, Vec<String>, bool)>,
    /// Every declared property (top level) of an object member.
    pub props: BTreeSet<String>,
    /// Required property paths, including required properties of required objects (`items.anyOf`).
    pub required: BTreeSet<Vec<String>>,
    /// Declared property paths one level down (`_meta.io.modelcontextprotocol/subscriptionId`).
    pub nested: BTreeSet<Vec<String>>,
}

/// One member of a union.
#[derive(Debug, Clone)]
pub struct Variant {
    /// The Rust variant name.
    pub name: String,
    /// The payload type.
    pub ty: Ty,
    /// Whether the payload needs a `Box` to break a cycle.
    pub boxed: bool,
    /// The schema type name when the member is a `$ref`.
    pub schema_name: Option<String>,
    /// What dispatch may look at.
    pub shape: Shape,
}

/// How a named type is represented.
#[derive(Debug, Clone)]
pub enum Kind {
    /// An object with known properties; unknown properties are kept in `extra` when `extra` is `Some`.
    Struct {
        /// Known properties in schema order.
        fields: Vec<Field>,
        /// The value type of unknown properties; `None` when `additionalProperties: false`.
        extra: Option<Ty>,
    },
    /// `pub type Name = Ty;`
    Alias(Ty),
    /// A string with a set of known values; unknown values are kept in `Other`.
    StringEnum(Vec<String>),
    /// A string that must equal one value (a discriminator such as `method`).
    Const(String),
    /// One of several members, dispatched on discriminators.
    Union(Vec<Variant>),
}

/// A named type to generate.
#[derive(Debug, Clone)]
pub struct TypeDef {
    /// The Rust name; equals the schema name for `$defs` entries.
    pub name: String,
    /// The schema name for `$defs` entries, `None` for inline types.
    pub schema_name: Option<String>,
    /// The description.
    pub doc: Option<String>,
    /// The representation.
    pub kind: Kind,
    /// The validation keywords stated on the type itself: checked where an alias is used, by
    /// the struct itself for an object (its property count).
    pub rules: Rules,
}

/// Everything generated from one schema.
#[derive(Debug, Clone, Default)]
pub struct Model {
    /// Types in a deterministic order: `$defs` in schema order, each followed by its inline types.
    pub types: Vec<TypeDef>,
}

impl Model {
    /// The type named `name`.
    pub fn get(&self, name: &str) -> Option<&TypeDef> {
        self.types.iter().find(|t| t.name == name)
    }
}

/// The JSON value's kind as dispatch names it.
pub fn json_kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_i64() || n.is_u64() => "integer",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}
