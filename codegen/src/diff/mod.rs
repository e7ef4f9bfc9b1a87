//! `oxmcp-codegen diff`: what changed between two schema versions, as a maintainer reads it when
//! the spec updates, and as release notes read it: types added, removed and renamed, per type the
//! fields, members and values added, removed, renamed and changed, and for each change whether it
//! breaks Rust code using the bindings and whether it breaks the wire (a message one side writes
//! that the other cannot read).
//!
//! Renames are found by structure: a type removed and a type added with the same shape are one
//! rename, where the shape ignores the names of the generated inline types under it (so a renamed
//! type whose inline children were renamed with it is still one rename) and follows renames found
//! before (so two renamed types that refer to each other are both found). Inside a type, one
//! removed and one added field of the same type and requiredness are a field rename.

use crate::error::Result;
use crate::model::{Field, Kind, Model, Ty, TypeDef, Variant};
use crate::Builder;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write;

/// What happened to a type, a field, a member or a value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum ChangeKind {
    /// New in the newer version.
    Added,
    /// Gone from the newer version.
    Removed,
    /// The same shape under a new name.
    Renamed,
    /// Present in both, different.
    Changed,
}

impl ChangeKind {
    /// The word used in reports and JSON.
    pub fn as_str(self) -> &'static str {
        match self {
            ChangeKind::Added => "added",
            ChangeKind::Removed => "removed",
            ChangeKind::Renamed => "renamed",
            ChangeKind::Changed => "changed",
        }
    }
}

/// What part of a type a [`FieldChange`] is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Part {
    /// A property of an object.
    Field,
    /// A member of a union.
    Member,
    /// A value of a string enum.
    Value,
    /// The type's representation itself (object, union, alias, constant).
    Kind,
    /// Whether an object keeps unknown properties.
    Extra,
    /// A description (reported with [`Options::details`]).
    Description,
    /// A validation keyword (reported with [`Options::details`]).
    Constraint,
}

impl Part {
    /// The word used in reports and JSON.
    pub fn as_str(self) -> &'static str {
        match self {
            Part::Field => "field",
            Part::Member => "member",
            Part::Value => "value",
            Part::Kind => "kind",
            Part::Extra => "extra",
            Part::Description => "description",
            Part::Constraint => "constraint",
        }
    }
}

/// One change inside a type.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldChange {
    /// Added, removed, renamed or changed.
    pub change: ChangeKind,
    /// What kind of item changed.
    pub part: Part,
    /// The item's name in the newer version (the older one's when removed): a field's wire
    /// name, a member's type, a value, a constraint keyword.
    pub field: String,
    /// The item's older name, for renames.
    pub from: Option<String>,
    /// The item as it was (empty when added).
    pub before: String,
    /// The item as it is (empty when removed).
    pub after: String,
    /// Whether Rust code using the older bindings may stop compiling or change meaning.
    pub breaking: bool,
    /// Whether a peer on one version may send a message the other cannot read.
    pub wire_breaking: bool,
}

/// One type's change.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Change {
    /// Added, removed, renamed or changed (a renamed type may also have field changes).
    pub change: ChangeKind,
    /// The type's name in the newer version (the older one's when removed).
    pub type_name: String,
    /// The older name, for renames.
    pub from: Option<String>,
    /// What the type is: object, union, string enum, alias, constant.
    pub kind: String,
    /// Whether Rust code using the older bindings may stop compiling.
    pub breaking: bool,
    /// Whether a message valid in one version may be unreadable in the other.
    pub wire_breaking: bool,
    /// What changed inside the type.
    pub fields: Vec<FieldChange>,
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

/// A short description of a type's representation.
fn kind_name(t: &TypeDef) -> String {
    match &t.kind {
        Kind::Struct { .. } => "object".into(),
        Kind::Alias(ty) => format!("alias of {}", ty.describe()),
        Kind::StringEnum(_) => "string enum".into(),
        Kind::Const(v) => format!("constant `{v}`"),
        Kind::Union(_) => "union".into(),
    }
}

mod pairing;
use pairing::*;
mod render;
pub use render::{json, markdown, report, text};

/// The generated type a type expression names, through vectors and maps.
fn inner_name(ty: &Ty) -> Option<&str> {
    match ty {
        Ty::Named(n) => Some(n),
        Ty::Vec(t) | Ty::Map(t) => inner_name(t),
        _ => None,
    }
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

/// Everything a comparison needs.
struct Compare<'a> {
    old: Side<'a>,
    new: Side<'a>,
    pairing: Pairing,
    open: BTreeSet<String>,
    old_defs: BTreeMap<String, serde_json::Value>,
    new_defs: BTreeMap<String, serde_json::Value>,
    options: &'a Options,
}

/// A field change with everything but its labels filled in.
fn item(part: Part, change: ChangeKind, field: &str, before: String, after: String) -> FieldChange {
    FieldChange {
        change,
        part,
        field: field.to_string(),
        from: None,
        before,
        after,
        breaking: false,
        wire_breaking: false,
    }
}

impl Compare<'_> {
    /// An older type expression in the newer names.
    fn old_ty(&self, ty: &Ty) -> String {
        self.old.describe(ty, &|n: &str| self.pairing.map(n), 0)
    }

    fn new_ty(&self, ty: &Ty) -> String {
        self.new.describe(ty, &|n: &str| n.to_string(), 0)
    }

    /// What changed inside a paired type.
    fn inside(&self, o: &TypeDef, n: &TypeDef) -> Vec<FieldChange> {
        let mut out = Vec::new();
        match (&o.kind, &n.kind) {
            (
                Kind::Struct {
                    fields: of,
                    extra: oe,
                },
                Kind::Struct {
                    fields: nf,
                    extra: ne,
                },
            ) => self.struct_changes((of, oe.is_some()), (nf, ne.is_some()), &mut out),
            (Kind::Union(ov), Kind::Union(nv)) => self.union_changes(ov, nv, &n.name, &mut out),
            (Kind::StringEnum(ov), Kind::StringEnum(nv)) => {
                for v in nv.iter().filter(|v| !ov.contains(v)) {
                    // non_exhaustive, and unknown values are kept in `Other` on both sides.
                    out.push(item(
                        Part::Value,
                        ChangeKind::Added,
                        v,
                        String::new(),
                        v.clone(),
                    ));
                }
                for v in ov.iter().filter(|v| !nv.contains(v)) {
                    let mut c = item(
                        Part::Value,
                        ChangeKind::Removed,
                        v,
                        v.clone(),
                        String::new(),
                    );
                    c.breaking = true;
                    out.push(c);
                }
            }
            (Kind::Const(a), Kind::Const(b)) if a != b => {
                let mut c = item(
                    Part::Kind,
                    ChangeKind::Changed,
                    "constant",
                    a.clone(),
                    b.clone(),
                );
                c.breaking = true;
                c.wire_breaking = true;
                out.push(c);
            }
            (Kind::Alias(a), Kind::Alias(b)) if self.old_ty(a) != self.new_ty(b) => {
                let mut c = item(
                    Part::Kind,
                    ChangeKind::Changed,
                    "alias",
                    self.old_ty(a),
                    self.new_ty(b),
                );
                c.breaking = true;
                c.wire_breaking = true;
                out.push(c);
            }
            (a, b) if std::mem::discriminant(a) != std::mem::discriminant(b) => {
                let mut c = item(
                    Part::Kind,
                    ChangeKind::Changed,
                    "kind",
                    kind_name(o),
                    kind_name(n),
                );
                c.breaking = true;
                c.wire_breaking = true;
                out.push(c);
            }
            _ => {}
        }
        if self.options.details {
            self.details(o, n, &mut out);
        }
        out
    }

    /// What changed between two structs, each its fields and whether it keeps unknown
    /// properties: fields renamed, removed, added or changed, and the unknown properties.
    fn struct_changes(
        &self,
        (of, oe): (&[Field], bool),
        (nf, ne): (&[Field], bool),
        out: &mut Vec<FieldChange>,
    ) {
        let mut gone: Vec<_> = of
            .iter()
            .filter(|f| !nf.iter().any(|g| g.json_name == f.json_name))
            .collect();
        let mut came: Vec<_> = nf
            .iter()
            .filter(|g| !of.iter().any(|f| f.json_name == g.json_name))
            .collect();
        let renames = self.field_renames(&gone, &came);
        for (from, to) in &renames {
            let g = nf.iter().find(|g| &g.json_name == to);
            let ty = g.map(|g| self.new_ty(&g.ty)).unwrap_or_default();
            let mut c = item(Part::Field, ChangeKind::Renamed, to, ty.clone(), ty);
            c.from = Some(from.clone());
            c.breaking = true;
            c.wire_breaking = true;
            out.push(c);
        }
        gone.retain(|f| !renames.iter().any(|(a, _)| *a == f.json_name));
        came.retain(|g| !renames.iter().any(|(_, b)| *b == g.json_name));
        for f in gone {
            let mut c = item(
                Part::Field,
                ChangeKind::Removed,
                &f.json_name,
                field_text(&self.old_ty(&f.ty), f.required),
                String::new(),
            );
            c.breaking = true;
            // An older reader needs a required field the newer writer no longer sends.
            c.wire_breaking = f.required;
            out.push(c);
        }
        for g in came {
            let mut c = item(
                Part::Field,
                ChangeKind::Added,
                &g.json_name,
                String::new(),
                field_text(&self.new_ty(&g.ty), g.required),
            );
            // A required field changes the constructor and is missing from what an
            // older peer sends; an optional one is neither.
            c.breaking = g.required;
            c.wire_breaking = g.required;
            out.push(c);
        }
        for f in of {
            let Some(g) = nf.iter().find(|g| g.json_name == f.json_name) else {
                continue;
            };
            let (a, b) = (
                field_text(&self.old_ty(&f.ty), f.required),
                field_text(&self.new_ty(&g.ty), g.required),
            );
            if a != b {
                let mut c = item(Part::Field, ChangeKind::Changed, &g.json_name, a, b);
                // A new type, or a field becoming required or optional, changes the
                // Rust type; on the wire, either side may now write what the other
                // refuses (a value of the other type, or no value where one is needed).
                c.breaking = true;
                c.wire_breaking = true;
                out.push(c);
            }
        }
        match (oe, ne) {
            (true, false) => {
                let mut c = item(
                    Part::Extra,
                    ChangeKind::Removed,
                    "additional properties",
                    "kept".into(),
                    "refused".into(),
                );
                c.breaking = true;
                c.wire_breaking = true;
                out.push(c);
            }
            (false, true) => {
                let mut c = item(
                    Part::Extra,
                    ChangeKind::Added,
                    "additional properties",
                    "refused".into(),
                    "kept".into(),
                );
                c.breaking = true;
                out.push(c);
            }
            _ => {}
        }
    }

    /// Field renames among the fields `gone` and those that `came`: a removed and an added
    /// field of the same type and requiredness, when neither has another candidate; among
    /// several, the one whose description came along.
    fn field_renames(&self, gone: &[&Field], came: &[&Field]) -> Vec<(String, String)> {
        let same = |f: &Field, g: &Field| {
            f.required == g.required && self.old_ty(&f.ty) == self.new_ty(&g.ty)
        };
        let best = |c: Vec<&Field>, f: &Field| match c.as_slice() {
            [one] => Some(one.json_name.clone()),
            many => {
                let doc: Vec<_> = many.iter().filter(|g| g.doc == f.doc).collect();
                match doc.as_slice() {
                    [one] if f.doc.is_some() => Some(one.json_name.clone()),
                    _ => None,
                }
            }
        };
        gone.iter()
            .filter_map(|f| {
                let to = best(came.iter().copied().filter(|g| same(f, g)).collect(), f)?;
                let g = came.iter().find(|g| g.json_name == to)?;
                let back = best(gone.iter().copied().filter(|h| same(h, g)).collect(), g)?;
                (back == f.json_name).then(|| (f.json_name.clone(), to))
            })
            .collect()
    }

    /// What changed between two unions' members (by their types): members added or removed.
    fn union_changes(
        &self,
        ov: &[Variant],
        nv: &[Variant],
        name: &str,
        out: &mut Vec<FieldChange>,
    ) {
        let olds: BTreeSet<String> = ov.iter().map(|v| self.old_ty(&v.ty)).collect();
        let news: BTreeSet<String> = nv.iter().map(|v| self.new_ty(&v.ty)).collect();
        for m in news.difference(&olds) {
            let mut c = item(Part::Member, ChangeKind::Added, m, String::new(), m.clone());
            // The enums are non_exhaustive, so Rust code is unaffected; an older
            // reader refuses the new member unless the union is open.
            c.wire_breaking = !self.open.contains(name);
            out.push(c);
        }
        for m in olds.difference(&news) {
            let mut c = item(
                Part::Member,
                ChangeKind::Removed,
                m,
                m.clone(),
                String::new(),
            );
            c.breaking = true;
            c.wire_breaking = !self.open.contains(name);
            out.push(c);
        }
    }

    /// Descriptions and constraints (with [`Options::details`]): a constraint added or
    /// tightened may refuse what an older peer sends, so it counts as breaking the wire.
    fn details(&self, o: &TypeDef, n: &TypeDef, out: &mut Vec<FieldChange>) {
        if o.doc != n.doc {
            out.push(item(
                Part::Description,
                ChangeKind::Changed,
                "",
                gist(o.doc.as_ref()),
                gist(n.doc.as_ref()),
            ));
        }
        if let (Kind::Struct { fields: of, .. }, Kind::Struct { fields: nf, .. }) =
            (&o.kind, &n.kind)
        {
            for f in nf {
                if let Some(g) = of.iter().find(|g| g.json_name == f.json_name) {
                    if g.doc != f.doc {
                        out.push(item(
                            Part::Description,
                            ChangeKind::Changed,
                            &f.json_name,
                            gist(g.doc.as_ref()),
                            gist(f.doc.as_ref()),
                        ));
                    }
                }
            }
        }
        let (Some(on), Some(nn)) = (&o.schema_name, &n.schema_name) else {
            return;
        };
        let (oc, nc) = (
            constraints(self.old_defs.get(on)),
            constraints(self.new_defs.get(nn)),
        );
        let label = |(prop, key): &(String, String)| {
            if prop.is_empty() {
                key.clone()
            } else {
                format!("{prop}.{key}")
            }
        };
        for (key, v) in &nc {
            match oc.get(key) {
                None => {
                    let mut c = item(
                        Part::Constraint,
                        ChangeKind::Added,
                        &label(key),
                        String::new(),
                        v.clone(),
                    );
                    c.wire_breaking = key.1 != "default";
                    out.push(c);
                }
                Some(ov) if ov != v => {
                    let mut c = item(
                        Part::Constraint,
                        ChangeKind::Changed,
                        &label(key),
                        ov.clone(),
                        v.clone(),
                    );
                    c.wire_breaking = key.1 != "default";
                    out.push(c);
                }
                _ => {}
            }
        }
        for (key, v) in &oc {
            if !nc.contains_key(key) {
                out.push(item(
                    Part::Constraint,
                    ChangeKind::Removed,
                    &label(key),
                    v.clone(),
                    String::new(),
                ));
            }
        }
    }

    fn run(&self) -> Vec<Change> {
        let mut out = Vec::new();
        for (name, t) in &self.new.types {
            if !self.pairing.paired_new.contains(*name) {
                out.push(Change {
                    change: ChangeKind::Added,
                    type_name: name.to_string(),
                    from: None,
                    kind: kind_name(t),
                    breaking: false,
                    wire_breaking: false,
                    fields: Vec::new(),
                });
            }
        }
        for (name, t) in &self.old.types {
            if !self.pairing.old_to_new.contains_key(*name) {
                out.push(Change {
                    change: ChangeKind::Removed,
                    type_name: name.to_string(),
                    from: None,
                    kind: kind_name(t),
                    breaking: true,
                    // An older peer may still send it.
                    wire_breaking: true,
                    fields: Vec::new(),
                });
            }
        }
        for (o, n) in &self.pairing.old_to_new {
            let (ot, nt) = (self.old.types[o.as_str()], self.new.types[n.as_str()]);
            let fields = self.inside(ot, nt);
            let renamed = self.pairing.renames.iter().any(|(a, _)| a == o);
            if fields.is_empty() && !renamed {
                continue;
            }
            out.push(Change {
                change: if renamed {
                    ChangeKind::Renamed
                } else {
                    ChangeKind::Changed
                },
                type_name: n.clone(),
                from: renamed.then(|| o.clone()),
                kind: kind_name(nt),
                // Names are not on the wire: a rename alone breaks Rust code only.
                breaking: renamed || fields.iter().any(|f| f.breaking),
                wire_breaking: fields.iter().any(|f| f.wire_breaking),
                fields,
            });
        }
        out.sort_by(|a, b| (a.change, &a.type_name).cmp(&(b.change, &b.type_name)));
        out
    }
}

fn field_text(ty: &str, required: bool) -> String {
    if required {
        format!("{ty} (required)")
    } else {
        format!("{ty} (optional)")
    }
}

/// The changes between two models (and, for details, the schemas they came from); `open`
/// names the unions that keep members they do not know (see [`crate::Builder::open_union`]),
/// which a new member does not break on the wire.
pub fn changes(
    old: &Model,
    new: &Model,
    schemas: Option<(&serde_json::Value, &serde_json::Value)>,
    open: &BTreeSet<String>,
    options: &Options,
) -> Vec<Change> {
    let (o, n) = (Side::new(old), Side::new(new));
    let pairing = pair(&o, &n);
    Compare {
        old: o,
        new: n,
        pairing,
        open: open.clone(),
        old_defs: defs_of(schemas.map(|s| s.0)),
        new_defs: defs_of(schemas.map(|s| s.1)),
        options,
    }
    .run()
}

/// Lower both schemas and list the changes, with the details `options` asks for; the unions
/// open by default ([`crate::DEFAULT_OPEN_UNIONS`]) count as open.
pub fn diff_changes(old: &Builder, new: &Builder, options: &Options) -> Result<Vec<Change>> {
    let (old_schema, new_schema) = (old.schema_json()?, new.schema_json()?);
    let open = crate::DEFAULT_OPEN_UNIONS
        .iter()
        .map(|s| s.to_string())
        .collect();
    Ok(changes(
        &old.model()?,
        &new.model()?,
        Some((&old_schema, &new_schema)),
        &open,
        options,
    ))
}

/// Lower both schemas and report the differences as text.
pub fn diff(old: &Builder, new: &Builder) -> Result<String> {
    diff_with(old, new, &Options::default())
}

/// Lower both schemas and report the differences as text, with the details `options` asks for.
pub fn diff_with(old: &Builder, new: &Builder, options: &Options) -> Result<String> {
    Ok(text(&diff_changes(old, new, options)?))
}
