//! What a word of a command line names, judged on its text and the file system: a descriptor,
//! a source or auto-loaded file, a system program, a project's own scripts and
//! tools (package.json scripts, `node_modules/.bin`).

use std::path::Path;

use super::shell::Word;

/// `/dev/fd/2`: a copy of a descriptor, not a file (`/dev/fd/../cwd/x` is a file).
pub(crate) fn is_descriptor(path: &str, dynamic: bool) -> bool {
    !dynamic
        && path
            .strip_prefix("/dev/fd/")
            .is_some_and(|n| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()))
}

/// Files build tools and interpreters pick up by themselves.
const AUTO_LOADED: &[&str] = &[
    "Makefile",
    "makefile",
    "GNUmakefile",
    "Dockerfile",
    "Gemfile",
    "Rakefile",
    "Justfile",
    "Vagrantfile",
    "BUILD",
    "WORKSPACE",
    "CMakeLists.txt",
    "meson.build",
    "build.rs",
    "conftest.py",
    "setup.py",
    "sitecustomize.py",
    "usercustomize.py",
    // Toolchain pins read by every build in the directory: `rust-toolchain` may name a
    // toolchain by path, `go.mod`/`go.work` a Go toolchain to download or source elsewhere.
    "rust-toolchain",
    "go.mod",
    "go.work",
    "justfile",
    ".justfile",
    "BUILD.bazel",
    "MODULE.bazel",
    "SConstruct",
    "build.ninja",
    "Taskfile.yml",
];

/// A path's file name and its extension (lower case).
fn name_and_extension(path: &Path) -> (String, String) {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let extension = path
        .extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default();
    (name, extension)
}

/// Whether a build, a test runner or Python picks `path` up by itself, without being told its
/// name: a build description (`GNUmakefile`, `build.rs`, `conftest.py`, `package.json`), a
/// settings file (`.npmrc`), a `.mk` include, or a module Python imports from its directory
/// (`.pyc`, `.so`, `.pth`). A line that writes one and then builds runs what ai did not read.
pub(crate) fn picked_up(path: &Path) -> bool {
    let (name, extension) = name_and_extension(path);
    AUTO_LOADED.contains(&name.as_str())
        || name == "package.json"
        || name.starts_with('.')
        || ["pyc", "pyo", "so", "pth", "mk"].contains(&extension.as_str())
}

/// Files whose overwriting changes what the project is, or runs later (`.envrc`, dotfiles).
pub(crate) fn is_source(path: &Path, existing: bool) -> bool {
    // New files: what build tools and interpreters pick up by themselves (a `conftest.py`, a
    // `GNUmakefile`, a `.pth`), so that creating one would plant code. Existing files: any source.
    const CODE: &[&str] = &[
        "rs", "c", "h", "py", "pth", "js", "mjs", "cjs", "ts", "go", "rb", "php", "sh", "pl",
        "toml", "json", "yaml", "yml", "ini", "cfg", "mk", "cmake", "lua", "nix",
        // Python's compiled and extension modules, and what make's built-in rules compile
        // (classifier round 17).
        "pyc", "pyo", "pyw", "so", "cc", "cpp", "cxx", "s", "f", "p", "y", "l",
    ];
    let (name, extension) = name_and_extension(path);
    if !existing {
        // pytest collects `test*.txt` as doctests by default.
        let doctest = name.starts_with("test") && extension == "txt";
        return name.starts_with('.')
            || doctest
            || AUTO_LOADED.contains(&name.as_str())
            || CODE.contains(&extension.as_str());
    }
    const SOURCE: &[&str] = &[
        "rs", "c", "h", "cc", "cpp", "hpp", "py", "js", "mjs", "cjs", "ts", "tsx", "jsx", "go",
        "java", "kt", "rb", "php", "sh", "bash", "zsh", "fish", "toml", "yaml", "yml", "ini",
        "cfg", "conf", "md", "txt", "lock", "mod", "sum", "gradle", "xml", "json", "html", "css",
        "sql", "swift", "cs", "scala", "pl", "lua", "r", "mk", "cmake", "nix", "vim", "el",
    ];
    name.starts_with('.')
        || AUTO_LOADED.contains(&name.as_str())
        || SOURCE.contains(&extension.as_str())
}

/// Interpreters, shells and loaders: they run whatever code or program they are given, so found
/// by any path (`.venv/bin/python3`, `node_modules/.bin/node`, `/lib64/ld-linux-x86-64.so.2`) they
/// are judged as themselves, and fed arguments from input (`xargs sh`) they ask.
pub(crate) fn runs_code(base: &str) -> bool {
    const EXACT: &[&str] = &[
        "sh",
        "bash",
        "rbash",
        "dash",
        "zsh",
        "ksh",
        "mksh",
        "fish",
        "csh",
        "tcsh",
        "busybox",
        "node",
        "nodejs",
        "deno",
        "bun",
        "ruby",
        "irb",
        "perl",
        "php",
        "Rscript",
        "R",
        "tclsh",
        "wish",
        "ld",
        "gold",
        "lld",
        "env",
        "exec",
        "eval",
        "source",
        ".",
        "java",
        "jshell",
        "osascript",
        "gdb",
        "lldb",
        "strace",
        "ltrace",
        "valgrind",
        "awk",
        "gawk",
        "mawk",
        "nawk",
    ];
    const FAMILIES: &[&str] = &[
        "python", "pypy", "ruby", "perl", "php", "lua", "luajit", "node",
    ];
    let version = |rest: &str| {
        rest.chars()
            .all(|c| c.is_ascii_digit() || c == '.' || c == '-')
    };
    EXACT.contains(&base)
        || FAMILIES
            .iter()
            .any(|f| base.strip_prefix(f).is_some_and(version))
        || base.starts_with("ld.")
        || base.starts_with("ld-linux")
        || base.starts_with("ld64")
}

/// `/usr/bin/ls` is `ls`; a program in any other directory is a file to check.
pub(crate) fn in_system_bin(path: &str) -> bool {
    const DIRS: &[&str] = &[
        "/bin/",
        "/usr/bin/",
        "/usr/local/bin/",
        "/sbin/",
        "/usr/sbin/",
        "/usr/local/sbin/",
    ];
    DIRS.iter().any(|dir| {
        path.strip_prefix(dir)
            .is_some_and(|rest| !rest.is_empty() && !rest.contains('/'))
    })
}

/// Whether `name` is a script in the project's `package.json`.
pub(crate) fn package_script(project: &Path, name: &str) -> bool {
    std::fs::read_to_string(project.join("package.json"))
        .ok()
        .and_then(|text| serde_json::from_str::<serde_json::Value>(&text).ok())
        .is_some_and(|json| json["scripts"].get(name).is_some())
}

/// Whether `name` is a tool the project installed (`node_modules/.bin/NAME`).
pub(crate) fn project_bin(project: &Path, name: &str) -> bool {
    !name.contains('/') && project.join("node_modules/.bin").join(name).exists()
}

/// `{}` of `find -exec` (or of `xargs -I{}`) is whatever file turns up at run time.
pub(crate) fn named_at_run_time(word: &Word) -> Option<String> {
    word.text.contains("{}").then(|| {
        format!(
            "runs `{}`, a file named only at run time (`find -exec`, `xargs -I`)",
            word.text
        )
    })
}
