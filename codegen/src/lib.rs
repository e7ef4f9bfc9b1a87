//! `oxmcp-codegen`: typed, lossless Rust bindings from the Model Context Protocol JSON Schema.
//!
//! A library first, for build.rs in the style of prost-build, with the `oxmcp-codegen` CLI on top:
//!
//! ```no_run
//! // build.rs
//! fn main() -> Result<(), Box<dyn std::error::Error>> {
//!     let out = std::path::PathBuf::from(std::env::var("OUT_DIR")?).join("mcp.rs");
//!     oxmcp_codegen::Builder::new()
//!         .version("2026-07-28")
//!         .out_file(out)
//!         .generate()?;
//!     Ok(())
//! }
//! ```
//!
//! The output needs `serde`, `serde_json` (with `preserve_order`) and `indexmap` (with `serde`);
//! it uses no derive macros, so it adds no proc-macro work to a build.
//!
//! Unions are dispatched on their discriminators (`method`, `type`, `resultType`, `mode`,
//! distinguishing keys), never by trying each member; unknown properties are kept, and so are
//! content blocks of kinds a newer peer sends ([`DEFAULT_OPEN_UNIONS`]); numbers keep their
//! integer-ness; output is deterministic.
//!
//! The generator does not use typify: measured on this schema, typify 0.8 drops `const` (so
//! unions pick the wrong member), drops unknown properties, turns integers into floats and loses
//! empty objects, which is to say it is wrong for nearly every type here; the model in [`model`]
//! and the emitter cover this schema's JSON Schema subset directly.

mod boxes;
pub mod check;
#[cfg(feature = "typed-client")]
#[cfg_attr(docsrs, doc(cfg(feature = "typed-client")))]
pub mod client;
pub mod diff;
mod dispatch;
mod docs;
mod emit;
mod error;
pub mod lower;
pub mod model;
mod naming;
pub mod overlay;
mod rules;
pub mod source;
pub mod table;

#[cfg(feature = "typed-client")]
#[cfg_attr(docsrs, doc(cfg(feature = "typed-client")))]
pub use client::ClientBuilder;
pub use emit::Validation;
pub use error::{Error, Result};
pub use overlay::Overlay;
pub use source::{Pin, Pins};

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Schema types that map to serde_json types instead of generated ones: the schema's own
/// definitions of "any JSON" (and they are recursive, which serde_json already handles).
pub const DEFAULT_REPLACEMENTS: &[(&str, &str)] = &[
    ("JSONValue", "::serde_json::Value"),
    (
        "JSONObject",
        "::serde_json::Map<::std::string::String, ::serde_json::Value>",
    ),
    ("JSONArray", "::std::vec::Vec<::serde_json::Value>"),
];

/// Unions that are open by default (see [`Builder::open_union`]): the content blocks, which
/// every protocol revision so far has added members to (audio, resource links, tool use and
/// results), so that one block of a kind a newer peer sends does not fail a whole result.
/// Names a version's schema does not have are skipped.
pub const DEFAULT_OPEN_UNIONS: &[&str] = &[
    "ContentBlock",
    "SamplingMessageContentBlock",
    "SamplingMessageContent",
    "CreateMessageResultContent",
    "CallToolResultContentItem",
    "PromptMessageContent",
];

/// Where the overlay of project-owned schema fixes comes from.
#[derive(Debug, Clone)]
enum OverlaySource {
    Builtin,
    None,
    File(PathBuf),
}

/// Configures and runs one generation, in the style of `prost_build::Config`.
#[derive(Debug, Clone)]
pub struct Builder {
    /// The version to generate; the pins' latest when unset.
    version: Option<String>,
    schema: Option<PathBuf>,
    out_file: Option<PathBuf>,
    overlay: OverlaySource,
    replacements: BTreeMap<String, String>,
    /// Names given to [`Builder::replace`], which must name a type of the schema.
    replaced: Vec<String>,
    /// Unions that keep unknown members: the defaults (skipped where absent) and the names given
    /// to [`Builder::open_union`] (which must name a union).
    open_defaults: bool,
    opened: std::collections::BTreeSet<String>,
    pins: Option<PathBuf>,
    spec_dir: Option<PathBuf>,
    /// `(type, construct)` findings accepted by [`Builder::accept`].
    accepted: std::collections::BTreeSet<(String, String)>,
    rerun_if_changed: Option<bool>,
    /// Where the generated file finds the support code; embedded when `None`.
    support_path: Option<String>,
    /// Whether the generated types implement `Validate`.
    validation: Validation,
}

impl Default for Builder {
    fn default() -> Self {
        Self::new()
    }
}

/// What one generation read and produced.
#[derive(Debug, Clone)]
pub struct Generated {
    /// The schema file that was read.
    pub schema_path: PathBuf,
    /// The formatted Rust source.
    pub code: String,
}

impl Builder {
    /// A builder for the newest pinned protocol version (the pins' `latest`), with the built-in
    /// overlay and replacements.
    pub fn new() -> Self {
        Builder {
            version: None,
            schema: None,
            out_file: None,
            overlay: OverlaySource::Builtin,
            replacements: DEFAULT_REPLACEMENTS
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
            replaced: Vec::new(),
            open_defaults: true,
            opened: Default::default(),
            pins: None,
            spec_dir: None,
            accepted: Default::default(),
            rerun_if_changed: None,
            support_path: None,
            validation: Validation::Always,
        }
    }

    /// Read version pins from this file (the shape of this crate's `schema/versions.json`)
    /// instead of the built-in ones; a version's overlay is then `overlays/<version>.json`
    /// beside the file, when it exists. A new spec version is a pin line and, if it needs
    /// fixes, an overlay file: no code.
    pub fn pins_file(mut self, path: impl Into<PathBuf>) -> Self {
        self.pins = Some(path.into());
        self
    }

    /// Look for `<dir>/<version>/schema.json` before the default places (see
    /// [`source::candidates`]).
    pub fn spec_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.spec_dir = Some(dir.into());
        self
    }

    /// The protocol version to generate (selects the pin and the built-in overlay).
    pub fn version(mut self, version: impl Into<String>) -> Self {
        self.version = Some(version.into());
        self
    }

    /// Read this schema file instead of locating the pinned one (no sha256 check: an explicit
    /// file is the caller's choice, e.g. an unreleased draft).
    pub fn schema(mut self, path: impl Into<PathBuf>) -> Self {
        self.schema = Some(path.into());
        self
    }

    /// Where [`Builder::generate`] writes the code.
    pub fn out_file(mut self, path: impl Into<PathBuf>) -> Self {
        self.out_file = Some(path.into());
        self
    }

    /// Apply this overlay file instead of the built-in one.
    pub fn overlay_file(mut self, path: impl Into<PathBuf>) -> Self {
        self.overlay = OverlaySource::File(path.into());
        self
    }

    /// Apply no overlay: generate from the schema exactly as published.
    pub fn no_overlay(mut self) -> Self {
        self.overlay = OverlaySource::None;
        self
    }

    /// Map the schema type `schema_name` to an existing Rust type path instead of generating it.
    /// Generation fails when the schema has no type of that name (a typo would otherwise be
    /// silently ignored).
    pub fn replace(mut self, schema_name: impl Into<String>, rust_path: impl Into<String>) -> Self {
        let name = schema_name.into();
        self.replaced.push(name.clone());
        self.replacements.insert(name, rust_path.into());
        self
    }

    /// Make the union `rust_name` open: an object whose discriminator (`type`, `method`, ...)
    /// has a value the schema does not list is kept whole in an extra `Unknown` member instead
    /// of failing, and serializes back unchanged. For unions a newer peer may grow; a missing
    /// discriminator, or a known one with a bad member, is still an error. Generation fails when
    /// the name is not a union dispatched on one discriminator.
    pub fn open_union(mut self, rust_name: impl Into<String>) -> Self {
        self.opened.insert(rust_name.into());
        self
    }

    /// Do not open the unions of [`DEFAULT_OPEN_UNIONS`]: every union rejects a member it does
    /// not know (those given to [`Builder::open_union`] are still open).
    pub fn no_default_open_unions(mut self) -> Self {
        self.open_defaults = false;
        self
    }

    /// The unions of `model` to generate open, or an error naming an `open_union` that is not
    /// one of its unions.
    fn open_unions(&self, model: &model::Model) -> Result<std::collections::BTreeSet<String>> {
        let is_union = |name: &str| matches!(model.get(name), Some(t) if matches!(t.kind, model::Kind::Union(_)));
        if let Some(bad) = self.opened.iter().find(|n| !is_union(n)) {
            return Err(Error::msg(format!(
                "open_union(\"{bad}\") names no union of this schema"
            )));
        }
        let defaults = DEFAULT_OPEN_UNIONS
            .iter()
            .filter(|_| self.open_defaults)
            .filter(|n| is_union(n))
            .map(|n| n.to_string());
        Ok(self.opened.iter().cloned().chain(defaults).collect())
    }

    /// Accept a finding of the check phase (see [`check`]) on the `$defs` type `schema_name`:
    /// generate although the code cannot express `construct` there exactly (e.g.
    /// `"ambiguous-union"`, `"not"`). Without it, generation fails and names every finding.
    pub fn accept(mut self, schema_name: impl Into<String>, construct: impl Into<String>) -> Self {
        self.accepted.insert((schema_name.into(), construct.into()));
        self
    }

    /// What the generated code could not express exactly, whether accepted or not.
    pub fn findings(&self) -> Result<Vec<check::Finding>> {
        let Loaded { path, schema, .. } = self.load()?;
        let model =
            lower::lower(&schema, &self.lower_settings()).map_err(|e| e.with_file(&path))?;
        let (_, defs) = lower::definitions(&schema).map_err(|e| e.with_file(&path))?;
        Ok(self.all_findings(defs, &model))
    }

    /// The check phase's findings, with the unchecked validation keywords unless validation is
    /// off.
    fn all_findings(
        &self,
        defs: &serde_json::Map<String, serde_json::Value>,
        model: &model::Model,
    ) -> Vec<check::Finding> {
        let mut found = check::findings(defs, model);
        if self.validation != Validation::Off {
            found.extend(check::constraint_findings(defs, model));
            found.sort();
            found.dedup();
        }
        found
    }

    fn pins(&self) -> Result<Pins> {
        match &self.pins {
            Some(path) => Pins::from_file(path),
            None => Pins::builtin(),
        }
    }

    /// Reach the support code (the serde macros and dispatch helpers every generated file uses)
    /// through this path instead of embedding it, in the manner of prost-build's `prost_path`:
    /// the output then starts with `use <path> as __private;`. For a crate that compiles several
    /// generated files: write [`support_module`] once to a module file of the crate and give each
    /// generation its path (e.g. `crate::support`). By default each file carries its own copy in
    /// a private module, so a single `include!` needs nothing else.
    pub fn support_path(mut self, path: impl Into<String>) -> Self {
        self.support_path = Some(path.into());
        self
    }

    /// Whether the generated types implement `Validate`, which checks the validation keywords
    /// of the schema (`minLength`, `pattern`, `format`, `minimum`, `maxItems`, ...) on a value
    /// and everything in it. [`Validation::Always`] by default (the output then also needs the
    /// `regex` crate when the schema has a `pattern`); [`Validation::Feature`] puts it behind a
    /// feature of your crate; [`Validation::Off`] leaves it out, and the keywords unchecked. A
    /// keyword the generated code cannot check where it stands is a finding (see
    /// [`check::construct::UNENFORCED_CONSTRAINT`]) unless validation is off. With
    /// [`Builder::support_path`], the support module written by [`support_module`] decides.
    pub fn validation(mut self, validation: Validation) -> Self {
        self.validation = validation;
        self
    }

    /// Whether to print `cargo:rerun-if-changed` lines (default: when run by cargo as a build script).
    pub fn emit_rerun_if_changed(mut self, on: bool) -> Self {
        self.rerun_if_changed = Some(on);
        self
    }

    /// Read the schema (and overlay): its path, the patched JSON, every input file to watch,
    /// and the sha256 of the schema as read.
    fn load(&self) -> Result<Loaded> {
        let mut inputs = Vec::new();
        let pins = self.pins()?;
        let version = self.version.clone().unwrap_or_else(|| pins.latest.clone());
        if let Some(p) = &self.pins {
            inputs.push(p.clone());
        }
        let (path, bytes) = match &self.schema {
            Some(p) => {
                let bytes = std::fs::read(p).map_err(|e| Error::in_file(p, e.to_string()))?;
                inputs.push(p.clone());
                (p.clone(), bytes)
            }
            None => {
                let found = source::locate(&version, &pins, self.spec_dir.as_deref())?;
                if found.on_disk {
                    inputs.push(found.path.clone());
                }
                (found.path, found.bytes)
            }
        };
        let digest = source::sha256_hex(&bytes);
        let mut schema: serde_json::Value = serde_json::from_slice(&bytes)
            .map_err(|e| Error::in_file(&path, format!("malformed JSON: {e}")))?;
        let overlay = match &self.overlay {
            OverlaySource::None => None,
            OverlaySource::Builtin => {
                inputs.extend(pins.overlay_path(&version));
                pins.overlay(&version)?
            }
            OverlaySource::File(p) => {
                inputs.push(p.clone());
                let text =
                    std::fs::read_to_string(p).map_err(|e| Error::in_file(p, e.to_string()))?;
                Some((p.clone(), text))
            }
        };
        if let Some((opath, text)) = overlay {
            Overlay::parse(&text)
                .and_then(|o| o.apply(&mut schema))
                .map_err(|e| e.with_file(&opath))?;
        }
        let (_, defs) = lower::definitions(&schema).map_err(|e| e.with_file(&path))?;
        for name in &self.replaced {
            if !defs.contains_key(name) {
                return Err(Error::in_file(
                    &path,
                    format!("replace(\"{name}\", ..) names no type of this schema"),
                ));
            }
        }
        Ok(Loaded {
            path,
            schema,
            inputs,
            digest,
            version,
        })
    }

    /// The schema as the generator reads it: the file with the overlay applied.
    pub fn schema_json(&self) -> Result<serde_json::Value> {
        Ok(self.load()?.schema)
    }

    /// Lower the schema into the generator's model (for tools such as `diff`).
    pub fn model(&self) -> Result<model::Model> {
        let Loaded { path, schema, .. } = self.load()?;
        lower::lower(&schema, &self.lower_settings()).map_err(|e| e.with_file(&path))
    }

    fn lower_settings(&self) -> lower::LowerSettings {
        lower::LowerSettings {
            replacements: self.replacements.clone(),
        }
    }

    /// Generate the code and return it without writing anything.
    pub fn generate_string(&self) -> Result<Generated> {
        let Loaded {
            path,
            schema,
            inputs,
            digest,
            version,
        } = self.load()?;
        let model =
            lower::lower(&schema, &self.lower_settings()).map_err(|e| e.with_file(&path))?;
        let (_, defs) = lower::definitions(&schema).map_err(|e| e.with_file(&path))?;
        check::enforce(
            &schema,
            defs,
            &self.all_findings(defs, &model),
            &self.accepted,
        )
        .map_err(|e| e.with_file(&path))?;
        let header = format!(
            "@generated by oxmcp-codegen from the MCP schema {version} (sha256 {digest}).\nDo not edit: change the generator or its schema/ and run `cargo run -p oxmcp-codegen -- generate`."
        );
        let open = self.open_unions(&model).map_err(|e| e.with_file(&path))?;
        let code = emit::emit(
            &model,
            &header,
            &open,
            self.support_path.as_deref(),
            &self.validation,
        )
        .map_err(|e| e.with_file(&path))?;
        if self
            .rerun_if_changed
            .unwrap_or_else(|| std::env::var_os("OUT_DIR").is_some())
        {
            for input in &inputs {
                println!("cargo:rerun-if-changed={}", input.display());
            }
        }
        Ok(Generated {
            schema_path: path,
            code,
        })
    }

    /// Generate and write the code to the configured out file (left untouched when unchanged,
    /// so dependents do not rebuild).
    pub fn generate(&self) -> Result<Generated> {
        let out = self
            .out_file
            .clone()
            .ok_or_else(|| Error::msg("Builder::generate needs an out_file"))?;
        let generated = self.generate_string()?;
        write_if_changed(&out, &generated.code)?;
        Ok(generated)
    }
}

/// The support code as a module file of its own, for [`Builder::support_path`]: the same for
/// every schema and version, so a crate holding several generated files compiles it once.
/// `validation` decides whether it holds `Validate` (re-export `Validate`, `ValidationError`
/// and `ValidationPath` from it to name them).
pub fn support_module(validation: &Validation) -> Result<String> {
    emit::support_module(validation)
}

/// A schema as [`Builder`] read it, before lowering.
struct Loaded {
    /// The file it was read from (or the name of the compiled-in copy).
    path: PathBuf,
    /// The JSON with the overlay applied.
    schema: serde_json::Value,
    /// Every input file a build script should watch.
    inputs: Vec<PathBuf>,
    /// The sha256 of the schema file as read.
    digest: String,
    /// The protocol version it is.
    version: String,
}

/// Write `text` to `path` unless it already holds exactly that.
pub fn write_if_changed(path: &Path, text: &str) -> Result<()> {
    if std::fs::read_to_string(path).is_ok_and(|old| old == text) {
        return Ok(());
    }
    write_replacing(path, text.as_bytes())
}

/// Write `bytes` to `path` through a new file beside it, renamed over it: a failed write leaves
/// the old file whole, and a link planted at the temporary name is never written through (the
/// temporary file is created exclusively, under a name no other run uses).
pub(crate) fn write_replacing(path: &Path, bytes: &[u8]) -> Result<()> {
    use std::io::Write;
    static RUNS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|e| Error::in_file(dir, e.to_string()))?;
    }
    let name = path.file_name().unwrap_or_default().to_string_lossy();
    let run = RUNS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let tmp = path.with_file_name(format!(".{name}.{}-{run}.part", std::process::id()));
    let written = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&tmp)
        .and_then(|mut file| file.write_all(bytes))
        .and_then(|()| std::fs::rename(&tmp, path));
    if written.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    written.map_err(|e| Error::in_file(path, e.to_string()))
}
