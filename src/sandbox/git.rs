//! What of git must stay read-only to a sandboxed command, because git runs it later, outside
//! ai and outside any sandbox: every repository's git directory under the project (the
//! project's own, nested repositories', submodules' under `.git/modules`, a `.git` file and the
//! directory it names, a worktree's common directory) and a hooks directory that a config names
//! inside the project (`core.hooksPath`, as husky sets it). A `pre-commit` hook or a
//! `core.fsmonitor` planted there would run at the user's next `git commit` or `git status`.
//!
//! It is worked out once per run, before any command, from the tree as it was: nothing a
//! command writes later (a `.git` turned into a file naming `~/.bashrc`) changes it. A `.git`
//! that appears during a call is found afterwards and moved aside (`quarantine`).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use super::walk::{Walk, walk, walk_all};

/// The name a `.git` created during a call is moved to.
pub(crate) const QUARANTINE_SUFFIX: &str = ".ai-quarantined";

/// The git state of a project as it was when the run started.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct GitState {
    /// Every `.git` (directory or file) under the project, and every other directory git
    /// would take for a repository.
    pub(crate) entries: BTreeSet<PathBuf>,
    /// What must be read-only: the entries, the git directories they name, hooks directories,
    /// the project files git's configuration includes or runs.
    pub(crate) protected: Vec<PathBuf>,
    /// Files git's configuration includes that did not exist: one a call makes is moved aside.
    pub(crate) absent: Vec<PathBuf>,
    /// Project files git's configuration includes: scrubbed of credentials like a config.
    pub(crate) includes: Vec<PathBuf>,
    /// The whole project was seen (a tree too big to walk hides what lies past the limit).
    pub(crate) complete: bool,
    /// Work trees where what git runs starts Python (`-m NAME`), with the names at their top
    /// then: Python imports from there first, so a module a call adds there is moved aside.
    pub(crate) python_trees: Vec<(PathBuf, BTreeSet<std::ffi::OsString>)>,
    /// The directories the project's `.envrc` puts on PATH, with what they held before a call.
    pub(crate) path_dirs: Vec<super::shadowing::PathDir>,
}

impl Default for GitState {
    fn default() -> Self {
        GitState {
            entries: BTreeSet::new(),
            protected: Vec::new(),
            absent: Vec::new(),
            includes: Vec::new(),
            complete: true,
            python_trees: Vec::new(),
            path_dirs: Vec::new(),
        }
    }
}

/// What a check after a call did.
#[derive(Debug, Default)]
pub(crate) struct Quarantine {
    /// Each `.git` moved aside: where it was, where it is.
    pub(crate) moved: Vec<(PathBuf, PathBuf)>,
    /// Each `.git` that could be neither moved aside nor removed.
    pub(crate) stuck: Vec<PathBuf>,
    /// The whole project was seen.
    pub(crate) complete: bool,
}

impl GitState {
    /// Reads the tree under `project` once (`home`: the user's, for git's `~/`).
    pub(crate) fn of(project: &Path, home: Option<&Path>) -> GitState {
        let (entries, complete) = git_entries(project, walk);
        let mut protected: Vec<PathBuf> = entries.iter().cloned().collect();
        let mut absent = Vec::new();
        let mut includes = Vec::new();
        let mut python_trees = Vec::new();
        for entry in &entries {
            let Some(dir) = git_dir(entry) else { continue };
            let work_tree = entry.parent().unwrap_or(project);
            let common = common_dir(&dir);
            // The hooks path of the repository's own config, read here, and what git itself
            // reads for the repository with the user's own configuration (where git can say).
            let mut hooks: Vec<PathBuf> = [Some(&dir), common.as_ref()]
                .into_iter()
                .flatten()
                .filter_map(|dir| hooks_path(dir, work_tree))
                .collect();
            let mut modules = Vec::new();
            if let Some(named) = super::gitconfig::named(&dir, work_tree, home) {
                protected.extend(named.files);
                includes.extend(named.includes);
                absent.extend(named.absent);
                hooks.extend(named.hooks);
                modules.extend(named.modules);
            }
            // The default hooks directory too, when no other is named.
            let default_hooks = common.as_ref().unwrap_or(&dir).join("hooks");
            for dir in hooks.iter().chain([&default_hooks]) {
                modules.extend(super::git_modules::hook_modules(dir));
                super::git_modules::hook_scripts(dir, work_tree, &mut protected, &mut absent);
            }
            super::git_modules::protect_imports(
                work_tree,
                modules,
                (&mut protected, &mut absent),
                &mut python_trees,
            );
            for hooks in hooks {
                // husky's `.husky/_` hooks run the scripts beside them in `.husky`.
                if hooks.ends_with(".husky/_")
                    && let Some(husky) = hooks.parent()
                {
                    protected.push(husky.to_path_buf());
                }
                protected.push(hooks);
            }
            protected.push(dir);
            protected.extend(common);
        }
        let path_dirs = users_tools(project, &mut protected, &mut absent);
        protected.sort();
        protected.dedup();
        // Only what is in the project needs protecting: elsewhere nothing is writable.
        protected.retain(|p| p.starts_with(project));
        absent.retain(|p| p.starts_with(project));
        includes.retain(|p| p.starts_with(project) && p.is_file());
        includes.sort();
        includes.dedup();
        GitState {
            entries,
            protected,
            absent,
            includes,
            complete,
            python_trees,
            path_dirs,
        }
    }

    /// What Python can import at the top of each work tree, taken again before each call: what
    /// the user added between calls is theirs; only what the call adds is moved aside.
    /// So are the directories `.envrc` puts on PATH.
    pub(crate) fn refresh_listings(&mut self) {
        for (tree, before) in &mut self.python_trees {
            *before = super::git_modules::importables(tree);
        }
        self.path_dirs
            .iter_mut()
            .for_each(super::shadowing::PathDir::refresh);
    }

    /// Moves aside every `.git` under `project` that was not there when the run started (or,
    /// where that fails, removes it), and the `HEAD` of every other directory git would now
    /// take for a repository. Called after a call, when nothing of it is running.
    pub(crate) fn quarantine(&self, project: &Path) -> Quarantine {
        let (found, complete) = git_entries(project, walk_all);
        let mut done = Quarantine {
            complete,
            ..Quarantine::default()
        };
        for entry in found.difference(&self.entries) {
            match neutralize(project, entry) {
                Some(moved) => done.moved.push(moved),
                None => done.stuck.push(entry.clone()),
            }
        }
        let added_modules = (self.python_trees.iter())
            .flat_map(|(tree, before)| super::git_modules::added_importables(tree, before));
        // Read only when there is a directory to compare with it.
        let installed = super::shadowing::Installed::find(project);
        let shadowing = (self.path_dirs.iter()).flat_map(|dir| dir.shadowing(installed));
        for file in self
            .absent
            .iter()
            .filter(|f| f.symlink_metadata().is_ok())
            .cloned()
            .chain(added_modules)
            .chain(shadowing)
        {
            let file = &file;
            // Reached through a link a call made (`bin -> other/deep`, `bin/ls` planted there):
            // the link itself is moved aside, which takes nothing past it along (sandbox round
            // 26: only a warning was given, and the user's `ls` ran the planted file).
            let target = match first_link_below(project, file) {
                Some(link) => link,
                None => file.clone(),
            };
            if done.moved.iter().any(|(was, _)| *was == target) {
                continue;
            }
            match move_aside(project, &target) {
                Some(aside) => done.moved.push((target, aside)),
                None => done.stuck.push(file.clone()),
            }
        }
        done
    }
}

/// What the user's own tools run from the project, protected as git's hooks are: what direnv
/// loads when the user enters it, the configuration cargo, npm or an editor reads and runs;
/// and the directories where they find programs and modules by name first.
fn users_tools(
    project: &Path,
    protected: &mut Vec<PathBuf>,
    absent: &mut Vec<PathBuf>,
) -> Vec<super::shadowing::PathDir> {
    let (loaded, not_yet) = super::direnv::loaded(project);
    protected.extend(loaded);
    absent.extend(not_yet);
    let (configs, not_yet) = super::tool_configs::named(project);
    protected.extend(configs);
    absent.extend(not_yet);
    let mut path_dirs = super::direnv::path_dirs(project);
    // `python3 -m pip` at the top of the project imports from there first.
    path_dirs.push(super::shadowing::PathDir::new(
        project.to_path_buf(),
        super::shadowing::Watch::Modules,
    ));
    path_dirs
}

/// Renames `entry` to a free `<entry>.ai-quarantined[-N]`, making its directory writable first
/// if the call took that away; else removes it. The new name, or `None` if it is still there.
/// This runs outside the sandbox: it refuses an entry reached through a link below `project`
/// (a call may have made `x/.git` a link to another repository, whose `HEAD` it would move).
fn move_aside(project: &Path, entry: &Path) -> Option<PathBuf> {
    if !no_link_between(project, entry) {
        return None;
    }
    if let Some(parent) = entry.parent()
        && let Ok(meta) = std::fs::symlink_metadata(parent)
        && meta.is_dir()
    {
        use std::os::unix::fs::PermissionsExt;
        let mut permissions = meta.permissions();
        permissions.set_mode(permissions.mode() | 0o700);
        let _ = std::fs::set_permissions(parent, permissions);
    }
    for n in 0..100 {
        let mut aside = entry.as_os_str().to_owned();
        aside.push(QUARANTINE_SUFFIX);
        if n > 0 {
            aside.push(format!("-{n}"));
        }
        let aside = PathBuf::from(aside);
        if aside.symlink_metadata().is_err() && std::fs::rename(entry, &aside).is_ok() {
            return Some(aside);
        }
    }
    let removed = if entry.is_dir() {
        std::fs::remove_dir_all(entry)
    } else {
        std::fs::remove_file(entry)
    };
    removed.ok().map(|()| PathBuf::from("(removed)"))
}

/// Every `.git` under `root`, and every other directory git would take for a repository (see
/// `taken_for_repository`), not following links, not entering `.git`; and whether the whole
/// tree was seen.
fn git_entries(root: &Path, walk: Walk) -> (BTreeSet<PathBuf>, bool) {
    let mut found = BTreeSet::new();
    let complete = walk(root, &mut |path, name, kind| {
        if name == ".git" {
            found.insert(path.to_path_buf());
            return false;
        }
        if name == "HEAD"
            && !kind.is_dir()
            && let Some(dir) = path.parent()
            && taken_for_repository(dir)
        {
            found.insert(dir.to_path_buf());
        }
        true
    });
    (found, complete)
}

/// Whether git, arriving in `dir` while it looks for a repository, takes `dir` itself for one
/// (a bare repository, `safe.bareRepository` being `all` by default): it has a `HEAD`, and
/// `objects` and `refs` of its own or a `commondir` naming them. Its `config` then counts for
/// every git command run in it, ahead of the project's `.git` above.
fn taken_for_repository(dir: &Path) -> bool {
    let has = |name: &str| dir.join(name).symlink_metadata().is_ok();
    has("HEAD") && (has("commondir") || (has("objects") && has("refs")))
}

/// Makes what a call made git's no longer: a `.git` is moved aside (with its `HEAD`, so git
/// does not take the moved directory for a bare repository either); another directory git
/// would take for a repository keeps its place (it may be the project's `src`) and loses its
/// `HEAD`. Where it was and where it is now, or `None` if it is still there.
fn neutralize(project: &Path, entry: &Path) -> Option<(PathBuf, PathBuf)> {
    if entry.file_name().is_some_and(|n| n == ".git") {
        let aside = move_aside(project, entry)?;
        // Only a `.git` directory's own `HEAD`: a link's would be another repository's.
        let real_dir = aside.symlink_metadata().is_ok_and(|m| m.is_dir());
        let head = aside.join("HEAD");
        if real_dir && head.symlink_metadata().is_ok() {
            let _ = move_aside(project, &head);
        }
        return Some((entry.to_path_buf(), aside));
    }
    let head = entry.join("HEAD");
    let aside = move_aside(project, &head)?;
    Some((head, aside))
}

/// Whether no directory from `project` down to `path`'s parent is a link (`project` itself may
/// be reached through one; below it, only what a call could have made).
/// The first directory on the way from `project` to `path` that is a link, if one is.
fn first_link_below(project: &Path, path: &Path) -> Option<PathBuf> {
    let parent = path.strip_prefix(project).ok()?.parent()?;
    let mut dir = project.to_path_buf();
    for part in parent.components() {
        dir.push(part);
        if dir
            .symlink_metadata()
            .is_ok_and(|m| m.file_type().is_symlink())
        {
            return Some(dir);
        }
    }
    None
}

fn no_link_between(project: &Path, path: &Path) -> bool {
    let Ok(rest) = path.strip_prefix(project) else {
        return false;
    };
    let Some(parent) = rest.parent() else {
        return true;
    };
    let mut dir = project.to_path_buf();
    parent.components().all(|part| {
        dir.push(part);
        dir.symlink_metadata().is_ok_and(|m| m.is_dir())
    })
}

/// The git directory a `.git` entry stands for: itself, or what its `gitdir:` line names.
fn git_dir(entry: &Path) -> Option<PathBuf> {
    if entry.is_dir() {
        return Some(entry.to_path_buf());
    }
    let text = std::fs::read_to_string(entry).ok()?;
    let named = text.strip_prefix("gitdir:")?.trim();
    let base = entry.parent()?;
    base.join(named).canonicalize().ok()
}

/// A worktree's or submodule's common directory (where config and hooks live).
fn common_dir(git_dir: &Path) -> Option<PathBuf> {
    let rel = std::fs::read_to_string(git_dir.join("commondir")).ok()?;
    git_dir.join(rel.trim()).canonicalize().ok()
}

/// The hooks directory a repository's config names (`core.hooksPath`), relative to its
/// working tree, else its own `hooks`.
fn hooks_path(git_dir: &Path, work_tree: &Path) -> Option<PathBuf> {
    let config = std::fs::read_to_string(git_dir.join("config")).unwrap_or_default();
    let mut in_core = false;
    for line in config.lines().map(str::trim) {
        if line.starts_with('[') {
            in_core = line.to_ascii_lowercase().starts_with("[core");
            continue;
        }
        let Some((key, value)) = line.split_once('=') else {
            continue;
        };
        if in_core && key.trim().eq_ignore_ascii_case("hookspath") {
            let value = value.trim().trim_matches('"');
            return Some(crate::config::lexical(&work_tree.join(value)));
        }
    }
    Some(git_dir.join("hooks"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_repository_its_named_dirs_and_a_configured_hooks_dir_are_protected() {
        let dir = tempfile::tempdir().unwrap();
        let project = dir.path().canonicalize().unwrap();
        let git = project.join(".git");
        std::fs::create_dir_all(git.join("modules/sub")).unwrap();
        std::fs::write(git.join("config"), "[core]\n\thooksPath = .husky\n").unwrap();
        std::fs::create_dir_all(project.join("sub")).unwrap();
        std::fs::write(project.join("sub/.git"), "gitdir: ../.git/modules/sub\n").unwrap();
        std::fs::create_dir_all(project.join("vendor/lib/.git")).unwrap();
        let state = GitState::of(&project, None);
        for path in [
            git.clone(),
            project.join(".husky"),
            project.join("sub/.git"),
            git.join("modules/sub"),
            project.join("vendor/lib/.git"),
            project.join("vendor/lib/.git/hooks"),
        ] {
            assert!(state.protected.contains(&path), "{path:?} in {state:?}");
        }
    }

    #[test]
    fn a_hooks_path_that_climbs_out_of_the_project_is_not_taken_for_inside() {
        let dir = tempfile::tempdir().unwrap();
        let project = dir.path().join("p");
        std::fs::create_dir_all(project.join(".git")).unwrap();
        let project = project.canonicalize().unwrap();
        std::fs::write(
            project.join(".git/config"),
            "[core]\n\thooksPath = ../shared-hooks\n",
        )
        .unwrap();
        let state = GitState::of(&project, None);
        assert!(
            state
                .protected
                .iter()
                .all(|p| p.starts_with(&project) && !p.ends_with("shared-hooks")),
            "{state:?}"
        );
    }

    #[test]
    fn a_git_file_naming_a_path_outside_the_project_grants_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let project = dir.path().join("p");
        std::fs::create_dir_all(&project).unwrap();
        let project = project.canonicalize().unwrap();
        std::fs::write(
            project.join(".git"),
            format!("gitdir: {}\n", dir.path().display()),
        )
        .unwrap();
        let state = GitState::of(&project, None);
        assert!(state.protected.iter().all(|p| p.starts_with(&project)));
    }

    #[test]
    fn a_git_that_appears_later_is_moved_aside() {
        let dir = tempfile::tempdir().unwrap();
        let project = dir.path();
        std::fs::create_dir_all(project.join(".git")).unwrap();
        let state = GitState::of(project, None);
        std::fs::create_dir_all(project.join("a/.git/hooks")).unwrap();
        std::fs::write(project.join("b.git"), "").unwrap();
        std::fs::create_dir_all(project.join("c")).unwrap();
        std::fs::write(project.join("c/.git"), "gitdir: /etc\n").unwrap();
        // A name in the way and a parent made read-only do not keep it there.
        std::fs::create_dir_all(project.join("a/.git.ai-quarantined/keep")).unwrap();
        let moved = state.quarantine(project).moved;
        assert_eq!(moved.len(), 2, "{moved:?}");
        assert!(!project.join("a/.git").exists() && !project.join("c/.git").exists());
        assert!(project.join(".git").exists() && project.join("b.git").exists());
    }

    #[test]
    fn a_directory_git_takes_for_a_repository_loses_its_head_unless_it_was_there_at_start() {
        let dir = tempfile::tempdir().unwrap();
        let project = dir.path().canonicalize().unwrap();
        let bare = project.join("fixtures/bare.git");
        for sub in ["objects", "refs"] {
            std::fs::create_dir_all(bare.join(sub)).unwrap();
        }
        std::fs::write(bare.join("HEAD"), "ref: refs/heads/main\n").unwrap();
        let state = GitState::of(&project, None);
        assert!(state.protected.contains(&bare), "{state:?}");
        for sub in ["src/objects", "src/refs", "wt", "notes"] {
            std::fs::create_dir_all(project.join(sub)).unwrap();
        }
        for file in ["src/HEAD", "src/config", "wt/HEAD", "notes/HEAD"] {
            std::fs::write(project.join(file), "ref: refs/heads/main\n").unwrap();
        }
        std::fs::write(project.join("wt/commondir"), "../fixtures/bare.git\n").unwrap();
        let moved = state.quarantine(&project).moved;
        let from: Vec<&PathBuf> = moved.iter().map(|(from, _)| from).collect();
        assert_eq!(
            from,
            [&project.join("src/HEAD"), &project.join("wt/HEAD")],
            "{moved:?}"
        );
        assert!(project.join("src/config").exists() && project.join("notes/HEAD").exists());
        assert!(bare.join("HEAD").exists());
    }

    /// The quarantine runs outside the sandbox: a `.git` a call made as a link to another
    /// repository is moved aside as a link, and nothing of the repository it names changes
    /// (sandbox round 15: its `HEAD` was renamed and its git directory made writable).
    #[test]
    fn a_git_link_is_moved_aside_without_touching_what_it_names() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let project = root.join("project");
        let other = root.join("other/.git");
        std::fs::create_dir_all(project.join(".git")).unwrap();
        std::fs::create_dir_all(other.join("objects")).unwrap();
        std::fs::create_dir_all(other.join("refs")).unwrap();
        std::fs::write(other.join("HEAD"), "ref: refs/heads/main\n").unwrap();
        std::fs::set_permissions(&other, std::fs::Permissions::from_mode(0o500)).unwrap();
        let state = GitState::of(&project, None);
        std::fs::create_dir_all(project.join("x")).unwrap();
        std::os::unix::fs::symlink("../../other/.git", project.join("x/.git")).unwrap();
        // And a directory of the project swapped for a link, with a HEAD beyond it.
        std::os::unix::fs::symlink(root.join("other"), project.join("y")).unwrap();
        let moved = state.quarantine(&project).moved;
        let mode = std::fs::metadata(&other).unwrap().permissions().mode() & 0o777;
        std::fs::set_permissions(&other, std::fs::Permissions::from_mode(0o700)).unwrap();
        assert!(
            other.join("HEAD").exists(),
            "the other repository lost its HEAD: {moved:?}"
        );
        assert_eq!(mode, 0o500, "the other repository's mode changed");
        assert!(
            project
                .join("x/.git.ai-quarantined")
                .symlink_metadata()
                .is_ok(),
            "{moved:?}"
        );
    }

    /// A module that a hook or a filter runs with `python -m` is found in the work tree first:
    /// made by a call, it is moved aside; there already, it is read-only (sandbox round 17:
    /// pre-commit's `-mpre_commit`, nbstripout's `-m nbstripout`).
    #[test]
    fn modules_git_runs_with_python_are_protected_or_moved_aside() {
        let dir = tempfile::tempdir().unwrap();
        let project = dir.path().canonicalize().unwrap();
        let git = |args: &[&str]| crate::sandbox::test_git(&project, args);
        git(&["init", "-q"]);
        git(&[
            "config",
            "filter.nbstripout.clean",
            "\"/usr/bin/python3\" -m nbstripout",
        ]);
        std::fs::write(
            project.join(".git/hooks/pre-commit"),
            "#!/bin/sh\nexec \"$INSTALL_PYTHON\" -mpre_commit hook-impl\n",
        )
        .unwrap();
        std::fs::write(project.join("nbstripout.py"), "").unwrap();
        let state = GitState::of(&project, None);
        assert!(
            state.protected.contains(&project.join("nbstripout.py")),
            "{state:?}"
        );
        std::fs::create_dir_all(project.join("pre_commit")).unwrap();
        std::fs::write(project.join("pre_commit/__main__.py"), "").unwrap();
        let moved = state.quarantine(&project).moved;
        assert!(
            moved
                .iter()
                .any(|(from, _)| *from == project.join("pre_commit")),
            "{moved:?}"
        );
        assert!(!project.join("pre_commit").exists());
        // `python -m` puts the work tree first for every import (sandbox round 18): any module
        // or package a call adds at the top is moved aside; other files are not.
        std::fs::create_dir_all(project.join("argparse")).unwrap();
        std::fs::write(project.join("argparse/__init__.py"), "").unwrap();
        std::fs::write(project.join("pre_commit.pyc"), "").unwrap();
        std::fs::write(project.join("notes.txt"), "").unwrap();
        std::fs::create_dir_all(project.join("docs")).unwrap();
        let moved = state.quarantine(&project).moved;
        let from: Vec<&PathBuf> = moved.iter().map(|(from, _)| from).collect();
        assert!(from.contains(&&project.join("argparse")), "{moved:?}");
        assert!(from.contains(&&project.join("pre_commit.pyc")), "{moved:?}");
        assert!(project.join("notes.txt").exists() && project.join("docs").exists());
        // A package whose `__init__` is an extension module is a package too (round 19).
        std::fs::create_dir_all(project.join("json")).unwrap();
        std::fs::write(
            project.join("json/__init__.cpython-312-x86_64-linux-gnu.so"),
            "",
        )
        .unwrap();
        let moved = state.quarantine(&project).moved;
        assert!(
            moved.iter().any(|(from, _)| *from == project.join("json")),
            "{moved:?}"
        );
    }

    /// A project that uses pre-commit is protected before `pre-commit install` (round 19):
    /// a package planted now would run at the first commit after the user installs the hook.
    #[test]
    fn a_pre_commit_project_is_protected_before_the_hook_exists() {
        let dir = tempfile::tempdir().unwrap();
        let project = dir.path().canonicalize().unwrap();
        std::fs::create_dir_all(project.join(".git/hooks")).unwrap();
        std::fs::write(
            project.join(".git/hooks/pre-push.sample"),
            "git read-tree -u -m HEAD\n",
        )
        .unwrap();
        std::fs::write(project.join(".pre-commit-config.yaml"), "repos: []\n").unwrap();
        let state = GitState::of(&project, None);
        std::fs::create_dir_all(project.join("pre_commit")).unwrap();
        std::fs::write(project.join("pre_commit/__main__.py"), "").unwrap();
        let moved = state.quarantine(&project).moved;
        assert!(
            moved
                .iter()
                .any(|(from, _)| *from == project.join("pre_commit")),
            "{moved:?}"
        );
    }

    /// A project script a hook runs is protected like the hook, and a module added beside a
    /// Python script git runs is moved aside (sandbox round 21: `scripts/json.py` shadowed
    /// `json` for `python3 scripts/strip.py`).
    #[test]
    fn scripts_hooks_run_and_the_modules_beside_them_are_protected() {
        let dir = tempfile::tempdir().unwrap();
        let project = dir.path().canonicalize().unwrap();
        let git = |args: &[&str]| crate::sandbox::test_git(&project, args);
        git(&["init", "-q"]);
        git(&["config", "filter.nb.clean", "python3 scripts/strip.py"]);
        std::fs::create_dir_all(project.join("scripts")).unwrap();
        std::fs::create_dir_all(project.join("tools")).unwrap();
        std::fs::write(project.join("scripts/strip.py"), "import json\n").unwrap();
        std::fs::write(project.join("tools/check.py"), "").unwrap();
        std::fs::write(
            project.join(".git/hooks/pre-commit"),
            "#!/bin/sh\npython3 tools/check.py\n",
        )
        .unwrap();
        let state = GitState::of(&project, None);
        assert!(
            state.protected.contains(&project.join("tools/check.py")),
            "{state:?}"
        );
        assert!(
            state.protected.contains(&project.join("scripts/strip.py")),
            "{state:?}"
        );
        std::fs::write(project.join("scripts/json.py"), "").unwrap();
        let moved = state.quarantine(&project).moved;
        assert!(
            moved
                .iter()
                .any(|(from, _)| *from == project.join("scripts/json.py")),
            "{moved:?}"
        );
    }
}
