//! Git's configuration without its credentials. A clone's `.git/config` often carries a token
//! (`https://x-access-token:TOKEN@host/...` in a remote URL, CI checkouts' `http.extraheader`
//! with a basic-auth header); git inside the sandbox still needs the rest of the file. Stage one
//! of the launcher writes a scrubbed copy into a tmpfs of its own mount namespace, binds it
//! read-only over the original, and detaches the tmpfs: the copy is reachable only where the
//! original was, and nothing is left behind when the call ends.

use std::path::{Path, PathBuf};

use rustix::mount::{MountFlags, UnmountFlags};

use crate::config::read_small;

/// The largest config read (a bigger one is hidden whole rather than read).
const MAX_CONFIG: u64 = 1 << 20;

/// Where the copies are staged before they are bound: a directory that stage one covers with
/// its own tmpfs next anyway (`mounts::private_shm`).
const STAGE: &str = "/dev/shm";

/// How deep below a git directory its own git directories are looked for (submodules of
/// submodules: `.git/modules/a/modules/b`; worktrees: `.git/worktrees/w`).
const NESTED_DEPTH: usize = 8;

/// Git configuration files of the project's git directories, and of the git directories they
/// hold: a submodule's under `.git/modules` (checked out or not), a worktree's.
pub(crate) fn git_configs(git_dirs: &[PathBuf]) -> Vec<PathBuf> {
    let mut dirs = Vec::new();
    for dir in git_dirs.iter().filter(|d| d.join("HEAD").is_file()) {
        git_dirs_in(dir, NESTED_DEPTH, &mut dirs);
    }
    let mut configs: Vec<PathBuf> = dirs
        .iter()
        .flat_map(|dir| ["config", "config.worktree"].map(|name| dir.join(name)))
        .filter(|path| path.symlink_metadata().is_ok())
        .collect();
    configs.sort();
    configs.dedup();
    configs
}

/// Secrets git keeps inside its own directories: git-crypt's keys (they decrypt every
/// encrypted file of the history), git-annex's remote credentials, a credential store kept
/// there, and the file a `credential.helper store --file=...` names. They are masked like a
/// project's `.env`.
pub(crate) fn git_secret_files(git_dirs: &[PathBuf]) -> Vec<PathBuf> {
    let mut secrets = Vec::new();
    let mut dirs = Vec::new();
    for dir in git_dirs.iter().filter(|d| d.join("HEAD").is_file()) {
        git_dirs_in(dir, NESTED_DEPTH, &mut dirs);
    }
    for dir in &dirs {
        for holder in ["git-crypt", "annex/creds"] {
            files_below(&dir.join(holder), NESTED_DEPTH, &mut secrets);
        }
        if let Ok(entries) = std::fs::read_dir(dir) {
            for entry in entries.flatten() {
                let is_file = entry.file_type().is_ok_and(|t| !t.is_dir());
                if is_file && crate::config::secret_in_tree(Path::new(&entry.file_name())).is_some()
                {
                    secrets.push(entry.path());
                }
            }
        }
        if let Some(config) = read_small(&dir.join("config"), MAX_CONFIG) {
            secrets.extend(store_files(&config, dir));
        }
    }
    secrets.sort();
    secrets.dedup();
    secrets
}

/// A git directory and the ones it holds (submodules', worktrees').
fn git_dirs_in(dir: &Path, depth: usize, dirs: &mut Vec<PathBuf>) {
    dirs.push(dir.to_path_buf());
    if depth == 0 {
        return;
    }
    for holder in ["modules", "worktrees"] {
        let Ok(entries) = std::fs::read_dir(dir.join(holder)) else {
            continue;
        };
        for entry in entries.flatten() {
            if entry.file_type().is_ok_and(|t| t.is_dir()) {
                git_dirs_in(&entry.path(), depth - 1, dirs);
            }
        }
    }
}

/// Every file below `dir` (links included, as names), to `depth` levels.
fn files_below(dir: &Path, depth: usize, files: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        match entry.file_type() {
            Ok(t) if t.is_dir() && depth > 0 => files_below(&entry.path(), depth - 1, files),
            Ok(t) if !t.is_dir() => files.push(entry.path()),
            _ => {}
        }
    }
}

/// The files `credential.helper store --file=PATH` (or `--file PATH`) names in `config`.
fn store_files(config: &str, git_dir: &Path) -> Vec<PathBuf> {
    let work_tree = git_dir.parent().unwrap_or(git_dir);
    config
        .lines()
        .filter(|line| line.contains("store") && line.contains("--file"))
        .filter_map(|line| {
            let after = line.split("--file").nth(1)?;
            let path = after
                .trim_start_matches(['=', ' ', '\t'])
                .split([' ', '\t', '"'])
                .next()
                .filter(|p| !p.is_empty())?;
            let path = Path::new(path);
            Some(if path.is_absolute() {
                path.to_path_buf()
            } else {
                work_tree.join(path)
            })
        })
        .collect()
}

/// Binds a scrubbed copy over each config of `configs` that holds a credential (read-only).
/// Returns the configs that could not be read or covered: the caller hides those whole.
pub(crate) fn cover_credentials(configs: &[PathBuf]) -> Vec<PathBuf> {
    let mut failed = Vec::new();
    let mut copies = Vec::new();
    for config in configs {
        match read_small(config, MAX_CONFIG) {
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

/// The config without credentials: a URL's user and password go (wherever a URL is written,
/// section names included), and so does every value whose key names a credential.
pub(crate) fn scrub(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for line in logical_lines(text) {
        // `[http] extraheader = ...`: a section header and a setting on one line.
        let (header, setting) = match line.trim_start().strip_prefix('[') {
            Some(rest) => match rest.split_once(']') {
                Some((inside, after)) => (format!("[{inside}]"), after.to_string()),
                None => (String::new(), line.clone()),
            },
            None => (String::new(), line.clone()),
        };
        out.push_str(&without_userinfo(&header));
        if !names_a_credential(&setting) {
            out.push_str(&without_userinfo(&setting));
        } else if !header.is_empty() {
            out.push('\n');
        }
    }
    out
}

/// Whether a `key = value` line sets a credential (by its key's name).
fn names_a_credential(setting: &str) -> bool {
    let key = setting
        .trim_start()
        .split(['=', ' ', '\t'])
        .next()
        .unwrap_or_default()
        .to_ascii_lowercase();
    // `helper`: a credential helper can be a shell function that prints the password itself.
    [
        "extraheader",
        "token",
        "password",
        "passwd",
        "secret",
        "oauth",
        "auth",
        "cookie",
        "helper",
    ]
    .iter()
    .any(|word| key.contains(word))
}

/// The file's lines as git reads them: a line ending in a backslash goes on on the next one
/// (so a URL split over two lines is one URL). Each keeps its line end.
fn logical_lines(text: &str) -> Vec<String> {
    let mut lines = Vec::new();
    let mut current = String::new();
    for line in text.split_inclusive('\n') {
        let body = line.trim_end_matches(['\n', '\r']);
        match body.strip_suffix('\\') {
            Some(joined) => current.push_str(joined),
            None => {
                current.push_str(line);
                lines.push(std::mem::take(&mut current));
            }
        }
    }
    if !current.is_empty() {
        lines.push(current);
    }
    lines
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
            Some((user, host)) if scheme.contains("http") || user.contains(':') => host,
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
    fn credentials_by_other_spellings_leave_too() {
        let config = "[remote \"origin\"]\n\turl = https://x-access-token:\\\nghp_SPLIT@github.com/o/r\n\
            [http] extraheader = AUTHORIZATION: basic SAMELINE\n\
            [remote \"dep\"]\n\turl = git+https://PLUSTOKEN@github.com/o/d\n\
            [http \"https://x/\"]\n\tcookieFile = /tmp/COOKIE\n\tsslKeyPasswordProtected = true\n";
        let clean = scrub(config);
        for secret in ["ghp_SPLIT", "SAMELINE", "PLUSTOKEN", "COOKIE"] {
            assert!(!clean.contains(secret), "{secret} in {clean}");
        }
        assert!(clean.contains("url = https://github.com/o/r"), "{clean}");
        assert!(clean.contains("[http]"), "{clean}");
    }

    #[test]
    fn a_submodules_config_is_found_whether_or_not_it_is_checked_out() {
        let dir = tempfile::tempdir().unwrap();
        let git = dir.path().join(".git");
        for sub in ["", "modules/a", "modules/a/modules/b", "worktrees/w"] {
            std::fs::create_dir_all(git.join(sub)).unwrap();
            std::fs::write(git.join(sub).join("HEAD"), "ref: refs/heads/main\n").unwrap();
            std::fs::write(git.join(sub).join("config"), "[core]\n").unwrap();
        }
        let found = git_configs(std::slice::from_ref(&git));
        for sub in [
            "config",
            "modules/a/config",
            "modules/a/modules/b/config",
            "worktrees/w/config",
        ] {
            assert!(found.contains(&git.join(sub)), "{sub}: {found:?}");
        }
    }

    #[test]
    fn a_config_without_credentials_is_left_as_it_is() {
        let config = "[core]\n\tbare = false\n[remote \"origin\"]\n\turl = git@github.com:o/r.git\n\
            [remote \"mirror\"]\n\turl = ssh://git@example.org/o/r.git\n";
        assert_eq!(scrub(config), config);
    }
}
