//! A file's other names. ai reads some files outside the sandbox (the filesystem tool for the
//! model, `AGENTS.md` into the prompt), and a file is a secret by any name it has: a call can
//! hard-link `notes` to `.env.local`, or make `.env.local` a link to `AGENTS.md`, before the user
//! writes the key in (sandbox rounds 16 and 18). So before such a read the project is looked
//! through once for secret-named links and hard-linked secrets; what was found holds until the
//! next command runs (`forget`), since only a command can make new names.

use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use super::secrets::sensitive;

/// Most directories one look reads; past it nothing is vouched for (fail closed), as the
/// sandbox's own walk.
const MOST_DIRS: usize = 100_000;

/// What one look through a project found.
struct Found {
    root: PathBuf,
    /// Where secret-named links lead (resolved), with the link and why it is secret.
    targets: Vec<(PathBuf, String)>,
    /// Secret files with other hard links: (device, inode) and why.
    inodes: Vec<((u64, u64), String)>,
    complete: bool,
}

static FOUND: Mutex<Option<Found>> = Mutex::new(None);

/// A command may have made new names: look again before the next read.
pub(crate) fn forget() {
    if let Ok(mut found) = FOUND.lock() {
        *found = None;
    }
}

/// Why the file at `real` (resolved), with metadata `meta`, is a secret under another name in
/// the project at `root`; `Err` when the project is too big to look through.
pub(crate) fn secret_by_other_name(
    root: &Path,
    real: &Path,
    meta: &std::fs::Metadata,
    home: Option<&Path>,
) -> Result<Option<String>, ()> {
    let Ok(mut found) = FOUND.lock() else {
        return Err(());
    };
    if found.as_ref().is_none_or(|f| f.root != root) {
        *found = Some(look(root, home));
    }
    let Some(found) = found.as_ref() else {
        return Err(());
    };
    let id = (meta.dev(), meta.ino());
    let named = (found.targets.iter())
        .find(|(target, _)| real.starts_with(target))
        .map(|(_, why)| why.clone())
        .or_else(|| {
            (found.inodes.iter())
                .find(|(other, _)| *other == id && meta.nlink() > 1)
                .map(|(_, why)| why.clone())
        });
    match named {
        Some(why) => Ok(Some(why)),
        None if !found.complete => Err(()),
        None => Ok(None),
    }
}

/// One bounded walk of `root`, links not followed.
fn look(root: &Path, home: Option<&Path>) -> Found {
    let mut found = Found {
        root: root.to_path_buf(),
        targets: Vec::new(),
        inodes: Vec::new(),
        complete: true,
    };
    let mut dirs = vec![root.to_path_buf()];
    let mut read = 0usize;
    while let Some(dir) = dirs.pop() {
        read += 1;
        if read > MOST_DIRS {
            found.complete = false;
            break;
        }
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            let Ok(meta) = path.symlink_metadata() else {
                continue;
            };
            if meta.is_dir() {
                if entry.file_name() != ".git" {
                    dirs.push(path);
                }
                continue;
            }
            let Some(why) = sensitive(&path, home) else {
                continue;
            };
            let why = format!("another name of it, {}, is {why}", path.display());
            if meta.file_type().is_symlink() {
                // A link to a directory (`.envs -> notes`) makes all below it secret; one whose
                // target is not there yet (`.env.local -> notes`) stands for it as written.
                let target = std::fs::canonicalize(&path)
                    .or_else(|_| std::fs::read_link(&path).map(|t| super::lexical(&dir.join(t))));
                if let Ok(target) = target {
                    found.targets.push((target, why));
                }
            } else if meta.nlink() > 1 {
                found.inodes.push(((meta.dev(), meta.ino()), why));
            }
        }
    }
    found
}
