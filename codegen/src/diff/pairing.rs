//! Which type of the old version each type of the new one is: by name, else by the likeness of
//! their names and shapes, so a renamed type is compared rather than reported gone and new.

use super::*;

/// One side of the comparison: its types by name.
pub(crate) struct Side<'a> {
    pub(crate) types: BTreeMap<&'a str, &'a TypeDef>,
}

impl<'a> Side<'a> {
    pub(crate) fn new(model: &'a Model) -> Self {
        Side {
            types: model.types.iter().map(|t| (t.name.as_str(), t)).collect(),
        }
    }

    pub(crate) fn is_inline(&self, name: &str) -> bool {
        self.types
            .get(name)
            .is_some_and(|t| t.schema_name.is_none())
    }

    /// `ty` as text, with inline types replaced by their own shape (so their names do not count)
    /// and other names passed through `rename` (the older side's names mapped to the newer's).
    pub(crate) fn describe(
        &self,
        ty: &Ty,
        rename: &dyn Fn(&str) -> String,
        depth: usize,
    ) -> String {
        match ty {
            Ty::Named(n) if self.is_inline(n) && depth < 6 => {
                format!(
                    "{{{}}}",
                    self.shape(self.types[n.as_str()], rename, depth + 1)
                )
            }
            Ty::Named(n) => rename(n),
            Ty::Vec(t) => format!("[{}]", self.describe(t, rename, depth)),
            Ty::Map(t) => format!("{{string: {}}}", self.describe(t, rename, depth)),
            other => other.describe(),
        }
    }

    /// A type's shape, its name left out.
    pub(crate) fn shape(
        &self,
        t: &TypeDef,
        rename: &dyn Fn(&str) -> String,
        depth: usize,
    ) -> String {
        match &t.kind {
            Kind::Struct { fields, extra } => {
                let mut parts: Vec<String> = fields
                    .iter()
                    .map(|f| {
                        format!(
                            "{}{}:{}",
                            f.json_name,
                            if f.required { "" } else { "?" },
                            self.describe(&f.ty, rename, depth)
                        )
                    })
                    .collect();
                parts.sort();
                let extra = extra
                    .as_ref()
                    .map(|e| format!(",..{}", self.describe(e, rename, depth)))
                    .unwrap_or_default();
                format!("object({}{extra})", parts.join(","))
            }
            Kind::Union(vs) => {
                let mut parts: Vec<String> = vs
                    .iter()
                    .map(|v| self.describe(&v.ty, rename, depth))
                    .collect();
                parts.sort();
                format!("union({})", parts.join("|"))
            }
            Kind::StringEnum(values) => format!("enum({})", values.join("|")),
            Kind::Const(v) => format!("const({v})"),
            Kind::Alias(ty) => format!("alias({})", self.describe(ty, rename, depth)),
        }
    }
}

/// Pairs of types that are the same type in both versions: same name, or renamed.
#[derive(Default)]
pub(crate) struct Pairing {
    /// Older name -> newer name, for every paired type (renamed or not).
    pub(crate) old_to_new: BTreeMap<String, String>,
    /// Newer names that are paired.
    pub(crate) paired_new: BTreeSet<String>,
    /// The renames of schema (`$defs`) types, in the order found.
    pub(crate) renames: Vec<(String, String)>,
}

impl Pairing {
    pub(crate) fn pair(&mut self, old: &str, new: &str) -> bool {
        if self.old_to_new.contains_key(old) || self.paired_new.contains(new) {
            return false;
        }
        self.old_to_new.insert(old.into(), new.into());
        self.paired_new.insert(new.into());
        true
    }

    pub(crate) fn map(&self, old: &str) -> String {
        self.old_to_new
            .get(old)
            .cloned()
            .unwrap_or_else(|| old.to_string())
    }
}

/// The length of the common prefix plus the common suffix of two names, to choose between
/// renames of equal shape.
pub(crate) fn likeness(a: &str, b: &str) -> usize {
    let prefix = a.bytes().zip(b.bytes()).take_while(|(x, y)| x == y).count();
    let suffix = a
        .bytes()
        .rev()
        .zip(b.bytes().rev())
        .take_while(|(x, y)| x == y)
        .count();
    prefix + suffix
}

/// Pair the two models' types: by name, then renamed schema types by shape (repeated until no
/// new rename is found, so renames that refer to each other are found), then the inline types
/// under each pair by the field or member they belong to.
pub(crate) fn pair(old: &Side, new: &Side) -> Pairing {
    let mut p = Pairing::default();
    for name in old.types.keys() {
        if new.types.contains_key(name) {
            p.pair(name, name);
        }
    }
    loop {
        let removed: Vec<&str> = old
            .types
            .iter()
            .filter(|(n, t)| t.schema_name.is_some() && !p.old_to_new.contains_key(**n))
            .map(|(n, _)| *n)
            .collect();
        let added: Vec<&str> = new
            .types
            .iter()
            .filter(|(n, t)| t.schema_name.is_some() && !p.paired_new.contains(**n))
            .map(|(n, _)| *n)
            .collect();
        let mut found = false;
        for r in removed {
            let map = |n: &str| p.map(n);
            let shape = old.shape(old.types[r], &map, 0);
            let same: Vec<&str> = added
                .iter()
                .filter(|a| !p.paired_new.contains(**a))
                .filter(|a| new.shape(new.types[**a], &|n: &str| n.to_string(), 0) == shape)
                .copied()
                .collect();
            if let Some(a) = same.iter().max_by_key(|a| likeness(r, a)) {
                let a = a.to_string();
                if p.pair(r, &a) {
                    p.renames.push((r.to_string(), a));
                    found = true;
                }
            }
        }
        if !found {
            break;
        }
    }
    // Inline types follow the type (and the field or member) they belong to.
    let mut queue: Vec<(String, String)> = p
        .old_to_new
        .iter()
        .map(|(a, b)| (a.clone(), b.clone()))
        .collect();
    while let Some((o, n)) = queue.pop() {
        let (Some(ot), Some(nt)) = (old.types.get(o.as_str()), new.types.get(n.as_str())) else {
            continue;
        };
        let mut children: Vec<(&Ty, &Ty)> = Vec::new();
        match (&ot.kind, &nt.kind) {
            (Kind::Struct { fields: of, .. }, Kind::Struct { fields: nf, .. }) => {
                for f in of {
                    if let Some(g) = nf.iter().find(|g| g.json_name == f.json_name) {
                        children.push((&f.ty, &g.ty));
                    }
                }
                // A field renamed (the only one removed and the only one added) keeps its child.
                let gone: Vec<_> = of
                    .iter()
                    .filter(|f| !nf.iter().any(|g| g.json_name == f.json_name))
                    .collect();
                let came: Vec<_> = nf
                    .iter()
                    .filter(|g| !of.iter().any(|f| f.json_name == g.json_name))
                    .collect();
                if let ([f], [g]) = (gone.as_slice(), came.as_slice()) {
                    children.push((&f.ty, &g.ty));
                }
            }
            (Kind::Union(ov), Kind::Union(nv)) if ov.len() == nv.len() => {
                children.extend(ov.iter().zip(nv).map(|(a, b)| (&a.ty, &b.ty)));
            }
            (Kind::Alias(a), Kind::Alias(b)) => children.push((a, b)),
            _ => {}
        }
        for (a, b) in children {
            let (Some(a), Some(b)) = (inner_name(a), inner_name(b)) else {
                continue;
            };
            if old.is_inline(a) && new.is_inline(b) && p.pair(a, b) {
                queue.push((a.to_string(), b.to_string()));
            }
        }
    }
    p
}
