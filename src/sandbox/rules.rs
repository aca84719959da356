//! Which paths the sandbox grants. Landlock only grants (a rule covers everything beneath its
//! path), so "all of X except Y" is built by granting the siblings along the way down to Y.

use std::path::{Path, PathBuf};

/// What to grant so that all of `root` is covered except `excluded` (and what lies beneath
/// them): `root` itself when nothing excluded lies inside it, else its entries, one level deeper
/// on the way to each excluded path. Symlinks are skipped: Landlock judges the file they lead to,
/// which a rule of its own covers or not. `opened` gets the directories that were split (they
/// can be listed, not granted whole).
pub(crate) fn beneath_except(
    root: &Path,
    excluded: &[PathBuf],
    granted: &mut Vec<PathBuf>,
    opened: &mut Vec<PathBuf>,
) {
    // Landlock follows a link to grant its target, so the target is what is judged: a
    // project's `.venv` made a link to `/` must not grant `/` past every exclusion. What cannot
    // be resolved is not granted.
    let Ok(root) = root.canonicalize() else {
        return;
    };
    split(&root, excluded, granted, opened);
}

fn split(root: &Path, excluded: &[PathBuf], granted: &mut Vec<PathBuf>, opened: &mut Vec<PathBuf>) {
    if excluded.iter().any(|e| root.starts_with(e)) {
        return;
    }
    // Only what exists can be cut out (a path below a file never can).
    let below = |e: &&PathBuf| e.starts_with(root) && e.symlink_metadata().is_ok();
    if !excluded.iter().any(|e| below(&e)) {
        granted.push(root.to_path_buf());
        return;
    }
    opened.push(root.to_path_buf());
    let Ok(entries) = std::fs::read_dir(root) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let is_link = entry.file_type().is_ok_and(|t| t.is_symlink());
        if !is_link {
            split(&path, excluded, granted, opened);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_root_without_exclusions_is_granted_whole() {
        let dir = tempfile::tempdir().unwrap();
        let (mut granted, mut opened) = (Vec::new(), Vec::new());
        beneath_except(
            dir.path(),
            &[PathBuf::from("/elsewhere")],
            &mut granted,
            &mut opened,
        );
        assert_eq!(granted, vec![dir.path().to_path_buf()]);
        assert!(opened.is_empty());
    }

    #[test]
    fn an_excluded_path_is_left_out_and_its_siblings_granted() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        for sub in ["a", ".config/gh", ".config/other", ".ssh"] {
            std::fs::create_dir_all(root.join(sub)).unwrap();
        }
        std::fs::write(root.join(".bashrc"), "").unwrap();
        std::os::unix::fs::symlink(root.join(".ssh"), root.join("link")).unwrap();
        let excluded = [root.join(".ssh"), root.join(".config/gh")];
        let (mut granted, mut opened) = (Vec::new(), Vec::new());
        beneath_except(root, &excluded, &mut granted, &mut opened);
        granted.sort();
        let expected: Vec<PathBuf> = [".bashrc", ".config/other", "a"]
            .iter()
            .map(|p| root.join(p))
            .collect();
        assert_eq!(granted, expected);
        assert_eq!(opened, vec![root.to_path_buf(), root.join(".config")]);
    }
}
