//! MCP servers: a scripted one (tests/fixtures/mcp/fake_server.py) for the failure paths, and the
//! real reference servers from npm and PyPI (run by `.ci/run`, which installs them).

use serde_json::{Value, json};

use crate::harness::Ai;
use crate::server::{FakeServer, text_reply, tool_reply};

fn fake_server_path() -> String {
    format!(
        "{}/tests/fixtures/mcp/fake_server.py",
        env!("CARGO_MANIFEST_DIR")
    )
}

fn with_fake(server: &FakeServer, allowed: &[&str]) -> Ai {
    let allowed: Vec<String> = allowed.iter().map(|a| format!("{a:?}")).collect();
    Ai::new(&server.url).config(&format!(
        "[[mcp_servers]]\nname = \"fake\"\ncommand = \"python3\"\nargs = [{:?}]\nallowed_tools = [{}]\n",
        fake_server_path(),
        allowed.join(", ")
    ))
}

fn tool_names(body: &Value) -> Vec<String> {
    body["tools"]
        .as_array()
        .map(|t| {
            t.iter()
                .filter_map(|t| t["function"]["name"].as_str().map(String::from))
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn an_allowed_mcp_tool_runs_and_its_text_goes_back() {
    let server = FakeServer::start(vec![
        tool_reply(&[("c1", "fake__echo", json!({"text": "hi"}))]),
        text_reply("It said hi."),
    ]);
    let run = with_fake(&server, &["echo"])
        .args(&["--json", "echo hi"])
        .run();
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(run.json()["tool_calls"][0]["decision"], json!("allow"));
    assert!(tool_names(&server.chat_bodies()[0]).contains(&"fake__echo".to_string()));
    assert_eq!(
        server.last_tool_result()["data"]["content"],
        json!("echo: hi")
    );
}

#[test]
fn an_mcp_tool_outside_allowed_tools_is_denied_without_a_terminal() {
    let server = FakeServer::start(vec![
        tool_reply(&[("c1", "fake__echo", json!({"text": "hi"}))]),
        text_reply("Could not."),
    ]);
    let run = with_fake(&server, &[]).args(&["--json", "echo hi"]).run();
    assert_eq!(run.code, 3, "{}", run.stderr);
    assert_eq!(run.json()["tool_calls"][0]["decision"], json!("denied"));
}

#[test]
fn arguments_are_checked_against_the_servers_schema_before_the_call() {
    let server = FakeServer::start(vec![
        tool_reply(&[("c1", "fake__echo", json!({"txt": "hi"}))]),
        text_reply("Oops."),
    ]);
    let run = with_fake(&server, &["echo"])
        .args(&["--json", "echo hi"])
        .run();
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(
        run.json()["tool_calls"][0]["error"]["code"],
        json!("INVALID_ARGUMENTS")
    );
    assert!(
        server.last_tool_result()["error"]
            .as_str()
            .unwrap_or("")
            .contains("`text`")
    );
}

#[test]
fn a_server_that_exits_mid_call_is_a_tool_error_and_the_run_goes_on() {
    let server = FakeServer::start(vec![
        tool_reply(&[("c1", "fake__boom", json!({}))]),
        tool_reply(&[("c2", "fake__echo", json!({"text": "again"}))]),
        text_reply("The server died."),
    ]);
    let run = with_fake(&server, &["echo", "boom"])
        .args(&["--json", "crash it"])
        .run();
    assert_eq!(run.code, 0, "{}", run.stderr);
    let calls = run.json()["tool_calls"].clone();
    assert_eq!(calls[0]["error"]["code"], json!("EXECUTION_FAILED"));
    assert!(
        calls[0]["error"]["message"]
            .as_str()
            .unwrap_or("")
            .contains("MCP server fake"),
        "{calls}"
    );
    assert_eq!(
        calls[1]["ok"],
        json!(false),
        "a dead server answers with an error, not a hang"
    );
    assert_eq!(run.json()["answer"], json!("The server died."));
}

#[test]
fn a_server_that_cannot_start_is_reported_once_and_its_tools_withdrawn() {
    let server = FakeServer::start(vec![text_reply("ok")]);
    let run = Ai::new(&server.url)
        .config("[[mcp_servers]]\nname = \"ghost\"\ncommand = \"/nonexistent/mcp-server\"\n")
        .args(&["--json", "hi"])
        .run();
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(
        run.stderr
            .matches("the MCP server ghost could not start")
            .count(),
        1,
        "{}",
        run.stderr
    );
    assert!(
        !tool_names(&server.chat_bodies()[0])
            .iter()
            .any(|t| t.starts_with("ghost__"))
    );
}

#[test]
fn mcp_off_disables_every_server_and_list_tools_shows_sources() {
    let server = FakeServer::start(vec![text_reply("ok")]);
    let ai = with_fake(&server, &["echo"]);
    let listed = ai.run_with(&["--list-tools", "--json"]);
    let tools = listed.json();
    let echo = tools
        .as_array()
        .and_then(|t| t.iter().find(|t| t["name"] == "fake__echo").cloned())
        .unwrap_or_default();
    assert_eq!(echo["source"], json!("mcp"));
    assert_eq!(echo["asks"], json!("never (in allowed_tools)"));
    let boom = tools
        .as_array()
        .and_then(|t| t.iter().find(|t| t["name"] == "fake__boom").cloned())
        .unwrap_or_default();
    assert_eq!(boom["asks"], json!("always"));
    let off = ai.env("SWEBASH_AI_MCP", "off").args(&["-q", "hi"]).run();
    assert_eq!(off.code, 0, "{}", off.stderr);
    assert!(
        !tool_names(&server.chat_bodies()[0])
            .iter()
            .any(|t| t.starts_with("fake__"))
    );
}

#[test]
fn a_server_with_a_cached_tool_list_starts_only_when_a_tool_is_called() {
    let server = FakeServer::start(vec![
        text_reply("first"),
        text_reply("second"),
        tool_reply(&[("c1", "fake__echo", json!({"text": "now"}))]),
        text_reply("third"),
    ]);
    let ai = Ai::new(&server.url);
    let marker = ai.root_dir().join("started.txt");
    let ai = ai.config(&format!(
        "[[mcp_servers]]\nname = \"fake\"\ncommand = \"python3\"\nargs = [{:?}]\nallowed_tools = [\"echo\"]\nenv = {{ FAKE_MCP_MARKER = {:?} }}\n",
        fake_server_path(),
        marker.display().to_string()
    ));
    let starts = || {
        std::fs::read_to_string(&marker)
            .unwrap_or_default()
            .lines()
            .count()
    };
    assert_eq!(ai.run_with(&["-q", "one"]).code, 0);
    assert_eq!(starts(), 1, "the first run lists the tools");
    assert_eq!(ai.run_with(&["-q", "two"]).code, 0);
    assert_eq!(starts(), 1, "a run that calls no MCP tool starts no server");
    assert!(
        tool_names(&server.chat_bodies()[1]).contains(&"fake__echo".to_string()),
        "the tools are still offered"
    );
    assert_eq!(ai.run_with(&["-q", "three"]).code, 0);
    assert_eq!(starts(), 2, "the first call starts it");
    assert_eq!(
        server.last_tool_result()["data"]["content"],
        json!("echo: now")
    );
}

fn reference_fs_server() -> String {
    std::env::var("MCP_FS_SERVER").expect(
        "MCP_FS_SERVER: the path of @modelcontextprotocol/server-filesystem's dist/index.js",
    )
}

#[test]
#[ignore = "needs the npm reference filesystem server; .ci/run installs it"]
fn the_reference_filesystem_server_reads_a_file() {
    let ai = Ai::bare().file("notes.txt", "hello from a real MCP server\n");
    let work = std::fs::canonicalize(ai.work()).expect("work dir");
    // The model names the file by its absolute path, as the server requires.
    let server = FakeServer::start(vec![
        tool_reply(&[(
            "c1",
            "fs__read_text_file",
            json!({"path": work.join("notes.txt").display().to_string()}),
        )]),
        text_reply("Read it."),
    ]);
    let run = ai
        .env("SWEBASH_AI_BASE_URL", &server.url)
        .env("SWEBASH_AI_MODEL", "fake-model")
        .config(&format!(
            "[[mcp_servers]]\nname = \"fs\"\ncommand = \"node\"\nargs = [{:?}, {:?}]\nallowed_tools = [\"read_text_file\"]\n",
            reference_fs_server(),
            work.display().to_string()
        ))
        .args(&["--json", "read notes"])
        .run();
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(
        run.json()["tool_calls"][0]["ok"],
        json!(true),
        "{}",
        run.stdout
    );
    assert!(
        server.last_tool_result()["data"]["content"]
            .as_str()
            .unwrap_or("")
            .contains("hello from a real MCP server")
    );
}

#[test]
#[ignore = "needs mcp-server-time from PyPI; .ci/run installs it"]
fn mcp_server_time_answers_when_allowed_and_is_denied_when_not() {
    let command = std::env::var("MCP_TIME_SERVER").unwrap_or_else(|_| "mcp-server-time".into());
    let config = |allowed: &str| {
        format!(
            "[[mcp_servers]]\nname = \"time\"\ncommand = {command:?}\nallowed_tools = [{allowed}]\n"
        )
    };
    let call = || tool_reply(&[("c1", "time__get_current_time", json!({"timezone": "UTC"}))]);
    let server = FakeServer::start(vec![call(), text_reply("Noted.")]);
    let run = Ai::new(&server.url)
        .config(&config("\"get_current_time\""))
        .args(&["--json", "time?"])
        .run();
    assert_eq!(run.code, 0, "{}", run.stderr);
    let result = server.last_tool_result();
    assert_eq!(result["success"], json!(true), "{result}");
    assert!(
        result["data"]["content"]
            .as_str()
            .unwrap_or("")
            .contains("UTC"),
        "{result}"
    );

    let server = FakeServer::start(vec![call(), text_reply("Could not.")]);
    let run = Ai::new(&server.url)
        .config(&config(""))
        .args(&["--json", "time?"])
        .run();
    assert_eq!(run.code, 3, "{}", run.stderr);
    assert_eq!(run.json()["tool_calls"][0]["decision"], json!("denied"));
}

/// An MCP server runs outside the sandbox with ai's environment: it never starts in the project,
/// where an unasked call could have planted the module `python3 -m NAME` (or the package `npx`)
/// would load first (sandbox round 14).
#[test]
fn an_mcp_server_never_loads_code_planted_in_the_project() {
    let server = FakeServer::start(vec![text_reply("done")]);
    let ai = Ai::new(&server.url);
    let marker = ai.root_dir().join("planted-ran.txt");
    let ai = ai
        .file(
            "planted_mcp.py",
            &format!("open({:?}, 'a').write('ran\\n')\n", marker.display().to_string()),
        )
        .config(
            "[[mcp_servers]]\nname = \"planted\"\ncommand = \"python3\"\nargs = [\"-m\", \"planted_mcp\"]\n",
        );
    let run = ai.run_with(&["-q", "hello"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        !marker.exists(),
        "the server loaded a module from the project: {}",
        run.stderr
    );
    assert!(
        run.stderr.contains("planted"),
        "the server that could not start is reported: {}",
        run.stderr
    );
}
