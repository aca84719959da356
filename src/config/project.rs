//! Where the project is: the enclosing git root of the working directory (never home, `/` or a
//! system directory) and, for a worktree or submodule, the git directory its `.git` file names.
//! Both the policy and the sandbox need the same answer, so it is worked out here, once.

use std::path::{Path, PathBuf};

/// The project a command may write to: the enclosing git root, else `cwd`; `Err` says why there
/// is none (the home directory, `/`, a system directory, or a directory above home).
pub fn project_root(cwd: &Path, home: Option<&Path>) -> Result<PathBuf, String> {
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

/// The git directory of a project whose `.git` is a file (a worktree, a submodule): its commits
/// are written there, so it is part of the project. `None` for an ordinary `.git` directory.
pub fn linked_git_dir(project: &Path) -> Option<PathBuf> {
    let text = std::fs::read_to_string(project.join(".git")).ok()?;
    let gitdir = project.join(text.strip_prefix("gitdir:")?.trim());
    // A worktree's own dir names the repository's common dir, where objects and refs live.
    let common = std::fs::read_to_string(gitdir.join("commondir"))
        .ok()
        .map(|rel| gitdir.join(rel.trim()));
    common.unwrap_or(gitdir).canonicalize().ok()
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
    fn a_worktree_brings_its_repositorys_git_dir() {
        let dir = tempfile::tempdir().unwrap();
        let main = dir.path().join("main");
        let own = main.join(".git/worktrees/wt");
        std::fs::create_dir_all(&own).unwrap();
        std::fs::write(own.join("commondir"), "../..\n").unwrap();
        let tree = dir.path().join("wt");
        std::fs::create_dir_all(&tree).unwrap();
        std::fs::write(tree.join(".git"), format!("gitdir: {}\n", own.display())).unwrap();
        assert_eq!(
            linked_git_dir(&tree),
            Some(main.join(".git").canonicalize().unwrap())
        );
        assert_eq!(linked_git_dir(&main), None);
    }

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
