//! The Landlock sandbox for commands the policy allows without asking. `ai` re-executes itself as
//! a small launcher (`ai __sandbox MODE [--write DIR]... -- PROGRAM ARGS...`) that restricts
//! itself and then execs the program, so nothing allocates between fork and exec.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

pub use crate::config::SandboxMode;

/// The hidden first argument that turns `ai` into the launcher.
pub const LAUNCHER_ARG: &str = "__sandbox";
/// Exit code of the launcher's `--probe` when the kernel enforces nothing.
const PROBE_NOT_ENFORCED: i32 = 3;

/// Files any command may write, whatever the mode.
const ALWAYS_WRITABLE: &[&str] = &[
    "/dev/null",
    "/dev/tty",
    "/dev/zero",
    "/dev/full",
    "/dev/pts",
];

/// The argv prefix that runs a program under the sandbox; `None` when the mode is off.
pub fn launcher_prefix(mode: SandboxMode, writable: &[PathBuf]) -> Option<Vec<OsString>> {
    if mode == SandboxMode::Off {
        return None;
    }
    let exe = std::env::current_exe().ok()?;
    let mut argv = vec![
        exe.into_os_string(),
        LAUNCHER_ARG.into(),
        mode.name().into(),
    ];
    if mode == SandboxMode::Workspace {
        for dir in writable {
            argv.push("--write".into());
            argv.push(dir.clone().into_os_string());
        }
    }
    argv.push("--".into());
    Some(argv)
}

/// Whether the kernel will enforce the sandbox: runs the launcher once with `--probe`.
pub fn enforced() -> bool {
    let Ok(exe) = std::env::current_exe() else {
        return false;
    };
    std::process::Command::new(exe)
        .args([LAUNCHER_ARG, "read-only", "--probe"])
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// The launcher: called by `main` when argv[1] is `__sandbox`. Returns an exit code only when
/// it could not exec (on success the program replaces this process).
pub fn launch(args: &[OsString]) -> i32 {
    let mut mode = None;
    let mut writable: Vec<PathBuf> = Vec::new();
    let mut probe = false;
    let mut i = 0;
    while let Some(arg) = args.get(i) {
        match arg.to_str() {
            Some("--write") => {
                if let Some(dir) = args.get(i + 1) {
                    writable.push(PathBuf::from(dir));
                }
                i += 2;
                continue;
            }
            Some("--probe") => probe = true,
            Some("--") => {
                i += 1;
                break;
            }
            Some(text) if mode.is_none() => mode = SandboxMode::parse(text),
            _ => {}
        }
        i += 1;
    }
    let Some(mode) = mode else {
        return fail("the sandbox launcher needs a mode");
    };
    let enforced = match restrict(mode, &writable) {
        Ok(enforced) => enforced,
        Err(message) => return fail(&message),
    };
    if probe {
        return if enforced { 0 } else { PROBE_NOT_ENFORCED };
    }
    let Some((program, program_args)) = args.get(i..).and_then(|rest| rest.split_first()) else {
        return fail("the sandbox launcher needs a program");
    };
    exec(program, program_args)
}

fn fail(message: &str) -> i32 {
    use std::io::Write;
    let _ = writeln!(std::io::stderr(), "ai: sandbox: {message}");
    126
}

#[cfg(target_os = "linux")]
fn restrict(mode: SandboxMode, writable: &[PathBuf]) -> Result<bool, String> {
    use landlock::{
        ABI, Access, AccessFs, Ruleset, RulesetAttr, RulesetCreatedAttr, RulesetStatus,
        path_beneath_rules,
    };
    let abi = ABI::V5;
    let mut write_dirs: Vec<&Path> = ALWAYS_WRITABLE.iter().map(Path::new).collect();
    if mode == SandboxMode::Workspace {
        write_dirs.extend(writable.iter().map(PathBuf::as_path));
    }
    write_dirs.retain(|p| p.exists());
    let status = Ruleset::default()
        .handle_access(AccessFs::from_all(abi))
        .and_then(|r| r.create())
        .and_then(|r| r.add_rules(path_beneath_rules(["/"], AccessFs::from_read(abi))))
        .and_then(|r| r.add_rules(path_beneath_rules(write_dirs, AccessFs::from_all(abi))))
        .and_then(|r| r.restrict_self())
        .map_err(|err| format!("cannot set up Landlock: {err}"))?;
    Ok(status.ruleset != RulesetStatus::NotEnforced)
}

#[cfg(not(target_os = "linux"))]
fn restrict(_mode: SandboxMode, _writable: &[PathBuf]) -> Result<bool, String> {
    Ok(false)
}

#[cfg(unix)]
fn exec(program: &OsString, args: &[OsString]) -> i32 {
    use std::os::unix::process::CommandExt;
    let err = std::process::Command::new(program).args(args).exec();
    fail(&format!("cannot run {}: {err}", program.to_string_lossy()))
}

#[cfg(not(unix))]
fn exec(program: &OsString, args: &[OsString]) -> i32 {
    match std::process::Command::new(program).args(args).status() {
        Ok(status) => status.code().unwrap_or(1),
        Err(err) => fail(&format!("cannot run {}: {err}", program.to_string_lossy())),
    }
}
