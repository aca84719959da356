//! Seeing, after a call, that a masked secret was saved over while it ran.
//!
//! A mask is a bind mount of an empty file over the secret's path. A rename onto that path from
//! outside the call's mount namespace (an editor saving `.env`) detaches the mount, so the call
//! could read the new file; no mount inside can stop it, and the call itself cannot do it (a
//! rename onto a mount point in its own namespace fails). So each call notes which file each
//! mask covered, and afterwards a different file at a masked path means the call may have read
//! it: its output is withheld and what it changed is listed as possibly holding the secret
//! (`config::exposed`).

use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use crate::config::exposed::{Listed, MOST_FILES, Record};

use super::walk;

/// The masked files of one call, as they were when it began.
#[derive(Debug, Clone)]
pub(crate) struct Watch {
    /// When the call was prepared (seconds, nanoseconds since the epoch).
    start: (i64, i64),
    masked: Vec<(PathBuf, u64, u64)>,
}

impl Watch {
    /// Notes the file each of `masked` is now (device and inode).
    pub(crate) fn of(masked: &[PathBuf]) -> Watch {
        let masked = masked
            .iter()
            .filter_map(|path| {
                let meta = std::fs::metadata(path).ok().filter(|m| m.is_file())?;
                Some((path.clone(), meta.dev(), meta.ino()))
            })
            .collect();
        Watch {
            start: now(),
            masked,
        }
    }

    /// The masked paths that hold another file now: saved over during the call.
    pub(crate) fn replaced(&self) -> Vec<PathBuf> {
        self.masked
            .iter()
            .filter(|(path, dev, ino)| {
                std::fs::metadata(path).is_ok_and(|m| (m.dev(), m.ino()) != (*dev, *ino))
            })
            .map(|(path, _, _)| path.clone())
            .collect()
    }

    /// What the exposure of `secret` leaves: every file under `project` changed since the call
    /// began (the secret itself aside, which is the user's), or the project whole when there
    /// are too many to list or the walk could not see them all.
    pub(crate) fn record(&self, project: &Path, secret: &Path) -> Record {
        // File times come from a coarse clock, a tick behind: the slack errs towards listing.
        let since = minus_millis(self.start, 50);
        let mut files = Vec::new();
        let complete = walk::walk_all(project, &mut |path, name, kind| {
            if files.len() <= MOST_FILES
                && path != secret
                && let Some(listed) = Listed::of(path)
                && (listed.ctime, listed.ctime_nsec) >= since
                && !kind.is_dir()
            {
                files.push(listed);
            }
            name != ".git"
        });
        let whole = !complete || files.len() > MOST_FILES;
        Record {
            project: project.to_path_buf(),
            secret: secret.to_path_buf(),
            at: u64::try_from(self.start.0).unwrap_or(0),
            files: if whole { Vec::new() } else { files },
            whole,
        }
    }
}

fn now() -> (i64, i64) {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or((0, 0), |d| {
            (
                i64::try_from(d.as_secs()).unwrap_or(i64::MAX),
                i64::from(d.subsec_nanos()),
            )
        })
}

fn minus_millis((secs, nanos): (i64, i64), millis: i64) -> (i64, i64) {
    let total = nanos - millis * 1_000_000;
    (
        secs + total.div_euclid(1_000_000_000),
        total.rem_euclid(1_000_000_000),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_saved_over_a_masked_one_is_seen_and_what_changed_is_listed() {
        let dir = tempfile::tempdir().unwrap();
        let project = dir.path();
        let env = project.join(".env");
        std::fs::write(&env, "OLD=1").unwrap();
        std::fs::write(project.join("old.txt"), "before").unwrap();
        let watch = Watch {
            // As if the call began long after old.txt was written.
            start: (now().0 + 10, 0),
            ..Watch::of(std::slice::from_ref(&env))
        };
        // Written in place: the mask held.
        std::fs::write(&env, "OLD=2").unwrap();
        assert!(watch.replaced().is_empty());
        // An editor's save: a new file renamed over it.
        std::fs::write(project.join(".env.tmp"), "NEW=1").unwrap();
        std::fs::rename(project.join(".env.tmp"), &env).unwrap();
        assert_eq!(watch.replaced(), vec![env.clone()]);
        let watch = Watch {
            start: now(),
            ..watch
        };
        std::fs::write(project.join("copy.txt"), "NEW=1").unwrap();
        let record = watch.record(project, &env);
        assert!(!record.whole);
        let listed: Vec<&Path> = record.files.iter().map(|f| f.path.as_path()).collect();
        assert!(
            listed.contains(&project.join("copy.txt").as_path()),
            "{listed:?}"
        );
        assert!(!listed.contains(&env.as_path()));
    }
}
