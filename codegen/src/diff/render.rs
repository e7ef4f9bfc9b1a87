//! The changes as a reader gets them: plain text, JSON, or Markdown, breaking changes first.

use super::*;

/// The labels of a change for text reports.
pub(crate) fn tags(breaking: bool, wire: bool) -> &'static str {
    match (breaking, wire) {
        (true, true) => " [breaking, wire-breaking]",
        (true, false) => " [breaking]",
        (false, true) => " [wire-breaking]",
        (false, false) => "",
    }
}

/// A one-line rendering of a change inside a type.
pub(crate) fn line(f: &FieldChange) -> String {
    let part = f.part.as_str();
    let what = if f.field.is_empty() {
        part.to_string()
    } else {
        format!("{part} `{}`", f.field)
    };
    let body = match f.change {
        ChangeKind::Added if f.after.is_empty() || f.part == Part::Value => format!("+ {what}"),
        ChangeKind::Added if f.part == Part::Member => format!("+ {what}"),
        ChangeKind::Added => format!("+ {what}: {}", f.after),
        ChangeKind::Removed
            if f.before.is_empty() || matches!(f.part, Part::Value | Part::Member) =>
        {
            format!("- {what}")
        }
        ChangeKind::Removed => format!("- {what}: {}", f.before),
        ChangeKind::Renamed => format!(
            "> {part} `{}` renamed to `{}`",
            f.from.as_deref().unwrap_or_default(),
            f.field
        ),
        ChangeKind::Changed => format!("~ {what}: {} -> {}", f.before, f.after),
    };
    format!("{body}{}", tags(f.breaking, f.wire_breaking))
}

/// The changes as a text report: a count line, types added, removed and renamed, then each
/// type with changes inside and its changes indented.
pub fn text(changes: &[Change]) -> String {
    let count = |k| changes.iter().filter(|c| c.change == k).count();
    let mut out = String::new();
    let _ = writeln!(
        out,
        "types: {} added, {} removed, {} renamed",
        count(ChangeKind::Added),
        count(ChangeKind::Removed),
        count(ChangeKind::Renamed)
    );
    for c in changes {
        match c.change {
            ChangeKind::Added => {
                let _ = writeln!(out, "+ {} ({})", c.type_name, c.kind);
            }
            ChangeKind::Removed => {
                let _ = writeln!(out, "- {} ({}){}", c.type_name, c.kind, tags(true, true));
            }
            ChangeKind::Renamed => {
                let _ = writeln!(
                    out,
                    "> {} renamed to {} ({}){}",
                    c.from.as_deref().unwrap_or_default(),
                    c.type_name,
                    c.kind,
                    tags(c.breaking, c.wire_breaking)
                );
            }
            ChangeKind::Changed => {}
        }
    }
    let inside: Vec<&Change> = changes.iter().filter(|c| !c.fields.is_empty()).collect();
    let _ = writeln!(out, "types changed: {}", inside.len());
    for c in inside {
        let _ = writeln!(out, "{}{}", c.type_name, tags(c.breaking, c.wire_breaking));
        for f in &c.fields {
            let _ = writeln!(out, "  {}", line(f));
        }
    }
    out
}

/// The changes as a JSON array: `{"change", "type", "from" (renames), "kind", "breaking",
/// "wire_breaking", "fields": [{"change", "part", "field", "from", "before", "after",
/// "breaking", "wire_breaking"}]}`.
pub fn json(changes: &[Change]) -> serde_json::Value {
    let field = |f: &FieldChange| {
        let mut v = serde_json::json!({
            "change": f.change.as_str(),
            "part": f.part.as_str(),
            "field": f.field,
            "breaking": f.breaking,
            "wire_breaking": f.wire_breaking,
        });
        if let Some(from) = &f.from {
            v["from"] = from.as_str().into();
        }
        if !f.before.is_empty() {
            v["before"] = f.before.as_str().into();
        }
        if !f.after.is_empty() {
            v["after"] = f.after.as_str().into();
        }
        v
    };
    changes
        .iter()
        .map(|c| {
            let mut v = serde_json::json!({
                "change": c.change.as_str(),
                "type": c.type_name,
                "kind": c.kind,
                "breaking": c.breaking,
                "wire_breaking": c.wire_breaking,
                "fields": c.fields.iter().map(field).collect::<Vec<_>>(),
            });
            if let Some(from) = &c.from {
                v["from"] = from.as_str().into();
            }
            v
        })
        .collect()
}

/// The changes as release notes in Markdown: what breaks Rust code, what breaks the wire, and
/// what is compatible, one bullet per type with its changes under it.
pub fn markdown(changes: &[Change], old: &str, new: &str) -> String {
    let mut out = format!("## Changes from {old} to {new}\n");
    type Keep = fn(&Change) -> bool;
    let sections: [(&str, Keep); 3] = [
        ("Breaking for Rust code", |c: &Change| c.breaking),
        ("Breaking on the wire only", |c: &Change| {
            !c.breaking && c.wire_breaking
        }),
        ("Compatible", |c: &Change| !c.breaking && !c.wire_breaking),
    ];
    for (title, keep) in sections {
        let picked: Vec<&Change> = changes.iter().filter(|c| keep(c)).collect();
        if picked.is_empty() {
            continue;
        }
        let _ = write!(out, "\n### {title}\n\n");
        for c in picked {
            let head = match c.change {
                ChangeKind::Added => format!("New {} `{}`", c.kind, c.type_name),
                ChangeKind::Removed => format!("Removed {} `{}`", c.kind, c.type_name),
                ChangeKind::Renamed => format!(
                    "`{}` renamed to `{}`",
                    c.from.as_deref().unwrap_or_default(),
                    c.type_name
                ),
                ChangeKind::Changed => format!("`{}`", c.type_name),
            };
            let wire = if c.wire_breaking && c.breaking {
                " (also breaks the wire)"
            } else {
                ""
            };
            let _ = writeln!(out, "- {head}{wire}");
            for f in &c.fields {
                let _ = writeln!(out, "  - {}", line(f).replace(" [", " — ").replace(']', ""));
            }
        }
    }
    out
}

/// Compare two models and write a readable report (the text of [`changes`] with no details and
/// no open unions).
pub fn report(old: &Model, new: &Model) -> String {
    text(&changes(
        old,
        new,
        None,
        &BTreeSet::new(),
        &Options::default(),
    ))
}
