//! `mcp-codegen diff`: what changed between two schema versions, as a maintainer reads it when
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

/// Compare two models and write a readable report; empty sections are left out.
pub fn report(old: &Model, new: &Model) -> String {
    let olds: BTreeMap<&str, &TypeDef> = old.types.iter().map(|t| (t.name.as_str(), t)).collect();
    let news: BTreeMap<&str, &TypeDef> = new.types.iter().map(|t| (t.name.as_str(), t)).collect();
    let mut out = String::new();
    let added: Vec<&str> = news
        .keys()
        .filter(|k| !olds.contains_key(*k))
        .copied()
        .collect();
    let removed: Vec<&str> = olds
        .keys()
        .filter(|k| !news.contains_key(*k))
        .copied()
        .collect();
    let _ = writeln!(
        out,
        "types: {} added, {} removed",
        added.len(),
        removed.len()
    );
    for name in &added {
        let _ = writeln!(out, "+ {name} ({})", kind_name(news[name]));
    }
    for name in &removed {
        let _ = writeln!(out, "- {name} ({})", kind_name(olds[name]));
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

fn suffix(v: &str) -> String {
    if v.is_empty() {
        String::new()
    } else {
        format!(": {v}")
    }
}

/// Lower both schemas and report the differences.
pub fn diff(old: &Builder, new: &Builder) -> Result<String> {
    Ok(report(&old.model()?, &new.model()?))
}
