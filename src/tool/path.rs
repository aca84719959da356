//! Resolves the paths a model names (relative, `~`, `..`, symlinks) to real locations, and checks
//! them against the allowed roots before any file is touched.

use std::path::{Component, Path, PathBuf};

/// The directories the filesystem tool may look into, already canonical.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Roots {
    dirs: Vec<PathBuf>,
    /// How the roots were written, for error messages.
    label: String,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PathError {
    /// The path resolves outside every root.
    Outside {
        resolved: PathBuf,
        roots: String,
    },
    Empty,
}

impl Roots {
    /// `cwd` and `tmp` stand for the working directory and the temp directory; roots that do not
    /// exist are dropped.
    pub fn new(spec: &[String], cwd: &Path, temp: &Path, home: Option<&Path>) -> Self {
        let dirs = spec
            .iter()
            .filter_map(|root| {
                let dir = match root.as_str() {
                    "cwd" => cwd.to_path_buf(),
                    "tmp" => temp.to_path_buf(),
                    other => expand(other, cwd, home),
                };
                std::fs::canonicalize(dir).ok()
            })
            .collect();
        Roots {
            dirs,
            label: spec.join(":"),
        }
    }

    /// Resolves `path` against `cwd` and checks it lies under a root. Paths that do not exist yet
    /// resolve through their nearest existing ancestor, so `..` and symlinks cannot escape.
    pub fn resolve(
        &self,
        path: &str,
        cwd: &Path,
        home: Option<&Path>,
    ) -> Result<PathBuf, PathError> {
        if path.trim().is_empty() {
            return Err(PathError::Empty);
        }
        let resolved = canonical(&expand(path, cwd, home));
        if self.dirs.iter().any(|root| resolved.starts_with(root)) {
            Ok(resolved)
        } else {
            Err(PathError::Outside {
                resolved,
                roots: self.label.clone(),
            })
        }
    }
}

fn expand(path: &str, cwd: &Path, home: Option<&Path>) -> PathBuf {
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

/// The canonical form of an absolute path, whether or not it exists.
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

    fn setup() -> Option<(tempfile::TempDir, PathBuf, Roots)> {
        let dir = tempfile::tempdir().ok()?;
        let work = dir.path().join("work");
        std::fs::create_dir_all(work.join("src")).ok()?;
        std::fs::write(work.join("src/a.txt"), "a").ok()?;
        std::fs::write(dir.path().join("secret.txt"), "s").ok()?;
        let roots = Roots::new(&["cwd".into()], &work, &work, None);
        let work = std::fs::canonicalize(work).ok()?;
        Some((dir, work, roots))
    }

    #[test]
    fn relative_paths_inside_the_root_resolve() {
        let Some((_dir, work, roots)) = setup() else {
            return;
        };
        assert_eq!(
            roots.resolve("src/../src/a.txt", &work, None),
            Ok(work.join("src/a.txt"))
        );
        assert_eq!(
            roots.resolve("src/new/../b.txt", &work, None),
            Ok(work.join("src/b.txt"))
        );
    }

    #[test]
    fn dot_dot_and_absolute_escapes_are_refused() {
        let Some((_dir, work, roots)) = setup() else {
            return;
        };
        assert!(matches!(
            roots.resolve("../secret.txt", &work, None),
            Err(PathError::Outside { .. })
        ));
        assert!(matches!(
            roots.resolve("/etc/passwd", &work, None),
            Err(PathError::Outside { .. })
        ));
        assert!(matches!(
            roots.resolve("nothere/../../x", &work, None),
            Err(PathError::Outside { .. })
        ));
        assert_eq!(roots.resolve("  ", &work, None), Err(PathError::Empty));
    }

    #[cfg(unix)]
    #[test]
    fn a_symlink_pointing_outside_is_refused() {
        let Some((dir, work, roots)) = setup() else {
            return;
        };
        let link = work.join("link");
        assert!(std::os::unix::fs::symlink(dir.path().join("secret.txt"), &link).is_ok());
        assert!(matches!(
            roots.resolve("link", &work, None),
            Err(PathError::Outside { .. })
        ));
    }
}
