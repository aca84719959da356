//! What an approval covers, end to end with no one at a terminal: an allow rule approves one
//! simple command, never an option that runs a program nor the rest of the line; `--yes` never
//! approves a path only known at run time that could be a secret; `--command` never puts
//! characters on the line that make it read differently from what it is.

use serde_json::{Value, json};

use crate::harness::Ai;
use crate::server::{FakeServer, text_reply, tool_reply};

const KEY: &str = "PRIVATE-KEY-MATERIAL-9c3a";

fn exec(command: &str) -> Value {
    json!({"command": command})
}

/// A project with a git repository (no remote) and a home holding an SSH key.
fn project(server: &FakeServer) -> Ai {
    let ai = Ai::new(&server.url)
        .file("src/main.rs", "fn main() {}\n")
        .git_init();
    let key = ai.home().join(".ssh/id_rsa");
    std::fs::create_dir_all(key.parent().expect("parent")).expect("mkdir");
    std::fs::write(key, KEY).expect("write");
    ai
}

fn run_one(command: &str, flags: &[&str]) -> (Ai, crate::harness::Run) {
    let server = FakeServer::start(vec![
        tool_reply(&[("c1", "execute_command", exec(command))]),
        text_reply("done"),
    ]);
    let mut ai = project(&server);
    for flag in flags {
        ai = ai.arg(flag);
    }
    let ai = ai.args(&["--json", "push it"]);
    let run = ai.run();
    (ai, run)
}

#[test]
fn an_allow_rule_does_not_approve_an_option_that_runs_a_program() {
    for command in [
        "git push --receive-pack='touch ~/OUT; git-receive-pack' origin main",
        "git push --receive=\"touch ~/OUT\" origin",
        "GIT_SSH_COMMAND='touch ~/OUT' git push origin",
        "git -c core.sshCommand='touch ~/OUT' push origin",
    ] {
        let (ai, run) = run_one(command, &["--allow", "git push*"]);
        assert_eq!(run.code, 3, "{command}: exit\n{}", run.stderr);
        assert_eq!(run.json()["tool_calls"][0]["decision"], json!("denied"));
        assert!(!ai.home().join("OUT").exists(), "{command}: it ran");
    }
}

#[test]
fn an_allow_rule_does_not_lift_the_rest_of_the_line_out_of_the_sandbox() {
    for command in [
        "git push origin main; touch ~/OUTSIDE",
        "git push origin main && touch ~/OUTSIDE",
        "git push origin main || touch ~/OUTSIDE",
        "touch ~/OUTSIDE | git push origin main",
        "(git push origin main; touch ~/OUTSIDE)",
        "git push origin \"$(touch ~/OUTSIDE)\"",
        "git push origin `touch ~/OUTSIDE`",
        "git push origin main <(touch ~/OUTSIDE)",
        "git push origin main; eval 'touch ~/OUTSIDE'",
        "git push origin main\ntouch ~/OUTSIDE",
        "git push origin main <<EOF\nx\nEOF\ntouch ~/OUTSIDE",
    ] {
        let (ai, run) = run_one(command, &["--allow", "git push*"]);
        assert!(
            !ai.home().join("OUTSIDE").exists(),
            "{command:?}: ran outside the sandbox\n{}",
            run.stderr
        );
        assert!(matches!(run.code, 0 | 3), "{command:?}: exit {}", run.code);
    }
}

#[test]
fn yes_never_approves_a_computed_path_that_may_reach_a_secret() {
    for command in [
        "d=$(printf .ssh); cat ~/$d/id_rsa",
        "cat $(printf ~/.ssh)/id_rsa",
        "read d < /dev/null; cat ~/$d/id_rsa",
    ] {
        let (_ai, run) = run_one(command, &["--yes"]);
        assert!(matches!(run.code, 0 | 3), "{command}: exit\n{}", run.stderr);
        let decision = &run.json()["tool_calls"][0]["decision"];
        assert!(
            decision == "denied" || decision == "blocked",
            "{command}: {decision}"
        );
        assert!(!run.stdout.contains(KEY), "{command}: the key was printed");
    }
}

#[test]
fn command_mode_never_prints_bidi_zero_width_or_control_characters() {
    for answer in [
        "ls \u{202e}txt.exe",
        "echo a\u{200b}b",
        "printf '\u{1b}]52;c;cm0gLXJmIH4=\u{7}'",
    ] {
        let server = FakeServer::start(vec![text_reply(answer)]);
        let run = Ai::new(&server.url)
            .args(&["--command", "list files"])
            .run();
        assert_eq!(run.stdout, "", "{answer:?}");
        assert_ne!(run.code, 0, "{answer:?}");
        assert!(run.stderr.contains("<U+"), "{answer:?}: {}", run.stderr);
        assert!(!run.stderr.contains('\u{202e}') && !run.stderr.contains('\u{1b}'));
    }
}
