//! One bounded walk of a tree, for what the sandbox must find in a project before a call (git
//! directories, secret files) and after it (a `.git` the call made).

use std::collections::VecDeque;
use std::ffi::OsStr;
use std::fs::FileType;
use std::path::Path;

/// Most directories one walk reads. Past this it stops and says so: the caller then fails
/// closed (an attacker can make a tree of any size to hide something beyond a limit).
const WALK_LIMIT: usize = 100_000;

/// Calls `visit(path, name, kind)` for every entry below `root`, links not followed, breadth
/// first, and goes into the directories for which it returns true. Returns whether it saw the
/// whole tree.
pub(crate) fn walk(root: &Path, visit: impl FnMut(&Path, &OsStr, FileType) -> bool) -> bool {
    walk_at_most(root, WALK_LIMIT, visit)
}

fn walk_at_most(
    root: &Path,
    limit: usize,
    mut visit: impl FnMut(&Path, &OsStr, FileType) -> bool,
) -> bool {
    let mut pending = VecDeque::from([root.to_path_buf()]);
    let mut read = 0;
    while let Some(dir) = pending.pop_front() {
        read += 1;
        if read > limit {
            return false;
        }
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            let path = entry.path();
            if visit(&path, &entry.file_name(), kind) && kind.is_dir() {
                pending.push_back(path);
            }
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tree_past_the_limit_is_said_to_be_incomplete() {
        let dir = tempfile::tempdir().unwrap();
        for i in 0..5 {
            std::fs::create_dir_all(dir.path().join(format!("d{i}/e"))).unwrap();
        }
        let mut seen = 0;
        assert!(walk_at_most(dir.path(), 100, |_, _, _| {
            seen += 1;
            true
        }));
        assert_eq!(seen, 10);
        assert!(!walk_at_most(dir.path(), 3, |_, _, _| true));
    }
}
