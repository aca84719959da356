//! The everyday corpus (`tests/data/everyday.txt`: commands from tldr pages, projects'
//! CONTRIBUTING files, Makefiles and CI steps, each with its source) judged in a real git
//! project: nearly all run unasked, none is denied. Every command that asks is a question a
//! new user answers for no good reason, and the next one reaches for `--yes`.

use std::path::Path;
use std::process::Command;

use super::{Policy, Roots, Rules, Verdict};

const CORPUS: &str = include_str!("../../tests/data/everyday.txt");

/// A project as a new user has it: a git work tree with tracked sources, ignored logs and
/// build output, a package.json with scripts and the tools it installed.
pub(super) fn project(root: &Path) -> Policy {
    let home = root.join("home");
    let project = home.join("project");
    for dir in [
        ".ssh",
        "project/src/bin",
        "project/tests",
        "project/docs",
        "project/dist",
        "project/scripts",
        "project/cmd/app",
        "project/node_modules/.bin",
    ] {
        std::fs::create_dir_all(home.join(dir)).expect("mkdir");
    }
    let scripts = r#"{"name": "demo", "version": "1.0.0", "scripts": {"build": "tsc",
        "test": "jest", "lint": "eslint .", "coverage": "jest --coverage", "check": "tsc",
        "typecheck": "tsc --noEmit", "test:ci": "jest --ci"}}"#;
    for (file, text) in [
        (".ssh/id_rsa", "PRIVATE"),
        ("project/README.md", "# demo\n"),
        ("project/Cargo.toml", "[package]\nname = \"demo\"\n"),
        ("project/src/main.rs", "fn main() {}\n"),
        ("project/build.sh", "echo build\n"),
        ("project/scripts/run-tests.sh", "cargo test\n"),
        ("project/Makefile", "all:\n\ttrue\n"),
        ("project/package.json", scripts),
        ("project/data.json", "[{\"name\": \"a\"}]"),
        ("project/.gitignore", "*.log\ntarget/\ndist/\n"),
        ("project/app.log", "started\n"),
        ("project/old.txt", "a\n"),
        ("project/new.txt", "b\n"),
    ] {
        std::fs::write(home.join(file), text).expect("write");
    }
    for tool in ["jest", "tsc", "prettier", "eslint", "vitest"] {
        std::fs::write(project.join("node_modules/.bin").join(tool), "#!/bin/sh\n").expect("tool");
    }
    let git = |args: &[&str]| {
        let status = Command::new("git")
            .args(args)
            .current_dir(&project)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .stdout(std::process::Stdio::null())
            .status()
            .expect("git");
        assert!(status.success(), "git {args:?}");
    };
    git(&["init", "-q"]);
    git(&[
        "add",
        "README.md",
        "Cargo.toml",
        "src",
        "build.sh",
        "scripts",
        "Makefile",
    ]);
    git(&[
        "add",
        "package.json",
        "data.json",
        ".gitignore",
        "old.txt",
        "new.txt",
    ]);
    let temp = root.join("tmp");
    std::fs::create_dir_all(&temp).expect("mkdir tmp");
    let roots = Roots::new(&["cwd".into()], &project, &temp, Some(&home));
    Policy::new(roots, Some(home), project, temp, Rules::default())
}

/// The corpus's commands, without their sources.
fn corpus() -> Vec<&'static str> {
    CORPUS
        .lines()
        .filter(|line| !line.starts_with('#') && !line.trim().is_empty())
        .map(|line| line.split_once("\t#").map_or(line, |(command, _)| command))
        .collect()
}

#[test]
fn everyday_commands_run_unasked_and_none_is_denied() {
    let dir = tempfile::tempdir().expect("temp dir");
    let policy = project(&std::fs::canonicalize(dir.path()).expect("canonical"));
    let commands = corpus();
    assert!(commands.len() >= 300, "{} commands", commands.len());
    let mut asked = Vec::new();
    let mut denied = Vec::new();
    for command in &commands {
        let got = policy.command(command);
        match got.verdict {
            Verdict::Allow => {}
            Verdict::Ask => asked.push(format!("{command}: {:?}", got.reasons)),
            Verdict::Deny => denied.push(format!("{command}: {:?}", got.reasons)),
        }
    }
    let unasked =
        100.0 * (commands.len() - asked.len() - denied.len()) as f64 / commands.len() as f64;
    // The figure the issue measures, shown with `--nocapture`.
    #[allow(clippy::print_stderr)]
    {
        eprintln!(
            "{unasked:.1} % of {} everyday commands run unasked; these ask:\n{}",
            commands.len(),
            asked.join("\n")
        );
    }
    assert!(denied.is_empty(), "denied:\n{}", denied.join("\n"));
    assert!(
        unasked >= 95.0,
        "{unasked:.1} % of {} run unasked; these ask:\n{}",
        commands.len(),
        asked.join("\n")
    );
}
