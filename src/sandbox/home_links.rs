//! Files of the project that the home links to: a dotfiles repository's `bashrc` that
//! `~/.bashrc` points at, a script `~/bin/x` runs. What a call writes there runs later, outside
//! ai, as the user's own configuration; so they stay read-only, like git's hooks.

use std::path::{Path, PathBuf};

/// The directories of the home whose links are followed: where shells, desktops, services and
/// editors read what they run.
const PLACES: &[&str] = &[
    "",
    ".config",
    ".config/autostart",
    ".config/systemd/user",
    ".local/bin",
    ".local/share/applications",
    "bin",
];

/// Most entries looked at in one place.
const MOST: usize = 2_000;

/// What in `project` the home's links lead to (each as it resolves).
pub(crate) fn linked_from_home(home: &Path, project: &Path) -> Vec<PathBuf> {
    let mut linked = Vec::new();
    for place in PLACES {
        let Ok(entries) = std::fs::read_dir(home.join(place)) else {
            continue;
        };
        for entry in entries.flatten().take(MOST) {
            let is_link = entry.file_type().is_ok_and(|t| t.is_symlink());
            if let (true, Ok(real)) = (is_link, entry.path().canonicalize())
                && real.starts_with(project)
            {
                linked.push(real);
            }
        }
    }
    linked.sort();
    linked.dedup();
    linked
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_homes_links_into_the_project_are_found() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let (home, project) = (root.join("home"), root.join("home/dotfiles"));
        std::fs::create_dir_all(project.join("nvim")).unwrap();
        std::fs::create_dir_all(home.join(".config")).unwrap();
        std::fs::write(project.join("bashrc"), "").unwrap();
        std::fs::write(project.join("README"), "").unwrap();
        std::os::unix::fs::symlink(project.join("bashrc"), home.join(".bashrc")).unwrap();
        std::os::unix::fs::symlink(project.join("nvim"), home.join(".config/nvim")).unwrap();
        std::os::unix::fs::symlink(root.join("elsewhere"), home.join(".profile")).unwrap();
        assert_eq!(
            linked_from_home(&home, &project),
            vec![project.join("bashrc"), project.join("nvim")]
        );
    }
}
