//! Whether the home reaches into the project: links to it (a dotfiles repository's `bashrc`
//! behind `~/.bashrc`, GNU Stow's links file by file at any depth, a script `~/bin/x`), or a
//! shell, editor, terminal multiplexer or ssh configuration naming it by path (`source
//! ~/dotfiles/aliases.sh`). What a call writes anywhere in such a project may run later,
//! outside ai, as the user's own configuration (through a link on the way, a folder a link
//! leads into, a file the configuration sources): so such a project is no writable project.

use std::collections::VecDeque;
use std::path::{Path, PathBuf};

/// Directories of the home not looked into: caches and toolchains' downloads, which hold no
/// configuration a person links in, and a lot of files.
const SKIPPED: &[&str] = &[
    ".cache",
    ".cargo/registry",
    ".cargo/git",
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
const DEPTH: usize = 8;
const MOST: usize = 50_000;

/// Configuration files that run or include what they name by path.
const CONFIGS: &[&str] = &[
    ".bashrc",
    ".bash_profile",
    ".bash_login",
    ".profile",
    ".zshrc",
    ".zshenv",
    ".zprofile",
    ".zlogin",
    ".kshrc",
    ".vimrc",
    ".gvimrc",
    ".vim/vimrc",
    ".config/nvim/init.vim",
    ".config/nvim/init.lua",
    ".tmux.conf",
    ".config/tmux/tmux.conf",
    ".ssh/config",
    ".gitconfig",
    ".config/git/config",
    ".config/fish/config.fish",
    ".inputrc",
    ".xinitrc",
    ".xprofile",
    ".emacs",
    ".emacs.d/init.el",
    ".config/starship.toml",
    ".cargo/config.toml",
    ".cargo/config",
];

/// Why calls may not write the project, if the home reaches into it: by a link (in the home's
/// hidden directories, `bin`, and `extra` places such as PATH's directories and
/// `$XDG_CONFIG_HOME`), or by a configuration naming it.
pub(crate) fn reached_from_home(home: &Path, project: &Path, extra: &[PathBuf]) -> Option<String> {
    if let Some(link) = linked_from(home, project, extra).first() {
        return Some(format!(
            "the home links into the project ({}): what a command writes there may run later",
            link.display()
        ));
    }
    if let Some(config) = hard_linked(home, project) {
        return Some(format!(
            "{} has another hard link, which may be in the project: what a command writes \
             there may run later",
            config.display()
        ));
    }
    let spelled = project_spellings(home, project);
    CONFIGS.iter().find_map(|config| {
        let text = std::fs::read_to_string(home.join(config)).ok()?;
        // Quotes and braces do not change the path a shell or an editor reads
        // (`"$HOME"/code/p`, `${HOME}`, vim's `$HOME . '/code/p'`).
        let text: String = text
            .chars()
            .filter(|c| !matches!(c, '"' | '\'' | '{' | '}'))
            .collect();
        spelled.iter().any(|s| text.contains(s.as_str())).then(|| {
            format!("~/{config} names the project: what a command writes there may run later")
        })
    })
}

/// A configuration of the home (a listed one, or any file directly in the home) with another
/// hard link on the project's file system: the project may hold it, and a write there would
/// change it in place.
fn hard_linked(home: &Path, project: &Path) -> Option<PathBuf> {
    use std::os::unix::fs::MetadataExt;
    let device = std::fs::metadata(project).ok()?.dev();
    let top = std::fs::read_dir(home)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path());
    let listed = CONFIGS.iter().map(|c| home.join(c));
    top.chain(listed).find(|file| {
        file.symlink_metadata()
            .is_ok_and(|m| m.is_file() && m.nlink() > 1 && m.dev() == device)
    })
}

/// How a configuration would write the project's path: as it is, and from `~` or `$HOME`.
fn project_spellings(home: &Path, project: &Path) -> Vec<String> {
    let mut spelled = vec![project.display().to_string()];
    if let Ok(rest) = project.strip_prefix(home) {
        // Whatever comes before (`~`, `$HOME`, `/home/$USER`, a variable): the path below the
        // home names it.
        spelled.push(format!("/{}", rest.display()));
    }
    spelled
}

/// What in `project` the home's links lead to (each as it resolves): links directly in the
/// home, and at any depth in its hidden directories and `bin`.
fn linked_from(home: &Path, project: &Path, extra: &[PathBuf]) -> Vec<PathBuf> {
    let mut linked = Vec::new();
    let mut pending = VecDeque::from([(home.to_path_buf(), 0)]);
    // Each extra place is searched as a hidden directory of the home is (depth one on).
    pending.extend(
        (extra.iter())
            .filter(|dir| !dir.starts_with(project) && !home.starts_with(dir.as_path()))
            .map(|dir| (dir.clone(), 1)),
    );
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
                // Into the project, or to a directory above it in the home (`~/src -> ~/code`:
                // a path through the link names the project too).
                if let Ok(real) = path.canonicalize()
                    && (real.starts_with(project)
                        || (project.starts_with(&real) && real.starts_with(home) && real != home))
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
    fn a_configuration_naming_the_project_is_found() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let (home, project) = (root.join("home"), root.join("home/dotfiles"));
        std::fs::create_dir_all(&project).unwrap();
        assert_eq!(reached_from_home(&home, &project, &[]), None);
        std::fs::write(home.join(".zshrc"), "source ~/dotfiles/aliases.sh\n").unwrap();
        assert!(reached_from_home(&home, &project, &[]).is_some_and(|w| w.contains(".zshrc")));
        for spelling in [
            "source \"$HOME\"/dotfiles/aliases.sh",
            "execute 'source ' . $HOME . '/dotfiles/vimrc'",
            "source /home/$USER/dotfiles/x",
        ] {
            std::fs::write(home.join(".zshrc"), spelling).unwrap();
            assert!(
                reached_from_home(&home, &project, &[]).is_some(),
                "{spelling}"
            );
        }
        std::fs::remove_file(home.join(".zshrc")).unwrap();
        // A hard link of a configuration.
        std::fs::write(project.join("bashrc"), "").unwrap();
        std::fs::hard_link(project.join("bashrc"), home.join(".bashrc")).unwrap();
        let why = reached_from_home(&home, &project, &[]);
        assert!(why.is_some_and(|w| w.contains("hard link")));
        std::fs::remove_file(home.join(".bashrc")).unwrap();
        std::fs::remove_file(project.join("bashrc")).unwrap();
        // A link to the home itself names nothing in particular.
        std::fs::create_dir_all(home.join(".config")).unwrap();
        std::os::unix::fs::symlink(&home, home.join(".config/h")).unwrap();
        assert_eq!(reached_from_home(&home, &project, &[]), None);
        // A link in a PATH directory outside the home's hidden ones.
        let scripts = root.join("scripts");
        std::fs::create_dir_all(&scripts).unwrap();
        std::os::unix::fs::symlink(project.join("x.sh"), scripts.join("x")).unwrap();
        std::fs::write(project.join("x.sh"), "").unwrap();
        assert!(reached_from_home(&home, &project, &[]).is_none());
        assert!(reached_from_home(&home, &project, &[scripts]).is_some());
    }

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
            linked_from(&home, &project, &[]),
            vec![
                project.join("bashrc"),
                project.join("gitconfig"),
                project.join("nvim")
            ]
        );
    }
}
