//! Where schemas come from: the version pins in `schema/versions.json`, finding a local copy,
//! verifying its sha256, and fetching a pinned copy.

use crate::error::{Error, Result};
use serde::Deserialize;
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};

/// The pins file of this repository, compiled in so build.rs users need no checkout.
const PINS: &str = include_str!("../../schema/versions.json");

/// Overlays compiled in, by version.
const OVERLAYS: &[(&str, &str)] = &[(
    "2026-07-28",
    include_str!("../../schema/overlays/2026-07-28.json"),
)];

/// The version pins: the spec commit and, per protocol version, the schema URL and sha256.
#[derive(Debug, Clone, Deserialize)]
pub struct Pins {
    /// The spec repository commit every URL points at.
    pub spec_commit: String,
    /// The newest protocol version.
    pub latest: String,
    /// One entry per released version, oldest first.
    pub versions: Vec<Pin>,
}

/// One pinned protocol version.
#[derive(Debug, Clone, Deserialize)]
pub struct Pin {
    /// The protocol version, e.g. `2026-07-28`.
    pub version: String,
    /// The Rust module name of its bindings, e.g. `v2026_07_28`.
    pub module: String,
    /// Where the pinned `schema.json` is published.
    pub url: String,
    /// The sha256 of that file, lowercase hex.
    pub sha256: String,
}

impl Pins {
    /// The pins compiled into this crate.
    pub fn builtin() -> Result<Pins> {
        serde_json::from_str(PINS)
            .map_err(|e| Error::in_file("schema/versions.json", e.to_string()))
    }

    /// The pin of `version`.
    pub fn get(&self, version: &str) -> Result<&Pin> {
        self.versions
            .iter()
            .find(|p| p.version == version)
            .ok_or_else(|| {
                let known: Vec<&str> = self.versions.iter().map(|p| p.version.as_str()).collect();
                Error::msg(format!(
                    "unknown protocol version `{version}` (pinned: {})",
                    known.join(", ")
                ))
            })
    }
}

/// The built-in overlay text for `version`, if the project keeps one.
pub fn builtin_overlay(version: &str) -> Option<&'static str> {
    OVERLAYS
        .iter()
        .find(|(v, _)| *v == version)
        .map(|(_, text)| *text)
}

/// The repository root this crate was built in (`schema/` and `../shared` are found from it).
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_else(|| PathBuf::from("."))
}

/// Lowercase hex sha256 of `bytes`.
pub fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Check `bytes` (read from `file`) against the expected sha256.
pub fn verify(bytes: &[u8], expected: &str, file: &Path) -> Result<()> {
    let actual = sha256_hex(bytes);
    if actual.eq_ignore_ascii_case(expected) {
        Ok(())
    } else {
        Err(Error::in_file(
            file,
            format!("sha256 mismatch: expected {expected}, got {actual}"),
        ))
    }
}

/// The places a version's schema is looked for, in order: `MCP_SPEC_DIR`, the git-ignored
/// `schema/<version>/` filled by `mcp-codegen fetch`, then `../shared/mcp-spec/<version>/`.
pub fn candidates(version: &str) -> Vec<PathBuf> {
    let mut out = Vec::new();
    if let Some(dir) = std::env::var_os("MCP_SPEC_DIR") {
        out.push(PathBuf::from(dir).join(version).join("schema.json"));
    }
    let root = repo_root();
    out.push(root.join("schema").join(version).join("schema.json"));
    out.push(
        root.join("..")
            .join("shared")
            .join("mcp-spec")
            .join(version)
            .join("schema.json"),
    );
    out
}

/// Find and read the pinned schema of `version`, verified against its sha256.
pub fn locate(version: &str, pins: &Pins) -> Result<(PathBuf, Vec<u8>)> {
    let pin = pins.get(version)?;
    locate_in(version, &pin.sha256, &candidates(version))
}

/// Read the first of `tried` that exists, verified against `sha256`; the error when none exists
/// names the places looked in and the command that fills them.
pub fn locate_in(version: &str, sha256: &str, tried: &[PathBuf]) -> Result<(PathBuf, Vec<u8>)> {
    for path in tried {
        if path.is_file() {
            let bytes = std::fs::read(path).map_err(|e| Error::in_file(path, e.to_string()))?;
            verify(&bytes, sha256, path)?;
            return Ok((path.clone(), bytes));
        }
    }
    let tried: Vec<String> = tried.iter().map(|p| p.display().to_string()).collect();
    Err(Error::msg(format!(
        "no schema.json for {version} (looked in {}); run `mcp-codegen fetch {version}` or set MCP_SPEC_DIR",
        tried.join(", ")
    )))
}

/// Write `bytes` to `dest` via a temporary file, so a failed write leaves no partial schema.
fn write_atomic(dest: &Path, bytes: &[u8]) -> Result<()> {
    if let Some(dir) = dest.parent() {
        std::fs::create_dir_all(dir).map_err(|e| Error::in_file(dir, e.to_string()))?;
    }
    let tmp = dest.with_extension("json.part");
    std::fs::write(&tmp, bytes).map_err(|e| Error::in_file(&tmp, e.to_string()))?;
    std::fs::rename(&tmp, dest).map_err(|e| Error::in_file(dest, e.to_string()))
}

/// Copy `<dir>/<version>/schema.json` (or `<dir>/schema.json`) to `dest` if its sha256 matches.
pub fn fetch_from_dir(dir: &Path, expected_sha256: &str, version: &str, dest: &Path) -> Result<()> {
    let nested = dir.join(version).join("schema.json");
    let src = if nested.is_file() {
        nested
    } else {
        dir.join("schema.json")
    };
    let bytes = std::fs::read(&src).map_err(|e| Error::in_file(&src, e.to_string()))?;
    verify(&bytes, expected_sha256, &src)?;
    write_atomic(dest, &bytes)
}

/// Download `url` to `dest`, refusing a body whose sha256 differs from `expected_sha256`.
#[cfg(feature = "fetch")]
pub fn fetch_from_url(url: &str, expected_sha256: &str, dest: &Path) -> Result<()> {
    use std::io::Read;
    const LIMIT: u64 = 16 * 1024 * 1024;
    let response = ureq::get(url)
        .timeout(std::time::Duration::from_secs(60))
        .call()
        .map_err(|e| Error::msg(format!("{url}: {e}")))?;
    let mut bytes = Vec::new();
    response
        .into_reader()
        .take(LIMIT + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| Error::msg(format!("{url}: {e}")))?;
    if bytes.len() as u64 > LIMIT {
        return Err(Error::msg(format!("{url}: larger than {LIMIT} bytes")));
    }
    verify(&bytes, expected_sha256, Path::new(url))?;
    write_atomic(dest, &bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builtin_pins_parse_and_are_well_formed() {
        let pins = Pins::builtin().unwrap();
        assert_eq!(pins.versions.len(), 5);
        for p in &pins.versions {
            assert_eq!(p.sha256.len(), 64, "{}", p.version);
            assert!(p.url.contains(&pins.spec_commit), "{}", p.version);
            assert!(p.url.ends_with(&format!("/{}/schema.json", p.version)));
        }
        assert!(pins.get(&pins.latest).is_ok());
        assert!(pins
            .get("1999-01-01")
            .unwrap_err()
            .to_string()
            .contains("unknown protocol version"));
    }

    #[test]
    fn verify_names_file_and_both_digests() {
        let err = verify(b"x", &"0".repeat(64), Path::new("a/schema.json")).unwrap_err();
        let text = err.to_string();
        assert!(text.starts_with("a/schema.json: sha256 mismatch"), "{text}");
        assert!(text.contains(&sha256_hex(b"x")));
    }
}
