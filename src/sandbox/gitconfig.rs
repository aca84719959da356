//! What the user's git configuration names inside the project, which git reads or runs later,
//! outside ai: files it includes (`include.path`, `includeIf.*.path`, whatever the condition),
//! hooks directories (`core.hooksPath` in any scope: a global `.githooks` lands in every
//! repository), and project files it runs as programs (`core.fsmonitor = tools/fsmonitor.sh`,
//! a filter, a diff driver, an alias). Asked of git itself, with the user's own system and
//! global configuration, once per run before any command; nothing a command writes is read.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The keys whose values git reads as a file to include, a hooks directory or a program.
const KEYS: &str = r"^(include|includeif\..*)\.path$|^core\.(hookspath|fsmonitor|sshcommand|pager|editor|askpass|gitproxy)$|^(sequence\.editor|diff\.external|gpg\.program|credential\.helper|interactive\.difffilter|web\.browser|uploadpack\.packobjectshook)$|^(filter|diff|merge|difftool|mergetool|credential|gpg|browser|man|remote|submodule)\..*\.(clean|smudge|process|textconv|command|driver|cmd|helper|program|path|uploadpack|receivepack|update)$|^pager\.|^alias\.";

/// What a repository's configuration names.
#[derive(Debug, Default)]
pub(crate) struct Named {
    /// Files git reads as config or runs, as they are now: to be kept read-only.
    pub(crate) files: Vec<PathBuf>,
    /// Of those, the ones git reads as config (included): their credentials are scrubbed from
    /// what calls see, like the repository's own config.
    pub(crate) includes: Vec<PathBuf>,
    /// Included files that do not exist yet: one a command makes is moved aside after it.
    pub(crate) absent: Vec<PathBuf>,
    /// Hooks directories.
    pub(crate) hooks: Vec<PathBuf>,
    /// Python modules its programs run (`-m NAME`), which Python finds in the work tree first.
    pub(crate) modules: Vec<String>,
}

/// What the configuration git reads for the repository in `git_dir` (with `work_tree`, and
/// `home` for `~/`) names; `None` when git cannot say (none installed, a repository it
/// refuses).
pub(crate) fn named(git_dir: &Path, work_tree: &Path, home: Option<&Path>) -> Option<Named> {
    let mut git_dir_arg = std::ffi::OsString::from("--git-dir=");
    git_dir_arg.push(git_dir);
    let output = Command::new(crate::config::own_program("git"))
        .arg("--no-pager")
        .arg(git_dir_arg)
        .args(["config", "-z", "--show-origin", "--get-regexp", KEYS])
        .current_dir(work_tree)
        .env("GIT_TERMINAL_PROMPT", "0")
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .output()
        .ok()?;
    // 1: no key matched.
    if !output.status.success() && output.status.code() != Some(1) {
        return None;
    }
    let text = String::from_utf8_lossy(&output.stdout);
    let expand = |value: &str, base: &Path| match (value.strip_prefix("~/"), home) {
        (Some(rest), Some(home)) => home.join(rest),
        _ => base.join(value),
    };
    let mut named = Named::default();
    let mut fields = text.split('\0');
    while let (Some(origin), Some(entry)) = (fields.next(), fields.next()) {
        let (key, value) = entry.split_once('\n').unwrap_or((entry, ""));
        if key.starts_with("include") && key.ends_with(".path") {
            // Relative to the file that includes it.
            let Some(base) = (origin.strip_prefix("file:"))
                .and_then(|file| work_tree.join(file).parent().map(Path::to_path_buf))
            else {
                continue;
            };
            let file = crate::config::lexical(&expand(value, &base));
            match file.symlink_metadata() {
                Ok(_) => {
                    named.includes.push(file.clone());
                    named.files.push(file);
                }
                Err(_) => named.absent.push(file),
            }
        } else if key == "core.hookspath" {
            named
                .hooks
                .push(crate::config::lexical(&expand(value, work_tree)));
        } else {
            named.modules.extend(super::git_modules::run_modules(value));
            // Every project file the command line names, not only its program: `python3
            // scripts/strip.py` runs the script; one not there yet is moved aside if made.
            for program in super::git_modules::program_paths(value) {
                let file = crate::config::lexical(&expand(&program, work_tree));
                if file.is_file() {
                    named.files.push(file);
                } else if file.symlink_metadata().is_err() {
                    named.absent.push(file);
                }
            }
        }
    }
    Some(named)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn includes_hooks_and_programs_are_found_where_git_resolves_them() {
        let dir = tempfile::tempdir().unwrap();
        let project = dir.path().canonicalize().unwrap();
        let git = |args: &[&str]| crate::sandbox::test_git(&project, args);
        git(&["init", "-q"]);
        git(&["config", "include.path", "../shared.gitconfig"]);
        git(&["config", "includeIf.onbranch:x.path", "../tools/git.cfg"]);
        git(&["config", "core.hooksPath", ".githooks"]);
        git(&["config", "core.fsmonitor", "tools/fsmon.sh --quiet"]);
        git(&["config", "alias.x", "!./tools/x.sh"]);
        std::fs::create_dir_all(project.join("tools")).unwrap();
        for file in ["shared.gitconfig", "tools/fsmon.sh", "tools/x.sh"] {
            std::fs::write(project.join(file), "").unwrap();
        }
        let named = named(&project.join(".git"), &project, None).unwrap();
        assert!(
            named.hooks.contains(&project.join(".githooks")),
            "{named:?}"
        );
        assert!(
            named.absent.contains(&project.join("tools/git.cfg")),
            "{named:?}"
        );
        for file in ["shared.gitconfig", "tools/fsmon.sh", "tools/x.sh"] {
            assert!(
                named.files.contains(&project.join(file)),
                "{file}: {named:?}"
            );
        }
    }

    /// A script named after its interpreter (`python3 scripts/strip.py`), inside `sh -c`, or
    /// from the top level, is the project's file git runs, as a bare path is (sandbox round 20);
    /// one not there yet is moved aside if a call makes it.
    #[test]
    fn scripts_named_anywhere_in_a_command_are_found() {
        let dir = tempfile::tempdir().unwrap();
        let project = dir.path().canonicalize().unwrap();
        let git = |args: &[&str]| crate::sandbox::test_git(&project, args);
        git(&["init", "-q"]);
        git(&["config", "filter.nb.clean", "python3 scripts/strip.py"]);
        git(&["config", "diff.nb.textconv", "sh -c 'node ./tools/show.js'"]);
        git(&[
            "config",
            "pager.log",
            "\"$(git rev-parse --show-toplevel)/tools/page.sh\"",
        ]);
        git(&["config", "interactive.diffFilter", "tools/later.sh --color"]);
        git(&["config", "filter.top.clean", "python3 nbstrip.py"]);
        std::fs::create_dir_all(project.join("scripts")).unwrap();
        std::fs::create_dir_all(project.join("tools")).unwrap();
        for file in [
            "scripts/strip.py",
            "tools/show.js",
            "tools/page.sh",
            "nbstrip.py",
        ] {
            std::fs::write(project.join(file), "").unwrap();
        }
        let named = named(&project.join(".git"), &project, None).unwrap();
        for file in [
            "scripts/strip.py",
            "tools/show.js",
            "tools/page.sh",
            "nbstrip.py",
        ] {
            assert!(
                named.files.contains(&project.join(file)),
                "{file}: {named:?}"
            );
        }
        assert!(
            named.absent.contains(&project.join("tools/later.sh")),
            "{named:?}"
        );
    }
}
