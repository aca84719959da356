//! What a newcomer meets first: a missing key named before any network call, an empty answer
//! reported, usage the server did not give shown as unknown, `ai -i "prompt"` and a retried REPL
//! turn sent once.

use serde_json::{Value, json};

use crate::harness::{Ai, wait_for_raw_mode};
use crate::repl::{repl, user_messages};
use crate::server::{FakeServer, Reply, status, text_reply};

#[test]
fn a_cloud_provider_without_its_key_exits_2_naming_the_variable_before_the_network() {
    for (provider, var) in [
        ("openai", "OPENAI_API_KEY"),
        ("anthropic", "ANTHROPIC_API_KEY"),
        ("gemini", "GEMINI_API_KEY"),
    ] {
        // A proxy that refuses everything: a request would fail as a network error (exit 1).
        let run = Ai::bare()
            .env("HTTPS_PROXY", "http://127.0.0.1:1")
            .env("https_proxy", "http://127.0.0.1:1")
            .args(&["--provider", provider, "hi"])
            .run();
        assert_eq!(run.code, 2, "{provider}: {}", run.stderr);
        assert!(run.stderr.contains(var), "{}", run.stderr);
        assert!(
            !run.stderr.contains("SWEBASH_AI_BASE_URL"),
            "{}",
            run.stderr
        );
    }
}

#[test]
fn an_empty_answer_is_reported_with_status_empty_and_exit_1() {
    let server = FakeServer::start(vec![text_reply(""), text_reply("")]);
    let run = Ai::new(&server.url).args(&["--json", "say nothing"]).run();
    assert_eq!(run.code, 1, "{}", run.stderr);
    let result = run.json();
    assert_eq!(result["status"], json!("empty"));
    assert!(run.stderr.contains("empty"), "{}", run.stderr);
    let plain = Ai::new(&server.url).arg("say nothing").run();
    assert_eq!(plain.code, 1);
    assert!(
        plain.stderr.contains("answer was empty"),
        "{}",
        plain.stderr
    );
}

#[test]
fn usage_the_server_did_not_report_is_null_not_zero() {
    let server = FakeServer::start(vec![Reply::Whole(json!({
        "choices": [{"index": 0, "message": {"role": "assistant", "content": "Hi."},
                     "finish_reason": "stop"}]
    }))]);
    let run = Ai::new(&server.url)
        .args(&["--json", "--no-stream", "hi"])
        .run();
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(run.json()["usage"], Value::Null);
}

#[test]
fn interactive_with_a_prompt_runs_it_as_the_first_turn() {
    let server = FakeServer::start(vec![text_reply("First answer.")]);
    let ai = Ai::new(&server.url);
    let mut session = repl(&ai, &["-i", "what is this project?"]);
    session
        .exp_string("First answer.")
        .expect("the first turn ran");
    session.exp_string("fake-model> ").expect("then the prompt");
    session.send_control('d').expect("Ctrl-D");
    session.exp_eof().expect("exit");
    assert_eq!(
        user_messages(&server.chat_bodies()[0]),
        vec!["what is this project?".to_string()]
    );
}

#[test]
fn a_retried_repl_turn_sends_the_question_once() {
    let server = FakeServer::start(vec![
        status(400, r#"{"error": {"message": "try later"}}"#),
        text_reply("Now it works."),
    ]);
    let ai = Ai::new(&server.url);
    let mut session = repl(&ai, &["-i"]);
    session.exp_string("fake-model> ").expect("prompt");
    session.send_line("why?").expect("send");
    session.exp_string("try later").expect("the failure");
    session.exp_string("fake-model> ").expect("prompt again");
    wait_for_raw_mode(&session);
    session.send_line("why?").expect("send again");
    session.exp_string("Now it works.").expect("the answer");
    session.exp_string("fake-model> ").expect("prompt");
    session.send_control('d').expect("Ctrl-D");
    session.exp_eof().expect("exit");
    assert_eq!(
        user_messages(&server.chat_bodies()[1]),
        vec!["why?".to_string()]
    );
}

#[test]
fn a_plain_web_servers_501_page_is_not_retried() {
    // What `python3 -m http.server` answers to a POST.
    let page = "<!DOCTYPE HTML>\n<html lang=\"en\">\n<head><title>Error response</title></head>\n\
                <body>\n<h1>Error response</h1>\n<p>Error code: 501</p>\n\
                <p>Message: Unsupported method ('POST').</p>\n</body>\n</html>\n";
    let server = FakeServer::start(vec![
        status(501, page),
        status(501, page),
        status(501, page),
        status(501, page),
    ]);
    let run = Ai::new(&server.url).arg("hi").run();
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert_eq!(server.chat_bodies().len(), 1, "{}", run.stderr);
    assert!(!run.stderr.contains("retrying"), "{}", run.stderr);
    // The page is summarised in one line of its words.
    assert_eq!(run.stderr.lines().count(), 1, "{}", run.stderr);
    assert!(
        run.stderr.contains("Error code: 501") && !run.stderr.contains("<p>"),
        "{}",
        run.stderr
    );
}

#[test]
fn a_misspelt_setting_gets_a_did_you_mean_warning() {
    let server = FakeServer::start(vec![text_reply("ok")]);
    let run = Ai::new(&server.url)
        .env("SWEBASH_AI_TOOLS_MAXITER", "3")
        .arg("hi")
        .run();
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stderr
            .contains("SWEBASH_AI_TOOLS_MAXITER is not a setting of ai (did you mean SWEBASH_AI_TOOLS_MAX_ITER?)"),
        "{}",
        run.stderr
    );
}
