//! Shared helpers for the workspace-level tests: where the spec data lives and how to read it.

use std::path::PathBuf;

/// The folder holding `<version>/schema.json` and the 2026-07-28 examples: the repository's own
/// `schema/` (nothing outside the repository is read).
pub fn spec_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join("schema")
}

/// Every example of 2026-07-28 as (type name, file name, JSON), sorted by type then file.
pub fn examples() -> Vec<(String, String, serde_json::Value)> {
    let root = spec_dir().join("2026-07-28").join("examples");
    let mut out = Vec::new();
    let dirs = std::fs::read_dir(&root).unwrap_or_else(|e| panic!("{}: {e}", root.display()));
    for dir in dirs.flatten() {
        let type_name = dir.file_name().to_string_lossy().into_owned();
        for file in std::fs::read_dir(dir.path())
            .into_iter()
            .flatten()
            .flatten()
        {
            let name = file.file_name().to_string_lossy().into_owned();
            if !name.ends_with(".json") {
                continue;
            }
            let text = std::fs::read_to_string(file.path())
                .unwrap_or_else(|e| panic!("{}: {e}", file.path().display()));
            let value = serde_json::from_str(&text)
                .unwrap_or_else(|e| panic!("{}: {e}", file.path().display()));
            out.push((type_name.clone(), name, value));
        }
    }
    out.sort_by(|a, b| (&a.0, &a.1).cmp(&(&b.0, &b.1)));
    out
}

pub mod conformance;
pub mod oauth_server;
#[cfg(feature = "otel")]
pub mod otlp;
pub mod support;
pub mod typed_tools;

/// Worker threads of the fixture server's runtime unless `--threads` says otherwise: one fewer
/// than the machine's cores, at least one, because the fixture runs beside its clients on the
/// same host (see `conformance-server`).
pub fn fixture_threads() -> usize {
    std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .saturating_sub(1)
        .max(1)
}
