//! Writes the sandbox contains: a command may create a file in the project (a log by `>` or
//! `tee`, a copy, an archive), overwrite one git ignores, or make a project script executable,
//! unasked. It asks when the write would lose or plant something: a file git tracks, an
//! untracked source file, a hidden or `.git` directory, a symbolic or hard link (the write lands
//! elsewhere), a file build tools or the shell pick up by themselves, or anything outside the
//! project and temp. Tracked or ignored is asked of the project's own git.

use std::path::{Path, PathBuf};

use super::Finding;
use super::classify::{Judge, ask};
use super::git_query::ask_git;
use super::judged::Judged;
use super::kind::is_source;
use super::shell::Word;

/// What the project's git says of a path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Git {
    /// It (or something below it) is in the index.
    Tracked,
    Ignored,
    /// Neither, or git cannot say (no repository).
    Untracked,
}

/// Asks git, in `project`, whether `path` is tracked or ignored. No program of the repository's
/// configuration runs for it (`core.fsmonitor` is turned off).
pub(crate) fn git_state(project: &Path, path: &Path) -> Git {
    let git = |args: &[&str]| ask_git(project, args, &[path]);
    // An error (no repository, no git) counts as tracked: nothing is known to be spare.
    match git(&["ls-files", "-z"]) {
        Some(out) if out.status.success() && out.stdout.is_empty() => {}
        _ => return Git::Tracked,
    }
    match git(&["check-ignore", "-q"]).and_then(|out| out.status.code()) {
        Some(0) => Git::Ignored,
        _ => Git::Untracked,
    }
}

impl Judge<'_> {
    /// Asks unless every path `word` names is a write the sandbox contains (`what` says which
    /// part of the command writes it: `> out.txt`, `tee`, `cp`).
    pub(super) fn write_target(&mut self, word: &Word, what: &str, findings: &mut Vec<Finding>) {
        self.note_written(word);
        self.secret(word, findings);
        self.ground()
            .onto_device(word, &format!("{what} writes onto"), findings);
        if ["/dev/tcp/", "/dev/udp/"]
            .iter()
            .any(|d| word.text.starts_with(d))
        {
            findings.push(ask(format!("{what} opens a network connection")));
            return;
        }
        let paths = self.place.paths(word).filter(|paths| !paths.is_empty());
        let Some(paths) = paths else {
            findings.push(ask(format!(
                "{what} writes `{}`, a path computed at run time",
                word.text
            )));
            return;
        };
        if let Some(why) = paths.iter().find_map(|path| self.spare(path)) {
            findings.push(ask(format!("{what} {why}")));
        }
    }

    /// Why writing over `path` is not a write the sandbox contains, if it is not.
    pub(super) fn spare(&self, path: &Path) -> Option<String> {
        let shown = path.display();
        let meta = path.symlink_metadata().ok();
        if meta.as_ref().is_some_and(|m| m.file_type().is_symlink()) {
            return Some(format!("writes through {shown}, a symbolic link"));
        }
        let real = match self.contained(path) {
            Ok(real) => real,
            Err(why) => return Some(why),
        };
        let Some(meta) = meta else {
            return is_source(&real, false).then(|| {
                format!("creates {shown}, a file build tools or the shell pick up by themselves")
            });
        };
        if std::os::unix::fs::MetadataExt::nlink(&meta) > 1 && meta.is_file() {
            return Some(format!("writes {shown}, which has other hard links"));
        }
        let Some(project) = self.project.filter(|p| real.starts_with(p)) else {
            return None; // temp
        };
        match git_state(project, &real) {
            Git::Tracked => Some(format!("overwrites {shown}, which git tracks")),
            Git::Ignored if is_source(&real, false) => Some(format!(
                "overwrites {shown}, a file build tools or the shell pick up by themselves"
            )),
            Git::Untracked if meta.is_dir() || is_source(&real, true) => Some(format!(
                "overwrites {shown}, which git neither tracks nor ignores (it would be lost)"
            )),
            _ => None,
        }
    }

    /// The real path when it lies in the project (outside any hidden directory) or in temp,
    /// else why not.
    fn contained(&self, path: &Path) -> Result<PathBuf, String> {
        let real = real_path(path).ok_or_else(|| {
            format!(
                "writes {}, in a directory that does not exist",
                path.display()
            )
        })?;
        if real.starts_with(self.temp) {
            return Ok(real);
        }
        let Some(project) = self.project.filter(|p| real.starts_with(p)) else {
            let project = self.project.map_or("there is no project here".into(), |p| {
                format!("the project is {}", p.display())
            });
            return Err(format!(
                "writes {}, outside the project ({project})",
                real.display()
            ));
        };
        let inner = real.strip_prefix(project).unwrap_or(&real);
        if let Some(hidden) = inner
            .components()
            .find(|c| c.as_os_str().to_string_lossy().starts_with('.'))
        {
            return Err(format!(
                "writes {}, in or onto {}, which git or other tools read by themselves",
                real.display(),
                hidden.as_os_str().to_string_lossy()
            ));
        }
        Ok(real)
    }
}

/// The path with its directory's symbolic links resolved (the file itself may not exist yet).
fn real_path(path: &Path) -> Option<PathBuf> {
    if let Ok(real) = std::fs::canonicalize(path) {
        return Some(real);
    }
    let parent = std::fs::canonicalize(path.parent()?).ok()?;
    Some(parent.join(path.file_name()?))
}

impl Judge<'_> {
    /// The files a command writes, copies, moves or makes executable, judged as writes.
    pub(super) fn writes(&mut self, base: &str, judged: &Judged, findings: &mut Vec<Finding>) {
        let what = format!("`{base}`");
        for word in &judged.writes {
            self.write_target(word, &what, findings);
        }
        if let Some((sources, dest)) = &judged.copy {
            self.copy(&what, sources, dest, judged.moves, findings);
        }
        for word in &judged.modes {
            self.secret(word, findings);
            let paths = self.place.paths(word).filter(|p| !p.is_empty());
            let why = match paths {
                None => Some(format!(
                    "changes `{}`, a path computed at run time",
                    word.text
                )),
                Some(paths) => paths.iter().find_map(|p| self.contained(p).err()),
            };
            findings.extend(why.map(|why| ask(format!("{what} {why}"))));
        }
    }

    /// `cp`/`mv` SOURCES DEST: into DEST when it is a directory, else onto it.
    fn copy(
        &mut self,
        what: &str,
        sources: &[Word],
        dest: &Word,
        moves: bool,
        findings: &mut Vec<Finding>,
    ) {
        let dir = (self.place.paths(dest))
            .filter(|p| p.len() == 1)
            .and_then(|p| p.into_iter().next())
            .filter(|p| p.is_dir());
        let Some(dir) = dir else {
            self.write_target(dest, what, findings);
            return self.sources(what, sources, moves, findings);
        };
        for source in sources {
            let Some(paths) = self.place.paths(source) else {
                findings.push(ask(format!(
                    "{what} copies `{}`, a path computed at run time",
                    source.text
                )));
                continue;
            };
            for path in paths {
                let Some(name) = path.file_name() else {
                    continue;
                };
                let target = dir.join(name);
                self.written.push(target.clone());
                let why = if target.is_dir() {
                    Some(format!(
                        "merges into {}, an existing directory",
                        target.display()
                    ))
                } else {
                    self.spare(&target)
                };
                findings.extend(why.map(|why| ask(format!("{what} {why}"))));
            }
        }
        self.sources(what, sources, moves, findings);
    }

    /// What is copied must be a file, or a directory of the project (a tree from elsewhere
    /// could bring in code); what is moved goes away, so it is judged as a write.
    fn sources(&mut self, what: &str, sources: &[Word], moves: bool, findings: &mut Vec<Finding>) {
        for source in sources {
            for path in self.place.paths(source).unwrap_or_default() {
                let why = if moves {
                    self.spare(&path)
                } else {
                    let real = std::fs::canonicalize(&path).unwrap_or(path.clone());
                    (real.is_dir() && !self.project.is_some_and(|p| real.starts_with(p))).then(
                        || format!("copies {}, a directory outside the project", real.display()),
                    )
                };
                findings.extend(why.map(|why| ask(format!("{what} {why}"))));
            }
        }
    }
}

impl Judge<'_> {
    /// A line that changes directory writes its redirections from a directory ai cannot place
    /// (they are judged from where it starts): those ask.
    pub(super) fn moved_writes(&mut self, script: &super::shell::Script) {
        if !self.out.fetch.moves {
            return;
        }
        for redirect in &script.redirects {
            let path = redirect.target.text.as_str();
            if redirect.kind == super::shell::RedirectKind::Output
                && !matches!(
                    path,
                    "/dev/null" | "/dev/stdout" | "/dev/stderr" | "/dev/tty"
                )
                && !super::kind::is_descriptor(path, redirect.target.dynamic)
            {
                let why = format!(
                    "`{}` writes to a file after the line changes directory",
                    redirect.text
                );
                self.unit(&redirect.text, vec![ask(why)]);
            }
        }
    }
}
