//! The project's own secret files, found by one bounded walk before each call: by name, by
//! the directory they lie in, by what a tool's settings file holds, and below a secret-named
//! link to a directory.

use std::path::{Path, PathBuf};

use super::walk;
use crate::config::{holds_credential, secret_in_tree};

/// The files below the directories secret-named links in `secrets` lead to, inside the project
/// (`.envs -> notes`: what the user writes into `.envs/` lands in `notes/`).
fn below_secret_links(project: &Path, secrets: &[PathBuf]) -> (Vec<PathBuf>, bool) {
    let mut found = Vec::new();
    let mut complete = true;
    // Each directory once, and none below one already walked (`.env1 -> .`, `.env2 -> .`).
    let mut targets: Vec<PathBuf> = (secrets.iter().filter(|p| p.is_symlink()))
        .filter_map(|link| std::fs::canonicalize(link).ok())
        .filter(|target| target.is_dir() && target.starts_with(project))
        .collect();
    targets.sort();
    targets.dedup();
    let mut walked: Vec<PathBuf> = Vec::new();
    for target in targets {
        if walked.iter().any(|w| target.starts_with(w)) {
            continue;
        }
        complete &= walk::walk(&target, &mut |path, _, kind| {
            if !kind.is_dir() {
                found.push(path.to_path_buf());
            }
            true
        });
        walked.push(target);
    }
    (found, complete)
}

/// The secret files below `project`, and whether the walk saw all of it.
pub(super) fn secret_files(project: &Path) -> (Vec<PathBuf>, bool) {
    let mut secrets = Vec::new();
    let complete = walk::walk(project, &mut |path, name, kind| {
        // By name whatever it is (a link named `.npmrc` is read as one), and by the
        // directory it lies in (`.aws/credentials` copied into the project).
        let within = path.strip_prefix(project).unwrap_or(path);
        if !kind.is_dir() && (secret_in_tree(within).is_some() || holds_credential(path, name)) {
            secrets.push(path.to_path_buf());
        }
        name != ".git"
    });
    let (below, below_complete) = below_secret_links(project, &secrets);
    secrets.extend(below);
    (secrets, complete && below_complete)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A secret-named link to a directory makes what is below the directory secret by its own
    /// names too (sandbox round 19: `.envs -> notes`, the user then writes `.envs/.production`).
    #[test]
    fn files_below_a_secret_named_link_to_a_directory_are_secret() {
        let dir = tempfile::tempdir().unwrap();
        let project = dir.path().canonicalize().unwrap();
        std::fs::create_dir_all(project.join("notes/.production")).unwrap();
        std::fs::write(project.join("notes/.production/.django"), "KEY=x").unwrap();
        std::fs::write(project.join("notes/readme"), "").unwrap();
        std::os::unix::fs::symlink("notes", project.join(".envs")).unwrap();
        let (secrets, complete) = secret_files(&project);
        assert!(complete);
        assert!(
            secrets.contains(&project.join("notes/.production/.django")),
            "{secrets:?}"
        );
        assert!(
            secrets.contains(&project.join("notes/readme")),
            "{secrets:?}"
        );
    }
}
