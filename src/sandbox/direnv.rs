//! What direnv runs from the project when the user enters it: the approved `.envrc` (hidden
//! and unwritable as a secret) and whatever it loads, which direnv does not ask about again
//! (`source_env_if_exists .envrc.local`, `source_env scripts/dev-env.sh`, `dotenv`, `use nix`).
//! Those files are read-only; one not there yet is moved aside if a call makes it (sandbox
//! round 22).

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
    // What direnv keeps for the project (nix-direnv's cached environment), when it has some:
    // direnv itself makes it, outside ai.
    if work_tree.join(".direnv").is_dir() {
        present.push(work_tree.join(".direnv"));
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
}
