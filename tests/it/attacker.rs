//! The attacker of the sandbox tests: project code the policy lets run without asking (`make`
//! with a Makefile the test writes), run as the model's one call with no terminal.

use serde_json::json;

use crate::harness::Ai;
use crate::server::{FakeServer, text_reply, tool_reply};

/// Runs `make` (whose recipe is `recipe`, each line silent and allowed to fail) as the model's one call,
/// in `ai`'s working directory.
pub fn make_in(ai: Ai, recipe: &[&str]) -> (Ai, String) {
    let (ai, stderr, _) = make_in_with_server(ai, recipe);
    (ai, stderr)
}

/// The same, with the server (the requests it received).
pub fn make_in_with_server(ai: Ai, recipe: &[&str]) -> (Ai, String, FakeServer) {
    let mut makefile = String::from("all:\n");
    for line in recipe {
        makefile.push_str(&format!("\t-@{line}\n"));
    }
    let ai = ai.file("Makefile", &makefile);
    let server = FakeServer::start(vec![
        tool_reply(&[("c1", "execute_command", json!({"command": "make"}))]),
        text_reply("done"),
    ]);
    let ai = ai
        .env("SWEBASH_AI_BASE_URL", &server.url)
        .args(&["--json", "build it"]);
    let run = ai.run();
    (ai, run.stderr, server)
}

/// Runs each of `commands` (through `sh -c`) as a call of its own in one session, approved by
/// `--yes` (so inside the sandbox), then a final answer.
pub fn calls_in_one_session(ai: Ai, commands: &[String]) -> (Ai, crate::harness::Run, FakeServer) {
    let mut script: Vec<_> = commands
        .iter()
        .enumerate()
        .map(|(i, command)| {
            tool_reply(&[(
                &format!("c{i}"),
                "execute_command",
                json!({"command": format!("sh -c '{command}'")}),
            )])
        })
        .collect();
    script.push(text_reply("done"));
    let server = FakeServer::start(script);
    let ai = ai
        .env("SWEBASH_AI_BASE_URL", &server.url)
        .args(&["--json", "--yes", "go"]);
    let run = ai.run();
    (ai, run, server)
}

/// Everything the model was sent, as one text.
pub fn sent(server: &FakeServer) -> String {
    server
        .chat_bodies()
        .iter()
        .map(serde_json::Value::to_string)
        .collect::<Vec<_>>()
        .join("\n")
}
