//! Faults: `ai` killed with SIGKILL at random points of a streamed multi-tool run leaves every
//! saved file readable and `--resume` working; twenty `ai` at once never interleave a line of the
//! audit log or the history.

use std::io::{BufRead, BufReader};
use std::path::Path;

use serde_json::{Value, json};

use crate::harness::{Ai, finish};
use crate::server::{FakeServer, Reply, text_reply, tool_reply};

/// A tool call that runs a command, one that reads a file, then a long streamed answer.
fn multi_tool_script(runs: usize) -> Vec<Reply> {
    let answer = "word ".repeat(60);
    (0..runs)
        .flat_map(|_| {
            [
                tool_reply(&[("c1", "execute_command", json!({"command": "echo one"}))]),
                tool_reply(&[(
                    "c2",
                    "filesystem",
                    json!({"operation": "read", "path": "notes.txt"}),
                )]),
                text_reply(&answer),
            ]
        })
        .collect()
}

/// Every line of every file under `dir` with this extension, which must each be JSON.
fn json_lines_under(dir: &Path, file_name: impl Fn(&str) -> bool) -> Vec<Value> {
    let mut values = Vec::new();
    for entry in std::fs::read_dir(dir).expect("read dir").flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if !file_name(&name) {
            continue;
        }
        let text = std::fs::read_to_string(entry.path()).expect("read file");
        for line in text.lines() {
            let value = serde_json::from_str(line)
                .unwrap_or_else(|err| panic!("{name}: unreadable line {line:?}: {err}"));
            values.push(value);
        }
    }
    values
}

/// A small deterministic generator: the kill points differ run to run but not test to test.
fn kill_points(count: usize) -> Vec<usize> {
    let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
    (0..count)
        .map(|_| {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            usize::try_from(state >> 59).expect("small") // 0..32 events
        })
        .collect()
}

#[test]
fn sigkill_at_random_points_leaves_every_file_readable_and_resume_working() {
    const RUNS: usize = 50;
    let server = FakeServer::start(multi_tool_script(RUNS + 2));
    let ai = Ai::new(&server.url).file("notes.txt", "some notes\n");
    for (run, events) in kill_points(RUNS).into_iter().enumerate() {
        let question = format!("question {run}");
        let mut child = ai.spawn_with(&["--jsonl", "--yes", &question], b"");
        let mut stdout = BufReader::new(child.stdout.take().expect("stdout"));
        // Kill after the n-th event of the run (0: as soon as it starts).
        for _ in 0..events {
            let mut line = String::new();
            if stdout.read_line(&mut line).expect("read event") == 0 {
                break;
            }
        }
        child.kill().expect("SIGKILL");
        child.wait().expect("reap");
    }
    let data = ai.root_dir().join("data/swebash-ai/conversations");
    let saved = json_lines_under(&data, |name| name.ends_with(".jsonl"));
    assert!(
        saved.iter().any(|v| v["role"] == "user"),
        "some questions were saved before the kills"
    );
    let audit = json_lines_under(&ai.state_dir().join("swebash-ai"), |name| {
        name.starts_with("audit.jsonl")
    });
    assert!(
        audit
            .iter()
            .all(|line| line["tool"].is_string() || line["type"] == "turn")
    );

    // Resumed by id, in the REPL.
    let listed = ai.run_with(&["--history", "--json"]);
    let listed: serde_json::Value = serde_json::from_str(&listed.stdout).expect("history JSON");
    let id = listed[0]["id"].as_str().expect("an id").to_string();
    let resumed = finish(
        ai.spawn_with(&["-i", "--resume", &id, "--yes"], b"and now?\n")
            .wait_with_output()
            .expect("wait"),
    );
    assert_eq!(resumed.code, 0, "{}", resumed.stderr);
    let last = server.chat_bodies().pop().expect("a request");
    let users: Vec<&str> = last["messages"]
        .as_array()
        .expect("messages")
        .iter()
        .filter(|m| m["role"] == "user")
        .filter_map(|m| m["content"].as_str())
        .collect();
    assert!(
        users.len() >= 2 && users.iter().any(|u| u.starts_with("question ")),
        "the resumed conversation reached the model: {users:?}"
    );
}

#[test]
fn twenty_ai_at_once_never_interleave_audit_or_history_lines() {
    const PROCESSES: usize = 20;
    let script: Vec<Reply> = (0..PROCESSES)
        .flat_map(|n| {
            [
                tool_reply(&[(
                    "c1",
                    "execute_command",
                    json!({"command": format!("echo {n}")}),
                )]),
                text_reply("Done."),
            ]
        })
        .collect();
    let server = FakeServer::start(script);
    let ai = Ai::new(&server.url);
    let children: Vec<_> = (0..PROCESSES)
        .map(|n| {
            let input = format!("question number {n} {}\n", "x".repeat(2000));
            ai.spawn_with(&["-i", "--yes"], input.as_bytes())
        })
        .collect();
    for child in children {
        let run = finish(child.wait_with_output().expect("wait"));
        assert_eq!(run.code, 0, "{}", run.stderr);
    }
    let audit = json_lines_under(&ai.state_dir().join("swebash-ai"), |name| {
        name == "audit.jsonl"
    });
    let calls = audit.iter().filter(|line| line["type"] != "turn").count();
    assert_eq!(calls, PROCESSES, "one line per tool call");
    let turns = audit.iter().filter(|line| line["type"] == "turn").count();
    assert_eq!(turns, PROCESSES, "one line per turn");
    let history = std::fs::read_to_string(ai.root_dir().join("data/swebash-ai/history"))
        .expect("the history file");
    let entries: Vec<&str> = history.lines().filter(|l| !l.starts_with("#V")).collect();
    for n in 0..PROCESSES {
        let expected = format!("question number {n} {}", "x".repeat(2000));
        assert!(
            entries.contains(&expected.as_str()),
            "question {n} is in the history whole"
        );
    }
    assert!(
        entries.iter().all(|e| e.starts_with("question number ")),
        "no line is a mix of two"
    );
}

#[test]
fn an_unwritable_data_and_state_dir_give_one_warning_each_and_the_answer_prints() {
    let server = FakeServer::start(vec![
        tool_reply(&[("c1", "execute_command", json!({"command": "echo hi"}))]),
        text_reply("Still answered."),
    ]);
    let ai = Ai::new(&server.url).file("blocker", "a file where directories should be");
    let blocker = ai.work().join("blocker").display().to_string();
    let ai = ai
        .env("XDG_DATA_HOME", &blocker)
        .env("XDG_STATE_HOME", &blocker)
        .arg("go");
    let run = ai.run();
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(run.stdout, "Still answered.\n");
    let warnings: Vec<&str> = run
        .stderr
        .lines()
        .filter(|l| l.starts_with("ai: warning:"))
        .collect();
    assert_eq!(warnings.len(), 2, "{}", run.stderr);
    assert!(warnings[0].contains("not audited") || warnings[1].contains("not audited"));
    assert!(
        warnings
            .iter()
            .any(|w| w.contains("conversation is not saved"))
    );
}

#[test]
fn a_corrupt_history_file_is_set_aside_with_a_warning() {
    let server = FakeServer::start(vec![text_reply("Fine.")]);
    let ai = Ai::new(&server.url);
    let history = ai.root_dir().join("data/swebash-ai/history");
    std::fs::create_dir_all(history.parent().expect("parent")).expect("mkdir");
    std::fs::write(&history, b"#V2\n\xff\xfe\xfd not text\n").expect("write");
    let run = finish(
        ai.spawn_with(&["-i"], b"a new line\n")
            .wait_with_output()
            .expect("wait"),
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stderr.contains("the history file") && run.stderr.contains("is unreadable"),
        "{}",
        run.stderr
    );
    let saved = std::fs::read_to_string(&history).expect("a new history");
    assert!(saved.contains("a new line"), "{saved:?}");
    assert!(history.with_extension("corrupt").exists());
}
