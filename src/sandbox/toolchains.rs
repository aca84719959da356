//! Where the toolchains live that sandboxed commands may read inside the hidden home: the
//! usual directories, what the toolchains' variables name, and the roots of `PATH`'s entries,
//! each judged where it leads.

use std::path::{Path, PathBuf};

use crate::config::ForeignVars;

/// What of the home directory sandboxed commands may read: the toolchains and caches builds
/// need. The rest of home (and of `/home`) is hidden: histories, dotfiles, other projects,
/// every credential the policy's list names and all it does not.
pub(super) const TOOLCHAINS: &[&str] = &[
    ".cargo",
    ".rustup",
    ".npm",
    ".nvm",
    ".node",
    ".volta",
    ".bun",
    ".deno",
    ".yarn",
    ".local/share/pnpm",
    ".pyenv",
    ".local/bin",
    ".local/lib",
    ".cache/pip",
    ".cache/uv",
    ".cache/pypoetry",
    ".cache/yarn",
    ".cache/go-build",
    "go",
    ".gradle",
    ".m2",
    ".gem",
    ".rbenv",
    ".sdkman",
    ".dotnet",
    ".nuget",
    ".cache/node-gyp",
    ".cache/ms-playwright",
];

/// Names of directories that are a toolchain's root when a `PATH` entry is their `bin`.
const TOOLCHAIN_ROOTS: &[&str] = &[
    ".cargo",
    "cargo",
    ".rustup",
    ".pyenv",
    ".nvm",
    ".volta",
    ".bun",
    ".deno",
    "go",
    ".go",
    ".rbenv",
    ".sdkman",
    ".dotnet",
    ".gem",
    ".venv",
    "venv",
    ".poetry",
    ".juliaup",
    ".ghcup",
    ".nimble",
    ".opam",
    "flutter",
    ".pub-cache",
    "miniconda3",
    "anaconda3",
    "conda",
];

/// Where toolchains live: the usual places in the home, the directories the toolchains'
/// variables name, and the root of each `PATH` entry (`~/.cargo` for `~/.cargo/bin`, the
/// `.pyenv` of its `shims`).
pub(super) fn toolchain_dirs(
    home: Option<&Path>,
    project: Option<&PathBuf>,
    vars: &ForeignVars,
) -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = home
        .map(|home| TOOLCHAINS.iter().map(|t| home.join(t)).collect())
        .unwrap_or_default();
    dirs.extend(vars.toolchains.iter().cloned());
    for entry in vars.path.as_deref().unwrap_or_default().split(':') {
        let entry = Path::new(entry);
        // The toolchain's root only when it is one (`~/.cargo` of `~/.cargo/bin`): `~/.local`
        // of `~/.local/bin` holds far more than programs.
        let parent = entry.parent().filter(|p| {
            let name = p.file_name().and_then(|n| n.to_str()).unwrap_or_default();
            TOOLCHAIN_ROOTS.contains(&name)
                || name.starts_with("python")
                || name.starts_with("node")
        });
        let root = match entry.file_name().and_then(|n| n.to_str()) {
            Some("bin" | "shims") => parent.or(Some(entry)),
            _ => Some(entry),
        };
        dirs.extend(
            root.filter(|r| r.is_absolute() && r.parent().is_some())
                .map(Path::to_path_buf),
        );
    }
    // Never a whole home (`~/bin` on PATH has the home as its root).
    let a_home = |d: &Path| {
        d == Path::new("/root")
            || d.parent() == Some(Path::new("/home"))
            || home.is_some_and(|h| h.starts_with(d))
            || Path::new("/home").starts_with(d)
    };
    // Judged where they lead: a link (a project's `.venv` made a link to `/` by a call) is its
    // target. One inside the project is readable as the project already, and must not be
    // taken for a toolchain: what a call makes there would widen the next run's reads.
    let inside = |d: &Path| project.is_some_and(|p| d.starts_with(p));
    dirs.retain(|d| !inside(d));
    let mut dirs: Vec<PathBuf> = dirs.iter().filter_map(|d| d.canonicalize().ok()).collect();
    dirs.retain(|d| !a_home(d) && !inside(d));
    dirs.sort();
    dirs.dedup();
    dirs
}

/// What in any toolchain's root holds credentials, whatever the root is called (a cargo home
/// under XDG is no `.cargo`): registry tokens, Gradle's Develocity keys and init scripts,
/// NuGet's extra configs, .NET's certificate store, conda's, pip's and npm's settings.
const TOOLCHAIN_SECRETS: &[&str] = &[
    "credentials",
    "credentials.toml",
    ".credentials.toml",
    "develocity",
    "enterprise",
    "init.d",
    "init.gradle",
    "init.gradle.kts",
    "gradle.properties",
    "corefx",
    "NuGet",
    ".condarc",
    "condarc",
    "pip.conf",
    "pip.ini",
    ".npmrc",
    "npmrc",
    ".yarnrc",
    ".yarnrc.yml",
    ".pypirc",
    ".netrc",
    "settings.xml",
    "settings-security.xml",
    "auth.json",
    "auth.toml",
    "token",
    ".token",
    // rbenv-vars' global variables; npm's global config of a node prefix; pip's, bun's and
    // git's settings kept inside a toolchain.
    "vars",
    "etc/npmrc",
    "etc/pip.conf",
    "etc/.netrc",
    "etc/gitconfig",
    ".gitconfig",
    "bunfig.toml",
    // conda's per-environment variables (`conda env config vars set`, activate scripts) and
    // its settings directory; nimble's GitHub token; Dart's pub credentials.
    "etc/conda/activate.d",
    "etc/conda/deactivate.d",
    "conda-meta/state",
    "condarc.d",
    ".condarc.d",
    "github_api_token",
    "credentials.json",
    "pub-credentials.json",
];

/// Settings files of a toolchain's root that a build may need, hidden only when they hold a
/// credential (cargo's `config.toml` with a registry token).
const TOOLCHAIN_SETTINGS: &[&str] = &["config", "config.toml"];

/// Where environments and versions of a toolchain keep their own settings, one or two levels
/// down (pyenv's `versions/3.12/pip.conf`, conda's `envs/x/.condarc`, nvm's
/// `versions/node/v20/etc/npmrc`, Volta's `tools/image/node/20/etc/npmrc`).
const NESTED: &[&str] = &["versions", "envs", "tools/image"];

/// Most versions or environments looked into in one place; past this the place is hidden whole.
const MOST_NESTED: usize = 500;

/// The credentials in the toolchain at `root`, to be hidden.
pub(super) fn toolchain_secrets(root: &Path) -> Vec<PathBuf> {
    let mut hidden = secrets_in(root);
    for nested in NESTED {
        let dir = root.join(nested);
        let first = subdirectories(&dir);
        if first.len() > MOST_NESTED {
            hidden.push(dir);
            continue;
        }
        for version in first {
            let second = subdirectories(&version);
            if second.len() > MOST_NESTED {
                hidden.push(version);
                continue;
            }
            hidden.extend(secrets_in(&version));
            for inner in second {
                hidden.extend(secrets_in(&inner));
                // pyenv-virtualenv's `versions/3.12/envs/NAME/`: environments of a version.
                if inner.file_name().is_some_and(|n| n == "envs") {
                    let third = subdirectories(&inner);
                    if third.len() > MOST_NESTED {
                        hidden.push(inner);
                        continue;
                    }
                    hidden.extend(third.iter().flat_map(|env| secrets_in(env)));
                }
            }
        }
    }
    hidden
}

/// The directories in `dir` (links not followed), at most one more than `MOST_NESTED`.
fn subdirectories(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
        .map(|e| e.path())
        .take(MOST_NESTED + 1)
        .collect()
}

fn secrets_in(dir: &Path) -> Vec<PathBuf> {
    let mut hidden: Vec<PathBuf> = TOOLCHAIN_SECRETS
        .iter()
        .map(|name| dir.join(name))
        .filter(|path| path.symlink_metadata().is_ok())
        .collect();
    for name in TOOLCHAIN_SETTINGS {
        let path = dir.join(name);
        // A directory (NuGet's `config/`, with `ClearTextPassword`s) is hidden whole; a file
        // when it holds a credential (or cannot be read as a small one).
        let hide = match path.symlink_metadata() {
            Ok(meta) if meta.is_dir() => true,
            Ok(_) => crate::config::read_small(&path, 1 << 20)
                .is_none_or(|text| crate::config::credential_in(&text)),
            Err(_) => false,
        };
        if hide {
            hidden.push(path);
        }
    }
    hidden
}
