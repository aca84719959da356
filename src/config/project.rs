//! Where the project is: the enclosing git root of the working directory (never home, `/` or a
//! system directory) and, for a worktree or submodule, the git directory its `.git` file names.
//! Both the policy and the sandbox need the same answer, so it is worked out here, once.

use std::path::{Path, PathBuf};

/// The project a command may write to: the enclosing git root, else `cwd`; `Err` says why there
/// is none (the home directory, `/`, a system directory, or a directory above home).
pub(crate) fn project_root(cwd: &Path, home: Option<&Path>) -> Result<PathBuf, String> {
    let root = cwd
        .ancestors()
        .find(|dir| dir.join(".git").exists())
        .unwrap_or(cwd)
        .to_path_buf();
    if let Some(home) = home {
        if root == home {
            return Err(format!("{} is your home directory", root.display()));
        }
        if home.starts_with(&root) {
            return Err(format!("{} contains your home directory", root.display()));
        }
    }
    if is_system_dir(&root) {
        return Err(format!("{} is a system directory", root.display()));
    }
    Ok(root)
}

fn is_system_dir(dir: &Path) -> bool {
    const SYSTEM: &[&str] = &[
        "/bin", "/boot", "/dev", "/etc", "/lib", "/lib32", "/lib64", "/opt", "/proc", "/run",
        "/sbin", "/srv", "/sys", "/usr", "/var",
    ];
    dir.parent().is_none()
        || SYSTEM.iter().any(|s| dir.starts_with(s))
        || dir == Path::new("/home")
        || dir == Path::new("/tmp")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_project_is_the_git_root_and_never_home_or_a_system_dir() {
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path().join("home");
        let sub = home.join("code/app/src");
        std::fs::create_dir_all(&sub).unwrap();
        std::fs::create_dir(home.join("code/app/.git")).unwrap();
        assert_eq!(project_root(&sub, Some(&home)), Ok(home.join("code/app")));
        assert_eq!(
            project_root(&home.join("code"), Some(&home)),
            Ok(home.join("code"))
        );
        assert!(project_root(&home, Some(&home)).is_err());
        assert!(project_root(dir.path(), Some(&home)).is_err());
        assert!(project_root(Path::new("/"), None).is_err());
        assert!(project_root(Path::new("/etc/nginx"), None).is_err());
        assert!(project_root(Path::new("/usr"), None).is_err());
    }
}
