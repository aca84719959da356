//! Rule 7: the API key never reaches a command, a result or the model.

use super::*;

/// Whether the secret reached the model or the output (for tests that list every spelling).
fn leaked(server: &FakeServer, run: &Run, secret: &str) -> bool {
    server
        .chat_bodies()
        .iter()
        .any(|b| b.to_string().contains(secret))
        || run.stdout.contains(secret)
}

#[test]
fn yes_never_brings_the_api_key_to_the_model_through_ai_s_own_environ() {
    let commands = [
        "env",
        "printenv",
        "printenv OPENAI_API_KEY",
        "echo $OPENAI_API_KEY $SWEBASH_AI_API_KEY",
        "cat /proc/self/environ",
        "tr '\\0' '\\n' < /proc/self/environ",
        "cat /proc/$PPID/environ",
        "cd /proc/$PPID && cat environ",
        "cat /proc/$PPID/env*",
        "xargs -0 -n1 < /proc/$PPID/environ",
        "grep -a -r sk- /proc/*/environ",
        "ps eww -u $(id -u)",
        "ps e",
        "ps axe",
        "python3 -c 'import os,glob\nfor p in glob.glob(\"/proc/[0-9]*/environ\"):\n  try: print(open(p).read())\n  except Exception: pass'",
        "perl -e 'for (glob \"/proc/[0-9]*/environ\") { open F, $_ and print <F> }'",
        "set",
        "declare -p",
        "export -p",
    ];
    let mut leaks = Vec::new();
    for approve in [vec![], vec!["--yes"]] {
        for command in commands {
            let server = FakeServer::start(vec![
                tool_reply(&[("c1", "execute_command", exec(command))]),
                text_reply("done"),
            ]);
            let mut ai = victim(&server)
                .env("OPENAI_API_KEY", API_KEY)
                .env("SWEBASH_AI_API_KEY", API_KEY);
            for flag in &approve {
                ai = ai.arg(flag);
            }
            let ai = ai.args(&["--json", "debug"]);
            let run = ai.run();
            if leaked(&server, &run, API_KEY) {
                leaks.push(format!("{command} {approve:?}"));
            }
        }
    }
    assert!(
        leaks.is_empty(),
        "the API key reached the model through: {leaks:#?}"
    );
}

#[test]
fn yes_never_brings_the_api_key_command_to_the_model_through_env() {
    // The key comes from SWEBASH_AI_API_KEY_CMD: a command that prints it.
    let cmd = format!("printf %s {API_KEY}");
    let mut leaks = Vec::new();
    for approve in [vec![], vec!["--yes"]] {
        for command in [
            "env",
            "printenv",
            "echo \"$SWEBASH_AI_API_KEY_CMD\"",
            "sh -c \"$SWEBASH_AI_API_KEY_CMD\"",
        ] {
            let server = FakeServer::start(vec![
                tool_reply(&[("c1", "execute_command", exec(command))]),
                text_reply("done"),
            ]);
            let mut ai = victim(&server).env("SWEBASH_AI_API_KEY_CMD", &cmd);
            for flag in &approve {
                ai = ai.arg(flag);
            }
            let run = ai.args(&["--json", "debug"]).run();
            if leaked(&server, &run, API_KEY) {
                leaks.push(format!("{command} {approve:?}"));
            }
        }
    }
    assert!(
        leaks.is_empty(),
        "the API key command reached the model through: {leaks:#?}"
    );
}
