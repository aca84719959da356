//! End to end against a real llama.cpp server (llama-cpp-python) with a real model, SmolLM2-135M:
//! `.ci/run` starts it with `../shared/realllm/setup.sh` and runs these with `--ignored` and
//! `REALLLM_BASE_URL` set. They check protocol behaviour, never the quality of the answers.
#![allow(clippy::expect_used, clippy::unwrap_used, clippy::panic)]
// The library denies `pub` that nothing outside can reach; a test binary's helpers are `pub` for
// its own modules, and nothing outside it exists.
#![allow(unreachable_pub)]

#[path = "it/harness.rs"]
#[allow(dead_code)]
mod harness;

use serde_json::json;

use harness::Ai;

fn server() -> String {
    std::env::var("REALLLM_BASE_URL")
        .expect("REALLLM_BASE_URL: start the server with ../shared/realllm/setup.sh")
}

fn ai() -> Ai {
    Ai::bare()
        .env("SWEBASH_AI_BASE_URL", &server())
        .env("SWEBASH_AI_HTTP_TIMEOUT", "300")
        .env("SWEBASH_AI_HTTP_IDLE_TIMEOUT", "120")
}

#[test]
#[ignore = "needs the real llama.cpp server; .ci/run starts it"]
fn a_plain_streamed_answer_arrives() {
    let run = ai()
        .args(&["--json", "--no-tools", "Say hello in one short sentence."])
        .run();
    assert_eq!(run.code, 0, "{}", run.stderr);
    let result = run.json();
    assert_eq!(result["status"], json!("ok"));
    assert_eq!(
        result["model"],
        json!("smollm2"),
        "the model is the one /models lists"
    );
    assert!(!result["answer"].as_str().unwrap_or("").trim().is_empty());
}

#[test]
#[ignore = "needs the real llama.cpp server; .ci/run starts it"]
fn a_forced_native_tool_call_is_executed_and_answered() {
    let run = ai()
        .file(
            "Cargo.toml",
            "[package]\nname = \"demo\"\nversion = \"0.3.1\"\n",
        )
        .env("SWEBASH_AI_TOOL_CHOICE", "filesystem")
        .env("SWEBASH_AI_TOOLS_MAX_ITER", "3")
        // The tiny model may name a file outside the working directory; --yes lets the read
        // happen (and fail or not) instead of ending the run for want of a terminal.
        .args(&[
            "--json",
            "--yes",
            "--tools",
            "fs",
            "What version is in Cargo.toml? Read the file Cargo.toml.",
        ])
        .run();
    let result = run.json();
    let status = result["status"].as_str().unwrap_or("");
    assert!(
        status == "ok" || status == "limit",
        "status {status}: {}",
        run.stderr
    );
    let calls = result["tool_calls"].as_array().cloned().unwrap_or_default();
    assert!(
        !calls.is_empty(),
        "the forced first request made a call: {result}"
    );
    assert_eq!(calls[0]["name"], json!("filesystem"));
    assert!(calls[0]["decision"].is_string());
    assert!(
        result["iterations"].as_u64().unwrap_or(0) >= 2,
        "the call's result went back to the model"
    );
}

#[test]
#[ignore = "needs the real llama.cpp server; .ci/run starts it"]
fn a_constrained_prompt_based_call_is_parsed_and_executed() {
    let run = ai()
        .file("notes.txt", "hello\n")
        .env("SWEBASH_AI_CONSTRAIN", "1")
        .env("SWEBASH_AI_TOOL_CHOICE", "filesystem")
        .env("SWEBASH_AI_TOOLS_MAX_ITER", "4")
        .args(&[
            "--json",
            "--yes",
            "--tools",
            "fs",
            "--tool-format",
            "generic",
            "--no-stream",
            "Use the filesystem tool to list the directory .",
        ])
        .run();
    let result = run.json();
    let status = result["status"].as_str().unwrap_or("");
    assert!(
        status == "ok" || status == "limit",
        "status {status}: {}",
        run.stderr
    );
    assert_eq!(result["tool_format"], json!("generic"));
    // The first request's schema allows only a call of the named tool, shaped by its schema:
    // it is parsed and checked. The server's grammar converter ignores some keywords (it let
    // `"offset": -1` through once), so a call may still fail validation and be answered with an
    // error the model corrects; one of the calls must pass and run (whatever the file system
    // says of its path).
    let calls = result["tool_calls"].as_array().cloned().unwrap_or_default();
    assert!(!calls.is_empty(), "{result}");
    assert!(
        calls.iter().all(|c| c["name"] == json!("filesystem")),
        "{result}"
    );
    assert!(
        calls
            .iter()
            .all(|c| c["arguments"]["operation"].is_string() && c["arguments"]["path"].is_string()),
        "{result}"
    );
    assert!(
        calls.iter().any(|c| c["decision"] != json!("invalid")),
        "{result}"
    );
}
