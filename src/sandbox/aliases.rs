//! Other names of a protected file. The sandbox covers secrets and makes git's files read-only
//! by path, but a hard link is the same file under another name: a call can link a file that is
//! not secret yet (`.env.local`, `gradle.properties`) or a hook that is not in use yet
//! (`.githooks/pre-commit`) to a name of its own, and after the user writes the secret or turns
//! the hooks on, a later call reads or rewrites the file through that name (sandbox round 16).
//! So before each call, every other name in the project of a covered or read-only file is
//! covered or made read-only too.

use std::collections::HashMap;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use super::walk;

/// The most files looked at inside one read-only directory for ones with other names; past
/// it the call is not contained (fail closed).
const PROTECTED_FILES: usize = 5_000;

/// Git's own data, which holds no program git runs or configuration it reads: not looked at.
const SKIPPED: &[&str] = &["objects", "refs", "logs", "lfs"];

/// What else to cover and what else to make read-only: the other names, in `project`, of the
/// files in `covered` and of the files in or below `read_only`. Empty (and no walk) when none
/// of them has another name; `None` when they could not all be looked at (fail closed).
pub(crate) fn other_names(
    project: &Path,
    covered: &[PathBuf],
    read_only: &[PathBuf],
) -> Option<(Vec<PathBuf>, Vec<PathBuf>)> {
    let mut wanted: HashMap<(u64, u64), bool> = HashMap::new();
    for file in covered {
        if let Some(id) = linked(file) {
            wanted.insert(id, true);
        }
    }
    for path in read_only {
        for file in files_of(path)? {
            if let Some(id) = linked(&file) {
                wanted.entry(id).or_insert(false);
            }
        }
    }
    if wanted.is_empty() {
        return Some((Vec::new(), Vec::new()));
    }
    let (mut cover, mut keep) = (Vec::new(), Vec::new());
    let complete = walk::walk(project, &mut |path, _name, kind| {
        if kind.is_file()
            && let Ok(meta) = path.symlink_metadata()
            && let Some(secret) = wanted.get(&(meta.dev(), meta.ino()))
        {
            let list = if *secret { &mut cover } else { &mut keep };
            if !covered.iter().chain(read_only).any(|p| path.starts_with(p)) {
                list.push(path.to_path_buf());
            }
        }
        true
    });
    complete.then_some((cover, keep))
}

/// A regular file's identity when it has more than one name.
fn linked(file: &Path) -> Option<(u64, u64)> {
    let meta = file.symlink_metadata().ok()?;
    (meta.is_file() && meta.nlink() > 1).then(|| (meta.dev(), meta.ino()))
}

/// The regular files at or below `path`, not following links, skipping git's data; `None`
/// past the bound.
fn files_of(path: &Path) -> Option<Vec<PathBuf>> {
    let Ok(meta) = path.symlink_metadata() else {
        return Some(Vec::new());
    };
    if meta.is_file() {
        return Some(vec![path.to_path_buf()]);
    }
    let mut files = Vec::new();
    if meta.is_dir() {
        let complete = walk::walk(path, &mut |found, name, kind| {
            if kind.is_file() {
                files.push(found.to_path_buf());
            }
            files.len() <= PROTECTED_FILES && !SKIPPED.iter().any(|s| name == *s)
        });
        if !complete || files.len() > PROTECTED_FILES {
            return None;
        }
    }
    Some(files)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn other_names_of_covered_and_read_only_files_are_found_and_nothing_else() {
        let dir = tempfile::tempdir().unwrap();
        let project = dir.path().canonicalize().unwrap();
        std::fs::create_dir_all(project.join(".githooks")).unwrap();
        std::fs::create_dir_all(project.join("src")).unwrap();
        std::fs::write(project.join(".env.local"), "").unwrap();
        std::fs::hard_link(project.join(".env.local"), project.join("src/notes")).unwrap();
        std::fs::write(project.join(".githooks/pre-commit"), "").unwrap();
        std::fs::hard_link(
            project.join(".githooks/pre-commit"),
            project.join("hook-copy"),
        )
        .unwrap();
        std::fs::write(project.join("plain.txt"), "").unwrap();
        let (cover, keep) = other_names(
            &project,
            &[project.join(".env.local")],
            &[project.join(".githooks")],
        )
        .unwrap();
        assert_eq!(cover, vec![project.join("src/notes")]);
        assert_eq!(keep, vec![project.join("hook-copy")]);
        let none = other_names(&project, &[project.join("plain.txt")], &[]);
        assert_eq!(none, Some((Vec::new(), Vec::new())));
    }
}
