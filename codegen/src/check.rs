//! The check phase: what the generated code could not hold exactly. A schema construct the
//! generator would loosen (`not`, `if`/`then`/`else`, `patternProperties`, an `enum` or `const`
//! that is not a string) and a union whose members it cannot tell apart are findings; generation
//! fails on any finding that the schema (through an overlay) or the builder has not accepted.

use crate::dispatch::{plan_objects, ObjPlan};
use crate::error::{Error, Result};
use crate::model::{Kind, Model, Rules, Ty, Variant};
use crate::rules::{annotate, rules_of};
use serde_json::{Map, Value};
use std::collections::BTreeSet;

/// The schema keyword that accepts findings, usually added by an overlay fix that says why: on a
/// `$defs` entry, a list of construct names accepted on that type; at the schema root, an object
/// from construct name to the list of types it is accepted on.
pub const ACCEPT_KEY: &str = "x-oxmcp-codegen-accept";

/// Construct names, as findings and acceptances spell them.
pub mod construct {
    /// `not`: the generated type accepts what the schema excludes.
    pub const NOT: &str = "not";
    /// `if`/`then`/`else`: conditional requirements are not enforced.
    pub const IF_THEN_ELSE: &str = "if-then-else";
    /// `patternProperties`: matching keys are kept as untyped extra properties.
    pub const PATTERN_PROPERTIES: &str = "patternProperties";
    /// An `enum` with a value that is not a string: typed as its base type, any value accepted.
    pub const NON_STRING_ENUM: &str = "non-string-enum";
    /// A `const` that is not a string: typed as its base type, any value accepted.
    pub const NON_STRING_CONST: &str = "non-string-const";
    /// Union members that no discriminator or key tells apart: the first one always wins.
    pub const AMBIGUOUS_UNION: &str = "ambiguous-union";
    /// A validation keyword (`maxLength`, `pattern`, `format`, ...) that `Validate` does not
    /// check where it stands: a `format` with no closed rule, a `pattern` the regex crate does
    /// not read, a keyword on a union member or on a value of another type.
    pub const UNENFORCED_CONSTRAINT: &str = "unenforced-constraint";
}

/// One thing the generated code would not hold exactly.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Finding {
    /// The `$defs` entry it is in (the union, for ambiguity).
    pub type_name: String,
    /// Which construct (see [`construct`]).
    pub construct: &'static str,
    /// What and where, e.g. ``const 410 at .code`` or the two members of a union.
    pub detail: String,
}

impl std::fmt::Display for Finding {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "`{}`: {} ({})",
            self.type_name, self.construct, self.detail
        )
    }
}

/// Every finding of a lowered schema, in a stable order.
pub fn findings(defs: &Map<String, Value>, model: &Model) -> Vec<Finding> {
    let mut out = Vec::new();
    for (name, def) in defs {
        schema_constructs(name, def, "", &mut out);
    }
    for t in &model.types {
        if let Kind::Union(variants) = &t.kind {
            let owner = t
                .schema_name
                .clone()
                .unwrap_or_else(|| owner_of(&t.name, defs));
            ambiguities(&owner, &t.name, variants, &mut out);
        }
    }
    out.sort();
    out.dedup();
    out
}

/// The validation keywords `Validate` would not check: on each type and field of the model, and
/// on the members of unions and `allOf`s in the schema (which the generated types do not keep).
pub fn constraint_findings(defs: &Map<String, Value>, model: &Model) -> Vec<Finding> {
    let mut out = Vec::new();
    for t in &model.types {
        let owner = t
            .schema_name
            .clone()
            .unwrap_or_else(|| owner_of(&t.name, defs));
        let mut add = |unenforced: Vec<String>, at: String| {
            for what in unenforced {
                out.push(Finding {
                    type_name: owner.clone(),
                    construct: construct::UNENFORCED_CONSTRAINT,
                    detail: format!("{what} at {at}"),
                });
            }
        };
        let this = Ty::Named(t.name.clone());
        match &t.kind {
            Kind::Struct { fields, .. } => {
                add(annotate(&t.rules, &this, model).unenforced, t.name.clone());
                for f in fields {
                    let at = format!("{}.{}", t.name, f.json_name);
                    add(annotate(&f.rules, &f.ty, model).unenforced, at);
                }
            }
            Kind::Alias(_) => add(
                annotate(&Rules::default(), &this, model).unenforced,
                t.name.clone(),
            ),
            Kind::Union(_) | Kind::StringEnum(_) | Kind::Const(_) => {
                let what = t
                    .rules
                    .own
                    .iter()
                    .map(|r| format!("`{}` on {}", r.keyword(), t.name))
                    .collect();
                add(what, t.name.clone());
            }
        }
    }
    for (name, def) in defs {
        member_keywords(name, def, "", &mut out);
    }
    out
}

/// Validation keywords stated on a member of an `anyOf`, `oneOf` or `allOf` under `s`: the
/// generated union or merged struct keeps the member's shape, not its keywords.
fn member_keywords(owner: &str, s: &Value, at: &str, out: &mut Vec<Finding>) {
    let Some(obj) = s.as_object() else { return };
    for key in ["anyOf", "oneOf", "allOf"] {
        for (i, member) in obj
            .get(key)
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .enumerate()
        {
            for rule in rules_of(member).own {
                out.push(Finding {
                    type_name: owner.to_string(),
                    construct: construct::UNENFORCED_CONSTRAINT,
                    detail: format!("`{}` on a member at {at}.{key}[{i}]", rule.keyword()),
                });
            }
        }
    }
    for (key, sub) in obj {
        match sub {
            Value::Object(_) if key != "const" && key != "default" && key != "examples" => {
                member_keywords(owner, sub, &format!("{at}.{key}"), out)
            }
            Value::Array(items) if key != "enum" && key != "examples" => {
                for (i, item) in items.iter().enumerate() {
                    member_keywords(owner, item, &format!("{at}.{key}[{i}]"), out);
                }
            }
            _ => {}
        }
    }
}

/// The `$defs` entry an inline type was lowered from: the longest schema name its Rust name
/// starts with (inline types are named parent + property).
fn owner_of(rust_name: &str, defs: &Map<String, Value>) -> String {
    defs.keys()
        .filter(|k| rust_name.starts_with(k.as_str()))
        .max_by_key(|k| k.len())
        .cloned()
        .unwrap_or_else(|| rust_name.to_string())
}

/// Fail with every finding not accepted by the schema's [`ACCEPT_KEY`] entries or by `accepted`
/// (`(type, construct)` pairs from the builder).
pub fn enforce(
    schema: &Value,
    defs: &Map<String, Value>,
    found: &[Finding],
    accepted: &BTreeSet<(String, String)>,
) -> Result<()> {
    let lists = |v: Option<&Value>, item: &str| {
        v.and_then(Value::as_array)
            .is_some_and(|a| a.iter().any(|c| c.as_str() == Some(item)))
    };
    let open: Vec<String> = found
        .iter()
        .filter(|f| {
            let by_schema = lists(
                defs.get(&f.type_name).and_then(|d| d.get(ACCEPT_KEY)),
                f.construct,
            ) || lists(
                schema.get(ACCEPT_KEY).and_then(|a| a.get(f.construct)),
                &f.type_name,
            );
            let by_builder = accepted.contains(&(f.type_name.clone(), f.construct.to_string()));
            !by_schema && !by_builder
        })
        .map(|f| f.to_string())
        .collect();
    if open.is_empty() {
        return Ok(());
    }
    Err(Error::msg(format!(
        "the generated code cannot express {} construct(s): {}; resolve each with an overlay fix \
         or accept it (overlay: add the construct to `{ACCEPT_KEY}` of the type; builder: \
         .accept(type, construct))",
        open.len(),
        open.join("; ")
    )))
}

/// Walk the subschemas of `s` (a schema inside the `$defs` entry `owner`, at `at`).
fn schema_constructs(owner: &str, s: &Value, at: &str, out: &mut Vec<Finding>) {
    let Some(obj) = s.as_object() else { return };
    let mut add = |construct: &'static str, detail: String| {
        out.push(Finding {
            type_name: owner.to_string(),
            construct,
            detail: if at.is_empty() {
                format!("{detail} on the type")
            } else {
                format!("{detail} at {at}")
            },
        });
    };
    if obj.contains_key("not") {
        add(construct::NOT, "`not`".into());
    }
    if obj.contains_key("if") {
        add(construct::IF_THEN_ELSE, "`if`".into());
    }
    if obj.contains_key("patternProperties") {
        add(construct::PATTERN_PROPERTIES, "`patternProperties`".into());
    }
    if let Some(values) = obj.get("enum").and_then(Value::as_array) {
        if values.iter().any(|v| !v.is_string()) {
            add(
                construct::NON_STRING_ENUM,
                format!("enum {}", Value::Array(values.clone())),
            );
        }
    }
    if let Some(c) = obj.get("const") {
        if !c.is_string() {
            add(construct::NON_STRING_CONST, format!("const {c}"));
        }
    }
    let at_or_top = |suffix: &str| format!("{at}{suffix}");
    for key in ["properties", "patternProperties", "$defs", "definitions"] {
        if let Some(map) = obj.get(key).and_then(Value::as_object) {
            for (name, sub) in map {
                schema_constructs(owner, sub, &at_or_top(&format!(".{name}")), out);
            }
        }
    }
    for key in ["anyOf", "oneOf", "allOf", "prefixItems"] {
        if let Some(items) = obj.get(key).and_then(Value::as_array) {
            for (i, sub) in items.iter().enumerate() {
                schema_constructs(owner, sub, &at_or_top(&format!(".{key}[{i}]")), out);
            }
        }
    }
    for key in ["items", "additionalProperties", "not", "if", "then", "else"] {
        match obj.get(key) {
            Some(Value::Array(items)) => {
                for (i, sub) in items.iter().enumerate() {
                    schema_constructs(owner, sub, &at_or_top(&format!(".{key}[{i}]")), out);
                }
            }
            Some(sub) => schema_constructs(owner, sub, &at_or_top(&format!(".{key}")), out),
            None => {}
        }
    }
}

/// Members of a union that dispatch cannot tell apart.
fn ambiguities(owner: &str, union: &str, variants: &[Variant], out: &mut Vec<Finding>) {
    let label = |i: usize| {
        variants[i]
            .schema_name
            .clone()
            .unwrap_or_else(|| variants[i].name.clone())
    };
    let objects: Vec<usize> = (0..variants.len())
        .filter(|&i| {
            variants[i].shape.kinds.is_empty() || variants[i].shape.kinds.contains("object")
        })
        .collect();
    if let Some(plan) = plan_objects(variants, &objects) {
        let mut pairs = Vec::new();
        same_keys(&plan, variants, &mut pairs);
        for (a, b) in pairs {
            out.push(Finding {
                type_name: owner.to_string(),
                construct: construct::AMBIGUOUS_UNION,
                detail: format!(
                    "{union}: members {} and {} have the same shape; the first always wins",
                    label(a),
                    label(b)
                ),
            });
        }
    }
}

/// Pairs of candidates in the key-based choices of `plan` that no key sets apart.
fn same_keys(plan: &ObjPlan, variants: &[Variant], out: &mut Vec<(usize, usize)>) {
    match plan {
        ObjPlan::One(_) => {}
        ObjPlan::Tag {
            cases,
            absent,
            other,
            ..
        } => {
            for (_, sub) in cases {
                same_keys(sub, variants, out);
            }
            for sub in absent.iter().chain(other.iter()) {
                same_keys(sub, variants, out);
            }
        }
        ObjPlan::Keys(cands) => {
            for (n, a) in cands.iter().enumerate() {
                for b in &cands[n + 1..] {
                    let (sa, sb) = (&variants[a.variant].shape, &variants[b.variant].shape);
                    if sa.props == sb.props && sa.required == sb.required && sa.nested == sb.nested
                    {
                        out.push((a.variant, b.variant));
                    }
                }
            }
        }
    }
}
