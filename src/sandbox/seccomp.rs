//! A seccomp filter over what Landlock and dropped capabilities do not govern.
//! - **Sockets.** Without network it refuses every socket but netlink's route family (no TCP,
//!   UDP, ICMP, raw or packet sockets): the network is closed on any kernel, not only where
//!   Landlock has network rules (6.7+), which stay as a second layer. With network (a package
//!   manager's fetch) only IP sockets open too. Either way it refuses UNIX sockets (and
//!   io_uring, which could make sockets behind seccomp's back): Landlock scopes abstract sockets
//!   only, and a socket file (`tmux -S`, ssh-agent, docker, gpg-agent) is reached by `connect`,
//!   which no file rule governs; and netlink protocols that reach other processes
//!   (`NETLINK_USERSOCK`). Socket pairs and pipes between a call's own processes still work.
//! - **User namespaces.** `unshare` and `clone` asking for one are refused (`clone3`, whose flags
//!   seccomp cannot see, answers ENOSYS so the C library falls back to `clone`).
//! - **Keyrings.** `keyctl`, `add_key` and `request_key` are refused: the session and user
//!   keyrings are shared with the machine (Kerberos tickets, disk keys), and `request_key` makes
//!   the kernel run `/sbin/request-key` as root, outside every sandbox.
//! - **Set-user-ID bits.** A mode with `S_ISUID` or `S_ISGID` is refused in `chmod`, `open`
//!   and their relatives, `mknod` too (and `openat2`, whose mode seccomp cannot see): a file owned by the user
//!   (or by root) and made setuid in temp would hand that identity to anyone, later, outside.
//!   `chmod` to a mode others may write is refused too (their write would run later as the
//!   user), and the call starts with a umask of `022`.
//!
//! A 32-bit system call from a 64-bit process kills it (seccompiler's architecture check), so
//! `socketcall` cannot go around the filter; an x32 call (same architecture on x86_64, bit 30 of
//! its number set) is refused by a filter of its own.

use std::collections::BTreeMap;

use seccompiler::{
    BpfProgram, SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter,
    SeccompRule,
};

/// Installs the filter on this process (inherited by what it execs). False when the kernel or
/// the architecture does not allow it.
pub(crate) fn restrict(network: bool) -> bool {
    program(network).is_some_and(|program| seccompiler::apply_filter(&program).is_ok())
        && clone3_program().is_some_and(|program| seccompiler::apply_filter(&program).is_ok())
        && seccompiler::apply_filter(&x32_program()).is_ok()
}

/// A third filter: on x86_64, system calls of the x32 ABI (numbers with bit 30 set) carry the
/// same architecture as 64-bit ones and would match none of the rules above; they are refused.
/// Elsewhere it allows everything.
fn x32_program() -> BpfProgram {
    use seccompiler::sock_filter;
    const LOAD: u16 = 0x20; // BPF_LD | BPF_W | BPF_ABS
    const JEQ: u16 = 0x15; // BPF_JMP | BPF_JEQ | BPF_K
    const JGE: u16 = 0x35; // BPF_JMP | BPF_JGE | BPF_K
    const RET: u16 = 0x06; // BPF_RET | BPF_K
    const AUDIT_ARCH_X86_64: u32 = 0xc000_003e;
    let step = |code, jt, jf, k| sock_filter { code, jt, jf, k };
    let refuse = libc::SECCOMP_RET_ERRNO | u32::try_from(libc::EPERM).unwrap_or(1);
    vec![
        step(LOAD, 0, 0, 4),                // the architecture
        step(JEQ, 0, 3, AUDIT_ARCH_X86_64), // not x86_64: allow
        step(LOAD, 0, 0, 0),                // the call number
        step(JGE, 0, 1, 0x4000_0000),       // an x32 call: refuse
        step(RET, 0, 0, refuse),
        step(RET, 0, 0, libc::SECCOMP_RET_ALLOW),
    ]
}

/// A condition on argument `arg`.
fn arg(arg: u8, op: SeccompCmpOp, value: i64) -> Option<SeccompCondition> {
    SeccompCondition::new(arg, SeccompCmpArgLen::Dword, op, u64::try_from(value).ok()?).ok()
}

/// Rules that match a mode argument (`at`) holding a set-user-ID or set-group-ID bit, and,
/// when `changed` (a mode set on an existing file: `chmod`), write permission for others.
fn setid_mode(at: u8, changed: bool) -> Option<Vec<SeccompRule>> {
    let mut bits = vec![i64::from(libc::S_ISUID), i64::from(libc::S_ISGID)];
    if changed {
        bits.push(i64::from(libc::S_IWOTH));
    }
    bits.iter()
        .map(|bit| {
            let mask = u64::try_from(*bit).ok()?;
            SeccompRule::new(vec![arg(at, SeccompCmpOp::MaskedEq(mask), *bit)?]).ok()
        })
        .collect()
}

fn socket_rules(network: bool) -> Option<Vec<SeccompRule>> {
    let open: &[i32] = if network {
        &[libc::AF_INET, libc::AF_INET6, libc::AF_NETLINK]
    } else {
        &[libc::AF_NETLINK]
    };
    // A rule matches (and refuses) when all its conditions hold: the domain is none of these.
    let other_domain = open
        .iter()
        .map(|domain| arg(0, SeccompCmpOp::Ne, i64::from(*domain)))
        .collect::<Option<Vec<_>>>()?;
    // Netlink, but not its route family (what `getaddrinfo` and `ip` use).
    let other_netlink = vec![
        arg(0, SeccompCmpOp::Eq, i64::from(libc::AF_NETLINK))?,
        arg(2, SeccompCmpOp::Ne, i64::from(libc::NETLINK_ROUTE))?,
    ];
    let mut rules = vec![
        SeccompRule::new(other_domain).ok()?,
        SeccompRule::new(other_netlink).ok()?,
    ];
    // IP sockets are plain TCP (which Landlock holds to the fetch ports) and UDP (name
    // lookups) only: no raw, packet-like or SCTP socket, and no MPTCP, which Landlock's TCP
    // rules do not see.
    for domain in [libc::AF_INET, libc::AF_INET6] {
        for kind in [
            libc::SOCK_RAW,
            libc::SOCK_RDM,
            libc::SOCK_SEQPACKET,
            libc::SOCK_DCCP,
            SOCK_PACKET,
        ] {
            rules.push(
                SeccompRule::new(vec![
                    arg(0, SeccompCmpOp::Eq, i64::from(domain))?,
                    arg(1, SeccompCmpOp::MaskedEq(0xf), i64::from(kind))?,
                ])
                .ok()?,
            );
        }
        let mut other_protocol = vec![arg(0, SeccompCmpOp::Eq, i64::from(domain))?];
        for protocol in [0, libc::IPPROTO_TCP, libc::IPPROTO_UDP] {
            other_protocol.push(arg(2, SeccompCmpOp::Ne, i64::from(protocol))?);
        }
        rules.push(SeccompRule::new(other_protocol).ok()?);
    }
    Some(rules)
}

/// The obsolete packet socket type (libc deprecates its name; the kernel still takes it).
const SOCK_PACKET: i32 = 10;

/// Rules that match flags (argument `at`) asking for a new user namespace: inside one, a
/// process regains every capability over what it owns, which is kernel surface a build never
/// needs.
fn new_user_namespace(at: u8) -> Option<Vec<SeccompRule>> {
    let flag = i64::from(libc::CLONE_NEWUSER);
    let mask = u64::try_from(flag).ok()?;
    Some(vec![
        SeccompRule::new(vec![arg(at, SeccompCmpOp::MaskedEq(mask), flag)?]).ok()?,
    ])
}

/// A second filter: `clone3`, whose flags sit in a structure seccomp cannot read, answers
/// ENOSYS, so the C library falls back to `clone`, whose flags the first filter sees.
fn clone3_program() -> Option<BpfProgram> {
    let arch = std::env::consts::ARCH.try_into().ok()?;
    let rules: BTreeMap<i64, Vec<SeccompRule>> = [(libc::SYS_clone3, Vec::new())].into();
    let filter = SeccompFilter::new(
        rules,
        SeccompAction::Allow,
        SeccompAction::Errno(u32::try_from(libc::ENOSYS).ok()?),
        arch,
    )
    .ok()?;
    filter.try_into().ok()
}

fn program(network: bool) -> Option<BpfProgram> {
    let arch = std::env::consts::ARCH.try_into().ok()?;
    let mut rules: BTreeMap<i64, Vec<SeccompRule>> = BTreeMap::new();
    rules.insert(libc::SYS_socket, socket_rules(network)?);
    rules.insert(libc::SYS_unshare, new_user_namespace(0)?);
    rules.insert(libc::SYS_clone, new_user_namespace(0)?);
    for always in [
        libc::SYS_io_uring_setup,
        libc::SYS_keyctl,
        libc::SYS_add_key,
        libc::SYS_request_key,
        libc::SYS_openat2,
    ] {
        rules.insert(always, Vec::new());
    }
    let mut modes = vec![
        (libc::SYS_fchmod, 1),
        (libc::SYS_fchmodat, 2),
        (libc::SYS_fchmodat2, 2),
        (libc::SYS_openat, 3),
        (libc::SYS_mknodat, 2),
    ];
    #[cfg(target_arch = "x86_64")]
    modes.extend([
        (libc::SYS_chmod, 1),
        (libc::SYS_open, 2),
        (libc::SYS_creat, 1),
        (libc::SYS_mknod, 1),
    ]);
    // `chmod 0666 Makefile`: any other user of the machine could then rewrite what the user's
    // next `make` runs, after every check ai makes (sandbox round 27). Files are still made
    // with the usual `0666` (the umask takes the bit off).
    let chmods = [libc::SYS_fchmod, libc::SYS_fchmodat, libc::SYS_fchmodat2];
    for (call, at) in modes {
        #[cfg(target_arch = "x86_64")]
        let changed = chmods.contains(&call) || call == libc::SYS_chmod;
        #[cfg(not(target_arch = "x86_64"))]
        let changed = chmods.contains(&call);
        rules.insert(call, setid_mode(at, changed)?);
    }
    let filter = SeccompFilter::new(
        rules,
        SeccompAction::Allow,
        SeccompAction::Errno(u32::try_from(libc::EPERM).ok()?),
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
        assert!(super::clone3_program().is_some());
    }
}
