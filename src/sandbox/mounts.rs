//! A private mount namespace for stage two, where the kernel allows one: every mount read-only
//! except bind mounts of the writable paths. Landlock does not govern metadata (`chmod`,
//! `chown`, `touch -d` on a file outside), a read-only mount does. Also a fresh /proc for the
//! call's PID namespace, so other processes are not even listed. Nothing here may reach the
//! mounts of the machine: propagation is made private first, or nothing is done.

use std::path::{Path, PathBuf};

use rustix::mount::{MountFlags, MountPropagationFlags};

/// Enters a new mount namespace with private propagation; false when not allowed.
pub(crate) fn enter() -> bool {
    if !unshare_mounts() {
        return false;
    }
    rustix::mount::mount_change(
        "/",
        MountPropagationFlags::REC | MountPropagationFlags::PRIVATE,
    )
    .is_ok()
}

#[allow(unsafe_code)]
fn unshare_mounts() -> bool {
    // SAFETY: CLONE_NEWNS does not touch the file table (only CLONE_FILES makes unshare unsafe).
    unsafe { rustix::thread::unshare_unsafe(rustix::thread::UnshareFlags::NEWNS) }.is_ok()
}

/// Mounts a fresh /proc (in the PID namespace of this process); best effort.
pub(crate) fn own_proc(pid_namespace: bool) -> bool {
    pid_namespace
        && rustix::mount::mount(
            "proc",
            "/proc",
            "proc",
            MountFlags::NOSUID | MountFlags::NODEV | MountFlags::NOEXEC,
            None,
        )
        .is_ok()
}

/// Whether /proc is the PID namespace's own: there this process (stage two, its init) is 1.
pub(crate) fn proc_is_own() -> bool {
    std::fs::read_link("/proc/self").is_ok_and(|p| p == Path::new("1"))
}

/// Has stage two's process mount a fresh /proc between fork and exec, while it still holds the
/// capabilities of the user namespace stage one made: without privilege they are gone once it
/// execs, and the machine's /proc (every process's command line) would stay in view (sandbox
/// round 30). Only system calls on static strings happen there.
#[allow(unsafe_code)]
pub(crate) fn proc_before_exec(command: &mut std::process::Command) {
    use std::os::unix::process::CommandExt;
    let mount = || {
        let flags = MountFlags::NOSUID | MountFlags::NODEV | MountFlags::NOEXEC;
        let _ = rustix::mount::mount(c"proc", c"/proc", c"proc", flags, None);
        Ok(())
    };
    // SAFETY: the closure only makes one `mount` system call on static C strings: nothing that
    // allocates, locks or touches the parent's state between fork and exec.
    unsafe {
        command.pre_exec(mount);
    }
}

/// Bind-mounts each writable path onto itself, then remounts every other mount read-only
/// (/proc aside).
/// True when every remount took.
pub(crate) fn read_only_except(writable: &[PathBuf]) -> bool {
    let mut binds: Vec<&Path> = Vec::new();
    for path in writable {
        if rustix::mount::mount_bind(path.as_path(), path.as_path()).is_ok() {
            binds.push(path);
        }
    }
    let Ok(table) = std::fs::read_to_string("/proc/self/mountinfo") else {
        return false;
    };
    let mut all = true;
    for (point, options) in table.lines().filter_map(mount_point) {
        let point = Path::new(&point);
        // /proc stays writable for stage two's pid_max; Landlock grants nothing but reads there.
        let skip = binds.iter().any(|b| point.starts_with(b)) || point.starts_with("/proc");
        if skip || options.contains(&"ro") {
            continue;
        }
        let mut flags = MountFlags::BIND | MountFlags::RDONLY;
        for (name, flag) in [
            ("nosuid", MountFlags::NOSUID),
            ("nodev", MountFlags::NODEV),
            ("noexec", MountFlags::NOEXEC),
            ("noatime", MountFlags::NOATIME),
            ("nodiratime", MountFlags::NODIRATIME),
            ("relatime", MountFlags::RELATIME),
        ] {
            if options.contains(&name) {
                flags |= flag;
            }
        }
        all &= rustix::mount::mount_remount(point, flags, "").is_ok();
    }
    all
}

/// Puts each session directory over its temp directory (a bind mount): the call sees and writes
/// the session's own temp only. Best effort: where one fails, that temp stays as it is, which
/// the Landlock grants still confine.
pub(crate) fn cover(covers: &[(PathBuf, PathBuf)]) {
    for (temp, session) in covers {
        let _ = rustix::mount::mount_bind(session.as_path(), temp.as_path());
    }
}

/// A fresh, small tmpfs on /dev/shm: shared memory and POSIX semaphores work, but nothing is
/// shared with the machine's /dev/shm (or left there after the call).
pub(crate) fn private_shm() -> bool {
    let flags = MountFlags::NOSUID | MountFlags::NODEV | MountFlags::NOEXEC;
    rustix::mount::mount("tmpfs", "/dev/shm", "tmpfs", flags, c"size=64m,mode=1777").is_ok()
}

/// Pins every directory between a writable root and each of `paths` in place: each becomes a
/// mount point (a writable bind onto itself), which cannot be renamed or removed. Without
/// this, renaming a protected path's parent (`mv vendor vendor.old`) would carry the protection
/// away and free the path for a planted `.git`, hooks directory or unmasked secret. True when
/// every pin took.
pub(crate) fn pin_parents(paths: &[PathBuf], roots: &[PathBuf]) -> bool {
    let mut parents: Vec<&Path> = Vec::new();
    for path in paths {
        let Some(root) = roots.iter().find(|r| path.starts_with(r)) else {
            continue;
        };
        let between = path.ancestors().skip(1);
        parents.extend(between.take_while(|p| *p != root.as_path() && p.starts_with(root)));
    }
    // Outermost first: a bind of a directory onto itself does not carry the mounts already
    // below it, so an inner pin made first would be hidden by its parent's.
    parents.sort_by_key(|p| (p.components().count(), *p));
    parents.dedup();
    // Every pin is tried, even after one fails.
    let failed = parents
        .iter()
        .filter(|parent| rustix::mount::mount_bind(**parent, **parent).is_err())
        .count();
    failed == 0
}

/// Covers each secret file of `paths` with an empty, read-only one (`/dev/null`): reading it
/// gives nothing, and it can be neither written, renamed nor removed. True when every mask took.
pub(crate) fn mask(paths: &[PathBuf]) -> bool {
    let mut all = true;
    for path in paths.iter().filter(|p| p.is_file()) {
        all &= rustix::mount::mount_bind("/dev/null", path.as_path()).is_ok()
            && rustix::mount::mount_remount(
                path.as_path(),
                MountFlags::BIND | MountFlags::RDONLY,
                "",
            )
            .is_ok();
    }
    all
}

/// Makes each of `paths` read-only by a bind mount onto itself (git's directories and hooks:
/// what is written there runs later, outside ai). A missing hooks directory is made first, so
/// it cannot be made during the call. True when every protection took.
pub(crate) fn read_only(paths: &[PathBuf]) -> bool {
    let mut all = true;
    for path in paths {
        if !path.exists() && path.file_name().is_some_and(|n| n != ".git") {
            let _ = std::fs::create_dir_all(path);
        }
        if !path.exists() {
            continue;
        }
        all &= rustix::mount::mount_bind(path.as_path(), path.as_path()).is_ok()
            && rustix::mount::mount_remount(
                path.as_path(),
                MountFlags::BIND | MountFlags::RDONLY,
                "",
            )
            .is_ok();
    }
    all
}

/// Which of `paths` are mount points now, read from `table` (this process's
/// `/proc/self/mountinfo`, opened while /proc was still the machine's: the call mounts its own
/// over it, which names no process of ours once the call is over). `None` when it cannot be read.
pub(crate) fn points_among(table: &mut std::fs::File, paths: &[PathBuf]) -> Option<Vec<PathBuf>> {
    use std::io::{Read, Seek};
    let mut text = String::new();
    table.rewind().ok()?;
    table.read_to_string(&mut text).ok()?;
    let table = text;
    let points: Vec<String> = table
        .lines()
        .filter_map(mount_point)
        .map(|(point, _)| point)
        .collect();
    let among = paths
        .iter()
        .filter(|path| points.iter().any(|p| Path::new(p) == path.as_path()))
        .cloned()
        .collect();
    Some(among)
}

/// The mount point and per-mount options of a /proc/self/mountinfo line (octal escapes
/// decoded: a space in a path is `\040`).
fn mount_point(line: &str) -> Option<(String, Vec<&str>)> {
    let mut fields = line.split(' ');
    let point = fields.nth(4)?;
    let options = fields.next()?.split(',').collect();
    Some((unescape(point), options))
}

fn unescape(text: &str) -> String {
    let mut out = Vec::new();
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let octal = bytes
            .get(i + 1..i + 4)
            .and_then(|d| std::str::from_utf8(d).ok())
            .and_then(|d| u8::from_str_radix(d, 8).ok());
        match (bytes[i], octal) {
            (b'\\', Some(byte)) => {
                out.push(byte);
                i += 4;
            }
            (byte, _) => {
                out.push(byte);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mountinfo_lines_give_the_point_and_its_options() {
        let line = "36 35 98:0 /mnt1 /mnt/my\\040disk rw,noatime master:1 - ext3 /dev/root rw";
        let (point, options) = mount_point(line).unwrap();
        assert_eq!(point, "/mnt/my disk");
        assert_eq!(options, vec!["rw", "noatime"]);
    }
}
