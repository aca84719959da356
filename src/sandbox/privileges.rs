//! No privileges inside: whatever runs in the sandbox holds no capability, even when `ai` runs as
//! root (the bounding set emptied, so no later exec regains any; the ambient, effective,
//! permitted and inheritable sets emptied), and `no_new_privs` is set, so a setuid program gains
//! nothing. Without this, root inside the sandbox could open raw sockets, load kernel modules,
//! make device nodes or undo the mounts. And nothing `ai` was started with reaches the program:
//! every inherited descriptor but stdin, stdout and stderr is closed at exec (a descriptor
//! opened before Landlock, on `~/.bashrc` or a socket, would carry around every rule).

use rustix::thread::{CapabilitySet, CapabilitySets};

/// Drops every capability of this process for good. True when none is left.
pub(crate) fn drop_all() -> bool {
    let _ = rustix::thread::set_no_new_privs(true);
    for bit in 0..64u32 {
        let Some(capability) = CapabilitySet::from_bits(1u64 << bit) else {
            continue;
        };
        // Fails for numbers the kernel does not know (EINVAL) and without CAP_SETPCAP, where
        // the bounding set cannot matter: the permitted set below is emptied either way.
        let _ = rustix::thread::remove_capability_from_bounding_set(capability);
    }
    let _ = rustix::thread::clear_ambient_capability_set();
    let none = CapabilitySets {
        effective: CapabilitySet::empty(),
        permitted: CapabilitySet::empty(),
        inheritable: CapabilitySet::empty(),
    };
    rustix::thread::set_capabilities(None, none).is_ok()
        && rustix::thread::capabilities(None).is_ok_and(|sets| {
            sets.effective.is_empty() && sets.permitted.is_empty() && sets.inheritable.is_empty()
        })
        && rustix::thread::no_new_privs().unwrap_or(false)
}

/// Marks every descriptor above stderr close-on-exec, so the program starts with 0, 1 and 2
/// only. True when the kernel did it.
#[allow(unsafe_code)]
pub(crate) fn close_inherited() -> bool {
    // SAFETY: close_range with CLOSE_RANGE_CLOEXEC closes nothing now; it only sets a flag on
    // descriptors of this single-threaded launcher, whose own descriptors it never uses after
    // exec.
    unsafe {
        libc::close_range(
            3,
            libc::c_uint::MAX,
            libc::CLOSE_RANGE_CLOEXEC as libc::c_int,
        ) == 0
    }
}
