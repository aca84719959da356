//! The sandbox launcher driven directly (`ai __sandbox REQUEST -- PROGRAM...`), and the one probe
//! every test asks what this kernel enforces.

use std::process::Command;

use serde_json::{Value, json};

/// The launcher's request with every field at its default, `fields` laid over it.
pub fn request(fields: Value) -> String {
    let mut request = json!({
        "write": [], "read": [], "mask": [], "scrub": [], "cover": [], "read_only": [], "home": null, "hide": [], "caches": [], "cache_files": [],
        "net": false, "prefetch": [], "max_file_size": null, "max_processes": null, "probe": false,
        "stage2": false, "pid_namespace": false, "mount_namespace": false,
        "read_only_mounts": false, "no_pid_namespace": false, "no_landlock_network": false,
    });
    if let (Some(request), Some(fields)) = (request.as_object_mut(), fields.as_object()) {
        for (key, value) in fields {
            request.insert(key.clone(), value.clone());
        }
    }
    request.to_string()
}

/// `exe __sandbox REQUEST -- program...` (no program: a probe).
pub fn launcher_of(exe: &std::path::Path, fields: Value, program: &[&str]) -> Command {
    let mut command = Command::new(exe);
    command.arg("__sandbox").arg(request(fields));
    if !program.is_empty() {
        command.arg("--").args(program);
    }
    command
}

/// The launcher of the `ai` under test.
pub fn launcher(fields: Value, program: &[&str]) -> Command {
    launcher_of(env!("CARGO_BIN_EXE_ai").as_ref(), fields, program)
}

/// What the launcher enforces with these fields (`probe` set), or `Value::Null` when it cannot run.
pub fn probe_with(fields: Value) -> Value {
    let mut fields = fields;
    fields["probe"] = json!(true);
    launcher(fields, &[])
        .output()
        .ok()
        .and_then(|o| serde_json::from_slice(&o.stdout).ok())
        .unwrap_or(Value::Null)
}

/// What this kernel enforces, or `None` without Landlock.
pub fn capabilities() -> Option<Value> {
    let probe = probe_with(json!({}));
    (probe["filesystem"] == json!(true)).then_some(probe)
}

/// Whether the sandbox is there for a test that needs it. A machine without it fails the test,
/// so nothing passes by skipping, unless SWEBASH_AI_TEST_NO_SANDBOX says this run may skip
/// (a kernel with Landlock turned off).
pub fn require_sandbox() -> bool {
    if capabilities().is_some() {
        return true;
    }
    assert!(
        std::env::var_os("SWEBASH_AI_TEST_NO_SANDBOX").is_some(),
        "the sandbox does not work on this machine (no Landlock?): set \
         SWEBASH_AI_TEST_NO_SANDBOX=1 to let its tests skip"
    );
    false
}
