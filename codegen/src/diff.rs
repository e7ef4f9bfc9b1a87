//! `oxmcp-codegen diff`: what changed between two schema versions, as a maintainer reads it when
//! the spec updates: types added and removed, and per type the fields, members and values.

use crate::error::Result;
use crate::model::{Kind, Model, TypeDef};
use crate::Builder;
use std::collections::BTreeMap;
use std::fmt::Write;

/// A short description of a type's representation, for "changed kind" lines.
fn kind_name(t: &TypeDef) -> String {
    match &t.kind {
        Kind::Struct { .. } => "object".into(),
        Kind::Alias(ty) => format!("alias of {}", ty.describe()),
        Kind::StringEnum(_) => "string enum".into(),
        Kind::Const(v) => format!("constant `{v}`"),
        Kind::Union(_) => "union".into(),
    }
}

/// Per-type entries comparable across versions: field -> description, member, value.
fn entries(t: &TypeDef) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    match &t.kind {
        Kind::Struct { fields, .. } => {
            for f in fields {
                let req = if f.required { "required" } else { "optional" };
                out.insert(
                    format!("field `{}`", f.json_name),
                    format!("{} ({req})", f.ty.describe()),
                );
            }
        }
        Kind::Union(vs) => {
            for v in vs {
                out.insert(format!("member `{}`", v.name), v.ty.describe());
            }
        }
        Kind::StringEnum(values) => {
            for v in values {
                out.insert(format!("value `{v}`"), String::new());
            }
        }
        Kind::Alias(_) | Kind::Const(_) => {}
    }
    out
}

/// What a report includes beyond types, fields, members and values.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// Also report changed descriptions (of types and fields) and changed constraints
    /// (`minimum`, `maxLength`, `pattern`, `format`, `default`, ...).
    pub details: bool,
}

/// The keywords reported as constraints by [`Options::details`].
const CONSTRAINTS: &[&str] = &[
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "minLength",
    "maxLength",
    "pattern",
    "format",
    "minItems",
    "maxItems",
    "uniqueItems",
    "minProperties",
    "maxProperties",
    "default",
];

/// Compare two models and write a readable report; empty sections are left out.
pub fn report(old: &Model, new: &Model) -> String {
    report_with(old, new, None, &Options::default())
}

/// The definitions of a schema by name, for constraint comparison.
fn defs_of(schema: Option<&serde_json::Value>) -> BTreeMap<String, serde_json::Value> {
    schema
        .and_then(|s| crate::lower::definitions(s).ok())
        .map(|(_, d)| d.iter().map(|(k, v)| (k.clone(), v.clone())).collect())
        .unwrap_or_default()
}

/// `constraint → value` per property (`""` for the type itself) of one definition.
fn constraints(def: Option<&serde_json::Value>) -> BTreeMap<(String, String), String> {
    let mut out = BTreeMap::new();
    let Some(def) = def else { return out };
    let mut add = |prop: &str, v: &serde_json::Value| {
        for key in CONSTRAINTS {
            if let Some(c) = v.get(*key) {
                out.insert((prop.to_string(), key.to_string()), c.to_string());
            }
        }
    };
    add("", def);
    if let Some(props) = def.get("properties").and_then(|p| p.as_object()) {
        for (name, v) in props {
            add(name, v);
        }
    }
    out
}

/// The first line of a description, shortened for a one-line report.
fn gist(doc: Option<&String>) -> String {
    let line = doc.and_then(|d| d.lines().next()).unwrap_or("");
    let mut out: String = line.chars().take(60).collect();
    if line.chars().count() > 60 {
        out.push('…');
    }
    format!("{out:?}")
}

/// Types removed from `old` whose shape reappears under a new name in `new`: old name -> new name.
fn renames<'a>(
    removed: &[&'a str],
    added: &[&'a str],
    olds: &BTreeMap<&str, &TypeDef>,
    news: &BTreeMap<&str, &TypeDef>,
) -> Vec<(&'a str, &'a str)> {
    let mut taken = std::collections::BTreeSet::new();
    let mut out = Vec::new();
    for r in removed {
        let o = olds[r];
        let shape = (kind_name(o), entries(o));
        if let Some(a) = added.iter().find(|a| {
            !taken.contains(*a) && {
                let n = news[*a];
                (kind_name(n), entries(n)) == shape
            }
        }) {
            taken.insert(*a);
            out.push((*r, *a));
        }
    }
    out
}

/// Compare two models (and, for details, the schemas they came from) and write a readable
/// report: types added, removed and renamed (same shape, new name), then per type what changed.
pub fn report_with(
    old: &Model,
    new: &Model,
    schemas: Option<(&serde_json::Value, &serde_json::Value)>,
    options: &Options,
) -> String {
    let olds: BTreeMap<&str, &TypeDef> = old.types.iter().map(|t| (t.name.as_str(), t)).collect();
    let news: BTreeMap<&str, &TypeDef> = new.types.iter().map(|t| (t.name.as_str(), t)).collect();
    let (old_defs, new_defs) = (defs_of(schemas.map(|s| s.0)), defs_of(schemas.map(|s| s.1)));
    let mut out = String::new();
    let mut added: Vec<&str> = news
        .keys()
        .filter(|k| !olds.contains_key(*k))
        .copied()
        .collect();
    let mut removed: Vec<&str> = olds
        .keys()
        .filter(|k| !news.contains_key(*k))
        .copied()
        .collect();
    let renamed = renames(&removed, &added, &olds, &news);
    added.retain(|a| !renamed.iter().any(|(_, n)| n == a));
    removed.retain(|r| !renamed.iter().any(|(o, _)| o == r));
    let _ = writeln!(
        out,
        "types: {} added, {} removed, {} renamed",
        added.len(),
        removed.len(),
        renamed.len()
    );
    for name in &added {
        let _ = writeln!(out, "+ {name} ({})", kind_name(news[name]));
    }
    for name in &removed {
        let _ = writeln!(out, "- {name} ({})", kind_name(olds[name]));
    }
    for (o, n) in &renamed {
        let _ = writeln!(out, "> {o} renamed to {n} ({})", kind_name(news[n]));
    }
    let mut changed = 0;
    let mut body = String::new();
    for (name, n) in &news {
        let Some(o) = olds.get(name) else { continue };
        let mut lines = Vec::new();
        if std::mem::discriminant(&o.kind) != std::mem::discriminant(&n.kind)
            || kind_name(o) != kind_name(n)
                && !matches!(
                    n.kind,
                    Kind::Struct { .. } | Kind::Union(_) | Kind::StringEnum(_)
                )
        {
            lines.push(format!("  ~ was {}, now {}", kind_name(o), kind_name(n)));
        }
        let (oe, ne) = (entries(o), entries(n));
        for (k, v) in &ne {
            match oe.get(k) {
                None => lines.push(format!("  + {k}{}", suffix(v))),
                Some(ov) if ov != v => lines.push(format!("  ~ {k}: {ov} -> {v}")),
                _ => {}
            }
        }
        for (k, v) in &oe {
            if !ne.contains_key(k) {
                lines.push(format!("  - {k}{}", suffix(v)));
            }
        }
        if options.details {
            if o.doc != n.doc {
                lines.push(format!(
                    "  ~ description: {} -> {}",
                    gist(o.doc.as_ref()),
                    gist(n.doc.as_ref())
                ));
            }
            if let (Kind::Struct { fields: of, .. }, Kind::Struct { fields: nf, .. }) =
                (&o.kind, &n.kind)
            {
                for f in nf {
                    if let Some(g) = of.iter().find(|g| g.json_name == f.json_name) {
                        if g.doc != f.doc {
                            lines.push(format!(
                                "  ~ field `{}` description: {} -> {}",
                                f.json_name,
                                gist(g.doc.as_ref()),
                                gist(f.doc.as_ref())
                            ));
                        }
                    }
                }
            }
            let schema_name = n.schema_name.as_deref().unwrap_or(name);
            let (oc, nc) = (
                constraints(old_defs.get(schema_name)),
                constraints(new_defs.get(schema_name)),
            );
            for (key, v) in &nc {
                let what = constraint_label(key);
                match oc.get(key) {
                    None => lines.push(format!("  + {what}: {v}")),
                    Some(ov) if ov != v => lines.push(format!("  ~ {what}: {ov} -> {v}")),
                    _ => {}
                }
            }
            for (key, v) in &oc {
                if !nc.contains_key(key) {
                    lines.push(format!("  - {}: {v}", constraint_label(key)));
                }
            }
        }
        if !lines.is_empty() {
            changed += 1;
            let _ = writeln!(body, "{name}");
            for l in lines {
                let _ = writeln!(body, "{l}");
            }
        }
    }
    let _ = writeln!(out, "types changed: {changed}");
    out.push_str(&body);
    out
}

fn constraint_label((prop, key): &(String, String)) -> String {
    if prop.is_empty() {
        format!("constraint `{key}`")
    } else {
        format!("field `{prop}` constraint `{key}`")
    }
}

fn suffix(v: &str) -> String {
    if v.is_empty() {
        String::new()
    } else {
        format!(": {v}")
    }
}

/// Lower both schemas and report the differences.
pub fn diff(old: &Builder, new: &Builder) -> Result<String> {
    diff_with(old, new, &Options::default())
}

/// Lower both schemas and report the differences, with the details `options` asks for.
pub fn diff_with(old: &Builder, new: &Builder, options: &Options) -> Result<String> {
    let (old_schema, new_schema) = (old.schema_json()?, new.schema_json()?);
    Ok(report_with(
        &old.model()?,
        &new.model()?,
        Some((&old_schema, &new_schema)),
        options,
    ))
}
