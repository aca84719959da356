//! The project's own instructions: the `AGENTS.md` nearest the working directory, looked for up to
//! the project root and never above it, and the user's own in the config directory. They are read
//! here, capped in size; what they say joins the instructions and changes nothing else.

use std::io::Read;
use std::path::{Path, PathBuf};

use super::{Paths, project_dir};

/// The file's name, as every agent that reads it spells it.
pub(crate) const PROJECT_DOC_NAME: &str = "AGENTS.md";
/// At most this many bytes of one file are used (codex uses the same).
pub(crate) const PROJECT_DOC_MAX: usize = 32 * 1024;

/// One instructions file as read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ProjectDoc {
    pub(crate) path: PathBuf,
    pub(crate) text: String,
    /// The file was longer than `PROJECT_DOC_MAX`: only its start is in `text`.
    pub(crate) cut: bool,
}

/// The files to read, in order: the user's (`<config dir>/AGENTS.md`), then the project's nearest
/// one (from the working directory up to the project root, inside the project once symlinks are
/// resolved). Only regular files count.
pub(crate) fn project_doc_paths(paths: &Paths) -> Vec<PathBuf> {
    let mut found = Vec::new();
    if let Some(dir) = &paths.config_dir {
        let user = dir.join(PROJECT_DOC_NAME);
        if user.is_file() {
            found.push(user);
        }
    }
    if let Some(cwd) = &paths.cwd
        && let Some(doc) = nearest_in_project(cwd, paths.home.as_deref())
    {
        found.push(doc);
    }
    found
}

fn nearest_in_project(cwd: &Path, home: Option<&Path>) -> Option<PathBuf> {
    let root = project_dir(cwd, home).ok()?;
    let real_root = root.canonicalize().ok()?;
    cwd.ancestors()
        .take_while(|dir| dir.starts_with(&root))
        .map(|dir| dir.join(PROJECT_DOC_NAME))
        .find(|file| {
            file.canonicalize().is_ok_and(|real| {
                real.starts_with(&real_root) && readable_doc(&real, &real_root, home)
            })
        })
}

/// Whether the file behind an `AGENTS.md` may go into the instructions: it is read outside the
/// sandbox, so never a secret (a call may have made `AGENTS.md` a link to `.env`), nothing of
/// git's own directory (its config holds remote URLs with tokens), and no file with other hard
/// links (one of them could be a secret by then), and no file a secret-named link leads to.
fn readable_doc(real: &Path, root: &Path, home: Option<&Path>) -> bool {
    use std::os::unix::fs::MetadataExt;
    let in_git = real.components().any(|c| c.as_os_str() == ".git");
    let Ok(meta) = std::fs::metadata(real) else {
        return false;
    };
    meta.is_file()
        && !in_git
        && meta.nlink() == 1
        && super::secrets::sensitive(real, home).is_none()
        // Nor one a secret-named link leads to (`.env.local -> AGENTS.md`).
        && super::other_names::secret_by_other_name(root, real, &meta, home) == Ok(None)
}

/// Reads at most `PROJECT_DOC_MAX` bytes of `path`, cut at a line end when it is longer.
pub(crate) fn read_project_doc(path: &Path) -> std::io::Result<ProjectDoc> {
    let mut bytes = Vec::new();
    super::read_regular(path)?
        .take(PROJECT_DOC_MAX as u64 + 1)
        .read_to_end(&mut bytes)?;
    let cut = bytes.len() > PROJECT_DOC_MAX;
    if cut {
        bytes.truncate(PROJECT_DOC_MAX);
        if let Some(end) = bytes.iter().rposition(|&b| b == b'\n') {
            bytes.truncate(end + 1);
        }
    }
    Ok(ProjectDoc {
        path: path.to_path_buf(),
        text: String::from_utf8_lossy(&bytes).trim_end().to_string(),
        cut,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn paths(root: &Path, cwd: &Path) -> Paths {
        Paths {
            home: Some(root.join("home")),
            cwd: Some(cwd.to_path_buf()),
            config_dir: Some(root.join("config")),
            ..Paths::default()
        }
    }

    #[test]
    fn the_nearest_file_inside_the_project_and_the_users_are_found() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let project = root.join("home/app");
        let deep = project.join("src/bin");
        std::fs::create_dir_all(&deep).unwrap();
        std::fs::create_dir_all(project.join(".git")).unwrap();
        std::fs::create_dir_all(root.join("config")).unwrap();
        std::fs::write(root.join("home/AGENTS.md"), "outside").unwrap();
        assert!(project_doc_paths(&paths(&root, &deep)).is_empty());
        std::fs::write(project.join("AGENTS.md"), "build with make").unwrap();
        std::fs::write(project.join("src/AGENTS.md"), "nearer").unwrap();
        std::fs::write(root.join("config/AGENTS.md"), "mine").unwrap();
        assert_eq!(
            project_doc_paths(&paths(&root, &deep)),
            vec![root.join("config/AGENTS.md"), project.join("src/AGENTS.md")]
        );
    }

    #[test]
    fn a_symlink_leading_out_of_the_project_is_not_read() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let project = root.join("home/app");
        std::fs::create_dir_all(project.join(".git")).unwrap();
        std::fs::write(root.join("secret.md"), "no").unwrap();
        std::os::unix::fs::symlink(root.join("secret.md"), project.join("AGENTS.md")).unwrap();
        assert!(project_doc_paths(&paths(&root, &project)).is_empty());
    }

    /// Read outside the sandbox: an `AGENTS.md` a call made into a link to a secret or into
    /// git's directory, or a hard link, is not read (sandbox round 16: `.env` and the remote
    /// URL's token reached the system prompt).
    #[test]
    fn a_doc_standing_for_a_secret_or_gits_own_files_is_not_read() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let project = root.join("home/app");
        std::fs::create_dir_all(project.join(".git")).unwrap();
        std::fs::create_dir_all(project.join("a")).unwrap();
        std::fs::create_dir_all(project.join("b")).unwrap();
        std::fs::write(project.join(".env"), "TOKEN=x").unwrap();
        std::fs::write(project.join(".git/config"), "[remote]").unwrap();
        std::fs::write(project.join("notes.md"), "linked").unwrap();
        std::os::unix::fs::symlink("../.env", project.join("a/AGENTS.md")).unwrap();
        std::os::unix::fs::symlink("../.git/config", project.join("b/AGENTS.md")).unwrap();
        std::fs::hard_link(project.join("notes.md"), project.join("AGENTS.md")).unwrap();
        for cwd in [project.join("a"), project.join("b"), project.clone()] {
            assert!(project_doc_paths(&paths(&root, &cwd)).is_empty(), "{cwd:?}");
        }
        // Nor a settings file the sandbox hides for the credential it holds (sandbox round 17).
        std::fs::remove_file(project.join("AGENTS.md")).unwrap();
        std::fs::create_dir_all(project.join("config")).unwrap();
        std::fs::write(
            project.join("config/database.yml"),
            "production:\n  password: hunter2\n",
        )
        .unwrap();
        std::os::unix::fs::symlink("config/database.yml", project.join("AGENTS.md")).unwrap();
        assert!(project_doc_paths(&paths(&root, &project)).is_empty());
        // Nor one a secret-named link leads to: the key the user writes there lands in it.
        std::fs::remove_file(project.join("AGENTS.md")).unwrap();
        std::fs::write(project.join("AGENTS.md"), "build with make").unwrap();
        std::os::unix::fs::symlink("AGENTS.md", project.join(".env.local")).unwrap();
        super::super::other_names::forget();
        assert!(project_doc_paths(&paths(&root, &project)).is_empty());
        std::fs::remove_file(project.join(".env.local")).unwrap();
        std::fs::remove_file(project.join("AGENTS.md")).unwrap();
        super::super::other_names::forget();
        // A link to an ordinary file of the project (`AGENTS.md -> CLAUDE.md`) is read.
        std::fs::write(project.join("CLAUDE.md"), "use make").unwrap();
        std::os::unix::fs::symlink("CLAUDE.md", project.join("AGENTS.md")).unwrap();
        assert_eq!(
            project_doc_paths(&paths(&root, &project)),
            vec![project.join("AGENTS.md")]
        );
    }

    #[test]
    fn a_long_file_is_cut_at_a_line_end() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("AGENTS.md");
        let line = "x".repeat(99) + "\n";
        std::fs::write(&file, line.repeat(400)).unwrap();
        let doc = read_project_doc(&file).unwrap();
        assert!(doc.cut);
        assert!(doc.text.len() <= PROJECT_DOC_MAX);
        assert!(doc.text.ends_with('x'));
        std::fs::write(&file, "short\n").unwrap();
        let doc = read_project_doc(&file).unwrap();
        assert_eq!((doc.text.as_str(), doc.cut), ("short", false));
    }
}
