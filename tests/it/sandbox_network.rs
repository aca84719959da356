//! Rule: the network is opened to a command only from the policy's parse of it, only for a
//! package manager's fetch from its own index, and to nothing else on the line. Each case tries
//! to reach a listener on 127.0.0.1 through a spelling that once opened it (a comment, a fetch
//! beside other code, an option or variable naming another index), approved by `--yes` where
//! it asks: nothing may arrive.

use std::net::TcpListener;
use std::time::Duration;

use serde_json::json;

use crate::harness::Ai;
use crate::launcher::require_sandbox;
use crate::server::{FakeServer, text_reply, tool_reply};

/// A listener that says whether anyone connected.
struct Listener(TcpListener);

impl Listener {
    fn start() -> Listener {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        listener.set_nonblocking(true).unwrap();
        Listener(listener)
    }

    fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.0.local_addr().unwrap().port())
    }

    fn reached(&self) -> bool {
        std::thread::sleep(Duration::from_millis(50));
        self.0.accept().is_ok()
    }
}

fn run(command: &str, listener: &Listener) -> (Ai, crate::harness::Run) {
    let connect = format!(
        "python3 -c \"import urllib.request as u; u.urlopen('{}/leak', timeout=2)\"",
        listener.url()
    );
    let server = FakeServer::start(vec![
        tool_reply(&[("c1", "execute_command", json!({ "command": command }))]),
        text_reply("done"),
    ]);
    let ai = Ai::new(&server.url)
        .file("Makefile", &format!("all:\n\t-@{connect}\n"))
        .file(
            "Cargo.toml",
            "[package]\nname = \"demo\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
        )
        .file("src/lib.rs", "")
        // A fetch with no network would retry for long: what matters is that nothing arrives.
        .env("SWEBASH_AI_EXEC_TIMEOUT", "5")
        .args(&["--json", "--yes", "go"]);
    let run = ai.run();
    (ai, run)
}

#[test]
fn only_a_fetch_from_the_managers_own_index_opens_the_network() {
    if !require_sandbox() {
        return;
    }
    let listener = Listener::start();
    let url = listener.url();
    for command in [
        "make # | cargo build".to_string(),
        "make; cargo build --offline".to_string(),
        "cargo fetch --offline; make".to_string(),
        "make && npm install".to_string(),
        "cargo search --index sparse+{url}/index/ secret".replace("{url}", &url),
        "cargo search --registry evil secret".to_string(),
        "npm install --registry={url}".replace("{url}", &url),
        "npm view --registry {url} x".replace("{url}", &url),
        "pip install --index-url {url}/simple x".replace("{url}", &url),
        "pip install {url}/x.whl".replace("{url}", &url),
        "GOPROXY={url} go mod download".replace("{url}", &url),
        "npm_config_registry={url} npm install".replace("{url}", &url),
        "HTTPS_PROXY={url} cargo fetch".replace("{url}", &url),
    ] {
        let (_ai, run) = run(&command, &listener);
        assert!(
            !listener.reached(),
            "{command}: reached the listener\n{}",
            run.stdout
        );
    }
}

#[test]
fn check_command_says_which_fetch_gets_the_network() {
    let ai = Ai::new("http://127.0.0.1:9/v1");
    let said = |command: &str| ai.run_with(&["--check-command", command, "--json"]).json();
    let open = said("cargo build");
    let sandbox = open["sandbox"].to_string();
    if require_sandbox() {
        assert!(sandbox.contains("network open"), "{open}");
    }
    for command in [
        "cargo build --offline",
        "make # | cargo build",
        "cargo build; make",
        "npm ci && npm run build",
    ] {
        let told = said(command);
        assert!(
            !told["sandbox"].to_string().contains("network open"),
            "{command}: {told}"
        );
    }
    let elsewhere = said("cargo search --index sparse+http://127.0.0.1:9/ x");
    assert_eq!(elsewhere["decision"], json!("ask"), "{elsewhere}");
}
