//! The temp directories a call sees: each one that holds nothing the call needs is covered by
//! the session's own directory in it; one that holds the project or the home (a project under
//! /tmp, a test's home) is hidden but for those, and the call writes its temp files to the
//! session's directory there. Other projects, homes, users' files and other sessions' temps
//! live in temp (sandbox round 24: a call wrote another project's `.git/config` in /tmp).
//! Also the launchers' private temps, swept once their launcher is gone.

use std::path::{Path, PathBuf};
use std::sync::Mutex;

use super::request::Request;
use super::{Plan, SandboxMode, walk};

/// The session's own directories in temp: made on first use, removed at the end of the run.
#[derive(Debug, Default)]
pub(super) struct SessionTemps(Mutex<Vec<PathBuf>>);

impl SessionTemps {
    /// Removes the session's temp directories and all they hold (a later call makes them again).
    pub(super) fn empty(&self) {
        if let Ok(dirs) = self.0.lock() {
            dirs.iter().for_each(|dir| walk::remove_tree(dir));
        }
    }
}

impl Drop for SessionTemps {
    fn drop(&mut self) {
        if let Ok(dirs) = self.0.lock() {
            for dir in dirs.iter() {
                walk::remove_tree(dir);
            }
        }
    }
}

impl Plan {
    /// Grants `request` the temp directories: covered ones writable (in workspace mode), shared
    /// ones hidden but for the session's directory, PATH's directories in them, and what is
    /// granted elsewhere (the project, the toolchains).
    pub(super) fn grant_temps(&self, request: &mut Request) {
        request.cover = self.session_temps();
        let shared = self.shared_temps();
        if self.mode == SandboxMode::Workspace {
            request
                .write
                .extend(request.cover.iter().map(|(temp, _)| temp.clone()));
            request
                .write
                .extend(shared.iter().map(|(_, session)| session.clone()));
        }
        request
            .hide
            .extend(shared.iter().map(|(temp, _)| temp.clone()));
        request
            .read
            .extend(self.path_dirs_within(shared.iter().map(|(temp, _)| temp)));
        request.temp_dir = (shared.iter())
            .find(|(temp, _)| Some(temp) == self.temp.first())
            .map(|(_, session)| session.clone());
        // No project to write (no repository around a PATH directory, a dotfiles tree): where
        // the call runs stays readable, as it is outside temp and the home.
        let runs_in_shared = shared.iter().any(|(temp, _)| self.cwd.starts_with(temp));
        if self.project.is_err() && runs_in_shared {
            request.read.push(self.cwd.clone());
        }
        let containers: Vec<PathBuf> = (shared.iter().map(|(temp, _)| temp.clone()))
            .chain(self.home.iter().cloned())
            // Other users' homes: hidden, but for the toolchains granted in them.
            .chain([PathBuf::from("/home"), PathBuf::from("/root")])
            .collect();
        keep_reads_out_of_hiding(request, &containers);
    }

    /// The temp directories a call sees only its session's part of: each one that holds
    /// nothing of the user's that a call needs (the project, the home, ai's own directories),
    /// with the session's directory in it (made now, kept for the session, swept after).
    fn session_temps(&self) -> Vec<(PathBuf, PathBuf)> {
        self.temps(false)
    }

    /// The temp directories that hold what a call needs, so cannot be covered, each with the
    /// session's directory in it.
    fn shared_temps(&self) -> Vec<(PathBuf, PathBuf)> {
        self.temps(true)
    }

    /// The temp directories that hold what a call needs (`shared`) or not, each with the
    /// session's directory in it.
    fn temps(&self, shared: bool) -> Vec<(PathBuf, PathBuf)> {
        let needed: Vec<&PathBuf> = (self.project.iter())
            .chain(&self.home)
            .chain(&self.own)
            .collect();
        self.temp
            .iter()
            .filter(|temp| needed.iter().any(|n| n.starts_with(temp)) == shared)
            .filter_map(|temp| {
                let session = temp.join(format!("{SESSION_TEMP_PREFIX}{}", std::process::id()));
                let known = self.sessions.0.lock().is_ok_and(|d| d.contains(&session));
                if !known {
                    // Left by an earlier ai that had this pid: nothing of it is ours to reuse.
                    walk::remove_tree(&session);
                }
                let made = std::fs::create_dir(&session).is_ok() || (known && session.is_dir());
                // Only a directory of our own, never one planted for this pid beforehand.
                let ours = session.symlink_metadata().is_ok_and(|m| {
                    use std::os::unix::fs::MetadataExt;
                    m.is_dir() && m.uid() == rustix::process::getuid().as_raw()
                });
                (made && ours).then(|| {
                    if let Ok(mut dirs) = self.sessions.0.lock()
                        && !dirs.contains(&session)
                    {
                        dirs.push(session.clone());
                    }
                    use std::os::unix::fs::PermissionsExt;
                    let _ =
                        std::fs::set_permissions(&session, std::fs::Permissions::from_mode(0o700));
                    (temp.clone(), session)
                })
            })
            .collect()
    }

    /// PATH's directories inside `temps` (outside the home, which is hidden anyway): the
    /// programs a call runs by name.
    fn path_dirs_within<'t>(&self, temps: impl Iterator<Item = &'t PathBuf>) -> Vec<PathBuf> {
        let temps: Vec<&PathBuf> = temps.collect();
        (self.link_places.iter())
            .filter(|dir| temps.iter().any(|t| dir.starts_with(t)))
            .filter(|dir| !self.home.as_ref().is_some_and(|h| dir.starts_with(h)))
            .cloned()
            .collect()
    }
}

/// Drops each readable root that would uncover what is hidden: one inside a secret (a PATH
/// entry or `VIRTUAL_ENV` naming `~/.ssh`), or one that is a hidden container itself (`/tmp`
/// on PATH with the project in /tmp, the home): the exclusions below a root cannot reach
/// what lies above it (sandbox round 25). Containers (the home, a shared temp) are hidden but
/// for the roots inside them.
fn keep_reads_out_of_hiding(request: &mut Request, containers: &[PathBuf]) {
    let secrets: Vec<&PathBuf> = (request.hide.iter())
        .filter(|h| !containers.contains(h))
        .collect();
    request.read.retain(|root| {
        // As the kernel resolves it (`/tmp/x/..`, a link to `/tmp`: sandbox round 26).
        let real = root.canonicalize().unwrap_or_else(|_| root.clone());
        let in_secret = secrets
            .iter()
            .any(|s| root.starts_with(s) || real.starts_with(s));
        let a_container = (containers.iter()).any(|c| c.starts_with(root) || c.starts_with(&real));
        !in_secret && !a_container
    });
}

/// The name of a launcher's private temp directory in a writable root.
pub(super) fn private_temp_name(pid: u32) -> String {
    format!("{PRIVATE_TEMP_PREFIX}{pid}")
}

const PRIVATE_TEMP_PREFIX: &str = ".ai-sandbox-";

/// The name of a session's own directory in a temp directory (then the pid of `ai`).
const SESSION_TEMP_PREFIX: &str = ".ai-session-";

/// Removes the private temp directories in `root` whose launcher is no longer running.
pub(super) fn sweep_private_temps(root: &Path) {
    let Ok(entries) = std::fs::read_dir(root) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(pid) = name
            .to_str()
            .and_then(|n| {
                n.strip_prefix(PRIVATE_TEMP_PREFIX)
                    .or_else(|| n.strip_prefix(SESSION_TEMP_PREFIX))
            })
            .and_then(|pid| pid.parse::<u32>().ok())
        else {
            continue;
        };
        let running = Path::new("/proc").join(pid.to_string()).exists();
        let is_dir = entry.file_type().is_ok_and(|t| t.is_dir());
        if !running && is_dir {
            walk::remove_tree(&entry.path());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_readable_root_uncovers_a_secret_or_a_whole_container() {
        let home = PathBuf::from("/h/home");
        let mut request = Request {
            hide: vec![home.clone(), home.join(".ssh"), "/tmp".into()],
            read: [
                home.join(".ssh"),
                home.join(".ssh/keys"),
                "/tmp".into(),
                "/".into(),
                home.clone(),
                "/tmp/x/bin".into(),
                home.join("code/p"),
                "/usr/lib/jvm".into(),
            ]
            .to_vec(),
            ..Request::default()
        };
        keep_reads_out_of_hiding(&mut request, &[PathBuf::from("/tmp"), home.clone()]);
        assert_eq!(
            request.read,
            [
                PathBuf::from("/tmp/x/bin"),
                home.join("code/p"),
                "/usr/lib/jvm".into()
            ]
        );
    }
}
