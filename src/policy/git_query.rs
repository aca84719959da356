//! Asking the project's own git a question while judging a line (is a file tracked? what did
//! the history ever hold?), so that nothing its configuration names runs: fsmonitor off, no
//! pager, no prompt, no optional locks, no input.

use std::path::Path;
use std::process::{Command, Output, Stdio};

/// `git ARGS [-- PATHS]` in `dir`; `None` when git could not be run at all.
pub(crate) fn ask_git(dir: &Path, args: &[&str], paths: &[&Path]) -> Option<Output> {
    let mut command = Command::new("git");
    command
        .args(["-c", "core.fsmonitor=false", "--no-pager"])
        .args(args);
    if !paths.is_empty() {
        command.arg("--").args(paths);
    }
    command
        .current_dir(dir)
        .env("GIT_TERMINAL_PROMPT", "0")
        .env("GIT_OPTIONAL_LOCKS", "0")
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .output()
        .ok()
}
