//! Anthropic, Ollama and Gemini against scripted endpoints of their own protocols: streamed text,
//! a tool round trip with the exact follow-up request, errors and retries; auto-detection and
//! `--list-models`.

use serde_json::{Value, json};

use crate::harness::Ai;
use crate::server::{FakeServer, Reply, status};

const CARGO_TOML: &str = "[package]\nversion = \"0.3.1\"\n";

pub(crate) fn sse(events: &[(&str, Value)]) -> Reply {
    let text: String = events
        .iter()
        .map(|(name, data)| format!("event: {name}\ndata: {data}\n\n"))
        .collect();
    Reply::RawSse(text)
}

fn anthropic_text(text: &str) -> Reply {
    sse(&[
        (
            "message_start",
            json!({"type": "message_start", "message": {"usage": {"input_tokens": 25, "output_tokens": 1}}}),
        ),
        (
            "content_block_start",
            json!({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}),
        ),
        ("ping", json!({"type": "ping"})),
        (
            "content_block_delta",
            json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": &text[..text.len() / 2]}}),
        ),
        (
            "content_block_delta",
            json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": &text[text.len() / 2..]}}),
        ),
        (
            "content_block_stop",
            json!({"type": "content_block_stop", "index": 0}),
        ),
        (
            "message_delta",
            json!({"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": {"output_tokens": 9}}),
        ),
        ("message_stop", json!({"type": "message_stop"})),
    ])
}

fn anthropic_tool_use() -> Reply {
    sse(&[
        (
            "message_start",
            json!({"type": "message_start", "message": {"usage": {"input_tokens": 30}}}),
        ),
        (
            "content_block_start",
            json!({"type": "content_block_start", "index": 0, "content_block": {"type": "tool_use", "id": "toolu_01", "name": "filesystem", "input": {}}}),
        ),
        (
            "content_block_delta",
            json!({"type": "content_block_delta", "index": 0, "delta": {"type": "input_json_delta", "partial_json": "{\"operation\": \"re"}}),
        ),
        (
            "content_block_delta",
            json!({"type": "content_block_delta", "index": 0, "delta": {"type": "input_json_delta", "partial_json": "ad\", \"path\": \"Cargo.toml\"}"}}),
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

pub(crate) fn anthropic(server: &FakeServer) -> Ai {
    Ai::bare()
        .env("SWEBASH_AI_PROVIDER", "anthropic")
        .env("SWEBASH_AI_BASE_URL", &server.root())
        .env("SWEBASH_AI_API_KEY", "sk-ant-test")
        .env("SWEBASH_AI_MODEL", "claude-test")
}

#[test]
fn anthropic_streams_text_with_its_headers_and_shape() {
    let server = FakeServer::start(vec![anthropic_text("Hello from Claude.")]);
    let run = anthropic(&server).args(&["--json", "hi"]).run();
    assert_eq!(run.code, 0, "{}", run.stderr);
    let result = run.json();
    assert_eq!(result["answer"], json!("Hello from Claude."));
    assert_eq!(result["provider"], json!("anthropic"));
    assert_eq!(
        result["usage"],
        json!({"input_tokens": 25, "output_tokens": 9, "cached_input_tokens": 0})
    );
    let request = &server.chat_requests()[0];
    assert_eq!(request.path, "/v1/messages");
    assert_eq!(request.header("x-api-key"), Some("sk-ant-test"));
    assert_eq!(request.header("anthropic-version"), Some("2023-06-01"));
    assert!(request.body["max_tokens"].as_u64().is_some());
    assert!(
        request.body["system"]
            .as_str()
            .unwrap_or("")
            .contains("terminal")
    );
    assert_eq!(request.body["messages"][0]["role"], json!("user"));
    assert_eq!(request.body["tools"][0]["name"], json!("filesystem"));
    assert!(request.body["tools"][0]["input_schema"].is_object());
}

#[test]
fn anthropic_tool_round_trip_sends_a_tool_result_block() {
    let server = FakeServer::start(vec![anthropic_tool_use(), anthropic_text("It is 0.3.1.")]);
    let run = anthropic(&server)
        .file("Cargo.toml", CARGO_TOML)
        .args(&["--json", "version?"])
        .run();
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(
        run.json()["tool_calls"][0]["arguments"],
        json!({"operation": "read", "path": "Cargo.toml"})
    );
    let follow_up = &server.chat_bodies()[1];
    let messages = follow_up["messages"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let assistant = &messages[messages.len() - 2];
    assert_eq!(
        assistant["content"][0],
        json!({"type": "tool_use", "id": "toolu_01", "name": "filesystem", "input": {"operation": "read", "path": "Cargo.toml"}})
    );
    let result = &messages[messages.len() - 1];
    assert_eq!(result["role"], json!("user"));
    assert_eq!(result["content"][0]["type"], json!("tool_result"));
    assert_eq!(result["content"][0]["tool_use_id"], json!("toolu_01"));
    assert!(
        result["content"][0]["content"]
            .as_str()
            .unwrap_or("")
            .contains("0.3.1")
    );
}

#[test]
fn anthropic_overloaded_is_retried_and_errors_are_clear() {
    let server = FakeServer::start(vec![
        status(
            529,
            r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#,
        ),
        anthropic_text("ok"),
    ]);
    let run = anthropic(&server).args(&["-q", "hi"]).run();
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(server.chat_bodies().len(), 2);

    let server = FakeServer::start(vec![status(
        401,
        r#"{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}"#,
    )]);
    let run = anthropic(&server).arg("hi").run();
    assert_eq!(run.code, 1);
    assert!(
        run.stderr
            .contains("refused the credentials (HTTP 401): invalid x-api-key"),
        "{}",
        run.stderr
    );

    let server = FakeServer::start(vec![status(
        400,
        r#"{"type":"error","error":{"type":"invalid_request_error","message":"max_tokens: too large"}}"#,
    )]);
    let run = anthropic(&server).arg("hi").run();
    assert!(
        run.stderr.contains("max_tokens: too large"),
        "{}",
        run.stderr
    );
}

pub(crate) fn ndjson(lines: &[Value]) -> Reply {
    Reply::Raw(
        "application/x-ndjson",
        lines.iter().map(|l| format!("{l}\n")).collect(),
    )
}

pub(crate) fn ollama_text(text: &str) -> Reply {
    ndjson(&[
        json!({"model": "m", "message": {"role": "assistant", "content": &text[..text.len() / 2]}, "done": false}),
        json!({"model": "m", "message": {"role": "assistant", "content": &text[text.len() / 2..]}, "done": false}),
        json!({"model": "m", "message": {"role": "assistant", "content": ""}, "done": true, "prompt_eval_count": 12, "eval_count": 4}),
    ])
}

pub(crate) fn ollama(server: &FakeServer) -> Ai {
    Ai::bare()
        .env("SWEBASH_AI_PROVIDER", "ollama")
        .env("OLLAMA_HOST", &server.root().replace("http://", ""))
        .env("SWEBASH_AI_MODEL", "qwen2.5:0.5b")
}

#[test]
fn ollama_streams_ndjson_text() {
    let server = FakeServer::start(vec![ollama_text("Hello from Ollama.")]);
    let run = ollama(&server).args(&["--json", "hi"]).run();
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(run.json()["answer"], json!("Hello from Ollama."));
    assert_eq!(
        run.json()["usage"],
        json!({"input_tokens": 12, "output_tokens": 4, "cached_input_tokens": 0})
    );
    let request = &server.chat_requests()[0];
    assert_eq!(request.path, "/api/chat");
    assert_eq!(
        request.body["tools"][0]["function"]["name"],
        json!("filesystem")
    );
}

#[test]
fn ollama_tool_round_trip_sends_a_tool_message() {
    let server = FakeServer::start(vec![
        ndjson(&[
            json!({"message": {"role": "assistant", "content": "", "tool_calls": [{"function": {"name": "filesystem", "arguments": {"operation": "read", "path": "Cargo.toml"}}}]}, "done": false}),
            json!({"message": {"role": "assistant", "content": ""}, "done": true}),
        ]),
        ollama_text("Version 0.3.1."),
    ]);
    let run = ollama(&server)
        .file("Cargo.toml", CARGO_TOML)
        .args(&["--json", "version?"])
        .run();
    assert_eq!(run.code, 0, "{}", run.stderr);
    let messages = server.chat_bodies()[1]["messages"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let assistant = &messages[messages.len() - 2];
    assert_eq!(
        assistant["tool_calls"][0]["function"]["arguments"],
        json!({"operation": "read", "path": "Cargo.toml"})
    );
    let tool = &messages[messages.len() - 1];
    assert_eq!(tool["role"], json!("tool"));
    assert_eq!(tool["tool_name"], json!("filesystem"));
    assert!(tool["content"].as_str().unwrap_or("").contains("0.3.1"));
}

#[test]
fn ollama_errors_name_the_model_and_5xx_is_retried() {
    let server = FakeServer::start(vec![status(
        404,
        r#"{"error":"model 'nope' not found, try pulling it first"}"#,
    )]);
    let run = ollama(&server).args(&["-m", "nope", "hi"]).run();
    assert_eq!(run.code, 1);
    assert!(
        run.stderr.contains("does not know the model \"nope\""),
        "{}",
        run.stderr
    );

    let server = FakeServer::start(vec![
        status(500, r#"{"error":"busy"}"#),
        ollama_text("fine"),
    ]);
    let run = ollama(&server).args(&["-q", "hi"]).run();
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(run.stdout, "fine\n");
}

pub(crate) fn gemini_events(chunks: &[Value]) -> Reply {
    Reply::RawSse(
        chunks
            .iter()
            .map(|c| format!("data: {c}\r\n\r\n"))
            .collect(),
    )
}

pub(crate) fn gemini_text(text: &str) -> Reply {
    gemini_events(&[
        json!({"candidates": [{"content": {"role": "model", "parts": [{"text": &text[..text.len() / 2]}]}}]}),
        json!({"candidates": [{"content": {"role": "model", "parts": [{"text": &text[text.len() / 2..]}]}, "finishReason": "STOP"}],
               "usageMetadata": {"promptTokenCount": 7, "candidatesTokenCount": 3}}),
    ])
}

pub(crate) fn gemini(server: &FakeServer) -> Ai {
    Ai::bare()
        .env("SWEBASH_AI_PROVIDER", "gemini")
        .env("SWEBASH_AI_BASE_URL", &server.root())
        .env("GEMINI_API_KEY", "g-key")
        .env("SWEBASH_AI_MODEL", "gemini-test")
}

#[test]
fn gemini_streams_text_with_system_instruction_and_declarations() {
    let server = FakeServer::start(vec![gemini_text("Hello from Gemini.")]);
    let run = gemini(&server).args(&["--json", "hi"]).run();
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(run.json()["answer"], json!("Hello from Gemini."));
    let request = &server.chat_requests()[0];
    assert_eq!(
        request.path,
        "/v1beta/models/gemini-test:streamGenerateContent?alt=sse"
    );
    assert_eq!(
        request.header("x-goog-api-key"),
        None,
        "a custom base URL gets no key unless given one"
    );
    assert!(request.body["systemInstruction"]["parts"][0]["text"].is_string());
    let declaration = &request.body["tools"][0]["functionDeclarations"][0];
    assert_eq!(declaration["name"], json!("filesystem"));
    let schema = declaration["parameters"].to_string();
    assert!(
        !schema.contains("$ref")
            && !schema.contains("$schema")
            && !schema.contains("additionalProperties"),
        "{schema}"
    );
}

#[test]
fn gemini_tool_round_trip_sends_a_function_response() {
    let server = FakeServer::start(vec![
        gemini_events(&[
            json!({"candidates": [{"content": {"role": "model", "parts": [{"functionCall": {"name": "filesystem", "args": {"operation": "read", "path": "Cargo.toml"}}}]}, "finishReason": "STOP"}]}),
        ]),
        gemini_text("It is 0.3.1."),
    ]);
    let run = gemini(&server)
        .env("SWEBASH_AI_API_KEY", "g-key")
        .file("Cargo.toml", CARGO_TOML)
        .args(&["--json", "version?"])
        .run();
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(
        server.chat_requests()[0].header("x-goog-api-key"),
        Some("g-key")
    );
    let contents = server.chat_bodies()[1]["contents"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let model = &contents[contents.len() - 2];
    assert_eq!(model["role"], json!("model"));
    assert_eq!(
        model["parts"][0]["functionCall"]["name"],
        json!("filesystem")
    );
    let response = &contents[contents.len() - 1];
    assert_eq!(response["role"], json!("user"));
    assert_eq!(
        response["parts"][0]["functionResponse"]["name"],
        json!("filesystem")
    );
    assert_eq!(
        response["parts"][0]["functionResponse"]["response"]["success"],
        json!(true)
    );
}

#[test]
fn gemini_safety_blocks_and_errors_are_reported() {
    let server = FakeServer::start(vec![gemini_events(&[
        json!({"promptFeedback": {"blockReason": "SAFETY"}}),
    ])]);
    let run = gemini(&server).arg("hi").run();
    assert_eq!(run.code, 1);
    assert!(
        run.stderr.contains("Gemini blocked the answer (SAFETY)"),
        "{}",
        run.stderr
    );

    let server = FakeServer::start(vec![
        Reply::Status {
            status: 429,
            headers: vec![("retry-after", "0".into())],
            body: r#"{"error":{"code":429,"message":"Resource exhausted"}}"#.into(),
        },
        gemini_text("ok then"),
    ]);
    let run = gemini(&server).args(&["-q", "hi"]).run();
    assert_eq!(run.code, 0, "{}", run.stderr);

    let server = FakeServer::start(vec![status(
        400,
        r#"{"error":{"code":400,"message":"API key not valid","status":"INVALID_ARGUMENT"}}"#,
    )]);
    let run = gemini(&server).arg("hi").run();
    assert!(run.stderr.contains("API key not valid"), "{}", run.stderr);
}

#[test]
fn an_anthropic_key_in_the_environment_is_enough() {
    let server = FakeServer::start(vec![anthropic_text("Detected.")]);
    let run = Ai::bare()
        .env("ANTHROPIC_API_KEY", "sk-ant-env")
        .env("ANTHROPIC_BASE_URL", &server.root())
        .env("OPENAI_API_KEY", "sk-openai-env")
        .args(&["-q", "hi"])
        .run();
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(run.stdout, "Detected.\n");
    assert_eq!(
        server.chat_requests()[0].header("x-api-key"),
        Some("sk-ant-env")
    );
}

#[test]
fn a_local_ollama_is_found_by_probing_when_no_key_is_set() {
    // Ollama is looked for where OLLAMA_HOST says: a port this test owns, whatever the machine runs.
    let server = FakeServer::start(vec![ollama_text("Found you.")]);
    let host = server.root().trim_start_matches("http://").to_string();
    let run = Ai::bare()
        .env("SWEBASH_AI_PROBE", "on")
        .env("OLLAMA_HOST", &host)
        .args(&["--json", "hi"])
        .run();
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(run.json()["provider"], json!("ollama"));
    assert_eq!(
        run.json()["model"],
        json!("fake-model"),
        "the first model /api/tags lists"
    );
    assert_eq!(server.chat_requests()[0].path, "/api/chat");
}

#[test]
fn list_models_asks_each_protocol_its_own_way() {
    let server = FakeServer::start_with_models(vec![], vec!["m1".into(), "m2".into()]);
    let openai = Ai::new(&server.url).arg("--list-models").run();
    assert_eq!(openai.stdout, "m1\nm2\n", "{}", openai.stderr);
    let json = Ai::new(&server.url)
        .args(&["--list-models", "--json"])
        .run();
    assert_eq!(json.json(), json!(["m1", "m2"]));
    let ollama_run = ollama(&server).arg("--list-models").run();
    assert_eq!(ollama_run.stdout, "m1\nm2\n", "{}", ollama_run.stderr);
    let gemini_run = gemini(&server).arg("--list-models").run();
    assert_eq!(gemini_run.stdout, "m1\nm2\n", "{}", gemini_run.stderr);
    let anthropic_run = anthropic(&server).arg("--list-models").run();
    assert_eq!(anthropic_run.stdout, "m1\nm2\n", "{}", anthropic_run.stderr);
    let paths: Vec<String> = server.requests().into_iter().map(|r| r.path).collect();
    assert!(
        paths.contains(&"/api/tags".to_string())
            && paths.contains(&"/v1beta/models".to_string())
            && paths.contains(&"/v1/models".to_string()),
        "{paths:?}"
    );
}

#[test]
fn with_probing_off_nothing_configured_is_a_usage_error_even_if_a_server_listens() {
    let server = FakeServer::start(vec![ollama_text("Found you.")]);
    let host = server.root().trim_start_matches("http://").to_string();
    let run = Ai::bare()
        .env("OLLAMA_HOST", &host)
        .args(&["--json", "hi"])
        .run();
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(server.requests().is_empty());
    let bad = Ai::bare().env("SWEBASH_AI_PROBE", "maybe").arg("hi").run();
    assert_eq!(bad.code, 2);
    assert!(bad.stderr.contains("SWEBASH_AI_PROBE"), "{}", bad.stderr);
}
