//! What direnv runs from the project when the user enters it: the approved `.envrc` (hidden
//! and unwritable as a secret) and whatever it loads, which direnv does not ask about again
//! (`source_env_if_exists .envrc.local`, `source_env scripts/dev-env.sh`, `dotenv`, `use nix`,
//! a project path it exports as `GIT_CONFIG_GLOBAL` or `PYTHONPATH`). Those are read-only; one
//! not there yet is moved aside if a call makes it (sandbox rounds 22, 25). The directories it
//! puts first on PATH (`PATH_add bin`, `layout node`, an activated virtualenv's `bin`, and
//! those already on ai's own PATH) hold what the user's shell runs for `ls` or `git` there: a
//! program a call puts there (or changes) under the name of one the user has elsewhere on PATH
//! is moved aside (sandbox round 24), as is a start-up file (`*.pth`, `sitecustomize`) a call
//! puts in an activated virtualenv's site-packages.

use std::path::{Path, PathBuf};

use super::envrc;
use super::shadowing::{PathDir, Watch};

/// The files and directories `work_tree`'s `.envrc` loads: (there now, not there yet).
pub(super) fn loaded(work_tree: &Path) -> (Vec<PathBuf>, Vec<PathBuf>) {
    let (mut present, mut absent) = (Vec::new(), Vec::new());
    let envrc = envrc::read(work_tree);
    // What direnv keeps for the project (nix-direnv's cached environment, `layout python`'s
    // virtualenv, whose `bin` goes first on PATH): direnv itself makes it, outside ai.
    match work_tree.join(".direnv") {
        dir if dir.is_dir() => present.push(dir),
        dir if envrc.layout => absent.push(dir),
        _ => {}
    }
    let sourced = (envrc.sourced.iter())
        .filter(|f| !f.contains('$') && !f.starts_with('/'))
        .map(|f| crate::config::lexical(&work_tree.join(f)));
    // A virtualenv's activation scripts: what `source .venv/bin/activate` or the user runs.
    let active = active_venv(work_tree);
    let at_top = project_venvs(work_tree);
    let venvs: Vec<&PathBuf> = (envrc.venvs.iter().chain(&active).chain(&at_top)).collect();
    // Its activation scripts and `pyvenv.cfg`, whose `home` names the Python it starts (round
    // 28: pointed at a planted standard library).
    let activation = venvs.iter().flat_map(|venv| activation_scripts(venv));
    // What the virtualenv's Python runs at every start: its `.pth` files and what they import
    // (setuptools' `distutils-precedence.pth` imports `_distutils_hack`), `sitecustomize`
    // (sandbox round 26).
    let startup = (venvs.iter())
        .flat_map(|venv| site_packages(venv))
        .flat_map(|site| startup_modules(&site));
    for path in sourced.chain(envrc.named).chain(activation).chain(startup) {
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

/// Why the project's `.envrc` leaves a directory on PATH that ai cannot work out, if it does.
pub(super) fn unreadable(work_tree: &Path) -> Option<String> {
    envrc::read(work_tree).unknown.map(|entry| {
        format!("the project's .envrc puts `{entry}` on PATH, which ai cannot work out")
    })
}

/// The virtualenvs at the top of the project (a directory holding `pyvenv.cfg`): what the user
/// activates there later.
fn project_venvs(work_tree: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(work_tree) else {
        return Vec::new();
    };
    entries
        .flatten()
        .map(|e| e.path())
        .filter(|dir| dir.join("pyvenv.cfg").is_file())
        .collect()
}

/// The virtualenv of the project that ai's own environment has activated.
fn active_venv(work_tree: &Path) -> Option<PathBuf> {
    let venv = PathBuf::from(std::env::var_os("VIRTUAL_ENV")?);
    let venv = venv.canonicalize().unwrap_or(venv);
    venv.starts_with(work_tree).then_some(venv)
}

fn activation_scripts(venv: &Path) -> Vec<PathBuf> {
    [
        "activate",
        "activate.fish",
        "activate.csh",
        "activate.nu",
        "Activate.ps1",
    ]
    .iter()
    .map(|name| venv.join("bin").join(name))
    .chain([venv.join("pyvenv.cfg")])
    .collect()
}

/// What the user's shell finds in the project on its own: the directories `work_tree`'s
/// `.envrc` puts on PATH, its virtualenvs' `bin`, the project directories already on ai's own
/// PATH; and the virtualenvs' site-packages, whose start-up files Python runs.
pub(super) fn path_dirs(work_tree: &Path) -> Vec<PathDir> {
    let envrc = envrc::read(work_tree);
    let venvs: Vec<PathBuf> = envrc
        .venvs
        .iter()
        .cloned()
        .chain(active_venv(work_tree))
        .chain(project_venvs(work_tree))
        .collect();
    let on_path = std::env::var_os("PATH")
        .map(|p| std::env::split_paths(&p).collect::<Vec<_>>())
        .unwrap_or_default()
        .into_iter()
        .filter(|d| d.is_absolute())
        .map(|d| d.canonicalize().unwrap_or(d))
        .filter(|d| d.starts_with(work_tree));
    let mut programs: Vec<PathBuf> = (envrc.path_dirs.into_iter())
        .chain(venvs.iter().map(|v| v.join("bin")))
        .chain(on_path)
        .collect();
    programs.sort();
    programs.dedup();
    let startup = venvs.iter().flat_map(|venv| site_packages(venv));
    (programs
        .into_iter()
        .map(|d| PathDir::new(d, Watch::Programs)))
    .chain(startup.map(|d| PathDir::new(d, Watch::Startup)))
    .collect()
}

/// The files in `site` (a site-packages directory) that Python runs at start: `.pth` files,
/// the modules their `import` lines name, `sitecustomize` and `usercustomize`.
fn startup_modules(site: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(site) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.starts_with("sitecustomize") || name.starts_with("usercustomize") {
            out.push(entry.path());
        }
        if !name.ends_with(".pth") {
            continue;
        }
        out.push(entry.path());
        let text = crate::config::read_small(&entry.path(), 64 * 1024).unwrap_or_default();
        for line in text
            .lines()
            .filter(|l| l.trim_start().starts_with("import"))
        {
            for module in pth_imports(line) {
                out.extend(
                    [site.join(module), site.join(format!("{module}.py"))]
                        .into_iter()
                        .filter(|p| p.exists()),
                );
            }
        }
    }
    out
}

/// The modules a `.pth` line imports: `import a, b.c; ...` and `__import__('d')` (setuptools'
/// `distutils-precedence.pth` imports `_distutils_hack` so).
fn pth_imports(line: &str) -> Vec<&str> {
    let mut out = Vec::new();
    for statement in line.split(';').map(str::trim) {
        if let Some(names) = statement.strip_prefix("import ") {
            out.extend(
                names
                    .split(',')
                    .filter_map(|n| n.trim().split(['.', ' ']).next()),
            );
        }
    }
    for (at, _) in line.match_indices("__import__(") {
        let rest = line[at + "__import__(".len()..].trim_start_matches(['\'', '"']);
        let end = rest
            .find(|c: char| !(c.is_alphanumeric() || c == '_'))
            .unwrap_or(rest.len());
        out.push(&rest[..end]);
    }
    out.retain(|m| !m.is_empty());
    out
}

/// `VENV/lib/python3.X/site-packages`, for each Python the virtualenv has.
fn site_packages(venv: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(venv.join("lib")) else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with("python"))
        .map(|e| e.path().join("site-packages"))
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
    fn what_a_pth_line_imports_is_found() {
        let line = "import os; var = 'X'; enabled and __import__('_distutils_hack').add_shim();";
        assert_eq!(pth_imports(line), ["os", "_distutils_hack"]);
        assert_eq!(pth_imports("import a, b.c"), ["a", "b"]);
    }
}
