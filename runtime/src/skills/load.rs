//! Reading a folder of skills from disk, confined to it: every folder below the root that holds
//! a `SKILL.md` is a skill (its path from the root is the skill's path), and every regular file
//! under it is one of its files. Symbolic links are never followed, wherever they point: each is
//! reported and left out. Files are opened without following a link and checked to be regular
//! files on the opened handle, so a file swapped for a link between the listing and the read is
//! refused too. Names starting with `.` are left out.

use super::catalog::{Files, RawSkill, MAX_BYTES, MAX_FILES, SKILL_MD};
use std::fs;
use std::hash::{Hash, Hasher};
use std::io::Read;
use std::path::Path;

/// How deep below the root skills and their files are looked for.
const MAX_DEPTH: usize = 16;

/// The skills under `root`, and what was left out (with why).
pub(crate) fn load_dir(root: &Path) -> (Vec<RawSkill>, Vec<String>) {
    let mut skills = Vec::new();
    let mut notes = Vec::new();
    find(root, &mut Vec::new(), &mut skills, &mut notes);
    (skills, notes)
}

/// The entries of `dir` worth looking at: `(name, path, is_dir)`, sorted, links and dot-names
/// left out (links reported in `notes`).
fn entries(dir: &Path, notes: &mut Vec<String>) -> Vec<(String, std::path::PathBuf, bool)> {
    let Ok(read) = fs::read_dir(dir) else {
        notes.push(format!("{}: cannot be read", dir.display()));
        return Vec::new();
    };
    let mut out = Vec::new();
    for entry in read.flatten() {
        let path = entry.path();
        let Some(name) = entry.file_name().to_str().map(str::to_string) else {
            notes.push(format!(
                "{}: a name that is not UTF-8; left out",
                path.display()
            ));
            continue;
        };
        if name.starts_with('.') {
            continue;
        }
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        if kind.is_symlink() {
            notes.push(format!(
                "{}: a symbolic link; links are never followed, left out",
                path.display()
            ));
            continue;
        }
        if kind.is_dir() || kind.is_file() {
            out.push((name, path, kind.is_dir()));
        }
    }
    out.sort();
    out
}

/// Look for skills in `dir`, whose path below the root is `prefix`.
fn find(dir: &Path, prefix: &mut Vec<String>, skills: &mut Vec<RawSkill>, notes: &mut Vec<String>) {
    if prefix.len() > MAX_DEPTH {
        notes.push(format!(
            "{}: deeper than {MAX_DEPTH} folders; left out",
            dir.display()
        ));
        return;
    }
    for (name, path, is_dir) in entries(dir, notes) {
        if !is_dir {
            continue;
        }
        prefix.push(name);
        let manifest = path.join(SKILL_MD);
        let is_skill = fs::symlink_metadata(&manifest).is_ok_and(|m| m.is_file());
        if is_skill {
            match read_skill(&path, notes) {
                Ok(files) => skills.push(RawSkill {
                    path: prefix.clone(),
                    files,
                }),
                Err(why) => notes.push(format!("skill `{}`: {why}; left out", prefix.join("/"))),
            }
        } else {
            find(&path, prefix, skills, notes);
        }
        prefix.pop();
    }
}

/// The files of the skill at `dir`, by path relative to it; an error once it holds more files
/// or bytes than a skill may (without reading further).
fn read_skill(dir: &Path, notes: &mut Vec<String>) -> Result<Files, String> {
    let mut files = Vec::new();
    let mut total = 0u64;
    let mut stack: Vec<(std::path::PathBuf, Vec<String>)> = vec![(dir.to_path_buf(), Vec::new())];
    while let Some((here, rel)) = stack.pop() {
        if rel.len() > MAX_DEPTH {
            return Err(format!("deeper than {MAX_DEPTH} folders"));
        }
        for (name, path, is_dir) in entries(&here, notes) {
            let mut child = rel.clone();
            child.push(name);
            if is_dir {
                stack.push((path, child));
                continue;
            }
            if files.len() >= MAX_FILES {
                return Err(format!("more than {MAX_FILES} files"));
            }
            let bytes = read_regular(&path, MAX_BYTES - total)?;
            total += bytes.len() as u64;
            files.push((child, bytes));
        }
    }
    Ok(files)
}

/// The bytes of the regular file at `path`, opened without following a link, at most `room`
/// of them (else an error).
fn read_regular(path: &Path, room: u64) -> Result<Vec<u8>, String> {
    let mut options = fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NOFOLLOW);
    }
    let file = options
        .open(path)
        .map_err(|e| format!("{}: {e} (a link is not followed)", path.display()))?;
    let meta = file
        .metadata()
        .map_err(|e| format!("{}: {e}", path.display()))?;
    if !meta.is_file() {
        return Err(format!("{}: not a regular file", path.display()));
    }
    let mut bytes = Vec::new();
    file.take(room + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| format!("{}: {e}", path.display()))?;
    if bytes.len() as u64 > room {
        return Err(format!("more than {MAX_BYTES} bytes"));
    }
    Ok(bytes)
}

/// A cheap fingerprint of everything under `root` (paths, kinds, sizes, modification times),
/// which changes when a file is added, removed, replaced or written.
pub(crate) fn fingerprint(root: &Path) -> u64 {
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    let mut stack = vec![(root.to_path_buf(), 0usize)];
    while let Some((dir, depth)) = stack.pop() {
        let Ok(read) = fs::read_dir(&dir) else {
            continue;
        };
        let mut items: Vec<_> = read.flatten().collect();
        items.sort_by_key(|e| e.file_name());
        for entry in items {
            let Ok(meta) = entry.path().symlink_metadata() else {
                continue;
            };
            entry.path().hash(&mut hasher);
            meta.len().hash(&mut hasher);
            meta.file_type().is_symlink().hash(&mut hasher);
            if let Ok(modified) = meta.modified() {
                modified.hash(&mut hasher);
            }
            if meta.is_dir() && depth < MAX_DEPTH {
                stack.push((entry.path(), depth + 1));
            }
        }
    }
    hasher.finish()
}
