//! Files that may hold a secret a sandboxed command could read after all.
//!
//! The sandbox masks a project's secret files with a bind mount. A file saved *over* a masked
//! one while a call runs (an editor's save renames a new file into place) lifts the mask for
//! that call: the kernel detaches a mount whose point is renamed over from another namespace,
//! and nothing inside the sandbox can prevent it. The sandbox sees it after the call (`sandbox`
//! compares the masked files' inodes), withholds the call's output, and lists here every file
//! the call changed: any of them may now hold a copy. From then on they count as secrets (the
//! policy asks a person before anything reads them, the sandbox masks them) until each has
//! changed again or is gone. The list is kept in ai's state directory, which no sandboxed
//! command can read or write, so a later run holds it too.
//!
//! When the call changed too many files to list, the whole project counts as secret until the
//! user removes the record (the notice names it).

use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::RwLock;

use serde::{Deserialize, Serialize};

/// Most files one record lists; past this the record holds the project whole.
pub(crate) const MOST_FILES: usize = 2_000;

/// A file as it was when listed: it stays suspect while it is the same file, unchanged.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Listed {
    pub(crate) path: PathBuf,
    pub(crate) ino: u64,
    pub(crate) ctime: i64,
    pub(crate) ctime_nsec: i64,
}

impl Listed {
    /// The file at `path` as it is now.
    pub(crate) fn of(path: &Path) -> Option<Listed> {
        let meta = path.symlink_metadata().ok()?;
        Some(Listed {
            path: path.to_path_buf(),
            ino: meta.ino(),
            ctime: meta.ctime(),
            ctime_nsec: meta.ctime_nsec(),
        })
    }

    /// Still the file that was listed, not changed since (a change sets its ctime, which no
    /// unprivileged program can set back).
    fn unchanged(&self) -> bool {
        Listed::of(&self.path).is_some_and(|now| now == *self)
    }
}

/// What one exposure left: the secret that was replaced, and what may hold it now.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Record {
    pub(crate) project: PathBuf,
    /// The secret file that was saved over during the call.
    pub(crate) secret: PathBuf,
    /// When the call ran (seconds since the epoch), for the notice.
    pub(crate) at: u64,
    /// The files the call changed (`whole`: too many to list).
    pub(crate) files: Vec<Listed>,
    pub(crate) whole: bool,
}

impl Record {
    /// Why `path` may hold the secret, if this record says so.
    fn holds(&self, path: &Path) -> bool {
        if self.whole {
            return path.starts_with(&self.project);
        }
        self.files.iter().any(|f| f.path == path)
    }

    /// What is still suspect: files changed since are no longer listed.
    fn still_suspect(mut self) -> Option<Record> {
        if self.whole {
            return Some(self);
        }
        self.files.retain(Listed::unchanged);
        (!self.files.is_empty()).then_some(self)
    }

    /// One line for the user and the model.
    pub(crate) fn describe(&self, file: Option<&Path>) -> String {
        let secret = self.secret.display();
        if self.whole {
            let remove = file.map_or_else(String::new, |f| {
                format!("; remove {} once you have checked it", f.display())
            });
            return format!(
                "{secret} was saved over while a sandboxed command ran, which could then read \
                 it; that command changed too many files to list, so the whole project counts \
                 as secret{remove}"
            );
        }
        let shown: Vec<String> = (self.files.iter().take(5))
            .map(|f| f.path.display().to_string())
            .collect();
        let more = self.files.len().saturating_sub(shown.len());
        let more = if more > 0 {
            format!(" and {more} more")
        } else {
            String::new()
        };
        format!(
            "{secret} was saved over while a sandboxed command ran, which could then read it; \
             the files that command changed count as secrets until they change again or are \
             removed: {}{more}",
            shown.join(", ")
        )
    }
}

/// The records of this process: loaded for the project at the start of a run, added to when a
/// call exposes a secret.
static RECORDS: RwLock<Vec<Record>> = RwLock::new(Vec::new());

/// Why `path` may hold a secret a sandboxed command could read, if it may.
pub(crate) fn holds(path: &Path) -> Option<String> {
    let records = RECORDS.read().ok()?;
    records.iter().find(|r| r.holds(path)).map(|r| {
        format!(
            "a file that may hold a copy of {} (written by a command that could read it)",
            r.secret.display()
        )
    })
}

/// The files under `project` that count as secrets now, and whether the project counts whole.
pub(crate) fn files_under(project: &Path) -> (Vec<PathBuf>, bool) {
    let Ok(records) = RECORDS.read() else {
        return (Vec::new(), true);
    };
    let mut files = Vec::new();
    let mut whole = false;
    for record in records.iter().filter(|r| r.project == project) {
        whole |= record.whole;
        files.extend(record.files.iter().map(|f| f.path.clone()));
    }
    (files, whole)
}

/// Where the records of `project` are kept in ai's state directory.
pub(crate) fn record_file(state_dir: &Path, project: &Path) -> PathBuf {
    state_dir
        .join("exposed")
        .join(format!("{:016x}.json", fnv1a(project)))
}

/// Loads what earlier runs recorded for `project` (dropping files changed since); returns the
/// notices to show. A record that cannot be read counts the project whole: it fails closed.
pub(crate) fn load(state_dir: &Path, project: &Path) -> Vec<String> {
    let file = record_file(state_dir, project);
    let Ok(text) = std::fs::read_to_string(&file) else {
        return Vec::new();
    };
    let records: Vec<Record> = serde_json::from_str(&text).unwrap_or_else(|_| {
        vec![Record {
            project: project.to_path_buf(),
            secret: file.clone(),
            at: 0,
            files: Vec::new(),
            whole: true,
        }]
    });
    let records: Vec<Record> = records
        .into_iter()
        .filter_map(Record::still_suspect)
        .collect();
    if records.is_empty() {
        let _ = std::fs::remove_file(&file);
        return Vec::new();
    }
    let _ = write(&file, &records);
    let notices = records.iter().map(|r| r.describe(Some(&file))).collect();
    if let Ok(mut all) = RECORDS.write() {
        for record in records {
            if !all.contains(&record) {
                all.push(record);
            }
        }
    }
    notices
}

/// Adds `record` for this run and, where there is a state directory, for later runs. Returns
/// the notice.
pub(crate) fn add(state_dir: Option<&Path>, record: Record) -> String {
    let file = state_dir.map(|dir| record_file(dir, &record.project));
    let notice = record.describe(file.as_deref());
    if let Some(file) = &file {
        let mut kept: Vec<Record> = std::fs::read_to_string(file)
            .ok()
            .and_then(|text| serde_json::from_str(&text).ok())
            .unwrap_or_default();
        kept.push(record.clone());
        let _ = write(file, &kept);
    }
    if let Ok(mut all) = RECORDS.write() {
        all.push(record);
    }
    notice
}

fn write(file: &Path, records: &[Record]) -> std::io::Result<()> {
    if let Some(dir) = file.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let text = serde_json::to_string_pretty(records).map_err(std::io::Error::other)?;
    std::fs::write(file, text)
}

/// A stable name for a project's record (FNV-1a of its path).
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

    fn record(project: &Path, files: Vec<Listed>, whole: bool) -> Record {
        Record {
            project: project.to_path_buf(),
            secret: project.join(".env"),
            at: 1,
            files,
            whole,
        }
    }

    #[test]
    fn a_listed_file_is_suspect_until_it_changes() {
        let dir = tempfile::tempdir().unwrap();
        let state = tempfile::tempdir().unwrap();
        let copy = dir.path().join("notes.txt");
        std::fs::write(&copy, "copied").unwrap();
        let listed = Listed::of(&copy).unwrap();
        add(Some(state.path()), record(dir.path(), vec![listed], false));
        assert!(holds(&copy).is_some());
        assert!(holds(&dir.path().join("other.txt")).is_none());
        // A later run loads it while the file is unchanged...
        let notices = load(state.path(), dir.path());
        assert!(notices[0].contains("notes.txt"), "{notices:?}");
        // ...and drops it (and the record) once the file changed.
        std::thread::sleep(std::time::Duration::from_millis(20));
        std::fs::remove_file(&copy).unwrap();
        std::fs::write(&copy, "new").unwrap();
        assert!(load(state.path(), dir.path()).is_empty());
        assert!(!record_file(state.path(), dir.path()).exists());
    }

    #[test]
    fn a_whole_project_record_holds_everything_below_it_until_removed() {
        let dir = tempfile::tempdir().unwrap();
        let state = tempfile::tempdir().unwrap();
        let notice = add(Some(state.path()), record(dir.path(), Vec::new(), true));
        assert!(notice.contains("remove"), "{notice}");
        assert!(holds(&dir.path().join("src/main.rs")).is_some());
        assert!(files_under(dir.path()).1);
        assert_eq!(load(state.path(), dir.path()).len(), 1);
    }

    #[test]
    fn an_unreadable_record_holds_the_project_whole() {
        let dir = tempfile::tempdir().unwrap();
        let state = tempfile::tempdir().unwrap();
        let file = record_file(state.path(), dir.path());
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(&file, "not json").unwrap();
        assert_eq!(load(state.path(), dir.path()).len(), 1);
        assert!(holds(&dir.path().join("README.md")).is_some());
    }
}
