//! A question answered from a file, in every output mode.

use serde_json::json;

use crate::harness::Ai;
use crate::server::{FakeServer, text_reply, tool_reply};

const CARGO_TOML: &str = "[package]\nname = \"demo\"\nversion = \"0.3.1\"\n";

fn version_script() -> FakeServer {
    FakeServer::start(vec![
        tool_reply(&[(
            "call_1",
            "filesystem",
            json!({"operation": "read", "path": "Cargo.toml"}),
        )]),
        text_reply("The version is 0.3.1."),
    ])
}

#[test]
fn json_mode_reads_cargo_toml_and_reports_the_call() {
    let server = version_script();
    let run = Ai::new(&server.url)
        .file("Cargo.toml", CARGO_TOML)
        .args(&["--json", "what version is in Cargo.toml?"])
        .run();
    assert_eq!(run.code, 0, "stderr: {}", run.stderr);
    assert_eq!(run.stdout.lines().count(), 1, "one JSON object on one line");
    let result = run.json();
    assert_eq!(result["schema_version"], json!(1));
    assert_eq!(result["status"], json!("ok"));
    assert_eq!(result["answer"], json!("The version is 0.3.1."));
    assert_eq!(result["provider"], json!("openai"));
    assert_eq!(result["model"], json!("fake-model"));
    assert_eq!(result["tool_format"], json!("native"));
    assert_eq!(result["iterations"], json!(2));
    assert_eq!(
        result["usage"],
        json!({"input_tokens": 50, "output_tokens": 19, "cached_input_tokens": 0})
    );
    assert_eq!(result["error"], json!(null));
    let call = &result["tool_calls"][0];
    assert_eq!(call["id"], json!("call_1"));
    assert_eq!(call["name"], json!("filesystem"));
    assert_eq!(
        call["arguments"],
        json!({"operation": "read", "path": "Cargo.toml"})
    );
    assert_eq!(call["decision"], json!("allow"));
    assert_eq!(call["ok"], json!(true));
    assert!(call["duration_ms"].is_u64());

    // The second request carries the assistant's call and the tool's result.
    let bodies = server.chat_bodies();
    assert_eq!(bodies.len(), 2);
    let messages = bodies[1]["messages"].as_array().expect("messages");
    let assistant = &messages[messages.len() - 2];
    assert_eq!(assistant["role"], json!("assistant"));
    assert_eq!(assistant["tool_calls"][0]["id"], json!("call_1"));
    assert_eq!(
        assistant["tool_calls"][0]["function"]["name"],
        json!("filesystem")
    );
    let tool = &messages[messages.len() - 1];
    assert_eq!(tool["role"], json!("tool"));
    assert_eq!(tool["tool_call_id"], json!("call_1"));
    let content: serde_json::Value =
        serde_json::from_str(tool["content"].as_str().expect("content")).expect("tool JSON");
    assert_eq!(content["success"], json!(true));
    assert!(
        content["data"]["content"]
            .as_str()
            .expect("file text")
            .contains("version = \"0.3.1\"")
    );
    // The first request offered the filesystem tool with its schema.
    let tools = bodies[0]["tools"].as_array().expect("tools offered");
    assert_eq!(tools[0]["function"]["name"], json!("filesystem"));
    assert!(tools[0]["function"]["parameters"]["properties"]["operation"].is_object());
}

#[test]
fn jsonl_mode_prints_typed_events_ending_in_run_completed() {
    let server = version_script();
    let run = Ai::new(&server.url)
        .file("Cargo.toml", CARGO_TOML)
        .args(&["--jsonl", "what version is in Cargo.toml?"])
        .run();
    assert_eq!(run.code, 0, "stderr: {}", run.stderr);
    let events = run.events();
    let types: Vec<&str> = events
        .iter()
        .map(|e| e["type"].as_str().unwrap_or("?"))
        .collect();
    assert_eq!(types.first(), Some(&"run.started"));
    assert_eq!(types.last(), Some(&"run.completed"));
    let started = types
        .iter()
        .position(|t| *t == "tool_call.started")
        .expect("tool_call.started");
    let completed = types
        .iter()
        .position(|t| *t == "tool_call.completed")
        .expect("tool_call.completed");
    let first_delta = types
        .iter()
        .position(|t| *t == "message.delta")
        .expect("message.delta");
    let turn = types
        .iter()
        .position(|t| *t == "turn.completed")
        .expect("turn.completed");
    assert!(started < completed && completed < first_delta && first_delta < turn);
    assert_eq!(events[completed]["id"], json!("call_1"));
    assert_eq!(events[completed]["ok"], json!(true));
    let last = events.last().expect("events");
    assert_eq!(last["status"], json!("ok"));
    assert_eq!(last["schema_version"], json!(1));
    assert_eq!(last["answer"], json!("The version is 0.3.1."));
    let text: String = events
        .iter()
        .filter(|e| e["type"] == "message.delta")
        .map(|e| e["text"].as_str().unwrap_or(""))
        .collect();
    assert_eq!(text, "The version is 0.3.1.");
}

#[test]
fn plain_mode_prints_only_the_answer_on_stdout() {
    let server = version_script();
    let run = Ai::new(&server.url)
        .file("Cargo.toml", CARGO_TOML)
        .arg("what version is in Cargo.toml?")
        .run();
    assert_eq!(run.code, 0, "stderr: {}", run.stderr);
    assert_eq!(run.stdout, "The version is 0.3.1.\n");
    assert!(
        run.stderr.contains("✓ filesystem read Cargo.toml"),
        "trace on stderr: {}",
        run.stderr
    );
}

#[test]
fn quiet_mode_leaves_stderr_empty() {
    let server = version_script();
    let run = Ai::new(&server.url)
        .file("Cargo.toml", CARGO_TOML)
        .args(&["-q", "version?"])
        .run();
    assert_eq!(run.code, 0);
    assert_eq!(run.stdout, "The version is 0.3.1.\n");
    assert_eq!(run.stderr, "");
}

#[test]
fn text_before_a_tool_call_and_the_final_answer_are_both_kept() {
    let mut first = crate::server::text_chunks("Let me look.");
    first.pop(); // usage
    first.pop(); // stop
    if let crate::server::Reply::Stream(calls) = tool_reply(&[(
        "c1",
        "filesystem",
        json!({"operation": "exists", "path": "x"}),
    )]) {
        first.extend(calls.into_iter().skip(1));
    }
    let server = FakeServer::start(vec![
        crate::server::Reply::Stream(first),
        text_reply("It does not exist."),
    ]);
    let run = Ai::new(&server.url)
        .args(&["--json", "does x exist?"])
        .run();
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(
        run.json()["answer"],
        json!("Let me look.\n\nIt does not exist.")
    );
}
