//! The interactive terminal in a pseudo-terminal: a REPL round trip, history across runs, Ctrl-C
//! cancelling a slow reply, Ctrl-D, `--resume`, the edit answer of the confirmation, and what
//! reaches stderr and stdout on and off a terminal.

use std::time::Duration;

use rexpect::process::WaitStatus;
use rexpect::session::{PtySession, spawn_command};
use serde_json::{Value, json};

use crate::harness::{Ai, wait_for_raw_mode};
use crate::server::{FakeServer, Reply, text_chunks, text_reply, tool_reply};

pub(crate) fn repl(ai: &Ai, args: &[&str]) -> PtySession {
    let mut command = ai.pty_command();
    command.args(args).env("TERM", "xterm");
    spawn_command(command, Some(10_000)).expect("spawn in a pty")
}

fn exits_0(session: &mut PtySession) {
    session.send_control('d').expect("Ctrl-D");
    let status = session.process_mut().wait().expect("wait");
    assert!(matches!(status, WaitStatus::Exited(_, 0)), "{status:?}");
}

pub(crate) fn user_messages(body: &Value) -> Vec<String> {
    body["messages"]
        .as_array()
        .map(|m| {
            m.iter()
                .filter(|m| m["role"] == "user")
                .filter_map(|m| m["content"].as_str().map(String::from))
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn a_round_trip_then_ctrl_d_exits_0() {
    let server = FakeServer::start(vec![text_reply("Hi there, human.")]);
    let ai = Ai::new(&server.url);
    let mut session = repl(&ai, &["-i"]);
    session.exp_string("fake-model> ").expect("prompt");
    session.send_line("hello").expect("send");
    session.exp_string("Hi there, human.").expect("answer");
    session.exp_string("fake-model> ").expect("prompt again");
    exits_0(&mut session);
    assert_eq!(
        user_messages(&server.chat_bodies()[0]),
        vec!["hello".to_string()]
    );
}

#[test]
fn the_turns_of_a_session_share_one_connection() {
    let server = FakeServer::start(vec![text_reply("One."), text_reply("Two.")]);
    let ai = Ai::new(&server.url);
    let mut session = repl(&ai, &["-i"]);
    for (question, answer) in [("first", "One."), ("second", "Two.")] {
        session.exp_string("fake-model> ").expect("prompt");
        session.send_line(question).expect("send");
        session.exp_string(answer).expect("answer");
    }
    session.exp_string("fake-model> ").expect("prompt again");
    exits_0(&mut session);
    assert_eq!(server.chat_bodies().len(), 2);
    assert_eq!(
        server.connections(),
        1,
        "the second turn reuses the connection"
    );
}

#[test]
fn history_persists_across_two_runs() {
    let server = FakeServer::start(vec![text_reply("One."), text_reply("Two.")]);
    let ai = Ai::new(&server.url);
    let mut first = repl(&ai, &["-i"]);
    first.exp_string("fake-model> ").expect("prompt");
    first.send_line("the first question").expect("send");
    first.exp_string("One.").expect("answer");
    first.exp_string("fake-model> ").expect("prompt");
    exits_0(&mut first);
    let saved =
        std::fs::read_to_string(ai.root_dir().join("data/swebash-ai/history")).unwrap_or_default();
    assert!(
        saved.contains("the first question"),
        "history file: {saved:?}"
    );

    let mut second = repl(&ai, &["-i"]);
    second.exp_string("fake-model> ").expect("prompt");
    wait_for_raw_mode(&second);
    second.send_control('p').expect("previous history entry");
    second
        .exp_string("the first question")
        .expect("recalled from history");
    second.send_line("").expect("enter");
    second.exp_string("Two.").expect("answer");
    second.exp_string("fake-model> ").expect("prompt");
    exits_0(&mut second);
    assert_eq!(
        user_messages(&server.chat_bodies()[1]),
        vec!["the first question".to_string()]
    );
}

#[test]
fn ctrl_c_cancels_a_slow_reply_and_the_next_prompt_is_answered() {
    let mut slow = text_chunks("Partial words then silence");
    slow.truncate(2);
    let server = FakeServer::start(vec![
        Reply::StallAfter(slow, Duration::from_secs(20)),
        text_reply("Second answer."),
    ]);
    let ai = Ai::new(&server.url);
    let mut session = repl(&ai, &["-i"]);
    session.exp_string("fake-model> ").expect("prompt");
    session.send_line("a slow question").expect("send");
    session.exp_string("Partial").expect("the reply starts");
    session.send_control('c').expect("Ctrl-C");
    session.exp_string("reply cancelled").expect("cancelled");
    session
        .exp_string("fake-model> ")
        .expect("back at the prompt");
    session.send_line("next question").expect("send");
    session.exp_string("Second answer.").expect("answered");
    session.exp_string("fake-model> ").expect("prompt");
    exits_0(&mut session);
    let second = &server.chat_bodies()[1];
    assert_eq!(
        user_messages(second),
        vec!["a slow question".to_string(), "next question".to_string()]
    );
    let kept = second.to_string();
    assert!(
        kept.contains("[interrupted]"),
        "the partial answer stays in the context"
    );
}

#[test]
fn resume_continues_the_last_conversation() {
    let server = FakeServer::start(vec![text_reply("Noted: 42."), text_reply("It was 42.")]);
    let ai = Ai::new(&server.url);
    let mut first = repl(&ai, &["-i"]);
    first.exp_string("fake-model> ").expect("prompt");
    first.send_line("remember the number 42").expect("send");
    first.exp_string("Noted: 42.").expect("answer");
    first.exp_string("fake-model> ").expect("prompt");
    exits_0(&mut first);

    // A shell widget run in between is not what `-i --resume` continues.
    let once = FakeServer::start(vec![text_reply("ls -la")]);
    let run = ai.run_with(&["--base-url", &once.url, "--command", "list the files"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let mut second = repl(&ai, &["-i", "--resume"]);
    second
        .exp_string("Resuming 'remember the number 42' from ")
        .expect("banner");
    second.exp_string("UTC, 1 turn.").expect("banner end");
    second.exp_string("fake-model> ").expect("prompt");
    second.send_line("which number?").expect("send");
    second.exp_string("It was 42.").expect("answer");
    second.exp_string("fake-model> ").expect("prompt");
    exits_0(&mut second);
    let body = &server.chat_bodies()[1];
    assert_eq!(
        user_messages(body),
        vec![
            "remember the number 42".to_string(),
            "which number?".to_string()
        ]
    );
    assert!(body.to_string().contains("Noted: 42."));
    let history = ai.run_with(&["--history"]);
    assert!(
        history.stdout.contains("remember the number 42"),
        "{}",
        history.stdout
    );
}

#[test]
fn slash_commands_switch_model_and_tools_and_save() {
    let server = FakeServer::start(vec![text_reply("Fine.")]);
    let ai = Ai::new(&server.url);
    let mut session = repl(&ai, &["-i"]);
    session.exp_string("fake-model> ").expect("prompt");
    session
        .send_line("/tools disable execute_command")
        .expect("send");
    session
        .exp_string("execute_command disabled")
        .expect("disabled");
    session.send_line("/model other-model").expect("send");
    session.exp_string("other-model> ").expect("new prompt");
    session.send_line("hi").expect("send");
    session.exp_string("Fine.").expect("answer");
    session.exp_string("other-model> ").expect("prompt");
    let saved = ai.work().join("talk.md");
    session
        .send_line(&format!("/save {}", saved.display()))
        .expect("send");
    session.exp_string("saved to").expect("saved");
    exits_0(&mut session);
    let body = &server.chat_bodies()[0];
    assert_eq!(body["model"], json!("other-model"));
    let tools: Vec<&str> = body["tools"]
        .as_array()
        .map(|t| {
            t.iter()
                .filter_map(|t| t["function"]["name"].as_str())
                .collect()
        })
        .unwrap_or_default();
    assert!(!tools.contains(&"execute_command"), "{tools:?}");
    let markdown = std::fs::read_to_string(saved).unwrap_or_default();
    assert!(
        markdown.contains("## You\n\nhi") && markdown.contains("## ai\n\nFine."),
        "{markdown}"
    );
}

#[test]
fn a_tool_disabled_in_the_repl_is_no_longer_described_to_a_prompt_based_model() {
    let server = FakeServer::start(vec![text_reply("One."), text_reply("Two.")]);
    let ai = Ai::new(&server.url);
    let mut session = repl(&ai, &["-i", "--tool-format", "hermes"]);
    session.exp_string("fake-model> ").expect("prompt");
    session.send_line("first").expect("send");
    session.exp_string("One.").expect("answer");
    session.exp_string("fake-model> ").expect("prompt");
    session
        .send_line("/tools disable execute_command")
        .expect("send");
    session
        .exp_string("execute_command disabled")
        .expect("disabled");
    session.send_line("second").expect("send");
    session.exp_string("Two.").expect("answer");
    session.exp_string("fake-model> ").expect("prompt");
    exits_0(&mut session);
    let system = |n: usize| {
        server.chat_bodies()[n]["messages"][0]["content"]
            .as_str()
            .unwrap_or_default()
            .to_string()
    };
    let (before, after) = (system(0), system(1));
    assert!(before.contains("execute_command"), "{before}");
    assert!(after.contains("filesystem"), "{after}");
    assert!(!after.contains("execute_command"), "{after}");
}

#[test]
fn the_confirmation_can_edit_the_command_before_it_runs() {
    let server = FakeServer::start(vec![
        tool_reply(&[("c1", "execute_command", json!({"command": "rm -rf build"}))]),
        text_reply("Done."),
    ]);
    let ai = Ai::new(&server.url)
        .file("build/out.o", "obj")
        .env("TERM", "xterm")
        .arg("clean up");
    let mut session = spawn_command(ai.pty_command(), Some(10_000)).expect("spawn");
    session
        .exp_string("edit the command first")
        .expect("the choices");
    wait_for_raw_mode(&session);
    session.send("jj").expect("down twice");
    session.flush().expect("flush");
    session
        .exp_string("> edit the command first")
        .expect("moved to edit");
    session.send_line("").expect("choose edit");
    session.exp_string("new command").expect("edit prompt");
    session
        .send(&"\x7f".repeat("rm -rf build".len()))
        .expect("erase");
    session.send_line("touch edited.txt").expect("type");
    session.exp_string("Done.").expect("answer");
    let _ = session.exp_eof();
    assert!(
        ai.work().join("edited.txt").exists(),
        "the edited command ran"
    );
    assert!(
        ai.work().join("build/out.o").exists(),
        "the original did not"
    );
    // It is audited as it ran, not as the model wrote it.
    let audit =
        std::fs::read_to_string(ai.state_dir().join("swebash-ai/audit.jsonl")).unwrap_or_default();
    assert!(audit.contains("touch edited.txt"), "{audit}");
    assert!(!audit.contains("rm -rf build"), "{audit}");
}

#[test]
fn editing_the_command_has_the_repls_line_editing_keys() {
    let server = FakeServer::start(vec![
        tool_reply(&[("c1", "execute_command", json!({"command": "rm -rf build"}))]),
        text_reply("Done."),
    ]);
    let ai = Ai::new(&server.url)
        .file("build/out.o", "obj")
        .env("TERM", "xterm")
        .arg("clean up");
    let mut session = spawn_command(ai.pty_command(), Some(10_000)).expect("spawn");
    session
        .exp_string("edit the command first")
        .expect("the choices");
    wait_for_raw_mode(&session);
    session.send("jj").expect("down twice");
    session.flush().expect("flush");
    session
        .exp_string("> edit the command first")
        .expect("moved to edit");
    session.send_line("").expect("choose edit");
    session.exp_string("new command: ").expect("edit prompt");
    wait_for_raw_mode(&session);
    // Ctrl-W drops `build`, Ctrl-U the rest before the cursor; Ctrl-A and Ctrl-E move to the
    // start and the end; Ctrl-K drops what follows the cursor.
    for key in ['w', 'u'] {
        session.send_control(key).expect("key");
    }
    session.send("touch edited").expect("type");
    session.send_control('a').expect("home");
    session.send("XX").expect("type at the start");
    session.send_control('a').expect("home");
    session.send_control('d').expect("delete a character");
    session.send_control('d').expect("delete a character");
    session.send_control('e').expect("end");
    session.send(".txt  junk").expect("type at the end");
    for _ in 0..5 {
        session.send_control('b').expect("back");
    }
    session.send_control('k').expect("kill to the end");
    session.send_line("").expect("enter");
    session.exp_string("Done.").expect("answer");
    let _ = session.exp_eof();
    assert!(
        ai.work().join("edited.txt").exists(),
        "the edited command ran: {:?}",
        std::fs::read_dir(ai.work())
            .map(|d| d.flatten().map(|e| e.file_name()).collect::<Vec<_>>())
    );
    assert!(
        ai.work().join("build/out.o").exists(),
        "the original did not"
    );
}

#[test]
fn on_a_terminal_markdown_is_rendered_and_no_color_removes_colour() {
    let server = FakeServer::start(vec![
        text_reply("# Title\nSome **bold** text.\n"),
        text_reply("# Title\nSome **bold** text.\n"),
    ]);
    let ai = Ai::new(&server.url).arg("hi");
    let mut session = spawn_command(ai.pty_command(), Some(10_000)).expect("spawn");
    let out = session.exp_eof().unwrap_or_default();
    assert!(
        out.contains("\x1b[1mbold\x1b[0m") && !out.contains("**"),
        "{out:?}"
    );
    let plain = Ai::new(&server.url).env("NO_COLOR", "1").arg("hi");
    let mut session = spawn_command(plain.pty_command(), Some(10_000)).expect("spawn");
    let out = session.exp_eof().unwrap_or_default();
    assert!(
        out.contains("Some bold text.") && !out.contains("\x1b[1m"),
        "{out:?}"
    );
}

#[test]
fn off_a_terminal_there_are_no_spinner_bytes_and_stdout_is_the_exact_text() {
    let server = FakeServer::start(vec![
        tool_reply(&[(
            "c1",
            "filesystem",
            json!({"operation": "exists", "path": "x"}),
        )]),
        text_reply("# Exactly **this**"),
    ]);
    let run = Ai::new(&server.url).arg("go").run();
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(run.stdout, "# Exactly **this**\n");
    assert!(
        !run.stderr.contains('\r') && !run.stderr.contains('\x1b') && !run.stderr.contains('⠋'),
        "{:?}",
        run.stderr
    );
}

#[test]
fn ctrl_c_at_the_confirmation_cancels_the_turn_and_runs_nothing() {
    let server = FakeServer::start(vec![
        tool_reply(&[("c1", "execute_command", json!({"command": "rm -rf build"}))]),
        text_reply("Should not be needed."),
        text_reply("Next answer."),
    ]);
    let ai = Ai::new(&server.url).file("build/out.o", "obj");
    let mut session = repl(&ai, &["-i"]);
    session.exp_string("fake-model> ").expect("prompt");
    session.send_line("clean up").expect("send");
    session.exp_string("Allow it?").expect("the confirmation");
    wait_for_raw_mode(&session);
    session.send_control('c').expect("Ctrl-C");
    let shown = session
        .exp_string("fake-model> ")
        .expect("back at the prompt");
    assert!(ai.work().join("build/out.o").exists(), "nothing ran");
    assert!(
        !shown.contains("Should not be needed"),
        "the turn stopped: {shown}"
    );
    session.send_line("next").expect("send");
    session.exp_string("fake-model> ").expect("prompt again");
    exits_0(&mut session);
}
