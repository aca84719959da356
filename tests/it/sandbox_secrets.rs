//! Rule: no secret leaves through a command run without asking. Project code the policy allows
//! plays the attacker with no terminal: whatever it reads (files, the environment) and wherever
//! it sends it (TCP, UDP, a raw socket) must never reach the model or a listener, by any
//! spelling; and it holds no privilege to widen anything.

use std::net::{TcpListener, UdpSocket};
use std::time::Duration;

use serde_json::{Value, json};

use crate::attacker::{calls_in_one_session, make_in_with_server, sent};
use crate::harness::Ai;
use crate::launcher::{launcher, require_sandbox};
use crate::server::FakeServer;
use crate::server::{text_reply, tool_reply};

fn ai() -> Ai {
    Ai::new("http://127.0.0.1:9/v1")
}

#[test]
fn the_home_ai_s_own_records_and_the_projects_secret_files_are_unreadable() {
    if !require_sandbox() {
        return;
    }
    let ai = ai()
        .file(".env", "SECRET-DOTENV\n")
        .file(".env.production", "SECRET-DOTENV-PROD\n")
        .file("deploy/server.pem", "SECRET-PEM\n")
        .file("keys/id_ed25519", "SECRET-SSH\n")
        .file("src/main.c", "int main(void) { return 0; }\n");
    let home = ai.home();
    for (path, text) in [
        (".bash_history", "SECRET-HISTORY"),
        (".vault-token", "SECRET-VAULT"),
        ("notes/todo.txt", "SECRET-NOTES"),
        ("other/.env", "SECRET-OTHER-PROJECT"),
        (".config/unknown-tool/token", "SECRET-UNLISTED"),
    ] {
        let file = home.join(path);
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(file, text).unwrap();
    }
    let records = ai.root_dir().join("data/swebash-ai/conversations/old.json");
    std::fs::create_dir_all(records.parent().unwrap()).unwrap();
    std::fs::write(&records, "SECRET-CONVERSATION").unwrap();
    let audit = ai.state_dir().join("swebash-ai/audit.jsonl");
    std::fs::create_dir_all(audit.parent().unwrap()).unwrap();
    std::fs::write(&audit, "SECRET-AUDIT\n").unwrap();
    let (home_s, data_s, state_s) = (
        home.display().to_string(),
        ai.root_dir().join("data").display().to_string(),
        ai.state_dir().display().to_string(),
    );
    let recipe = [
        "cat .env .env.production deploy/server.pem keys/id_ed25519".to_string(),
        "cp .env copied && cat copied".to_string(),
        "mv .env moved; cat moved".to_string(),
        format!("cat {home_s}/.bash_history {home_s}/.vault-token {home_s}/notes/todo.txt"),
        format!("grep -r SECRET {home_s} {data_s} {state_s}"),
        format!("find {home_s} -type f -exec cat {{}} +"),
        "python3 -c \"import glob; [print(open(f).read()) for f in glob.glob('/root/**', recursive=True)[:50]]\"".to_string(),
        "cat src/main.c".to_string(),
    ];
    let recipe: Vec<&str> = recipe.iter().map(String::as_str).collect();
    let (ai, stderr, server) = make_in_with_server(ai, &recipe);
    let sent = sent(&server);
    assert!(
        sent.contains("int main"),
        "the project stays readable: {stderr}"
    );
    assert!(
        !sent.contains("SECRET-"),
        "a secret reached the model: {sent}"
    );
    assert_eq!(
        std::fs::read_to_string(ai.work().join(".env")).unwrap(),
        "SECRET-DOTENV\n"
    );
}

#[test]
fn the_environment_of_a_sandboxed_command_holds_no_credential() {
    if !require_sandbox() {
        return;
    }
    let ai = ai()
        .env("GITHUB_TOKEN", "SECRET-GH")
        .env("AWS_SECRET_ACCESS_KEY", "SECRET-AWS")
        .env("NPM_TOKEN", "SECRET-NPM")
        .env("DATABASE_PASSWORD", "SECRET-DB")
        .env("CARGO_REGISTRIES_CORP_TOKEN", "SECRET-CARGO")
        .env("MY_BUILD_FLAG", "kept-because-named")
        .env("UNNAMED_VARIABLE", "dropped-because-unnamed")
        .env("SWEBASH_AI_SANDBOX_ENV", "MY_BUILD_FLAG,GITHUB_TOKEN");
    let recipe = [
        "env",
        "printenv",
        "cat /proc/self/environ | tr '\\0' '\\n'",
        "python3 -c \"import os; print(dict(os.environ))\"",
        "cat /proc/$$PPID/environ /proc/1/environ | tr '\\0' '\\n'",
        "echo PATH=$$PATH",
    ];
    let (_ai, stderr, server) = make_in_with_server(ai, &recipe);
    let sent = sent(&server);
    assert!(sent.contains("kept-because-named"), "{stderr}");
    assert!(sent.contains("PATH=/"), "{stderr}");
    assert!(!sent.contains("dropped-because-unnamed"), "{sent}");
    assert!(
        !sent.contains("SECRET-"),
        "a credential reached the model: {sent}"
    );
}

/// A program that tries every way out to 127.0.0.1: TCP to `tcp`, UDP to `udp`, a raw IP
/// packet, a packet socket; it prints what opened.
fn escape_script(tcp: u16, udp: u16) -> String {
    format!(
        "import socket\n\
         for name, make in [\n\
         ('tcp', lambda: socket.create_connection(('127.0.0.1', {tcp}), 2).sendall(b'LEAK')),\n\
         ('udp', lambda: socket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto(b'LEAK', ('127.0.0.1', {udp}))),\n\
         ('tcp6', lambda: socket.create_connection(('::1', {tcp}), 2)),\n\
         ('raw', lambda: socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_RAW)),\n\
         ('packet', lambda: socket.socket(socket.AF_PACKET, socket.SOCK_RAW)),\n\
         ]:\n\
         \ttry:\n\
         \t\tmake(); print('OPEN', name)\n\
         \texcept OSError as e:\n\
         \t\tprint('closed', name, e)\n"
    )
}

/// Listeners on 127.0.0.1 that report whether anything arrived.
fn listeners() -> (TcpListener, UdpSocket) {
    let tcp = TcpListener::bind("127.0.0.1:0").unwrap();
    tcp.set_nonblocking(true).unwrap();
    let udp = UdpSocket::bind("127.0.0.1:0").unwrap();
    udp.set_read_timeout(Some(Duration::from_millis(200)))
        .unwrap();
    (tcp, udp)
}

fn nothing_arrived(tcp: &TcpListener, udp: &UdpSocket) -> bool {
    let mut buf = [0u8; 16];
    tcp.accept().is_err() && udp.recv(&mut buf).is_err()
}

#[test]
fn no_socket_reaches_a_listener_even_where_landlock_has_no_network_rules() {
    if !require_sandbox() {
        return;
    }
    let (tcp, udp) = listeners();
    let script = escape_script(
        tcp.local_addr().unwrap().port(),
        udp.local_addr().unwrap().port(),
    );
    for fields in [json!({}), json!({"no_landlock_network": true})] {
        let output = launcher(fields.clone(), &["python3", "-c", &script])
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&output.stdout);
        assert!(stdout.contains("closed tcp"), "{fields}: {stdout}");
        assert!(!stdout.contains("OPEN"), "{fields}: {stdout}");
        assert!(nothing_arrived(&tcp, &udp), "{fields}: {stdout}");
    }
}

#[test]
fn project_code_sends_nothing_out_and_holds_no_privilege() {
    if !require_sandbox() {
        return;
    }
    let (tcp, udp) = listeners();
    let script = escape_script(
        tcp.local_addr().unwrap().port(),
        udp.local_addr().unwrap().port(),
    );
    let ai = ai().file("escape.py", &script);
    let recipe = [
        "python3 escape.py",
        "grep -E '^(Cap|NoNewPrivs)' /proc/self/status",
        "mknod dev-null c 1 3 && echo MADE-DEVICE",
        "unshare -r -n true && echo NEW-USER-NAMESPACE-IS-HARMLESS",
    ];
    let (_ai, stderr, server) = make_in_with_server(ai, &recipe);
    let result = server.last_tool_result();
    let stdout = result["data"]["stdout"].as_str().unwrap_or_default();
    assert!(stdout.contains("closed tcp"), "{stderr}");
    assert!(!stdout.contains("OPEN "), "{stdout}");
    for line in [
        "CapEff:\t0000000000000000",
        "CapBnd:\t0000000000000000",
        "NoNewPrivs:\t1",
    ] {
        assert!(stdout.contains(line), "{line} missing: {stdout}");
    }
    assert!(!stdout.contains("MADE-DEVICE"), "{stdout}");
    assert!(nothing_arrived(&tcp, &udp));
}

#[test]
fn many_sandboxed_calls_leave_no_directory_behind() {
    if !require_sandbox() {
        return;
    }
    let calls: Vec<Value> = (0..12)
        .map(|i| json!({"command": format!("echo call {i} > /dev/null; ls $$TMPDIR")}))
        .collect();
    let mut script: Vec<_> = calls
        .iter()
        .enumerate()
        .map(|(i, args)| {
            crate::server::tool_reply(&[(&format!("c{i}"), "execute_command", args.clone())])
        })
        .collect();
    script.push(crate::server::text_reply("done"));
    let server = FakeServer::start(script);
    let ai = ai()
        .env("SWEBASH_AI_BASE_URL", &server.url)
        .env("SWEBASH_AI_TOOLS_MAX_ITER", "20")
        .env("SWEBASH_AI_TOOLS_MAX_CALLS", "20")
        .args(&["--json", "go"]);
    let run = ai.run();
    assert_eq!(run.code, 0, "{}", run.stderr);
    let temp = ai.root_dir().join("cache");
    let left: Vec<String> = std::fs::read_dir(&temp)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(".ai-sandbox-"))
        .collect();
    assert!(left.is_empty(), "{left:?}");
}

/// Runs a Python program in the sandbox through the launcher (`fields` laid over its request),
/// and returns what it printed.
fn python_inside(fields: Value, program: &str) -> String {
    let output = launcher(fields, &["python3", "-c", program])
        .output()
        .unwrap();
    String::from_utf8_lossy(&output.stdout).into_owned()
}

#[test]
fn keyrings_netlink_ipc_and_shared_memory_of_the_machine_are_out_of_reach() {
    if !require_sandbox() {
        return;
    }
    let program = r#"
import ctypes, os, socket
libc = ctypes.CDLL(None, use_errno=True)
for name, number, args in [("add_key", 248, (b"user", b"k", b"v", 1, -3)),
                           ("keyctl", 250, (0, -3)),
                           ("request_key", 249, (b"user", b"k", None, 0)),
                           ("x32 socket", 0x40000000 | 41, (1, 1, 0)),
                           ("x32 keyctl", 0x40000000 | 250, (0, -3))]:
    print(name, "OPEN" if libc.syscall(number, *args) >= 0 else "refused")
for proto, name in [(0, "route"), (2, "usersock"), (15, "kobject")]:
    try:
        socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, proto); print("netlink", name, "open")
    except OSError:
        print("netlink", name, "refused")
open("/dev/shm/ai-sandbox-test-leak", "w").write("x")
print("ipc", os.popen("ipcmk -Q 2>&1").read().strip())
"#;
    let before = std::process::Command::new("ipcs")
        .arg("-q")
        .output()
        .unwrap()
        .stdout;
    let printed = python_inside(json!({}), program);
    assert!(!printed.contains("OPEN"), "{printed}");
    assert!(printed.contains("netlink route open"), "{printed}");
    assert!(printed.contains("netlink usersock refused"), "{printed}");
    assert!(!std::path::Path::new("/dev/shm/ai-sandbox-test-leak").exists());
    let after = std::process::Command::new("ipcs")
        .arg("-q")
        .output()
        .unwrap()
        .stdout;
    assert_eq!(
        before, after,
        "a message queue of the machine's was made: {printed}"
    );
}

#[test]
fn a_descriptor_ai_inherits_never_reaches_the_command() {
    if !require_sandbox() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let secret = dir.path().join("secret");
    std::fs::write(&secret, "SECRET-INHERITED\n").unwrap();
    let launcher = launcher(json!({}), &["sh", "-c", "cat <&7; echo appended >&8"]);
    let command = format!(
        "exec 7<'{}' 8>>'{}'; exec \"$@\"",
        secret.display(),
        secret.display()
    );
    let output = std::process::Command::new("sh")
        .args(["-c", &command, "sh"])
        .arg(launcher.get_program())
        .args(launcher.get_args())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(!stdout.contains("SECRET-INHERITED"), "{stdout}");
    assert_eq!(
        std::fs::read_to_string(&secret).unwrap(),
        "SECRET-INHERITED\n"
    );
}

#[test]
fn a_fetch_reaches_http_and_https_ports_only() {
    if !require_sandbox()
        || crate::launcher::capabilities().is_none_or(|c| c["landlock_network"] != json!(true))
    {
        return;
    }
    let (tcp, _udp) = listeners();
    let port = tcp.local_addr().unwrap().port();
    let program = format!(
        "import socket\ntry:\n\tsocket.create_connection(('127.0.0.1', {port}), 2); print('OPEN')\nexcept OSError as e:\n\tprint('closed', e)\n"
    );
    let printed = python_inside(json!({"net": true}), &program);
    assert!(printed.contains("closed"), "{printed}");
    assert!(tcp.accept().is_err());
}

#[test]
fn a_masked_secret_stays_masked_when_its_directory_is_renamed() {
    if !require_sandbox() {
        return;
    }
    let ai = ai()
        .file("config/.env", "SECRET-NESTED\n")
        .file("deploy/id_ed25519", "SECRET-KEY\n");
    let calls = [
        "mv config .c; mv deploy .d; cat config/.env .c/.env".to_string(),
        "cat .c/.env .d/id_ed25519 config/.env deploy/id_ed25519".to_string(),
    ];
    let (ai, run, server) = calls_in_one_session(ai, &calls);
    let sent = sent(&server);
    assert!(
        !sent.contains("SECRET-"),
        "a masked secret leaked: {sent}\n{}",
        run.stderr
    );
    assert!(ai.work().join("config/.env").exists());
}

#[test]
fn a_fetch_gets_plain_tcp_and_udp_only_and_no_call_gets_a_user_namespace() {
    if !require_sandbox() {
        return;
    }
    let program = r#"
import socket, subprocess, threading
for name, args in [("mptcp", (socket.AF_INET, socket.SOCK_STREAM, 262)),
                   ("sctp", (socket.AF_INET6, socket.SOCK_SEQPACKET, 132)),
                   ("raw", (socket.AF_INET, socket.SOCK_RAW, 1)),
                   ("tcp", (socket.AF_INET, socket.SOCK_STREAM, 0)),
                   ("udp", (socket.AF_INET, socket.SOCK_DGRAM, 0))]:
    try:
        socket.socket(*args); print(name, "open")
    except OSError:
        print(name, "refused")
done = subprocess.run(["unshare", "-U", "true"], capture_output=True)
print("userns", "open" if done.returncode == 0 else "refused")
t = threading.Thread(target=lambda: print("threads work")); t.start(); t.join()
"#;
    let printed = python_inside(json!({"net": true}), program);
    for line in [
        "mptcp refused",
        "sctp refused",
        "raw refused",
        "tcp open",
        "udp open",
        "userns refused",
        "threads work",
    ] {
        assert!(printed.contains(line), "{line}: {printed}");
    }
}

#[test]
fn without_network_the_machines_sockets_are_not_even_listed() {
    if !require_sandbox() {
        return;
    }
    let (tcp, _udp) = listeners();
    let port = format!(":{:04X}", tcp.local_addr().unwrap().port());
    let host = std::fs::read_to_string("/proc/net/tcp").unwrap();
    assert!(
        host.contains(&port),
        "the listener is on the machine's list"
    );
    let printed = python_inside(json!({}), "print(open('/proc/net/tcp').read())");
    assert!(
        printed.contains("local_address") || printed.is_empty(),
        "{printed}"
    );
    assert!(!printed.contains(&port), "{printed}");
}

#[test]
fn root_owned_secrets_of_the_system_stay_hidden() {
    if !require_sandbox() || !std::path::Path::new("/etc/ssl/private").is_dir() {
        return;
    }
    // (Names below a split directory can be listed: Landlock's listing right is inherited.)
    let recipe = [
        "cat /etc/ssl/private/* && echo READ",
        "cat /etc/shadow && echo READ",
    ];
    let (_ai, stderr, server) = make_in_with_server(ai(), &recipe);
    let result = server.last_tool_result();
    let stdout = result["data"]["stdout"].as_str().unwrap_or_default();
    assert!(
        !stdout.contains("LISTED") && !stdout.contains("READ"),
        "{stdout}\n{stderr}"
    );
    assert!(!stdout.contains("PRIVATE KEY"), "{stdout}");
}

/// `env`, `printenv` and `make -p` run unasked (no `--yes`): the sandbox gives them an
/// allowlisted environment, so the token in ai's own never reaches the model.
#[test]
fn env_and_printenv_run_unasked_and_print_no_token() {
    if !require_sandbox() {
        return;
    }
    let mut script: Vec<_> = ["env", "printenv", "env | sort"]
        .iter()
        .enumerate()
        .map(|(i, command)| {
            crate::server::tool_reply(&[(
                &format!("c{i}"),
                "execute_command",
                json!({"command": command}),
            )])
        })
        .collect();
    script.push(crate::server::text_reply("done"));
    let server = FakeServer::start(script);
    let run = ai()
        .env("GITHUB_TOKEN", "SECRET-GH")
        .env("SWEBASH_AI_BASE_URL", &server.url)
        .args(&["--json", "go"])
        .run();
    assert_eq!(run.code, 0, "{}", run.stderr);
    let calls = run.json()["tool_calls"].clone();
    for i in 0..3 {
        assert_eq!(calls[i]["decision"], json!("allow"), "{calls}");
        assert_eq!(calls[i]["ok"], json!(true), "{calls}");
    }
    let sent = sent(&server);
    assert!(sent.contains("PATH="), "{sent}");
    assert!(
        !sent.contains("SECRET-GH"),
        "a token reached the model: {sent}"
    );
}

/// An editor saves a secret by renaming a new file over it, which lifts the mask of a call that
/// is running. The call's output is withheld, and the project stays secret in a later run.
#[test]
fn a_secret_saved_over_while_a_command_runs_never_reaches_the_model_later_either() {
    if !require_sandbox() {
        return;
    }
    let ai = ai()
        .file(".env", "OLD=1\n")
        .file("README.md", "a project\n");
    let work = ai.work();
    let editor = std::thread::spawn(move || {
        for _ in 0..600 {
            if work.join("started").exists() {
                std::fs::write(work.join(".env.swp"), "TOKEN=SECRET-SAVED\n").unwrap();
                std::fs::rename(work.join(".env.swp"), work.join(".env")).unwrap();
                return;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    });
    let ai = ai.file(
        "Makefile",
        "all:\n\t-@touch started; for i in $$(seq 300); do grep -q SECRET .env && break; \
         sleep 0.05; done; cp .env notes.txt; cat .env\n",
    );
    let server = FakeServer::start(vec![
        tool_reply(&[("c1", "execute_command", json!({"command": "make"}))]),
        text_reply("done"),
    ]);
    let ai = ai.env("SWEBASH_AI_BASE_URL", &server.url);
    // Files older than the call are not taken for what it wrote (their times come from a
    // coarse clock, so a few milliseconds do not tell them apart).
    std::thread::sleep(Duration::from_millis(300));
    let first = ai.run_with(&["--json", "build it"]);
    editor.join().unwrap();
    let sent_first = sent(&server);
    assert!(
        !sent_first.contains("SECRET-SAVED"),
        "the saved secret reached the model: {sent_first}"
    );
    assert!(sent_first.contains("withheld"), "{sent_first}");
    let said = format!("{}{}", first.stdout, first.stderr);
    assert!(said.contains("saved over"), "{said}");
    // A later run: the copy counts as a secret, for a command and for the filesystem tool.
    let server = FakeServer::start(vec![
        tool_reply(&[
            ("c1", "execute_command", json!({"command": "cat notes.txt"})),
            (
                "c2",
                "filesystem",
                json!({"operation": "read", "path": "notes.txt"}),
            ),
            ("c3", "execute_command", json!({"command": "cat README.md"})),
        ]),
        text_reply("done"),
    ]);
    let run = ai
        .env("SWEBASH_AI_BASE_URL", &server.url)
        .run_with(&["--json", "read the notes"]);
    let sent_later = sent(&server);
    assert!(
        !sent_later.contains("SECRET-SAVED"),
        "a copy of the saved secret reached the model: {sent_later}"
    );
    // The whole project counts as secret (the call could have left the secret anywhere it
    // could write): nothing of it is read unasked, until the user removes the record.
    assert!(!sent_later.contains("README-TEXT"), "{sent_later}");
    let said = format!("{}{}", run.stdout, run.stderr);
    assert!(
        said.contains("could read a secret saved") && said.contains("once you have checked"),
        "{said}"
    );
}

/// A toolchain's credentials are hidden by what they are, whatever its directory is called
/// (a cargo home under XDG) and wherever in it they lie (round 8).
#[test]
fn a_toolchains_credentials_are_hidden_whatever_its_directory_is_called() {
    if !require_sandbox() {
        return;
    }
    let ai = ai().file("src/main.c", "int main(void) { return 0; }\n");
    let home = ai.home();
    let planted = [
        (".local/share/cargo/credentials.toml", "SECRET-XDG-CARGO"),
        (".local/share/cargo/bin/tool", "#!/bin/sh\n"),
        (
            ".cargo/config.toml",
            "[registries.x]\ntoken = \"SECRET-CARGO-CONFIG\"\n",
        ),
        (".gradle/develocity/keys.properties", "SECRET-DEVELOCITY"),
        (".gradle/init.d/repo.gradle", "password 'SECRET-INIT'"),
        (".nuget/config/extra.config", "SECRET-NUGET"),
        (
            ".dotnet/corefx/cryptography/x509stores/my/a.pfx",
            "SECRET-PFX",
        ),
        (
            "miniconda3/.condarc",
            "channels: [https://x/t/SECRET-CONDA/]",
        ),
        ("miniconda3/bin/conda", "#!/bin/sh\n"),
        (".pyenv/versions/3.12.0/pip.conf", "SECRET-PYENV-PIP"),
        (".pyenv/versions/3.12.0/bin/python", "#!/bin/sh\n"),
        (".cargo/bin/readable-tool", "TOOLCHAIN-READABLE"),
        (".nvm/versions/node/v20.11.0/etc/npmrc", "SECRET-NVM-NPMRC"),
        (
            ".volta/tools/image/node/20.11.0/etc/npmrc",
            "SECRET-VOLTA-NPMRC",
        ),
        (".rbenv/vars", "GITHUB_TOKEN=SECRET-RBENV-VARS"),
        (
            "miniconda3/etc/conda/activate.d/env_vars.sh",
            "export KEY=SECRET-CONDA-ACTIVATE",
        ),
        ("miniconda3/envs/web/conda-meta/state", "SECRET-CONDA-STATE"),
        ("miniconda3/condarc.d/x.yml", "SECRET-CONDARC-D"),
        (".nimble/github_api_token", "SECRET-NIMBLE"),
        (".nimble/bin/nimble", "#!/bin/sh\n"),
        (
            ".pyenv/versions/3.12.0/envs/web/pip.conf",
            "SECRET-PYENV-VENV-PIP",
        ),
    ];
    for (path, text) in planted {
        let file = home.join(path);
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(file, text).unwrap();
    }
    let path = format!(
        "{h}/.local/share/cargo/bin:{h}/miniconda3/bin:{h}/.cargo/bin:{h}/.nimble/bin:{}",
        std::env::var("PATH").unwrap_or_default(),
        h = home.display()
    );
    let ai = ai.env("PATH", &path);
    let recipe = [
        format!(
            "grep -r . {}/.local/share/cargo {}/miniconda3",
            home.display(),
            home.display()
        ),
        format!(
            "grep -r . {h}/.cargo {h}/.gradle {h}/.nuget {h}/.dotnet {h}/.pyenv",
            h = home.display()
        ),
        format!(
            "grep -r . {h}/.nvm {h}/.volta {h}/.rbenv {h}/.nimble",
            h = home.display()
        ),
    ];
    let recipe: Vec<&str> = recipe.iter().map(String::as_str).collect();
    let (_, stderr, server) = make_in_with_server(ai, &recipe);
    let sent = sent(&server);
    assert!(
        sent.contains("TOOLCHAIN-READABLE"),
        "the toolchain stays readable: {stderr}"
    );
    assert!(
        !sent.contains("SECRET-"),
        "a toolchain's credential was read: {sent}"
    );
}

/// The launcher itself tells which covering mounts a call lost (a rename from outside detaches
/// one): ai cannot see the call's mounts once it is over, and a new file may even get the old
/// one's inode number.
#[test]
fn the_launcher_reports_the_masks_a_rename_from_outside_took_away() {
    if !require_sandbox() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let work = dir.path().canonicalize().unwrap().join("work");
    std::fs::create_dir(&work).unwrap();
    let (env, kept) = (work.join(".env"), work.join("id_rsa"));
    std::fs::write(&env, "OLD=1\n").unwrap();
    std::fs::write(&kept, "KEY\n").unwrap();
    let report = dir.path().join("lost");
    let fields = json!({"write": [work], "mask": [env, kept], "report": report});
    let child = launcher(
        fields,
        &["sh", "-c", "cat .env; touch started; sleep 2; cat .env"],
    )
    .current_dir(&work)
    .stdout(std::process::Stdio::piped())
    .spawn()
    .unwrap();
    let start = std::time::Instant::now();
    while !work.join("started").exists() && start.elapsed() < Duration::from_secs(10) {
        std::thread::sleep(Duration::from_millis(20));
    }
    std::fs::write(work.join(".env.swp"), "NEW=1\n").unwrap();
    std::fs::rename(work.join(".env.swp"), &env).unwrap();
    let output = child.wait_with_output().unwrap();
    let printed = String::from_utf8_lossy(&output.stdout);
    assert!(
        !printed.contains("OLD"),
        "the mask held at first: {printed}"
    );
    let lost = std::fs::read_to_string(&report).unwrap_or_default();
    assert_eq!(lost.trim(), env.display().to_string(), "{printed}");
}
