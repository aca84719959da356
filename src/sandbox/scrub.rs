//! Git's configuration without its credentials. A clone's `.git/config` often carries a token
//! (`https://x-access-token:TOKEN@host/...` in a remote URL, CI checkouts' `http.extraheader`
//! with a basic-auth header); git inside the sandbox still needs the rest of the file. Stage one
//! of the launcher writes a scrubbed copy into a tmpfs of its own mount namespace, binds it
//! read-only over the original, and detaches the tmpfs: the copy is reachable only where the
//! original was, and nothing is left behind when the call ends.

use std::io::Read;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

use rustix::mount::{MountFlags, UnmountFlags};

/// The largest config read (a bigger one is hidden whole rather than read).
const MAX_CONFIG: u64 = 1 << 20;

/// Where the copies are staged before they are bound: a directory that stage one covers with
/// its own tmpfs next anyway (`mounts::private_shm`).
const STAGE: &str = "/dev/shm";

/// Git configuration files of the project's git directories (a submodule's under
/// `.git/modules` included, as they are git directories of their own).
pub(crate) fn git_configs(git_dirs: &[PathBuf]) -> Vec<PathBuf> {
    let mut configs = Vec::new();
    for dir in git_dirs.iter().filter(|d| d.join("HEAD").is_file()) {
        for name in ["config", "config.worktree"] {
            let path = dir.join(name);
            if path.symlink_metadata().is_ok() {
                configs.push(path);
            }
        }
    }
    configs
}

/// Binds a scrubbed copy over each config of `configs` that holds a credential (read-only).
/// Returns the configs that could not be read or covered: the caller hides those whole.
pub(crate) fn cover_credentials(configs: &[PathBuf]) -> Vec<PathBuf> {
    let mut failed = Vec::new();
    let mut copies = Vec::new();
    for config in configs {
        match read_config(config) {
            Some(text) => {
                let clean = scrub(&text);
                if clean != text {
                    copies.push((config, clean));
                }
            }
            None => failed.push(config.clone()),
        }
    }
    if copies.is_empty() {
        return failed;
    }
    let stage = Path::new(STAGE);
    let flags = MountFlags::NOSUID | MountFlags::NODEV | MountFlags::NOEXEC;
    if rustix::mount::mount("tmpfs", stage, "tmpfs", flags, c"size=4m,mode=0700").is_err() {
        failed.extend(copies.into_iter().map(|(config, _)| config.clone()));
        return failed;
    }
    for (index, (config, clean)) in copies.into_iter().enumerate() {
        let copy = stage.join(format!("config-{index}"));
        let bound = std::fs::write(&copy, clean).is_ok()
            && rustix::mount::mount_bind(&copy, config.as_path()).is_ok()
            && rustix::mount::mount_remount(
                config.as_path(),
                MountFlags::BIND | MountFlags::RDONLY,
                "",
            )
            .is_ok();
        if !bound {
            failed.push(config.clone());
        }
    }
    // The copies stay alive through their binds; the staging tmpfs itself goes.
    let _ = rustix::mount::unmount(stage, UnmountFlags::DETACH);
    failed
}

/// A regular file's text, opened without following a link or waiting on a FIFO.
fn read_config(path: &Path) -> Option<String> {
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_NOFOLLOW)
        .open(path)
        .ok()?;
    let metadata = file.metadata().ok()?;
    if !metadata.is_file() || metadata.len() > MAX_CONFIG {
        return None;
    }
    let mut text = String::new();
    file.take(MAX_CONFIG).read_to_string(&mut text).ok()?;
    Some(text)
}

/// The config without credentials: a URL's user and password go (wherever a URL is written,
/// section names included), and so does every value whose key names a credential.
pub(crate) fn scrub(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for line in text.split_inclusive('\n') {
        let key = line
            .trim_start()
            .split(['=', ' ', '\t'])
            .next()
            .unwrap_or_default()
            .to_ascii_lowercase();
        let credential = [
            "extraheader",
            "token",
            "password",
            "passwd",
            "secret",
            "oauth",
        ]
        .iter()
        .any(|word| key.contains(word));
        if credential && !line.trim_start().starts_with('[') {
            continue;
        }
        out.push_str(&without_userinfo(line));
    }
    out
}

/// Removes the credentials of every URL in `line`: all user information of an HTTP(S) URL (a
/// token is often the user name), a password anywhere else (`ssh://git@host` keeps its user).
fn without_userinfo(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut rest = line;
    while let Some(at) = rest.find("://") {
        let (head, tail) = rest.split_at(at + 3);
        out.push_str(head);
        let scheme = head[..at]
            .rsplit(|c: char| !c.is_ascii_alphanumeric() && c != '+')
            .next()
            .unwrap_or_default()
            .to_ascii_lowercase();
        let authority_end = tail
            .find(|c: char| c == '/' || c == '"' || c.is_whitespace())
            .unwrap_or(tail.len());
        let authority = &tail[..authority_end];
        let kept = match authority.rsplit_once('@') {
            Some((user, host)) if scheme.starts_with("http") || user.contains(':') => host,
            _ => authority,
        };
        out.push_str(kept);
        rest = &tail[authority_end..];
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn credentials_leave_git_config_and_the_rest_stays() {
        let config = "[core]\n\trepositoryformatversion = 0\n\
            [remote \"origin\"]\n\turl = https://x-access-token:SECRET1@github.com/o/r.git\n\
            \tpushurl = https://SECRET2@gitlab.com/o/r\n\tfetch = +refs/heads/*:refs/remotes/origin/*\n\
            [http \"https://github.com/\"]\n\textraheader = AUTHORIZATION: basic SECRET3\n\
            [url \"https://SECRET4:x-oauth-basic@github.com/\"]\n\tinsteadOf = https://github.com/\n\
            [credential]\n\toauthRefreshToken = SECRET5\n\tPassword = SECRET6\n\
            [branch \"main\"]\n\tremote = origin\n";
        let clean = scrub(config);
        for secret in [
            "SECRET1", "SECRET2", "SECRET3", "SECRET4", "SECRET5", "SECRET6",
        ] {
            assert!(!clean.contains(secret), "{secret} in {clean}");
        }
        for kept in [
            "url = https://github.com/o/r.git",
            "pushurl = https://gitlab.com/o/r",
            "fetch = +refs/heads/*:refs/remotes/origin/*",
            "[url \"https://github.com/\"]",
            "[branch \"main\"]",
            "remote = origin",
        ] {
            assert!(clean.contains(kept), "{kept} missing from {clean}");
        }
    }

    #[test]
    fn a_config_without_credentials_is_left_as_it_is() {
        let config = "[core]\n\tbare = false\n[remote \"origin\"]\n\turl = git@github.com:o/r.git\n\
            [remote \"mirror\"]\n\turl = ssh://git@example.org/o/r.git\n";
        assert_eq!(scrub(config), config);
    }
}
