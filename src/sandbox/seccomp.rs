//! A seccomp filter over the sockets a sandboxed call may open. Without network it refuses every
//! socket but netlink (no TCP, UDP, ICMP, raw or packet sockets): the network is closed on any
//! kernel, not only where Landlock has network rules (6.7+), which stay as a second layer. With
//! network (a package manager's fetch) only IP and netlink sockets open. Either way it refuses
//! new UNIX sockets (and io_uring, which could make sockets behind seccomp's back): Landlock
//! scopes abstract sockets only, and a socket file (`tmux -S`, ssh-agent, docker, gpg-agent) is
//! reached by `connect`, which no file rule governs. Socket pairs and pipes between a call's own
//! processes still work. A 32-bit system call from a 64-bit process kills it (seccompiler's
//! architecture check), so `socketcall` cannot go around the filter.

use seccompiler::{
    BpfProgram, SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter,
    SeccompRule,
};

/// Installs the filter on this process (inherited by what it execs). False when the kernel or
/// the architecture does not allow it.
pub fn restrict_sockets(network: bool) -> bool {
    program(network).is_some_and(|program| seccompiler::apply_filter(&program).is_ok())
}

/// A condition on the first argument of `socket` (the domain): it is not `domain`.
fn domain_is_not(domain: i32) -> Option<SeccompCondition> {
    SeccompCondition::new(
        0,
        SeccompCmpArgLen::Dword,
        SeccompCmpOp::Ne,
        u64::try_from(domain).ok()?,
    )
    .ok()
}

fn program(network: bool) -> Option<BpfProgram> {
    let arch = std::env::consts::ARCH.try_into().ok()?;
    // A rule matches (and refuses) when all its conditions hold: the domain is none of these.
    let open: &[i32] = if network {
        &[libc::AF_INET, libc::AF_INET6, libc::AF_NETLINK]
    } else {
        &[libc::AF_NETLINK]
    };
    let conditions = open
        .iter()
        .map(|domain| domain_is_not(*domain))
        .collect::<Option<Vec<_>>>()?;
    let rules = [
        (libc::SYS_socket, vec![SeccompRule::new(conditions).ok()?]),
        (libc::SYS_io_uring_setup, Vec::new()),
    ];
    let filter = SeccompFilter::new(
        rules.into_iter().collect(),
        SeccompAction::Allow,
        SeccompAction::Errno(u32::try_from(libc::EACCES).ok()?),
        arch,
    )
    .ok()?;
    filter.try_into().ok()
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_filter_compiles_for_this_architecture() {
        assert!(super::program(true).is_some());
        assert!(super::program(false).is_some());
    }
}
