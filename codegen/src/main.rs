//! `mcp-codegen`: the command line over the `mcp_codegen` library.

use mcp_codegen::{source, Builder, Error, Pins};
use std::path::PathBuf;
use std::process::ExitCode;

const USAGE: &str = "usage:
  mcp-codegen generate [--version V] [--schema PATH] [--out PATH] [SOURCE OPTIONS]
      write the committed bindings (all pinned versions unless --version is given)
  mcp-codegen check [--version V [--out PATH]] [SOURCE OPTIONS]
      exit 1 with a unified diff if the committed bindings (or PATH) differ from a fresh generation
  mcp-codegen fetch VERSION [--from DIR] [--url URL] [--pins FILE]
      download the pinned schema.json into schema/VERSION/ (or copy it from DIR), checking its sha256
  mcp-codegen diff OLD NEW [--overlays] [--details] [--pins FILE] [--spec-dir DIR]
      report types and fields added, removed, renamed or changed between two versions (or schema
      files); both sides as published unless --overlays; --details adds description and constraint changes
  SOURCE OPTIONS: --pins FILE (pins other than the built-in ones; overlays from FILE's overlays/),
      --spec-dir DIR (look for DIR/VERSION/schema.json first), --overlay FILE, --no-overlay,
      --open-union NAME (repeatable: NAME keeps members of unknown kinds in `Unknown`; the
      content-block unions are open by default)
  mcp-codegen client (--tools FILE | --url URL) [--out PATH] [--struct NAME]
      write a typed client module for the tools of a saved tools/list result or a live server (stdout without --out)
  mcp-codegen client (--tools FILE | --url URL) --check PATH [--struct NAME]
      exit 1 with a unified diff if PATH differs from what FILE generates (the server's tools drifted)";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match run(&args) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("mcp-codegen: {e}");
            ExitCode::from(2)
        }
    }
}

/// Parsed `--flag value` options and positional arguments.
struct Args {
    positional: Vec<String>,
    flags: Vec<(String, String)>,
    switches: Vec<String>,
}

/// Options that take no value.
const SWITCHES: &[&str] = &["no-overlay", "overlays", "details"];

impl Args {
    fn parse(args: &[String], known: &[&str]) -> Result<Args, Error> {
        let mut positional = Vec::new();
        let mut flags = Vec::new();
        let mut switches = Vec::new();
        let mut it = args.iter();
        while let Some(a) = it.next() {
            if let Some(name) = a.strip_prefix("--") {
                if !known.contains(&name) {
                    return Err(Error::msg(format!("unknown option --{name}\n{USAGE}")));
                }
                if SWITCHES.contains(&name) {
                    switches.push(name.to_string());
                    continue;
                }
                let value = it
                    .next()
                    .ok_or_else(|| Error::msg(format!("--{name} needs a value")))?;
                flags.push((name.to_string(), value.clone()));
            } else {
                positional.push(a.clone());
            }
        }
        Ok(Args {
            positional,
            flags,
            switches,
        })
    }

    fn on(&self, switch: &str) -> bool {
        self.switches.iter().any(|s| s == switch)
    }

    /// The pins these options select: `--pins FILE` or the built-in ones.
    fn pins(&self) -> Result<Pins, Error> {
        match self.get("pins") {
            Some(file) => Pins::from_file(file),
            None => Pins::builtin(),
        }
    }

    /// A builder for `version` with the source options applied.
    fn builder(&self, version: &str) -> Builder {
        let mut b = Builder::new().version(version).emit_rerun_if_changed(false);
        if let Some(p) = self.get("pins") {
            b = b.pins_file(p);
        }
        if let Some(d) = self.get("spec-dir") {
            b = b.spec_dir(d);
        }
        if let Some(o) = self.get("overlay") {
            b = b.overlay_file(o);
        }
        if self.on("no-overlay") {
            b = b.no_overlay();
        }
        for (_, name) in self.flags.iter().filter(|(n, _)| n == "open-union") {
            b = b.open_union(name);
        }
        b
    }

    fn get(&self, name: &str) -> Option<&str> {
        self.flags
            .iter()
            .rev()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

/// Options every generation command takes.
const SOURCE: &[&str] = &["pins", "spec-dir", "overlay", "no-overlay", "open-union"];

fn with_source<'a>(own: &[&'a str]) -> Vec<&'a str> {
    own.iter().chain(SOURCE).copied().collect()
}

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

fn run(args: &[String]) -> Result<ExitCode, Error> {
    let Some((cmd, rest)) = args.split_first() else {
        eprintln!("{USAGE}");
        return Ok(ExitCode::from(2));
    };
    match cmd.as_str() {
        "client" => {
            let a = Args::parse(rest, &["tools", "url", "out", "check", "struct"])?;
            let (mut b, tools) = match (a.get("tools"), a.get("url")) {
                (Some(file), None) => (mcp_codegen::ClientBuilder::from_file(file), file),
                #[cfg(feature = "fetch")]
                (None, Some(url)) => (mcp_codegen::ClientBuilder::from_url(url)?, url),
                _ => {
                    return Err(Error::msg(format!(
                        "client needs --tools FILE or --url URL\n{USAGE}"
                    )))
                }
            };
            if let Some(name) = a.get("struct") {
                b = b.struct_name(name);
            }
            if let Some(committed) = a.get("check") {
                return match b.check(std::path::Path::new(committed))? {
                    None => Ok(ExitCode::SUCCESS),
                    Some(diff) => {
                        println!("{diff}");
                        eprintln!("mcp-codegen: {committed} is stale: the tools in {tools} changed (regenerate with --out)");
                        Ok(ExitCode::from(1))
                    }
                };
            }
            match a.get("out") {
                Some(out) => {
                    b.out_file(out).generate()?;
                    eprintln!("wrote {out} from {tools}");
                }
                None => print!("{}", b.generate_string()?),
            }
            Ok(ExitCode::SUCCESS)
        }
        "generate" => {
            let a = Args::parse(rest, &with_source(&["version", "schema", "out"]))?;
            let versions = selected(&a.pins()?, a.get("version"))?;
            if versions.len() > 1 && (a.get("schema").is_some() || a.get("out").is_some()) {
                return Err(Error::msg("--schema and --out need --version"));
            }
            for pin in versions {
                let mut b = a.builder(&pin.version);
                if let Some(s) = a.get("schema") {
                    b = b.schema(s);
                }
                let out = a
                    .get("out")
                    .map(PathBuf::from)
                    .unwrap_or_else(|| committed_path(&pin.module));
                let g = b.out_file(&out).generate()?;
                eprintln!("wrote {} from {}", out.display(), g.schema_path.display());
            }
            Ok(ExitCode::SUCCESS)
        }
        "check" => {
            let a = Args::parse(rest, &with_source(&["version", "out"]))?;
            let versions = selected(&a.pins()?, a.get("version"))?;
            if versions.len() > 1 && a.get("out").is_some() {
                return Err(Error::msg("--out needs --version"));
            }
            let mut stale = false;
            for pin in versions {
                let path = a
                    .get("out")
                    .map(PathBuf::from)
                    .unwrap_or_else(|| committed_path(&pin.module));
                let fresh = a.builder(&pin.version).generate_string()?.code;
                let committed = std::fs::read_to_string(&path).unwrap_or_default();
                if committed == fresh {
                    eprintln!("{}: up to date", path.display());
                } else {
                    stale = true;
                    let diff = similar::TextDiff::from_lines(&committed, &fresh);
                    print!(
                        "{}",
                        diff.unified_diff().context_radius(3).header(
                            &format!("{} (committed)", path.display()),
                            &format!("{} (generated)", path.display())
                        )
                    );
                    eprintln!("{}: differs from a fresh generation", path.display());
                }
            }
            if stale {
                eprintln!("run `cargo run -p mcp-codegen -- generate` and commit the result");
                Ok(ExitCode::from(1))
            } else {
                Ok(ExitCode::SUCCESS)
            }
        }
        "fetch" => {
            let a = Args::parse(rest, &["from", "url", "pins"])?;
            let [version] = a.positional.as_slice() else {
                return Err(Error::msg(format!("fetch takes one VERSION\n{USAGE}")));
            };
            let pins = a.pins()?;
            let pin = pins.get(version)?;
            let dest = source::project_root()
                .join("schema")
                .join(version)
                .join("schema.json");
            if let Some(dir) = a.get("from") {
                source::fetch_from_dir(std::path::Path::new(dir), &pin.sha256, version, &dest)?;
            } else {
                fetch_url(a.get("url").unwrap_or(&pin.url), &pin.sha256, &dest)?;
            }
            eprintln!("wrote {} (sha256 {})", dest.display(), pin.sha256);
            Ok(ExitCode::SUCCESS)
        }
        "diff" => {
            let a = Args::parse(rest, &["overlays", "details", "pins", "spec-dir"])?;
            let [old, new] = a.positional.as_slice() else {
                return Err(Error::msg(format!("diff takes OLD and NEW\n{USAGE}")));
            };
            let pins = a.pins()?;
            let options = mcp_codegen::diff::Options {
                details: a.on("details"),
            };
            let report = mcp_codegen::diff::diff_with(
                &builder_for(old, &pins, &a)?,
                &builder_for(new, &pins, &a)?,
                &options,
            )?;
            print!("{report}");
            Ok(ExitCode::SUCCESS)
        }
        "help" | "--help" | "-h" => {
            println!("{USAGE}");
            Ok(ExitCode::SUCCESS)
        }
        other => Err(Error::msg(format!("unknown command `{other}`\n{USAGE}"))),
    }
}

/// A version name selects the pinned schema; anything else is a schema file path, read as it is.
/// Versions are read as published too unless `--overlays` asks for each version's overlay, so a
/// pinned version and a draft file are compared like with like by default.
fn builder_for(arg: &str, pins: &Pins, a: &Args) -> Result<Builder, Error> {
    if pins.get(arg).is_ok() {
        let b = a.builder(arg);
        Ok(if a.on("overlays") { b } else { b.no_overlay() })
    } else {
        Ok(Builder::new()
            .schema(arg)
            .no_overlay()
            .emit_rerun_if_changed(false))
    }
}

#[cfg(feature = "fetch")]
fn fetch_url(url: &str, sha256: &str, dest: &std::path::Path) -> Result<(), Error> {
    source::fetch_from_url(url, sha256, dest)
}

#[cfg(not(feature = "fetch"))]
fn fetch_url(_url: &str, _sha256: &str, _dest: &std::path::Path) -> Result<(), Error> {
    Err(Error::msg(
        "this mcp-codegen was built without the `fetch` feature; use --from DIR",
    ))
}
