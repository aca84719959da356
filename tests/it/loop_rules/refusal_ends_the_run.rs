//! Rule 4: a refusal with no terminal ends the run before the model can route around it.

use super::*;

#[test]
fn after_a_refusal_no_later_call_runs_in_any_format() {
    let cases: Vec<(&str, Vec<Reply>, Vec<&str>)> = vec![
        (
            "native, asked then allowed",
            vec![
                tool_reply(&[
                    ("c1", "execute_command", exec("rm -rf src")),
                    ("c2", "execute_command", exec("touch pwned")),
                    (
                        "c3",
                        "filesystem",
                        json!({"operation": "read", "path": "src/main.rs"}),
                    ),
                ]),
                tool_reply(&[("c4", "execute_command", exec("touch pwned2"))]),
                text_reply("done"),
            ],
            vec![],
        ),
        (
            "hermes, asked then allowed",
            vec![
                text_reply(&hermes_calls(&["rm -rf src", "touch pwned"])),
                text_reply(&hermes_calls(&["touch pwned2"])),
                text_reply("done"),
            ],
            vec!["--tool-format", "hermes"],
        ),
        (
            "generic, asked then allowed",
            vec![
                text_reply(&generic_calls(&["rm -rf src", "touch pwned"])),
                text_reply(&generic_calls(&["touch pwned2"])),
                text_reply("done"),
            ],
            vec!["--tool-format", "generic"],
        ),
        (
            "native, duplicate of the refused call then allowed",
            vec![
                tool_reply(&[
                    ("c1", "execute_command", exec("rm -rf src")),
                    ("c2", "execute_command", exec("rm -rf src")),
                    ("c3", "execute_command", exec("touch pwned")),
                ]),
                text_reply("done"),
            ],
            vec![],
        ),
        (
            "native, an allow pattern covering part of the line",
            vec![
                tool_reply(&[
                    (
                        "c1",
                        "execute_command",
                        exec("git push origin main || rm -rf src"),
                    ),
                    ("c2", "execute_command", exec("touch pwned")),
                ]),
                text_reply("done"),
            ],
            vec!["--allow", "git push*"],
        ),
        (
            "native, invalid call first, then asked, then allowed",
            vec![
                tool_reply(&[
                    ("c0", "execute_command", json!({"cmd": "x"})),
                    ("c1", "execute_command", exec("rm -rf src")),
                    ("c2", "execute_command", exec("touch pwned")),
                ]),
                text_reply("done"),
            ],
            vec![],
        ),
    ];
    for (what, script, flags) in cases {
        let server = FakeServer::start(script);
        let mut ai = victim(&server);
        for flag in &flags {
            ai = ai.arg(flag);
        }
        let ai = ai.args(&["--json", "clean up"]);
        let run = ai.run();
        assert_eq!(run.code, 3, "{what}: exit\n{}\n{}", run.stdout, run.stderr);
        assert!(
            ai.work().join("src/main.rs").exists(),
            "{what}: src deleted"
        );
        assert!(!ai.work().join("pwned").exists(), "{what}: later call ran");
        assert!(!ai.work().join("pwned2").exists(), "{what}: next reply ran");
        assert_eq!(
            server.chat_bodies().len(),
            1,
            "{what}: another model request"
        );
    }
}

#[test]
fn a_sandbox_refusal_without_a_terminal_ends_the_run_before_later_calls() {
    if !landlock() {
        return;
    }
    let server = FakeServer::start(vec![
        tool_reply(&[
            ("c1", "execute_command", exec("make")),
            ("c2", "execute_command", exec("touch pwned")),
        ]),
        tool_reply(&[("c3", "execute_command", exec("touch pwned2"))]),
        text_reply("done"),
    ]);
    let ai = victim(&server)
        .file("Makefile", "all:\n\ttouch ../home/planted.txt\n")
        .args(&["--json", "build"]);
    let run = ai.run();
    assert!(!ai.home().join("planted.txt").exists(), "{}", run.stderr);
    assert!(
        !ai.work().join("pwned").exists(),
        "later call ran\n{}",
        run.stdout
    );
    assert!(!ai.work().join("pwned2").exists(), "next reply ran");
    assert_eq!(run.code, 3, "{}\n{}", run.stdout, run.stderr);
    assert_eq!(server.chat_bodies().len(), 1);
}
