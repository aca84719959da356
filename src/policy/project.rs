//! Programs named by a path, and shell scripts: being inside the project is not a pass. A path to
//! an interpreter or loader (`.venv/bin/python3`) is judged as that program; a build output
//! (`target/debug/NAME`, `build/...`) runs; a script is judged by what it holds (a shell script's
//! lines like a command line's, a `#!` script as its interpreter running it); anything else asks.
//! A package manager found by path (`.venv/bin/pip`) is judged as itself, like an interpreter.
//! A file the line itself writes is never read as what will run.

use std::path::{Path, PathBuf};

use super::Finding;
use super::classify::{Context, Judge, ask};
use super::danger::basename;
use super::judged::Judged;
use super::kind::runs_code;
use super::shell::Word;

/// How much of a script is read to judge it; a longer one asks.
const MAX_SCRIPT: u64 = 64 * 1024;

/// What a file named as a program holds.
enum Content {
    /// Shell lines (a `#!/bin/sh` script, or text with no `#!`, which bash runs as one).
    Shell(String),
    /// A script for another interpreter (`#!/usr/bin/env python3`), with the `#!` line's words.
    Interpreted(Vec<String>),
    /// A binary, or nothing readable.
    Opaque(String),
}

impl Judge<'_> {
    /// `./x`, `.venv/bin/python3 ...`: true when judged here, false when the program is to be
    /// judged as itself (an interpreter or loader found by path).
    pub(super) fn path_program(
        &mut self,
        name: &Word,
        args: &[Word],
        context: Context,
        findings: &mut Vec<Finding>,
    ) -> bool {
        let base = basename(&name.text);
        if (runs_code(base) || package_manager(base)) && !name.dynamic {
            return false;
        }
        self.project_file(name, findings);
        self.secrets_in(args, true, findings);
        if findings.iter().any(|f| f.verdict > super::Verdict::Allow) {
            return true;
        }
        let Some(path) = self.single_path(name) else {
            findings.push(ask(format!(
                "runs `{}`, a path computed at run time",
                name.text
            )));
            return true;
        };
        if self.build_output(&path) {
            return true;
        }
        if let Some(why) = self.written_here(&path) {
            findings.push(ask(why).narrowed(super::Approver::Person));
            return true;
        }
        match content(&path) {
            Content::Shell(text) => self.script_lines(&text, context),
            Content::Interpreted(interpreter) => {
                let words: Vec<Word> = (interpreter.into_iter().map(Word::literal))
                    .chain(std::iter::once(name.clone()))
                    .chain(args.iter().cloned())
                    .collect();
                self.nested(&words, &[], context, 0, findings);
            }
            Content::Opaque(why) => findings.push(ask(format!(
                "runs {}, {why} and not a build output of the project",
                path.display()
            ))),
        }
        true
    }

    /// `sh x`, `source x`: a project file whose lines are judged like a command line's.
    pub(super) fn shell_script(&mut self, word: &Word, context: Context, f: &mut Vec<Finding>) {
        self.project_file(word, f);
        if f.iter().any(|f| f.verdict > super::Verdict::Allow) {
            return;
        }
        let Some(path) = self.single_path(word) else {
            f.push(ask(format!(
                "runs `{}`, a path computed at run time",
                word.text
            )));
            return;
        };
        if let Some(why) = self.written_here(&path) {
            f.push(ask(why).narrowed(super::Approver::Person));
            return;
        }
        match content(&path) {
            Content::Shell(text) => self.script_lines(&text, context),
            Content::Interpreted(_) | Content::Opaque(_) => f.push(ask(format!(
                "runs {} as a shell script, which it is not",
                path.display()
            ))),
        }
    }

    /// `python -m unittest NAME`: NAME's first part must be a package or module of the project
    /// where it runs; anything else importable (`antigravity`, `webbrowser`) runs its own code.
    pub(super) fn project_module(&mut self, name: &Word, findings: &mut Vec<Finding>) {
        let first = name.text.split('.').next().unwrap_or("");
        let cwd = self.place.cwd.clone();
        let candidates = [cwd.join(first), cwd.join(format!("{first}.py"))];
        let found = !name.dynamic
            && !first.is_empty()
            && candidates.iter().any(|path| {
                let real = std::fs::canonicalize(path).ok();
                real.is_some_and(|r| self.project.is_some_and(|p| r.starts_with(p)))
            });
        if !found {
            findings.push(ask(format!(
                "imports `{}`, which is not a module of the project",
                name.text
            )));
        }
    }

    /// A script's lines judged like a command line's; what they set or where they `cd` stays
    /// in the script.
    fn script_lines(&mut self, text: &str, context: Context) {
        let place = self.place.clone();
        self.line(text, context.depth + 1);
        self.place = place;
    }

    fn single_path(&self, word: &Word) -> Option<PathBuf> {
        let mut paths = self.place.paths(word)?;
        (paths.len() == 1).then(|| paths.remove(0))
    }

    /// `target/debug/NAME`, `target/release/NAME`, `target/TRIPLE/release/NAME`, `build/...`.
    fn build_output(&self, path: &Path) -> bool {
        let Some(project) = self.project else {
            return false;
        };
        let real = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
        let Ok(inside) = real.strip_prefix(project) else {
            return false;
        };
        let parts: Vec<String> = inside
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect();
        let profile = |p: &str| matches!(p, "debug" | "release");
        match parts.iter().map(String::as_str).collect::<Vec<_>>()[..] {
            ["build", _, ..] => true,
            ["target", p, _] => profile(p),
            // `target/TRIPLE/release/NAME` and `target/release/examples/NAME`.
            ["target", a, b, _] => profile(a) || profile(b),
            _ => false,
        }
    }

    /// A file this line writes is not judged by what it holds before the line runs.
    pub(super) fn written_here(&self, path: &Path) -> Option<String> {
        let real = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
        self.written
            .iter()
            .any(|w| *w == real || w == path)
            .then(|| {
                format!(
                    "runs {}, which this command line writes first",
                    path.display()
                )
            })
    }

    /// Why the command may run what the line itself writes, if it may: a build, a test runner
    /// or Python started after the line writes a file they pick up by themselves (`>
    /// GNUmakefile; make`, a `.pyc` before `python3 -m json.tool`). What runs is then not what
    /// ai read (classifier round 17).
    pub(super) fn picks_up_written(&self, base: &str, judged: &Judged) -> Option<String> {
        let python = base.starts_with("python") || base.starts_with("pypy");
        if !(judged.project_code || python) {
            return None;
        }
        let file = self.written.iter().find(|w| {
            super::kind::picked_up(w) && self.project.is_some_and(|p| w.starts_with(p))
        })?;
        Some(format!(
            "`{base}` may run {}, which this command line writes",
            file.display()
        ))
    }

    /// A build description in `dir` that is a link to a file outside the project (a cloned
    /// `Makefile -> /tmp/x`): the build would run what lies there.
    pub(super) fn build_file_elsewhere(&self, dir: &Path) -> Option<PathBuf> {
        const BUILD_FILES: &[&str] = &[
            "Makefile",
            "makefile",
            "GNUmakefile",
            "package.json",
            "Cargo.toml",
            "build.rs",
            "conftest.py",
            "setup.py",
            "pyproject.toml",
            "tox.ini",
            "noxfile.py",
            "go.mod",
            "justfile",
            "CMakeLists.txt",
            "Rakefile",
            "Gemfile",
            // Configuration the build reads, and the sources it compiles (classifier round 15).
            ".cargo",
            ".cargo/config.toml",
            ".cargo/config",
            ".npmrc",
            "src",
        ];
        let project = self.project?;
        let linked = BUILD_FILES.iter().map(|name| dir.join(name)).find(|path| {
            path.symlink_metadata()
                .is_ok_and(|m| m.file_type().is_symlink())
                && !super::reach::resolved(path).starts_with(project)
        });
        linked.or_else(|| foreign_config_above(project))
    }

    /// Notes the files an in-place editor changes (`sed -i s/a/b/ Makefile`), which a build
    /// later on the line then runs as it now is (classifier round 17).
    pub(super) fn note_edited_in_place(&mut self, base: &str, args: &[Word]) {
        // Writers that name their output by an option or operand (`sort -o GNUmakefile`,
        // `dd of=x`, `uniq - x`, `sponge x`): what they write is written by the line too
        // (classifier round 20).
        let outputs: Vec<Word> = match base {
            "sort" | "shuf" | "iconv" => super::args::option_values(args, &["-o", "--output"]),
            "git" => super::args::option_values(args, &["--output"]),
            "dd" => (args.iter())
                .filter_map(|a| a.text.strip_prefix("of="))
                .map(Word::literal)
                .collect(),
            "uniq" => super::args::operands(args)
                .nth(1)
                .cloned()
                .into_iter()
                .collect(),
            "sponge" | "install" => super::args::operands(args)
                .last()
                .cloned()
                .into_iter()
                .collect(),
            _ => Vec::new(),
        };
        for word in &outputs {
            self.note_written(word);
        }
        let in_place = |a: &Word| {
            a.text.starts_with("-i") || a.text.starts_with("--in-place") || a.text == "-pi"
        };
        if !matches!(base, "sed" | "gsed" | "perl" | "ruby") || !args.iter().any(in_place) {
            return;
        }
        let scripted = args
            .iter()
            .any(|a| matches!(a.text.as_str(), "-e" | "-f" | "--expression"));
        let operands: Vec<Word> = args
            .iter()
            .filter(|a| !a.text.starts_with('-'))
            .cloned()
            .collect();
        let skip = usize::from(!scripted && base != "perl" && base != "ruby");
        for word in operands.iter().skip(skip) {
            self.note_written(word);
        }
    }

    /// Notes a file the line writes (a redirection, `-o FILE`).
    pub(super) fn note_written(&mut self, word: &Word) {
        for path in self.place.paths(word).unwrap_or_default() {
            let real = std::fs::canonicalize(&path).unwrap_or_else(|_| path.clone());
            self.written.push(real);
            self.written.push(path);
        }
    }
}

/// Configuration of another user in a directory above the project that builds read as their
/// own: cargo merges every `.cargo/config.toml` up to `/`, npm puts every `node_modules/.bin`
/// above on PATH. In a shared directory (`/tmp`, a shared workspace) anyone may plant one
/// (classifier round 14: a rustc-wrapper in `/tmp/.cargo/config.toml` ran on `cargo build`).
fn foreign_config_above(project: &Path) -> Option<PathBuf> {
    use std::os::unix::fs::MetadataExt;
    let me = rustix::process::getuid().as_raw();
    let foreign = |path: &Path| {
        path.symlink_metadata()
            .is_ok_and(|m| m.uid() != me && m.uid() != 0)
    };
    project.ancestors().skip(1).find_map(|dir| {
        [
            ".cargo",
            ".cargo/config.toml",
            ".cargo/config",
            "node_modules",
        ]
        .iter()
        .map(|name| dir.join(name))
        .find(|path| path.exists() && (foreign(path) || foreign(dir)))
    })
}

/// A package manager found by path (`.venv/bin/pip`, `node_modules/.bin/npm`): judged as
/// itself, since it installs and runs code from anywhere, not only the project's.
fn package_manager(base: &str) -> bool {
    const EXACT: &[&str] = &[
        "pip",
        "pipx",
        "uv",
        "uvx",
        "poetry",
        "pipenv",
        "pdm",
        "hatch",
        "conda",
        "mamba",
        "micromamba",
        "easy_install",
        "npm",
        "npx",
        "yarn",
        "pnpm",
        "pnpx",
        "bun",
        "bunx",
        "cargo",
        "rustup",
        "go",
        "gem",
        "bundle",
        "bundler",
        "composer",
        "deno",
    ];
    let version = |rest: &str| rest.chars().all(|c| c.is_ascii_digit() || c == '.');
    EXACT.contains(&base)
        || ["pip", "easy_install-"]
            .iter()
            .any(|family| base.strip_prefix(family).is_some_and(version))
}

fn content(path: &Path) -> Content {
    use std::io::Read;
    // Never a FIFO or a device, which would hold up the judge (`mkfifo x.sh; sh x.sh`).
    let Ok(file) = crate::config::read_regular(path) else {
        return Content::Opaque("which is not there to read as a file".into());
    };
    let mut bytes = Vec::new();
    if file.take(MAX_SCRIPT + 1).read_to_end(&mut bytes).is_err() {
        return Content::Opaque("which cannot be read".into());
    }
    if bytes.len() as u64 > MAX_SCRIPT {
        return Content::Opaque("a script longer than ai reads".into());
    }
    let Ok(text) = String::from_utf8(bytes) else {
        return Content::Opaque("a binary".into());
    };
    let Some(shebang) = text.strip_prefix("#!") else {
        return Content::Shell(text);
    };
    let first = shebang.lines().next().unwrap_or("");
    let mut words = first.split_whitespace();
    let mut program = words.next().map(basename).unwrap_or("");
    if program == "env" {
        program = words.find(|w| !w.starts_with('-')).unwrap_or("");
    }
    let line: Vec<String> = std::iter::once(program)
        .chain(words)
        .map(String::from)
        .collect();
    match program {
        "sh" | "bash" | "dash" => Content::Shell(text),
        "" => Content::Opaque("a script with no interpreter".into()),
        other if runs_code(other) => Content::Interpreted(line),
        other => Content::Opaque(format!("a script for `{other}`")),
    }
}

#[cfg(test)]
mod foreign_tests {
    use super::*;

    #[test]
    fn another_users_build_configuration_above_the_project_is_found() {
        let dir = tempfile::tempdir().unwrap();
        let shared = dir.path().canonicalize().unwrap().join("shared");
        let project = shared.join("proj");
        std::fs::create_dir_all(project.join(".cargo")).unwrap();
        std::fs::create_dir_all(shared.join(".cargo")).unwrap();
        std::fs::write(shared.join(".cargo/config.toml"), "[build]\n").unwrap();
        // The user's own configuration above is theirs.
        assert_eq!(foreign_config_above(&project), None);
        // Another user's: only root can make one here (CI and this machine run as root).
        if rustix::process::getuid().is_root() {
            std::os::unix::fs::chown(shared.join(".cargo/config.toml"), Some(65534), None).unwrap();
            assert_eq!(
                foreign_config_above(&project),
                Some(shared.join(".cargo/config.toml"))
            );
        }
    }
}
