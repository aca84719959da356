//! The status lines on a real terminal: a failing build shows its exit code, not a tick, and
//! Ctrl-C at the approval menu gives the cursor back.

use std::time::Duration;

use rexpect::process::WaitStatus;
use serde_json::json;

use crate::harness::{Ai, wait_for_raw_mode};
use crate::server::{FakeServer, Reply, text_reply, tool_reply};

/// Where this machine's Rust toolchain lives, for a `cargo build` run under a temp HOME.
fn toolchain_env(ai: Ai) -> Ai {
    let home = std::env::var("HOME").unwrap_or_default();
    let cargo_home = std::env::var("CARGO_HOME").unwrap_or(format!("{home}/.cargo"));
    let rustup_home = std::env::var("RUSTUP_HOME").unwrap_or(format!("{home}/.rustup"));
    ai.env("CARGO_HOME", &cargo_home)
        .env("RUSTUP_HOME", &rustup_home)
}

/// A Rust project whose build fails, and a model that builds it, reads the source and answers.
fn broken_build(answer: &str) -> (FakeServer, Ai) {
    let server = FakeServer::start(vec![
        tool_reply(&[(
            "c1",
            "execute_command",
            json!({"command": "cargo build --offline"}),
        )]),
        tool_reply(&[(
            "c2",
            "filesystem",
            json!({"operation": "read", "path": "src/main.rs"}),
        )]),
        text_reply(answer),
    ]);
    let ai = toolchain_env(Ai::new(&server.url))
        .file(
            "Cargo.toml",
            "[package]\nname = \"broken\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
        )
        .file("src/main.rs", "fn main() { let x: u8 = \"no\"; }\n");
    (server, ai)
}

/// Waits until bash shows its prompt again: typing while `ai` still runs would echo over its
/// lines.
fn wait_for_prompt(tmux: &crate::shell::Tmux) {
    tmux.wait_until("the prompt", |screen| {
        screen
            .lines()
            .rev()
            .find(|l| !l.trim().is_empty())
            .is_some_and(|l| l.starts_with("bash-") && l.trim_end().ends_with(['#', '$']))
    });
}

/// rexpect reads the terminal byte by byte as Latin-1: the same text as it will see it.
fn as_read(text: &str) -> String {
    text.bytes().map(char::from).collect()
}

#[test]
fn a_failing_cargo_build_shows_its_exit_code_then_the_read_then_the_answer() {
    let (_server, ai) = broken_build("The **type** is wrong.");
    let ai = ai.arg("why does the build fail?");
    let mut session =
        rexpect::session::spawn_command(ai.pty_command(), Some(120_000)).expect("spawn in a pty");
    let build = session
        .exp_string(&as_read("✗ execute_command cargo build --offline exit 101"))
        .expect("the failing build, with its exit code");
    assert!(!build.contains(&as_read("✓ execute_command")), "{build}");
    session
        .exp_string(&as_read("✓ filesystem read src/main.rs"))
        .expect("then the read");
    session.exp_string("type").expect("then the answer");
    let rest = session.exp_eof().unwrap_or_default();
    assert!(rest.contains("is wrong"), "{rest}");
}

#[test]
fn ctrl_c_at_the_approval_menu_shows_the_cursor_again_and_exits_130() {
    let server = FakeServer::start(vec![
        tool_reply(&[("c1", "execute_command", json!({"command": "rm -rf build"}))]),
        text_reply("Should not be needed."),
    ]);
    let ai = Ai::new(&server.url)
        .file("build/out.o", "obj")
        .arg("clean the build");
    let mut session =
        rexpect::session::spawn_command(ai.pty_command(), Some(10_000)).expect("spawn in a pty");
    session.exp_string("Allow it?").expect("the menu");
    wait_for_raw_mode(&session);
    session.send_control('c').expect("Ctrl-C");
    let rest = session.exp_eof().unwrap_or_default();
    assert!(
        rest.contains("\u{1b}[?25h"),
        "the cursor is shown: {rest:?}"
    );
    assert!(!rest.contains("Should not be needed"), "{rest}");
    assert!(ai.work().join("build/out.o").exists(), "nothing ran");
    let status = session.process_mut().wait().expect("exit status");
    assert!(matches!(status, WaitStatus::Exited(_, 130)), "{status:?}");
}

#[test]
fn off_a_terminal_a_failing_command_and_a_timeout_say_so() {
    let server = FakeServer::start(vec![
        tool_reply(&[
            (
                "c1",
                "execute_command",
                json!({"command": "ls no-such-file"}),
            ),
            (
                "c2",
                "execute_command",
                json!({"command": "sleep 5", "timeout_seconds": 1}),
            ),
        ]),
        text_reply("Both failed."),
    ]);
    let run = Ai::new(&server.url).arg("try both").run();
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stderr
            .contains("✗ execute_command ls no-such-file exit 2"),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains("⏱ execute_command sleep 5 1 timeout"),
        "{}",
        run.stderr
    );
    assert!(!run.stderr.contains('✓'), "{}", run.stderr);
}

#[test]
fn the_screen_after_a_failing_build_holds_the_build_the_read_and_the_answer_only() {
    let (_server, ai) = broken_build("The **type** is wrong: a `u8` cannot hold a string.");
    let tmux = crate::shell::Tmux::start("bash", &ai);
    tmux.keys(&["ai why does the build fail", "Enter"]);
    tmux.wait_for("cannot hold a string");
    wait_for_prompt(&tmux);
    tmux.round_trip("FINISHED");
    let screen = tmux.screen();
    // Everything `ai` left: not the prompts, not the harness's round trips and their output.
    let left: Vec<&str> = screen
        .lines()
        .map(str::trim_end)
        .filter(|l| {
            !l.is_empty()
                && !l.starts_with("bash-")
                && !l.contains("printf '%s\\n'")
                && !["LOADED", "FINISHED"].contains(l)
        })
        .collect();
    assert_eq!(left.len(), 3, "{screen}");
    assert!(
        left[0].starts_with("  ✗ execute_command cargo build --offline exit 101 ("),
        "{screen}"
    );
    assert!(
        left[1].starts_with("  ✓ filesystem read src/main.rs ("),
        "{screen}"
    );
    assert_eq!(
        left[2], "The type is wrong: a u8 cannot hold a string.",
        "{screen}"
    );
}

#[test]
fn ctrl_c_while_thinking_leaves_no_spinner_behind() {
    let server = FakeServer::start(vec![Reply::StallAfter(vec![], Duration::from_secs(8))]);
    let ai = Ai::new(&server.url);
    let tmux = crate::shell::Tmux::start("bash", &ai);
    tmux.keys(&["ai a slow question", "Enter"]);
    tmux.wait_for("thinking");
    tmux.keys(&["C-c"]);
    wait_for_prompt(&tmux);
    tmux.round_trip("AFTERWARDS");
    let screen = tmux.screen();
    assert!(!screen.contains("thinking"), "{screen}");
    assert!(!screen.contains('⠋') && !screen.contains('⠙'), "{screen}");
}
