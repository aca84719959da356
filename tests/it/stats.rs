//! `ai --stats` after a scripted session: the counts agree with the audit log line by line, and
//! 10,000 audit lines are summed quickly.

use std::time::Instant;

use serde_json::{Value, json};

use crate::harness::Ai;
use crate::server::{FakeServer, text_reply, tool_reply};

fn audit_lines(ai: &Ai) -> Vec<Value> {
    std::fs::read_to_string(ai.state_dir().join("swebash-ai/audit.jsonl"))
        .unwrap_or_default()
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect()
}

#[test]
fn stats_after_a_session_match_the_audit_log() {
    let server = FakeServer::start(vec![
        // Run 1: a read, then an answer (2 model requests).
        tool_reply(&[(
            "c1",
            "filesystem",
            json!({"operation": "read", "path": "a"}),
        )]),
        text_reply("A."),
        // Run 2: a failing command and a working one, then an answer.
        tool_reply(&[
            ("c2", "execute_command", json!({"command": "ls missing"})),
            ("c3", "execute_command", json!({"command": "echo hi"})),
        ]),
        text_reply("B."),
        // Run 3: no tools.
        text_reply("C."),
    ]);
    let ai = Ai::new(&server.url).file("a", "alpha");
    for question in ["read a", "run things", "just talk"] {
        assert_eq!(ai.run_with(&[question]).code, 0);
    }
    let run = ai.run_with(&["--stats", "--json"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let stats: Value = serde_json::from_str(&run.stdout).expect("one JSON object");
    let lines = audit_lines(&ai);
    let calls = lines.iter().filter(|l| l["tool"].is_string()).count();
    let turns = lines.iter().filter(|l| l["type"] == "turn").count();
    assert_eq!((calls, turns), (3, 3));
    assert_eq!(stats["tool_calls"], json!(calls));
    assert_eq!(stats["turns"], json!(turns));
    let exec = &stats["tools"]["execute_command"];
    assert_eq!(exec["calls"], 2);
    assert_eq!(exec["succeeded"], 1);
    assert_eq!(exec["failed"], 1);
    assert_eq!(stats["tools"]["filesystem"]["succeeded"], 1);
    assert_eq!(stats["iterations"]["2"], 2);
    assert_eq!(stats["iterations"]["1"], 1);
    let model = &stats["models"]["openai/fake-model"];
    assert_eq!(model["with_tools"]["turns"], 2);
    assert_eq!(model["without_tools"]["turns"], 1);
    // The fake server reports 30 + 20 tokens in for a tool turn, 20 for a plain one.
    assert_eq!(model["without_tools"]["input_tokens"], 20);
    assert_eq!(model["with_tools"]["input_tokens"], 100);
    let table = ai.run_with(&["--stats"]).stdout;
    assert!(
        table.contains("execute_command") && table.contains("50.0%"),
        "{table}"
    );
    let bad = ai.run_with(&["--stats", "--since", "a week"]);
    assert_eq!(bad.code, 2, "{}", bad.stderr);
}

#[test]
fn ten_thousand_audit_lines_are_summed_quickly() {
    let ai = Ai::bare();
    let dir = ai.state_dir().join("swebash-ai");
    std::fs::create_dir_all(&dir).expect("mkdir");
    let mut log = String::new();
    for n in 0..10_000u64 {
        if n % 4 == 3 {
            log.push_str(&format!(
                "{{\"type\":\"turn\",\"time_unix_ms\":{n},\"model\":\"openai/m\",\"iterations\":{},\"tool_calls\":3,\"input_tokens\":900,\"output_tokens\":80}}\n",
                n % 5 + 1
            ));
        } else {
            log.push_str(&format!(
                "{{\"time_unix_ms\":{n},\"tool\":\"execute_command\",\"arguments\":{{\"command\":\"cargo test --workspace -- --nocapture {n}\"}},\"decision\":\"allow\",\"decided_by\":\"policy\",\"ok\":true,\"exit_code\":{},\"duration_ms\":{},\"error\":null}}\n",
                n % 2,
                n % 1000
            ));
        }
    }
    std::fs::write(dir.join("audit.jsonl"), log).expect("write log");
    let started = Instant::now();
    let run = ai.run_with(&["--stats", "--json"]);
    let elapsed = started.elapsed();
    assert_eq!(run.code, 0, "{}", run.stderr);
    let stats: Value = serde_json::from_str(&run.stdout).expect("JSON");
    assert_eq!(stats["tool_calls"], 7_500);
    assert_eq!(stats["turns"], 2_500);
    // The whole process, start to exit (about 40 ms here, see the README); the bound is generous
    // so a busy CI machine does not fail it.
    assert!(elapsed.as_millis() < 2_000, "{elapsed:?}");
}
