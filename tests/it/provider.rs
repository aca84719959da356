//! The OpenAI-compatible provider against faults: retries, timeouts, every distinct error, and the
//! quirks of real servers (empty streamed bodies, repeated ids, rejected stream_options).

use std::time::{Duration, Instant};

use serde_json::json;

use crate::harness::Ai;
use crate::server::{FakeServer, Reply, status, text_chunks, text_reply, whole_text};

#[test]
fn rate_limit_with_retry_after_is_waited_out_and_retried() {
    let server = FakeServer::start(vec![
        Reply::Status {
            status: 429,
            headers: vec![("retry-after", "1".into())],
            body: r#"{"error":{"message":"slow down"}}"#.into(),
        },
        text_reply("after the wait"),
    ]);
    let started = Instant::now();
    let run = Ai::new(&server.url).arg("hi").run();
    assert_eq!(run.code, 0, "stderr: {}", run.stderr);
    assert_eq!(run.stdout, "after the wait\n");
    assert!(
        started.elapsed() >= Duration::from_millis(900),
        "Retry-After honoured"
    );
    assert!(run.stderr.contains("retrying in 1.0 s"), "{}", run.stderr);
    assert_eq!(server.chat_bodies().len(), 2);
}

#[test]
fn server_errors_are_retried_with_backoff_then_succeed() {
    let server = FakeServer::start(vec![
        status(500, "{}"),
        status(503, "{}"),
        text_reply("third time"),
    ]);
    let run = Ai::new(&server.url).args(&["-q", "hi"]).run();
    assert_eq!(run.code, 0, "stderr: {}", run.stderr);
    assert_eq!(run.stdout, "third time\n");
    assert_eq!(server.chat_bodies().len(), 3);
}

#[test]
fn retries_are_bounded_and_the_last_error_is_shown() {
    let server = FakeServer::start(
        (0..3)
            .map(|_| status(502, r#"{"error":{"message":"upstream down"}}"#))
            .collect(),
    );
    let run = Ai::new(&server.url)
        .env("SWEBASH_AI_HTTP_RETRIES", "2")
        .arg("hi")
        .run();
    assert_eq!(run.code, 1);
    assert!(
        run.stderr.contains("ai: error: the server at"),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains("HTTP 502): upstream down"),
        "{}",
        run.stderr
    );
    assert_eq!(server.chat_bodies().len(), 3);
}

#[test]
fn a_connection_cut_before_any_text_is_retried() {
    let server = FakeServer::start(vec![Reply::CutAfter(vec![]), text_reply("recovered")]);
    let run = Ai::new(&server.url).args(&["-q", "hi"]).run();
    assert_eq!(run.code, 0, "stderr: {}", run.stderr);
    assert_eq!(run.stdout, "recovered\n");
}

#[test]
fn a_connection_cut_after_text_is_not_retried_and_the_partial_answer_is_kept() {
    let mut chunks = text_chunks("partial words here and more");
    chunks.truncate(3);
    let server = FakeServer::start(vec![Reply::CutAfter(chunks), text_reply("never")]);
    let run = Ai::new(&server.url).args(&["--json", "hi"]).run();
    assert_eq!(run.code, 1, "stderr: {}", run.stderr);
    let result = run.json();
    assert_eq!(result["status"], json!("error"));
    assert_eq!(result["answer"], json!("partial words here and "));
    assert_eq!(result["error"]["kind"], json!("network"));
    assert!(run.stderr.contains("broke mid-reply"), "{}", run.stderr);
    assert_eq!(server.chat_bodies().len(), 1, "never retried after output");
}

#[test]
fn a_stalled_stream_hits_the_idle_timeout() {
    let mut chunks = text_chunks("some text");
    chunks.truncate(2);
    let server = FakeServer::start(vec![Reply::StallAfter(chunks, Duration::from_secs(10))]);
    let run = Ai::new(&server.url)
        .env("SWEBASH_AI_HTTP_IDLE_TIMEOUT", "0.5")
        .arg("hi")
        .run();
    assert_eq!(run.code, 1, "stderr: {}", run.stderr);
    assert_eq!(run.stdout, "some text\n");
    assert!(run.stderr.contains("no data for 0.5 s"), "{}", run.stderr);
    assert!(
        run.stderr
            .contains("hint: raise SWEBASH_AI_HTTP_IDLE_TIMEOUT"),
        "{}",
        run.stderr
    );
}

#[test]
fn a_request_that_outlives_the_whole_request_timeout_fails() {
    let server = FakeServer::start(vec![Reply::StallAfter(vec![], Duration::from_secs(10))]);
    let run = Ai::new(&server.url)
        .env("SWEBASH_AI_HTTP_TIMEOUT", "0.5")
        .env("SWEBASH_AI_HTTP_RETRIES", "0")
        .arg("hi")
        .run();
    assert_eq!(run.code, 1, "stderr: {}", run.stderr);
    assert!(run.stderr.contains("timed out"), "{}", run.stderr);
}

#[test]
fn unauthorized_is_a_distinct_error_with_a_key_hint() {
    let server = FakeServer::start(vec![status(
        401,
        r#"{"error":{"message":"Incorrect API key provided"}}"#,
    )]);
    let run = Ai::new(&server.url)
        .env("SWEBASH_AI_API_KEY", "sk-wrong-key-123")
        .arg("hi")
        .run();
    assert_eq!(run.code, 1);
    assert!(
        run.stderr
            .contains("refused the credentials (HTTP 401): Incorrect API key provided"),
        "{}",
        run.stderr
    );
    assert!(run.stderr.contains("hint: check the API key"));
    assert!(
        !run.stderr.contains("sk-wrong-key-123"),
        "the key never appears"
    );
    assert_eq!(
        server.requests()[0].header("authorization"),
        Some("Bearer sk-wrong-key-123")
    );
    assert_eq!(server.chat_bodies().len(), 1, "not retried");
}

#[test]
fn an_unknown_model_is_named() {
    let server = FakeServer::start(vec![status(
        404,
        r#"{"error":{"message":"The model `nope` does not exist","code":"model_not_found"}}"#,
    )]);
    let run = Ai::new(&server.url).args(&["-m", "nope", "hi"]).run();
    assert_eq!(run.code, 1);
    assert!(
        run.stderr.contains("does not know the model \"nope\""),
        "{}",
        run.stderr
    );
}

#[test]
fn a_bad_request_shows_the_server_message() {
    let server = FakeServer::start(vec![status(
        400,
        r#"{"error":{"message":"messages[1]: bad role"}}"#,
    )]);
    let run = Ai::new(&server.url).arg("hi").run();
    assert_eq!(run.code, 1);
    assert!(
        run.stderr
            .contains("rejected the request (HTTP 400): messages[1]: bad role"),
        "{}",
        run.stderr
    );
}

#[test]
fn a_retry_after_of_1e30_seconds_ends_the_run_with_an_error_not_a_panic() {
    let server = FakeServer::start(vec![Reply::Status {
        status: 429,
        headers: vec![("retry-after", "1e30".into())],
        body: r#"{"error":{"message":"come back never"}}"#.into(),
    }]);
    let run = Ai::new(&server.url).arg("hi").run();
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(
        run.stderr.starts_with("ai: error: rate limited") && run.stderr.contains("come back never"),
        "{}",
        run.stderr
    );
    assert!(!run.stderr.contains("panicked"), "{}", run.stderr);
    assert_eq!(server.chat_bodies().len(), 1, "not retried");
}

#[test]
fn a_non_json_body_is_reported_as_such() {
    let server = FakeServer::start(vec![Reply::Status {
        status: 200,
        headers: vec![("content-type", "text/html".into())],
        body: "<html><body>Welcome to nginx</body></html>".into(),
    }]);
    let run = Ai::new(&server.url).args(&["--no-stream", "hi"]).run();
    assert_eq!(run.code, 1);
    assert!(
        run.stderr
            .contains("the body is not JSON: Welcome to nginx"),
        "{}",
        run.stderr
    );
    assert!(run.stderr.contains("hint:"), "{}", run.stderr);
}

#[test]
fn a_malformed_chunk_ends_the_run_with_a_clear_error() {
    let mut raw =
        String::from("data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"ok \"}}]}\n\n");
    raw.push_str("data: {\"choices\": [oops\n\n");
    let server = FakeServer::start(vec![Reply::RawSse(raw)]);
    let run = Ai::new(&server.url).arg("hi").run();
    assert_eq!(run.code, 1);
    assert_eq!(run.stdout, "ok \n", "partial answer kept");
    assert!(
        run.stderr
            .contains("a stream chunk is not JSON: {\"choices\": [oops"),
        "{}",
        run.stderr
    );
}

#[test]
fn connection_refused_names_the_url() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let url = format!("http://{}/v1", listener.local_addr().expect("addr"));
    drop(listener);
    let run = Ai::new(&url)
        .env("SWEBASH_AI_HTTP_RETRIES", "0")
        .arg("hi")
        .run();
    assert_eq!(run.code, 1);
    assert!(
        run.stderr
            .contains(&format!("cannot connect to {url}/chat/completions")),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.to_lowercase().contains("connection refused"),
        "{}",
        run.stderr
    );
    assert!(run.stderr.contains("hint: is the server running?"));
}

#[test]
fn an_empty_streamed_body_is_retried_once_without_streaming() {
    let server = FakeServer::start(vec![
        Reply::RawSse(String::new()),
        whole_text("from the whole reply"),
    ]);
    let run = Ai::new(&server.url).arg("hi").run();
    assert_eq!(run.code, 0, "stderr: {}", run.stderr);
    assert_eq!(run.stdout, "from the whole reply\n");
    let bodies = server.chat_bodies();
    assert_eq!(bodies[0]["stream"], json!(true));
    assert_eq!(bodies[1]["stream"], json!(false));
}

#[test]
fn no_stream_asks_for_the_whole_reply() {
    let server = FakeServer::start(vec![whole_text("whole")]);
    let run = Ai::new(&server.url)
        .args(&["--json", "--no-stream", "hi"])
        .run();
    assert_eq!(run.code, 0, "stderr: {}", run.stderr);
    assert_eq!(run.json()["answer"], json!("whole"));
    assert_eq!(
        run.json()["usage"],
        json!({"input_tokens": 11, "output_tokens": 3, "cached_input_tokens": 0})
    );
    let body = &server.chat_bodies()[0];
    assert_eq!(body["stream"], json!(false));
    assert!(body.get("stream_options").is_none());
}

#[test]
fn streaming_asks_for_usage_and_drops_the_option_when_rejected() {
    let server = FakeServer::start(vec![
        status(
            400,
            r#"{"error":{"message":"Unrecognized request argument supplied: stream_options"}}"#,
        ),
        text_reply("fine"),
    ]);
    let run = Ai::new(&server.url).arg("hi").run();
    assert_eq!(run.code, 0, "stderr: {}", run.stderr);
    let bodies = server.chat_bodies();
    assert_eq!(bodies[0]["stream_options"], json!({"include_usage": true}));
    assert!(bodies[1].get("stream_options").is_none());
}

#[test]
fn the_recorded_llama_cpp_python_stream_is_understood() {
    let recorded = include_str!("../fixtures/pyserver-chat-stream.sse");
    let server = FakeServer::start(vec![Reply::RawSse(recorded.to_string())]);
    let run = Ai::new(&server.url).args(&["--json", "hi"]).run();
    assert_eq!(run.code, 0, "stderr: {}", run.stderr);
    assert!(
        run.json()["answer"]
            .as_str()
            .unwrap_or("")
            .starts_with("The primary")
    );
}

#[test]
fn without_a_model_the_first_served_model_is_used() {
    let server = FakeServer::start_with_models(
        vec![text_reply("hi")],
        vec!["qwen2.5-1.5b".into(), "other".into()],
    );
    let run = Ai::new(&server.url)
        .unset("SWEBASH_AI_MODEL")
        .args(&["--json", "hi"])
        .run();
    assert_eq!(run.code, 0, "stderr: {}", run.stderr);
    assert_eq!(run.json()["model"], json!("qwen2.5-1.5b"));
    assert_eq!(server.chat_bodies()[0]["model"], json!("qwen2.5-1.5b"));
    let first = &server.requests()[0];
    assert_eq!(
        (first.method.as_str(), first.path.as_str()),
        ("GET", "/v1/models")
    );
}

#[test]
fn a_body_held_open_after_done_does_not_hold_up_the_answer() {
    let server = FakeServer::start(vec![Reply::DoneThenHold(text_chunks("All there."))]);
    let run = Ai::new(&server.url).args(&["-q", "hi"]).run();
    assert_eq!(run.code, 0, "stderr: {}", run.stderr);
    assert_eq!(run.stdout.trim(), "All there.");
    assert!(
        server.release(),
        "ai finished only when the server gave up holding the body"
    );
}
