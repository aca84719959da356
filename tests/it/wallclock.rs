//! Time limits and connections that a run's wall clock depends on: a server that accepts and
//! never answers ends the run within the budget (retries included), each expiry names its
//! setting, and a kept-alive connection the server closed meanwhile costs nothing visible.

use std::net::TcpListener;
use std::time::{Duration, Instant};

use serde_json::json;

use crate::harness::Ai;
use crate::repl::repl;
use crate::server::{FakeServer, text_reply};

/// A server that accepts connections, reads what comes, and never says a word. Returns its
/// base URL; the listener thread lives as long as the test process.
fn silent_server() -> String {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let url = format!("http://{}/v1", listener.local_addr().expect("addr"));
    std::thread::spawn(move || {
        let mut held = Vec::new();
        for stream in listener.incoming().flatten() {
            // Kept open (and unread beyond the socket buffer): the client waits for a reply.
            held.push(stream);
        }
    });
    url
}

#[test]
fn a_server_that_never_answers_ends_json_within_the_budget_retries_included() {
    let url = silent_server();
    let started = Instant::now();
    let run = Ai::new(&url)
        .env("SWEBASH_AI_HTTP_TIMEOUT", "3")
        .env("SWEBASH_AI_HTTP_FIRST_BYTE_TIMEOUT", "1")
        .env("SWEBASH_AI_HTTP_RETRIES", "10")
        .args(&["--json", "hi"])
        .run();
    let took = started.elapsed();
    assert_eq!(run.code, 1, "{}", run.stderr);
    let result = run.json();
    assert_eq!(result["status"], json!("error"));
    assert_eq!(result["error"]["kind"], json!("network"));
    // Generous slack for a busy machine; without a shared budget ten retries take 10 s and more.
    assert!(
        took < Duration::from_secs(8),
        "took {took:?}: {}",
        run.stderr
    );
    assert!(took >= Duration::from_millis(2500), "took {took:?}");
    assert!(
        run.stderr.contains("SWEBASH_AI_HTTP_TIMEOUT")
            || run.stderr.contains("SWEBASH_AI_HTTP_FIRST_BYTE_TIMEOUT"),
        "the expiry names its setting: {}",
        run.stderr
    );
}

#[test]
fn the_first_byte_timeout_names_its_limit_and_setting() {
    let url = silent_server();
    let run = Ai::new(&url)
        .env("SWEBASH_AI_HTTP_FIRST_BYTE_TIMEOUT", "0.5")
        .env("SWEBASH_AI_HTTP_RETRIES", "0")
        .arg("hi")
        .run();
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(
        run.stderr
            .contains("no reply for 0.5 s after the request was sent"),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr
            .contains("hint: raise SWEBASH_AI_HTTP_FIRST_BYTE_TIMEOUT"),
        "{}",
        run.stderr
    );
}

#[test]
fn the_budget_names_its_setting_when_it_is_the_shorter_limit() {
    let url = silent_server();
    let run = Ai::new(&url)
        .env("SWEBASH_AI_HTTP_TIMEOUT", "0.5")
        .env("SWEBASH_AI_HTTP_RETRIES", "0")
        .arg("hi")
        .run();
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(
        run.stderr.contains("whole budget of 0.5 s"),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains("hint: raise SWEBASH_AI_HTTP_TIMEOUT"),
        "{}",
        run.stderr
    );
}

#[test]
fn a_repl_pause_longer_than_the_servers_keep_alive_costs_no_retry_and_no_turn() {
    let server = FakeServer::start_closing_idle(
        vec![text_reply("One."), text_reply("Two.")],
        Duration::from_secs(1),
    );
    // No retries at all: the resend on a fresh connection must not need one.
    let ai = Ai::new(&server.url).env("SWEBASH_AI_HTTP_RETRIES", "0");
    let mut session = repl(&ai, &["-i"]);
    session.exp_string("fake-model> ").expect("prompt");
    session.send_line("first").expect("send");
    session.exp_string("One.").expect("first answer");
    session.exp_string("fake-model> ").expect("prompt again");
    // The pause: the server closes the idle connection while the REPL waits for a question.
    let start = Instant::now();
    while server.idle_closed() == 0 {
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "the server never closed the idle connection"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    session.send_line("second").expect("send");
    let shown = session.exp_string("Two.").expect("second answer");
    for noise in ["retrying", "broke", "error"] {
        assert!(!shown.contains(noise), "{noise:?} shown: {shown}");
    }
    session.exp_string("fake-model> ").expect("prompt");
    session.send_control('d').expect("Ctrl-D");
    let _ = session.exp_eof();
    assert_eq!(server.chat_bodies().len(), 2);
    assert_eq!(
        server.connections(),
        2,
        "the second turn on a fresh connection"
    );
}
