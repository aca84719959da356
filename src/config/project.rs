//! Where the project is: the enclosing git root of the working directory (never home, `/` or a
//! system directory) and, for a worktree or submodule, the git directory its `.git` file names.
//! Both the policy and the sandbox need the same answer, so it is worked out here, once.

use std::path::{Path, PathBuf};

/// The project `cwd` is in: the enclosing git root, else `cwd`; `Err` says why there is none
/// (the home directory, `/`, a system directory, or a directory above home). Where to look for
/// the project's instructions (AGENTS.md).
pub(crate) fn project_dir(cwd: &Path, home: Option<&Path>) -> Result<PathBuf, String> {
    let root = repository_of(cwd).unwrap_or(cwd).to_path_buf();
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

fn repository_of(cwd: &Path) -> Option<&Path> {
    cwd.ancestors().find(|dir| dir.join(".git").exists())
}

/// The project a command may write to: `project_dir`, but never one inside a hidden
/// directory of the home, nor one of the home that is no repository; `Err` says why.
pub(crate) fn project_root(cwd: &Path, home: Option<&Path>) -> Result<PathBuf, String> {
    let root = project_dir(cwd, home)?;
    let repository = repository_of(cwd);
    if let Some(home) = home {
        // `~/.config`, `~/.local/share`: what is written there runs later (autostart entries,
        // systemd units, the global git config, an editor's config), a repository of dotfiles
        // too.
        let hidden = (root.strip_prefix(home).ok())
            .and_then(|rest| rest.components().next())
            .is_some_and(|first| first.as_os_str().to_string_lossy().starts_with('.'));
        if hidden {
            return Err(format!(
                "{} is inside a hidden directory of your home, not a project",
                root.display()
            ));
        }
        // Elsewhere in the home only a repository: a directory reached through a link a call
        // planted (`frontend -> ~/bin`) is, once the shell has forgotten the link, nothing but
        // a directory of the home, and `~/bin` holds what the next shell runs.
        if repository.is_none() && (root.starts_with(home) || root.starts_with("/home")) {
            return Err(format!(
                "{} is in a home but in no git repository",
                root.display()
            ));
        }
    }
    Ok(root)
}

/// Why `root` cannot be the writable project although `project_root` found it: it is in no
/// repository and holds a directory on `PATH` (`~/bin`, Homebrew's `bin`, reached through a
/// link a call planted once the shell forgot the link), whose programs the next shell runs.
pub(crate) fn holds_programs_on_path(root: &Path, path: Option<&str>) -> Option<String> {
    if repository_of(root).is_some() {
        return None;
    }
    let on_path = std::env::split_paths(path.unwrap_or_default())
        .filter_map(|dir| dir.canonicalize().ok())
        .find(|dir| dir.starts_with(root))?;
    Some(format!(
        "{} is in no git repository and holds {}, a directory on PATH",
        root.display(),
        on_path.display()
    ))
}

/// Why the working directory cannot be the writable project although `project_root` found
/// one: the shell reached it (`logical`, its `$PWD`) through a link out of the repository the
/// path lies in (a subdirectory a command replaced by a link into the home).
pub(crate) fn reached_through_a_link(cwd: &Path, logical: Option<&Path>) -> Option<String> {
    let logical = logical.filter(|l| l.is_absolute() && *l != cwd)?;
    // $PWD is stale or names another directory: nothing to learn from it.
    if logical.canonicalize().ok()? != cwd {
        return None;
    }
    let repository = logical
        .ancestors()
        .skip(1)
        .find(|dir| dir.join(".git").exists())?;
    let real = repository.canonicalize().ok()?;
    (!cwd.starts_with(&real)).then(|| {
        format!(
            "{} is reached through a link out of the project {}",
            logical.display(),
            repository.display()
        )
    })
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
        assert!(project_root(&home.join("code"), Some(&home)).is_err());
        assert!(project_root(&home, Some(&home)).is_err());
        assert!(project_root(dir.path(), Some(&home)).is_err());
        assert!(project_root(Path::new("/"), None).is_err());
        assert!(project_root(Path::new("/etc/nginx"), None).is_err());
        assert!(project_root(Path::new("/usr"), None).is_err());
    }

    #[test]
    fn a_hidden_directory_of_the_home_is_never_a_project_not_even_a_repository() {
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path().join("home");
        for sub in [".config/systemd/user", ".local/share", ".config/nvim/.git"] {
            std::fs::create_dir_all(home.join(sub)).unwrap();
        }
        assert!(project_root(&home.join(".config"), Some(&home)).is_err());
        assert!(project_root(&home.join(".config/systemd/user"), Some(&home)).is_err());
        assert!(project_root(&home.join(".local/share"), Some(&home)).is_err());
        assert!(project_root(&home.join(".config/nvim"), Some(&home)).is_err());
    }

    #[test]
    fn a_directory_holding_programs_on_path_is_a_project_only_in_a_repository() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let (brew, repo) = (root.join("brew"), root.join("repo"));
        for sub in [
            brew.join("bin"),
            repo.join(".git"),
            repo.join("node_modules/.bin"),
        ] {
            std::fs::create_dir_all(sub).unwrap();
        }
        let path = format!(
            "{}:{}:/usr/bin",
            brew.join("bin").display(),
            repo.join("node_modules/.bin").display()
        );
        assert!(holds_programs_on_path(&brew, Some(&path)).is_some());
        assert!(holds_programs_on_path(&brew.join("bin"), Some(&path)).is_some());
        assert_eq!(holds_programs_on_path(&repo, Some(&path)), None);
        assert_eq!(
            holds_programs_on_path(&root.join("other"), Some(&path)),
            None
        );
    }

    #[test]
    fn a_working_directory_reached_through_a_link_out_of_its_repository_is_named() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let (app, other) = (root.join("code/app"), root.join("code/other"));
        for sub in [app.join(".git"), app.join("src"), other.clone()] {
            std::fs::create_dir_all(sub).unwrap();
        }
        std::os::unix::fs::symlink(&other, app.join("frontend")).unwrap();
        std::os::unix::fs::symlink(app.join("src"), app.join("source")).unwrap();
        let why = reached_through_a_link(&other, Some(&app.join("frontend")));
        assert!(why.is_some_and(|w| w.contains("link out of the project")));
        // A link within the repository, a plain path, a stale $PWD: nothing to say.
        assert_eq!(
            reached_through_a_link(&app.join("src"), Some(&app.join("source"))),
            None
        );
        assert_eq!(reached_through_a_link(&other, Some(&other)), None);
        assert_eq!(reached_through_a_link(&other, Some(&app.join("src"))), None);
        assert_eq!(reached_through_a_link(&other, None), None);
    }
}
