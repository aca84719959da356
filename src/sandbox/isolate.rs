//! Process containment for the launcher: a PID namespace where the kernel allows one (as root,
//! or through an unprivileged user namespace), else a subreaper that kills what is left; and the
//! resource limits of a call.

use rustix::process::{Resource, Rlimit, Signal};

use super::request::Request;

/// Gives this process (and what it starts) its own System V IPC objects and POSIX message
/// queues: a queue or shared memory segment of the machine's is out of reach. False when not
/// allowed.
pub(crate) fn new_ipc_namespace() -> bool {
    unshare(rustix::thread::UnshareFlags::NEWIPC)
}

/// Gives this process (and what it starts) a network namespace of its own, with nothing in it:
/// for a call without network, a third wall behind seccomp and Landlock, and the machine's
/// sockets and listeners are not even listed in /proc/net. False when not allowed.
pub(crate) fn new_net_namespace() -> bool {
    unshare(rustix::thread::UnshareFlags::NEWNET)
}

/// Moves this process's future children into a new PID namespace: the first becomes its init,
/// and when it exits the kernel kills every process left in it. False when not allowed.
pub(crate) fn new_pid_namespace() -> bool {
    use rustix::thread::UnshareFlags;
    if unshare(UnshareFlags::NEWPID) {
        return true;
    }
    // Without privilege: a user namespace owning the PID namespace, mapping us to ourselves.
    let (uid, gid) = (rustix::process::getuid(), rustix::process::getgid());
    if !unshare(UnshareFlags::NEWUSER | UnshareFlags::NEWPID) {
        return false;
    }
    let writes = [
        ("/proc/self/setgroups", "deny".to_string()),
        ("/proc/self/uid_map", format!("{0} {0} 1", uid.as_raw())),
        ("/proc/self/gid_map", format!("{0} {0} 1", gid.as_raw())),
    ];
    // A user namespace without maps still isolates; failing to write them only loses names.
    for (path, text) in writes {
        let _ = std::fs::write(path, text);
    }
    true
}

#[allow(unsafe_code)]
fn unshare(flags: rustix::thread::UnshareFlags) -> bool {
    // SAFETY: the flags never include CLONE_FILES (the only unsafe one: it would split the file
    // table under other threads), and the launcher is single-threaded here anyway.
    unsafe { rustix::thread::unshare_unsafe(flags) }.is_ok()
}

/// As a subreaper: kills the processes adopted from the call (daemons, `setsid` children) until
/// none is left, reaping each.
pub(crate) fn kill_descendants() {
    let me = rustix::process::getpid().as_raw_nonzero().get();
    for _ in 0..100 {
        let children = children_of(me);
        if children.is_empty() {
            return;
        }
        for pid in children {
            if let Some(pid) = rustix::process::Pid::from_raw(pid) {
                let _ = rustix::process::kill_process(pid, Signal::KILL);
            }
        }
        while let Ok(Some(_)) = rustix::process::wait(rustix::process::WaitOptions::NOHANG) {}
        std::thread::sleep(std::time::Duration::from_millis(10));
        while let Ok(Some(_)) = rustix::process::wait(rustix::process::WaitOptions::NOHANG) {}
    }
}

/// Makes `ai` the reaper of what its sandboxed calls leave: where a launcher has no PID
/// namespace and is killed (a timeout, Ctrl-C) before its own subreaper could act, the call's
/// processes come to `ai` instead of to init, and `kill_sandboxed_orphans` ends them.
pub(crate) fn adopt_orphans() {
    let _ = rustix::process::set_child_subreaper(Some(rustix::process::getpid()));
}

/// Kills (and reaps) the children of this process that run under a seccomp filter: processes
/// of a sandboxed call adopted after its launcher died. ai's own children (the launcher, MCP
/// servers) have no filter and are left alone.
pub(crate) fn kill_sandboxed_orphans() {
    let me = rustix::process::getpid().as_raw_nonzero().get();
    for _ in 0..10 {
        let orphans: Vec<i32> = children_of(me)
            .into_iter()
            .filter(|pid| filtered(*pid))
            .collect();
        if orphans.is_empty() {
            return;
        }
        for pid in orphans {
            if let Some(pid) = rustix::process::Pid::from_raw(pid) {
                let _ = rustix::process::kill_process(pid, Signal::KILL);
                let _ = rustix::process::waitpid(Some(pid), rustix::process::WaitOptions::empty());
            }
        }
    }
}

/// Whether process `pid` runs under a seccomp filter (as every sandboxed process does).
fn filtered(pid: i32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/status")).is_ok_and(|status| {
        status
            .lines()
            .any(|line| line.starts_with("Seccomp:") && line.trim_end().ends_with('2'))
    })
}

/// Pids whose parent is `parent`, from /proc.
fn children_of(parent: i32) -> Vec<i32> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<i32>().ok())
        .filter(|pid| {
            std::fs::read_to_string(format!("/proc/{pid}/stat"))
                .ok()
                .and_then(|stat| {
                    // The parent is the second field after the parenthesised command name.
                    let rest = stat.rsplit_once(')')?.1;
                    rest.split_whitespace().nth(1)?.parse::<i32>().ok()
                })
                == Some(parent)
        })
        .collect()
}

/// The limits that took effect.
#[derive(Debug, Default)]
pub(crate) struct Limits {
    pub(crate) processes: Option<u64>,
    pub(crate) file_size: Option<u64>,
}

/// Sets the file size limit, no core dumps, and a bound on processes: the PID namespace's own
/// `pid_max` (kernel 6.14+, as its init) where it can, else RLIMIT_NPROC, which counts all of
/// the user's processes and is ignored for root.
pub(crate) fn set_limits(request: &Request) -> Limits {
    let mut limits = Limits::default();
    let _ = rustix::process::setrlimit(
        Resource::Core,
        Rlimit {
            current: Some(0),
            maximum: Some(0),
        },
    );
    if let Some(bytes) = request.max_file_size {
        let limit = Rlimit {
            current: Some(bytes),
            maximum: Some(bytes),
        };
        if rustix::process::setrlimit(Resource::Fsize, limit).is_ok() {
            limits.file_size = Some(bytes);
        }
    }
    if let Some(count) = request.max_processes {
        limits.processes = bound_processes(request.pid_namespace, count);
    }
    limits
}

fn bound_processes(pid_namespace: bool, count: u64) -> Option<u64> {
    // The kernel's floor for pid_max is 301; pids 1..pid_max-1 can exist at once.
    let pid_max = count.max(300) + 1;
    // Before 6.14 pid_max was global: writing it would limit the whole machine.
    if pid_namespace
        && kernel_at_least(6, 14)
        && rustix::process::getpid().as_raw_nonzero().get() == 1
        && std::fs::write("/proc/sys/kernel/pid_max", pid_max.to_string()).is_ok()
        && std::fs::read_to_string("/proc/sys/kernel/pid_max")
            .is_ok_and(|t| t.trim() == pid_max.to_string())
    {
        return Some(pid_max - 1);
    }
    if rustix::process::getuid().is_root() {
        return None;
    }
    let limit = Rlimit {
        current: Some(count),
        maximum: Some(count),
    };
    rustix::process::setrlimit(Resource::Nproc, limit)
        .is_ok()
        .then_some(count)
}

/// Whether the running kernel's version is at least `major.minor`.
fn kernel_at_least(major: u32, minor: u32) -> bool {
    let Ok(release) = std::fs::read_to_string("/proc/sys/kernel/osrelease") else {
        return false;
    };
    let mut parts = release
        .split(|c: char| !c.is_ascii_digit())
        .filter_map(|p| p.parse::<u32>().ok());
    match (parts.next(), parts.next()) {
        (Some(a), Some(b)) => (a, b) >= (major, minor),
        _ => false,
    }
}

/// The machine's pid_max as seen from stage one, to check that a call did not change it.
pub(crate) fn global_pid_max() -> Option<String> {
    std::fs::read_to_string("/proc/sys/kernel/pid_max").ok()
}

/// Puts the machine's pid_max back if a kernel applied the call's value globally after all.
pub(crate) fn restore_pid_max(before: Option<String>) {
    if let Some(before) = before
        && global_pid_max().is_some_and(|now| now != before)
    {
        let _ = std::fs::write("/proc/sys/kernel/pid_max", before.trim());
    }
}
