//! What no approval covers: an allow rule (`--allow 'npm test*'`) approves the everyday command
//! it names, never an option or value that runs a program or reads configuration the line
//! chooses: make variables holding shell syntax, npm's `--script-shell`/`--node-options`,
//! pytest's `-p`/`-c`/`--rootdir`, compose files, scripts and tests outside the project.

use super::Verdict;
use super::tests::check;
use super::tests_spelling::{no_rule_approves, world};

#[test]
fn make_variables_holding_shell_syntax_are_never_approved_by_a_rule() {
    no_rule_approves(
        &world(),
        &[
            "make test ARGS=\"; touch pwned\"",
            "make test ARGS=\"| sh\"",
            "make test PKG=';id'",
            "make TARGET='x;id'",
            "make V='1;id'",
            "make 'ARGS=; id' test",
            "make ARGS+=';id' test",
            "make override ARGS=';id'",
            "make deploy ARGS='$(id)'",
            "make deploy ARGS='`id`'",
            "make deploy ARGS='x\ny'",
            "make deploy ARGS='a&b'",
            "make deploy ARGS='<x'",
            // make reads its environment as variables too.
            "ARGS='; id' make test",
            "export ARGS='; id'; make test",
            "ARGS='`id`'; export ARGS; gmake test",
            // Options, quotes, globs and foreign rule files.
            "make test ARGS='discover -s /tmp/x'",
            "make test ARGS=-p",
            "make test 'ARGS=*'",
            "make all MAKEFILES=/tmp/m",
            "make test MAKEFILES+=x.mk",
            "make test -- MAKEFILES=x.mk",
            "make test override MAKEFILES=x.mk",
            "make test VPATH=/tmp",
            "make test MAKEOVERRIDES=x",
            "MAKEFILES=x.mk make test",
            "export VPATH=/tmp; make test",
        ],
    );
    check(
        &[
            ("make test ARGS='&& rm -rf ~'", "wreck"),
            ("make test ARGS='>/dev/sda'", "block device"),
        ],
        Verdict::Deny,
    );
    check(
        &[
            ("make test ARGS=-v", ""),
            ("make V=1 CFLAGS=-O2", ""),
            ("V=1 make test", ""),
        ],
        Verdict::Allow,
    );
}

#[test]
fn options_that_run_programs_or_read_foreign_config_are_never_approved_by_a_rule() {
    no_rule_approves(
        &world(),
        &[
            "npm test --script-shell=../../../evil",
            "npm test --script-shell ./x",
            "npm test --node-options=--require=/tmp/x",
            // What a package manager passes on to the script's program (classifier round 14).
            "npm test -- --import 'data:text/javascript,console.log(1)'",
            "npm run test -- --import data:x",
            "npm start -- --import data:x",
            "npm t -- --require /tmp/x.js",
            "npm test -- --setupFiles=/tmp/evil.js",
            "npm test -- --experimental-loader=/tmp/l.mjs",
            "npm test -- --test-reporter=/tmp/r.js",
            "npm run-script test -- -r /tmp/x.js",
            "pnpm test -- --import data:x",
            "yarn test --import data:x",
            "npm test -- /tmp/evil.test.js",
            "pnpm test --node-options --require=/tmp/x",
            "pytest -p evil",
            "pytest -pevil",
            "pytest -c /tmp/x",
            "pytest --config-file=/tmp/x",
            "pytest --rootdir=/tmp",
            "pytest -o addopts=-pevil",
            "pytest /tmp/t.py",
            "python3 -m pytest -p evil",
            "python3 -m pytest ../../t.py",
            "docker compose up -f /tmp/x",
            "docker compose -f /tmp/x up",
            "python3 src/../../x.py",
            "node ../../x.js",
            "cd /tmp && make",
            "cd /tmp && npm test",
            // Hooks of a local repository, programs go runs, directories deleted, foreign env.
            "git push /tmp/c3gr HEAD:refs/heads/x",
            "git push ../other",
            "git push file:///tmp/x main",
            "git push -f ./x main",
            "git push --all --repo=/tmp/repo",
            "git push --repo /tmp/repo",
            "git push --rep=../other main",
            "go test -exec /tmp/x",
            "go test -toolexec=/tmp/x",
            "go vet -vettool=/tmp/x",
            "go build -ldflags='-linkmode=external -extld=/tmp/x'",
            "go test -ldflags=-extld=/tmp/x",
            "go build -compiler=gccgo -gccgoflags=-wrapper,/tmp/x",
            "go test -modfile=/tmp/go.mod",
            "go test -overlay=/tmp/o.json",
            "pytest --basetemp /tmp/x",
            "pytest --basetemp=build/t",
            "python3 -m pytest --basetemp /tmp/x",
            "cargo clean --target-dir /tmp/x",
            "cargo clean --target-dir=../x",
            "docker compose up --env-file /tmp/e",
            "pnpm test --config.script-shell=/tmp/x",
            "pnpm run test --config.node-options=--require=/tmp/x",
            "pnpm --config.script-shell=/tmp/x test",
            "yarn test --use-yarnrc /tmp/x",
            "deno run --import-map=/tmp/m.json x.ts",
        ],
    );
    check(
        &[
            ("pytest -q", ""),
            ("pytest -p no:cacheprovider", ""),
            ("go test ./...", ""),
            ("go build -ldflags=-s -o bin/app .", ""),
        ],
        Verdict::Allow,
    );
}
