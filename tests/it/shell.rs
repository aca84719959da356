//! Shell integration in real shells: `ai --command`, the `--init` scripts (syntax, silent
//! sourcing, shellcheck), the widget driven in tmux for bash, zsh and fish, and the generated
//! completions and man page compared with what the binary prints.

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use serde_json::json;

use crate::harness::Ai;
use crate::server::{FakeServer, Reply, text_reply};

fn ai_output(args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_ai"))
        .args(args)
        .output()
        .expect("run ai");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn need(program: &str) {
    let found = Command::new("sh")
        .args(["-c", &format!("command -v {program}")])
        .output()
        .is_ok_and(|o| o.status.success());
    assert!(
        found,
        "`{program}` is needed by the shell tests: apt-get install {program} (.ci/run does)"
    );
}

#[test]
fn generated_completions_and_man_page_match_the_committed_files() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut stale = Vec::new();
    for (shell, file) in [
        ("bash", "ai.bash"),
        ("zsh", "ai.zsh"),
        ("fish", "ai.fish"),
        ("elvish", "ai.elvish"),
        ("powershell", "ai.ps1"),
    ] {
        let committed =
            std::fs::read_to_string(root.join("completions").join(file)).unwrap_or_default();
        if committed != ai_output(&["--completions", shell]) {
            stale.push(format!("completions/{file}"));
        }
    }
    if std::fs::read_to_string(root.join("man/ai.1")).unwrap_or_default() != ai_output(&["--man"]) {
        stale.push("man/ai.1".into());
    }
    assert!(
        stale.is_empty(),
        "{} out of date; regenerate with: for s in bash zsh fish elvish; do ai --completions $s > completions/ai.$s; done; \
         ai --completions powershell > completions/ai.ps1; ai --man > man/ai.1",
        stale.join(", ")
    );
}

#[test]
fn command_mode_prints_exactly_one_command_with_read_only_tools() {
    let server = FakeServer::start(vec![text_reply(
        "Sure! Here it is:\n```bash\nfind . -size +100M\n```\nThis finds big files.",
    )]);
    let run = Ai::new(&server.url)
        .args(&["--command", "find files over 100MB here"])
        .run();
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(run.stdout, "find . -size +100M\n");
    assert_eq!(run.stderr, "");
    let body = &server.chat_bodies()[0];
    let tools: Vec<&str> = body["tools"]
        .as_array()
        .map(|t| {
            t.iter()
                .filter_map(|t| t["function"]["name"].as_str())
                .collect()
        })
        .unwrap_or_default();
    assert!(!tools.contains(&"execute_command"), "{tools:?}");
    assert!(
        body["messages"][0]["content"]
            .as_str()
            .unwrap_or("")
            .contains("exactly one command line")
    );
}

#[test]
fn command_mode_prints_nothing_on_failure() {
    let server = FakeServer::start(vec![crate::server::status(
        401,
        r#"{"error":{"message":"bad key"}}"#,
    )]);
    let run = Ai::new(&server.url).args(&["--command", "anything"]).run();
    assert_eq!(run.code, 1);
    assert_eq!(run.stdout, "");
    assert!(run.stderr.contains("bad key"));
    let empty = FakeServer::start(vec![text_reply("   ")]);
    let run = Ai::new(&empty.url).args(&["--command", "anything"]).run();
    assert_ne!(run.code, 0);
    assert_eq!(run.stdout, "");
}

#[test]
fn the_last_command_recorded_by_context_hooks_reaches_the_model() {
    let server = FakeServer::start(vec![text_reply("A typo.")]);
    let ai = Ai::new(&server.url).arg("why did that fail?");
    std::fs::create_dir_all(ai.state_dir().join("swebash-ai")).expect("mkdir");
    std::fs::write(
        ai.state_dir().join("swebash-ai/shell-context"),
        "127\tcargo biuld\n",
    )
    .expect("write");
    assert_eq!(ai.run().code, 0);
    let system = server.chat_bodies()[0]["messages"][0]["content"]
        .as_str()
        .unwrap_or("")
        .to_string();
    assert!(
        system.contains("`cargo biuld`; it exited with status 127"),
        "{system}"
    );
}

fn init(shell: &str, extra: &[&str]) -> String {
    let mut args = vec!["--init", shell];
    args.extend_from_slice(extra);
    ai_output(&args)
}

#[test]
fn the_scripts_are_valid_shell_and_shellcheck_clean() {
    for (shell, check) in [
        ("bash", vec!["bash", "-n"]),
        ("zsh", vec!["zsh", "-n"]),
        ("fish", vec!["fish", "--no-execute"]),
    ] {
        need(check[0]);
        for extra in [&[][..], &["--context"][..], &["--key", "^G"][..]] {
            let dir = tempfile::tempdir().expect("tempdir");
            let file = dir.path().join("script");
            std::fs::write(&file, init(shell, extra)).expect("write");
            let out = Command::new(check[0])
                .args(&check[1..])
                .arg(&file)
                .output()
                .expect("run shell");
            assert!(
                out.status.success(),
                "{shell} {extra:?}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
    }
    need("shellcheck");
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let out = Command::new("shellcheck")
        .args(["--shell=bash"])
        .arg(root.join("shell/ai.bash"))
        .arg(root.join("shell/ai.bash.context"))
        .output()
        .expect("shellcheck");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
}

#[test]
fn sourcing_twice_in_a_clean_shell_prints_nothing() {
    let ai = env!("CARGO_BIN_EXE_ai");
    for (shell, args, script) in [
        (
            "bash",
            vec!["--norc", "--noprofile", "-c"],
            format!("eval \"$({ai} --init bash --context)\"; eval \"$({ai} --init bash)\""),
        ),
        (
            "zsh",
            vec!["-f", "-c"],
            format!("eval \"$({ai} --init zsh --context)\"; eval \"$({ai} --init zsh)\""),
        ),
        (
            "fish",
            vec!["--no-config", "-c"],
            format!("{ai} --init fish --context | source; {ai} --init fish | source"),
        ),
    ] {
        need(shell);
        let home = tempfile::tempdir().expect("tempdir");
        let out = Command::new(shell)
            .args(&args)
            .arg(&script)
            .env("HOME", home.path())
            .env_remove("XDG_STATE_HOME")
            .output()
            .expect("run shell");
        assert!(
            out.status.success(),
            "{shell}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert_eq!(String::from_utf8_lossy(&out.stdout), "", "{shell}");
        assert_eq!(String::from_utf8_lossy(&out.stderr), "", "{shell}");
    }
}

/// An interactive shell in a private tmux server.
pub(crate) struct Tmux {
    socket: String,
}

impl Tmux {
    pub(crate) fn start(shell: &str, ai: &Ai) -> Tmux {
        need("tmux");
        need(shell);
        let socket = format!("ai-test-{}-{shell}-{}", std::process::id(), rand_suffix());
        let bin_dir = Path::new(env!("CARGO_BIN_EXE_ai"))
            .parent()
            .expect("bin dir")
            .display()
            .to_string();
        let mut env: Vec<String> = ai
            .env_pairs()
            .iter()
            .map(|(k, v)| {
                if k == "PATH" {
                    format!("PATH={bin_dir}:{v}")
                } else {
                    format!("{k}={v}")
                }
            })
            .collect();
        env.push("TERM=xterm".into());
        let program = match shell {
            "bash" => "bash --norc --noprofile -i",
            "zsh" => "zsh -f -i",
            _ => "fish --no-config -i",
        };
        let command = format!(
            "cd {} && env -i {} {program}",
            ai.work().display(),
            env.iter()
                .map(|e| shell_quote(e))
                .collect::<Vec<_>>()
                .join(" ")
        );
        let status = Command::new("tmux")
            .args([
                "-L",
                &socket,
                "-f",
                "/dev/null",
                "new-session",
                "-d",
                "-s",
                "t",
                "-x",
                "160",
                "-y",
                "24",
                &command,
            ])
            .status()
            .expect("tmux");
        assert!(status.success());
        let tmux = Tmux { socket };
        // The prompt is drawn: the shell reads keys.
        tmux.wait_until("a prompt", |screen| !screen.trim().is_empty());
        let load = match shell {
            "fish" => "ai --init fish | source",
            "zsh" => "eval \"$(ai --init zsh)\"",
            _ => "eval \"$(ai --init bash)\"",
        };
        tmux.keys(&[&format!("{load}; clear"), "Enter"]);
        tmux.round_trip("LOADED");
        tmux
    }

    pub(crate) fn keys(&self, keys: &[&str]) {
        let status = Command::new("tmux")
            .args(["-L", &self.socket, "send-keys", "-t", "t"])
            .args(keys)
            .status()
            .expect("tmux send-keys");
        assert!(status.success());
    }

    fn literal(&self, text: &str) {
        let status = Command::new("tmux")
            .args(["-L", &self.socket, "send-keys", "-t", "t", "-l", text])
            .status()
            .expect("tmux send-keys");
        assert!(status.success());
    }

    pub(crate) fn screen(&self) -> String {
        let out = Command::new("tmux")
            .args(["-L", &self.socket, "capture-pane", "-p", "-t", "t"])
            .output()
            .expect("capture");
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    pub(crate) fn wait_for(&self, needle: &str) -> String {
        self.wait_until(needle, |screen| screen.contains(needle))
    }

    /// Polls the screen until `done` (at most 15 s; the caller's assertion then says what failed).
    pub(crate) fn wait_until(&self, what: &str, done: impl Fn(&str) -> bool) -> String {
        let start = Instant::now();
        loop {
            let screen = self.screen();
            if done(&screen) {
                return screen;
            }
            if start.elapsed() > Duration::from_secs(15) {
                return format!("(gave up waiting for {what})\n{screen}");
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Runs a command that prints `word` (typed split, so only its output matches) and waits
    /// for it: everything typed before has been handled by the shell.
    pub(crate) fn round_trip(&self, word: &str) {
        let (head, tail) = word.split_at(word.len() / 2);
        self.keys(&[&format!("printf '%s\\n' {head}''{tail}"), "Enter"]);
        let screen = self.wait_for(word);
        assert!(screen.contains(word), "the shell did not answer: {screen}");
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = Command::new("tmux")
            .args(["-L", &self.socket, "kill-server"])
            .status();
    }
}

fn rand_suffix() -> u128 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0)
}

fn shell_quote(text: &str) -> String {
    format!("'{}'", text.replace('\'', "'\\''"))
}

fn widget_replaces_the_line(shell: &str) {
    let server = FakeServer::start(vec![text_reply("```bash\ntouch ran-by-mistake\n```")]);
    let ai = Ai::new(&server.url);
    let tmux = Tmux::start(shell, &ai);
    tmux.literal("make an empty file");
    tmux.keys(&["M-e"]);
    let screen = tmux.wait_for("touch ran-by-mistake");
    assert!(screen.contains("touch ran-by-mistake"), "{shell}: {screen}");
    assert!(
        !screen.contains("make an empty file"),
        "{shell}: the line was replaced: {screen}"
    );
    // Discard the line, then a round trip: had the widget run the line, it would have by now.
    tmux.keys(&["C-c"]);
    tmux.round_trip("CHECKED");
    assert!(
        !ai.work().join("ran-by-mistake").exists(),
        "{shell}: the command must not run"
    );
    assert_eq!(
        server.chat_bodies()[0]["messages"][1]["content"],
        json!("make an empty file")
    );
    // The model is told the real shell (fish users once got bash syntax, told it was `sh`).
    let system = server.chat_bodies()[0]["messages"][0]["content"]
        .as_str()
        .unwrap_or("")
        .to_string();
    assert!(
        system.contains(&format!("one command line for {shell} on")),
        "{shell}: {system}"
    );
}

fn ctrl_c_restores_the_line(shell: &str) {
    let server = FakeServer::start(vec![Reply::StallAfter(vec![], Duration::from_secs(8))]);
    let ai = Ai::new(&server.url);
    let tmux = Tmux::start(shell, &ai);
    tmux.literal("a slow request");
    tmux.keys(&["M-e"]);
    let start = Instant::now();
    while server.chat_bodies().is_empty() && start.elapsed() < Duration::from_secs(10) {
        std::thread::sleep(Duration::from_millis(20));
    }
    // Every shell shows that ai is thinking.
    let mark = if shell == "zsh" {
        "ai: thinking…"
    } else {
        "a slow request [ai…]"
    };
    let screen = tmux.wait_for(mark);
    assert!(screen.contains(mark), "{shell}: no progress mark: {screen}");
    // `ai` is running (its request arrived), so the widget's Ctrl-C handling is in place.
    tmux.keys(&["C-c"]);
    // The progress mark goes when the widget returns.
    tmux.wait_until("the widget to return", |screen| {
        !screen.contains("[ai…]") && !screen.contains("ai: thinking")
    });
    // The typed line is back and still being edited: more typing extends it.
    tmux.literal(" and more");
    let screen = tmux.wait_for("a slow request and more");
    assert!(
        screen.contains("a slow request and more"),
        "{shell}: {screen}"
    );
}

#[test]
fn bash_widget_replaces_the_line() {
    widget_replaces_the_line("bash");
}

#[test]
fn zsh_widget_replaces_the_line() {
    widget_replaces_the_line("zsh");
}

#[test]
fn fish_widget_replaces_the_line() {
    widget_replaces_the_line("fish");
}

#[test]
fn bash_ctrl_c_restores_the_line() {
    ctrl_c_restores_the_line("bash");
}

#[test]
fn zsh_ctrl_c_restores_the_line() {
    ctrl_c_restores_the_line("zsh");
}

#[test]
fn fish_ctrl_c_restores_the_line() {
    ctrl_c_restores_the_line("fish");
}

fn prose_restores_the_line_and_says_why(shell: &str) {
    let server = FakeServer::start(vec![text_reply("I cannot help with that request.")]);
    let ai = Ai::new(&server.url);
    let tmux = Tmux::start(shell, &ai);
    tmux.literal("do something odd");
    tmux.keys(&["M-e"]);
    let screen = tmux.wait_for("is not a command");
    assert!(screen.contains("is not a command"), "{shell}: {screen}");
    assert!(!screen.contains("I cannot help"), "{shell}: {screen}");
    // The typed line is back and still being edited.
    tmux.literal(" again");
    let screen = tmux.wait_for("do something odd again");
    assert!(
        screen.contains("do something odd again"),
        "{shell}: {screen}"
    );
}

#[test]
fn bash_widget_refuses_prose_and_says_why() {
    prose_restores_the_line_and_says_why("bash");
}

#[test]
fn zsh_widget_refuses_prose_and_says_why() {
    prose_restores_the_line_and_says_why("zsh");
}

#[test]
fn fish_widget_refuses_prose_and_says_why() {
    prose_restores_the_line_and_says_why("fish");
}

#[test]
fn command_mode_refuses_prose_with_exit_1_and_one_line() {
    let server = FakeServer::start(vec![text_reply("I cannot help with that request.")]);
    let run = Ai::new(&server.url).args(&["--command", "hack"]).run();
    assert_eq!(run.code, 1);
    assert_eq!(run.stdout, "");
    assert_eq!(run.stderr.lines().count(), 1, "{}", run.stderr);
    let server = FakeServer::start(vec![text_reply("```sh\nmkdir -p out\ncd out\n```")]);
    let run = Ai::new(&server.url).args(&["--command", "make out"]).run();
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(run.stdout, "mkdir -p out; cd out\n");
}

/// `false; ai "why did that fail"`, then `ai "how do I fix it"`: the second still sees `false`.
fn context_skips_ai(shell: &str) {
    let server = FakeServer::start(vec![text_reply("First."), text_reply("Second.")]);
    let ai = Ai::new(&server.url);
    let tmux = Tmux::start(shell, &ai);
    let load = match shell {
        "fish" => "ai --init fish --context | source",
        "zsh" => "eval \"$(ai --init zsh --context)\"",
        _ => "eval \"$(ai --init bash --context)\"",
    };
    tmux.keys(&[load, "Enter"]);
    tmux.keys(&["false", "Enter"]);
    tmux.keys(&["ai why did that fail", "Enter"]);
    tmux.wait_for("First.");
    tmux.keys(&["ai how do I fix it", "Enter"]);
    let screen = tmux.wait_for("Second.");
    let bodies = server.chat_bodies();
    assert_eq!(bodies.len(), 2, "{shell}: {screen}");
    let system = bodies[1]["messages"][0]["content"]
        .as_str()
        .unwrap_or("")
        .to_string();
    assert!(
        system.contains("`false`; it exited with status 1"),
        "{shell}: {system}"
    );
}

#[test]
fn bash_context_never_records_ai() {
    context_skips_ai("bash");
}

#[test]
fn zsh_context_never_records_ai() {
    context_skips_ai("zsh");
}

#[test]
fn fish_context_never_records_ai() {
    context_skips_ai("fish");
}

/// A suggestion the policy would deny goes on the line with a warning, never silently; and with
/// `SWEBASH_AI_WIDGET_UNSAFE=refuse`, not at all.
fn a_denied_suggestion_comes_with_a_warning(shell: &str) {
    let server = FakeServer::start(vec![text_reply("rm -rf ~")]);
    let ai = Ai::new(&server.url);
    let tmux = Tmux::start(shell, &ai);
    tmux.literal("free some space");
    tmux.keys(&["M-e"]);
    let screen = tmux.wait_for("ai would never run this");
    assert!(
        screen.contains("ai would never run this"),
        "{shell}: {screen}"
    );
    let line = tmux.wait_for("rm -rf ~");
    assert!(line.contains("rm -rf ~"), "{shell}: on the line: {line}");
    tmux.keys(&["C-c"]);
    tmux.round_trip("CHECKED");
    assert!(ai.home().exists(), "{shell}: never run");
}

#[test]
fn bash_widget_warns_on_a_denied_suggestion() {
    a_denied_suggestion_comes_with_a_warning("bash");
}

#[test]
fn zsh_widget_warns_on_a_denied_suggestion() {
    a_denied_suggestion_comes_with_a_warning("zsh");
}

#[test]
fn fish_widget_warns_on_a_denied_suggestion() {
    a_denied_suggestion_comes_with_a_warning("fish");
}

#[test]
fn command_mode_warns_on_an_asking_suggestion_and_can_refuse_it() {
    let server = FakeServer::start(vec![text_reply("rm -rf ~"), text_reply("rm -rf ~")]);
    let run = Ai::new(&server.url)
        .args(&["--command", "--shell", "fish", "clean"])
        .run();
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(run.stdout, "rm -rf ~\n");
    assert_eq!(run.stderr.lines().count(), 1, "{}", run.stderr);
    assert!(
        run.stderr
            .starts_with("ai: warning: DANGER, ai would never run this: "),
        "{}",
        run.stderr
    );
    let run = Ai::new(&server.url)
        .env("SWEBASH_AI_WIDGET_UNSAFE", "refuse")
        .args(&["--command", "clean"])
        .run();
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert_eq!(run.stdout, "");
    assert!(run.stderr.contains("not put on the line"), "{}", run.stderr);
    let bad = Ai::new(&server.url)
        .args(&["--command", "--shell", "fi sh", "clean"])
        .run();
    assert_eq!(bad.code, 2, "{}", bad.stderr);
}
