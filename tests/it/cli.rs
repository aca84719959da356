//! The command line as a user and a script meet it: settings and their errors, `--show-config`,
//! piped stdin, exit codes, Ctrl-C and a closed pipe.

use std::io::Read;
use std::time::Duration;

use serde_json::json;

use crate::harness::{Ai, finish};
use crate::server::{FakeServer, Reply, text_chunks, text_reply};

#[test]
fn version_and_help_exit_0() {
    let run = Ai::bare().arg("--version").run();
    assert_eq!(run.code, 0);
    assert!(run.stdout.starts_with("ai "), "{}", run.stdout);
    let help = Ai::bare().arg("--help").run();
    assert_eq!(help.code, 0);
    assert!(help.stdout.contains("--json"));
}

#[test]
fn an_unknown_flag_is_a_usage_error() {
    let run = Ai::bare().args(&["--frobnicate", "x"]).run();
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("--frobnicate"));
}

#[test]
fn two_mode_flags_are_a_usage_error_naming_both() {
    for (flags, named) in [
        (&["--history", "--man"][..], ["--history", "--man"]),
        (&["-i", "--list-tools"], ["--interactive", "--list-tools"]),
        (
            &["--command", "--check-command", "ls", "x"],
            ["--command", "--check-command"],
        ),
        (&["--stats", "--show-config"], ["--stats", "--show-config"]),
    ] {
        let run = Ai::bare().run_with(flags);
        assert_eq!(run.code, 2, "{flags:?}: {}", run.stderr);
        assert_eq!(run.stderr.lines().count(), 1, "{}", run.stderr);
        for flag in named {
            assert!(run.stderr.contains(flag), "{flags:?}: {}", run.stderr);
        }
        assert!(run.stdout.is_empty(), "nothing else ran: {}", run.stdout);
    }
}

#[test]
fn an_invalid_env_value_exits_2_naming_the_variable() {
    let run = Ai::bare()
        .env("SWEBASH_AI_TOOLS_MAX_ITER", "abc")
        .arg("hi")
        .run();
    assert_eq!(run.code, 2);
    assert_eq!(
        run.stderr.trim(),
        "ai: error: invalid value \"abc\" for SWEBASH_AI_TOOLS_MAX_ITER: expected a whole number from 1 to 100"
    );
}

#[test]
fn a_malformed_config_file_exits_2_naming_the_file() {
    let ai = Ai::bare().config("tools_fs = [");
    let path = ai.config_file().display().to_string();
    let run = ai.arg("hi").run();
    assert_eq!(run.code, 2);
    assert!(
        run.stderr
            .contains(&format!("cannot read config file {path}")),
        "{}",
        run.stderr
    );
}

#[test]
fn a_toml_error_names_its_line() {
    let ai = Ai::bare().config("model = \"m\"\n\ntools_fs = tru\n");
    let run = ai.arg("hi").run();
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("line 3, column 12"), "{}", run.stderr);
}

/// In a build without the embedded engine (with it, nothing configured means its model: see
/// `pull::first_use`).
#[cfg(not(feature = "local"))]
#[test]
fn no_provider_exits_2_and_says_how_to_configure_one() {
    let run = Ai::bare().arg("hi").run();
    assert_eq!(run.code, 2);
    assert!(
        run.stderr
            .contains("ai: error: no LLM provider is configured"),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains("hint: set SWEBASH_AI_BASE_URL"),
        "{}",
        run.stderr
    );
}

#[test]
fn no_prompt_exits_2() {
    let run = Ai::bare()
        .env("SWEBASH_AI_BASE_URL", "http://127.0.0.1:9/v1")
        .run();
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("no prompt given"));
}

#[test]
fn show_config_tells_each_source_and_redacts_secrets() {
    let run = Ai::bare()
        .config("tools_max_calls = 5\nmodel = \"from-file\"\n")
        .env("SWEBASH_AI_MODEL", "from-env")
        .env("SWEBASH_AI_API_KEY", "sk-secret-value")
        .env("SWEBASH_AI_BASE_URL", "http://127.0.0.1:9/v1")
        .args(&["--show-config", "--max-iterations", "3"])
        .run();
    assert_eq!(run.code, 0, "{}", run.stderr);
    let line = |name: &str| {
        run.stdout
            .lines()
            .find(|l| l.starts_with(name))
            .unwrap_or_default()
            .to_string()
    };
    assert!(
        line("SWEBASH_AI_TOOLS_MAX_ITER ").contains("3")
            && line("SWEBASH_AI_TOOLS_MAX_ITER ").ends_with("(flag)")
    );
    assert!(
        line("SWEBASH_AI_MODEL ").contains("from-env")
            && line("SWEBASH_AI_MODEL ").ends_with("(env)")
    );
    assert!(
        line("SWEBASH_AI_TOOLS_MAX_CALLS ").contains("5")
            && line("SWEBASH_AI_TOOLS_MAX_CALLS ").ends_with("(file)")
    );
    assert!(line("SWEBASH_AI_FS_MAX_SIZE ").ends_with("(default)"));
    assert!(line("SWEBASH_AI_API_KEY ").contains("<redacted>"));
    assert!(!run.stdout.contains("sk-secret-value"));
    assert!(line("effective base URL").contains("http://127.0.0.1:9/v1"));
}

#[test]
fn settings_from_the_config_file_reach_the_run() {
    let server = FakeServer::start(vec![text_reply("ok")]);
    let run = Ai::new(&server.url)
        .unset("SWEBASH_AI_MODEL")
        .config("model = \"file-model\"\ntools_fs = false\ntools_web = false\n")
        .arg("hi")
        .run();
    assert_eq!(run.code, 0, "{}", run.stderr);
    let body = &server.chat_bodies()[0];
    assert_eq!(body["model"], json!("file-model"));
    let names: Vec<&str> = body["tools"]
        .as_array()
        .map(|t| {
            t.iter()
                .filter_map(|t| t["function"]["name"].as_str())
                .collect()
        })
        .unwrap_or_default();
    assert_eq!(names, ["execute_command"]);
}

#[test]
fn piped_stdin_is_appended_to_the_prompt() {
    let server = FakeServer::start(vec![text_reply("It is a typo.")]);
    let run = Ai::new(&server.url)
        .arg("explain this error")
        .stdin("error[E0425]: cannot find value `x`\n")
        .run();
    assert_eq!(run.code, 0, "{}", run.stderr);
    let messages = server.chat_bodies()[0]["messages"].clone();
    let user = messages
        .as_array()
        .and_then(|m| m.last())
        .expect("user message");
    let content = user["content"].as_str().unwrap_or("");
    assert!(content.starts_with("explain this error"));
    assert!(
        content.contains("<stdin>\nerror[E0425]: cannot find value `x`\n</stdin>"),
        "{content}"
    );
}

fn last_message(server: &FakeServer) -> String {
    let messages = server.chat_bodies()[0]["messages"].clone();
    messages
        .as_array()
        .and_then(|m| m.last())
        .map(|m| m["content"].as_str().unwrap_or("").to_string())
        .unwrap_or_default()
}

#[test]
fn stdin_alone_is_the_prompt_and_one_endless_line_keeps_its_start_and_end() {
    let server = FakeServer::start(vec![text_reply("ok")]);
    let big = format!("{}{}", "y".repeat(300 * 1024), "END");
    let run = Ai::new(&server.url).stdin(big).run();
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.stderr.contains("left out"), "{}", run.stderr);
    let content = last_message(&server);
    assert!(content.starts_with("yyyy"));
    assert!(content.ends_with("yyyEND"), "the end is kept");
}

#[test]
fn a_long_log_keeps_its_last_line_and_says_how_many_lines_were_left_out() {
    // The 341 KB build log whose last line is the error: it must reach the model.
    let server = FakeServer::start(vec![text_reply("ok")]);
    let mut log: String = (1..=6500)
        .map(|i| format!("   Compiling crate-{i:05} v1.0.0 (building step {i})\n"))
        .collect();
    log.push_str("error: could not compile `app` (bin \"app\") due to 1 previous error\n");
    assert!(log.len() > 341_000, "{}", log.len());
    let run = Ai::new(&server.url)
        .arg("why does this fail?")
        .stdin(log.clone())
        .run();
    assert_eq!(run.code, 0, "{}", run.stderr);
    let content = last_message(&server);
    assert_eq!(content.matches("error: could not compile `app`").count(), 1);
    let stdin_part = content
        .split("<stdin>\n")
        .nth(1)
        .and_then(|rest| rest.split("\n</stdin>").next())
        .unwrap_or_default();
    // Every line shown is a whole line of the log, but the marker.
    let (shown, marker): (Vec<&str>, Vec<&str>) = stdin_part
        .lines()
        .partition(|line| log.lines().any(|l| l == *line));
    assert_eq!(marker.len(), 1, "{marker:?}");
    let left_out: usize = marker[0]
        .trim_start_matches("[… ")
        .split(' ')
        .next()
        .and_then(|n| n.parse().ok())
        .unwrap_or(0);
    assert_eq!(shown.len() + left_out, 6501, "{}", marker[0]);
    assert!(
        run.stderr.contains(&format!("{left_out} lines")),
        "{}",
        run.stderr
    );
}

#[cfg(unix)]
#[test]
fn ctrl_c_exits_130_and_keeps_the_partial_answer() {
    let mut chunks = text_chunks("half an answer");
    chunks.truncate(2);
    let server = FakeServer::start(vec![Reply::StallAfter(chunks, Duration::from_secs(15))]);
    let ai = Ai::new(&server.url).args(&["--jsonl", "hi"]);
    let mut child = ai.spawn();
    // Interrupt once the partial answer has reached the output (read from the event stream).
    let mut stdout = std::io::BufReader::new(child.stdout.take().expect("stdout"));
    let mut shown = String::new();
    while shown != "half an " {
        let mut line = String::new();
        let read = std::io::BufRead::read_line(&mut stdout, &mut line).expect("read an event");
        assert!(
            read > 0,
            "the stream ended before the partial answer: {shown:?}"
        );
        let event: serde_json::Value = serde_json::from_str(&line).expect("a JSON event");
        if event["type"] == "message.delta" {
            shown.push_str(event["text"].as_str().unwrap_or_default());
        }
    }
    let killed = std::process::Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status();
    assert!(killed.map(|s| s.success()).unwrap_or(false));
    let mut rest = String::new();
    stdout.read_to_string(&mut rest).expect("read the rest");
    let run = finish(child.wait_with_output().expect("wait"));
    assert_eq!(run.code, 130, "stderr: {}", run.stderr);
    let last = rest.lines().last().expect("a last event");
    let completed: serde_json::Value = serde_json::from_str(last).expect("JSON");
    assert_eq!(completed["type"], json!("run.completed"));
    let result = &completed; // the `--json` object, flattened into the event
    assert_eq!(result["status"], json!("interrupted"));
    assert_eq!(result["answer"], json!("half an "));
    assert_eq!(result["error"]["kind"], json!("interrupted"));
}

#[cfg(unix)]
#[test]
fn a_closed_stdout_pipe_is_a_quiet_exit() {
    let before = text_chunks("first words");
    let after = vec![
        json!({"choices": [{"index": 0, "delta": {"content": "more text "}, "finish_reason": null}]}),
    ];
    let server = FakeServer::start(vec![Reply::Gated(before[..2].to_vec(), after)]);
    let ai = Ai::new(&server.url).arg("hi");
    let mut child = ai.spawn();
    let mut stdout = child.stdout.take().expect("stdout");
    let mut first = [0u8; 4];
    stdout.read_exact(&mut first).expect("first bytes");
    drop(stdout);
    server.open_gate();
    let output = child.wait_with_output().expect("wait");
    let run = finish(output);
    assert_eq!(run.code, 0, "stderr: {}", run.stderr);
    assert_eq!(run.stderr, "");
}

#[test]
fn a_panic_is_one_line_asking_for_a_report_and_exit_1() {
    let run = Ai::bare().env("SWEBASH_AI_TEST_PANIC", "1").arg("hi").run();
    assert_eq!(run.code, 1, "{}", run.stderr);
    let lines: Vec<&str> = run.stderr.lines().collect();
    assert_eq!(lines.len(), 1, "{}", run.stderr);
    assert!(
        lines[0].starts_with("ai: internal error: test panic requested")
            && lines[0].ends_with("(please report)"),
        "{}",
        run.stderr
    );
    let traced = Ai::bare()
        .env("SWEBASH_AI_TEST_PANIC", "1")
        .env("RUST_BACKTRACE", "1")
        .arg("hi")
        .run();
    assert_eq!(traced.code, 1);
    assert!(traced.stderr.lines().count() > 1, "{}", traced.stderr);
}
