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
    pub(super) fn history_secrets(&mut self, findings: &mut Vec<Finding>) {
        let cwd = self.place.cwd.clone();
        let home = self.place.home;
        let why = self
            .histories
            .entry(cwd.clone())
            .or_insert_with(|| secret_in_history(&cwd, home))
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
            let real = std::fs::canonicalize(&start).unwrap_or(start);
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

/// A directory git takes for a repository: it holds `.git`, or it is a bare one.
fn is_repository(dir: &Path) -> bool {
    dir.join(".git").exists()
        || (dir.join("HEAD").is_file() && dir.join("objects").is_dir() && dir.join("refs").is_dir())
}

/// Why the history at `dir` may hold a secret: a secret-named path ever committed, or a
/// history too long to list. `None` when it holds none, or there is no repository.
fn secret_in_history(dir: &Path, home: Option<&Path>) -> Option<String> {
    let git = |args: &[&str]| ask_git(dir, args, &[]).filter(|out| out.status.success());
    let root = git(&["rev-parse", "--show-toplevel"])?;
    let root = String::from_utf8_lossy(&root.stdout).trim().to_string();
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
            sensitive(&Path::new(&root).join(name), home).map(|what| format!("holds {what}"))
        })
}
