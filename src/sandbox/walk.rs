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
pub(crate) fn walk(root: &Path, visit: &mut dyn FnMut(&Path, &OsStr, FileType) -> bool) -> bool {
    walk_at_most(root, WALK_LIMIT, false, visit)
}

/// A walk, bounded or not.
pub(crate) type Walk = fn(&Path, &mut dyn FnMut(&Path, &OsStr, FileType) -> bool) -> bool;

/// The same with no limit: for the check after a call, whose tree grew only by what the call
/// could make in its time (a walk is faster than the making).
pub(crate) fn walk_all(
    root: &Path,
    visit: &mut dyn FnMut(&Path, &OsStr, FileType) -> bool,
) -> bool {
    walk_at_most(root, usize::MAX, true, visit)
}

/// A directory's entries. After a call (`reopen`), one the user owns but cannot list (the
/// call's `chmod 311`, to hide what is inside) is made listable again; one that stays
/// unlistable while the user could write into it is `Err`: something may hide there.
fn entries(dir: &Path, reopen: bool) -> Result<Option<std::fs::ReadDir>, ()> {
    use std::os::unix::fs::{MetadataExt, PermissionsExt};
    if let Ok(entries) = std::fs::read_dir(dir) {
        return Ok(Some(entries));
    }
    let meta = match std::fs::symlink_metadata(dir) {
        Ok(meta) => meta,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Ok(None), // gone
        // Anything else (a path too long to name) may hide what is below it.
        Err(_) => return Err(()),
    };
    if reopen && meta.uid() == rustix::process::getuid().as_raw() {
        let mode = meta.permissions().mode() | 0o700;
        let _ = std::fs::set_permissions(dir, std::fs::Permissions::from_mode(mode));
        if let Ok(entries) = std::fs::read_dir(dir) {
            return Ok(Some(entries));
        }
    }
    // Someone else's: only a directory others may write into could hold what a call made.
    let writable = meta.permissions().mode() & 0o022 != 0;
    if writable { Err(()) } else { Ok(None) }
}

fn walk_at_most(
    root: &Path,
    limit: usize,
    reopen: bool,
    visit: &mut dyn FnMut(&Path, &OsStr, FileType) -> bool,
) -> bool {
    let mut pending = VecDeque::from([root.to_path_buf()]);
    let mut read = 0;
    while let Some(dir) = pending.pop_front() {
        read += 1;
        if read > limit {
            return false;
        }
        let entries = match entries(&dir, reopen) {
            Ok(Some(entries)) => entries,
            Ok(None) => continue,
            Err(()) => return false,
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

/// Removes `dir` and everything below it, first making listable and writable again what a
/// call made unremovable (`chmod 000` on a subdirectory of its temp).
pub(crate) fn remove_tree(dir: &Path) {
    use std::os::unix::fs::PermissionsExt;
    // A link (or a file) in its place is removed itself, never followed.
    match std::fs::symlink_metadata(dir) {
        Ok(meta) if meta.is_dir() => {}
        Ok(_) => {
            let _ = std::fs::remove_file(dir);
            return;
        }
        Err(_) => return,
    }
    let open = std::fs::Permissions::from_mode(0o700);
    let _ = std::fs::set_permissions(dir, open.clone());
    walk_all(dir, &mut |path, _, kind| {
        if kind.is_dir() {
            let _ = std::fs::set_permissions(path, open.clone());
        }
        kind.is_dir()
    });
    let _ = std::fs::remove_dir_all(dir);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tree_made_unremovable_is_removed_and_a_link_in_its_place_is_not_followed() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let tree = dir.path().join("t");
        std::fs::create_dir_all(tree.join("a/b")).unwrap();
        std::fs::write(tree.join("a/b/f"), "x").unwrap();
        std::fs::set_permissions(tree.join("a/b"), std::fs::Permissions::from_mode(0o000)).unwrap();
        std::fs::set_permissions(tree.join("a"), std::fs::Permissions::from_mode(0o500)).unwrap();
        remove_tree(&tree);
        assert!(!tree.exists());
        let target = dir.path().join("target");
        std::fs::create_dir(&target).unwrap();
        std::fs::set_permissions(&target, std::fs::Permissions::from_mode(0o755)).unwrap();
        let link = dir.path().join("link");
        std::os::unix::fs::symlink(&target, &link).unwrap();
        remove_tree(&link);
        assert!(!link.exists() && target.is_dir());
        let mode = std::fs::metadata(&target).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o755);
    }

    #[test]
    fn a_tree_past_the_limit_is_said_to_be_incomplete() {
        let dir = tempfile::tempdir().unwrap();
        for i in 0..5 {
            std::fs::create_dir_all(dir.path().join(format!("d{i}/e"))).unwrap();
        }
        let mut seen = 0;
        assert!(walk_at_most(dir.path(), 100, false, &mut |_, _, _| {
            seen += 1;
            true
        }));
        assert_eq!(seen, 10);
        assert!(!walk_at_most(dir.path(), 3, false, &mut |_, _, _| true));
    }
}
