//! Rule: nothing a command run without asking leaves behind hands out privileges later. A
//! set-user-ID file made in temp would give anyone the identity of its owner (root, when `ai`
//! runs as root), outside any sandbox; device nodes and temp directories keep their modes.

use std::os::unix::fs::PermissionsExt;

use serde_json::json;

use crate::attacker::calls_in_one_session;
use crate::launcher::{launcher, require_sandbox};

#[test]
fn no_spelling_makes_a_set_user_id_file() {
    if !require_sandbox() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().display().to_string();
    let script = format!(
        "cd {root}; cp /bin/true a; chmod 4755 a; cp /bin/true b; chmod u+s,g+s b; \
         install -m 6755 /bin/true c; \
         python3 -c \"import os; os.close(os.open('d', os.O_CREAT|os.O_WRONLY, 0o4755)); os.chmod('e', 0o2755) if os.path.exists('e') else None\"; \
         cp /bin/true f; python3 -c \"import os; os.chmod('f', 0o4755)\"; \
         cp /bin/true g; perl -e 'chmod 04755, \"g\"'; \
         python3 -c \"import os; os.mknod('h', 0o104755)\"; ls -l"
    );
    let output = launcher(json!({"write": [root]}), &["sh", "-c", &script])
        .output()
        .unwrap();
    let listing = String::from_utf8_lossy(&output.stdout);
    for entry in std::fs::read_dir(dir.path()).unwrap().flatten() {
        let mode = entry.metadata().unwrap().permissions().mode();
        assert_eq!(mode & 0o6000, 0, "{:?} is set-id: {listing}", entry.path());
    }
    assert!(
        dir.path().join("a").exists(),
        "the copy itself works: {listing}"
    );
}

#[test]
fn device_nodes_keep_their_modes_and_times() {
    if !require_sandbox() {
        return;
    }
    let before = std::fs::metadata("/dev/full").unwrap();
    let output = launcher(
        json!({}),
        &[
            "sh",
            "-c",
            "chmod 0600 /dev/full; touch -d 2001-01-01 /dev/full; echo x > /dev/null && echo WROTE",
        ],
    )
    .output()
    .unwrap();
    let after = std::fs::metadata("/dev/full").unwrap();
    assert_eq!(before.permissions().mode(), after.permissions().mode());
    assert_eq!(before.modified().ok(), after.modified().ok());
    assert!(
        String::from_utf8_lossy(&output.stdout).contains("WROTE"),
        "/dev/null still works"
    );
}

#[test]
fn a_temp_directory_the_project_is_not_in_is_the_sessions_own() {
    if !require_sandbox() {
        return;
    }
    // Something of the machine's in /var/tmp: another project's repository with its hooks.
    let victim = tempfile::Builder::new()
        .prefix("ai-victim-")
        .tempdir_in("/var/tmp")
        .unwrap();
    std::fs::create_dir_all(victim.path().join(".git/hooks")).unwrap();
    std::fs::write(victim.path().join("notes"), "SECRET-OTHER-PROJECT\n").unwrap();
    let hook = victim.path().join(".git/hooks/pre-commit");
    let name = victim
        .path()
        .file_name()
        .unwrap()
        .to_string_lossy()
        .into_owned();
    let marker = format!("ai-session-marker-{}", std::process::id());
    let calls = [
        format!(
            "cat /var/tmp/{name}/notes; echo planted > /var/tmp/{name}/.git/hooks/pre-commit; echo kept > /var/tmp/{marker}"
        ),
        format!("cat /var/tmp/{marker}"),
    ];
    let (_ai, run, server) =
        calls_in_one_session(crate::harness::Ai::new("http://127.0.0.1:9/v1"), &calls);
    let sent: String = server.chat_bodies().iter().map(|b| b.to_string()).collect();
    assert!(!sent.contains("SECRET-OTHER-PROJECT"), "{sent}");
    assert!(!hook.exists(), "{}", run.stderr);
    assert!(!std::path::Path::new("/var/tmp").join(&marker).exists());
    // Within the session, temp keeps what an earlier call wrote there.
    let last = server.last_tool_result().to_string();
    assert!(last.contains("kept"), "{last}");
}

#[test]
fn the_sessions_temp_directories_go_with_the_session() {
    if !require_sandbox() {
        return;
    }
    let server = crate::server::FakeServer::start(vec![
        crate::server::tool_reply(&[("c1", "execute_command", json!({"command": "ls"}))]),
        crate::server::text_reply("done"),
    ]);
    let ai = crate::harness::Ai::new(&server.url).args(&["--json", "go"]);
    let child = ai.spawn();
    let pid = child.id();
    let run = crate::harness::finish(child.wait_with_output().unwrap());
    assert_eq!(run.code, 0, "{}", run.stderr);
    let left = std::path::Path::new("/var/tmp").join(format!(".ai-session-{pid}"));
    assert!(!left.exists(), "{left:?} outlived the run");
}
