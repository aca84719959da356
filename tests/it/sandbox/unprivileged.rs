//! Rule: run by a user without privilege (the everyday case), a call still sees only its own
//! processes: its PID namespace has its own /proc, so no other process's command line (a token
//! passed as an argument) reaches the model (sandbox round 30: as a user, the machine's /proc
//! stayed in view). Run from root, the test drops to `nobody` to take that path.

use std::os::unix::process::CommandExt;
use std::process::Stdio;

use serde_json::json;

use crate::attacker::sent;
use crate::harness::Ai;
use crate::launcher::require_sandbox;
use crate::server::{FakeServer, text_reply, tool_reply};

const NOBODY: u32 = 65534;

#[test]
fn a_call_of_an_unprivileged_user_sees_no_other_process() {
    if !require_sandbox() {
        return;
    }
    // Only root can become another user here (CI runs as root); elsewhere the run must say it
    // may skip, as for the sandbox itself.
    if !rustix::process::getuid().is_root() {
        assert!(
            std::env::var_os("SWEBASH_AI_TEST_NO_SANDBOX").is_some(),
            "run as root to test a user's calls (or set SWEBASH_AI_TEST_NO_SANDBOX to skip)"
        );
        return;
    }
    let marker = "SECRET-IN-A-COMMAND-LINE";
    let mut witness = std::process::Command::new("sh")
        .args(["-c", "sleep 60", marker])
        .spawn()
        .expect("witness");
    let server = FakeServer::start(vec![
        tool_reply(&[("c1", "execute_command", json!({"command": "make"}))]),
        text_reply("done"),
    ]);
    let ai = Ai::new(&server.url)
        .file(
            "Makefile",
            "all:\n\t-@cat /proc/[0-9]*/cmdline | tr '\\0' ' '; ls /proc | grep -c '^[0-9]'\n",
        )
        .file("src/main.c", "int main(void) { return 0; }\n")
        .git_init();
    // A copy of the binary the user can run, wherever the build lies (a checkout in /root).
    let binary = ai.root_dir().join("ai");
    std::fs::copy(env!("CARGO_BIN_EXE_ai"), &binary).expect("copy ai");
    let chown = std::process::Command::new("chown")
        .args(["-R", &format!("{NOBODY}:{NOBODY}")])
        .arg(ai.root_dir())
        .status()
        .expect("chown");
    assert!(chown.success());
    let mut command = std::process::Command::new(&binary);
    command
        .args(["--json", "build it"])
        .env_clear()
        .envs(ai.env_pairs().iter().map(|(k, v)| (k, v)))
        .current_dir(ai.work())
        .uid(NOBODY)
        .gid(NOBODY)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let out = command.output().expect("run ai as nobody");
    let _ = witness.kill();
    let _ = witness.wait();
    let result = server.last_tool_result();
    let stdout = result["data"]["stdout"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    // What ran is the call itself: `sh -c make`, make, its shell, cat, tr, ls, grep.
    assert!(
        stdout.contains("make"),
        "the call did not run: {result} {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        !sent(&server).contains(marker),
        "another process's command line reached the model: {stdout}"
    );
}
