//! Rule 3: once untrusted text is in the context, even `--yes` runs commands only inside the sandbox.

use super::*;

fn tainted_make_stays_contained(what: &str, taint: Vec<Reply>, extra: &[&str], web: bool) {
    let mut script = taint;
    script.push(tool_reply(&[("m1", "execute_command", exec("make"))]));
    script.push(text_reply("done"));
    let server = FakeServer::start(script);
    if web {
        server.web_page(200, DDG);
    }
    let mut ai = victim(&server)
        .file(
            "Makefile",
            "all:\n\ttouch built.txt\n\t-touch ../home/planted.txt\n",
        )
        .env("SWEBASH_AI_WEB_URL", &server.root());
    for flag in extra {
        ai = ai.arg(flag);
    }
    let ai = ai.args(&["--jsonl", "build it"]);
    let run = ai.run();
    let events = run.events();
    assert!(
        events.iter().any(|e| e["type"] == "turn.tainted"),
        "{what}: never tainted\n{}",
        run.stdout
    );
    assert!(
        !ai.home().join("planted.txt").exists(),
        "{what}: a tainted, approved command ran outside the sandbox\n{}",
        run.stdout
    );
}

#[test]
fn after_taint_yes_never_lifts_the_sandbox() {
    if !landlock() {
        return;
    }
    let web = || tool_reply(&[("w1", "web_search", json!({"query": "how to build"}))]);
    let read_outside = || {
        tool_reply(&[(
            "r1",
            "filesystem",
            json!({"operation": "read", "path": "../outside.txt"}),
        )])
    };
    let cat_outside = || tool_reply(&[("x1", "execute_command", exec("cat ../outside.txt"))]);
    for approve in [
        vec!["--yes"],
        vec!["--allow", "make*"],
        vec!["--allow", "*"],
    ] {
        tainted_make_stays_contained("web --yes", vec![web()], &approve, true);
        tainted_make_stays_contained("outside read", vec![read_outside()], &["--yes"], false);
        tainted_make_stays_contained("outside cat", vec![cat_outside()], &approve, false);
    }
    // Taint and make in the same reply, then a duplicate of the web search.
    let server = FakeServer::start(vec![
        tool_reply(&[
            ("w1", "web_search", json!({"query": "q"})),
            ("m1", "execute_command", exec("make")),
            ("w2", "web_search", json!({"query": "q"})),
            ("m2", "execute_command", exec("make")),
        ]),
        text_reply("done"),
    ]);
    server.web_page(200, DDG);
    let ai = victim(&server)
        .file("Makefile", "all:\n\t-touch ../home/planted.txt\n")
        .env("SWEBASH_AI_WEB_URL", &server.root())
        .env("SWEBASH_AI_TOOLS_CONFIRM", "false")
        .args(&["--json", "go"]);
    let run = ai.run();
    assert!(!ai.home().join("planted.txt").exists(), "{}", run.stdout);
    // Hermes: the web search and make as text.
    let text = format!(
        "<tool_call>\n{}\n</tool_call>\n{}",
        json!({"name": "web_search", "arguments": {"query": "q"}}),
        hermes_calls(&["make"])
    );
    let server = FakeServer::start(vec![text_reply(&text), text_reply("done")]);
    server.web_page(200, DDG);
    let ai = victim(&server)
        .file("Makefile", "all:\n\t-touch ../home/planted.txt\n")
        .env("SWEBASH_AI_WEB_URL", &server.root())
        .args(&["--json", "--yes", "--tool-format", "hermes", "go"]);
    let run = ai.run();
    assert!(!ai.home().join("planted.txt").exists(), "{}", run.stdout);
}

#[test]
fn after_taint_a_safe_command_asks_without_a_terminal() {
    for (what, first) in [
        (
            "web",
            tool_reply(&[("w1", "web_search", json!({"query": "q"}))]),
        ),
        (
            "cat outside",
            tool_reply(&[("x1", "execute_command", exec("cat ../outside.txt"))]),
        ),
        (
            "head outside",
            tool_reply(&[("x1", "execute_command", exec("head -n 5 < ../outside.txt"))]),
        ),
        (
            "grep outside",
            tool_reply(&[(
                "x1",
                "execute_command",
                exec("grep -r IGNORE ../outside.txt"),
            )]),
        ),
    ] {
        let server = FakeServer::start(vec![
            first,
            tool_reply(&[("c2", "execute_command", exec("touch pwned"))]),
            text_reply("done"),
        ]);
        server.web_page(200, DDG);
        let ai = victim(&server)
            .env("SWEBASH_AI_WEB_URL", &server.root())
            .args(&["--json", "go"]);
        let run = ai.run();
        assert!(
            !ai.work().join("pwned").exists(),
            "{what}: a command ran unasked after untrusted content\n{}",
            run.stdout
        );
    }
}
