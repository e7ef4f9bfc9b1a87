//! Where schemas come from: the version pins (`schema/versions.json` of this crate, or a pins
//! file of the user's), the overlays kept with them, finding a local copy of a schema, verifying
//! its sha256, and fetching a pinned copy.

use crate::error::{Error, Result};
use serde::Deserialize;
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};

/// The pins file shipped inside this crate (`schema/versions.json`), compiled in so build.rs
/// users need no checkout.
const PINS: &str = include_str!("../schema/versions.json");

// `OVERLAYS` and `SCHEMAS`: every `schema/overlays/<version>.json` and
// `schema/<version>/schema.json` of this crate, listed by build.rs.
include!(concat!(env!("OUT_DIR"), "/builtin.rs"));

/// The version pins: the spec commit and, per protocol version, the schema URL and sha256.
#[derive(Debug, Clone, Deserialize)]
pub struct Pins {
    /// The spec repository commit the URLs point at (informational).
    #[serde(default)]
    pub spec_commit: String,
    /// The newest protocol version.
    pub latest: String,
    /// One entry per released version, oldest first.
    pub versions: Vec<Pin>,
    /// Where overlays for these pins are found: compiled in, or `overlays/` beside a pins file.
    #[serde(skip)]
    overlays: OverlayHome,
}

/// Where the overlays of a set of pins live.
#[derive(Debug, Clone, Default)]
enum OverlayHome {
    #[default]
    Builtin,
    Dir(PathBuf),
}

/// One pinned protocol version.
#[derive(Debug, Clone, Deserialize)]
pub struct Pin {
    /// The protocol version, e.g. `2026-07-28`.
    pub version: String,
    /// The Rust module name of its bindings, e.g. `v2026_07_28`.
    pub module: String,
    /// Where the pinned `schema.json` is published; absent for a version pinned from a local
    /// folder only (a draft), which `fetch` then copies with `--from` only.
    #[serde(default)]
    pub url: Option<String>,
    /// The sha256 of that file, lowercase hex.
    pub sha256: String,
    /// The [`examples_digest`] of the version's `examples/` folder, for a version whose examples
    /// the project keeps (its tests read them).
    #[serde(default)]
    pub examples_sha256: Option<String>,
    /// How the runtime serves the version: `"2026"` statelessly (per-request `_meta`), `"2025"`
    /// through sessions opened by `initialize`; absent when it does not serve it.
    #[serde(default)]
    pub era: Option<String>,
}

impl Pins {
    /// The pins compiled into this crate; their overlays are the compiled-in ones.
    pub fn builtin() -> Result<Pins> {
        Pins::parse(PINS).map_err(|e| e.with_file("oxmcp-codegen/schema/versions.json"))
    }

    /// Pins read from a file of the same shape as `schema/versions.json`; the overlay of a
    /// version is `overlays/<version>.json` beside it, when that file exists.
    pub fn from_file(path: impl AsRef<Path>) -> Result<Pins> {
        let path = path.as_ref();
        let text =
            std::fs::read_to_string(path).map_err(|e| Error::in_file(path, e.to_string()))?;
        let mut pins = Pins::parse(&text).map_err(|e| e.with_file(path))?;
        let dir = path.parent().unwrap_or(Path::new("."));
        pins.overlays = OverlayHome::Dir(dir.join("overlays"));
        Ok(pins)
    }

    /// Parse and check pins text: unique versions, Rust module names, 64-hex-digit sha256s.
    pub fn parse(text: &str) -> Result<Pins> {
        let pins: Pins =
            serde_json::from_str(text).map_err(|e| Error::msg(format!("malformed pins: {e}")))?;
        let mut seen = std::collections::BTreeSet::new();
        for p in &pins.versions {
            if !seen.insert(p.version.as_str()) {
                return Err(Error::msg(format!(
                    "version `{}` is pinned twice",
                    p.version
                )));
            }
            let hex64 = |s: &str| s.len() == 64 && s.bytes().all(|b| b.is_ascii_hexdigit());
            if !is_version_name(&p.version) {
                return Err(Error::msg(format!(
                    "version `{}` is not a version name (letters, digits, `-` and `.`, starting with a digit)",
                    p.version
                )));
            }
            if p.era.as_deref().is_some_and(|e| e != "2025" && e != "2026") {
                return Err(Error::msg(format!(
                    "version `{}`: era is \"2025\" or \"2026\"",
                    p.version
                )));
            }
            if p.examples_sha256.as_deref().is_some_and(|s| !hex64(s)) {
                return Err(Error::msg(format!(
                    "version `{}`: examples_sha256 is not 64 hex digits",
                    p.version
                )));
            }
            if !hex64(&p.sha256) {
                return Err(Error::msg(format!(
                    "version `{}`: sha256 `{}` is not 64 hex digits",
                    p.version, p.sha256
                )));
            }
            let ident = p
                .module
                .chars()
                .next()
                .is_some_and(|c| c.is_ascii_lowercase() || c == '_')
                && p.module
                    .chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_');
            if !ident {
                return Err(Error::msg(format!(
                    "version `{}`: module `{}` is not a lowercase Rust identifier",
                    p.version, p.module
                )));
            }
        }
        let mut modules = std::collections::BTreeSet::new();
        if let Some(p) = pins
            .versions
            .iter()
            .find(|p| !modules.insert(p.module.as_str()))
        {
            return Err(Error::msg(format!(
                "module `{}` is named by two versions",
                p.module
            )));
        }
        if !seen.contains(pins.latest.as_str()) {
            return Err(Error::msg(format!(
                "latest `{}` is not among the pinned versions",
                pins.latest
            )));
        }
        Ok(pins)
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

    /// The overlay of `version` kept with these pins: where it is (for messages) and its text.
    pub fn overlay(&self, version: &str) -> Result<Option<(PathBuf, String)>> {
        match &self.overlays {
            OverlayHome::Builtin => Ok(builtin_overlay(version).map(|text| {
                (
                    PathBuf::from(format!("oxmcp-codegen/schema/overlays/{version}.json")),
                    text.to_string(),
                )
            })),
            OverlayHome::Dir(dir) => {
                let path = dir.join(format!("{version}.json"));
                if !path.is_file() {
                    return Ok(None);
                }
                let text = std::fs::read_to_string(&path)
                    .map_err(|e| Error::in_file(&path, e.to_string()))?;
                Ok(Some((path, text)))
            }
        }
    }

    /// The overlay file to watch for changes, for pins read from a file.
    pub fn overlay_path(&self, version: &str) -> Option<PathBuf> {
        match &self.overlays {
            OverlayHome::Builtin => None,
            OverlayHome::Dir(dir) => Some(dir.join(format!("{version}.json"))),
        }
    }
}

/// Whether `version` can name a protocol version: it becomes a folder name and a module name, so
/// it starts with a digit and holds only ASCII letters, digits, `-` and `.`.
pub fn is_version_name(version: &str) -> bool {
    version.bytes().next().is_some_and(|b| b.is_ascii_digit())
        && version
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'.')
        && !version.contains("..")
}

/// The Rust module name of a protocol version: `2030-01-01` is `v2030_01_01`.
pub fn module_name(version: &str) -> String {
    format!("v{}", version.replace(['-', '.'], "_").to_ascii_lowercase())
}

/// Add (or replace) the pin of `pin.version` in the pins file at `path`, keeping the others
/// and their order; `latest` makes it the newest version. The file is written as
/// `serde_json` writes it pretty, with a final newline.
pub fn write_pin(path: &Path, pin: &Pin, latest: bool) -> Result<()> {
    let text = std::fs::read_to_string(path).map_err(|e| Error::in_file(path, e.to_string()))?;
    let mut doc: serde_json::Value = serde_json::from_str(&text)
        .map_err(|e| Error::in_file(path, format!("malformed pins: {e}")))?;
    let mut entry = serde_json::json!({
        "version": pin.version,
        "module": pin.module,
        "sha256": pin.sha256,
    });
    if let Some(url) = &pin.url {
        entry["url"] = serde_json::json!(url);
    }
    if let Some(digest) = &pin.examples_sha256 {
        entry["examples_sha256"] = serde_json::json!(digest);
    }
    if let Some(era) = &pin.era {
        entry["era"] = serde_json::json!(era);
    }
    let versions = doc["versions"]
        .as_array_mut()
        .ok_or_else(|| Error::in_file(path, "pins without a `versions` list"))?;
    match versions
        .iter_mut()
        .find(|v| v["version"] == pin.version.as_str())
    {
        Some(old) => *old = entry,
        None => versions.push(entry),
    }
    if latest {
        doc["latest"] = serde_json::json!(pin.version);
    }
    let mut out = serde_json::to_string_pretty(&doc).map_err(|e| Error::msg(e.to_string()))?;
    out.push('\n');
    Pins::parse(&out).map_err(|e| e.with_file(path))?;
    std::fs::write(path, out).map_err(|e| Error::in_file(path, e.to_string()))
}

/// The built-in overlay text for `version`, if the crate ships one.
pub fn builtin_overlay(version: &str) -> Option<&'static str> {
    OVERLAYS
        .iter()
        .find(|(v, _)| *v == version)
        .map(|(_, text)| *text)
}

/// The project being generated for: the nearest ancestor of the running crate
/// (`CARGO_MANIFEST_DIR`, set by cargo for build scripts, `cargo run` and tests) or of the
/// current directory whose `Cargo.toml` declares a `[workspace]`; the start itself if none does.
pub fn project_root() -> PathBuf {
    let start = std::env::var_os("CARGO_MANIFEST_DIR")
        .map(PathBuf::from)
        .or_else(|| std::env::current_dir().ok())
        .unwrap_or_else(|| PathBuf::from("."));
    start
        .ancestors()
        .find(|dir| {
            std::fs::read_to_string(dir.join("Cargo.toml"))
                .is_ok_and(|toml| toml.lines().any(|l| l.trim() == "[workspace]"))
        })
        .map(Path::to_path_buf)
        .unwrap_or(start)
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

/// The places a version's schema is looked for on disk, in order: `spec_dir` (given explicitly),
/// then `schema/<version>/` of the crate being built and of its workspace (this repository keeps
/// every pinned version there; `oxmcp-codegen fetch` fills it for a new one). Each is
/// `<dir>/<version>/schema.json`. When none exists, [`locate`] uses the copy compiled into this
/// crate.
pub fn candidates(version: &str, spec_dir: Option<&Path>) -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = Vec::new();
    dirs.extend(spec_dir.map(Path::to_path_buf));
    if let Some(krate) = std::env::var_os("CARGO_MANIFEST_DIR") {
        dirs.push(PathBuf::from(krate).join("schema"));
    }
    dirs.push(project_root().join("schema"));
    let mut out: Vec<PathBuf> = Vec::new();
    for dir in dirs {
        let file = dir.join(version).join("schema.json");
        if !out.contains(&file) {
            out.push(file);
        }
    }
    out
}

/// A schema as [`locate`] found it.
#[derive(Debug, Clone)]
pub struct Located {
    /// Where it was read from: a file, or the name of the compiled-in copy (for messages).
    pub path: PathBuf,
    /// Whether `path` is a file on disk (a build script watches it for changes).
    pub on_disk: bool,
    /// The file's bytes, verified against the pin.
    pub bytes: Vec<u8>,
}

/// The copy of `version`'s schema compiled into this crate, if it ships one.
pub fn builtin_schema(version: &str) -> Option<&'static [u8]> {
    SCHEMAS
        .iter()
        .find(|(v, _)| *v == version)
        .map(|(_, bytes)| *bytes)
}

/// Find and read the pinned schema of `version`, verified against its sha256: the first of
/// [`candidates`] that exists, else the copy compiled into this crate when its digest is the
/// pinned one.
pub fn locate(version: &str, pins: &Pins, spec_dir: Option<&Path>) -> Result<Located> {
    let pin = pins.get(version)?;
    let tried = candidates(version, spec_dir);
    match locate_in(version, &pin.sha256, &tried) {
        Ok((path, bytes)) => Ok(Located {
            path,
            on_disk: true,
            bytes,
        }),
        Err(e) if tried.iter().any(|p| p.is_file()) => Err(e),
        Err(e) => match builtin_schema(version) {
            Some(bytes) if sha256_hex(bytes).eq_ignore_ascii_case(&pin.sha256) => Ok(Located {
                path: PathBuf::from(format!(
                    "oxmcp-codegen/schema/{version}/schema.json (built in)"
                )),
                on_disk: false,
                bytes: bytes.to_vec(),
            }),
            _ => Err(e),
        },
    }
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
        "no schema.json for {version} (looked in {}, and this oxmcp-codegen has no built-in copy of it); run `oxmcp-codegen fetch {version}`",
        tried.join(", ")
    )))
}

/// The digest of a folder of example files: the sha256 of its manifest, one line
/// `<sha256 of the file>  <path relative to dir, with />` per file, sorted by path. Any change,
/// addition or removal of a file changes it.
pub fn examples_digest(dir: &Path) -> Result<String> {
    let mut files = Vec::new();
    walk(dir, Path::new(""), &mut files)?;
    files.sort();
    let mut manifest = String::new();
    for rel in &files {
        let path = dir.join(rel);
        let bytes = std::fs::read(&path).map_err(|e| Error::in_file(&path, e.to_string()))?;
        manifest.push_str(&sha256_hex(&bytes));
        manifest.push_str("  ");
        manifest.push_str(rel);
        manifest.push('\n');
    }
    Ok(sha256_hex(manifest.as_bytes()))
}

/// Every file under `dir/rel`, as `/`-separated paths relative to `dir`.
fn walk(dir: &Path, rel: &Path, out: &mut Vec<String>) -> Result<()> {
    let here = dir.join(rel);
    let entries = std::fs::read_dir(&here).map_err(|e| Error::in_file(&here, e.to_string()))?;
    for entry in entries {
        let entry = entry.map_err(|e| Error::in_file(&here, e.to_string()))?;
        let name = entry.file_name();
        let child = rel.join(&name);
        let kind = entry
            .file_type()
            .map_err(|e| Error::in_file(entry.path(), e.to_string()))?;
        if kind.is_dir() {
            walk(dir, &child, out)?;
        } else {
            let text: Vec<String> = child
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect();
            out.push(text.join("/"));
        }
    }
    Ok(())
}

/// Check the spec data kept in `root` (a repository's `schema/` folder) against `pins`: every
/// pinned version's `schema.json` is there with its pinned sha256, and its `examples/` folder
/// with its pinned digest where the pin names one. Returns one line per version checked.
pub fn verify_tree(root: &Path, pins: &Pins) -> Result<Vec<String>> {
    let mut report = Vec::new();
    for pin in &pins.versions {
        let file = root.join(&pin.version).join("schema.json");
        let bytes = std::fs::read(&file).map_err(|e| {
            Error::in_file(
                &file,
                format!("{e} (run `oxmcp-codegen fetch {} --from DIR`)", pin.version),
            )
        })?;
        verify(&bytes, &pin.sha256, &file)?;
        let mut line = format!("{}: schema.json sha256 {}", pin.version, pin.sha256);
        if let Some(expected) = &pin.examples_sha256 {
            let dir = root.join(&pin.version).join("examples");
            let actual = examples_digest(&dir)?;
            if !actual.eq_ignore_ascii_case(expected) {
                return Err(Error::in_file(
                    &dir,
                    format!("examples digest mismatch: expected {expected}, got {actual}"),
                ));
            }
            line.push_str(&format!(", examples digest {expected}"));
        }
        report.push(line);
    }
    Ok(report)
}

/// Write `bytes` to `dest` via a temporary file, so a failed write leaves no partial schema.
fn write_atomic(dest: &Path, bytes: &[u8]) -> Result<()> {
    crate::write_replacing(dest, bytes)
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

/// Copy the folder `src` to `dest` if its [`examples_digest`] is `expected`, replacing what
/// `dest` held; a refused copy leaves `dest` as it was.
pub fn copy_examples(src: &Path, expected: &str, dest: &Path) -> Result<()> {
    let actual = examples_digest(src)?;
    if !actual.eq_ignore_ascii_case(expected) {
        return Err(Error::in_file(
            src,
            format!("examples digest mismatch: expected {expected}, got {actual}"),
        ));
    }
    let staging = dest.with_extension("part");
    let _ = std::fs::remove_dir_all(&staging);
    let mut files = Vec::new();
    walk(src, Path::new(""), &mut files)?;
    for rel in &files {
        let to = staging.join(rel);
        if let Some(parent) = to.parent() {
            std::fs::create_dir_all(parent).map_err(|e| Error::in_file(parent, e.to_string()))?;
        }
        let from = src.join(rel);
        std::fs::copy(&from, &to).map_err(|e| Error::in_file(&from, e.to_string()))?;
    }
    if dest.exists() {
        std::fs::remove_dir_all(dest).map_err(|e| Error::in_file(dest, e.to_string()))?;
    }
    std::fs::rename(&staging, dest).map_err(|e| Error::in_file(dest, e.to_string()))
}

/// Download `url` to `dest`, refusing a body whose sha256 differs from `expected_sha256`.
#[cfg(feature = "fetch")]
pub fn fetch_from_url(url: &str, expected_sha256: &str, dest: &Path) -> Result<()> {
    let bytes = download(url)?;
    verify(&bytes, expected_sha256, Path::new(url))?;
    write_atomic(dest, &bytes)
}

/// The body of `url` (at most 16 MiB), for pinning a new version by its address.
#[cfg(feature = "fetch")]
pub fn download(url: &str) -> Result<Vec<u8>> {
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
    Ok(bytes)
}

/// What [`pin_version`] starts from.
#[derive(Debug, Clone, Default)]
pub struct NewPin {
    /// The protocol version, e.g. `2030-01-01`.
    pub version: String,
    /// The schema's bytes (read from a folder or downloaded by the caller).
    pub schema: Vec<u8>,
    /// Where the schema is published, if it is.
    pub url: Option<String>,
    /// A folder of the version's examples to keep (and pin by digest), if any.
    pub examples: Option<PathBuf>,
    /// The version whose overlay the new version's overlay starts as a copy of.
    pub overlay_from: Option<String>,
    /// How the runtime serves it (`"2025"` or `"2026"`); with `latest` and none given, the era
    /// of the previous latest version.
    pub era: Option<String>,
    /// Make it the newest version, re-exported at the bindings crate's root.
    pub latest: bool,
}

/// Pin a new protocol version in the spec data folder `root` (a repository's `schema/`): write
/// `root/<version>/schema.json` (and `examples/`), start `root/overlays/<version>.json` as a copy
/// of another version's overlay, and add the pin (sha256, module, era) to `root/versions.json`.
/// Nothing is written when the schema is not JSON with type definitions or an input is missing.
/// Returns the new pin.
pub fn pin_version(root: &Path, new: &NewPin) -> Result<Pin> {
    let pins_file = root.join("versions.json");
    let pins = Pins::from_file(&pins_file)?;
    if !is_version_name(&new.version) {
        return Err(Error::msg(format!(
            "`{}` is not a version name (letters, digits, `-` and `.`, starting with a digit)",
            new.version
        )));
    }
    let schema: serde_json::Value = serde_json::from_slice(&new.schema)
        .map_err(|e| Error::msg(format!("{}: the schema is not JSON: {e}", new.version)))?;
    crate::lower::definitions(&schema).map_err(|e| Error::msg(format!("{}: {e}", new.version)))?;
    let overlay = match &new.overlay_from {
        Some(old) => {
            pins.get(old)?;
            let path = root.join("overlays").join(format!("{old}.json"));
            let text = std::fs::read(&path).map_err(|e| {
                Error::in_file(&path, format!("{e} ({old} has no overlay to start from)"))
            })?;
            Some(text)
        }
        None => None,
    };
    let era = new.era.clone().or_else(|| {
        new.latest
            .then(|| pins.get(&pins.latest).ok().and_then(|p| p.era.clone()))
            .flatten()
    });
    let examples_sha256 = match &new.examples {
        Some(dir) => Some(examples_digest(dir)?),
        None => None,
    };
    let pin = Pin {
        version: new.version.clone(),
        module: module_name(&new.version),
        url: new.url.clone(),
        sha256: sha256_hex(&new.schema),
        examples_sha256: examples_sha256.clone(),
        era,
    };
    // Check the pins as they will be before writing anything.
    let mut next = pins.clone();
    next.versions.retain(|p| p.version != pin.version);
    if let Some(p) = next.versions.iter().find(|p| p.module == pin.module) {
        return Err(Error::msg(format!(
            "module `{}` is already the module of {}",
            pin.module, p.version
        )));
    }
    write_atomic(&root.join(&pin.version).join("schema.json"), &new.schema)?;
    if let (Some(dir), Some(digest)) = (&new.examples, &examples_sha256) {
        copy_examples(dir, digest, &root.join(&pin.version).join("examples"))?;
    }
    if let Some(text) = overlay {
        write_atomic(
            &root.join("overlays").join(format!("{}.json", pin.version)),
            &text,
        )?;
    }
    write_pin(&pins_file, &pin, new.latest)?;
    Ok(pin)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builtin_pins_parse_and_are_well_formed() {
        let pins = Pins::builtin().unwrap();
        for p in &pins.versions {
            assert_eq!(p.sha256.len(), 64, "{}", p.version);
            assert_eq!(p.module, module_name(&p.version));
            if let Some(url) = &p.url {
                assert!(url.starts_with("https://"), "{}", p.version);
                assert!(url.ends_with(&format!("/{}/schema.json", p.version)));
            }
            assert!(
                builtin_schema(&p.version).is_some_and(|b| sha256_hex(b) == p.sha256),
                "{}: the compiled-in schema is the pinned one",
                p.version
            );
        }
        let latest = pins.get(&pins.latest).unwrap();
        assert!(
            latest.era.is_some(),
            "the runtime serves the latest version"
        );
        assert!(pins.get(&pins.latest).is_ok());
        assert!(builtin_overlay("2026-07-28").is_some());
        assert!(pins
            .get("1999-01-01")
            .unwrap_err()
            .to_string()
            .contains("unknown protocol version"));
    }

    #[test]
    fn bad_pins_are_one_line_errors() {
        let pin = |v: &str, m: &str, sha: &str| {
            format!(
                r#"{{"latest": "{v}", "versions": [{{"version": "{v}", "module": "{m}", "url": "u", "sha256": "{sha}"}}]}}"#
            )
        };
        let good = "a".repeat(64);
        assert!(Pins::parse(&pin("2030-01-01", "v2030_01_01", &good)).is_ok());
        let e = Pins::parse(&pin("2030-01-01", "v2030_01_01", "abc"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("sha256 `abc` is not 64 hex digits"), "{e}");
        let e = Pins::parse(&pin("2030-01-01", "V-2030", &good))
            .unwrap_err()
            .to_string();
        assert!(e.contains("module `V-2030`"), "{e}");
        let e = Pins::parse("{").unwrap_err().to_string();
        assert!(e.starts_with("malformed pins"), "{e}");
        let e = Pins::parse(&pin("../x", "v_x", &good))
            .unwrap_err()
            .to_string();
        assert!(e.contains("is not a version name"), "{e}");
        assert_eq!(module_name("2030-01-01"), "v2030_01_01");
        assert_eq!(module_name("2030.1-RC"), "v2030_1_rc");
    }

    #[test]
    fn verify_names_file_and_both_digests() {
        let err = verify(b"x", &"0".repeat(64), Path::new("a/schema.json")).unwrap_err();
        let text = err.to_string();
        assert!(text.starts_with("a/schema.json: sha256 mismatch"), "{text}");
        assert!(text.contains(&sha256_hex(b"x")));
    }
}
