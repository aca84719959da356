//! The loop's rules against the fake server: limits, duplicate calls, invalid calls, parallel
//! calls, forced tool choice, and paths outside the working directory.

use serde_json::{Value, json};

use crate::harness::Ai;
use crate::server::{FakeServer, Reply, text_reply, tool_reply};

fn tool_message(body: &Value, index_from_end: usize) -> Value {
    let messages = body["messages"].as_array().expect("messages");
    let message = &messages[messages.len() - 1 - index_from_end];
    assert_eq!(message["role"], json!("tool"));
    serde_json::from_str(message["content"].as_str().expect("content")).expect("tool result JSON")
}

fn read(path: &str) -> Value {
    json!({"operation": "read", "path": path})
}

#[test]
fn max_iterations_ends_with_limit_exit_4_and_keeps_the_partial_answer() {
    let mut first = crate::server::text_chunks("Looking.");
    first.truncate(first.len() - 2);
    if let Reply::Stream(calls) = tool_reply(&[("c1", "filesystem", read("a"))]) {
        first.extend(calls.into_iter().skip(1));
    }
    let server = FakeServer::start(vec![
        Reply::Stream(first),
        tool_reply(&[("c2", "filesystem", read("b"))]),
        tool_reply(&[("c3", "filesystem", read("c"))]),
    ]);
    let run = Ai::new(&server.url)
        .file("a", "A")
        .file("b", "B")
        .file("c", "C")
        .args(&["--json", "--max-iterations", "2", "loop forever"])
        .run();
    assert_eq!(run.code, 4, "stderr: {}", run.stderr);
    let result = run.json();
    assert_eq!(result["status"], json!("limit"));
    assert_eq!(result["error"]["kind"], json!("limit"));
    assert_eq!(result["answer"], json!("Looking."));
    assert_eq!(result["iterations"], json!(2));
    assert_eq!(server.chat_bodies().len(), 2, "no third request");
    assert!(
        run.stderr.contains("SWEBASH_AI_TOOLS_MAX_ITER"),
        "{}",
        run.stderr
    );
}

#[test]
fn max_tool_calls_stops_mid_reply_and_answers_the_rest_as_not_run() {
    let server = FakeServer::start(vec![tool_reply(&[
        ("c1", "filesystem", read("a")),
        ("c2", "filesystem", read("b")),
        ("c3", "filesystem", read("c")),
    ])]);
    let run = Ai::new(&server.url)
        .file("a", "A")
        .file("b", "B")
        .file("c", "C")
        .env("SWEBASH_AI_TOOLS_MAX_CALLS", "2")
        .args(&["--json", "read everything"])
        .run();
    assert_eq!(run.code, 4, "stderr: {}", run.stderr);
    let result = run.json();
    assert_eq!(result["status"], json!("limit"));
    assert_eq!(result["tool_calls"].as_array().map(Vec::len), Some(2));
    assert!(
        result["error"]["message"]
            .as_str()
            .unwrap_or("")
            .contains("SWEBASH_AI_TOOLS_MAX_CALLS")
    );
}

#[test]
fn parallel_calls_are_all_run_and_answered_in_order() {
    let server = FakeServer::start(vec![
        tool_reply(&[
            ("c1", "filesystem", read("a")),
            ("c2", "filesystem", read("b")),
        ]),
        text_reply("A and B."),
    ]);
    let run = Ai::new(&server.url)
        .file("a", "alpha")
        .file("b", "beta")
        .args(&["--json", "read a and b"])
        .run();
    assert_eq!(run.code, 0, "stderr: {}", run.stderr);
    let bodies = server.chat_bodies();
    let first = tool_message(&bodies[1], 1);
    let second = tool_message(&bodies[1], 0);
    assert!(
        first["data"]["content"]
            .as_str()
            .unwrap_or("")
            .contains("alpha")
    );
    assert!(
        second["data"]["content"]
            .as_str()
            .unwrap_or("")
            .contains("beta")
    );
    let messages = bodies[1]["messages"].as_array().expect("messages");
    assert_eq!(messages[messages.len() - 2]["tool_call_id"], json!("c1"));
    assert_eq!(messages[messages.len() - 1]["tool_call_id"], json!("c2"));
}

#[test]
fn an_identical_call_is_answered_with_the_earlier_result_marked_duplicate() {
    let server = FakeServer::start(vec![
        tool_reply(&[("c1", "filesystem", read("a"))]),
        tool_reply(&[(
            "c2",
            "filesystem",
            json!({"path": "a", "operation": "read"}),
        )]),
        text_reply("Done."),
    ]);
    let run = Ai::new(&server.url)
        .file("a", "alpha")
        .args(&["--json", "read a twice"])
        .run();
    assert_eq!(run.code, 0, "stderr: {}", run.stderr);
    let result = run.json();
    assert_eq!(result["tool_calls"][0]["decision"], json!("allow"));
    assert_eq!(result["tool_calls"][1]["decision"], json!("duplicate"));
    let repeated = tool_message(&server.chat_bodies()[2], 0);
    assert!(
        repeated["data"]["content"]
            .as_str()
            .unwrap_or("")
            .contains("alpha")
    );
    assert!(
        repeated["note"]
            .as_str()
            .unwrap_or("")
            .contains("duplicate")
    );
}

#[test]
fn invalid_arguments_are_answered_with_a_validation_error_naming_the_field() {
    let server = FakeServer::start(vec![
        tool_reply(&[("c1", "filesystem", json!({"operation": "read"}))]),
        tool_reply(&[("c2", "filesystem", read("a"))]),
        text_reply("Fixed it."),
    ]);
    let run = Ai::new(&server.url)
        .file("a", "alpha")
        .args(&["--json", "read a"])
        .run();
    assert_eq!(run.code, 0, "stderr: {}", run.stderr);
    let result = run.json();
    assert_eq!(result["tool_calls"][0]["decision"], json!("invalid"));
    assert_eq!(result["tool_calls"][0]["ok"], json!(false));
    assert_eq!(
        result["tool_calls"][0]["error"]["code"],
        json!("INVALID_ARGUMENTS")
    );
    let answer = tool_message(&server.chat_bodies()[1], 0);
    assert_eq!(answer["success"], json!(false));
    assert_eq!(answer["error_type"], json!("validation_error"));
    assert!(
        answer["error"].as_str().unwrap_or("").contains("`path`"),
        "{answer}"
    );
    assert_eq!(result["tool_calls"][1]["ok"], json!(true));
}

#[test]
fn an_unknown_tool_and_unparseable_arguments_are_errors_the_model_sees() {
    let garbled = Reply::Stream(vec![
        json!({"choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0, "id": "c2", "function": {"name": "filesystem", "arguments": "{\"path\": "}}]}, "finish_reason": null}]}),
        json!({"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]}),
    ]);
    let server = FakeServer::start(vec![
        tool_reply(&[("c1", "rm_rf", json!({}))]),
        garbled,
        text_reply("Sorry."),
    ]);
    let run = Ai::new(&server.url).args(&["--json", "do it"]).run();
    assert_eq!(run.code, 0, "stderr: {}", run.stderr);
    let result = run.json();
    assert_eq!(
        result["tool_calls"][0]["error"]["code"],
        json!("TOOL_NOT_FOUND")
    );
    assert_eq!(
        result["tool_calls"][1]["error"]["code"],
        json!("PARSE_ERROR")
    );
    let bodies = server.chat_bodies();
    let unknown = tool_message(&bodies[1], 0);
    assert_eq!(unknown["error_type"], json!("validation_error"));
    assert!(
        unknown["suggestion"]
            .as_str()
            .unwrap_or("")
            .contains("filesystem")
    );
    // The garbled call goes back to the server exactly as the model wrote it.
    let messages = bodies[2]["messages"].as_array().expect("messages");
    assert_eq!(
        messages[messages.len() - 2]["tool_calls"][0]["function"]["arguments"],
        json!("{\"path\": ")
    );
}

#[test]
fn a_path_outside_the_roots_asks_and_without_a_terminal_is_denied_with_exit_3() {
    let server = FakeServer::start(vec![
        tool_reply(&[("c1", "filesystem", read("../../home/secret"))]),
        text_reply("I cannot."),
    ]);
    let ai = Ai::new(&server.url).env("SWEBASH_AI_FS_ROOTS", "cwd");
    std::fs::write(ai.home().join("secret"), "s3cret").expect("write");
    let run = ai.args(&["--json", "read the secret"]).run();
    assert_eq!(run.code, 3, "stderr: {}", run.stderr);
    let result = run.json();
    assert_eq!(result["status"], json!("denied"));
    assert_eq!(result["error"]["kind"], json!("denied"));
    assert_eq!(result["tool_calls"][0]["decision"], json!("denied"));
    assert_eq!(result["tool_calls"][0]["error"]["code"], json!("DENIED"));
    // The refusal ends the run: the model is not asked again, so it cannot route around it.
    assert_eq!(server.chat_bodies().len(), 1);
    assert!(!run.stdout.contains("s3cret"));
}

#[test]
fn tool_choice_forces_the_first_request_only() {
    let server = FakeServer::start(vec![
        tool_reply(&[("c1", "filesystem", read("a"))]),
        text_reply("ok"),
    ]);
    let run = Ai::new(&server.url)
        .file("a", "x")
        .env("SWEBASH_AI_TOOL_CHOICE", "filesystem")
        .args(&["-q", "hi"])
        .run();
    assert_eq!(run.code, 0, "stderr: {}", run.stderr);
    let bodies = server.chat_bodies();
    assert_eq!(
        bodies[0]["tool_choice"],
        json!({"type": "function", "function": {"name": "filesystem"}})
    );
    assert!(bodies[1].get("tool_choice").is_none());
}

#[test]
fn no_tools_sends_no_tools() {
    let server = FakeServer::start(vec![text_reply("plain")]);
    let run = Ai::new(&server.url).args(&["--no-tools", "hi"]).run();
    assert_eq!(run.code, 0);
    assert!(server.chat_bodies()[0].get("tools").is_none());
}

#[test]
fn reading_a_fifo_is_refused_and_the_run_finishes() {
    let server = FakeServer::start(vec![
        tool_reply(&[("c1", "filesystem", read("pipe"))]),
        text_reply("It is a pipe."),
    ]);
    let ai = Ai::new(&server.url).args(&["--json", "read the pipe"]);
    let made = std::process::Command::new("mkfifo")
        .arg(ai.work().join("pipe"))
        .status()
        .expect("mkfifo");
    assert!(made.success());
    // No writer ever opens the pipe: opening it to read would block `ai` forever.
    let run = ai.run();
    assert_eq!(run.code, 0, "{}", run.stderr);
    let result = tool_message(&server.chat_bodies()[1], 0);
    assert_eq!(result["success"], json!(false));
    assert!(
        result["error"]
            .as_str()
            .is_some_and(|e| e.contains("not a regular file")),
        "{result}"
    );
}

#[test]
fn a_three_iteration_tool_run_uses_one_connection() {
    let server = FakeServer::start(vec![
        tool_reply(&[("c1", "filesystem", read("a"))]),
        tool_reply(&[("c2", "execute_command", json!({"command": "ls"}))]),
        text_reply("Done."),
    ]);
    let run = Ai::new(&server.url)
        .file("a", "A")
        .args(&["--json", "look around"])
        .run();
    assert_eq!(run.code, 0, "stderr: {}", run.stderr);
    assert_eq!(run.json()["iterations"], json!(3));
    assert_eq!(server.chat_bodies().len(), 3);
    assert_eq!(
        server.connections(),
        1,
        "every request after the first should reuse the kept-alive connection"
    );
}

fn exec(command: &str) -> Value {
    json!({"command": command})
}

#[test]
fn a_command_rerun_after_an_approved_fix_runs_again_and_sees_the_fix() {
    // The npm test → npm install → npm test case: the second run must not be the first's result.
    let server = FakeServer::start(vec![
        tool_reply(&[("c1", "execute_command", exec("cat marker"))]),
        tool_reply(&[("c2", "execute_command", exec("echo fixed > marker"))]),
        tool_reply(&[("c3", "execute_command", exec("cat marker"))]),
        text_reply("Fixed."),
    ]);
    let run = Ai::new(&server.url)
        .args(&["--json", "--yes", "check, fix, check"])
        .run();
    assert_eq!(run.code, 0, "stderr: {}", run.stderr);
    let result = run.json();
    let decisions: Vec<&Value> = result["tool_calls"]
        .as_array()
        .expect("calls")
        .iter()
        .map(|call| &call["decision"])
        .collect();
    assert!(!decisions.contains(&&json!("duplicate")), "{decisions:?}");
    assert_eq!(result["tool_calls"][0]["exit_code"], json!(1));
    assert_eq!(result["tool_calls"][2]["exit_code"], json!(0));
    let rerun = tool_message(&server.chat_bodies()[3], 0);
    assert!(rerun.to_string().contains("fixed"), "{rerun}");
}

#[test]
fn a_command_is_never_replayed_even_with_nothing_in_between() {
    let server = FakeServer::start(vec![
        tool_reply(&[("c1", "execute_command", exec("date +%N"))]),
        tool_reply(&[("c2", "execute_command", exec("date +%N"))]),
        text_reply("Two clocks."),
    ]);
    let run = Ai::new(&server.url).args(&["--json", "time twice"]).run();
    assert_eq!(run.code, 0, "stderr: {}", run.stderr);
    let result = run.json();
    assert_eq!(result["tool_calls"][0]["decision"], json!("allow"));
    assert_eq!(result["tool_calls"][1]["decision"], json!("allow"));
}

#[test]
fn a_read_after_a_command_reads_again() {
    let server = FakeServer::start(vec![
        tool_reply(&[("c1", "filesystem", read("a"))]),
        tool_reply(&[("c2", "execute_command", exec("echo beta > a"))]),
        tool_reply(&[("c3", "filesystem", read("a"))]),
        text_reply("Changed."),
    ]);
    let run = Ai::new(&server.url)
        .file("a", "alpha")
        .args(&["--json", "--yes", "read, write, read"])
        .run();
    assert_eq!(run.code, 0, "stderr: {}", run.stderr);
    let result = run.json();
    assert_eq!(result["tool_calls"][2]["decision"], json!("allow"));
    let again = tool_message(&server.chat_bodies()[3], 0);
    assert!(
        again["data"]["content"]
            .as_str()
            .unwrap_or("")
            .contains("beta"),
        "{again}"
    );
}

#[test]
fn several_files_are_read_in_one_call_with_token_estimates() {
    let server = FakeServer::start(vec![
        tool_reply(&[(
            "c1",
            "filesystem",
            json!({"operation": "read", "paths": ["a", "b", "missing"]}),
        )]),
        text_reply("Read."),
    ]);
    let run = Ai::new(&server.url)
        .file("a", "alpha\n")
        .file("b", "beta\n")
        .args(&["--json", "read both"])
        .run();
    assert_eq!(run.code, 0, "stderr: {}", run.stderr);
    let result = tool_message(&server.chat_bodies()[1], 0);
    assert_eq!(result["success"], json!(true), "{result}");
    let files = &result["data"]["files"];
    assert!(files[0]["content"].as_str().unwrap_or("").contains("alpha"));
    assert!(files[1]["content"].as_str().unwrap_or("").contains("beta"));
    assert!(result["data"]["estimated_tokens"].as_u64().unwrap_or(0) > 0);
    assert_eq!(result["data"]["left_out"][0]["path"], json!("missing"));
}

#[test]
fn a_secret_among_several_paths_blocks_the_whole_read() {
    let server = FakeServer::start(vec![
        tool_reply(&[(
            "c1",
            "filesystem",
            json!({"operation": "read", "paths": ["a", ".env"]}),
        )]),
        text_reply("Blocked."),
    ]);
    let run = Ai::new(&server.url)
        .file("a", "alpha\n")
        .file(".env", "TOKEN=s3cret\n")
        .args(&["--json", "read them"])
        .run();
    assert_eq!(run.code, 0, "stderr: {}", run.stderr);
    let result = run.json();
    assert_eq!(result["tool_calls"][0]["decision"], json!("blocked"));
    let bodies = server.chat_bodies();
    assert!(!bodies[1].to_string().contains("s3cret"));
    assert!(!bodies[1].to_string().contains("alpha"), "nothing was read");
}

#[test]
fn a_path_outside_the_roots_among_several_asks_for_the_whole_call() {
    let server = FakeServer::start(vec![
        tool_reply(&[(
            "c1",
            "filesystem",
            json!({"operation": "read", "paths": ["a", "../../home/notes"]}),
        )]),
        text_reply("Asked."),
    ]);
    let ai = Ai::new(&server.url)
        .file("a", "alpha\n")
        .env("SWEBASH_AI_FS_ROOTS", "cwd");
    std::fs::write(ai.home().join("notes"), "private notes").expect("write");
    let run = ai.args(&["--json", "read them"]).run();
    assert_eq!(run.code, 3, "stderr: {}", run.stderr);
    assert_eq!(run.json()["tool_calls"][0]["decision"], json!("denied"));
    assert!(!run.stdout.contains("private notes"));
}

#[test]
fn the_approval_of_several_paths_names_every_one_that_asks() {
    let server = FakeServer::start(vec![tool_reply(&[(
        "c1",
        "filesystem",
        json!({"operation": "read", "paths": ["a", "../../home/one", "../../home/two"]}),
    )])]);
    let ai = Ai::new(&server.url)
        .file("a", "alpha\n")
        .env("SWEBASH_AI_FS_ROOTS", "cwd");
    std::fs::write(ai.home().join("one"), "1").expect("write");
    std::fs::write(ai.home().join("two"), "2").expect("write");
    let run = ai.args(&["read them"]).run();
    assert_eq!(run.code, 3, "stderr: {}", run.stderr);
    // Both paths are in what needed approval (an "always" would remember exactly this set).
    assert!(
        run.stderr.contains("/home/one") && run.stderr.contains("/home/two"),
        "{}",
        run.stderr
    );
}
