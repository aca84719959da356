//! The policy end to end: commands run (sandboxed when allowed), asked-for commands fail closed
//! with no terminal, catastrophic ones never run, flags approve, the audit log records it all.

use std::time::Duration;

use serde_json::{Value, json};

use crate::harness::Ai;
use crate::server::{FakeServer, text_reply, tool_reply};

fn exec(command: &str) -> Value {
    json!({"command": command})
}

fn sandbox_enforced() -> bool {
    crate::launcher::require_sandbox()
}

#[test]
fn an_allowed_command_runs_streams_its_output_and_returns_the_exit_code() {
    let server = FakeServer::start(vec![
        tool_reply(&[(
            "c1",
            "execute_command",
            exec("echo out; echo err >&2; exit 7"),
        )]),
        text_reply("It exited 7."),
    ]);
    let run = Ai::new(&server.url).args(&["--jsonl", "run it"]).run();
    assert_eq!(run.code, 0, "{}", run.stderr);
    let events = run.events();
    let output: Vec<&Value> = events
        .iter()
        .filter(|e| e["type"] == "tool_call.output")
        .collect();
    assert!(
        output
            .iter()
            .any(|e| e["stream"] == "stdout" && e["chunk"] == "out\n"),
        "{output:?}"
    );
    assert!(
        output
            .iter()
            .any(|e| e["stream"] == "stderr" && e["chunk"] == "err\n"),
        "{output:?}"
    );
    let completed = events
        .iter()
        .find(|e| e["type"] == "tool_call.completed")
        .cloned()
        .unwrap_or_default();
    assert_eq!(completed["exit_code"], json!(7));
    assert_eq!(completed["decision"], json!("allow"));
    let result = server.last_tool_result();
    assert_eq!(result["data"]["exit_code"], json!(7));
    assert_eq!(result["data"]["stdout"], json!("out\n"));
}

#[test]
fn api_keys_never_reach_the_command() {
    let server = FakeServer::start(vec![
        tool_reply(&[("c1", "execute_command", exec("env"))]),
        text_reply("ok"),
    ]);
    let run = Ai::new(&server.url)
        .env("SWEBASH_AI_API_KEY", "sk-live-secret-1")
        .env("OPENAI_API_KEY", "sk-live-secret-2")
        .env("VISIBLE_VAR", "shown")
        .env("SWEBASH_AI_SANDBOX_ENV", "VISIBLE_VAR,OPENAI_API_KEY")
        // `env` prints every variable, so it asks; approved, it runs in the sandbox with the
        // allowlisted environment and the names the user added, never ai's keys.
        .args(&["-q", "--yes", "show env"])
        .run();
    assert_eq!(run.code, 0, "{}", run.stderr);
    let stdout = server.last_tool_result()["data"]["stdout"]
        .as_str()
        .unwrap_or("")
        .to_string();
    assert!(stdout.contains("VISIBLE_VAR=shown"));
    assert!(!stdout.contains("sk-live-secret"), "{stdout}");
}

#[test]
fn a_timeout_kills_the_whole_process_group_grandchildren_included() {
    let script = "sleep 30 & echo $! > grandchild.pid; sleep 30";
    let server = FakeServer::start(vec![
        tool_reply(&[(
            "c1",
            "execute_command",
            json!({"command": script, "timeout_seconds": 1}),
        )]),
        text_reply("It hung."),
    ]);
    // The redirection asks; --yes approves it, and with the sandbox off it runs as a plain
    // process group (inside the sandbox a PID namespace holds it: sandbox tests cover that).
    let ai = Ai::new(&server.url).args(&["--json", "--yes", "--sandbox", "off", "run it"]);
    let run = ai.run();
    assert_eq!(run.code, 0, "{}", run.stderr);
    let call = &run.json()["tool_calls"][0];
    assert_eq!(call["error"]["code"], json!("TIMEOUT"));
    let pid = std::fs::read_to_string(ai.work().join("grandchild.pid")).unwrap_or_default();
    let pid = pid.trim();
    assert!(!pid.is_empty());
    // The kill is sent before `ai` reports the timeout; the process may take a moment to go.
    let alive = || {
        std::path::Path::new(&format!("/proc/{pid}")).exists()
            && !std::fs::read_to_string(format!("/proc/{pid}/stat"))
                .unwrap_or_default()
                .contains(") Z ")
    };
    let start = std::time::Instant::now();
    while alive() && start.elapsed() < Duration::from_secs(5) {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(!alive(), "grandchild {pid} outlived the timeout");
}

#[test]
fn output_beyond_the_cap_keeps_head_and_tail() {
    let server = FakeServer::start(vec![
        tool_reply(&[("c1", "execute_command", exec("seq 1 100000"))]),
        text_reply("ok"),
    ]);
    let run = Ai::new(&server.url).args(&["--json", "count"]).run();
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(run.json()["tool_calls"][0]["output_truncated"], json!(true));
    let result = server.last_tool_result();
    let stdout = result["data"]["stdout"].as_str().unwrap_or("");
    assert!(stdout.starts_with("1\n2\n3\n"));
    assert!(stdout.trim_end().ends_with("100000"));
    assert!(stdout.contains("bytes omitted"));
    assert!(result["data"]["omitted_bytes"].as_u64().unwrap_or(0) > 400_000);
}

#[test]
fn the_sandbox_blocks_writes_outside_the_working_directory_and_allows_them_inside() {
    let server = FakeServer::start(vec![
        tool_reply(&[("c1", "execute_command", exec("make"))]),
        text_reply("done"),
    ]);
    // Project code the policy allows (a Makefile) tries to write outside the project.
    let ai = Ai::new(&server.url)
        .file(
            "Makefile",
            "all:\n\ttouch inside.txt\n\ttouch ../home/outside.txt\n",
        )
        .args(&["--json", "touch"]);
    let run = ai.run();
    assert!(ai.work().join("inside.txt").exists());
    if sandbox_enforced() {
        assert!(
            !ai.home().join("outside.txt").exists(),
            "the sandbox let a write out"
        );
        // Blocked, never a success; with no terminal to approve a rerun outside, exit 3.
        assert_eq!(run.code, 3, "{}", run.stderr);
        // The run ended at the refusal, so the record in --json is where the result is told.
        let result = run.json()["tool_calls"][0].clone();
        assert_ne!(result["exit_code"], json!(0));
        assert!(
            result["error"]["message"]
                .as_str()
                .unwrap_or("")
                .starts_with("blocked by the sandbox"),
            "{result}"
        );
    } else {
        // Nothing could contain it, so it asks; with no terminal the run ends.
        assert_eq!(run.code, 3, "{}", run.stderr);
        assert!(
            run.stderr.contains("Landlock is not available"),
            "{}",
            run.stderr
        );
    }
}

#[test]
fn read_only_sandbox_blocks_writes_even_in_the_working_directory() {
    if !sandbox_enforced() {
        // Not a silent pass: the output says this kernel could not run the test.
        #[allow(clippy::print_stderr)]
        {
            eprintln!("SKIPPED: Landlock is not enforced on this kernel");
        }
        return;
    }
    let server = FakeServer::start(vec![
        tool_reply(&[("c1", "execute_command", exec("touch inside.txt"))]),
        text_reply("done"),
    ]);
    let ai = Ai::new(&server.url).args(&["-q", "--sandbox", "read-only", "touch"]);
    assert_eq!(
        ai.run().code,
        3,
        "blocked, and no terminal to approve a rerun"
    );
    assert!(!ai.work().join("inside.txt").exists());
}

#[test]
fn rm_rf_build_without_a_terminal_deletes_nothing_and_exits_3() {
    let server = FakeServer::start(vec![
        tool_reply(&[("c1", "execute_command", exec("rm -rf build"))]),
        text_reply("I could not delete it."),
    ]);
    let ai = Ai::new(&server.url)
        .file("build/out.o", "obj")
        .args(&["--json", "clean the build"]);
    let run = ai.run();
    assert_eq!(run.code, 3, "{}", run.stderr);
    assert!(ai.work().join("build/out.o").exists(), "nothing deleted");
    let result = run.json();
    assert_eq!(result["status"], json!("denied"));
    assert_eq!(result["tool_calls"][0]["decision"], json!("denied"));
    let told = &result["tool_calls"][0]["error"]["message"];
    assert!(
        told.as_str()
            .unwrap_or("")
            .contains("no one is at a terminal"),
        "{told}"
    );
    // The run ended at the refusal: the model was asked once and never got a second chance.
    assert_eq!(server.chat_bodies().len(), 1);
    assert!(run.stderr.contains("--yes"), "{}", run.stderr);
}

#[test]
fn rm_rf_home_is_blocked_even_with_yes() {
    let server = FakeServer::start(vec![
        tool_reply(&[("c1", "execute_command", exec("rm -rf ~"))]),
        text_reply("I will not do that."),
    ]);
    let ai = Ai::new(&server.url).args(&["--json", "--yes", "free some space"]);
    std::fs::write(ai.home().join("precious.txt"), "keep").expect("write");
    let run = ai.run();
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(ai.home().join("precious.txt").exists());
    let result = run.json();
    assert_eq!(result["tool_calls"][0]["decision"], json!("blocked"));
    assert_eq!(result["tool_calls"][0]["error"]["code"], json!("BLOCKED"));
    assert_eq!(
        server.last_tool_result()["error_type"],
        json!("security_error")
    );
}

#[test]
fn yes_and_allow_patterns_approve_and_the_command_runs() {
    for flags in [vec!["--yes"], vec!["--allow", "rm -rf build*"]] {
        let server = FakeServer::start(vec![
            tool_reply(&[("c1", "execute_command", exec("rm -rf build"))]),
            text_reply("Deleted."),
        ]);
        let mut args = vec!["--json"];
        args.extend(flags.iter().copied());
        args.push("clean");
        let ai = Ai::new(&server.url).file("build/out.o", "obj").args(&args);
        let run = ai.run();
        assert_eq!(run.code, 0, "{flags:?}: {}", run.stderr);
        assert!(!ai.work().join("build").exists(), "{flags:?}");
        assert_eq!(run.json()["tool_calls"][0]["decision"], json!("approved"));
    }
}

#[test]
fn approval_events_say_who_decided() {
    let server = FakeServer::start(vec![
        tool_reply(&[("c1", "execute_command", exec("rm x"))]),
        text_reply("ok"),
    ]);
    let run = Ai::new(&server.url)
        .file("x", "")
        .args(&["--jsonl", "--allow", "rm *", "go"])
        .run();
    let events = run.events();
    let requested = events
        .iter()
        .find(|e| e["type"] == "approval.requested")
        .cloned()
        .unwrap_or_default();
    assert!(
        requested["reason"]
            .as_str()
            .unwrap_or("")
            .contains("deletes files")
    );
    let decided = events
        .iter()
        .find(|e| e["type"] == "approval.decided")
        .cloned()
        .unwrap_or_default();
    assert_eq!(decided["decision"], json!("approved"));
    assert_eq!(decided["by"], json!("--allow"));
}

#[test]
fn confirm_false_turns_asking_off() {
    let server = FakeServer::start(vec![
        tool_reply(&[("c1", "execute_command", exec("rm x"))]),
        text_reply("ok"),
    ]);
    let ai = Ai::new(&server.url)
        .file("x", "")
        .env("SWEBASH_AI_TOOLS_CONFIRM", "false")
        .args(&["-q", "go"]);
    assert_eq!(ai.run().code, 0);
    assert!(!ai.work().join("x").exists());
}

#[test]
fn a_sensitive_file_is_denied_even_through_a_symlink() {
    let server = FakeServer::start(vec![
        tool_reply(&[(
            "c1",
            "filesystem",
            json!({"operation": "read", "path": "notes.txt"}),
        )]),
        text_reply("no"),
    ]);
    let ai = Ai::new(&server.url).args(&["--json", "--yes", "read notes"]);
    std::fs::create_dir_all(ai.home().join(".ssh")).expect("mkdir");
    std::fs::write(ai.home().join(".ssh/id_ed25519"), "PRIVATE KEY").expect("write");
    std::os::unix::fs::symlink(
        ai.home().join(".ssh/id_ed25519"),
        ai.work().join("notes.txt"),
    )
    .expect("symlink");
    let run = ai.run();
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(run.json()["tool_calls"][0]["decision"], json!("blocked"));
    assert!(!server.chat_bodies()[1].to_string().contains("PRIVATE KEY"));
}

#[test]
fn the_audit_log_records_each_call_without_secrets() {
    let server = FakeServer::start(vec![
        tool_reply(&[("c1", "execute_command", exec("echo sk-audit-secret-9"))]),
        text_reply("ok"),
    ]);
    let ai = Ai::new(&server.url)
        .env("SWEBASH_AI_API_KEY", "sk-audit-secret-9")
        .args(&["-q", "go"]);
    assert_eq!(ai.run().code, 0);
    let path = ai.state_dir().join("swebash-ai/audit.jsonl");
    let text = std::fs::read_to_string(&path).expect("audit log");
    let line: Value = serde_json::from_str(text.lines().next().unwrap_or("")).expect("JSON line");
    assert_eq!(line["tool"], json!("execute_command"));
    assert_eq!(line["decision"], json!("allow"));
    assert_eq!(line["decided_by"], json!("policy"));
    assert_eq!(line["exit_code"], json!(0));
    assert!(!text.contains("sk-audit-secret-9"), "{text}");
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(&path)
        .map(|m| m.permissions().mode() & 0o777)
        .unwrap_or(0);
    assert_eq!(mode, 0o600);
}

#[test]
fn check_command_explains_itself() {
    let run = Ai::bare()
        .args(&["--check-command", "rm -rf build", "--json"])
        .run();
    assert_eq!(run.code, 0);
    assert_eq!(
        run.json(),
        json!({"decision": "ask", "reasons": ["`rm -r` deletes files recursively"],
            "commands": [{"command": "rm -rf build", "decision": "ask",
                "reasons": ["`rm -r` deletes files recursively"], "approved_by": null}]})
    );
    let approved = Ai::bare()
        .args(&[
            "--check-command",
            "git push origin main && rm -rf build",
            "--allow",
            "git push*",
        ])
        .run();
    assert!(
        approved
            .stdout
            .contains("ask git push origin main (approved by --allow \"git push*\")"),
        "{}",
        approved.stdout
    );
    assert!(
        approved.stdout.contains("  ask rm -rf build\n")
            || approved.stdout.ends_with("ask rm -rf build"),
        "{}",
        approved.stdout
    );
    let plain = Ai::bare().args(&["--check-command", "rm -rf /"]).run();
    assert!(plain.stdout.starts_with("deny: "), "{}", plain.stdout);
    let safe = Ai::bare()
        .args(&["--check-command", "ls -la", "--json"])
        .run();
    assert_eq!(safe.json()["decision"], json!("allow"));
    // Reasons quote the line: its control characters never reach the terminal.
    let hostile = Ai::bare()
        .args(&["--check-command", "ls \u{1b}]0;pwn\u{7}\u{1b}[2J"])
        .run();
    assert!(
        !hostile.stdout.contains(['\u{1b}', '\u{7}']),
        "{:?}",
        hostile.stdout
    );
}

#[test]
fn web_search_reads_results_from_a_local_engine() {
    let server = FakeServer::start(vec![
        tool_reply(&[(
            "c1",
            "web_search",
            json!({"query": "rust book", "num_results": 2}),
        )]),
        text_reply("Found it."),
    ]);
    server.web_page(200, include_str!("../fixtures/web/ddg-results.html"));
    let run = Ai::new(&server.url)
        .env("SWEBASH_AI_WEB_URL", &server.root())
        .args(&["--json", "find the rust book"])
        .run();
    assert_eq!(run.code, 0, "{}", run.stderr);
    let result = server.last_tool_result();
    let results = result["data"]["results"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    assert_eq!(results.len(), 2);
    assert_eq!(results[0]["url"], json!("https://doc.rust-lang.org/book/"));
    assert_eq!(result["data"]["untrusted"], json!(true));
    let search = server
        .requests()
        .into_iter()
        .find(|r| r.path == "/html/")
        .expect("search request");
    assert_eq!(search.method, "POST");
    assert!(search.raw.starts_with("q=rust%20book"), "{}", search.raw);
}

#[test]
fn web_search_reports_empty_results_and_refusals() {
    let server = FakeServer::start(vec![
        tool_reply(&[("c1", "web_search", json!({"query": "qzxqzx"}))]),
        tool_reply(&[("c2", "web_search", json!({"query": "again"}))]),
        tool_reply(&[("c3", "web_search", json!({"query": "third"}))]),
        text_reply("Nothing."),
    ]);
    server.web_page(200, include_str!("../fixtures/web/ddg-empty.html"));
    server.web_page(202, include_str!("../fixtures/web/ddg-challenge.html"));
    server.web_page(403, "Forbidden");
    let run = Ai::new(&server.url)
        .env("SWEBASH_AI_WEB_URL", &server.root())
        .args(&["--json", "search"])
        .run();
    assert_eq!(run.code, 0, "{}", run.stderr);
    let calls = run.json()["tool_calls"].clone();
    assert_eq!(calls[0]["ok"], json!(true));
    assert_eq!(calls[1]["ok"], json!(false));
    assert!(
        calls[1]["error"]["message"]
            .as_str()
            .unwrap_or("")
            .contains("refused")
    );
    assert!(
        calls[2]["error"]["message"]
            .as_str()
            .unwrap_or("")
            .contains("HTTP 403")
    );
    let bodies = server.chat_bodies();
    let first = bodies[1]["messages"]
        .as_array()
        .and_then(|m| m.last())
        .cloned()
        .unwrap_or_default();
    assert!(
        first["content"]
            .as_str()
            .unwrap_or("")
            .contains("no results")
    );
    assert_eq!(
        server.connections(),
        2,
        "one kept-alive connection for the model, one for the three searches"
    );
}

/// The home's secrets under a relocated `$XDG_CONFIG_HOME` (or data or state home) are secrets
/// there too: gh, glab and hub follow it (classifier round 14).
#[test]
fn secrets_under_a_relocated_xdg_config_home_are_secrets() {
    let ai = Ai::bare();
    let config = ai.root_dir().join("elsewhere-config");
    std::fs::create_dir_all(config.join("gh")).unwrap();
    std::fs::write(config.join("gh/hosts.yml"), "oauth_token: SECRET\n").unwrap();
    let ai = ai.env("XDG_CONFIG_HOME", &config.display().to_string());
    for line in [
        format!("cat {}/gh/hosts.yml", config.display()),
        "cat $XDG_CONFIG_HOME/gh/hosts.yml".to_string(),
        "grep -r token $XDG_CONFIG_HOME/glab-cli".to_string(),
    ] {
        let run = ai.run_with(&["--check-command", &line, "--json"]);
        let decision = run.json()["decision"].clone();
        assert_ne!(decision, json!("allow"), "{line}: {}", run.stdout);
    }
}
