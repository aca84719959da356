//! Files of the project that the home links to: a dotfiles repository's `bashrc` that
//! `~/.bashrc` points at, its `git/config` behind `~/.config/git/config` (GNU Stow links file by
//! file, at any depth), a script `~/bin/x` runs. What a call writes there runs later, outside
//! ai, as the user's own configuration; so they stay read-only, like git's hooks.

use std::collections::VecDeque;
use std::path::{Path, PathBuf};

/// Directories of the home not looked into: caches and toolchains, which hold no
/// configuration a person links in, and a lot of files.
const SKIPPED: &[&str] = &[
    ".cache",
    ".cargo",
    ".rustup",
    ".npm",
    ".nvm",
    ".pyenv",
    ".rbenv",
    ".gradle",
    ".m2",
    ".local/share/Trash",
    ".mozilla",
    ".git",
    "node_modules",
];

/// How deep below the home, and how many entries at most, are looked at: past these the
/// search stops (a home of any size costs the same).
const DEPTH: usize = 6;
const MOST: usize = 20_000;

/// What in `project` the home's links lead to (each as it resolves): links directly in the
/// home, and at any depth in its hidden directories and `bin`.
pub(crate) fn linked_from_home(home: &Path, project: &Path) -> Vec<PathBuf> {
    let mut linked = Vec::new();
    let mut pending = VecDeque::from([(home.to_path_buf(), 0)]);
    let mut seen = 0;
    while let Some((dir, depth)) = pending.pop_front() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            seen += 1;
            if seen > MOST {
                return finish(linked);
            }
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            let path = entry.path();
            if kind.is_symlink() {
                if let Ok(real) = path.canonicalize()
                    && real.starts_with(project)
                {
                    linked.push(real);
                }
            } else if kind.is_dir() && depth < DEPTH && looked_into(home, &path, depth) {
                pending.push_back((path, depth + 1));
            }
        }
    }
    finish(linked)
}

/// Whether the directory `path` (at `depth` below the home) is searched: below the home's
/// own level, its hidden directories and `bin` only, and never the project or what is skipped.
fn looked_into(home: &Path, path: &Path, depth: usize) -> bool {
    let within = path.strip_prefix(home).unwrap_or(path);
    let top = within
        .components()
        .next()
        .map(|c| c.as_os_str().to_string_lossy());
    let hidden_or_bin = top.is_some_and(|t| t.starts_with('.') || t == "bin");
    let skipped = SKIPPED.iter().any(|s| within.starts_with(s))
        || path
            .file_name()
            .is_some_and(|n| n == ".git" || n == "node_modules");
    (depth > 0 || hidden_or_bin) && !skipped
}

fn finish(mut linked: Vec<PathBuf>) -> Vec<PathBuf> {
    linked.sort();
    linked.dedup();
    linked
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_homes_links_into_the_project_are_found_at_any_depth() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let (home, project) = (root.join("home"), root.join("home/dotfiles"));
        std::fs::create_dir_all(project.join("nvim")).unwrap();
        std::fs::create_dir_all(home.join(".config/git")).unwrap();
        std::fs::create_dir_all(home.join(".cache/x")).unwrap();
        for file in ["bashrc", "gitconfig", "cached", "README"] {
            std::fs::write(project.join(file), "").unwrap();
        }
        let link = |target: &str, at: &str| {
            std::os::unix::fs::symlink(project.join(target), home.join(at)).unwrap();
        };
        link("bashrc", ".bashrc");
        link("nvim", ".config/nvim");
        link("gitconfig", ".config/git/config");
        link("cached", ".cache/x/cached");
        std::os::unix::fs::symlink(root.join("elsewhere"), home.join(".profile")).unwrap();
        assert_eq!(
            linked_from_home(&home, &project),
            vec![
                project.join("bashrc"),
                project.join("gitconfig"),
                project.join("nvim")
            ]
        );
    }
}
