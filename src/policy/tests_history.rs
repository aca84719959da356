//! A secret once committed is printed by every git command that prints history, whatever path
//! it names: while the history holds one, those commands ask a person; before, they run.

use std::path::Path;
use std::process::Command;

use super::tests_everyday::project;
use super::{Approver, Verdict};

const PRINTS_HISTORY: &[&str] = &[
    "git log -p",
    "git log -p --all",
    "git log --patch -- '*env'",
    "git log -p -- '.e?v'",
    "git show",
    "git show HEAD",
    "git show HEAD -- '.e*'",
    "git diff HEAD~1",
    "git diff --root HEAD",
    "git diff-tree -p --root HEAD",
    "git grep SECRET HEAD",
    "git grep -e '' HEAD -- '*env'",
    "git cat-file --batch-all-objects --batch",
    "git stash show -p",
    "git reflog -p",
    // Options that imply a patch, and the pickaxe searches that answer questions about one.
    "git log -U1",
    "git log --unified=0",
    "git log --stat -U3",
    "git log --patch-with-stat",
    "git log --patch-with-raw",
    "git diff-tree --patch-with-raw HEAD~1",
    "git diff-tree --patch-with-raw --root HEAD",
    "git log --binary",
    "git log --remerge-diff",
    "git log --dd",
    "git log --word-diff=plain",
    "git log --color-words",
    "git log -W",
    "git log -G SECRET --oneline --all",
    "git log -S SECRET",
    "git log --pickaxe-regex -S x",
    // range-diff prints the differences between matched commits' patches.
    "git range-diff --creation-factor=1000 HEAD~2..HEAD~1 HEAD~1..HEAD",
    "git range-diff HEAD~3..HEAD~1 HEAD~2..HEAD",
    "git range-diff HEAD~2...HEAD",
    "git range-diff HEAD~3 HEAD~2 HEAD",
    // The option kept in a variable the line sets (classifier round 7).
    "f=-p; git log $f",
    "f=p; git log -$f",
    "set -- -p; git log \"$@\"",
    // Every line of a change with a whitespace error (classifier round 11).
    "git log --check",
];

fn commit(project: &Path, file: &str, text: &str) {
    std::fs::write(project.join(file), text).expect("write");
    for args in [
        &["add", "-f", file][..],
        &[
            "-c",
            "user.name=a",
            "-c",
            "user.email=a@b",
            "commit",
            "-qm",
            file,
        ],
    ] {
        git_in(project, args);
    }
}

#[test]
fn history_printing_asks_a_person_once_a_secret_was_committed() {
    let dir = tempfile::tempdir().expect("temp dir");
    let root = std::fs::canonicalize(dir.path()).expect("canonical");
    let policy = project(&root);
    let repo = root.join("home/project");
    commit(&repo, "a.txt", "one\n");
    commit(&repo, "b.txt", "two\n");
    let asked: Vec<&str> = (PRINTS_HISTORY.iter().copied())
        .filter(|line| policy.command(line).verdict != Verdict::Allow)
        .filter(|line| !line.contains("stash"))
        .collect();
    assert!(asked.is_empty(), "asked with a clean history: {asked:?}");
    commit(&repo, ".env", "SECRET=1\n");
    commit(&repo, "c.txt", "three\n");
    let wrong: Vec<String> = (PRINTS_HISTORY.iter())
        .map(|line| (line, policy.command(line)))
        .filter(|(_, got)| got.verdict == Verdict::Allow || got.approver() != Approver::Person)
        .map(|(line, got)| format!("{line:?}: {:?} {:?}", got.verdict, got.reasons))
        .collect();
    assert!(
        wrong.is_empty(),
        "not asked of a person:\n{}",
        wrong.join("\n")
    );
    for line in [
        "git log --oneline",
        "git status",
        "git show --stat",
        "git log -3",
        "git log --text --oneline",
        "git log --stat",
        "git range-diff --no-patch HEAD~2..HEAD~1 HEAD~1..HEAD",
    ] {
        assert_eq!(policy.command(line).verdict, Verdict::Allow, "{line}");
    }
}

/// Judging runs outside every sandbox, before anyone approves: the history query must never
/// run git on a repository the line reaches other than the project's own, whose configuration
/// a sandboxed call may have planted (round 13: a repository in the session temp, linked from
/// the project, with `log.showSignature` and a `gpg.program` that ran as the user).
#[test]
fn judging_history_never_runs_a_foreign_repositorys_programs() {
    let dir = tempfile::tempdir().expect("temp dir");
    let root = std::fs::canonicalize(dir.path()).expect("canonical");
    let policy = project(&root);
    let repo = root.join("home/project");
    commit(&repo, "a.txt", "one\n");
    let planted = root.join("planted");
    std::fs::create_dir_all(&planted).expect("mkdir");
    commit_in_new_repository(&planted);
    let marker = root.join("ran");
    let program = root.join("gpg.sh");
    std::fs::write(&program, format!("#!/bin/sh\ntouch {}\n", marker.display())).expect("write");
    std::fs::set_permissions(
        &program,
        std::os::unix::fs::PermissionsExt::from_mode(0o755),
    )
    .expect("chmod");
    for (key, value) in [
        ("log.showSignature", "true"),
        ("gpg.program", &program.to_string_lossy()),
        ("core.fsmonitor", &program.to_string_lossy()),
        ("core.pager", &program.to_string_lossy()),
    ] {
        git_in(&planted, &["config", key, value]);
    }
    std::os::unix::fs::symlink(&planted, repo.join("scratch")).expect("link");
    std::fs::create_dir_all(repo.join("nested")).expect("mkdir");
    std::os::unix::fs::symlink(&planted, repo.join("nested/inner")).expect("link");
    for line in [
        "cd scratch && git log -p",
        "git -C scratch log -p",
        "cd nested/inner; git show",
        "cd scratch/.git && git log -p",
        "cd ../../planted && git log -p",
    ] {
        let got = policy.command(line);
        assert!(!marker.exists(), "judging {line:?} ran the planted program");
        assert_ne!(got.verdict, Verdict::Allow, "{line}: {:?}", got.reasons);
        assert_eq!(
            got.approver(),
            Approver::Person,
            "{line}: {:?}",
            got.reasons
        );
    }
    // The project's own history is still looked into, and clean means unasked.
    assert_eq!(policy.command("git log -p").verdict, Verdict::Allow);
}

fn commit_in_new_repository(dir: &Path) {
    git_in(dir, &["init", "-q"]);
    commit(dir, "f.txt", "x\n");
}

fn git_in(dir: &Path, args: &[&str]) {
    let status = Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .status()
        .expect("git");
    assert!(status.success(), "git {args:?}");
}
