//! One bounded walk of a tree, for what the sandbox must find in a project before a call (git
//! directories, secret files) and after it (a `.git` the call made).

use std::ffi::OsStr;
use std::fs::FileType;
use std::path::Path;

/// Most directories one walk reads: past this it stops (a huge tree would cost time on every
/// call; what lies deeper is rarely where a person runs git or keeps a key).
const WALK_LIMIT: usize = 20_000;

/// Calls `visit(path, name, kind)` for every entry below `root`, links not followed, and goes
/// into the directories for which it returns true.
pub fn walk(root: &Path, mut visit: impl FnMut(&Path, &OsStr, FileType) -> bool) {
    let mut pending = vec![root.to_path_buf()];
    let mut read = 0;
    while let Some(dir) = pending.pop() {
        read += 1;
        if read > WALK_LIMIT {
            return;
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
                pending.push(path);
            }
        }
    }
}
