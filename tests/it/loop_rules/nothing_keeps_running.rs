//! Rule 6: nothing a call starts keeps running after the run or a Ctrl-C.

use super::*;

/// Whether a process whose command line holds `marker` is still running, after giving the
/// kernel up to five seconds to finish killing what a run left.
fn still_running(marker: &str) -> bool {
    let start = std::time::Instant::now();
    loop {
        let found = std::process::Command::new("pgrep")
            .args(["-f", marker])
            .output()
            .is_ok_and(|out| out.status.success());
        if !found || start.elapsed() > std::time::Duration::from_secs(5) {
            return found;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

/// Waits (at most ten seconds) for `path` to appear.
fn await_file(path: &std::path::Path) -> bool {
    let start = std::time::Instant::now();
    while !path.exists() {
        if start.elapsed() > std::time::Duration::from_secs(10) {
            return false;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    true
}

#[test]
fn no_command_outlives_the_run() {
    for flags in [vec![], vec!["--yes"]] {
        let marker = format!("outlives-{}", flags.len());
        let server = FakeServer::start(vec![
            tool_reply(&[(
                "c1",
                "execute_command",
                exec(&format!(
                    "(sh -c 'sleep 30; touch late.txt' {marker}) > /dev/null 2>&1 & echo started"
                )),
            )]),
            text_reply("done"),
        ]);
        let mut ai = victim(&server);
        for flag in &flags {
            ai = ai.arg(flag);
        }
        let ai = ai.args(&["--json", "go"]);
        let run = ai.run();
        assert!(run.stdout.contains("started"), "{}", run.stdout);
        assert!(
            !still_running(&marker),
            "{flags:?}: a command kept running after ai exited\n{}",
            run.stdout
        );
    }
}

#[test]
fn ctrl_c_leaves_no_command_running() {
    let marker = "ctrl-c-leaves";
    let server = FakeServer::start(vec![
        tool_reply(&[(
            "c1",
            "execute_command",
            exec(&format!(
                "touch started; sh -c 'sleep 30; touch late.txt' {marker}"
            )),
        )]),
        text_reply("done"),
    ]);
    let ai = victim(&server).args(&["--json", "--yes", "go"]);
    let child = ai.spawn();
    assert!(
        await_file(&ai.work().join("started")),
        "the command never started"
    );
    // setsid -w: the child is `setsid`, ai is its child in a new session; signal the group.
    let pid = child.id() as i32;
    let _ = std::process::Command::new("pkill")
        .args(["-INT", "-s", &pid.to_string()])
        .status();
    let out = child.wait_with_output().expect("wait");
    assert!(
        !still_running(marker) && !ai.work().join("late.txt").exists(),
        "the command kept running after Ctrl-C\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// However ai ends (a closed terminal's SIGHUP, SIGTERM, SIGKILL), the call ends with it: one
/// that outlived ai could write after every check ai makes after a call (sandbox round 25: a
/// survivor planted `bin/ls` after ai's quarantine had run).
#[test]
fn a_call_ends_with_ai_however_ai_ends() {
    for signal in ["HUP", "TERM", "KILL"] {
        let marker = format!("ends-with-ai-{signal}");
        let server = FakeServer::start(vec![
            tool_reply(&[(
                "c1",
                "execute_command",
                exec(&format!(
                    "touch started; sh -c 'trap \"\" HUP TERM INT; sleep 30; touch late.txt' {marker}"
                )),
            )]),
            text_reply("done"),
        ]);
        let ai = victim(&server).args(&["--json", "--yes", "go"]);
        let mut child = ai.spawn();
        assert!(
            await_file(&ai.work().join("started")),
            "{signal}: the command never started"
        );
        // ai alone: not its process group, as a closed terminal or `kill PID` does.
        let pid = ai_pid(child.id());
        let _ = std::process::Command::new("kill")
            .args([&format!("-{signal}"), &pid.to_string()])
            .status();
        let _ = child.wait();
        assert!(
            !still_running(&marker),
            "{signal}: the call kept running after ai ended"
        );
    }
}

/// The pid of ai itself: the harness may start it through `setsid -w`, whose child it is.
fn ai_pid(spawned: u32) -> u32 {
    let children = std::fs::read_to_string(format!("/proc/{spawned}/task/{spawned}/children"))
        .unwrap_or_default();
    let comm = std::fs::read_to_string(format!("/proc/{spawned}/comm")).unwrap_or_default();
    match children.split_whitespace().next() {
        Some(child) if comm.trim() == "setsid" => child.parse().unwrap_or(spawned),
        _ => spawned,
    }
}
