//! Which fields and union members hold their value in a `Box`: those whose type can contain the
//! type that holds them (a cycle needs the indirection), and those whose type would be large
//! inline.

use crate::model::{Kind, Model, Ty};
use std::collections::{BTreeSet, HashMap};

/// Mark the boxes of `model`: cycles first, then large values (whose sizes count a boxed
/// cycle as a pointer).
pub(crate) fn mark(model: &mut Model) {
    box_cycles(model);
    box_large(model);
}

/// Edges from a type to the named types it contains without indirection (`Vec` and maps are indirection).
fn direct_refs(kind: &Kind) -> Vec<String> {
    let mut out = Vec::new();
    let mut add = |ty: &Ty| {
        if let Ty::Named(n) = ty {
            out.push(n.clone());
        }
    };
    match kind {
        Kind::Struct { fields, .. } => fields.iter().for_each(|f| add(&f.ty)),
        Kind::Alias(ty) => add(ty),
        Kind::Union(vs) => vs.iter().for_each(|v| add(&v.ty)),
        Kind::StringEnum(_) | Kind::Const(_) => {}
    }
    out
}

/// Box every field or variant whose type can contain the type that holds it.
fn box_cycles(model: &mut Model) {
    let edges: HashMap<String, Vec<String>> = model
        .types
        .iter()
        .map(|t| (t.name.clone(), direct_refs(&t.kind)))
        .collect();
    let reaches = |from: &str, to: &str| -> bool {
        let mut stack = vec![from.to_string()];
        let mut seen = BTreeSet::new();
        while let Some(n) = stack.pop() {
            if n == to {
                return true;
            }
            if seen.insert(n.clone()) {
                if let Some(next) = edges.get(&n) {
                    stack.extend(next.iter().cloned());
                }
            }
        }
        false
    };
    for t in &mut model.types {
        let owner = t.name.clone();
        match &mut t.kind {
            Kind::Struct { fields, .. } => {
                for f in fields {
                    if let Ty::Named(n) = &f.ty {
                        f.boxed = reaches(n, &owner);
                    }
                }
            }
            Kind::Union(vs) => {
                for v in vs {
                    if let Ty::Named(n) = &v.ty {
                        v.boxed = reaches(n, &owner);
                    }
                }
            }
            _ => {}
        }
    }
}

/// The estimated size in bytes above which a struct field or union member holds its value in a
/// `Box`.
///
/// Every generated struct keeps its unknown properties in an insertion-ordered map (72 bytes
/// inline, empty or not), so nesting adds up: a 2026 request's `_meta` alone would be over a
/// kilobyte inside every request, and each move of a request (out of the parser, into a handler's
/// future) would copy it. Boxing the fields whose type is this large keeps every value small to
/// move, at one allocation for a value that is there.
const BOX_ABOVE: usize = 768;

/// Box every struct field and union member whose type is estimated larger than [`BOX_ABOVE`]
/// bytes, deciding the innermost types first (a type whose own large fields are boxed may then
/// be small enough to hold inline).
fn box_large(model: &mut Model) {
    let mut sizer = Sizer {
        model,
        index: model
            .types
            .iter()
            .enumerate()
            .map(|(i, t)| (t.name.as_str(), i))
            .collect(),
        sizes: HashMap::new(),
        open: BTreeSet::new(),
        boxed: BTreeSet::new(),
    };
    for i in 0..model.types.len() {
        sizer.type_size(i);
    }
    let boxed = sizer.boxed;
    for (t, member) in boxed {
        match &mut model.types[t].kind {
            Kind::Struct { fields, .. } => fields[member].boxed = true,
            Kind::Union(variants) => variants[member].boxed = true,
            _ => {}
        }
    }
}

/// Estimates the inline size of the model's types, deciding on the way which members to box.
struct Sizer<'m> {
    model: &'m Model,
    /// Each type's position in `model.types`, by name.
    index: HashMap<&'m str, usize>,
    /// The sizes estimated so far, by position.
    sizes: HashMap<usize, usize>,
    /// The types being sized (a type met again through an unboxed member is counted as a
    /// pointer; cycles are boxed before sizing, so none is expected).
    open: BTreeSet<usize>,
    /// The members to box: the type's position and the field's or member's.
    boxed: BTreeSet<(usize, usize)>,
}

impl Sizer<'_> {
    /// The estimated size of `ty` held inline.
    fn ty_size(&mut self, ty: &Ty) -> usize {
        match ty {
            Ty::Null => 0,
            Ty::Bool => 1,
            Ty::Integer => 8,
            Ty::Number => 16,
            Ty::String | Ty::Vec(_) => 24,
            Ty::Any | Ty::Map(_) | Ty::Path(_) => 72,
            Ty::Named(n) => match self.index.get(n.as_str()) {
                Some(&i) => self.type_size(i),
                None => 72,
            },
        }
    }

    /// The size member `member` of type `owner` (of type `ty`, boxed already or not) takes
    /// inline, boxing it when its type is a large named one.
    fn member_size(&mut self, owner: usize, member: usize, ty: &Ty, boxed: bool) -> usize {
        if boxed {
            return 8;
        }
        let inner = self.ty_size(ty);
        if matches!(ty, Ty::Named(_)) && inner > BOX_ABOVE {
            self.boxed.insert((owner, member));
            return 8;
        }
        inner
    }

    /// The estimated size of the type at `i`, deciding which of its members are boxed.
    fn type_size(&mut self, i: usize) -> usize {
        if let Some(&size) = self.sizes.get(&i) {
            return size;
        }
        if !self.open.insert(i) {
            return 8;
        }
        let model = self.model;
        let size = match &model.types[i].kind {
            Kind::Struct { fields, extra } => {
                let mut size = if extra.is_some() { 72 } else { 0 };
                for (f, field) in fields.iter().enumerate() {
                    let inner = self.member_size(i, f, &field.ty, field.boxed);
                    // Only an optional integer needs a tag: strings, vectors, maps and the
                    // structs and enums made of them have a niche for `None`.
                    let tag = !field.required && matches!(field.ty, Ty::Integer);
                    size += inner.div_ceil(8) * 8 + if tag { 8 } else { 0 };
                }
                size
            }
            Kind::Alias(ty) => self.ty_size(ty),
            Kind::StringEnum(_) => 24,
            Kind::Const(_) => 0,
            Kind::Union(variants) => {
                let mut largest = 0;
                for (m, v) in variants.iter().enumerate() {
                    largest = largest.max(self.member_size(i, m, &v.ty, v.boxed));
                }
                largest + 8
            }
        };
        self.open.remove(&i);
        self.sizes.insert(i, size);
        size
    }
}
