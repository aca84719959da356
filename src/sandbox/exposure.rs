//! Seeing, after a call, that a file the sandbox covered by a mount was replaced while it ran.
//!
//! The sandbox covers a project's secret files (an empty file bound over each), git's configs
//! (a scrubbed copy bound over each) and git's directories and hooks (read-only binds). A
//! rename onto such a path from outside the call's mount namespace (an editor saving `.env`,
//! git rewriting its config), or an unlink and a new file, detaches the mount, so the call
//! could read the new file, or write where git runs code from; no mount inside can stop it, and
//! the call itself cannot do it (a rename onto a mount point in its own namespace fails). So each
//! call notes which file each covered path was (device, inode and birth time: a new file can
//! get the old one's inode number), and afterwards another file at one of them means the call
//! may have used it (`config::exposed` takes it from there).

use std::path::{Path, PathBuf};

/// A file as the kernel tells one from another.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Identity {
    dev: (u32, u32),
    ino: u64,
    /// Birth time (seconds, nanoseconds), where the file system keeps one.
    born: Option<(i64, u32)>,
}

impl Identity {
    fn of(path: &Path) -> Option<Identity> {
        use rustix::fs::{AtFlags, CWD, StatxFlags, statx};
        let stat = statx(
            CWD,
            path,
            AtFlags::empty(),
            StatxFlags::INO | StatxFlags::BTIME,
        )
        .ok()?;
        let born = (stat.stx_mask & StatxFlags::BTIME.bits() != 0)
            .then_some((stat.stx_btime.tv_sec, stat.stx_btime.tv_nsec));
        Some(Identity {
            dev: (stat.stx_dev_major, stat.stx_dev_minor),
            ino: stat.stx_ino,
            born,
        })
    }
}

/// The covered paths of one call, as they were when it began.
#[derive(Debug, Clone, Default)]
pub(crate) struct Watch {
    covered: Vec<(PathBuf, Identity)>,
}

impl Watch {
    /// Notes the file each of `covered` is now.
    pub(crate) fn of<'p>(covered: impl IntoIterator<Item = &'p PathBuf>) -> Watch {
        let covered = covered
            .into_iter()
            .filter_map(|path| Some((path.clone(), Identity::of(path)?)))
            .collect();
        Watch { covered }
    }

    /// The covered paths that hold another file now (or none: removed, which lifts the mount
    /// just the same, and a call that read before the end could have seen what came between).
    pub(crate) fn replaced(&self) -> Vec<PathBuf> {
        self.covered
            .iter()
            .filter(|(path, was)| Identity::of(path) != Some(*was))
            .map(|(path, _)| path.clone())
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_saved_over_a_covered_one_is_seen_and_one_written_in_place_is_not() {
        let dir = tempfile::tempdir().unwrap();
        let env = dir.path().join(".env");
        let hooks = dir.path().join("hooks");
        std::fs::write(&env, "OLD=1").unwrap();
        std::fs::create_dir(&hooks).unwrap();
        let watch = Watch::of([&env, &hooks]);
        // Written in place: the mount held.
        std::fs::write(&env, "OLD=2").unwrap();
        assert!(watch.replaced().is_empty());
        // An editor's save: a new file renamed over it; a directory replaced.
        std::fs::write(dir.path().join(".env.tmp"), "NEW=1").unwrap();
        std::fs::rename(dir.path().join(".env.tmp"), &env).unwrap();
        std::fs::remove_dir(&hooks).unwrap();
        std::fs::create_dir(&hooks).unwrap();
        assert_eq!(watch.replaced(), vec![env.clone(), hooks.clone()]);
    }
}
