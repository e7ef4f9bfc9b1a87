//! Plans how a union picks its member from a JSON value: by JSON kind, then by discriminator
//! values (`method`, `type`, `resultType`, `mode`), then by distinguishing keys. Never by trial.

use crate::model::Variant;
use std::collections::BTreeSet;

/// How to choose among object members.
#[derive(Debug, Clone, PartialEq)]
pub enum ObjPlan {
    /// Exactly this member.
    One(usize),
    /// Look at the string value of `prop`.
    Tag {
        /// The discriminator property.
        prop: String,
        /// Known values and the plan for each.
        cases: Vec<(String, ObjPlan)>,
        /// Plan when the property is absent; `None` means it is required.
        absent: Option<Box<ObjPlan>>,
        /// Plan for any other value; `None` means an unknown value is an error.
        other: Option<Box<ObjPlan>>,
    },
    /// Choose by keys: each candidate with the key paths it requires and the optional keys only it has.
    Keys(Vec<KeyCandidate>),
}

/// One member in a [`ObjPlan::Keys`] choice.
#[derive(Debug, Clone, PartialEq)]
pub struct KeyCandidate {
    /// The member index.
    pub variant: usize,
    /// Required key paths that tell it apart from some other candidate.
    pub required: Vec<Vec<String>>,
    /// Optional keys that no other candidate declares.
    pub unique: Vec<String>,
}

/// Plan the choice among the object members `candidates` (indices into `variants`).
pub fn plan_objects(variants: &[Variant], candidates: &[usize]) -> Option<ObjPlan> {
    plan(variants, candidates, &BTreeSet::new())
}

fn plan(variants: &[Variant], candidates: &[usize], used: &BTreeSet<String>) -> Option<ObjPlan> {
    match candidates {
        [] => return None,
        [one] => return Some(ObjPlan::One(*one)),
        _ => {}
    }
    // The discriminator: the property whose constants split the candidates into the most groups
    // (then: that the most candidates fix). A property every candidate fixes to the same value
    // (`jsonrpc: "2.0"`) splits nothing and is left to the members to check.
    let mut best: Option<(String, (usize, usize))> = None;
    for &i in candidates {
        for (prop, values, _) in &variants[i].shape.tags {
            if values.len() != 1 || used.contains(prop) {
                continue;
            }
            let mut groups = BTreeSet::new();
            let mut count = 0;
            let mut untagged = false;
            for &j in candidates {
                match variants[j].shape.tags.iter().find(|(p, _, _)| p == prop) {
                    Some((_, vs, _)) => {
                        groups.extend(vs.iter().cloned());
                        if vs.len() == 1 {
                            count += 1;
                        }
                    }
                    None => untagged = true,
                }
            }
            let score = (groups.len() + usize::from(untagged), count);
            if score.0 < 2 {
                continue;
            }
            if best.as_ref().is_none_or(|(_, s)| score > *s) {
                best = Some((prop.clone(), score));
            }
        }
    }
    let Some((prop, _)) = best else {
        return Some(keys(variants, candidates));
    };
    let mut cases: Vec<(String, Vec<usize>)> = Vec::new();
    let mut untagged = Vec::new();
    let mut absent = Vec::new();
    // Constants win over enums: an open enum (`resultType: ResultType`) that also lists another
    // member's constant (`input_required`) does not claim that value, and takes unknown values.
    let constants: BTreeSet<&String> = candidates
        .iter()
        .flat_map(|&i| variants[i].shape.tags.iter())
        .filter(|(p, vs, _)| *p == prop && vs.len() == 1)
        .map(|(_, vs, _)| &vs[0])
        .collect();
    for &i in candidates {
        match variants[i].shape.tags.iter().find(|(p, _, _)| *p == prop) {
            Some((_, values, required)) => {
                let is_enum = values.len() > 1;
                if is_enum {
                    untagged.push(i);
                }
                for v in values.iter().filter(|v| !is_enum || !constants.contains(v)) {
                    match cases.iter_mut().find(|(cv, _)| cv == v) {
                        Some((_, members)) => members.push(i),
                        None => cases.push((v.clone(), vec![i])),
                    }
                }
                if !required {
                    absent.push(i);
                }
            }
            None => {
                untagged.push(i);
                if !variants[i].shape.required.contains(&vec![prop.clone()]) {
                    absent.push(i);
                }
            }
        }
    }
    let mut used = used.clone();
    used.insert(prop.clone());
    let cases = cases
        .into_iter()
        .filter_map(|(v, members)| plan(variants, &members, &used).map(|p| (v, p)))
        .collect();
    let absent = plan(variants, &absent, &used).map(Box::new);
    let other = plan(variants, &untagged, &used).map(Box::new);
    Some(ObjPlan::Tag {
        prop,
        cases,
        absent,
        other,
    })
}

fn keys(variants: &[Variant], candidates: &[usize]) -> ObjPlan {
    let mut out = Vec::new();
    for &i in candidates {
        let shape = &variants[i].shape;
        let others: Vec<usize> = candidates.iter().copied().filter(|&j| j != i).collect();
        let declared_by = |j: usize, path: &[String]| -> bool {
            let s = &variants[j].shape;
            match path {
                [p] => s.props.contains(p),
                _ => s.nested.contains(path),
            }
        };
        let required = shape
            .required
            .iter()
            .filter(|path| others.iter().any(|&j| !declared_by(j, path)))
            .cloned()
            .collect();
        let unique = shape
            .props
            .iter()
            .filter(|p| !shape.required.contains(&vec![(*p).clone()]))
            .filter(|p| {
                others
                    .iter()
                    .all(|&j| !variants[j].shape.props.contains(*p))
            })
            .cloned()
            .collect();
        out.push(KeyCandidate {
            variant: i,
            required,
            unique,
        });
    }
    ObjPlan::Keys(out)
}
