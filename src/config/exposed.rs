//! Projects that count whole as secret because a sandboxed command could read a secret after
//! all.
//!
//! The sandbox masks a project's secret files (and covers git's config with a scrubbed copy) by
//! bind mounts. A file saved *over* one while a call runs (an editor's save, git rewriting its
//! config: a new file renamed into place) detaches the mount for that call, and nothing inside
//! the sandbox can prevent it. The sandbox sees it after the call and withholds the call's
//! output; but the call may have left the secret anywhere it could write, in a file's content,
//! its name, a link, a time. So from then on the whole project counts as secret: the policy
//! asks a person before anything reads it, and commands no longer run unasked. A record in ai's
//! state directory, which no sandboxed command can read or write, holds it for later runs until
//! the user, having looked, removes it (the notice names it).

use std::path::{Path, PathBuf};
use std::sync::RwLock;

/// The projects of this process that count as secret, with where each is recorded.
static EXPOSED: RwLock<Vec<(PathBuf, Option<PathBuf>)>> = RwLock::new(Vec::new());

/// Why `path` may hold a secret a sandboxed command could read, if it may.
pub(crate) fn holds(path: &Path) -> Option<String> {
    let why = |record: Option<&PathBuf>| {
        let remove = record.map_or_else(String::new, |file| {
            format!("; remove {} once you have checked it", file.display())
        });
        format!(
            "a file of a project where a sandboxed command could read a secret saved while it \
             ran{remove}"
        )
    };
    // A lock poisoned by a panic elsewhere says nothing reliable: everything counts.
    let Ok(exposed) = EXPOSED.read() else {
        return Some(why(None));
    };
    (exposed.iter())
        .find(|(project, _)| path.starts_with(project))
        .map(|(_, record)| why(record.as_ref()))
}

/// Whether `project` counts as secret.
pub(crate) fn exposed(project: &Path) -> bool {
    EXPOSED
        .read()
        .map_or(true, |all| all.iter().any(|(p, _)| p == project))
}

/// Where the record of `project` is kept in ai's state directory.
pub(crate) fn record_file(state_dir: &Path, project: &Path) -> PathBuf {
    state_dir
        .join("exposed")
        .join(format!("{:016x}", fnv1a(project)))
}

/// Takes what earlier runs recorded for `project`; returns the notice to show. A record that
/// exists counts whatever it holds, and one that cannot be read counts too: it fails closed.
pub(crate) fn load(state_dir: &Path, project: &Path) -> Vec<String> {
    let file = record_file(state_dir, project);
    let said = match std::fs::read(&file) {
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Vec::new(),
        Ok(bytes) => String::from_utf8_lossy(&bytes).trim().to_string(),
        Err(err) => format!("(the record cannot be read: {err})"),
    };
    mark(project, Some(&file));
    vec![format!(
        "{said}; the project counts as secret, so commands ask and reads of it need you; \
         remove {} once you have checked what the command left",
        file.display()
    )]
}

/// Counts `project` as secret in this run and, where there is a state directory, in later
/// ones; `secret` is what was saved over. Returns the notice for the user.
pub(crate) fn add(state_dir: Option<&Path>, project: &Path, secret: &Path) -> String {
    let file = state_dir.map(|dir| record_file(dir, project));
    mark(project, file.as_deref());
    let what = format!(
        "{} was saved over while a sandboxed command ran, which could then read it",
        secret.display()
    );
    let kept = file.map(|file| {
        let written = file
            .parent()
            .map_or(Ok(()), std::fs::create_dir_all)
            .and_then(|()| std::fs::write(&file, &what));
        match written {
            Ok(()) => format!("remove {} once you have checked", file.display()),
            Err(err) => format!("later runs will not know: cannot record it ({err})"),
        }
    });
    format!(
        "{what}; its output is withheld, and the project counts as secret (commands ask, reads \
         of it need you): anything the command wrote may hold the secret; {}",
        kept.unwrap_or_else(|| "later runs will not know".into())
    )
}

fn mark(project: &Path, record: Option<&Path>) {
    if let Ok(mut all) = EXPOSED.write()
        && !all.iter().any(|(p, _)| p == project)
    {
        all.push((project.to_path_buf(), record.map(Path::to_path_buf)));
    }
}

/// A stable name for a project's record (FNV-1a of its path's bytes).
fn fnv1a(path: &Path) -> u64 {
    use std::os::unix::ffi::OsStrExt;
    path.as_os_str()
        .as_bytes()
        .iter()
        .fold(0xcbf2_9ce4_8422_2325, |hash, byte| {
            (hash ^ u64::from(*byte)).wrapping_mul(0x0100_0000_01b3)
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_exposed_project_counts_whole_as_secret_here_and_in_later_runs_until_removed() {
        let dir = tempfile::tempdir().unwrap();
        let state = tempfile::tempdir().unwrap();
        let project = dir.path().join("p");
        let notice = add(Some(state.path()), &project, &project.join(".env"));
        assert!(notice.contains("remove"), "{notice}");
        assert!(holds(&project.join("src/main.rs")).is_some());
        assert!(holds(&dir.path().join("elsewhere")).is_none());
        assert!(exposed(&project));
        let notices = load(state.path(), &project);
        assert!(notices[0].contains(".env was saved over"), "{notices:?}");
        std::fs::remove_file(record_file(state.path(), &project)).unwrap();
        let other = dir.path().join("q");
        assert!(load(state.path(), &other).is_empty());
        assert!(!exposed(&other));
    }

    #[test]
    fn a_record_that_cannot_be_read_counts_all_the_same() {
        let dir = tempfile::tempdir().unwrap();
        let state = tempfile::tempdir().unwrap();
        let project = dir.path().join("p");
        let file = record_file(state.path(), &project);
        std::fs::create_dir_all(&file).unwrap(); // a directory: reading it fails
        assert_eq!(load(state.path(), &project).len(), 1);
        assert!(holds(&project.join("README.md")).is_some());
    }
}
