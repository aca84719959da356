//! Rule 5: a stale read never hides a change.

use super::*;

#[test]
fn a_read_repeated_after_a_change_is_read_again() {
    let read = json!({"operation": "read", "path": "notes.txt"});
    let cases: Vec<(&str, Vec<Reply>, Vec<&str>)> = vec![
        (
            "one reply",
            vec![
                tool_reply(&[
                    ("r1", "filesystem", read.clone()),
                    (
                        "c1",
                        "execute_command",
                        exec("echo NEW-CONTENT > notes.txt"),
                    ),
                    ("r2", "filesystem", read.clone()),
                ]),
                text_reply("done"),
            ],
            vec!["--yes"],
        ),
        (
            "across replies",
            vec![
                tool_reply(&[("r1", "filesystem", read.clone())]),
                tool_reply(&[("c1", "execute_command", exec("make"))]),
                tool_reply(&[("r2", "filesystem", read.clone())]),
                text_reply("done"),
            ],
            vec![],
        ),
        (
            "hermes",
            vec![
                text_reply(&format!(
                    "<tool_call>\n{}\n</tool_call>\n{}\n<tool_call>\n{}\n</tool_call>",
                    json!({"name": "filesystem", "arguments": read}),
                    hermes_calls(&["make"]),
                    json!({"name": "filesystem", "arguments": read}),
                )),
                text_reply("done"),
            ],
            vec!["--tool-format", "hermes"],
        ),
        // (A rerun outside the sandbox takes a person now: --yes cannot give one, and the
        // PTY test of the rerun covers that path.)
    ];
    for (what, script, flags) in cases {
        let server = FakeServer::start(script);
        let mut ai = victim(&server)
            .file("notes.txt", "OLD-CONTENT\n")
            .file(
                "Makefile",
                "all:\n\techo NEW-CONTENT > notes.txt\nblocked:\n\techo NEW-CONTENT > notes.txt\n\ttouch ../home/x\n",
            );
        for flag in &flags {
            ai = ai.arg(flag);
        }
        let ai = ai.args(&["--json", "go"]);
        let run = ai.run();
        let now = std::fs::read_to_string(ai.work().join("notes.txt")).unwrap_or_default();
        // Every case makes the change; otherwise there would be nothing to go stale.
        assert!(
            now.contains("NEW-CONTENT"),
            "{what}: the change did not run\n{}",
            run.stdout
        );
        let last = server.last_tool_result().to_string();
        let all: Vec<String> = server.chat_bodies().iter().map(Value::to_string).collect();
        let final_body = all.last().cloned().unwrap_or_default();
        assert!(
            final_body.contains("NEW-CONTENT") && !last.contains("duplicate"),
            "{what}: a stale read hid the change: last result {last}\n{}",
            run.stdout
        );
    }
}
