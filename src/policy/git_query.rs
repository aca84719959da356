//! Asking the project's own git a question while judging a line (is a file tracked? what did
//! the history ever hold?). This runs outside every sandbox, before anyone approves anything,
//! so it only ever reads the project's own repository, named explicitly (a `.git` directory at
//! the project's root: never a `.git` file, a bare or nested repository, or one reached through
//! a link, all of which a sandboxed command can plant), and with every setting that makes git
//! run a program turned off: fsmonitor, hooks, pager, signature checks, ssh, credential
//! helpers, lazy fetches of a partial clone, external diffs.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

/// The project's own git directory: its `.git` directory, or the one a `.git` file names (a
/// linked worktree, a submodule) when that lies neither in the project nor in a temp
/// directory, where a sandboxed command could have made it.
pub(crate) fn own_git_dir(project: &Path) -> Option<PathBuf> {
    let entry = project.join(".git");
    let meta = entry.symlink_metadata().ok()?;
    if meta.is_dir() {
        return Some(entry);
    }
    if !meta.is_file() {
        return None;
    }
    let text = std::fs::read_to_string(&entry).ok()?;
    let named = text.strip_prefix("gitdir:")?.trim();
    let real = project.join(named).canonicalize().ok()?;
    let project = project.canonicalize().ok()?;
    let writable = ["/tmp", "/var/tmp", "/dev/shm"]
        .iter()
        .chain(std::env::temp_dir().to_str().as_slice())
        .any(|temp| real.starts_with(temp));
    (!real.starts_with(&project) && !writable).then_some(real)
}

/// Settings that would otherwise let a repository's configuration run a program.
const INERT: &[&str] = &[
    "core.fsmonitor=false",
    "core.hooksPath=/dev/null",
    "core.pager=cat",
    "core.sshCommand=false",
    "core.askPass=false",
    "credential.helper=",
    "log.showSignature=false",
    "gpg.program=false",
    "gpg.ssh.program=false",
    "gpg.x509.program=false",
    "diff.external=",
    "protocol.allow=never",
    "fetch.recurseSubmodules=false",
    "core.untrackedCache=false",
];

/// `git ARGS [-- PATHS]` on the repository at `project`; `None` when it has none of its own
/// (see [`own_git_dir`]), or git could not be run at all.
pub(crate) fn ask_git(project: &Path, args: &[&str], paths: &[&Path]) -> Option<Output> {
    let git_dir = own_git_dir(project)?;
    let mut command = Command::new(crate::config::own_program("git"));
    command.arg("--no-pager").arg("--no-replace-objects");
    for setting in INERT {
        command.args(["-c", setting]);
    }
    let mut dir_arg = std::ffi::OsString::from("--git-dir=");
    dir_arg.push(&git_dir);
    let mut tree_arg = std::ffi::OsString::from("--work-tree=");
    tree_arg.push(project);
    command.arg(dir_arg).arg(tree_arg).args(args);
    if !paths.is_empty() {
        command.arg("--").args(paths);
    }
    command
        .current_dir(project)
        .env("GIT_TERMINAL_PROMPT", "0")
        .env("GIT_OPTIONAL_LOCKS", "0")
        .env("GIT_NO_LAZY_FETCH", "1")
        .env("GIT_NO_REPLACE_OBJECTS", "1")
        .env_remove("GIT_DIR")
        .env_remove("GIT_WORK_TREE")
        .env_remove("GIT_CONFIG_PARAMETERS")
        .env_remove("GIT_EXTERNAL_DIFF")
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .output()
        .ok()
}
