//! Lowers a JSON Schema (`$defs` or `definitions`) into the generator's [`Model`].

use crate::error::{Error, Result};
use crate::model::{Field, Kind, Model, Rules, Shape, Ty, TypeDef, Variant};
use crate::naming::{field_name, pascal, type_name, RESERVED_TYPES};
use crate::rules::rules_of;
use serde_json::{Map, Value};
use std::borrow::Cow;
use std::cell::Cell;
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// Lowering settings.
#[derive(Debug, Clone, Default)]
pub struct LowerSettings {
    /// Schema type names mapped to existing Rust type paths instead of generated types.
    pub replacements: BTreeMap<String, String>,
}

/// The definitions table of a schema: `$defs` (2025-11-25 on) or `definitions` (before).
pub fn definitions(schema: &Value) -> Result<(&'static str, &Map<String, Value>)> {
    for key in ["$defs", "definitions"] {
        if let Some(v) = schema.get(key) {
            return v
                .as_object()
                .map(|m| (key, m))
                .ok_or_else(|| Error::msg(format!("`{key}` is not an object")));
        }
    }
    Err(Error::msg(
        "the schema has neither `$defs` nor `definitions`",
    ))
}

/// Lower every definition of `schema` into a model.
pub fn lower(schema: &Value, settings: &LowerSettings) -> Result<Model> {
    let (key, defs) = definitions(schema)?;
    let mut lw = Lowerer {
        defs,
        prefix: format!("#/{key}/"),
        settings,
        types: Vec::new(),
        names: HashMap::new(),
        shared_enums: BTreeSet::new(),
        depth: Cell::new(0),
    };
    let mut seen = BTreeMap::new();
    count_enums(&Value::Object(defs.clone()), &mut seen);
    lw.shared_enums = seen
        .into_iter()
        .filter(|(_, n)| *n > 1)
        .map(|(k, _)| k)
        .collect();
    for reserved in RESERVED_TYPES {
        lw.names.insert(reserved.to_string(), NameUse::Def);
    }
    let mut named = BTreeMap::new();
    for name in defs.keys() {
        let rust = type_name(name);
        if let Some(other) = named.insert(rust.clone(), name) {
            return Err(Error::msg(format!(
                "definitions `{other}` and `{name}` both become the Rust type `{rust}`"
            )));
        }
        lw.names.insert(rust, NameUse::Def);
    }
    for (name, def) in defs {
        lw.lower_def(name, def)?;
    }
    let model = Model { types: lw.types };
    alias_cycle(&model)?;
    let mut model = model;
    crate::boxes::mark(&mut model);
    Ok(model)
}

/// The named types `ty` mentions, at any depth (`Vec<A>` mentions `A`).
fn mentions<'t>(ty: &'t Ty, out: &mut Vec<&'t str>) {
    match ty {
        Ty::Named(n) => out.push(n),
        Ty::Vec(inner) | Ty::Map(inner) => mentions(inner, out),
        _ => {}
    }
}

/// Refuses type aliases that mention themselves through aliases alone (`A` is a union of
/// itself alone, or `A = Vec<B>` and `B = A`): Rust has no recursive type aliases, and no
/// value of such a type could be written down.
fn alias_cycle(model: &Model) -> Result<()> {
    let aliases: HashMap<&str, Vec<&str>> = model
        .types
        .iter()
        .filter_map(|t| match &t.kind {
            Kind::Alias(ty) => {
                let mut out = Vec::new();
                mentions(ty, &mut out);
                Some((t.name.as_str(), out))
            }
            _ => None,
        })
        .collect();
    for start in aliases.keys() {
        let mut stack: Vec<&str> = aliases[start].clone();
        let mut seen = BTreeSet::new();
        while let Some(name) = stack.pop() {
            if name == *start {
                return Err(Error::msg(format!(
                    "`{start}` is an alias of itself (through aliases alone); no value has this type"
                )));
            }
            if seen.insert(name) {
                stack.extend(aliases.get(name).into_iter().flatten());
            }
        }
    }
    Ok(())
}

#[derive(Debug, Clone, PartialEq)]
enum NameUse {
    Def,
    Inline(Kind2),
}

/// What an inline name was given to, so identical inline enums and consts share one type.
#[derive(Debug, Clone, PartialEq)]
enum Kind2 {
    Const(String),
    Enum(Vec<String>),
    Other,
}

struct Lowerer<'a> {
    defs: &'a Map<String, Value>,
    prefix: String,
    settings: &'a LowerSettings,
    types: Vec<TypeDef>,
    names: HashMap<String, NameUse>,
    /// (property, values) of inline string enums that occur under more than one parent; these
    /// are named after the property alone (`CacheScope`), the others after parent and property.
    shared_enums: BTreeSet<(String, Vec<String>)>,
    /// How many `allOf` merges and union members deep the lowering is (see [`Lowerer::deeper`]).
    depth: Cell<usize>,
}

/// How deep `allOf` merges and unions of unions may nest; the published schemas nest two or
/// three deep, and a schema that contains itself never bottoms out.
const MAX_DEPTH: usize = 64;

fn count_enums(v: &Value, seen: &mut BTreeMap<(String, Vec<String>), usize>) {
    match v {
        Value::Object(map) => {
            if let Some(props) = map.get("properties").and_then(Value::as_object) {
                for (name, ps) in props {
                    if let Some(values) = string_enum(ps) {
                        *seen.entry((name.clone(), values)).or_default() += 1;
                    }
                }
            }
            map.values().for_each(|c| count_enums(c, seen));
        }
        Value::Array(items) => items.iter().for_each(|c| count_enums(c, seen)),
        _ => {}
    }
}

fn desc(s: &Value) -> Option<String> {
    s.get("description")
        .and_then(Value::as_str)
        .map(str::to_string)
}

fn string_enum(s: &Value) -> Option<Vec<String>> {
    let values = s.get("enum")?.as_array()?;
    values
        .iter()
        .map(|v| v.as_str().map(str::to_string))
        .collect()
}

/// Refuses a schema no value satisfies: an empty `enum`, `anyOf` or `oneOf` (an empty Rust enum
/// could be neither built nor matched on by the generated code).
fn satisfiable(s: &Value, at: &str) -> Result<()> {
    for keyword in ["enum", "anyOf", "oneOf"] {
        if s.get(keyword)
            .and_then(Value::as_array)
            .is_some_and(Vec::is_empty)
        {
            return Err(Error::msg(format!(
                "`{keyword}` at {at} is empty: no value satisfies it"
            )));
        }
    }
    Ok(())
}

fn const_str(s: &Value) -> Option<&str> {
    s.get("const").and_then(Value::as_str)
}

fn types_of(s: &Value) -> Vec<&str> {
    match s.get("type") {
        Some(Value::String(t)) => vec![t.as_str()],
        Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    }
}

fn union_members(s: &Value) -> Option<&Vec<Value>> {
    s.get("anyOf")
        .or_else(|| s.get("oneOf"))
        .and_then(Value::as_array)
}

impl<'a> Lowerer<'a> {
    /// Goes one level deeper into `allOf` merges, unions and inline types, refusing a schema
    /// that never bottoms out (a union or `allOf` that contains itself) with an error instead
    /// of recursing until the stack runs out. Each `enter` that succeeds is paired with a
    /// [`Lowerer::leave`].
    fn enter(&self, at: &str) -> Result<()> {
        let depth = self.depth.get();
        if depth >= MAX_DEPTH {
            return Err(Error::msg(format!(
                "$ref cycle at {at}: a union or allOf that contains itself"
            )));
        }
        self.depth.set(depth + 1);
        Ok(())
    }

    fn leave(&self) {
        self.depth.set(self.depth.get() - 1);
    }

    /// `f`, one level deeper (see [`Lowerer::enter`]).
    fn deeper<T>(&self, at: &str, f: impl FnOnce() -> Result<T>) -> Result<T> {
        self.enter(at)?;
        let out = f();
        self.leave();
        out
    }

    fn ref_name(&self, r: &str, at: &str) -> Result<String> {
        match r.strip_prefix(&self.prefix) {
            Some(name) if self.defs.contains_key(name) => Ok(name.to_string()),
            _ => Err(Error::msg(format!("unknown $ref `{r}` at {at}"))),
        }
    }

    /// Follow `$ref` to the schema that has the content; an `allOf` becomes one merged object.
    fn resolve<'b>(&self, s: &'b Value, at: &str) -> Result<Cow<'b, Value>>
    where
        'a: 'b,
    {
        let defs: &'a Map<String, Value> = self.defs;
        let mut cur: &'b Value = s;
        for _ in 0..32 {
            if let Some(r) = cur.get("$ref").and_then(Value::as_str) {
                let name = self.ref_name(r, at)?;
                cur = &defs[&name];
            } else if let Some(all) = cur.get("allOf").and_then(Value::as_array) {
                return Ok(Cow::Owned(
                    self.deeper(at, || self.merge_all_of(cur, all, at))?,
                ));
            } else {
                return Ok(Cow::Borrowed(cur));
            }
        }
        Err(Error::msg(format!("$ref cycle at {at}")))
    }

    /// Merge the members of an `allOf` into one object schema: properties in order (later
    /// members refine earlier ones), `required` united, the description of the outer schema.
    fn merge_all_of(&self, outer: &Value, all: &[Value], at: &str) -> Result<Value> {
        let mut props = Map::new();
        let mut required: Vec<Value> = Vec::new();
        let mut extra = None;
        for m in all {
            let m = self.resolve(m, at)?;
            if let Some(p) = m.get("properties").and_then(Value::as_object) {
                for (k, v) in p {
                    props.insert(k.clone(), v.clone());
                }
            }
            for r in m
                .get("required")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                if !required.contains(r) {
                    required.push(r.clone());
                }
            }
            if let Some(ap) = m.get("additionalProperties") {
                extra = Some(ap.clone());
            }
        }
        let mut out = Map::new();
        if let Some(d) = outer.get("description") {
            out.insert("description".into(), d.clone());
        }
        out.insert("type".into(), Value::String("object".into()));
        out.insert("properties".into(), Value::Object(props));
        out.insert("required".into(), Value::Array(required));
        if let Some(ap) = extra {
            out.insert("additionalProperties".into(), ap);
        }
        Ok(Value::Object(out))
    }

    fn ty_for_ref(&self, name: &str) -> Ty {
        match self.settings.replacements.get(name) {
            Some(path) => Ty::Path(path.clone()),
            None => Ty::Named(type_name(name)),
        }
    }

    fn claim(&mut self, wanted: String, what: Kind2) -> (String, bool) {
        let mut name = wanted.clone();
        let mut n = 1;
        loop {
            match self.names.get(&name) {
                None => {
                    self.names.insert(name.clone(), NameUse::Inline(what));
                    return (name, true);
                }
                Some(NameUse::Inline(k)) if *k == what && what != Kind2::Other => {
                    return (name, false)
                }
                _ => {
                    n += 1;
                    name = format!("{wanted}{n}");
                }
            }
        }
    }

    fn lower_def(&mut self, name: &str, s: &Value) -> Result<()> {
        let rust = type_name(name);
        let at = format!("`{name}`");
        let (kind, rules) = if let Some(path) = self.settings.replacements.get(name) {
            (Kind::Alias(Ty::Path(path.clone())), Rules::default())
        } else {
            (self.kind_of(s, &rust, &at)?, rules_of(s))
        };
        self.types.push(TypeDef {
            name: rust,
            schema_name: Some(name.to_string()),
            doc: desc(s),
            kind,
            rules,
        });
        Ok(())
    }

    /// The representation of a named type whose schema is `s`.
    fn kind_of(&mut self, s: &Value, name: &str, at: &str) -> Result<Kind> {
        satisfiable(s, at)?;
        if !s.is_object() {
            if s == &Value::Bool(true) {
                return Ok(Kind::Alias(Ty::Any));
            }
            return Err(Error::msg(format!("schema at {at} is not an object")));
        }
        if let Some(r) = s.get("$ref").and_then(Value::as_str) {
            let target = self.ref_name(r, at)?;
            return Ok(Kind::Alias(self.ty_for_ref(&target)));
        }
        if let Some(members) = union_members(s) {
            if members.len() > 1 {
                return Ok(Kind::Union(self.variants(members, name, at)?));
            }
        }
        if let Some(all) = s.get("allOf").and_then(Value::as_array) {
            let merged = self.merge_all_of(s, all, at)?;
            return self.kind_of(&merged, name, at);
        }
        let types = types_of(s);
        if types.len() > 1 {
            return Ok(Kind::Union(self.primitive_variants(&types)));
        }
        if types.first() == Some(&"string") || (types.is_empty() && s.get("enum").is_some()) {
            if let Some(c) = const_str(s) {
                return Ok(Kind::Const(c.to_string()));
            }
            if let Some(values) = string_enum(s) {
                return Ok(Kind::StringEnum(values));
            }
        }
        if s.get("properties").is_some() {
            return self.struct_kind(s, name, at);
        }
        Ok(Kind::Alias(self.ty_of(s, name, "", at)?))
    }

    fn struct_kind(&mut self, s: &Value, name: &str, at: &str) -> Result<Kind> {
        let props = s
            .get("properties")
            .and_then(Value::as_object)
            .ok_or_else(|| Error::msg(format!("`properties` at {at} is not an object")))?;
        let required: BTreeSet<&str> = s
            .get("required")
            .and_then(Value::as_array)
            .map(|a| a.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        let mut fields = Vec::new();
        let mut used = BTreeSet::new();
        for (json_name, ps) in props {
            let mut rust_name = field_name(json_name);
            let mut n = 1;
            while used.contains(&rust_name) || rust_name == "extra" {
                n += 1;
                rust_name = format!("{}_{n}", field_name(json_name));
            }
            used.insert(rust_name.clone());
            let field_at = format!("{at}.{json_name}");
            let ty = self.ty_of(ps, name, json_name, &field_at)?;
            fields.push(Field {
                json_name: json_name.clone(),
                rust_name,
                ty,
                required: required.contains(json_name.as_str()),
                boxed: false,
                doc: desc(ps),
                rules: rules_of(ps),
            });
        }
        let extra = match s.get("additionalProperties") {
            Some(Value::Bool(false)) => None,
            None | Some(Value::Bool(true)) => Some(Ty::Any),
            Some(ap) => {
                Some(self.ty_of(ap, name, "Extra", &format!("{at}.additionalProperties"))?)
            }
        };
        Ok(Kind::Struct { fields, extra })
    }

    fn push_inline(&mut self, name: String, doc: Option<String>, kind: Kind) {
        self.types.push(TypeDef {
            name,
            schema_name: None,
            doc,
            kind,
            rules: Rules::default(),
        });
    }

    /// The type of a property (or array item, or map value) `field` of `parent`.
    fn ty_of(&mut self, s: &Value, parent: &str, field: &str, at: &str) -> Result<Ty> {
        self.enter(at)?;
        let ty = self.ty_of_here(s, parent, field, at);
        self.leave();
        ty
    }

    /// [`Lowerer::ty_of`] at the current depth.
    fn ty_of_here(&mut self, s: &Value, parent: &str, field: &str, at: &str) -> Result<Ty> {
        satisfiable(s, at)?;
        let obj = match s {
            Value::Bool(true) => return Ok(Ty::Any),
            Value::Object(o) => o,
            _ => return Err(Error::msg(format!("schema at {at} is not an object"))),
        };
        if let Some(r) = obj.get("$ref").and_then(Value::as_str) {
            let target = self.ref_name(r, at)?;
            return Ok(self.ty_for_ref(&target));
        }
        if let Some(members) = union_members(s) {
            if members.len() == 1 {
                return self.ty_of(&members[0], parent, field, at);
            }
            let (name, _) = self.claim(format!("{parent}{}", pascal(field)), Kind2::Other);
            let variants = self.variants(members, &name, at)?;
            self.push_inline(name.clone(), desc(s), Kind::Union(variants));
            return Ok(Ty::Named(name));
        }
        if let Some(all) = obj.get("allOf").and_then(Value::as_array) {
            let merged = self.merge_all_of(s, all, at)?;
            return self.ty_of(&merged, parent, field, at);
        }
        let types = types_of(s);
        if types.len() > 1 {
            let (name, _) = self.claim(format!("{parent}{}", pascal(field)), Kind2::Other);
            let variants = self.primitive_variants(&types);
            self.push_inline(name.clone(), desc(s), Kind::Union(variants));
            return Ok(Ty::Named(name));
        }
        let ty = types.first().copied();
        if ty == Some("string") || (ty.is_none() && obj.contains_key("enum")) {
            if let Some(c) = const_str(s) {
                let wanted = format!("{}{}", pascal(field), pascal(c));
                let (name, fresh) = self.claim(wanted, Kind2::Const(c.to_string()));
                if fresh {
                    let doc = Some(format!("The constant string `{c}`."));
                    self.push_inline(name.clone(), doc, Kind::Const(c.to_string()));
                }
                return Ok(Ty::Named(name));
            }
            if let Some(values) = string_enum(s) {
                let shared = self
                    .shared_enums
                    .contains(&(field.to_string(), values.clone()));
                let mut wanted = pascal(field);
                if !shared
                    || self
                        .names
                        .get(&wanted)
                        .is_some_and(|u| *u != NameUse::Inline(Kind2::Enum(values.clone())))
                {
                    wanted = format!("{parent}{}", pascal(field));
                }
                let (name, fresh) = self.claim(wanted, Kind2::Enum(values.clone()));
                if fresh {
                    self.push_inline(name.clone(), desc(s), Kind::StringEnum(values));
                }
                return Ok(Ty::Named(name));
            }
        }
        match ty {
            Some("string") => Ok(Ty::String),
            Some("integer") => Ok(Ty::Integer),
            Some("number") => Ok(Ty::Number),
            Some("boolean") => Ok(Ty::Bool),
            Some("null") => Ok(Ty::Null),
            Some("array") => match obj.get("items") {
                Some(items) => Ok(Ty::Vec(Box::new(self.ty_of(
                    items,
                    parent,
                    &format!("{field}Item"),
                    &format!("{at}[]"),
                )?))),
                None => Ok(Ty::Vec(Box::new(Ty::Any))),
            },
            Some("object") | None if obj.contains_key("properties") => {
                let (name, _) = self.claim(format!("{parent}{}", pascal(field)), Kind2::Other);
                let kind = self.struct_kind(s, &name, at)?;
                self.push_inline(name.clone(), desc(s), kind);
                Ok(Ty::Named(name))
            }
            Some("object") => match obj.get("additionalProperties") {
                None | Some(Value::Bool(_)) => Ok(Ty::Map(Box::new(Ty::Any))),
                Some(ap) => Ok(Ty::Map(Box::new(self.ty_of(
                    ap,
                    parent,
                    &format!("{field}Value"),
                    &format!("{at}.additionalProperties"),
                )?))),
            },
            None => Ok(Ty::Any),
            Some(other) => Err(Error::msg(format!("unknown type `{other}` at {at}"))),
        }
    }

    fn primitive_variants(&self, types: &[&str]) -> Vec<Variant> {
        let has_number = types.contains(&"number");
        let mut out = Vec::new();
        for t in types {
            let (name, ty, kinds): (&str, Ty, &[&'static str]) = match *t {
                "string" => ("String", Ty::String, &["string"]),
                "integer" if has_number => continue,
                "integer" => ("Integer", Ty::Integer, &["integer"]),
                "number" => ("Number", Ty::Number, &["integer", "number"]),
                "boolean" => ("Boolean", Ty::Bool, &["boolean"]),
                "null" => ("Null", Ty::Null, &["null"]),
                "array" => ("Array", Ty::Vec(Box::new(Ty::Any)), &["array"]),
                "object" => ("Object", Ty::Map(Box::new(Ty::Any)), &["object"]),
                _ => continue,
            };
            out.push(Variant {
                name: name.to_string(),
                ty,
                boxed: false,
                schema_name: None,
                shape: Shape {
                    kinds: kinds.iter().copied().collect(),
                    ..Shape::default()
                },
            });
        }
        out
    }

    fn variants(&mut self, members: &[Value], parent: &str, at: &str) -> Result<Vec<Variant>> {
        let mut out: Vec<Variant> = Vec::new();
        for (i, m) in members.iter().enumerate() {
            let member_at = format!("{at}.anyOf[{i}]");
            if let Some(r) = m.get("$ref").and_then(Value::as_str) {
                let target = self.ref_name(r, &member_at)?;
                let shape = self.shape(m, &member_at)?;
                out.push(Variant {
                    name: type_name(&target),
                    ty: self.ty_for_ref(&target),
                    boxed: false,
                    schema_name: Some(target),
                    shape,
                });
                continue;
            }
            let types = types_of(m);
            if types.len() > 1 && !m.as_object().is_some_and(|o| o.contains_key("properties")) {
                out.extend(self.primitive_variants(&types));
                continue;
            }
            let shape = self.shape(m, &member_at)?;
            let base = match types.first().copied() {
                Some("string") => "String",
                Some("integer") => "Integer",
                Some("number") => "Number",
                Some("boolean") => "Boolean",
                Some("null") => "Null",
                Some("array") => "Array",
                Some("object") => "Object",
                _ => "Value",
            };
            let ty = self.ty_of(m, parent, base, &member_at)?;
            out.push(Variant {
                name: base.to_string(),
                ty,
                boxed: false,
                schema_name: None,
                shape,
            });
        }
        // Variant names must be unique: number the later duplicates by position.
        let mut seen = BTreeMap::<String, usize>::new();
        for v in &mut out {
            let count = seen.entry(v.name.clone()).or_default();
            *count += 1;
            if *count > 1 {
                v.name = format!("{}{}", v.name, count);
            }
        }
        Ok(out)
    }

    /// What dispatch can see of a union member.
    fn shape(&self, m: &Value, at: &str) -> Result<Shape> {
        let resolved = self.resolve(m, at)?;
        let s: &Value = &resolved;
        let mut shape = Shape::default();
        if let Some(members) = union_members(s) {
            for sub in members {
                let inner = self.deeper(at, || self.shape(sub, at))?;
                if inner.kinds.is_empty() {
                    return Ok(Shape::default());
                }
                shape.kinds.extend(inner.kinds);
            }
            return Ok(shape);
        }
        for t in types_of(s) {
            match t {
                "string" => shape.kinds.insert("string"),
                "integer" => shape.kinds.insert("integer"),
                "number" => {
                    shape.kinds.insert("integer");
                    shape.kinds.insert("number")
                }
                "boolean" => shape.kinds.insert("boolean"),
                "null" => shape.kinds.insert("null"),
                "array" => shape.kinds.insert("array"),
                "object" => shape.kinds.insert("object"),
                _ => false,
            };
        }
        let Some(props) = s.get("properties").and_then(Value::as_object) else {
            return Ok(shape);
        };
        shape.kinds.insert("object");
        let required: BTreeSet<&str> = s
            .get("required")
            .and_then(Value::as_array)
            .map(|a| a.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        for (p, ps) in props {
            shape.props.insert(p.clone());
            let ps = self.resolve(ps, at)?;
            let ps: &Value = &ps;
            let is_required = required.contains(p.as_str());
            if let Some(c) = const_str(ps) {
                shape
                    .tags
                    .push((p.clone(), vec![c.to_string()], is_required));
            } else if let Some(values) = string_enum(ps) {
                shape.tags.push((p.clone(), values, is_required));
            }
            if let Some(inner) = ps.get("properties").and_then(Value::as_object) {
                for q in inner.keys() {
                    shape.nested.insert(vec![p.clone(), q.clone()]);
                }
            }
            if is_required {
                shape.required.insert(vec![p.clone()]);
                if let Some(inner) = ps.get("required").and_then(Value::as_array) {
                    for q in inner.iter().filter_map(Value::as_str) {
                        shape.required.insert(vec![p.clone(), q.to_string()]);
                    }
                }
            }
        }
        Ok(shape)
    }
}
