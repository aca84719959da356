//! Directories where the user's tools find something by name before what the user has
//! installed: those the project's `.envrc` or ai's own PATH put first on PATH (a program named
//! `ls` or `git`), an activated virtualenv's site-packages (start-up files), and the top of the
//! project, where `python3 -m pip` imports a `pip/` package before the installed one. What a
//! call adds or changes there under such a name is moved aside after the call (sandbox rounds
//! 24 to 26).

use std::collections::{BTreeMap, BTreeSet};
use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// A directory where the user's tools find things by name, with what was there before a call:
/// name, and the change time of the entry and of what it leads to (a link's target changed
/// counts).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct PathDir {
    dir: PathBuf,
    watch: Watch,
    before: BTreeMap<OsString, (i64, i64)>,
}

/// What in a directory runs without being named.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Watch {
    /// A program under the name of one elsewhere on PATH (`ls`, `git`).
    Programs,
    /// Python's start-up files in site-packages (`*.pth`, `sitecustomize`, `usercustomize`).
    Startup,
    /// A Python module or package under the name of one installed (`pip/`, `json.py`,
    /// `venv.pyc`): `python3 -m pip` run at the top of the project imports it first.
    Modules,
}

/// What the user has installed, by name: programs on PATH and Python modules.
#[derive(Debug, Default)]
pub(super) struct Installed {
    pub(super) programs: BTreeSet<OsString>,
    pub(super) modules: BTreeSet<OsString>,
}

impl Installed {
    /// Read from ai's PATH (outside `project`) and the system's Python directories, once per
    /// run (what is installed does not change while ai runs; reading it costs a walk of PATH).
    pub(super) fn find(project: &Path) -> &'static Installed {
        static FOUND: std::sync::OnceLock<Installed> = std::sync::OnceLock::new();
        FOUND.get_or_init(|| {
            let path = std::env::var_os("PATH");
            Installed {
                programs: programs_on_path(path.as_deref(), project),
                modules: python_modules(path.as_deref(), project),
            }
        })
    }
}

impl PathDir {
    pub(super) fn new(dir: PathBuf, watch: Watch) -> PathDir {
        let before = entries(&dir);
        PathDir { dir, watch, before }
    }

    /// Takes what is there again, before a call: what the user changed between calls is theirs.
    pub(super) fn refresh(&mut self) {
        self.before = entries(&self.dir);
    }

    /// The entries a call added or changed that run without being named: under the name of a
    /// program elsewhere on PATH (`elsewhere`), or a start-up file.
    pub(super) fn shadowing(&self, installed: &Installed) -> Vec<PathBuf> {
        let runs = |name: &OsString| match self.watch {
            Watch::Programs => installed.programs.contains(name),
            Watch::Modules => module_name(&self.dir.join(name))
                .is_some_and(|module| installed.modules.contains(&module)),
            Watch::Startup => {
                let name = name.to_string_lossy();
                name.ends_with(".pth")
                    || name.starts_with("sitecustomize")
                    || name.starts_with("usercustomize")
            }
        };
        entries(&self.dir)
            .into_iter()
            .filter(|(name, seen)| runs(name) && self.before.get(name) != Some(seen))
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

/// The module a file or directory is to Python: `json.py`, `pip.pyc`, `x.cpython-311.so` and a
/// package with an `__init__` (a directory without one defers to an installed package).
fn module_name(path: &Path) -> Option<OsString> {
    let name = path.file_name()?.to_string_lossy().into_owned();
    if path.is_dir() {
        let package = std::fs::read_dir(path)
            .ok()?
            .flatten()
            .any(|e| e.file_name().to_string_lossy().starts_with("__init__."));
        return package.then(|| name.into());
    }
    let stem = [".py", ".pyc", ".pyw", ".so"]
        .iter()
        .find_map(|ext| name.strip_suffix(ext))?;
    Some(stem.split('.').next().unwrap_or(stem).into())
}

/// The top-level modules of the Pythons the user has: the standard library and site-packages
/// of the system's (`/usr/lib/python3.*`, `/usr/local/lib/python3.*`) and of the `python3`
/// PATH finds outside `project`.
fn python_modules(path: Option<&std::ffi::OsStr>, project: &Path) -> BTreeSet<OsString> {
    let mut libs: Vec<PathBuf> = vec!["/usr/lib".into(), "/usr/local/lib".into()];
    let pythons = path
        .map(|p| std::env::split_paths(p).collect::<Vec<_>>())
        .unwrap_or_default()
        .into_iter()
        .filter(|dir| dir.is_absolute() && !dir.starts_with(project))
        .map(|dir| dir.join("python3"))
        .filter_map(|python| python.canonicalize().ok());
    libs.extend(pythons.filter_map(|p| Some(p.parent()?.parent()?.join("lib"))));
    let mut dirs = Vec::new();
    for lib in libs {
        let Ok(entries) = std::fs::read_dir(&lib) else {
            continue;
        };
        for entry in entries.flatten() {
            if entry.file_name().to_string_lossy().starts_with("python3") {
                let version = entry.path();
                dirs.push(version.join("site-packages"));
                dirs.push(version.join("dist-packages"));
                dirs.push(version.join("lib-dynload"));
                dirs.push(version);
            }
        }
    }
    dirs.iter()
        .filter_map(|dir| std::fs::read_dir(dir).ok())
        .flat_map(|read| read.flatten().filter_map(|e| module_name(&e.path())))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_program_added_or_changed_under_another_programs_name_is_found() {
        let dir = tempfile::tempdir().unwrap();
        let bin = dir.path().join("bin");
        std::fs::create_dir(&bin).unwrap();
        std::fs::write(bin.join("git"), "#!/bin/sh\n").unwrap();
        std::fs::write(bin.join("dev-server"), "#!/bin/sh\n").unwrap();
        let mut path_dir = PathDir::new(bin.clone(), Watch::Programs);
        path_dir.refresh();
        let elsewhere = Installed {
            programs: ["ls", "git"].map(OsString::from).into(),
            ..Installed::default()
        };
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

    #[test]
    fn a_module_added_under_an_installed_modules_name_is_found() {
        let dir = tempfile::tempdir().unwrap();
        let top = dir.path().to_path_buf();
        std::fs::write(top.join("app.py"), "").unwrap();
        let watched = PathDir::new(top.clone(), Watch::Modules);
        std::fs::create_dir_all(top.join("pip")).unwrap();
        std::fs::write(top.join("pip/__init__.py"), "").unwrap();
        std::fs::write(top.join("json.py"), "").unwrap();
        std::fs::write(top.join("venv.pyc"), "").unwrap();
        std::fs::create_dir_all(top.join("data/json")).unwrap();
        std::fs::create_dir_all(top.join("pytest")).unwrap();
        std::fs::write(top.join("mymodule.py"), "").unwrap();
        let installed = Installed {
            modules: ["pip", "json", "venv", "pytest"].map(OsString::from).into(),
            ..Installed::default()
        };
        let mut found = watched.shadowing(&installed);
        found.sort();
        // `pytest/` without an `__init__` defers to the installed package.
        assert_eq!(
            found,
            [top.join("json.py"), top.join("pip"), top.join("venv.pyc")]
        );
        assert!(
            python_modules(std::env::var_os("PATH").as_deref(), &top)
                .contains(&OsString::from("json"))
        );
    }
}
