//! No privileges inside: whatever runs in the sandbox holds no capability, even when `ai` runs as
//! root (the bounding set emptied, so no later exec regains any; the ambient, effective,
//! permitted and inheritable sets emptied), and `no_new_privs` is set, so a setuid program gains
//! nothing. Without this, root inside the sandbox could open raw sockets, load kernel modules,
//! make device nodes or undo the mounts.

use rustix::thread::{CapabilitySet, CapabilitySets};

/// Drops every capability of this process for good. True when none is left.
pub fn drop_all() -> bool {
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
