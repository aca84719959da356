//! The programs ai runs itself, outside any sandbox (git for its checks, the shell for a key
//! command, an MCP server named without a path): found only in `PATH`'s absolute directories
//! outside the directory ai runs in. An empty or relative `PATH` entry (`PATH=bin:...`, a
//! trailing `:`) would otherwise find a `git` a sandboxed call planted in the project, and ai
//! would run it as the user when the next session starts (sandbox round 29).

use std::path::{Path, PathBuf};

/// Where ai runs `name` from: itself when it names a path, else the first executable of that
/// name in an absolute `PATH` directory outside the working directory, else `/usr/bin/NAME`
/// (which then fails plainly if there is none).
pub(crate) fn own_program(name: &str) -> PathBuf {
    if name.contains('/') {
        return PathBuf::from(name);
    }
    let cwd = std::env::current_dir().ok();
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .filter(|dir| dir.is_absolute())
        .filter(|dir| !cwd.as_ref().is_some_and(|c| inside(dir, c)))
        .map(|dir| dir.join(name))
        .find(|candidate| executable(candidate))
        .unwrap_or_else(|| Path::new("/usr/bin").join(name))
}

fn inside(dir: &Path, cwd: &Path) -> bool {
    let real = dir.canonicalize().unwrap_or_else(|_| dir.to_path_buf());
    real.starts_with(cwd) || dir.starts_with(cwd)
}

fn executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    path.metadata()
        .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ai_runs_its_own_programs_from_absolute_directories_only() {
        let git = own_program("git");
        assert!(git.is_absolute(), "{git:?}");
        assert!(
            !git.starts_with(std::env::current_dir().unwrap()),
            "{git:?}"
        );
        assert_eq!(own_program("/bin/sh"), PathBuf::from("/bin/sh"));
    }
}
