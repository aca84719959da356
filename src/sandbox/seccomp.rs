//! A seccomp filter that refuses new UNIX sockets (and io_uring, which could make them behind
//! seccomp's back). Landlock scopes abstract sockets only; a socket file (`tmux -S`, the
//! default tmux and screen sockets, ssh-agent, docker, gpg-agent) is reached by `connect`, which
//! no file rule governs. Socket pairs and pipes between a call's own processes still work.

use seccompiler::{
    BpfProgram, SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter,
    SeccompRule,
};

/// Installs the filter on this process (inherited by what it execs). False when the kernel or
/// the architecture does not allow it.
pub fn refuse_unix_sockets() -> bool {
    program().is_some_and(|program| seccompiler::apply_filter(&program).is_ok())
}

fn program() -> Option<BpfProgram> {
    let arch = std::env::consts::ARCH.try_into().ok()?;
    let unix = SeccompCondition::new(
        0,
        SeccompCmpArgLen::Dword,
        SeccompCmpOp::Eq,
        u64::try_from(libc::AF_UNIX).ok()?,
    )
    .ok()?;
    let rules = [
        (libc::SYS_socket, vec![SeccompRule::new(vec![unix]).ok()?]),
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
        assert!(super::program().is_some());
    }
}
