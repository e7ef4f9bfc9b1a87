//! `oxmcp-codegen`: the command line over the `oxmcp_codegen` library.

use clap::{Args, Parser, Subcommand};
use oxmcp_codegen::{source, Builder, Error, Pins};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// What the exit status means, printed under every `--help`.
const EXIT_CODES: &str = "Exit status:
  0  success
  1  `check` or `client --check` found generated code that differs from a fresh generation
  2  an error: bad arguments, a file that cannot be read or written, a schema that fails its
     pin or cannot be generated, a server that cannot be reached";

/// Typed, lossless Rust bindings from the MCP JSON Schema, and typed clients for a server's tools.
#[derive(Parser)]
#[command(name = "oxmcp-codegen", version, after_help = EXIT_CODES)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Write the committed bindings (generated/src/<module>.rs) for every pinned version, or one
    #[command(after_help = EXIT_CODES)]
    Generate(GenerateArgs),
    /// Verify the spec data in schema/ against its pins, and that the committed bindings equal a
    /// fresh generation (exit 1 with a unified diff if not)
    #[command(after_help = EXIT_CODES)]
    Check(CheckArgs),
    /// Copy (--from DIR) or download the pinned spec data of some or all versions into schema/,
    /// checking every file against its pin
    #[command(after_help = EXIT_CODES)]
    Fetch(FetchArgs),
    /// Pin a new protocol version: copy (--from DIR) or download (--url URL) its schema into
    /// schema/, record its sha256 in schema/versions.json, and start its overlay from another
    /// version's; then `generate` writes its module and feature
    #[command(after_help = EXIT_CODES)]
    Pin(PinArgs),
    /// Report types and fields added, removed, renamed or changed between two versions (or
    /// schema files)
    #[command(after_help = EXIT_CODES)]
    Diff(DiffArgs),
    /// Write a typed client module for the tools of a saved tools/list result or a live server
    #[command(after_help = EXIT_CODES)]
    Client(ClientArgs),
}

/// Where a generation's schema and fixes come from.
#[derive(Args)]
struct SourceArgs {
    /// Pins other than the built-in ones (the shape of schema/versions.json); a version's
    /// overlay is then overlays/<version>.json beside FILE
    #[arg(long, value_name = "FILE")]
    pins: Option<PathBuf>,
    /// Look for DIR/<version>/schema.json before the project's schema/ folder (`check`
    /// verifies DIR's spec data against the pins then)
    #[arg(long, value_name = "DIR")]
    spec_dir: Option<PathBuf>,
    /// Apply this overlay file instead of the version's own
    #[arg(long, value_name = "FILE", conflicts_with = "no_overlay")]
    overlay: Option<PathBuf>,
    /// Generate from the schema exactly as published, with no overlay
    #[arg(long)]
    no_overlay: bool,
    /// Keep members of unknown kinds of the union NAME in `Unknown` (repeatable; the
    /// content-block unions are open by default)
    #[arg(long, value_name = "NAME")]
    open_union: Vec<String>,
}

impl SourceArgs {
    /// The pins these options select: `--pins FILE` or the built-in ones.
    fn pins(&self) -> Result<Pins, Error> {
        match &self.pins {
            Some(file) => Pins::from_file(file),
            None => Pins::builtin(),
        }
    }

    /// A builder for `version` with these options applied; with `in_crate`, for the bindings
    /// crate's own files, which reach the support code it compiles once (a file written
    /// elsewhere carries its own copy).
    fn builder(&self, version: &str, in_crate: bool) -> Builder {
        let mut b = Builder::new().version(version).emit_rerun_if_changed(false);
        if in_crate {
            b = b.support_path(oxmcp_codegen::table::SUPPORT_PATH);
        }
        if let Some(p) = &self.pins {
            b = b.pins_file(p);
        }
        if let Some(d) = &self.spec_dir {
            b = b.spec_dir(d);
        }
        if let Some(o) = &self.overlay {
            b = b.overlay_file(o);
        }
        if self.no_overlay {
            b = b.no_overlay();
        }
        for name in &self.open_union {
            b = b.open_union(name);
        }
        b
    }

    /// The folder whose spec data `check` verifies: `--spec-dir DIR`, else the folder of
    /// `--pins FILE`, else the project's `schema/`.
    fn data_dir(&self) -> PathBuf {
        match (&self.spec_dir, &self.pins) {
            (Some(dir), _) => dir.clone(),
            (None, Some(file)) => file
                .parent()
                .map(Path::to_path_buf)
                .unwrap_or_else(|| PathBuf::from(".")),
            (None, None) => source::project_root().join("schema"),
        }
    }
}

#[derive(Args)]
struct GenerateArgs {
    /// Only this protocol version (e.g. 2026-07-28)
    #[arg(long, value_name = "VERSION")]
    version: Option<String>,
    /// Read this schema file instead of the pinned one (no sha256 check)
    #[arg(long, value_name = "PATH", requires = "version")]
    schema: Option<PathBuf>,
    /// Write here instead of generated/src/<module>.rs
    #[arg(long, value_name = "PATH", requires = "version")]
    out: Option<PathBuf>,
    #[command(flatten)]
    source: SourceArgs,
}

#[derive(Args)]
struct CheckArgs {
    /// Only this protocol version
    #[arg(long, value_name = "VERSION")]
    version: Option<String>,
    /// Compare with this file instead of generated/src/<module>.rs
    #[arg(long, value_name = "PATH", requires = "version")]
    out: Option<PathBuf>,
    #[command(flatten)]
    source: SourceArgs,
}

#[derive(Args)]
struct FetchArgs {
    /// The versions to fetch
    #[arg(value_name = "VERSION", required_unless_present = "all")]
    versions: Vec<String>,
    /// Every pinned version
    #[arg(long, conflicts_with = "versions")]
    all: bool,
    /// Copy from DIR/<version>/ (schema.json, and examples/ where pinned) and DIR/LICENSE
    /// instead of downloading
    #[arg(long, value_name = "DIR", conflicts_with = "url")]
    from: Option<PathBuf>,
    /// Download from URL instead of the pinned address (one version only)
    #[arg(long, value_name = "URL")]
    url: Option<String>,
    /// Pins other than the built-in ones
    #[arg(long, value_name = "FILE")]
    pins: Option<PathBuf>,
    /// Write into DIR instead of the project's schema/ folder
    #[arg(long, value_name = "DIR")]
    into: Option<PathBuf>,
}

#[derive(Args)]
#[command(group = clap::ArgGroup::new("schema_from").required(true).multiple(true).args(["from", "url"]))]
struct PinArgs {
    /// The new protocol version, e.g. 2030-01-01 (its module is v2030_01_01)
    version: String,
    /// Copy DIR/<VERSION>/schema.json (and DIR/<VERSION>/examples/ when present)
    #[arg(long, value_name = "DIR")]
    from: Option<PathBuf>,
    /// Where the schema is published: downloaded from there without --from, recorded in the
    /// pin either way
    #[arg(long, value_name = "URL")]
    url: Option<String>,
    /// Start the new version's overlay as a copy of OLD's (schema/overlays/OLD.json)
    #[arg(long, value_name = "OLD")]
    overlay_from: Option<String>,
    /// How the runtime serves it: 2026 (stateless, per-request _meta) or 2025 (sessions);
    /// with --latest, the previous latest version's by default
    #[arg(long, value_name = "ERA", value_parser = ["2025", "2026"])]
    era: Option<String>,
    /// Make it the newest version: the bindings crate's root and default feature
    #[arg(long)]
    latest: bool,
    /// The spec data folder to pin into instead of the project's schema/
    #[arg(long, value_name = "DIR")]
    into: Option<PathBuf>,
}

#[derive(Args)]
struct DiffArgs {
    /// The older side: a pinned version or a schema file
    old: String,
    /// The newer side: a pinned version or a schema file
    new: String,
    /// Apply each pinned version's overlay (both sides are read as published otherwise)
    #[arg(long)]
    overlays: bool,
    /// Also report changes of descriptions and constraints
    #[arg(long)]
    details: bool,
    /// text (a maintainer's report), json (an array of changes, each labelled breaking and
    /// wire_breaking) or md (release notes)
    #[arg(long, value_name = "FORMAT", default_value = "text", value_parser = ["text", "json", "md"])]
    format: String,
    /// Pins other than the built-in ones
    #[arg(long, value_name = "FILE")]
    pins: Option<PathBuf>,
    /// Look for DIR/<version>/schema.json first
    #[arg(long, value_name = "DIR")]
    spec_dir: Option<PathBuf>,
}

#[derive(Args)]
#[command(group = clap::ArgGroup::new("tools_from").required(true).args(["tools", "url"]))]
struct ClientArgs {
    /// A saved tools/list result (JSON)
    #[arg(long, value_name = "FILE")]
    tools: Option<PathBuf>,
    /// A live server's streamable HTTP endpoint: its tools are listed with the project's own
    /// client (2026-07-28 or a 2025-era session, JSON or SSE answers)
    #[arg(long, value_name = "URL")]
    url: Option<String>,
    /// A header sent with every request to --url, e.g. 'Authorization: Bearer TOKEN' (repeatable)
    #[arg(long, value_name = "'NAME: VALUE'", requires = "url")]
    header: Vec<String>,
    /// Write the module to PATH (stdout without --out or --check)
    #[arg(long, value_name = "PATH", conflicts_with = "check")]
    out: Option<PathBuf>,
    /// Exit 1 with a unified diff if PATH differs from what the tools generate
    #[arg(long, value_name = "PATH")]
    check: Option<PathBuf>,
    /// The client struct's name
    #[arg(long = "struct", value_name = "NAME", default_value = "ToolsClient")]
    struct_name: String,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli.command) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("oxmcp-codegen: {e}");
            ExitCode::from(2)
        }
    }
}

fn run(command: Command) -> Result<ExitCode, Error> {
    match command {
        Command::Generate(a) => generate(a),
        Command::Check(a) => check(a),
        Command::Fetch(a) => fetch(a),
        Command::Pin(a) => pin(a),
        Command::Diff(a) => diff(a),
        Command::Client(a) => client(a),
    }
}

/// Where the committed bindings of `module` live.
fn committed_path(module: &str) -> PathBuf {
    source::project_root()
        .join("generated")
        .join("src")
        .join(format!("{module}.rs"))
}

fn selected(pins: &Pins, version: Option<&str>) -> Result<Vec<source::Pin>, Error> {
    match version {
        Some(v) => Ok(vec![pins.get(v)?.clone()]),
        None => Ok(pins.versions.clone()),
    }
}

fn generate(a: GenerateArgs) -> Result<ExitCode, Error> {
    for pin in selected(&a.source.pins()?, a.version.as_deref())? {
        let mut b = a.source.builder(&pin.version, a.out.is_none());
        if let Some(s) = &a.schema {
            b = b.schema(s);
        }
        let out = a.out.clone().unwrap_or_else(|| committed_path(&pin.module));
        let g = b.out_file(&out).generate()?;
        eprintln!("wrote {} from {}", out.display(), g.schema_path.display());
    }
    if a.out.is_none() {
        for (path, text) in table(&a.source.pins()?, &a.source)? {
            oxmcp_codegen::write_if_changed(&path, &text)?;
            eprintln!("wrote {}", path.display());
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// The bindings crate's module table and manifest for `pins` (see `oxmcp_codegen::table`), with
/// the regex crate behind `validate` when a pinned schema (found as `source` finds it) states a
/// `pattern`.
fn table(pins: &Pins, source: &SourceArgs) -> Result<Vec<(PathBuf, String)>, Error> {
    let mut regex = false;
    for pin in &pins.versions {
        let located = source::locate(&pin.version, pins, source.spec_dir.as_deref())?;
        let schema: serde_json::Value = serde_json::from_slice(&located.bytes)
            .map_err(|e| Error::in_file(&located.path, e.to_string()))?;
        regex |= oxmcp_codegen::table::states_pattern(&schema);
    }
    oxmcp_codegen::table::fresh(&source::project_root().join("generated"), pins, regex)
}

/// Print a unified diff of `committed` against `fresh` for `path`; whether they differ.
fn report(path: &Path, committed: &str, fresh: &str) -> bool {
    if committed == fresh {
        eprintln!("{}: up to date", path.display());
        return false;
    }
    let diff = similar::TextDiff::from_lines(committed, fresh);
    print!(
        "{}",
        diff.unified_diff().context_radius(3).header(
            &format!("{} (committed)", path.display()),
            &format!("{} (generated)", path.display())
        )
    );
    eprintln!("{}: differs from a fresh generation", path.display());
    true
}

fn check(a: CheckArgs) -> Result<ExitCode, Error> {
    let pins = a.source.pins()?;
    let data = a.source.data_dir();
    if data.is_dir() {
        let mut checked = pins.clone();
        checked.versions = selected(&pins, a.version.as_deref())?;
        let verified = source::verify_tree(&data, &checked)?;
        eprintln!(
            "{}: the spec data of {} version(s) matches its pins",
            data.display(),
            verified.len()
        );
    }
    let mut stale = false;
    for pin in selected(&pins, a.version.as_deref())? {
        let path = a.out.clone().unwrap_or_else(|| committed_path(&pin.module));
        let fresh = a
            .source
            .builder(&pin.version, a.out.is_none())
            .generate_string()?
            .code;
        let committed = std::fs::read_to_string(&path).unwrap_or_default();
        stale |= report(&path, &committed, &fresh);
    }
    if a.out.is_none() {
        for (path, fresh) in table(&pins, &a.source)? {
            let committed = std::fs::read_to_string(&path).unwrap_or_default();
            stale |= report(&path, &committed, &fresh);
        }
    }
    if stale {
        eprintln!("run `cargo run -p oxmcp-codegen -- generate` and commit the result");
        Ok(ExitCode::from(1))
    } else {
        Ok(ExitCode::SUCCESS)
    }
}

fn fetch(a: FetchArgs) -> Result<ExitCode, Error> {
    let pins = match &a.pins {
        Some(file) => Pins::from_file(file)?,
        None => Pins::builtin()?,
    };
    let versions: Vec<source::Pin> = if a.all {
        pins.versions.clone()
    } else {
        a.versions
            .iter()
            .map(|v| pins.get(v).cloned())
            .collect::<Result<_, _>>()?
    };
    if a.url.is_some() && versions.len() != 1 {
        return Err(Error::msg("--url takes exactly one VERSION"));
    }
    let into = a
        .into
        .clone()
        .unwrap_or_else(|| source::project_root().join("schema"));
    for pin in &versions {
        let dest = into.join(&pin.version).join("schema.json");
        match &a.from {
            Some(dir) => {
                source::fetch_from_dir(dir, &pin.sha256, &pin.version, &dest)?;
                eprintln!("wrote {} (sha256 {})", dest.display(), pin.sha256);
                let examples = dir.join(&pin.version).join("examples");
                match &pin.examples_sha256 {
                    Some(digest) => {
                        let to = into.join(&pin.version).join("examples");
                        source::copy_examples(&examples, digest, &to)?;
                        eprintln!("wrote {} (digest {digest})", to.display());
                    }
                    None if examples.is_dir() => eprintln!(
                        "skipped {}: the pin of {} names no examples digest",
                        examples.display(),
                        pin.version
                    ),
                    None => {}
                }
            }
            None => {
                let url = a.url.as_deref().or(pin.url.as_deref()).ok_or_else(|| {
                    Error::msg(format!(
                        "{} has no pinned URL; copy it with --from DIR or name one with --url",
                        pin.version
                    ))
                })?;
                fetch_url(url, &pin.sha256, &dest)?;
                eprintln!("wrote {} (sha256 {})", dest.display(), pin.sha256);
                if pin.examples_sha256.is_some() {
                    eprintln!("{}: examples are copied with --from DIR only", pin.version);
                }
            }
        }
    }
    if let Some(license) = a.from.as_ref().map(|d| d.join("LICENSE")) {
        if license.is_file() {
            let to = into.join("LICENSE");
            std::fs::create_dir_all(&into).map_err(|e| Error::in_file(&into, e.to_string()))?;
            std::fs::copy(&license, &to).map_err(|e| Error::in_file(&license, e.to_string()))?;
            eprintln!("wrote {}", to.display());
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn pin(a: PinArgs) -> Result<ExitCode, Error> {
    let into = a
        .into
        .clone()
        .unwrap_or_else(|| source::project_root().join("schema"));
    let (schema, examples) = match &a.from {
        Some(dir) => {
            let file = dir.join(&a.version).join("schema.json");
            let bytes = std::fs::read(&file).map_err(|e| Error::in_file(&file, e.to_string()))?;
            let examples = dir.join(&a.version).join("examples");
            (bytes, examples.is_dir().then_some(examples))
        }
        None => {
            let url = a.url.as_deref().unwrap_or_default();
            (download(url)?, None)
        }
    };
    let pin = source::pin_version(
        &into,
        &source::NewPin {
            version: a.version.clone(),
            schema,
            url: a.url.clone(),
            examples,
            overlay_from: a.overlay_from.clone(),
            era: a.era.clone(),
            latest: a.latest,
        },
    )?;
    eprintln!(
        "pinned {} (sha256 {}, module {}{}) in {}",
        pin.version,
        pin.sha256,
        pin.module,
        pin.era
            .as_deref()
            .map(|e| format!(", served as {e}-era"))
            .unwrap_or_default(),
        into.join("versions.json").display()
    );
    eprintln!(
        "next: `cargo run -p oxmcp-codegen -- generate --version {}`",
        pin.version
    );
    Ok(ExitCode::SUCCESS)
}

fn diff(a: DiffArgs) -> Result<ExitCode, Error> {
    let pins = match &a.pins {
        Some(file) => Pins::from_file(file)?,
        None => Pins::builtin()?,
    };
    use oxmcp_codegen::diff;
    let options = diff::Options { details: a.details };
    let changes = diff::diff_changes(
        &builder_for(&a.old, &pins, &a),
        &builder_for(&a.new, &pins, &a),
        &options,
    )?;
    match a.format.as_str() {
        "json" => println!(
            "{}",
            serde_json::to_string_pretty(&diff::json(&changes))
                .map_err(|e| Error::msg(e.to_string()))?
        ),
        "md" => print!("{}", diff::markdown(&changes, &a.old, &a.new)),
        _ => print!("{}", diff::text(&changes)),
    }
    Ok(ExitCode::SUCCESS)
}

/// A version name selects the pinned schema; anything else is a schema file path, read as it is.
/// Versions are read as published too unless `--overlays` asks for each version's overlay, so a
/// pinned version and a draft file are compared like with like by default.
fn builder_for(arg: &str, pins: &Pins, a: &DiffArgs) -> Builder {
    if pins.get(arg).is_ok() {
        let mut b = Builder::new().version(arg).emit_rerun_if_changed(false);
        if let Some(p) = &a.pins {
            b = b.pins_file(p);
        }
        if let Some(d) = &a.spec_dir {
            b = b.spec_dir(d);
        }
        if a.overlays {
            b
        } else {
            b.no_overlay()
        }
    } else {
        Builder::new()
            .schema(arg)
            .no_overlay()
            .emit_rerun_if_changed(false)
    }
}

fn client(a: ClientArgs) -> Result<ExitCode, Error> {
    let (builder, from) = match (&a.tools, &a.url) {
        (Some(file), _) => (
            oxmcp_codegen::ClientBuilder::from_file(file),
            file.display().to_string(),
        ),
        (None, Some(url)) => (
            oxmcp_codegen::ClientBuilder::from_tools_list(live_tools(url, &a.header)?),
            url.clone(),
        ),
        (None, None) => return Err(Error::msg("client needs --tools FILE or --url URL")),
    };
    let builder = builder.struct_name(&a.struct_name);
    if let Some(committed) = &a.check {
        return match builder.check(committed)? {
            None => Ok(ExitCode::SUCCESS),
            Some(diff) => {
                println!("{diff}");
                eprintln!(
                    "oxmcp-codegen: {} is stale: the tools of {from} changed (regenerate with --out)",
                    committed.display()
                );
                Ok(ExitCode::from(1))
            }
        };
    }
    match &a.out {
        Some(out) => {
            builder.out_file(out).generate()?;
            eprintln!("wrote {} from {from}", out.display());
        }
        None => print!("{}", builder.generate_string()?),
    }
    Ok(ExitCode::SUCCESS)
}

#[cfg(not(feature = "live"))]
fn live_tools(_url: &str, _headers: &[String]) -> Result<serde_json::Value, Error> {
    Err(Error::msg(
        "this oxmcp-codegen was built without the `live` feature; use --tools FILE",
    ))
}

/// Every tool of the server at `url`, as a `tools/list` result, read with the project's client
/// (which finds the server's era itself) sending `headers` (`NAME: VALUE`) with each request.
#[cfg(feature = "live")]
fn live_tools(url: &str, headers: &[String]) -> Result<serde_json::Value, Error> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| Error::msg(format!("starting the async runtime: {e}")))?;
    runtime.block_on(async {
        let mut client = oxmcp::client::Client::http(url).client_info(
            oxmcp_schema::Implementation::new("oxmcp-codegen", env!("CARGO_PKG_VERSION")),
        );
        for header in headers {
            let (name, value) = header.split_once(':').ok_or_else(|| {
                Error::msg(format!(
                    "--header `{header}` is not of the form 'NAME: VALUE'"
                ))
            })?;
            client = client
                .header(name, value)
                .map_err(|e| Error::msg(format!("--header: {e}")))?;
        }
        let tools = client.list_all_tools().await.map_err(|e| {
            // A transport error names the address itself; any other is given it here.
            let e = e.to_string();
            if e.contains(url) {
                Error::msg(format!("listing the tools: {e}"))
            } else {
                Error::msg(format!("{url}: listing the tools: {e}"))
            }
        })?;
        serde_json::to_value(&tools)
            .map(|tools| serde_json::json!({ "tools": tools }))
            .map_err(|e| Error::msg(format!("{url}: {e}")))
    })
}

#[cfg(feature = "fetch")]
fn fetch_url(url: &str, sha256: &str, dest: &Path) -> Result<(), Error> {
    source::fetch_from_url(url, sha256, dest)
}

#[cfg(feature = "fetch")]
fn download(url: &str) -> Result<Vec<u8>, Error> {
    source::download(url)
}

#[cfg(not(feature = "fetch"))]
fn download(_url: &str) -> Result<Vec<u8>, Error> {
    Err(Error::msg(
        "this oxmcp-codegen was built without the `fetch` feature; use --from DIR",
    ))
}

#[cfg(not(feature = "fetch"))]
fn fetch_url(_url: &str, _sha256: &str, _dest: &Path) -> Result<(), Error> {
    Err(Error::msg(
        "this oxmcp-codegen was built without the `fetch` feature; use --from DIR",
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn the_command_line_is_well_formed() {
        Cli::command().debug_assert();
    }
}
