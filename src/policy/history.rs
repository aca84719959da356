//! git commands that print file contents out of the repository's history (`log -p`, `show`,
//! `diff` between commits, `grep` in a tree, `cat-file --batch`): a secret once committed (a
//! `.env`) is printed by any of them, whatever path they name, so they run unasked only when
//! the history holds no secret-named file. The history is listed once per line and repository.

use std::path::Path;

use super::classify::{Judge, ask};
use super::git_query::ask_git;
use super::path::sensitive;
use super::shell::Word;
use super::{Approver, Finding};

/// How many commits are listed; a longer history is not known to be clean.
const MAX_COMMITS: usize = 5000;

impl Judge<'_> {
    /// Asks (a person only) when the repository at the working directory has committed a
    /// secret-named file, or its history is too long to tell.
    pub(super) fn history_secrets(&mut self, dirs: &[Word], findings: &mut Vec<Finding>) {
        let cwd = self.place.cwd.clone();
        let home = self.place.home;
        // Where git starts: the working directory, or the one `-C` names from there.
        let starts: Option<Vec<_>> = std::iter::once(Some(vec![cwd.clone()]))
            .chain(dirs.iter().map(|dir| self.place.paths(dir)))
            .collect();
        let own = starts
            .map(|starts| starts.concat())
            .is_some_and(|all| all.iter().all(|start| self.in_own_repository(start)));
        // Only the project's own history is looked into: querying another repository would
        // run git on configuration the line (or an earlier call) may have planted.
        let Some(project) = self.project.filter(|_| own) else {
            findings.push(Finding::person(
                "it prints files from the history of a repository that is not the project's \
                 own, which ai does not look into (only a person can approve it)",
            ));
            return;
        };
        let why = self
            .histories
            .entry(cwd.clone())
            .or_insert_with(|| secret_in_history(project, home))
            .clone();
        if let Some(why) = why {
            findings.push(Finding::person(format!(
                "it prints files from the git history, which {why} (only a person can approve it)"
            )));
        }
    }
}

impl Judge<'_> {
    /// Asks when git would run in a repository that is not the project's own (`cd sub && git
    /// status`, `git -C sub log`, where `sub` holds a `.git` or is a bare repository; `cd
    /// /tmp/r && git log`): that repository's configuration (`core.fsmonitor`, hooks) runs.
    pub(super) fn own_repository(&mut self, dirs: &[Word], findings: &mut Vec<Finding>) {
        let Some(project) = self.project else {
            return;
        };
        let mut starts = vec![self.place.cwd.clone()];
        for dir in dirs {
            starts.extend(self.place.paths(dir).unwrap_or_default());
        }
        for start in starts {
            let real = std::fs::canonicalize(&start).unwrap_or_else(|_| start.clone());
            // A directory the line wrote into may be a repository by the time git runs there
            // (`cp -r bare copy; cd copy; git status`): git takes it for one, config and all.
            let made = [&start, &real].into_iter().find_map(|s| {
                s.ancestors()
                    .take_while(|d| *d != project && d.starts_with(project))
                    .find(|d| self.written.iter().any(|w| w.starts_with(d)))
            });
            if let Some(dir) = made {
                findings.push(
                    ask(format!(
                        "git would start in {}, which this command line writes into first: it \
                         may have become a repository whose configuration runs",
                        dir.display()
                    ))
                    .narrowed(Approver::YesOrPerson),
                );
                return;
            }
            // The first repository up from where git starts is the one it uses.
            let own_git = project.join(".git");
            let foreign = real
                .ancestors()
                .take_while(|d| *d != project && !d.starts_with(&own_git))
                .find(|d| is_repository(d));
            if let Some(repo) = foreign {
                findings.push(
                    ask(format!(
                        "git would use the repository at {}, which is not the project's own: its \
                     configuration (fsmonitor, hooks, pagers) runs",
                        repo.display()
                    ))
                    .narrowed(Approver::YesOrPerson),
                );
                return;
            }
        }
    }
}

impl Judge<'_> {
    /// Whether git started in `dir` uses the project's own repository: `dir` is inside the
    /// project (resolved), no other repository lies between, and the line wrote nothing there.
    fn in_own_repository(&self, dir: &Path) -> bool {
        let Some(project) = self.project else {
            return false;
        };
        let Ok(real) = std::fs::canonicalize(dir) else {
            return false;
        };
        let project = std::fs::canonicalize(project).unwrap_or_else(|_| project.to_path_buf());
        let own_git = project.join(".git");
        real.starts_with(&project)
            && !real.starts_with(&own_git)
            && real
                .ancestors()
                .take_while(|d| *d != project)
                .all(|d| !is_repository(d) && !self.written.iter().any(|w| w.starts_with(d)))
    }
}

/// A directory git takes for a repository: it holds `.git`, or it is a bare one.
fn is_repository(dir: &Path) -> bool {
    dir.join(".git").exists()
        || (dir.join("HEAD").is_file() && dir.join("objects").is_dir() && dir.join("refs").is_dir())
}

/// Why the project's history may hold a secret: a secret-named path ever committed, a history
/// too long to list, or no repository of its own to look into. `None` when it holds none.
fn secret_in_history(project: &Path, home: Option<&Path>) -> Option<String> {
    let git = |args: &[&str]| ask_git(project, args, &[]).filter(|out| out.status.success());
    // No repository of the project's own: git finds one above it, or fails.
    if git(&["rev-parse", "--git-dir"]).is_none() {
        let above = project.ancestors().skip(1).any(is_repository);
        // A `.git` file or link that is not the project's own names a repository elsewhere.
        let elsewhere = (project.join(".git").symlink_metadata()).is_ok_and(|m| !m.is_dir());
        return (above || elsewhere).then(|| {
            "is not the project's own repository, which ai does not look into".to_string()
        });
    }
    let root = project.to_string_lossy();
    let max = format!("--max-count={}", MAX_COMMITS + 1);
    let Some(listed) = git(&["log", "--all", "--name-only", "--format=%x01", &max]) else {
        return Some("git could not list".into());
    };
    let text = String::from_utf8_lossy(&listed.stdout);
    if text.matches('\u{1}').count() > MAX_COMMITS {
        return Some(format!(
            "has more than {MAX_COMMITS} commits to check for secrets"
        ));
    }
    text.lines()
        .map(|l| l.trim_matches('\u{1}').trim())
        .filter(|l| !l.is_empty())
        .find_map(|name| {
            sensitive(&Path::new(root.as_ref()).join(name), home)
                .map(|what| format!("holds {what}"))
        })
}
