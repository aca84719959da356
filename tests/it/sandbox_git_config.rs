//! Rule: git reads configuration and runs hooks from nothing a command run without asking can
//! write, however git is led to it: a directory it takes for a (bare) repository, a `.git` file,
//! a `commondir`, a config's `include.path` or `includeIf`, a hooks path the user's own config
//! gives relative to each repository; and a fetch's own git (npm's, for a git dependency) reads
//! none of it either (round 5).

use std::path::Path;

use serde_json::json;

use crate::attacker::make_in;
use crate::harness::Ai;
use crate::launcher::{launcher, require_sandbox};
use crate::sandbox_git::users_git_runs_nothing;
use crate::server::{FakeServer, text_reply, tool_reply};

/// Config that runs `touch marker` when git pages (`git log` at a terminal), fetches from
/// origin, or reaches `https://127.0.0.1:9/` (an `ext::` rewrite), or checks the work tree.
fn planted_config(marker: &Path) -> String {
    let m = marker.display();
    format!(
        "[core]\n\tpager = touch {m}\n\tfsmonitor = touch {m}\n\
         [protocol \"ext\"]\n\tallow = always\n\
         [remote \"origin\"]\n\turl = ext::sh -c touch% {m}\n\
         [url \"ext::sh -c touch% {m} \"]\n\tinsteadOf = https://127.0.0.1:9/\n"
    )
}

/// `text` as a double-quoted printf format that prints it.
fn printf_format(text: &str) -> String {
    text.replace('%', "%%")
        .replace('\n', "\\n")
        .replace('"', "\\\"")
}

/// The user's later git in `dir`, outside ai: what runs without a terminal, then `git log` at
/// one (where `script` can give it one); whether anything planted ran.
fn users_git_in_runs_nothing(dir: &Path, marker: &Path) -> bool {
    let git = |args: &[&str]| {
        let _ = std::process::Command::new("git")
            .args(args)
            .current_dir(dir)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("HOME", dir)
            .output();
    };
    git(&["fetch", "-q", "origin"]);
    git(&["ls-remote", "https://127.0.0.1:9/x.git"]);
    let _ = std::process::Command::new("script")
        .args(["-qc", "git log -1", "/dev/null"])
        .current_dir(dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .output();
    users_git_runs_nothing(dir, marker)
}

/// A repository with one commit, so that git has history to show.
fn committed() -> Ai {
    let ai = Ai::new("http://127.0.0.1:9/v1")
        .git_init()
        .file("README", "x\n");
    let _ = std::process::Command::new("git")
        .args(["add", "README"])
        .current_dir(ai.work())
        .status();
    let status = std::process::Command::new("git")
        .args([
            "-c",
            "user.name=u",
            "-c",
            "user.email=u@x",
            "commit",
            "-qm",
            "i",
        ])
        .current_dir(ai.work())
        .status()
        .unwrap();
    assert!(status.success());
    ai
}

#[test]
fn a_directory_git_takes_for_a_repository_is_quarantined() {
    if !require_sandbox() {
        return;
    }
    let ai = committed();
    let marker = ai.root_dir().join("pwned");
    let config = printf_format(&planted_config(&marker));
    let attacks = [
        // The project's own src turned into a bare repository, history and all.
        format!(
            "mkdir -p src && cp -r .git/objects .git/refs .git/HEAD src/ && printf \"{config}\" > src/config"
        ),
        // A new bare repository, and a directory sharing it through commondir.
        format!("git init -q --bare lib/x && printf \"{config}\" > lib/x/config"),
        "mkdir -p wt && echo 'ref: refs/heads/master' > wt/HEAD && echo ../lib/x > wt/commondir"
            .to_string(),
        // A .git file naming it.
        "mkdir -p g && echo 'gitdir: ../lib/x' > g/.git".to_string(),
    ];
    let recipe: Vec<&str> = attacks.iter().map(String::as_str).collect();
    let (ai, stderr) = make_in(ai, &recipe);
    assert!(ai.work().join("src/config").exists(), "{stderr}");
    for dir in ["src", "lib/x", "wt", "g"] {
        assert!(
            users_git_in_runs_nothing(&ai.work().join(dir), &marker),
            "{dir}: {stderr}"
        );
    }
    assert!(ai.work().join("README").exists());
}

#[test]
fn a_fetch_started_in_a_subdirectory_reads_no_git_config_a_call_planted() {
    if !require_sandbox() {
        return;
    }
    let ai = committed();
    // In the project, where a call can write: the fetch's own git must not run it either.
    let marker = ai.work().join("pwned");
    let config = printf_format(&planted_config(&marker));
    let plant = format!(
        "all:\n\t-@mkdir -p objects refs && echo 'ref: refs/heads/master' > HEAD && printf \"{config}\" > config\n"
    );
    let package = r#"{"name": "web", "version": "1.0.0",
        "dependencies": {"left-pad": "git+https://127.0.0.1:9/attacker/left-pad.git"}}"#;
    let server = FakeServer::start(vec![
        tool_reply(&[("c1", "execute_command", json!({"command": "make"}))]),
        tool_reply(&[("c2", "execute_command", json!({"command": "npm install"}))]),
        text_reply("done"),
    ]);
    let ai = crate::sandbox::with_toolchains(ai)
        .file("web/Makefile", &plant)
        .file("web/package.json", package)
        .in_dir("web")
        .env("SWEBASH_AI_BASE_URL", &server.url)
        .env("SWEBASH_AI_EXEC_TIMEOUT", "60")
        .args(&["--json", "--yes", "go"]);
    let run = ai.run();
    assert!(!marker.exists(), "{}", run.stderr);
    assert!(
        users_git_in_runs_nothing(&ai.work().join("web"), &marker),
        "{}",
        run.stderr
    );
}

#[test]
fn a_fetch_phase_reads_no_git_config_the_project_can_write() {
    if !require_sandbox() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let marker = root.join("pwned");
    let config = planted_config(&marker);
    // The working directory taken for a bare repository; one with a `.git` of its own whose
    // config says `ext` is allowed; one below a `.git` that says so.
    let bare = root.join("bare");
    let own = root.join("own");
    let below = root.join("above/below");
    for made in [
        bare.join("objects"),
        bare.join("refs"),
        own.join(".git/objects"),
        own.join(".git/refs"),
        below.clone(),
        root.join("above/.git/objects"),
        root.join("above/.git/refs"),
    ] {
        std::fs::create_dir_all(made).unwrap();
    }
    for git_dir in [bare.clone(), own.join(".git"), root.join("above/.git")] {
        std::fs::write(git_dir.join("HEAD"), "ref: refs/heads/master\n").unwrap();
        std::fs::write(git_dir.join("config"), &config).unwrap();
    }
    for cwd in [&bare, &own, &below] {
        let output = launcher(
            json!({"write": [root], "net": true, "prefetch": ["git", "ls-remote", "https://127.0.0.1:9/x.git"]}),
            &["true"],
        )
        .current_dir(cwd)
        .output()
        .unwrap();
        assert!(
            !marker.exists(),
            "{cwd:?}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
    }
}

#[test]
fn git_config_that_lives_in_project_files_is_read_only() {
    if !require_sandbox() {
        return;
    }
    let ai = committed();
    let work = ai.work();
    let home = ai.home();
    // The user's own setup before ai: a versioned config the repository's includes, one it
    // includes on a condition, one it names that is not there yet, a program of the project
    // it runs, and a global hooks path that lands in every repository.
    let ai = ai
        .file(".gitconfig", "[user]\n\tname = u\n")
        .file("tools/git.cfg", "")
        .file("tools/fsmon.sh", "#!/bin/sh\nexit 0\n")
        .file("../home/.gitconfig", "[core]\n\thooksPath = .githooks\n");
    let fsmon = work.join("tools/fsmon.sh");
    let mut mode = std::fs::metadata(&fsmon).unwrap().permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut mode, 0o755);
    std::fs::set_permissions(&fsmon, mode).unwrap();
    let condition = format!("includeIf.gitdir:{}/.path", work.display());
    for (key, value) in [
        ("include.path", "../.gitconfig"),
        (condition.as_str(), "../tools/git.cfg"),
        ("include.path", "../.gitconfig.local"),
        ("core.fsmonitor", "tools/fsmon.sh"),
    ] {
        let status = std::process::Command::new("git")
            .args(["config", "--add", key, value])
            .current_dir(&work)
            .status()
            .unwrap();
        assert!(status.success());
    }
    let marker = ai.root_dir().join("pwned");
    let fsmonitor = format!(
        "printf '[core]\\n\\tfsmonitor = touch {}\\n'",
        marker.display()
    );
    let attacks = [
        format!("{fsmonitor} >> .gitconfig"),
        format!("{fsmonitor} >> tools/git.cfg"),
        format!("{fsmonitor} > .gitconfig.local"),
        format!("echo 'touch {}' >> tools/fsmon.sh", marker.display()),
        format!(
            "mkdir -p .githooks && {} > .githooks/pre-commit && chmod +x .githooks/pre-commit",
            crate::sandbox_git::hook(&marker)
        ),
    ];
    let recipe: Vec<&str> = attacks.iter().map(String::as_str).collect();
    let (_ai, stderr) = make_in(ai, &recipe);
    for args in [
        &["status"][..],
        &[
            "-c",
            "user.email=u@x",
            "commit",
            "--allow-empty",
            "-qm",
            "x",
        ],
    ] {
        let _ = std::process::Command::new("git")
            .args(args)
            .current_dir(&work)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("HOME", &home)
            .output();
    }
    assert!(!marker.exists(), "{stderr}");
}
