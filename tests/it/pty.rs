//! The confirmation prompt in a real pseudo-terminal: the person answers yes, or no.

use serde_json::json;

use crate::harness::{Ai, wait_for_raw_mode};
use crate::server::{FakeServer, text_reply, tool_reply};

fn answer_prompt(keys: &str) -> (Ai, String) {
    let server = FakeServer::start(vec![
        tool_reply(&[("c1", "execute_command", json!({"command": "rm -rf build"}))]),
        text_reply("Finished."),
    ]);
    let ai = Ai::new(&server.url)
        .file("build/out.o", "obj")
        .arg("clean the build");
    let mut session =
        rexpect::session::spawn_command(ai.pty_command(), Some(10_000)).expect("spawn in a pty");
    session
        .exp_string("ai wants to run:")
        .expect("the question is shown");
    session
        .exp_string("rm -rf build")
        .expect("the whole command is shown");
    session
        .exp_string("deletes files recursively")
        .expect("the reason is shown");
    session.exp_string("Allow it?").expect("the prompt");
    wait_for_raw_mode(&session);
    session.send(keys).expect("send keys");
    session.flush().expect("flush");
    let rest = session.exp_eof().unwrap_or_default();
    (ai, rest)
}

#[test]
fn answering_yes_runs_the_command() {
    // The cursor starts on "no"; k moves up to "yes".
    let (ai, rest) = answer_prompt("k\r");
    assert!(rest.contains("Finished."), "{rest}");
    assert!(!ai.work().join("build").exists());
}

#[test]
fn answering_no_runs_nothing() {
    let (ai, rest) = answer_prompt("\r");
    assert!(rest.contains("Finished."), "{rest}");
    assert!(ai.work().join("build/out.o").exists());
}
