//! `ai --history` and `--resume` as a person uses them: dated entries with their directory, turns
//! and status, newest first, empty runs hidden; a conversation resumed by id; old ones pruned.

use serde_json::Value;

use crate::harness::{Ai, finish};
use crate::server::{FakeServer, status, text_reply};

fn conversation_files(ai: &Ai) -> usize {
    std::fs::read_dir(ai.root_dir().join("data/swebash-ai/conversations"))
        .map(|dir| dir.count())
        .unwrap_or(0)
}

#[test]
fn history_shows_date_directory_turns_and_status_newest_first_without_empty_runs() {
    let server = FakeServer::start(vec![
        text_reply("Fine."),
        status(400, r#"{"error": {"message": "nope"}}"#),
    ]);
    let ai = Ai::new(&server.url);
    assert_eq!(ai.run_with(&["the first question"]).code, 0);
    assert_eq!(ai.run_with(&["the second\nquestion"]).code, 1);
    // A REPL left at once: an empty run, saved but not worth listing.
    let empty = finish(
        ai.spawn_with(&["-i"], b"")
            .wait_with_output()
            .expect("wait"),
    );
    assert_eq!(empty.code, 0, "{}", empty.stderr);
    assert_eq!(conversation_files(&ai), 3);
    let listed = ai.run_with(&["--history"]);
    let lines: Vec<&str> = listed.stdout.lines().collect();
    assert_eq!(lines.len(), 2, "{}", listed.stdout);
    assert!(
        lines[0].contains("the second") && lines[0].contains("no answer"),
        "{}",
        lines[0]
    );
    assert!(lines[1].contains("the first question") && lines[1].contains("answered"));
    assert!(lines[1].contains("1 turn "), "{}", lines[1]);
    let work = ai.work().display().to_string();
    assert!(
        lines[1].contains(&work) || lines[1].contains('~'),
        "{}",
        lines[1]
    );
    // A date and a time: 2026-11-23 14:02.
    let dated = lines[1].split_whitespace().nth(1).unwrap_or_default();
    assert!(
        dated.len() == 10 && dated.matches('-').count() == 2,
        "{}",
        lines[1]
    );
    let json: Value =
        serde_json::from_str(&ai.run_with(&["--history", "--json"]).stdout).expect("history JSON");
    assert_eq!(json[0]["status"], "no answer");
    assert_eq!(json[1]["turns"], 1);
}

#[test]
fn resume_takes_an_id_from_the_history_and_an_unknown_id_exits_2() {
    let server = FakeServer::start(vec![text_reply("Blue."), text_reply("It was blue.")]);
    let ai = Ai::new(&server.url);
    assert_eq!(ai.run_with(&["the colour is blue"]).code, 0);
    let json: Value =
        serde_json::from_str(&ai.run_with(&["--history", "--json"]).stdout).expect("history JSON");
    let id = json[0]["id"].as_str().expect("id").to_string();
    let resumed = finish(
        ai.spawn_with(&["-i", "--resume", &id], b"which colour?\n")
            .wait_with_output()
            .expect("wait"),
    );
    assert_eq!(resumed.code, 0, "{}", resumed.stderr);
    assert!(
        resumed.stderr.contains("Resuming 'the colour is blue'"),
        "{}",
        resumed.stderr
    );
    let users = crate::repl::user_messages(&server.chat_bodies()[1]);
    assert_eq!(users, ["the colour is blue", "which colour?"]);
    let unknown = ai.run_with(&["-i", "--resume", "no-such-id"]);
    assert_eq!(unknown.code, 2, "{}", unknown.stderr);
    assert!(unknown.stderr.contains("--history"), "{}", unknown.stderr);
}

#[test]
fn old_conversations_are_pruned_to_the_configured_number() {
    let server = FakeServer::start(vec![text_reply("1."), text_reply("2."), text_reply("3.")]);
    let ai = Ai::new(&server.url).env("SWEBASH_AI_HISTORY_KEEP", "2");
    for question in ["one", "two", "three"] {
        assert_eq!(ai.run_with(&[question]).code, 0);
    }
    assert_eq!(conversation_files(&ai), 2);
    let listed = ai.run_with(&["--history"]).stdout;
    assert!(
        listed.contains("three") && !listed.contains("one"),
        "{listed}"
    );
}
