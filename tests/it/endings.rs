//! Every way a run can end, after the flags are parsed, ends `--json` and `--jsonl` with one
//! result object carrying `status` and `error.kind`: a script piping into `jq` always has one
//! to read, whatever went wrong (a bad setting, no provider, a server down, Ctrl-C).

use std::io::Read;
use std::net::TcpListener;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::harness::{Ai, finish};
use crate::server::{FakeServer, text_reply};

/// A URL on 127.0.0.1 where nothing listens.
fn closed_port() -> String {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let url = format!("http://{}/v1", listener.local_addr().expect("addr"));
    drop(listener);
    url
}

/// The last object on stdout: the `--json` object, or `--jsonl`'s `run.completed` event.
fn last_object(stdout: &str, jsonl: bool) -> Value {
    let lines: Vec<&str> = stdout.lines().collect();
    if !jsonl {
        assert_eq!(lines.len(), 1, "one object: {stdout:?}");
    }
    let last = lines.last().unwrap_or_else(|| panic!("nothing on stdout"));
    let value: Value = serde_json::from_str(last).expect("JSON");
    if jsonl {
        assert_eq!(value["type"], json!("run.completed"), "{stdout}");
    }
    value
}

#[test]
fn every_early_exit_ends_with_a_result_object() {
    let server = FakeServer::start(vec![]);
    let down = closed_port();
    let rows: Vec<(&str, Ai, Vec<&str>, i32, &str)> = vec![
        (
            "a bad setting",
            Ai::new(&server.url).env("SWEBASH_AI_TOOLS_MAX_ITER", "abc"),
            vec!["hi"],
            2,
            "config",
        ),
        (
            "a malformed config file",
            Ai::new(&server.url).config("tools_fs = "),
            vec!["hi"],
            2,
            "config",
        ),
        (
            "an unknown key under [policy]",
            Ai::new(&server.url).config("[policy]\nalow = [\"git *\"]\n"),
            vec!["hi"],
            2,
            "config",
        ),
        ("no provider", Ai::bare(), vec!["hi"], 2, "config"),
        ("no prompt", Ai::new(&server.url), vec![], 2, "config"),
        (
            "an unknown conversation",
            Ai::new(&server.url),
            vec!["--resume", "1-1", "hi"],
            2,
            "config",
        ),
        (
            "a server down while the model is asked for",
            Ai::bare().env("SWEBASH_AI_BASE_URL", &down),
            vec!["hi"],
            1,
            "network",
        ),
        (
            "a server down during the turn",
            Ai::new(&down).env("SWEBASH_AI_HTTP_RETRIES", "0"),
            vec!["hi"],
            1,
            "network",
        ),
    ];
    for (what, ai, args, code, kind) in rows {
        for flag in ["--json", "--jsonl"] {
            let mut all = vec![flag];
            all.extend(&args);
            let run = ai.run_with(&all);
            assert_eq!(run.code, code, "{what} {flag}: {}", run.stderr);
            let result = last_object(&run.stdout, flag == "--jsonl");
            assert_eq!(result["status"], json!("error"), "{what} {flag}");
            assert_eq!(result["error"]["kind"], json!(kind), "{what} {flag}");
            assert_eq!(result["schema_version"], json!(1), "{what} {flag}");
            assert!(
                run.stderr.contains("ai: error:"),
                "{what} {flag}: the report is still on stderr: {}",
                run.stderr
            );
        }
    }
    assert!(server.chat_bodies().is_empty(), "no row reached a turn");
}

#[test]
fn ctrl_c_while_the_model_is_asked_for_ends_json_with_interrupted_and_130() {
    // A server that accepts and never answers: `ai` waits for its model list.
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let url = format!("http://{}/v1", listener.local_addr().expect("addr"));
    let (accepted, connected) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut held = Vec::new();
        for stream in listener.incoming().flatten() {
            held.push(stream);
            let _ = accepted.send(());
        }
    });
    let ai = Ai::bare()
        .env("SWEBASH_AI_BASE_URL", &url)
        .args(&["--json", "hi"]);
    let started = Instant::now();
    let mut child = ai.spawn();
    connected
        .recv_timeout(Duration::from_secs(10))
        .expect("ai connects");
    let killed = std::process::Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status();
    assert!(killed.map(|s| s.success()).unwrap_or(false));
    let mut stdout = String::new();
    let mut pipe = child.stdout.take().expect("stdout");
    pipe.read_to_string(&mut stdout).expect("read");
    let run = finish(child.wait_with_output().expect("wait"));
    assert_eq!(run.code, 130, "{}", run.stderr);
    assert!(started.elapsed() < Duration::from_secs(10));
    let result = last_object(&stdout, false);
    assert_eq!(result["status"], json!("interrupted"));
    assert_eq!(result["error"]["kind"], json!("interrupted"));
}

#[test]
fn a_one_shot_answer_can_be_followed_up_with_resume() {
    let server = FakeServer::start(vec![
        text_reply("Two errors: E1 and E2."),
        text_reply("E2 is a type error."),
    ]);
    let ai = Ai::new(&server.url);
    let first = ai.run_with(&["what errors are there?"]);
    assert_eq!(first.code, 0, "{}", first.stderr);
    let second = ai.run_with(&["--resume", "and the second error?"]);
    assert_eq!(second.code, 0, "{}", second.stderr);
    assert_eq!(second.stdout, "E2 is a type error.\n");
    assert!(
        second.stderr.contains("Resuming 'what errors are there?'"),
        "{}",
        second.stderr
    );
    let bodies = server.chat_bodies();
    let users = crate::repl::user_messages(&bodies[1]);
    assert_eq!(users, ["what errors are there?", "and the second error?"]);
    assert!(
        bodies[1].to_string().contains("Two errors: E1 and E2."),
        "the first answer is carried: {}",
        bodies[1]
    );
    // One conversation, two turns, listed once.
    let history = ai.run_with(&["--history", "--json"]);
    let listed: Value = serde_json::from_str(&history.stdout).expect("history JSON");
    assert_eq!(listed.as_array().map(Vec::len), Some(1), "{listed}");
    assert_eq!(listed[0]["turns"], json!(2));
    assert_eq!(listed[0]["mode"], json!("oneshot"));
}

#[test]
fn a_misspelt_table_in_the_config_file_is_a_warning_with_the_name_it_meant() {
    let server = FakeServer::start(vec![text_reply("Fine.")]);
    let run = Ai::new(&server.url)
        .config("[polciy]\ndeny = [\"git push*\"]\n")
        .arg("hi")
        .run();
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stderr.contains("`polciy` in ")
            && run
                .stderr
                .contains("line 1 is not a setting of ai (did you mean [policy]?)"),
        "{}",
        run.stderr
    );
    // An unknown key under [policy] is a refusal to start: a deny rule that never applies is
    // worse than none.
    let run = Ai::new(&server.url)
        .config("[policy]\ndney = [\"git push*\"]\n")
        .arg("hi")
        .run();
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(
        run.stderr.contains("unknown field `dney`"),
        "{}",
        run.stderr
    );
}
