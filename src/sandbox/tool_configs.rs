//! Configuration that the user's own tools read from the project and that can name a program
//! for them to run: cargo's `build.rustc-wrapper`, a `rust-toolchain.toml` `path`, `.npmrc`'s
//! `script-shell`, Maven's `jvm.config` (`-javaagent:`), an editor's tasks, asdf's
//! `.tool-versions` (`path:`). A call that writes one plants a program the user's next `cargo
//! build` or `npm test` runs, outside every sandbox, and it can hide it from git (a `.gitignore`
//! of `*` beside it). Those there are read-only; one a call makes is moved aside (sandbox round
//! 27).

use std::path::{Path, PathBuf};

/// The files, relative to a directory the tools run in.
const PROGRAM_CONFIGS: &[&str] = &[
    ".cargo/config.toml",
    ".cargo/config",
    "rust-toolchain",
    "rust-toolchain.toml",
    ".npmrc",
    ".yarnrc",
    ".yarnrc.yml",
    ".pnpmfile.cjs",
    ".pnpmfile.mjs",
    ".corepack.env",
    ".mvn/jvm.config",
    ".mvn/maven.config",
    ".mvn/extensions.xml",
    ".bazelrc",
    ".tool-versions",
    ".python-version",
    ".node-version",
    ".nvmrc",
    ".sdkmanrc",
    ".vscode/tasks.json",
    ".vscode/settings.json",
    ".nvim.lua",
    ".nvimrc",
    ".exrc",
    // Read from the working directory by debuggers, REPLs, editors and version managers
    // (round 28: `python -m pdb` ran a planted `.pdbrc`).
    ".vimrc",
    "_vimrc",
    ".gvimrc",
    "_gvimrc",
    ".pdbrc",
    ".pdbrc.py",
    ".gdbinit",
    ".lldbinit",
    ".irbrc",
    ".pryrc",
    ".psqlrc",
    ".sqliterc",
    ".hg/hgrc",
    "mise.toml",
    ".mise.toml",
    "mise.local.toml",
    ".mise.local.toml",
    ".mise/config.toml",
    ".config/mise.toml",
    ".config/mise/config.toml",
    "mise/config.toml",
    ".rtx.toml",
    ".helix/config.toml",
    ".helix/languages.toml",
    ".zed/settings.json",
    ".zed/tasks.json",
    ".devcontainer/devcontainer.json",
    ".devcontainer.json",
];

/// Manifests that mark a directory tools run in (a workspace member).
const MANIFESTS: &[&str] = &["Cargo.toml", "package.json", "pom.xml", "pyproject.toml"];

/// The program-naming configuration of `project`: (there now, not there yet), at its top and in
/// the directories two levels down that hold a manifest.
pub(super) fn named(project: &Path) -> (Vec<PathBuf>, Vec<PathBuf>) {
    let (mut present, mut absent) = (Vec::new(), Vec::new());
    for dir in tool_dirs(project) {
        for file in PROGRAM_CONFIGS {
            let path = dir.join(file);
            match path.symlink_metadata() {
                Ok(_) => present.push(path),
                Err(_) => absent.push(path),
            }
        }
    }
    (present, absent)
}

fn tool_dirs(project: &Path) -> Vec<PathBuf> {
    let mut dirs = vec![project.to_path_buf()];
    let children = |dir: &Path| -> Vec<PathBuf> {
        std::fs::read_dir(dir)
            .map(|entries| {
                entries
                    .flatten()
                    .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
                    .filter(|e| !e.file_name().to_string_lossy().starts_with('.'))
                    .filter(|e| e.file_name() != "node_modules" && e.file_name() != "target")
                    .map(|e| e.path())
                    .take(500)
                    .collect()
            })
            .unwrap_or_default()
    };
    for child in children(project) {
        for dir in std::iter::once(child.clone()).chain(children(&child)) {
            if MANIFESTS.iter().any(|m| dir.join(m).is_file()) {
                dirs.push(dir);
            }
        }
    }
    dirs
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn configuration_that_names_programs_is_found_at_the_top_and_in_members() {
        let dir = tempfile::tempdir().unwrap();
        let project = dir.path().to_path_buf();
        std::fs::create_dir_all(project.join(".cargo")).unwrap();
        std::fs::write(project.join(".cargo/config.toml"), "").unwrap();
        std::fs::create_dir_all(project.join("crates/core")).unwrap();
        std::fs::write(project.join("crates/core/Cargo.toml"), "").unwrap();
        let (present, absent) = named(&project);
        assert_eq!(present, [project.join(".cargo/config.toml")]);
        assert!(absent.contains(&project.join(".npmrc")));
        assert!(absent.contains(&project.join("crates/core/.cargo/config.toml")));
        assert!(
            !absent
                .iter()
                .any(|p| p.starts_with(project.join("crates/.cargo")))
        );
    }
}
