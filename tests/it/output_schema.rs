//! `--output-schema FILE` end to end, on every wire protocol: the request carries the schema the
//! provider's own way, a first answer that does not match leads to exactly one retry that carries
//! the validation errors, a second miss exits 1 naming what failed, and `--json` carries the value.

use serde_json::{Value, json};

use crate::harness::{Ai, Run};
use crate::providers::{anthropic, gemini, gemini_events, gemini_text, ollama, ollama_text, sse};
use crate::server::{FakeServer, Reply, text_reply, tool_reply};

const SCHEMA: &str = r#"{"type": "object", "required": ["failing"], "additionalProperties": false,
  "properties": {"failing": {"type": "array", "items": {"type": "string"}}}}"#;
const GOOD: &str = r#"{"failing": ["parse::empty"]}"#;
const BAD: &str = r#"{"failing": "parse::empty"}"#;
/// What the validator says of `BAD`.
const BAD_ERROR: &str = "$.failing: expected array, got string";

fn schema() -> Value {
    serde_json::from_str(SCHEMA).expect("schema")
}

fn with_schema(ai: Ai) -> Ai {
    ai.file("schema.json", SCHEMA)
        .args(&["--output-schema", "schema.json"])
}

/// The text of the last user message of a request (any protocol's shape).
fn last_user_text(body: &Value) -> String {
    let turns = body["messages"]
        .as_array()
        .or_else(|| body["contents"].as_array())
        .cloned()
        .unwrap_or_default();
    let last = turns
        .iter()
        .rev()
        .find(|m| m["role"] == "user")
        .cloned()
        .unwrap_or(Value::Null);
    match &last["content"] {
        Value::String(text) => text.clone(),
        Value::Array(blocks) => blocks.iter().map(|b| b["text"].to_string()).collect(),
        _ => last["parts"].to_string(),
    }
}

fn assert_retried_then_failed(run: &Run, bodies: &[Value]) {
    assert_eq!(
        run.code, 1,
        "stdout: {}\nstderr: {}",
        run.stdout, run.stderr
    );
    assert_eq!(run.stdout, "", "nothing but a valid answer reaches stdout");
    assert!(
        run.stderr
            .contains("does not match the output schema schema.json")
            && run.stderr.contains(BAD_ERROR),
        "{}",
        run.stderr
    );
    assert_eq!(bodies.len(), 2, "exactly one retry");
    let retry = last_user_text(&bodies[1]);
    assert!(retry.contains(BAD_ERROR), "{retry}");
}

#[test]
fn openai_sends_a_json_schema_response_format_and_prints_the_json_alone() {
    let server = FakeServer::start(vec![text_reply(&format!("```json\n{GOOD}\n```"))]);
    let run = with_schema(Ai::new(&server.url))
        .arg("which tests fail?")
        .run();
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(run.stdout, "{\"failing\":[\"parse::empty\"]}\n");
    let body = &server.chat_bodies()[0];
    assert_eq!(
        body["response_format"],
        json!({"type": "json_schema", "json_schema": {"name": "answer", "schema": schema()}})
    );
    assert!(body["tools"].is_array(), "tools still offered");
    let system = body["messages"][0]["content"].as_str().unwrap_or_default();
    assert!(system.contains("one JSON value"), "{system}");
}

#[test]
fn openai_json_carries_the_object_and_tools_work_before_the_answer() {
    let server = FakeServer::start(vec![
        tool_reply(&[(
            "call_1",
            "filesystem",
            json!({"operation": "read", "path": "log.txt"}),
        )]),
        text_reply(GOOD),
    ]);
    let run = with_schema(Ai::new(&server.url))
        .file("log.txt", "FAILED parse::empty\n")
        .args(&["--json", "which tests fail?"])
        .run();
    assert_eq!(run.code, 0, "{}", run.stderr);
    let result = run.json();
    assert_eq!(result["answer"], json!({"failing": ["parse::empty"]}));
    assert_eq!(result["tool_calls"][0]["ok"], json!(true));
    assert_eq!(server.chat_bodies().len(), 2);
}

#[test]
fn openai_invalid_answer_is_retried_once_with_the_errors() {
    let server = FakeServer::start(vec![text_reply(BAD), text_reply(GOOD)]);
    let run = with_schema(Ai::new(&server.url))
        .args(&["--json", "which tests fail?"])
        .run();
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(run.json()["answer"], json!({"failing": ["parse::empty"]}));
    let bodies = server.chat_bodies();
    assert_eq!(bodies.len(), 2);
    let retry = last_user_text(&bodies[1]);
    assert!(retry.contains(BAD_ERROR), "{retry}");
    assert!(bodies[1]["response_format"].is_object());
}

#[test]
fn openai_second_miss_exits_1_naming_what_failed() {
    let server = FakeServer::start(vec![text_reply(BAD), text_reply("All tests pass.")]);
    let run = with_schema(Ai::new(&server.url))
        .arg("which tests fail?")
        .run();
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert_eq!(run.stdout, "");
    // The second miss is prose: the error names that; the retry named the first one's type.
    assert!(
        run.stderr.contains("schema.json") && run.stderr.contains("not JSON"),
        "{}",
        run.stderr
    );
    let bodies = server.chat_bodies();
    assert_eq!(bodies.len(), 2, "exactly one retry");
    assert!(last_user_text(&bodies[1]).contains(BAD_ERROR));
}

#[test]
fn a_missing_or_broken_schema_file_is_one_line_and_exit_2() {
    let server = FakeServer::start(vec![]);
    let run = Ai::new(&server.url)
        .args(&["--output-schema", "nope.json", "hi"])
        .run();
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert_eq!(run.stderr.trim().lines().count(), 1, "{}", run.stderr);
    assert!(run.stderr.contains("nope.json"), "{}", run.stderr);
    let run = Ai::new(&server.url)
        .file("s.json", r#"{"type": "strin"}"#)
        .env("SWEBASH_AI_OUTPUT_SCHEMA", "s.json")
        .arg("hi")
        .run();
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(
        run.stderr.contains("SWEBASH_AI_OUTPUT_SCHEMA") && run.stderr.contains("unknown type"),
        "{}",
        run.stderr
    );
    assert!(server.chat_bodies().is_empty(), "no request was made");
}

fn anthropic_call(name: &str, input: &Value) -> Reply {
    sse(&[
        (
            "message_start",
            json!({"type": "message_start", "message": {"usage": {"input_tokens": 30}}}),
        ),
        (
            "content_block_start",
            json!({"type": "content_block_start", "index": 0, "content_block": {"type": "tool_use", "id": "toolu_9", "name": name, "input": {}}}),
        ),
        (
            "content_block_delta",
            json!({"type": "content_block_delta", "index": 0, "delta": {"type": "input_json_delta", "partial_json": input.to_string()}}),
        ),
        (
            "content_block_stop",
            json!({"type": "content_block_stop", "index": 0}),
        ),
        (
            "message_delta",
            json!({"type": "message_delta", "delta": {"stop_reason": "tool_use"}, "usage": {"output_tokens": 20}}),
        ),
        ("message_stop", json!({"type": "message_stop"})),
    ])
}

#[test]
fn anthropic_answers_by_a_forced_final_tool() {
    let good: Value = serde_json::from_str(GOOD).expect("json");
    let server = FakeServer::start(vec![anthropic_call("final_answer", &good)]);
    let run = with_schema(anthropic(&server))
        .args(&["--json", "which tests fail?"])
        .run();
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(run.json()["answer"], good);
    let body = &server.chat_bodies()[0];
    assert_eq!(body["tool_choice"], json!({"type": "any"}));
    let tools = body["tools"].as_array().cloned().unwrap_or_default();
    let last = tools.last().cloned().unwrap_or(Value::Null);
    assert_eq!(last["name"], json!("final_answer"));
    assert_eq!(last["input_schema"], schema());
    assert!(tools.len() > 1, "the real tools are still offered");
}

#[test]
fn anthropic_retries_once_then_fails() {
    let bad: Value = serde_json::from_str(BAD).expect("json");
    let server = FakeServer::start(vec![
        anthropic_call("final_answer", &bad),
        anthropic_call("final_answer", &bad),
    ]);
    let run = with_schema(anthropic(&server))
        .arg("which tests fail?")
        .run();
    assert_retried_then_failed(&run, &server.chat_bodies());
}

#[test]
fn gemini_sends_a_response_schema_when_no_tools_are_on_offer() {
    let server = FakeServer::start(vec![gemini_text(GOOD)]);
    let run = with_schema(gemini(&server))
        .args(&["--no-tools", "--json", "which tests fail?"])
        .run();
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(run.json()["answer"], json!({"failing": ["parse::empty"]}));
    let config = &server.chat_bodies()[0]["generationConfig"];
    assert_eq!(config["responseMimeType"], json!("application/json"));
    assert_eq!(config["responseSchema"]["required"], json!(["failing"]));
}

#[test]
fn gemini_with_tools_gets_the_schema_on_the_retry_instead_of_the_tools() {
    let server = FakeServer::start(vec![
        gemini_events(&[
            json!({"candidates": [{"content": {"role": "model", "parts": [{"text": BAD}]}, "finishReason": "STOP"}]}),
        ]),
        gemini_text(BAD),
    ]);
    let run = with_schema(gemini(&server)).arg("which tests fail?").run();
    let bodies = server.chat_bodies();
    assert_retried_then_failed(&run, &bodies);
    assert!(bodies[0]["tools"].is_array());
    assert!(bodies[0]["generationConfig"]["responseSchema"].is_null());
    assert!(bodies[1]["tools"].is_null(), "{}", bodies[1]["tools"]);
    assert!(bodies[1]["generationConfig"]["responseSchema"].is_object());
}

#[test]
fn ollama_sends_format_and_retries_once_then_fails() {
    let server = FakeServer::start(vec![ollama_text(BAD), ollama_text(BAD)]);
    let run = with_schema(ollama(&server))
        .args(&["--no-tools", "which tests fail?"])
        .run();
    let bodies = server.chat_bodies();
    assert_retried_then_failed(&run, &bodies);
    assert_eq!(bodies[0]["format"], schema());
    assert_eq!(bodies[1]["format"], schema());
}

#[test]
fn ollama_with_tools_keeps_them_until_the_retry_which_carries_the_format() {
    let server = FakeServer::start(vec![ollama_text(BAD), ollama_text(GOOD)]);
    let run = with_schema(ollama(&server))
        .args(&["--json", "which tests fail?"])
        .run();
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(run.json()["answer"], json!({"failing": ["parse::empty"]}));
    let bodies = server.chat_bodies();
    assert!(bodies[0]["tools"].is_array() && bodies[0]["format"].is_null());
    assert!(bodies[1]["tools"].is_null() && bodies[1]["format"] == schema());
}

#[test]
fn prompt_based_constrained_mode_asks_for_the_schema_as_its_response() {
    let server = FakeServer::start(vec![text_reply(&format!("{{\"response\": {GOOD}}}"))]);
    let run = with_schema(Ai::new(&server.url))
        .env("SWEBASH_AI_TOOL_FORMAT", "hermes")
        .env("SWEBASH_AI_CONSTRAIN", "true")
        .args(&["--json", "which tests fail?"])
        .run();
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(run.json()["answer"], json!({"failing": ["parse::empty"]}));
    let format = &server.chat_bodies()[0]["response_format"];
    let shapes = format["schema"]["oneOf"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    assert!(
        shapes
            .iter()
            .any(|s| s["properties"]["response"] == schema()),
        "{format}"
    );
}
