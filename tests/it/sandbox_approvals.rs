//! Rule: approval never silently widens the sandbox. `--yes`, `--allow`, `[policy] allow` and
//! `SWEBASH_AI_TOOLS_CONFIRM=false` approve running a command *inside* the sandbox; leaving it
//! takes a person at the terminal (or `--sandbox off`). Each case is a command the policy asks
//! about, approved by one of those, with no terminal: it must reach nothing outside.

use serde_json::json;

use crate::harness::Ai;
use crate::launcher::require_sandbox;
use crate::server::{FakeServer, text_reply, tool_reply};

/// Runs `command` as the model's one call, approved by `approval` (flags and variables).
fn approved_call(
    command: &str,
    approval: &[(&str, &str)],
    flags: &[&str],
) -> (Ai, crate::harness::Run, FakeServer) {
    let server = FakeServer::start(vec![
        tool_reply(&[("c1", "execute_command", json!({ "command": command }))]),
        text_reply("done"),
    ]);
    let mut ai = Ai::new(&server.url).file("../home/.ssh/id_rsa", "SECRET-KEY\n");
    for (name, value) in approval {
        ai = ai.env(name, value);
    }
    let ai = ai.args(flags).args(&["--json", "go"]);
    let run = ai.run();
    (ai, run, server)
}

#[test]
fn flags_and_rules_approve_only_inside_the_sandbox() {
    if !require_sandbox() {
        return;
    }
    type Approval<'a> = (&'a [(&'a str, &'a str)], &'a [&'a str]);
    let cases: [Approval; 4] = [
        (&[], &["--yes"]),
        (&[], &["--allow", "python3*"]),
        (&[("SWEBASH_AI_TOOLS_CONFIRM", "false")], &[]),
        (&[], &["-y", "--allow", "*"]),
    ];
    for (env, flags) in cases {
        // Asks (interpreter code), and would read a key and plant a file in home if it ran
        // outside the sandbox.
        let command = "python3 -c \"import os; h=os.path.expanduser('~'); \
                       print(open(h+'/.s'+'sh/'+'id_'+'rsa').read()); open(h+'/planted','w')\"";
        let (ai, run, server) = approved_call(command, env, flags);
        let sent: String = server.chat_bodies().iter().map(|b| b.to_string()).collect();
        assert!(
            !sent.contains("SECRET-KEY"),
            "{flags:?} {env:?}: the key reached the model"
        );
        assert!(
            !ai.home().join("planted").exists(),
            "{flags:?} {env:?}: {}",
            run.stderr
        );
        let record = &run.json()["tool_calls"][0];
        assert_eq!(
            record["decision"],
            json!("blocked"),
            "{flags:?} {env:?}: {record}"
        );
        // Nobody at a terminal to let it out: the run ends saying so.
        assert_eq!(run.code, 3, "{flags:?} {env:?}: {}", run.stderr);
        assert!(run.stderr.contains("only a person"), "{}", run.stderr);
    }
}

#[test]
fn with_the_sandbox_off_the_users_own_choice_still_runs_approved_commands() {
    let (ai, run, _server) = approved_call(
        "python3 -c \"import os; open(os.path.expanduser('~')+'/planted','w')\"",
        &[],
        &["--yes", "--sandbox", "off"],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(ai.home().join("planted").exists(), "{}", run.stderr);
}

#[test]
fn with_the_sandbox_off_printing_the_environment_asks() {
    // (`export -p` and `declare -p` ask anyway: they are read as expansions ai cannot see.)
    for command in [
        "env",
        "printenv",
        "env | sort",
        "env -u PATH",
        "make -p",
        "npm run env",
    ] {
        let server = FakeServer::start(vec![
            tool_reply(&[("c1", "execute_command", json!({ "command": command }))]),
            text_reply("done"),
        ]);
        let run = Ai::new(&server.url)
            .env("GITHUB_TOKEN", "SECRET-GH-TOKEN")
            .args(&["--sandbox", "off", "--json", "go"])
            .run();
        let sent: String = server.chat_bodies().iter().map(|b| b.to_string()).collect();
        assert!(
            !sent.contains("SECRET-GH-TOKEN"),
            "{command}: the token reached the model"
        );
        assert_eq!(run.code, 3, "{command}: {}", run.stderr);
        assert!(
            run.stderr.contains("prints the environment"),
            "{command}: {}",
            run.stderr
        );
    }
}
