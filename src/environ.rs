//! Keeps the keys `ai` was started with from the commands it runs. Removing them from a child's
//! environment is not enough: a command running as the same user can read `ai`'s own
//! `/proc/<pid>/environ` (`ps eww`, a script globbing `/proc/*/environ`), which shows the
//! environment block `ai` was started with whatever it changed since. So, once the environment
//! is read into the snapshot, the values of the key variables are wiped in that block, and the
//! process is made non-dumpable (its `/proc` files then belong to root, and no core dump holds a
//! key).

use std::ffi::CStr;

/// Wipes the values of `names` in this process's environment block and makes it non-dumpable.
/// Call it once, first thing, while this is the only thread: it writes to the environment.
pub(crate) fn protect(names: &[&str]) {
    // Best effort: a kernel that refuses leaves the wiped block as the protection.
    let _ = rustix::process::set_dumpable_behavior(rustix::process::DumpableBehavior::NotDumpable);
    wipe(names);
}

/// Overwrites with NUL bytes the value of each `NAME=value` string of the environment whose
/// name is in `names`; the variable reads as empty afterwards.
#[allow(unsafe_code)]
fn wipe(names: &[&str]) {
    // SAFETY: `environ` is the C runtime's NULL-terminated array of pointers to NUL-terminated
    // `NAME=value` strings, which live in the process's initial environment block (what
    // `/proc/self/environ` shows) unless the program itself set them. Only the bytes of a value
    // are written, strictly before its terminating NUL, so every string stays a valid C string
    // and no pointer changes. The caller runs this before any other thread exists, so nothing
    // reads the environment meanwhile (std's own environment lock is not held by anyone).
    unsafe {
        let mut entry = libc::environ;
        if entry.is_null() {
            return;
        }
        while !(*entry).is_null() {
            let text = *entry;
            let bytes = CStr::from_ptr(text).to_bytes();
            if let Some(eq) = bytes.iter().position(|&b| b == b'=')
                && names.iter().any(|name| name.as_bytes() == &bytes[..eq])
            {
                let value = bytes.len() - eq - 1;
                std::ptr::write_bytes(text.add(eq + 1), 0, value);
            }
            entry = entry.add(1);
        }
    }
}
