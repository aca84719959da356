//! What direnv runs from the project when the user enters it: the approved `.envrc` (hidden
//! and unwritable as a secret) and whatever it loads, which direnv does not ask about again
//! (`source_env_if_exists .envrc.local`, `source_env scripts/dev-env.sh`, `dotenv`, `use nix`).
//! Those files are read-only; one not there yet is moved aside if a call makes it (sandbox
//! round 22). The directories it puts first on PATH (`PATH_add bin`, `layout node`) hold what
//! the user's shell runs for `ls` or `git` there: a program a call puts there (or changes)
//! under the name of one the user has elsewhere on PATH is moved aside (sandbox round 24).

use std::collections::{BTreeMap, BTreeSet};
use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// The files `work_tree`'s `.envrc` loads: (there now, not there yet).
pub(super) fn loaded(work_tree: &Path) -> (Vec<PathBuf>, Vec<PathBuf>) {
    let (mut present, mut absent) = (Vec::new(), Vec::new());
    let Some(text) = crate::config::read_small(&work_tree.join(".envrc"), 64 * 1024) else {
        return (present, absent);
    };
    let mut files: Vec<String> = Vec::new();
    for line in text.lines().map(str::trim) {
        let mut words = line.split_whitespace();
        let Some(command) = words.next() else {
            continue;
        };
        let argument = words.next().map(|w| w.trim_matches(['"', '\'']));
        match command {
            "source_env"
            | "source_env_if_exists"
            | "source"
            | "."
            | "dotenv"
            | "dotenv_if_exists"
            | "watch_file"
            | "source_url" => {
                files.extend(argument.map(str::to_string));
            }
            // `use nix`/`use flake` evaluates the project's Nix files.
            "use" => files
                .extend(["shell.nix", "default.nix", "flake.nix", "flake.lock"].map(String::from)),
            _ => {}
        }
    }
    // What direnv keeps for the project (nix-direnv's cached environment, `layout python`'s
    // virtualenv, whose `bin` goes first on PATH): direnv itself makes it, outside ai.
    let layout = text.lines().any(|l| {
        let first = l.split_whitespace().next();
        matches!(first, Some("layout" | "use"))
    });
    match work_tree.join(".direnv") {
        dir if dir.is_dir() => present.push(dir),
        dir if layout => absent.push(dir),
        _ => {}
    }
    for file in files
        .iter()
        .filter(|f| !f.contains('$') && !f.starts_with('/'))
    {
        let path = crate::config::lexical(&work_tree.join(file));
        if !path.starts_with(work_tree) {
            continue;
        }
        match path.symlink_metadata() {
            Ok(_) => present.push(path),
            Err(_) => absent.push(path),
        }
    }
    (present, absent)
}

/// The directories inside `work_tree` that its `.envrc` puts on PATH: `PATH_add DIR...`,
/// `path_add PATH DIR...`, `load_prefix DIR` (its `bin` and `sbin`), `layout node`
/// (`node_modules/.bin`), `layout go` (`bin`), and `PATH=` or `export PATH=` entries relative to
/// the project (`$PWD/scripts`, `${PWD}/bin`, `$(pwd)/bin`, `./bin`).
pub(super) fn path_dirs(work_tree: &Path) -> Vec<PathBuf> {
    let Some(text) = crate::config::read_small(&work_tree.join(".envrc"), 64 * 1024) else {
        return Vec::new();
    };
    let mut dirs: Vec<String> = Vec::new();
    for line in text.lines().map(str::trim) {
        let words: Vec<&str> = line.split_whitespace().collect();
        match words.as_slice() {
            ["PATH_add", rest @ ..] => dirs.extend(rest.iter().map(|w| unquoted(w))),
            ["path_add", "PATH", rest @ ..] => dirs.extend(rest.iter().map(|w| unquoted(w))),
            ["load_prefix", prefix, ..] => {
                let prefix = unquoted(prefix);
                dirs.extend([format!("{prefix}/bin"), format!("{prefix}/sbin")]);
            }
            ["layout", "node", ..] => dirs.push("node_modules/.bin".into()),
            ["layout", "go", ..] => dirs.push("bin".into()),
            _ => {
                let assignment = line.strip_prefix("export ").unwrap_or(line);
                if let Some(value) = assignment.strip_prefix("PATH=") {
                    dirs.extend(unquoted(value).split(':').map(str::to_string));
                }
            }
        }
    }
    let mut found: Vec<PathBuf> = dirs
        .iter()
        .filter_map(|dir| relative_to_project(dir))
        .map(|dir| crate::config::lexical(&work_tree.join(dir)))
        .filter(|dir| dir.starts_with(work_tree))
        .collect();
    found.sort();
    found.dedup();
    found
}

fn unquoted(word: &str) -> String {
    word.trim_matches(['"', '\'']).to_string()
}

/// A PATH entry as a path relative to the project, if it names one there.
fn relative_to_project(entry: &str) -> Option<&str> {
    for prefix in ["$PWD", "${PWD}", "$(pwd)"] {
        if let Some(rest) = entry.strip_prefix(prefix) {
            return Some(rest.trim_start_matches('/')).filter(|r| !r.contains('$'));
        }
    }
    let relative = !entry.starts_with('/') && !entry.starts_with('~') && !entry.contains('$');
    (relative && !entry.is_empty()).then_some(entry)
}

/// A directory `.envrc` puts on PATH, with what was there before a call: name, and the change
/// time of the entry and of what it leads to (a link's target changed counts).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct PathDir {
    dir: PathBuf,
    before: BTreeMap<OsString, (i64, i64)>,
}

impl PathDir {
    pub(super) fn new(dir: PathBuf) -> PathDir {
        let before = entries(&dir);
        PathDir { dir, before }
    }

    /// Takes what is there again, before a call: what the user changed between calls is theirs.
    pub(super) fn refresh(&mut self) {
        self.before = entries(&self.dir);
    }

    /// The entries a call added or changed under the name of a program elsewhere on PATH.
    pub(super) fn shadowing(&self, elsewhere: &BTreeSet<OsString>) -> Vec<PathBuf> {
        entries(&self.dir)
            .into_iter()
            .filter(|(name, seen)| elsewhere.contains(name) && self.before.get(name) != Some(seen))
            .map(|(name, _)| self.dir.join(name))
            .collect()
    }
}

fn entries(dir: &Path) -> BTreeMap<OsString, (i64, i64)> {
    use std::os::unix::fs::MetadataExt;
    let Ok(read) = std::fs::read_dir(dir) else {
        return BTreeMap::new();
    };
    read.flatten()
        .map(|entry| {
            let path = entry.path();
            let own = path
                .symlink_metadata()
                .map_or(0, |m| m.ctime() * 1_000_000_000 + m.ctime_nsec());
            let target = path
                .metadata()
                .map_or(0, |m| m.ctime() * 1_000_000_000 + m.ctime_nsec());
            (entry.file_name(), (own, target))
        })
        .collect()
}

/// The names of the programs on `path`'s directories outside `project`.
pub(super) fn programs_on_path(
    path: Option<&std::ffi::OsStr>,
    project: &Path,
) -> BTreeSet<OsString> {
    let Some(path) = path else {
        return BTreeSet::new();
    };
    std::env::split_paths(path)
        .filter(|dir| dir.is_absolute() && !dir.starts_with(project))
        .filter_map(|dir| std::fs::read_dir(dir).ok())
        .flat_map(|read| read.flatten().map(|e| e.file_name()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_an_envrc_loads_is_found() {
        let dir = tempfile::tempdir().unwrap();
        let project = dir.path().canonicalize().unwrap();
        std::fs::create_dir_all(project.join("scripts")).unwrap();
        std::fs::write(project.join("scripts/dev-env.sh"), "").unwrap();
        std::fs::write(
            project.join(".envrc"),
            "source_env_if_exists .envrc.local\nsource_env scripts/dev-env.sh\nuse flake\n",
        )
        .unwrap();
        let (present, absent) = loaded(&project);
        assert!(
            present.contains(&project.join("scripts/dev-env.sh")),
            "{present:?}"
        );
        assert!(absent.contains(&project.join(".envrc.local")), "{absent:?}");
        assert!(absent.contains(&project.join("flake.nix")), "{absent:?}");
    }

    #[test]
    fn what_an_envrc_puts_on_path_is_found() {
        let dir = tempfile::tempdir().unwrap();
        let project = dir.path().canonicalize().unwrap();
        std::fs::write(
            project.join(".envrc"),
            "PATH_add bin \"tools\"\npath_add PATH scripts/dev\nlayout node\nload_prefix ./local\n\
             export PATH=\"$PWD/sbin:${PWD}/x/bin:$(pwd)/y:$HOME/bin:/usr/bin:$PATH\"\n\
             PATH_add ../../outside\n",
        )
        .unwrap();
        let found = path_dirs(&project);
        for dir in [
            "bin",
            "tools",
            "scripts/dev",
            "node_modules/.bin",
            "local/bin",
            "local/sbin",
            "sbin",
            "x/bin",
            "y",
        ] {
            assert!(found.contains(&project.join(dir)), "{dir}: {found:?}");
        }
        assert!(found.iter().all(|d| d.starts_with(&project)), "{found:?}");
    }

    #[test]
    fn a_program_added_or_changed_under_another_programs_name_is_found() {
        let dir = tempfile::tempdir().unwrap();
        let bin = dir.path().join("bin");
        std::fs::create_dir(&bin).unwrap();
        std::fs::write(bin.join("git"), "#!/bin/sh\n").unwrap();
        std::fs::write(bin.join("dev-server"), "#!/bin/sh\n").unwrap();
        let mut path_dir = PathDir::new(bin.clone());
        path_dir.refresh();
        let elsewhere: BTreeSet<OsString> = ["ls", "git"].map(OsString::from).into();
        assert!(
            path_dir.shadowing(&elsewhere).is_empty(),
            "nothing changed yet"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
        std::fs::write(bin.join("ls"), "#!/bin/sh\n").unwrap();
        std::fs::write(bin.join("git"), "#!/bin/sh\necho planted\n").unwrap();
        std::fs::write(bin.join("dev-server"), "#!/bin/sh\necho changed\n").unwrap();
        let mut found = path_dir.shadowing(&elsewhere);
        found.sort();
        assert_eq!(found, vec![bin.join("git"), bin.join("ls")]);
    }
}
