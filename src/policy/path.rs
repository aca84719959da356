//! Path rules: the allowed roots, and secrets below a directory (the list of secret locations is
//! config's, shared with the sandbox).

use std::path::{Path, PathBuf};

pub(crate) use crate::config::sensitive;
use crate::config::{home_secrets, system_secrets};

/// The directories tools may use without asking, canonical.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Roots {
    dirs: Vec<PathBuf>,
    /// How the roots were written, for messages.
    pub(crate) label: String,
}

impl Roots {
    /// `cwd` and `tmp` stand for the working directory and the temp directory; `~/` is expanded;
    /// roots that do not exist are dropped.
    pub(crate) fn new(spec: &[String], cwd: &Path, temp: &Path, home: Option<&Path>) -> Self {
        let dirs = spec
            .iter()
            .filter_map(|root| {
                let dir = match root.as_str() {
                    "cwd" => cwd.to_path_buf(),
                    "tmp" => temp.to_path_buf(),
                    other => match (other.strip_prefix("~/"), home) {
                        (Some(rest), Some(home)) => home.join(rest),
                        _ => cwd.join(other),
                    },
                };
                std::fs::canonicalize(dir).ok()
            })
            .collect();
        Roots {
            dirs,
            label: spec.join(":"),
        }
    }

    pub(crate) fn contains(&self, resolved: &Path) -> bool {
        self.dirs.iter().any(|root| resolved.starts_with(root))
    }
}

/// The first secret file below `dir` (a project's `.env`, a key, a token in `.git/config`'s
/// neighbours), looked for in a bounded walk of everything (dependency trees included: a `.env`
/// hides there too). A tree too big to walk counts as holding one: the caller asks.
pub(crate) fn secret_below(dir: &Path, home: Option<&Path>) -> Option<PathBuf> {
    let mut budget = 50_000usize;
    let mut pending = vec![dir.to_path_buf()];
    while let Some(current) = pending.pop() {
        let Ok(entries) = std::fs::read_dir(&current) else {
            continue;
        };
        for entry in entries.flatten() {
            let Some(left) = budget.checked_sub(1) else {
                return Some(dir.join("(too many files to check for secrets)"));
            };
            budget = left;
            let path = entry.path();
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            if kind.is_dir() {
                pending.push(path);
            } else if sensitive(&path, home).is_some() {
                return Some(path);
            } else if kind.is_symlink()
                && let Ok(real) = std::fs::canonicalize(&path)
                && (sensitive(&real, home).is_some()
                    || (real.is_dir() && holds_secrets(&real, home)))
            {
                // A link in the tree to a secret (or to a directory holding one): readers that
                // follow links (`grep -R`, `rg -L`) would read it.
                return Some(path);
            }
        }
    }
    None
}

/// Whether `dir` holds a secret location somewhere below it (so reading it recursively reads them).
pub(crate) fn holds_secrets(dir: &Path, home: Option<&Path>) -> bool {
    let below = |secret: &Path| secret.starts_with(dir) && secret != dir;
    dir == Path::new("/")
        || home.is_some_and(|h| h.starts_with(dir))
        || home.is_some_and(|h| home_secrets().any(|p| below(&h.join(p))))
        || system_secrets().any(|p| below(Path::new(p)))
}

#[cfg(test)]
mod tests {
    use super::*;

    const HOME: &str = "/home/u";

    fn is_sensitive(path: &str) -> bool {
        sensitive(Path::new(path), Some(Path::new(HOME))).is_some()
    }

    #[test]
    fn secret_locations_are_sensitive_and_ordinary_files_are_not() {
        let secret = [
            "/home/u/.ssh/id_rsa",
            "/home/u/.ssh",
            "/home/u/.gnupg/pubring.kbx",
            "/home/u/.aws/credentials",
            "/home/u/.config/gcloud/credentials.db",
            "/home/u/.kube/config",
            "/home/u/.netrc",
            "/home/u/.docker/config.json",
            "/etc/shadow",
            "/etc/sudoers",
            "/etc/sudoers.d/90-cloud",
            "/proc/1/environ",
            "/proc/self/environ",
            "/work/app/.env",
            "/work/app/.env.production",
            "/work/certs/server.pem",
            "/work/certs/tls.key",
            "/tmp/id_ed25519",
        ];
        for path in secret {
            assert!(is_sensitive(path), "{path} should be sensitive");
        }
        let ordinary = [
            "/home/u/project/Cargo.toml",
            "/home/u/.bashrc",
            "/work/app/.env.example",
            "/work/app/environment.rs",
            "/home/u/.ssh_notes.txt",
            "/tmp/id_rsa.pub",
            "/etc/hostname",
            "/proc/cpuinfo",
            "/work/keyboard.rs",
        ];
        for path in ordinary {
            assert!(!is_sensitive(path), "{path} should not be sensitive");
        }
    }

    #[test]
    fn roots_contain_what_is_under_them() {
        let dir = tempfile::tempdir().expect("temp dir");
        let real = std::fs::canonicalize(dir.path()).expect("canonical temp dir");
        let roots = Roots::new(&["cwd".into()], &real, &real, None);
        assert!(roots.contains(&real.join("a/b")));
        assert!(!roots.contains(Path::new("/etc/passwd")));
    }
}
