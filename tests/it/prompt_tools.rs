//! Prompt-based tool calling end to end: a text-only model writes calls in its family's format,
//! `ai` runs them and sends the results back in that family's form.

use serde_json::{Value, json};

use crate::harness::Ai;
use crate::server::{FakeServer, Reply, status, text_reply};

/// The messages of the last request the server got.
fn last_messages(server: &FakeServer) -> Vec<Value> {
    server
        .chat_bodies()
        .last()
        .and_then(|b| b["messages"].as_array().cloned())
        .unwrap_or_default()
}

fn run_family(family: &str, call_text: &str) -> (FakeServer, crate::harness::Run) {
    let server = FakeServer::start(vec![
        text_reply(call_text),
        text_reply("The version is 0.3.1."),
    ]);
    let run = Ai::new(&server.url)
        .file("Cargo.toml", "[package]\nversion = \"0.3.1\"\n")
        .args(&["--json", "--tool-format", family, "what version?"])
        .run();
    (server, run)
}

const READ: &str = r#"{"operation": "read", "path": "Cargo.toml"}"#;

#[test]
fn every_family_runs_a_text_call_and_answers_in_its_own_form() {
    let cases = [
        ("generic", format!("<TOOL_CALL>{{\"tool\": \"filesystem\", \"args\": {READ}}}</TOOL_CALL>"), "user", "TOOL_RESULT: {"),
        ("hermes", format!("<tool_call>\n{{\"name\": \"filesystem\", \"arguments\": {READ}}}\n</tool_call>"), "user", "<tool_response>"),
        ("qwen", "<tool_call>\n<function=filesystem>\n<parameter=operation>\nread\n</parameter>\n<parameter=path>\nCargo.toml\n</parameter>\n</function>\n</tool_call>".to_string(), "user", "<tool_response>"),
        ("llama3", format!("{{\"name\": \"filesystem\", \"parameters\": {READ}}}"), "tool", "{\"output\":"),
        ("mistral", format!("[TOOL_CALLS] [{{\"name\": \"filesystem\", \"arguments\": {READ}}}]"), "user", "[TOOL_RESULTS]"),
        ("json", format!("{{\"name\": \"filesystem\", \"arguments\": {READ}}}"), "user", "Result of filesystem"),
        ("gemma", "<|tool_call>call:filesystem{operation:<|\"|>read<|\"|>,path:<|\"|>Cargo.toml<|\"|>}<tool_call|>".to_string(), "user", "<|tool_response>response:filesystem"),
        ("lfm2", "<|tool_call_start|>[filesystem(operation=\"read\", path=\"Cargo.toml\")]<|tool_call_end|>".to_string(), "tool", "0.3.1"),
        ("granite", format!("<tool_call>{{\"name\": \"filesystem\", \"arguments\": {READ}}}</tool_call>"), "user", "<tool_response>"),
    ];
    for (family, call, role, marker) in cases {
        let (server, run) = run_family(family, &call);
        assert_eq!(run.code, 0, "{family}: {}", run.stderr);
        let result = run.json();
        assert_eq!(result["tool_format"], json!(family));
        assert_eq!(
            result["answer"],
            json!("The version is 0.3.1."),
            "{family}: the call text is not shown"
        );
        assert_eq!(
            result["tool_calls"][0]["name"],
            json!("filesystem"),
            "{family}"
        );
        assert_eq!(result["tool_calls"][0]["ok"], json!(true), "{family}");
        let bodies = server.chat_bodies();
        assert!(
            bodies[0].get("tools").is_none(),
            "{family}: no native tools"
        );
        let system = bodies[0]["messages"][0]["content"].as_str().unwrap_or("");
        assert!(
            system.contains("filesystem"),
            "{family}: tools are described in the prompt"
        );
        let messages = last_messages(&server);
        let assistant = &messages[messages.len() - 2];
        assert_eq!(assistant["role"], json!("assistant"));
        assert_eq!(
            assistant["content"],
            json!(call),
            "{family}: the model sees its own call"
        );
        let answer = messages.last().cloned().unwrap_or_default();
        assert_eq!(answer["role"], json!(role), "{family}");
        let content = answer["content"].as_str().unwrap_or("");
        assert!(content.contains(marker), "{family}: {content}");
        assert!(
            content.contains("0.3.1"),
            "{family}: the file's text went back"
        );
    }
}

#[test]
fn a_malformed_call_is_answered_with_tool_error_and_the_loop_goes_on() {
    let server = FakeServer::start(vec![
        text_reply("<TOOL_CALL>{\"tool\": \"filesystem\", \"args\": {\"path\" \"x\"}}</TOOL_CALL>"),
        text_reply("Sorry, giving up."),
    ]);
    let run = Ai::new(&server.url)
        .args(&["--json", "--tool-format", "generic", "go"])
        .run();
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(run.json()["iterations"], json!(2));
    let feedback = last_messages(&server).last().cloned().unwrap_or_default();
    let text = feedback["content"].as_str().unwrap_or("");
    assert!(
        text.starts_with("TOOL_ERROR: PARSE_ERROR: a malformed tool call"),
        "{text}"
    );
    assert!(
        text.ends_with("Write the call again as <TOOL_CALL>{\"tool\": \"tool_name\", \"args\": {\"key\": \"value\"}}</TOOL_CALL>"),
        "{text}"
    );
}

#[test]
fn an_unknown_tool_in_text_is_a_tool_error_the_model_can_fix() {
    let server = FakeServer::start(vec![
        text_reply("<TOOL_CALL>{\"tool\": \"read_file\", \"args\": {\"path\": \"a\"}}</TOOL_CALL>"),
        text_reply("ok"),
    ]);
    let run = Ai::new(&server.url)
        .args(&["--json", "--tool-format", "generic", "go"])
        .run();
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(
        run.json()["tool_calls"][0]["error"]["code"],
        json!("TOOL_NOT_FOUND")
    );
    let text = last_messages(&server)
        .last()
        .map(|m| m["content"].to_string())
        .unwrap_or_default();
    assert!(text.contains("TOOL_ERROR: read_file"), "{text}");
}

#[test]
fn a_server_that_rejects_native_tools_switches_to_prompt_based_calling() {
    let server = FakeServer::start(vec![
        status(
            400,
            r#"{"error":{"message":"tools are not supported by this model"}}"#,
        ),
        text_reply(
            "<tool_call>{\"name\": \"filesystem\", \"arguments\": {\"operation\": \"exists\", \"path\": \"x\"}}</tool_call>",
        ),
        text_reply("It does not exist."),
    ]);
    let run = Ai::new(&server.url)
        .args(&["-m", "qwen2.5-7b-instruct", "does x exist?"])
        .run();
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(run.stdout, "It does not exist.\n");
    assert!(
        run.stderr.contains("using the prompt-based `qwen` format"),
        "{}",
        run.stderr
    );
    let bodies = server.chat_bodies();
    assert!(bodies[0].get("tools").is_some());
    assert!(bodies[1].get("tools").is_none());
    assert!(
        bodies[1]["messages"][0]["content"]
            .as_str()
            .unwrap_or("")
            .contains("<tools>")
    );
}

#[test]
fn a_call_leaked_into_native_content_is_run() {
    let leaked =
        "{\"name\": \"filesystem\", \"arguments\": {\"operation\": \"exists\", \"path\": \"x\"}}";
    let server = FakeServer::start(vec![text_reply(leaked), text_reply("No.")]);
    let run = Ai::new(&server.url)
        .args(&["--json", "-m", "llama3.1:8b", "does x exist?"])
        .run();
    assert_eq!(run.code, 0, "{}", run.stderr);
    let result = run.json();
    assert_eq!(result["tool_calls"][0]["name"], json!("filesystem"));
    let messages = last_messages(&server);
    assert_eq!(
        messages[messages.len() - 2]["tool_calls"][0]["function"]["name"],
        json!("filesystem")
    );
    assert_eq!(messages[messages.len() - 1]["role"], json!("tool"));
}

#[test]
fn a_leaked_call_to_an_unlisted_tool_stays_text() {
    let server = FakeServer::start(vec![text_reply(
        "{\"name\": \"get_weather\", \"arguments\": {}}",
    )]);
    let run = Ai::new(&server.url)
        .args(&["--json", "-m", "llama3", "hi"])
        .run();
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(run.json()["tool_calls"], json!([]));
}

#[test]
fn constrained_output_asks_for_a_schema_and_reads_the_json() {
    let server = FakeServer::start(vec![
        Reply::Whole(
            json!({"choices": [{"index": 0, "message": {"role": "assistant",
            "content": "{\"tool_call\": {\"name\": \"filesystem\", \"arguments\": {\"operation\": \"exists\", \"path\": \"x\"}}}"}}]}),
        ),
        Reply::Whole(
            json!({"choices": [{"index": 0, "message": {"role": "assistant", "content": "{\"response\": \"No such file.\"}"}}]}),
        ),
    ]);
    let run = Ai::new(&server.url)
        .env("SWEBASH_AI_CONSTRAIN", "1")
        .args(&[
            "--no-stream",
            "--tool-format",
            "generic",
            "--json",
            "does x exist?",
        ])
        .run();
    assert_eq!(run.code, 0, "{}", run.stderr);
    let result = run.json();
    assert_eq!(result["answer"], json!("No such file."));
    assert_eq!(result["tool_calls"][0]["name"], json!("filesystem"));
    let body = &server.chat_bodies()[0];
    assert_eq!(body["response_format"]["type"], json!("json_object"));
    assert!(body["response_format"]["schema"]["oneOf"].is_array());
}

#[test]
fn parse_tool_calls_prints_calls_content_and_diagnostics() {
    let text = "Let me look.\n<tool_call>{'name': 'f', 'arguments': {'a': True}}</tool_call>\n<tool_call>{\"name\": \"g\", \"arguments\": {\"b\": \"cut";
    let run = Ai::bare()
        .args(&["--parse-tool-calls", "hermes"])
        .stdin(text)
        .run();
    assert_eq!(run.code, 0, "{}", run.stderr);
    let value = run.json();
    assert_eq!(
        value["calls"],
        json!([{"name": "f", "arguments": {"a": true}}])
    );
    assert_eq!(value["content"], json!("Let me look."));
    assert_eq!(value["diagnostics"].as_array().map(Vec::len), Some(1));
    let typed = Ai::bare()
        .args(&["--parse-tool-calls", "qwen"])
        .stdin("<think>plan</think><function=execute_command>\n<parameter=command>\n42\n</parameter>\n<parameter=timeout_seconds>\n5\n</parameter>\n</function>")
        .run();
    assert_eq!(
        typed.json()["calls"],
        json!([{"name": "execute_command", "arguments": {"command": "42", "timeout_seconds": 5}}]),
        "the built-in tools' schemas type raw values"
    );
    assert_eq!(typed.json()["reasoning"], json!("plan"));
    let bad = Ai::bare()
        .args(&["--parse-tool-calls", "klingon"])
        .stdin("x")
        .run();
    assert_eq!(bad.code, 2);
}

/// README shows one `--parse-tool-calls` example per family; each prints what README says.
#[test]
fn the_readme_examples_of_parse_tool_calls_hold_for_every_family() {
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md"))
        .unwrap_or_default();
    let lines: Vec<&str> = readme.lines().collect();
    let mut families = Vec::new();
    for (n, line) in lines.iter().enumerate() {
        let Some(rest) = line.strip_prefix("$ echo '") else {
            continue;
        };
        let Some((input, family)) = rest.rsplit_once("' | ai --parse-tool-calls ") else {
            continue;
        };
        let run = Ai::bare()
            .args(&["--parse-tool-calls", family])
            .stdin(format!("{input}\n"))
            .run();
        let want: Value = serde_json::from_str(lines.get(n + 1).unwrap_or(&"")).unwrap_or_default();
        assert_eq!(run.json(), want, "{line}");
        families.push(family.to_string());
    }
    for family in [
        "generic", "hermes", "qwen", "llama3", "mistral", "json", "gemma", "lfm2", "granite",
    ] {
        assert!(
            families.iter().any(|f| f == family),
            "no README example for {family}"
        );
    }
}

#[test]
fn streamed_prompt_based_text_hides_the_call_markup() {
    let server = FakeServer::start(vec![
        text_reply(
            "Checking now. <TOOL_CALL>{\"tool\": \"filesystem\", \"args\": {\"operation\": \"exists\", \"path\": \"x\"}}</TOOL_CALL>",
        ),
        text_reply("Done."),
    ]);
    let run = Ai::new(&server.url)
        .args(&["--tool-format", "generic", "go"])
        .run();
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(!run.stdout.contains("TOOL_CALL"), "{}", run.stdout);
    assert!(run.stdout.starts_with("Checking now."), "{}", run.stdout);
    assert!(run.stdout.trim_end().ends_with("Done."), "{}", run.stdout);
}

/// Reasoning is its own `--jsonl` event and never part of the answer, and a call drafted inside
/// it is not run.
#[test]
fn reasoning_is_its_own_jsonl_event_and_never_the_answer() {
    let server = FakeServer::start(vec![text_reply(
        "<think>maybe <tool_call>{\"name\": \"filesystem\", \"arguments\": {\"operation\": \"exists\", \"path\": \"x\"}}</tool_call></think>It is 4.",
    )]);
    let run = Ai::new(&server.url)
        .args(&["--jsonl", "--tool-format", "qwen", "go"])
        .run();
    assert_eq!(run.code, 0, "{}", run.stderr);
    let events: Vec<Value> = run
        .stdout
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect();
    let of = |kind: &str| -> Vec<&Value> { events.iter().filter(|e| e["type"] == kind).collect() };
    let reasoning = of("reasoning.delta");
    assert_eq!(reasoning.len(), 1, "{}", run.stdout);
    assert!(
        reasoning[0]["text"]
            .as_str()
            .unwrap_or("")
            .starts_with("maybe")
    );
    assert!(of("tool_call.started").is_empty(), "{}", run.stdout);
    let answer = &of("run.completed")[0]["answer"];
    assert_eq!(answer, &json!("It is 4."));
}

#[test]
fn json_reports_the_format_in_force_after_a_switch() {
    let server = FakeServer::start(vec![
        status(
            400,
            r#"{"error":{"message":"this model does not support tools"}}"#,
        ),
        text_reply("Plain answer."),
    ]);
    let run = Ai::new(&server.url)
        .args(&["--json", "-m", "hermes-3-llama-3.1-8b", "hi"])
        .run();
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(run.json()["tool_format"], json!("hermes"));
}
