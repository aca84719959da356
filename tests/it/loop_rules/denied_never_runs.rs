//! Rule 1: a call the policy or a person denies never runs, in any format.

use super::*;

#[test]
fn denied_reads_never_run_in_any_format_or_flag() {
    for flags in [
        vec!["--yes"],
        vec!["--allow", "*"],
        vec!["--allow", "cat*"],
        vec!["--yes", "--tool-format", "hermes"],
        vec!["--yes", "--sandbox", "off"],
    ] {
        let prompt = flags.contains(&"hermes");
        let commands = ["cat ~/.ssh/id_rsa", "cat ~/.aws/credentials"];
        let script = if prompt {
            vec![text_reply(&hermes_calls(&commands)), text_reply("done")]
        } else {
            vec![
                tool_reply(&[
                    ("c1", "execute_command", exec(commands[0])),
                    ("c2", "execute_command", exec(commands[1])),
                    (
                        "c3",
                        "filesystem",
                        json!({"operation": "read", "path": "../home/.ssh/id_rsa"}),
                    ),
                ]),
                text_reply("done"),
            ]
        };
        let server = FakeServer::start(script);
        let mut ai = victim(&server).env("SWEBASH_AI_TOOLS_CONFIRM", "false");
        for flag in &flags {
            ai = ai.arg(flag);
        }
        let ai = ai.args(&["--json", "show"]);
        let run = ai.run();
        no_secret_anywhere(&server, &run, KEY, &format!("{flags:?}"));
    }
}
