//! Python modules that what git runs would import from the project. A hook or a filter that
//! runs `python -m NAME` (pre-commit's hook runs `-mpre_commit`, nbstripout's filter `-m
//! nbstripout`) starts in the work tree, and Python looks there first: a `NAME/` or `NAME.py` a
//! call leaves at the top of the project runs at the user's next `git commit` or `git status`,
//! outside the sandbox (sandbox round 17). Those names are kept read-only, or moved aside after
//! a call when a call made them.

use std::collections::BTreeSet;
use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// The most bytes of a hook read for the modules it runs.
const HOOK_BYTES: u64 = 64 * 1024;

/// The module names `text` runs with `-m NAME`, `-mNAME` (only the top package counts: it is
/// what Python finds first).
pub(super) fn run_modules(text: &str) -> Vec<String> {
    text.lines().flat_map(line_modules).collect()
}

/// The modules one line runs: a `-m` after a word naming Python (`python3`, `"$INSTALL_PYTHON"`),
/// not git's or grep's own `-m`.
fn line_modules(line: &str) -> Vec<String> {
    let words: Vec<&str> = line
        .split(|c: char| c.is_whitespace() || matches!(c, '"' | '\'' | ';' | '&' | '|'))
        .filter(|w| !w.is_empty())
        .collect();
    let Some(python) = words
        .iter()
        .position(|w| w.to_ascii_lowercase().contains("python"))
    else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for (i, word) in words.iter().enumerate().skip(python + 1) {
        let name = match *word {
            "-m" => words.get(i + 1).copied(),
            w if w.starts_with("-m") && w.len() > 2 && !w.starts_with("--") => Some(&w[2..]),
            _ => None,
        };
        let top = name.and_then(|n| n.split('.').next()).unwrap_or("");
        let identifier = top.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
            && top.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
        if identifier {
            out.push(top.to_string());
        }
    }
    out
}

/// The modules the hooks in `dir` run (each hook read up to a size).
pub(super) fn hook_modules(dir: &Path) -> Vec<String> {
    hook_texts(dir)
        .iter()
        .flat_map(|text| run_modules(text))
        .collect()
}

/// The texts of the hooks in `dir` that git runs (each up to a size).
pub(super) fn hook_texts(dir: &Path) -> Vec<String> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
        .filter(|e| !e.file_name().to_string_lossy().ends_with(".sample"))
        .filter_map(|e| crate::config::read_small(&e.path(), HOOK_BYTES))
        .collect()
}

/// The project's scripts the hooks in `dir` run (`python3 tools/check.py`): git runs them too,
/// so they are protected like the hook (or moved aside if a call makes them).
pub(super) fn hook_scripts(
    dir: &Path,
    work_tree: &Path,
    protected: &mut Vec<PathBuf>,
    absent: &mut Vec<PathBuf>,
) {
    for text in hook_texts(dir) {
        for program in program_paths(&text) {
            let file = crate::config::lexical(&work_tree.join(&program));
            match file.symlink_metadata() {
                Ok(meta) if meta.is_file() => protected.push(file),
                Ok(_) => {}
                Err(_) => absent.push(file),
            }
        }
    }
}

/// What Python imports from the work tree when git runs it: the modules run with `-m` (kept
/// read-only, or moved aside if made), and every directory Python looks in first — the top of
/// the work tree when git starts Python there (or pre-commit is used), and the directory of
/// each Python script git runs (`scripts/json.py` beside `scripts/strip.py` shadows `json`).
pub(super) fn protect_imports(
    work_tree: &Path,
    mut modules: Vec<String>,
    (protected, absent): (&mut Vec<PathBuf>, &mut Vec<PathBuf>),
    trees: &mut Vec<(PathBuf, BTreeSet<OsString>)>,
) {
    let script_dirs: Vec<PathBuf> = (protected.iter().chain(absent.iter()))
        .filter(|p| p.starts_with(work_tree) && p.extension().is_some_and(|e| e == "py"))
        .filter_map(|p| p.parent().map(Path::to_path_buf))
        .filter(|d| d != work_tree)
        .collect();
    if uses_pre_commit(work_tree) {
        modules.push("pre_commit".to_string());
    }
    let script_at_top = (protected.iter().chain(absent.iter()))
        .any(|p| p.parent() == Some(work_tree) && p.extension().is_some_and(|e| e == "py"));
    let top = (!modules.is_empty() || script_at_top).then(|| work_tree.to_path_buf());
    // What Python imports from there that is already there: a script's directory is read-only
    // whole, its `__pycache__` with it; at the top of the work tree, each module and package
    // and the `__pycache__` (sandbox round 26: a hook's `import helper` ran an edited
    // `helper.py`, and a forged `.pyc` beside an unchanged one).
    protected.extend(script_dirs.iter().filter(|d| d.is_dir()).cloned());
    if let Some(top) = &top {
        protected.extend(importables(top).iter().map(|name| top.join(name)));
        match top.join("__pycache__") {
            cache if cache.exists() => protected.push(cache),
            cache => absent.push(cache),
        }
    }
    for dir in script_dirs.into_iter().chain(top) {
        if !trees.iter().any(|(t, _)| *t == dir) {
            let names = importables(&dir);
            trees.push((dir, names));
        }
    }
    for module in modules {
        for path in module_paths(work_tree, &module) {
            match path.symlink_metadata() {
                Ok(_) => protected.push(path),
                Err(_) => absent.push(path),
            }
        }
    }
}

/// Where Python would find module `name` in `work_tree`: the package and the file.
pub(super) fn module_paths(work_tree: &Path, name: &str) -> [PathBuf; 2] {
    [work_tree.join(name), work_tree.join(format!("{name}.py"))]
}

/// What Python can import at the top of a work tree now (by name).
pub(super) fn importables(work_tree: &Path) -> BTreeSet<OsString> {
    std::fs::read_dir(work_tree)
        .map(|entries| {
            entries
                .flatten()
                .filter(|e| importable(&e.path()))
                .map(|e| e.file_name())
                .collect()
        })
        .unwrap_or_default()
}

/// What Python could import at the top of `work_tree` that was not there before: any module
/// (`argparse.py`, a sourceless `.pyc`, an extension `.so`) or package (`NAME/__init__.py`) —
/// `python -m` puts the work tree first for every import, not only the module it runs.
pub(super) fn added_importables(work_tree: &Path, before: &BTreeSet<OsString>) -> Vec<PathBuf> {
    // A data directory that became a package (`yaml/` given an `__init__.py`) counts.
    importables(work_tree)
        .into_iter()
        .filter(|name| !before.contains(name))
        .map(|name| work_tree.join(name))
        .collect()
}

fn importable(path: &Path) -> bool {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy())
        .unwrap_or_default();
    let module = [".py", ".pyc", ".so", ".pyw"]
        .iter()
        .any(|e| name.ends_with(e));
    // A package's `__init__` in any form Python loads: source, bytecode, an extension module.
    let package = std::fs::read_dir(path).is_ok_and(|entries| {
        entries
            .flatten()
            .any(|e| e.file_name().to_string_lossy().starts_with("__init__."))
    });
    module || package
}

/// Whether the work tree uses pre-commit, whose hook (once `pre-commit install` runs, outside
/// ai) starts Python in it: protected from the start, before the hook exists.
pub(super) fn uses_pre_commit(work_tree: &Path) -> bool {
    work_tree.join(".pre-commit-config.yaml").is_file()
        || work_tree.join(".pre-commit-config.yml").is_file()
}

/// The files a value's command line names by a path (`tools/x.sh --flag`, `!./x.sh`, `python3
/// scripts/x.py`, `sh -c 'node ./x.js'`, `"$(git rev-parse --show-toplevel)/x.sh"`): run by the
/// shell in the work tree, so a relative one is a project file.
pub(super) fn program_paths(value: &str) -> Vec<String> {
    const SCRIPTS: &[&str] = &[
        ".py", ".sh", ".bash", ".js", ".mjs", ".cjs", ".ts", ".rb", ".pl",
    ];
    value
        .replace("$(git rev-parse --show-toplevel)/", "")
        .replace("`git rev-parse --show-toplevel`/", "")
        .split(|c: char| c.is_whitespace() || matches!(c, '"' | '\'' | ';' | '&' | '|' | '(' | ')'))
        .map(|word| word.trim_start_matches('!'))
        .map(|word| word.split_once('=').map_or(word, |(_, v)| v))
        // A path, or a script named alone (`python3 nbstrip.py` runs the work tree's file).
        .filter(|word| word.contains('/') || SCRIPTS.iter().any(|e| word.ends_with(e)))
        .filter(|word| !word.starts_with('-') && !word.contains('$'))
        .map(str::to_string)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn modules_run_by_hooks_and_filters_are_read_off_their_text() {
        let pre_commit = "INSTALL_PYTHON=/v/bin/python3\nexec \"$INSTALL_PYTHON\" -mpre_commit hook-impl --config=.pre-commit-config.yaml";
        assert_eq!(run_modules(pre_commit), ["pre_commit"]);
        assert_eq!(
            run_modules("\"/usr/bin/python3\" -m nbstripout"),
            ["nbstripout"]
        );
        assert_eq!(run_modules("python -m black.main --check"), ["black"]);
        assert!(run_modules("git lfs filter-process").is_empty());
        assert!(run_modules("grep -m1 x").is_empty());
        assert!(run_modules("git read-tree -u -m HEAD").is_empty());
    }
}
