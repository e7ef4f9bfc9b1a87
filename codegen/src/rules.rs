//! Validation keywords: read from a schema (`minLength`, `pattern`, `format`, `minimum`,
//! `maxItems`, ...), and written as the rules a generated field carries for `Validate`. A
//! keyword the generated code cannot check where it stands (a `format` with no closed rule, a
//! `pattern` the regex crate does not read, a length on a number) is reported instead, so that
//! nothing is loosened in silence.

use crate::model::{Kind, Model, Rule, Rules, Ty};
use serde_json::Value;

/// The `format` values with a closed rule the generated code checks.
pub const FORMATS: &[&str] = &[
    "uri",
    "uri-reference",
    "uri-template",
    "byte",
    "date",
    "time",
    "date-time",
    "ipv4",
    "ipv6",
    "uuid",
    "json-pointer",
];

/// The validation keywords stated on the schema `s` itself, and on its `items` or (for a map)
/// its `additionalProperties` when they are inline (a referenced type brings its own).
pub fn rules_of(s: &Value) -> Rules {
    let mut own = Vec::new();
    let number = |k: &str| s.get(k).and_then(Value::as_number).cloned();
    let count = |k: &str| s.get(k).and_then(Value::as_u64);
    let flag = |k: &str| s.get(k).and_then(Value::as_bool);
    // `exclusiveMinimum` is a number from draft 6 on, a flag on `minimum` before.
    if let Some(n) = number("minimum") {
        own.push(Rule::Minimum(n, flag("exclusiveMinimum") == Some(true)));
    }
    if let Some(n) = number("exclusiveMinimum") {
        own.push(Rule::Minimum(n, true));
    }
    if let Some(n) = number("maximum") {
        own.push(Rule::Maximum(n, flag("exclusiveMaximum") == Some(true)));
    }
    if let Some(n) = number("exclusiveMaximum") {
        own.push(Rule::Maximum(n, true));
    }
    if let Some(n) = number("multipleOf") {
        own.push(Rule::MultipleOf(n));
    }
    if let Some(n) = count("minLength") {
        own.push(Rule::MinLength(n));
    }
    if let Some(n) = count("maxLength") {
        own.push(Rule::MaxLength(n));
    }
    if let Some(p) = s.get("pattern").and_then(Value::as_str) {
        own.push(Rule::Pattern(p.to_string()));
    }
    if let Some(f) = s.get("format").and_then(Value::as_str) {
        own.push(Rule::Format(f.to_string()));
    }
    if let Some(n) = count("minItems") {
        own.push(Rule::MinItems(n));
    }
    if let Some(n) = count("maxItems") {
        own.push(Rule::MaxItems(n));
    }
    if flag("uniqueItems") == Some(true) {
        own.push(Rule::UniqueItems);
    }
    if let Some(n) = count("minProperties") {
        own.push(Rule::MinProperties(n));
    }
    if let Some(n) = count("maxProperties") {
        own.push(Rule::MaxProperties(n));
    }
    let inner = match (s.get("items"), s.get("additionalProperties")) {
        (Some(items @ Value::Object(_)), _) => Some(rules_of(items)),
        (_, Some(values @ Value::Object(_))) if s.get("properties").is_none() => {
            Some(rules_of(values))
        }
        _ => None,
    };
    Rules {
        own,
        items: inner.filter(|r| !r.is_empty()).map(Box::new),
    }
}

/// Whether a value of a generated type is checked as a string, a number, an array, a map or an
/// object with a property count.
enum Class<'a> {
    String,
    Number,
    Array(&'a Ty),
    Map(&'a Ty),
    Object,
    Other,
}

fn class<'a>(ty: &'a Ty, model: &Model) -> Class<'a> {
    match ty {
        Ty::String => Class::String,
        Ty::Integer | Ty::Number => Class::Number,
        Ty::Vec(inner) => Class::Array(inner),
        Ty::Map(inner) => Class::Map(inner),
        Ty::Named(n) if matches!(model.get(n).map(|t| &t.kind), Some(Kind::Struct { .. })) => {
            Class::Object
        }
        Ty::Path(p) if p.starts_with("::serde_json::Map<") => Class::Object,
        _ => Class::Other,
    }
}

/// Whether the regex crate reads `pattern` (JSON Schema patterns are ECMA-262; look-around and
/// back-references are not supported).
pub fn pattern_supported(pattern: &str) -> bool {
    regex_syntax::Parser::new().parse(pattern).is_ok()
}

/// A Rust literal for a JSON number bound.
fn number(n: &serde_json::Number) -> String {
    let text = n.to_string();
    if n.is_f64() && !text.contains(['.', 'e', 'E']) {
        format!("{text}.0")
    } else {
        text
    }
}

/// The rules of a value of type `ty` as the generated code lists them (e.g.
/// `minimum(0) each(format("uri"))`), and a description of each keyword it cannot check.
#[derive(Debug, Default)]
pub struct Annotated {
    /// The rules, space-separated; empty when there is nothing to check.
    pub rules: String,
    /// The keywords left unchecked, each with what it stands on.
    pub unenforced: Vec<String>,
}

/// The rules for a value of type `ty` with the keywords `rules`, following aliases (whose own
/// keywords apply wherever they are used).
pub fn annotate(rules: &Rules, ty: &Ty, model: &Model) -> Annotated {
    let mut out = Annotated::default();
    let mut parts = Vec::new();
    walk(rules, ty, model, &mut parts, &mut out.unenforced);
    out.rules = parts.join(" ");
    out
}

fn walk(rules: &Rules, ty: &Ty, model: &Model, parts: &mut Vec<String>, bad: &mut Vec<String>) {
    let mut own = rules.own.clone();
    let mut items = rules.items.as_deref().cloned();
    let mut ty = ty.clone();
    for _ in 0..32 {
        let Ty::Named(name) = &ty else { break };
        let Some(def) = model.get(name) else { break };
        let Kind::Alias(target) = &def.kind else {
            break;
        };
        own.extend(def.rules.own.iter().cloned());
        if let Some(more) = &def.rules.items {
            let mut merged = items.unwrap_or_default();
            merged.own.extend(more.own.iter().cloned());
            if merged.items.is_none() {
                merged.items = more.items.clone();
            }
            items = Some(merged);
        }
        ty = target.clone();
    }
    let class = class(&ty, model);
    for rule in &own {
        let part = match (rule, &class) {
            (Rule::Minimum(n, false), Class::Number) => format!("minimum({})", number(n)),
            (Rule::Minimum(n, true), Class::Number) => {
                format!("exclusive_minimum({})", number(n))
            }
            (Rule::Maximum(n, false), Class::Number) => format!("maximum({})", number(n)),
            (Rule::Maximum(n, true), Class::Number) => {
                format!("exclusive_maximum({})", number(n))
            }
            (Rule::MultipleOf(n), Class::Number) => format!("multiple_of({})", number(n)),
            (Rule::MinLength(n), Class::String) => format!("min_length({n})"),
            (Rule::MaxLength(n), Class::String) => format!("max_length({n})"),
            (Rule::Pattern(p), Class::String) if pattern_supported(p) => {
                format!("pattern({})", proc_macro2::Literal::string(p))
            }
            (Rule::Format(f), Class::String) if FORMATS.contains(&f.as_str()) => {
                format!("format({})", proc_macro2::Literal::string(f))
            }
            (Rule::MinItems(n), Class::Array(_)) => format!("min_items({n})"),
            (Rule::MaxItems(n), Class::Array(_)) => format!("max_items({n})"),
            (Rule::UniqueItems, Class::Array(_)) => "unique_items".into(),
            (Rule::MinProperties(n), Class::Map(_) | Class::Object) => {
                format!("min_properties({n})")
            }
            (Rule::MaxProperties(n), Class::Map(_) | Class::Object) => {
                format!("max_properties({n})")
            }
            (rule, _) => {
                bad.push(format!("`{}` on {}", rule.keyword(), ty.describe()));
                continue;
            }
        };
        parts.push(part);
    }
    let inner = items.unwrap_or_default();
    match class {
        Class::Array(item) | Class::Map(item) => {
            let mut sub = Vec::new();
            walk(&inner, item, model, &mut sub, bad);
            if !sub.is_empty() {
                let each = if matches!(ty, Ty::Vec(_)) {
                    "each"
                } else {
                    "values"
                };
                parts.push(format!("{each}({})", sub.join(" ")));
            }
        }
        _ if !inner.is_empty() => {
            bad.push(format!("item or value rules on {}", ty.describe()));
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn annotated(schema: Value, ty: Ty) -> Annotated {
        annotate(&rules_of(&schema), &ty, &Model::default())
    }

    #[test]
    fn every_kind_of_keyword_is_read_and_written() {
        let a = annotated(
            json!({"type": "string", "minLength": 1, "maxLength": 256, "pattern": "^a", "format": "uri"}),
            Ty::String,
        );
        assert_eq!(
            a.rules,
            r#"min_length(1) max_length(256) pattern("^a") format("uri")"#
        );
        let a = annotated(
            json!({"type": "number", "minimum": 0, "exclusiveMaximum": 1.5, "multipleOf": 0.5}),
            Ty::Number,
        );
        assert_eq!(
            a.rules,
            "minimum(0) exclusive_maximum(1.5) multiple_of(0.5)"
        );
        let a = annotated(
            json!({"type": "array", "minItems": 1, "maxItems": 3, "uniqueItems": true,
                   "items": {"type": "string", "format": "uri"}}),
            Ty::Vec(Box::new(Ty::String)),
        );
        assert_eq!(
            a.rules,
            r#"min_items(1) max_items(3) unique_items each(format("uri"))"#
        );
        let a = annotated(
            json!({"type": "object", "minProperties": 1,
                   "additionalProperties": {"type": "integer", "maximum": 9}}),
            Ty::Map(Box::new(Ty::Integer)),
        );
        assert_eq!(a.rules, "min_properties(1) values(maximum(9))");
        assert!(a.unenforced.is_empty());
    }

    #[test]
    fn what_cannot_be_checked_is_reported() {
        let a = annotated(
            json!({"type": "string", "format": "email", "pattern": "(?=a)b", "minimum": 1}),
            Ty::String,
        );
        assert_eq!(a.rules, "");
        assert_eq!(a.unenforced.len(), 3, "{:?}", a.unenforced);
        for keyword in ["minimum 1", "pattern (?=a)b", "format email"] {
            assert!(
                a.unenforced.iter().any(|u| u.contains(keyword)),
                "{keyword}: {:?}",
                a.unenforced
            );
        }
    }
}
