//! The skills extension (`io.modelcontextprotocol/skills`): Agent Skills (a folder with a
//! `SKILL.md` whose YAML frontmatter names and describes the skill, and its reference files and
//! scripts) offered through `skills/list`, `skills/get`, `resources/read` of `skill://` URIs and
//! `resources/directory/read`.
//!
//! A server gets them from a folder ([`ServerBuilder::skills_dir`](crate::ServerBuilder::skills_dir):
//! every folder below it that holds a `SKILL.md` is a skill) or built in code
//! ([`ServerBuilder::skill`](crate::ServerBuilder::skill) with a [`Skill`]). Each skill is checked
//! when it is loaded (frontmatter with `name` and `description`, a name that follows the naming
//! rules and is the folder's, at most 512 files and 16 MiB); one that fails is left out with a
//! log line, and the others are served. Every file's digest and size are computed once, at load,
//! and the files are served from memory, so nothing on disk is read while answering a request.
//! A folder is watched: once it changes, it is loaded again in the background and the new
//! catalog replaces the old one only when it is complete. Serving is confined to what was
//! loaded: symbolic links are never followed, and a requested URI names a loaded file exactly
//! or nothing.

mod catalog;
mod frontmatter;
mod load;

#[cfg(feature = "client")]
pub(crate) use catalog::digest;
use catalog::{Catalog, RawSkill};
use oxmcp_schema::Error;
use serde_json::{json, Value};
use std::path::PathBuf;
use std::sync::{Arc, Mutex, OnceLock, RwLock};
use std::time::Duration;

/// The extension's identifier, in the server's capabilities.
pub const SKILLS_EXTENSION: &str = "io.modelcontextprotocol/skills";

/// A skill built in code: its path (`pdf-processing`, or `acme/pdf-processing`: the last
/// segment is its name, the first becomes the URI's authority), its `SKILL.md`, and its other
/// files by path relative to the skill's folder.
#[derive(Debug, Clone)]
pub struct Skill {
    path: String,
    files: Vec<(String, Vec<u8>)>,
}

impl Skill {
    /// A skill at `path` whose `SKILL.md` is `skill_md` (YAML frontmatter with at least `name`,
    /// equal to the path's last segment, and `description`, then the instructions).
    pub fn new(path: impl Into<String>, skill_md: impl Into<Vec<u8>>) -> Self {
        Skill {
            path: path.into(),
            files: vec![(catalog::SKILL_MD.to_string(), skill_md.into())],
        }
    }

    /// Add the file `relative_path` (e.g. `references/FORMS.md`, `scripts/fill.py`).
    pub fn file(mut self, relative_path: impl Into<String>, bytes: impl Into<Vec<u8>>) -> Self {
        self.files.push((relative_path.into(), bytes.into()));
        self
    }

    fn raw(&self) -> RawSkill {
        let split = |p: &str| p.split('/').map(str::to_string).collect::<Vec<_>>();
        RawSkill {
            path: split(&self.path),
            files: self
                .files
                .iter()
                .map(|(p, b)| (split(p), b.clone()))
                .collect(),
        }
    }
}

/// The skills of one server: where they come from and the catalog served now.
pub(crate) struct Skills {
    dir: Option<PathBuf>,
    built: Mutex<Vec<Skill>>,
    current: RwLock<Arc<Catalog>>,
    /// The folder's fingerprint when the current catalog was loaded.
    seen: Mutex<u64>,
    poll: Duration,
    watching: OnceLock<()>,
}

impl Skills {
    /// Load `dir` (if any) and `built` into the first catalog.
    pub(crate) fn new(dir: Option<PathBuf>, built: Vec<Skill>, poll: Duration) -> Self {
        // A relative folder is resolved once, against the directory the server started in, so
        // every note names the folder actually read and a later change of directory moves
        // nothing.
        let dir = dir.map(|dir| match std::path::absolute(&dir) {
            Ok(absolute) if absolute != dir => {
                tracing::info!(
                    dir = %dir.display(),
                    resolved = %absolute.display(),
                    "the skills folder is relative; it is read from the directory the server started in"
                );
                absolute
            }
            _ => dir,
        });
        let skills = Skills {
            dir,
            built: Mutex::new(built),
            current: RwLock::new(Arc::default()),
            seen: Mutex::new(0),
            poll,
            watching: OnceLock::new(),
        };
        skills.reload();
        skills
    }

    /// Load the skills again and serve the new catalog; how many skills it holds.
    pub(crate) fn reload(&self) -> usize {
        let mut raw: Vec<RawSkill> = crate::wire::lock(&self.built)
            .iter()
            .map(Skill::raw)
            .collect();
        let mut notes = Vec::new();
        if let Some(dir) = &self.dir {
            *crate::wire::lock(&self.seen) = load::fingerprint(dir);
            let (found, mut left_out) = load::load_dir(dir);
            raw.extend(found);
            notes.append(&mut left_out);
        }
        let (catalog, mut refused) = Catalog::build(raw);
        notes.append(&mut refused);
        for note in &notes {
            tracing::warn!(note = %note, "skills");
        }
        let count = catalog.len();
        match &self.dir {
            Some(dir) => tracing::info!(skills = count, dir = %dir.display(), "skills loaded"),
            None => tracing::info!(skills = count, "skills loaded"),
        }
        *self.current.write().unwrap_or_else(|p| p.into_inner()) = Arc::new(catalog);
        count
    }

    /// Add `skill` to the skills built in code (replacing one at the same path) and reload.
    pub(crate) fn add(&self, skill: Skill) {
        {
            let mut built = crate::wire::lock(&self.built);
            built.retain(|s| s.path != skill.path);
            built.push(skill);
        }
        self.reload();
    }

    /// Remove the skill built in code at `path`, and reload; whether it was there.
    pub(crate) fn remove(&self, path: &str) -> bool {
        let removed = {
            let mut built = crate::wire::lock(&self.built);
            let before = built.len();
            built.retain(|s| s.path != path);
            built.len() < before
        };
        if removed {
            self.reload();
        }
        removed
    }

    /// The catalog served now.
    fn snapshot(&self) -> Arc<Catalog> {
        self.current
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    /// Watch the folder in the background (once, when a runtime is at hand), reloading it when
    /// it changes, for as long as these skills exist.
    pub(crate) fn watch(self: &Arc<Self>) {
        let Some(dir) = self.dir.clone() else { return };
        crate::wire::every_while_alive(self, &self.watching, self.poll, move |skills| {
            let dir = dir.clone();
            async move {
                let changed = tokio::task::spawn_blocking(move || load::fingerprint(&dir))
                    .await
                    .is_ok_and(|now| now != *crate::wire::lock(&skills.seen));
                if changed {
                    let _ = tokio::task::spawn_blocking(move || skills.reload()).await;
                }
            }
        });
    }

    /// The extension's settings in the server's capabilities.
    pub(crate) fn capability() -> serde_json::Map<String, Value> {
        let mut settings = serde_json::Map::new();
        settings.insert("directoryRead".into(), Value::Bool(true));
        settings
    }

    /// `skills/list`: a page of entries (no entry split across pages).
    pub(crate) fn list(&self, cursor: Option<&str>, page: usize) -> Result<Value, Error> {
        let catalog = self.snapshot();
        let start = match cursor {
            None => 0,
            Some(c) => decode_cursor(c)?,
        };
        let skills = catalog.entries(start, page);
        let mut result = json!({"skills": skills, "resultType": "complete",
                                "ttlMs": 0, "cacheScope": "public"});
        if start + page < catalog.len() {
            result["nextCursor"] = json!(encode_cursor(start + page));
        }
        Ok(result)
    }

    /// `skills/get`: the entry of the skill whose `SKILL.md` is at `uri`.
    pub(crate) fn get(&self, uri: Option<&str>) -> Result<Value, Error> {
        let uri = uri.ok_or_else(|| Error::invalid_params("skills/get needs a uri"))?;
        let entry = self
            .snapshot()
            .entry(uri)
            .ok_or_else(|| Error::invalid_params(format!("no skill is served at {uri}")))?;
        Ok(json!({"skill": entry, "resultType": "complete", "ttlMs": 0, "cacheScope": "public"}))
    }

    /// `resources/read` of a skill file: the `ReadResourceResult`, if `uri` names one (text as
    /// text, anything else, text with a NUL included, as a base64 blob).
    pub(crate) fn read(&self, uri: &str) -> Option<Value> {
        let file = self.snapshot().file(uri)?;
        let mut content = json!({"uri": file.uri, "mimeType": file.mime});
        if file.text {
            content["text"] = json!(String::from_utf8_lossy(&file.bytes));
        } else {
            content["blob"] = json!(base64_simd::STANDARD.encode_to_string(&file.bytes));
        }
        Some(json!({"contents": [content], "resultType": "complete",
                    "ttlMs": 0, "cacheScope": "public"}))
    }

    /// `resources/directory/read`: a page of the direct children of a skill's directory;
    /// -32602 for a URI that is not one.
    pub(crate) fn directory(
        &self,
        uri: Option<&str>,
        cursor: Option<&str>,
        page: usize,
    ) -> Result<Value, Error> {
        let uri =
            uri.ok_or_else(|| Error::invalid_params("resources/directory/read needs a uri"))?;
        let children = self.snapshot().children(uri).ok_or_else(|| {
            Error::invalid_params(format!("{uri} is not a directory of a served skill"))
        })?;
        let start = match cursor {
            None => 0,
            Some(c) => decode_cursor(c)?,
        };
        let items: Vec<Value> = children.iter().skip(start).take(page).cloned().collect();
        let mut result = json!({"resources": items, "resultType": "complete"});
        if start + page < children.len() {
            result["nextCursor"] = json!(encode_cursor(start + page));
        }
        Ok(result)
    }

    /// Each skill's `SKILL.md`, for `resources/list`.
    pub(crate) fn resources(&self) -> Vec<Value> {
        self.snapshot().resources()
    }
}

/// The frontmatter of a `SKILL.md`'s text, as JSON, with a non-empty `name` and
/// `description`; or why it has none. The client compares it with a skill's entry.
#[cfg(feature = "client")]
pub(crate) fn parse_frontmatter(text: &str) -> Result<serde_json::Map<String, Value>, String> {
    frontmatter::parse(text)
}

fn encode_cursor(offset: usize) -> String {
    base64_simd::URL_SAFE_NO_PAD.encode_to_string(format!("s:{offset}"))
}

fn decode_cursor(cursor: &str) -> Result<usize, Error> {
    base64_simd::URL_SAFE_NO_PAD
        .decode_to_vec(cursor)
        .ok()
        .and_then(|b| String::from_utf8(b).ok())
        .and_then(|s| s.strip_prefix("s:").and_then(|n| n.parse().ok()))
        .ok_or_else(|| Error::invalid_params("invalid cursor"))
}
