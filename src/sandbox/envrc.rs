//! A reading of the project's `.envrc` for what it makes the user's shell load from the project
//! when direnv runs it: files it sources, directories it puts on PATH, virtualenvs it
//! activates, and project paths it exports in other variables (`GIT_CONFIG_GLOBAL`,
//! `PYTHONPATH`). Variables it sets are followed (`dir=bin; PATH_add "$dir"`), and the
//! substitutions direnv users write for the project's directory (`$PWD`, `$(pwd)`,
//! `$(expand_path x)`, `$(git rev-parse --show-toplevel)`). A PATH entry it cannot work out is
//! reported: the project is then not writable to calls run without asking (sandbox round 25).

use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// What the `.envrc` of a project loads.
#[derive(Debug, Default, PartialEq, Eq)]
pub(super) struct Envrc {
    /// Files it sources (relative to the project, as written).
    pub(super) sourced: Vec<String>,
    /// Project paths it names in variables other than PATH: read-only.
    pub(super) named: Vec<PathBuf>,
    /// Directories it puts on PATH.
    pub(super) path_dirs: Vec<PathBuf>,
    /// Virtualenvs it activates.
    pub(super) venvs: Vec<PathBuf>,
    /// A PATH entry it could not work out.
    pub(super) unknown: Option<String>,
    /// It uses a layout or `use` (direnv then keeps state in `.direnv`).
    pub(super) layout: bool,
}

/// Reads `work_tree`'s `.envrc` (empty when there is none).
pub(super) fn read(work_tree: &Path) -> Envrc {
    let mut envrc = Envrc::default();
    let Some(text) = crate::config::read_small(&work_tree.join(".envrc"), 64 * 1024) else {
        return envrc;
    };
    let mut vars: HashMap<String, String> = HashMap::new();
    vars.insert("PWD".into(), work_tree.display().to_string());
    if let Some(home) = std::env::var_os("HOME") {
        vars.insert("HOME".into(), home.to_string_lossy().into_owned());
    }
    for line in text.lines() {
        let line = substituted(line.trim(), work_tree);
        for words in split(&line) {
            let Some((first, rest)) = words.split_first() else {
                continue;
            };
            let rest: Vec<String> = rest.iter().map(|w| expanded(w, &vars)).collect();
            envrc.command(first, &rest, &mut vars, work_tree);
        }
    }
    envrc.path_dirs.sort();
    envrc.path_dirs.dedup();
    envrc
}

impl Envrc {
    fn command(
        &mut self,
        first: &str,
        rest: &[String],
        vars: &mut HashMap<String, String>,
        root: &Path,
    ) {
        let arg = rest.first().map(String::as_str);
        self.layout |= matches!(first, "layout" | "use");
        match first {
            "export" | "local" | "declare" | "readonly" => {
                for word in rest {
                    self.assignment(word, first == "export", vars, root);
                }
            }
            "PATH_add" => rest.iter().for_each(|d| self.path_entry(d, root)),
            "path_add" if arg == Some("PATH") => {
                rest[1..].iter().for_each(|d| self.path_entry(d, root));
            }
            "path_add" => rest.iter().skip(1).for_each(|d| self.name(d, root)),
            "load_prefix" => {
                if let Some(prefix) = arg {
                    self.path_entry(&format!("{prefix}/bin"), root);
                    self.path_entry(&format!("{prefix}/sbin"), root);
                    self.name(&format!("{prefix}/lib"), root);
                    self.name(&format!("{prefix}/lib64"), root);
                }
            }
            "layout" => match arg {
                Some("node") => self.path_entry("node_modules/.bin", root),
                Some("go") => self.path_entry("bin", root),
                _ => {}
            },
            "source_env" | "source_env_if_exists" | "source" | "." | "watch_file" => {
                if let Some(file) = arg {
                    self.source(file, root);
                }
            }
            "dotenv" | "dotenv_if_exists" => {
                self.sourced.push(arg.unwrap_or(".env").to_string());
            }
            // `use nix`/`use flake` evaluates the project's Nix files.
            "use" => self
                .sourced
                .extend(["shell.nix", "default.nix", "flake.nix", "flake.lock"].map(String::from)),
            _ if first.contains('=') => {
                let word = expanded(first, vars);
                self.assignment(&word, false, vars, root);
            }
            _ => {}
        }
    }

    /// `NAME=VALUE`: remembered; PATH's entries and an exported variable's project paths count.
    fn assignment(
        &mut self,
        word: &str,
        exported: bool,
        vars: &mut HashMap<String, String>,
        root: &Path,
    ) {
        let Some((name, value)) = word.split_once('=') else {
            return;
        };
        match name {
            "PATH" => {
                let own = ["$PATH", "${PATH}"];
                (value.split(':'))
                    .filter(|e| !own.contains(e) && !e.is_empty())
                    .for_each(|e| self.path_entry(e, root));
            }
            "VIRTUAL_ENV" => {
                if let Some(venv) = in_project(value, root) {
                    self.venvs.push(venv);
                }
            }
            _ if exported => value.split(':').for_each(|e| self.name(e, root)),
            _ => {}
        }
        vars.insert(name.to_string(), value.to_string());
    }

    fn path_entry(&mut self, entry: &str, root: &Path) {
        if entry.contains(['$', '`']) {
            self.unknown.get_or_insert_with(|| entry.to_string());
        } else if let Some(dir) = in_project(entry, root) {
            self.path_dirs.push(dir);
        }
    }

    fn name(&mut self, entry: &str, root: &Path) {
        if let Some(path) = in_project(entry, root).filter(|_| !entry.contains(['$', '`'])) {
            self.named.push(path);
        }
    }

    /// A file it sources: `X/bin/activate` activates the virtualenv `X` too.
    fn source(&mut self, file: &str, root: &Path) {
        let file = file
            .strip_prefix(&format!("{}/", root.display()))
            .unwrap_or(file);
        self.sourced.push(file.to_string());
        if let Some(venv) = file.strip_suffix("/bin/activate") {
            self.venvs.extend(in_project(venv, root));
        }
    }
}

/// A path as written in the `.envrc`: inside the project, made absolute (none elsewhere).
fn in_project(entry: &str, root: &Path) -> Option<PathBuf> {
    if entry.is_empty() || entry.starts_with('~') || entry.contains(['$', '`']) {
        return None;
    }
    let path = crate::config::lexical(&root.join(entry));
    path.starts_with(root).then_some(path)
}

/// The line with the substitutions that name the project's directory resolved.
fn substituted(line: &str, root: &Path) -> String {
    let root = root.display().to_string();
    let mut line = line
        .replace("$(pwd)", &root)
        .replace("$(git rev-parse --show-toplevel)", &root)
        .replace("$(direnv_layout_dir)", &format!("{root}/.direnv"));
    while let Some(start) = line.find("$(expand_path ") {
        let Some(len) = line[start..].find(')') else {
            break;
        };
        let inner = line[start + "$(expand_path ".len()..start + len].trim();
        let inner = inner.trim_matches(['"', '\'']);
        let path = format!("{root}/{inner}");
        line.replace_range(start..=start + len, &path);
    }
    line
}

/// `$NAME` and `${NAME}` replaced by what the `.envrc` set before (others stay as written).
fn expanded(word: &str, vars: &HashMap<String, String>) -> String {
    let mut out = word.to_string();
    for (name, value) in vars {
        out = out
            .replace(&format!("${{{name}}}"), value)
            .replace(&format!("${name}/"), &format!("{value}/"))
            .replace(&format!("${name}:"), &format!("{value}:"));
        if out == format!("${name}") || out.ends_with(&format!("${name}")) {
            let cut = out.len() - name.len() - 1;
            out.replace_range(cut.., value);
        }
    }
    out
}

/// The line's commands (`;` and `&&` end one), each as its words, quotes removed; a comment
/// ends the line.
fn split(line: &str) -> Vec<Vec<String>> {
    let mut commands = vec![Vec::new()];
    let mut word = String::new();
    let mut quote: Option<char> = None;
    let mut started = false;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        let end_of_command =
            quote.is_none() && (c == ';' || (c == '&' && chars.peek() == Some(&'&')) || c == '|');
        match (quote, c) {
            (None, '#') if !started => break,
            (None, '\'' | '"') => {
                quote = Some(c);
                started = true;
            }
            (Some(q), c) if c == q => quote = None,
            (None, ' ' | '\t' | ';' | '&' | '|') => {
                if started {
                    if let Some(last) = commands.last_mut() {
                        last.push(std::mem::take(&mut word));
                    }
                    started = false;
                }
                if end_of_command {
                    commands.push(Vec::new());
                }
            }
            (_, c) => {
                word.push(c);
                started = true;
            }
        }
    }
    if started && let Some(last) = commands.last_mut() {
        last.push(word);
    }
    commands
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_an_envrc_loads_from_the_project_is_read_in_every_spelling() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::fs::write(
            root.join(".envrc"),
            "PATH_add bin \"tools\"\npath_add PATH scripts/dev\nlayout node\nload_prefix ./local\n\
             export PATH=\"$PWD/sbin:${PWD}/x/bin:$(pwd)/y:$HOME/bin:/usr/bin:$PATH\"\n\
             PATH=\"$(expand_path d2):$PATH\"\ndir=d10; PATH_add \"$dir\"\n\
             export PATH=\"$(git rev-parse --show-toplevel)/d9:$PATH\"\n\
             PATH_add ../../outside\nsource .venv/bin/activate\n\
             export GIT_CONFIG_GLOBAL=$PWD/.gitconfig.local\nexport PYTHONPATH=$PWD/src\n\
             source_env_if_exists .envrc.local # comment\n",
        )
        .unwrap();
        let envrc = read(&root);
        for dir in [
            "bin",
            "tools",
            "scripts/dev",
            "node_modules/.bin",
            "local/bin",
            "local/sbin",
            "sbin",
            "x/bin",
            "y",
            "d2",
            "d10",
            "d9",
        ] {
            assert!(
                envrc.path_dirs.contains(&root.join(dir)),
                "{dir}: {envrc:?}"
            );
        }
        assert!(
            envrc.path_dirs.iter().all(|d| d.starts_with(&root)),
            "{envrc:?}"
        );
        assert_eq!(envrc.venvs, [root.join(".venv")]);
        for named in [".gitconfig.local", "src", "local/lib"] {
            assert!(
                envrc.named.contains(&root.join(named)),
                "{named}: {envrc:?}"
            );
        }
        assert!(
            envrc.sourced.contains(&".envrc.local".to_string()),
            "{envrc:?}"
        );
        assert_eq!(envrc.unknown, None);
    }

    #[test]
    fn a_path_entry_it_cannot_work_out_is_reported() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::fs::write(root.join(".envrc"), "PATH_add \"$(find . -name bin)\"\n").unwrap();
        assert!(read(&root).unknown.is_some());
    }
}
