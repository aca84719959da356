//! Resolves the paths a model names (relative, `~`, `..`, symlinks) to real locations before
//! anything is checked or touched.

use std::path::{Component, Path, PathBuf};

/// `path` made absolute against `cwd` (with `~` expanded) and canonical, whether or not it
/// exists: a missing path resolves through its nearest existing ancestor, so `..` and symlinks
/// cannot hide where it points. `None` for an empty path.
pub(crate) fn resolve(path: &str, cwd: &Path, home: Option<&Path>) -> Option<PathBuf> {
    if path.trim().is_empty() {
        return None;
    }
    Some(canonical(&absolute(path, cwd, home)))
}

/// `path` made absolute, `~` expanded, nothing resolved.
pub(crate) fn absolute(path: &str, cwd: &Path, home: Option<&Path>) -> PathBuf {
    let path = match (path.strip_prefix("~/"), home) {
        (Some(rest), Some(home)) => home.join(rest),
        _ if path == "~" => home.map_or_else(|| PathBuf::from(path), Path::to_path_buf),
        _ => PathBuf::from(path),
    };
    if path.is_absolute() {
        path
    } else {
        cwd.join(path)
    }
}

fn canonical(path: &Path) -> PathBuf {
    if let Ok(real) = std::fs::canonicalize(path) {
        return real;
    }
    // Normalise `.` and `..` lexically, then canonicalise the longest existing prefix.
    let mut lexical = PathBuf::new();
    for component in path.components() {
        match component {
            Component::ParentDir => {
                lexical.pop();
            }
            Component::CurDir => {}
            other => lexical.push(other),
        }
    }
    let mut existing = lexical.as_path();
    let mut rest = Vec::new();
    while let Some(parent) = existing.parent() {
        if let Ok(real) = std::fs::canonicalize(existing) {
            let mut out = real;
            out.extend(rest.iter().rev());
            return out;
        }
        if let Some(name) = existing.file_name() {
            rest.push(name.to_os_string());
        }
        existing = parent;
    }
    lexical
}

#[cfg(test)]
mod tests {
    use super::*;

    fn setup() -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let work = dir.path().join("work");
        std::fs::create_dir_all(work.join("src")).unwrap();
        std::fs::write(work.join("src/a.txt"), "a").unwrap();
        std::fs::write(dir.path().join("secret.txt"), "s").unwrap();
        let work = std::fs::canonicalize(work).unwrap();
        (dir, work)
    }

    #[test]
    fn relative_paths_and_missing_paths_resolve() {
        let (_dir, work) = setup();
        assert_eq!(
            resolve("src/../src/a.txt", &work, None),
            Some(work.join("src/a.txt"))
        );
        assert_eq!(
            resolve("src/new/../b.txt", &work, None),
            Some(work.join("src/b.txt"))
        );
        assert_eq!(resolve("  ", &work, None), None);
    }

    #[test]
    fn dot_dot_escapes_resolve_to_where_they_point() {
        let (_dir, work) = setup();
        let outside = work.parent().map(|p| p.join("secret.txt"));
        assert_eq!(resolve("../secret.txt", &work, None), outside);
        assert_eq!(resolve("nothere/../../secret.txt", &work, None), outside);
    }

    #[cfg(unix)]
    #[test]
    fn a_symlink_resolves_to_its_target() {
        let (dir, work) = setup();
        let link = work.join("link");
        assert!(std::os::unix::fs::symlink(dir.path().join("secret.txt"), &link).is_ok());
        let target = std::fs::canonicalize(dir.path().join("secret.txt")).ok();
        assert_eq!(resolve("link", &work, None), target);
    }
}
