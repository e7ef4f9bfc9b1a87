//! Elicitation forms: a flat `requestedSchema` from a Rust struct and typed parsing of the
//! answer. `#[derive(ElicitForm)]` and `#[derive(ElicitEnum)]` implement these traits.

use indexmap::IndexMap;
use oxmcp_schema::{
    BooleanSchema, ElicitRequestFormParamsRequestedSchema, ElicitResultContentValue, NumberSchema,
    NumberSchemaType, PrimitiveSchemaDefinition, StringSchema, StringSchemaFormat,
    TitledMultiSelectEnumSchema, TitledMultiSelectEnumSchemaItems,
    TitledMultiSelectEnumSchemaItemsAnyOfItem, TitledSingleSelectEnumSchema,
    TitledSingleSelectEnumSchemaOneOfItem, TypeArray, TypeBoolean, TypeString,
    UntitledMultiSelectEnumSchema, UntitledMultiSelectEnumSchemaItems,
    UntitledSingleSelectEnumSchema,
};
use serde_json::{Map, Number};

/// A struct that is an elicitation form. Derive it with `#[derive(ElicitForm)]`.
pub trait ElicitForm: Sized {
    /// The flat form schema sent in `requestedSchema`.
    fn requested_schema() -> ElicitRequestFormParamsRequestedSchema;
    /// The typed answer from an accepted form's `content`; `Err` says which field is unusable.
    fn from_content(content: &IndexMap<String, ElicitResultContentValue>) -> Result<Self, String>;
}

/// Per-field settings from `#[elicit(...)]` attributes and doc comments.
#[derive(Debug, Clone, Default)]
pub struct FieldOptions {
    /// Display title.
    pub title: Option<&'static str>,
    /// Help text (the field's doc comment by default).
    pub description: Option<&'static str>,
    /// String format: `email`, `uri`, `date` or `date-time`.
    pub format: Option<&'static str>,
    /// Shortest string.
    pub min_length: Option<i64>,
    /// Longest string.
    pub max_length: Option<i64>,
    /// Smallest number.
    pub minimum: Option<f64>,
    /// Largest number.
    pub maximum: Option<f64>,
    /// Fewest choices of a multi-select.
    pub min_items: Option<i64>,
    /// Most choices of a multi-select.
    pub max_items: Option<i64>,
    /// Default value, as JSON.
    pub default: Option<serde_json::Value>,
}

/// A type that can be one field of an elicitation form: a string, boolean, integer, float, an
/// enum deriving `ElicitEnum`, a `Vec` of such an enum (multi-select), or an `Option` of these.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a field of an elicitation form: forms are flat",
    label = "not a primitive form field",
    note = "a form field is a String, bool, integer, float, an enum deriving ElicitEnum, a Vec of such an enum, or an Option of these; nested structs, maps and other lists are not allowed by MCP elicitation"
)]
pub trait ElicitField: Sized {
    /// Whether the form must have a value (false for `Option`).
    const REQUIRED: bool = true;
    /// The field's primitive schema.
    fn schema(opts: &FieldOptions) -> PrimitiveSchemaDefinition;
    /// The field's value from the answer (`None` when the answer lacks it).
    fn parse(value: Option<&ElicitResultContentValue>) -> Result<Self, String>;
}

/// A unit-variant enum offered as a single- or multi-select. Derive it with `#[derive(ElicitEnum)]`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not an elicitation enum",
    note = "list fields of an elicitation form are multi-selects: use Vec<E> where E derives ElicitEnum"
)]
pub trait ElicitEnum: Sized + 'static {
    /// The choices: wire value and optional display title.
    fn options() -> &'static [(&'static str, Option<&'static str>)];
    /// The variant for a wire value.
    fn from_wire(value: &str) -> Option<Self>;
    /// The wire value of this variant.
    fn to_wire(&self) -> &'static str;
}

fn missing() -> String {
    "missing".into()
}

impl ElicitField for String {
    fn schema(o: &FieldOptions) -> PrimitiveSchemaDefinition {
        PrimitiveSchemaDefinition::StringSchema(StringSchema {
            default: o
                .default
                .as_ref()
                .and_then(|d| d.as_str())
                .map(str::to_string),
            description: o.description.map(str::to_string),
            format: o.format.map(StringSchemaFormat::from),
            max_length: o.max_length,
            min_length: o.min_length,
            title: o.title.map(str::to_string),
            type_: TypeString,
            extra: Map::new(),
        })
    }
    fn parse(v: Option<&ElicitResultContentValue>) -> Result<Self, String> {
        match v {
            Some(ElicitResultContentValue::String(s)) => Ok(s.clone()),
            Some(_) => Err("expected a string".into()),
            None => Err(missing()),
        }
    }
}

impl ElicitField for bool {
    fn schema(o: &FieldOptions) -> PrimitiveSchemaDefinition {
        PrimitiveSchemaDefinition::BooleanSchema(BooleanSchema {
            default: o.default.as_ref().and_then(|d| d.as_bool()),
            description: o.description.map(str::to_string),
            title: o.title.map(str::to_string),
            type_: TypeBoolean,
            extra: Map::new(),
        })
    }
    fn parse(v: Option<&ElicitResultContentValue>) -> Result<Self, String> {
        match v {
            Some(ElicitResultContentValue::Boolean(b)) => Ok(*b),
            Some(_) => Err("expected a boolean".into()),
            None => Err(missing()),
        }
    }
}

fn number_schema(
    o: &FieldOptions,
    integer: bool,
    lo: Option<f64>,
    hi: Option<f64>,
) -> PrimitiveSchemaDefinition {
    let num = |x: f64| {
        if integer && x.fract() == 0.0 && x.abs() < 9.0e15 {
            Some(Number::from(x as i64))
        } else {
            Number::from_f64(x)
        }
    };
    PrimitiveSchemaDefinition::NumberSchema(NumberSchema {
        default: o.default.as_ref().and_then(|d| d.as_number()).cloned(),
        description: o.description.map(str::to_string),
        maximum: o.maximum.or(hi).and_then(num),
        minimum: o.minimum.or(lo).and_then(num),
        title: o.title.map(str::to_string),
        type_: if integer {
            NumberSchemaType::Integer
        } else {
            NumberSchemaType::Number
        },
        extra: Map::new(),
    })
}

macro_rules! integer_field {
    ($($t:ty),*) => {$(
        impl ElicitField for $t {
            fn schema(o: &FieldOptions) -> PrimitiveSchemaDefinition {
                // Narrow types state their range, so the client can check it before answering.
                let (lo, hi) = if (<$t>::BITS) < 64 {
                    (Some(<$t>::MIN as f64), Some(<$t>::MAX as f64))
                } else {
                    (None, None)
                };
                number_schema(o, true, lo, hi)
            }
            fn parse(v: Option<&ElicitResultContentValue>) -> Result<Self, String> {
                match v {
                    Some(ElicitResultContentValue::Number(n)) => n
                        .as_i64()
                        .and_then(|i| <$t>::try_from(i).ok())
                        .or_else(|| n.as_u64().and_then(|u| <$t>::try_from(u).ok()))
                        .ok_or_else(|| format!("expected an integer in range, got {n}")),
                    Some(_) => Err("expected an integer".into()),
                    None => Err(missing()),
                }
            }
        }
    )*};
}
integer_field!(i8, i16, i32, i64, u8, u16, u32, u64);

macro_rules! float_field {
    ($($t:ty),*) => {$(
        impl ElicitField for $t {
            fn schema(o: &FieldOptions) -> PrimitiveSchemaDefinition {
                number_schema(o, false, None, None)
            }
            fn parse(v: Option<&ElicitResultContentValue>) -> Result<Self, String> {
                match v {
                    Some(ElicitResultContentValue::Number(n)) => {
                        n.as_f64().map(|f| f as $t).ok_or_else(|| "expected a number".into())
                    }
                    Some(_) => Err("expected a number".into()),
                    None => Err(missing()),
                }
            }
        }
    )*};
}
float_field!(f32, f64);

impl<T: ElicitField> ElicitField for Option<T> {
    const REQUIRED: bool = false;
    fn schema(o: &FieldOptions) -> PrimitiveSchemaDefinition {
        T::schema(o)
    }
    fn parse(v: Option<&ElicitResultContentValue>) -> Result<Self, String> {
        match v {
            None => Ok(None),
            Some(_) => T::parse(v).map(Some),
        }
    }
}

/// The single-select schema of an `ElicitEnum` (titled when any choice has a title).
pub fn single_select<E: ElicitEnum>(o: &FieldOptions) -> PrimitiveSchemaDefinition {
    let options = E::options();
    let default = o
        .default
        .as_ref()
        .and_then(|d| d.as_str())
        .map(str::to_string);
    if options.iter().any(|(_, t)| t.is_some()) {
        PrimitiveSchemaDefinition::TitledSingleSelectEnumSchema(TitledSingleSelectEnumSchema {
            default,
            description: o.description.map(str::to_string),
            one_of: options
                .iter()
                .map(|(v, t)| TitledSingleSelectEnumSchemaOneOfItem {
                    const_: v.to_string(),
                    title: t.unwrap_or(v).to_string(),
                    extra: Map::new(),
                })
                .collect(),
            title: o.title.map(str::to_string),
            type_: TypeString,
            extra: Map::new(),
        })
    } else {
        PrimitiveSchemaDefinition::UntitledSingleSelectEnumSchema(UntitledSingleSelectEnumSchema {
            default,
            description: o.description.map(str::to_string),
            enum_: options.iter().map(|(v, _)| v.to_string()).collect(),
            title: o.title.map(str::to_string),
            type_: TypeString,
            extra: Map::new(),
        })
    }
}

/// Parse a single-select answer.
pub fn parse_single<E: ElicitEnum>(v: Option<&ElicitResultContentValue>) -> Result<E, String> {
    match v {
        Some(ElicitResultContentValue::String(s)) => {
            E::from_wire(s).ok_or_else(|| format!("`{s}` is not one of the choices"))
        }
        Some(_) => Err("expected one of the choices".into()),
        None => Err(missing()),
    }
}

impl<E: ElicitEnum> ElicitField for Vec<E> {
    fn schema(o: &FieldOptions) -> PrimitiveSchemaDefinition {
        let options = E::options();
        let default = o.default.as_ref().and_then(|d| d.as_array()).map(|a| {
            a.iter()
                .filter_map(|v| v.as_str().map(str::to_string))
                .collect()
        });
        if options.iter().any(|(_, t)| t.is_some()) {
            PrimitiveSchemaDefinition::TitledMultiSelectEnumSchema(TitledMultiSelectEnumSchema {
                default,
                description: o.description.map(str::to_string),
                items: TitledMultiSelectEnumSchemaItems {
                    any_of: options
                        .iter()
                        .map(|(v, t)| TitledMultiSelectEnumSchemaItemsAnyOfItem {
                            const_: v.to_string(),
                            title: t.unwrap_or(v).to_string(),
                            extra: Map::new(),
                        })
                        .collect(),
                    extra: Map::new(),
                },
                max_items: o.max_items,
                min_items: o.min_items,
                title: o.title.map(str::to_string),
                type_: TypeArray,
                extra: Map::new(),
            })
        } else {
            PrimitiveSchemaDefinition::UntitledMultiSelectEnumSchema(
                UntitledMultiSelectEnumSchema {
                    default,
                    description: o.description.map(str::to_string),
                    items: UntitledMultiSelectEnumSchemaItems {
                        enum_: options.iter().map(|(v, _)| v.to_string()).collect(),
                        type_: TypeString,
                        extra: Map::new(),
                    },
                    max_items: o.max_items,
                    min_items: o.min_items,
                    title: o.title.map(str::to_string),
                    type_: TypeArray,
                    extra: Map::new(),
                },
            )
        }
    }
    fn parse(v: Option<&ElicitResultContentValue>) -> Result<Self, String> {
        match v {
            Some(ElicitResultContentValue::Array(items)) => items
                .iter()
                .map(|s| E::from_wire(s).ok_or_else(|| format!("`{s}` is not one of the choices")))
                .collect(),
            Some(_) => Err("expected a list of choices".into()),
            None => Err(missing()),
        }
    }
}
