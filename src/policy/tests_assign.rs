//! Every way bash assigns a variable is an assignment: `NAME=value` in the open, the arguments
//! of `declare`/`typeset`/`local`/`export`/`readonly` however they are quoted, and the variable
//! of a `for` or `select` loop. Each is held to the same check of dangerous names (`PATH`,
//! `PS4`, `IFS`, `LD_*`, `BASH_ENV`, `GIT_*`, `MAKEFLAGS`, ...); a name computed at run time may
//! be any of them. The subscripts of an assignment are arithmetic, where bash runs `$(...)`.

use super::Verdict;
use super::tests::check;

#[test]
fn subscripts_of_an_assignment_are_arithmetic_however_quoted() {
    check(
        &[
            ("a=(['$(touch /tmp/p)']=1)", "arithmetic"),
            ("a=([\"\\$(id)\"]=1)", "arithmetic"),
            ("a=(['`id`']=1)", "arithmetic"),
            ("a+=(['$(id)']=1)", "arithmetic"),
            ("x=1 a=(['$(id)']=x)", "arithmetic"),
            ("a=([0]=x ['$(id)']=1)", "arithmetic"),
            ("declare -a 'b[$(id)]=1'", "arithmetic"),
            ("declare 'b[$(id)]=1'", "arithmetic"),
            ("declare -- 'b[$(id)]=1'", "arithmetic"),
            ("declare -ag 'b[$(id)]=1'", "arithmetic"),
            ("typeset 'b[$(id)]'=1", "arithmetic"),
            ("declare -a \"b[\\$(id)]=1\"", "arithmetic"),
            ("declare -a b[\\$\\(id\\)]=1", "arithmetic"),
            ("f() { local -a 'b[$(id)]=1'; }", "arithmetic"),
            ("declare -a a=(['$(id)']=1)", "arithmetic"),
            ("readonly -a a=(['$(id)']=1)", "arithmetic"),
            ("declare -a 'a=([$(id)]=1)'", "arithmetic"),
            ("declare 'a=(['$(id)']=1)'", "arithmetic"),
            ("declare -A m; declare 'm[$(id)]=1'", "arithmetic"),
            ("declare -a 'b[${x}]=1'", "arithmetic"),
        ],
        Verdict::Ask,
    );
    check(
        &[
            ("a=(one two)", ""),
            ("a=([0]=x [1]=y)", ""),
            ("a[2]=x", ""),
            ("declare -a list=(a b)", ""),
            ("x=$(date +%s)", ""),
        ],
        Verdict::Allow,
    );
}

#[test]
fn every_spelling_of_an_assignment_gets_the_dangerous_variable_check() {
    check(
        &[
            ("declare 'PS4=$(id)'; set -o xtrace; ls", ""),
            (
                "declare -x 'GIT_CONFIG_PARAMETERS=x'; git status",
                "GIT_CONFIG",
            ),
            ("declare -x 'MAKEFLAGS=--eval=x'; make", "MAKEFLAGS"),
            ("declare -x 'LD_PRELOAD=/tmp/x.so'; ls", "LD_PRELOAD"),
            ("declare -x 'BASH_ENV=/tmp/x'; make", "BASH_ENV"),
            ("declare -x 'ENV=/tmp/x'; make", "ENV"),
            ("declare -x 'SHELLOPTS=xtrace'; make", "SHELLOPTS"),
            (
                "declare -x 'NODE_OPTIONS=--require /tmp/x.js'",
                "NODE_OPTIONS",
            ),
            (
                "declare -x 'RUSTC_WRAPPER=/tmp/x'; cargo build",
                "RUSTC_WRAPPER",
            ),
            ("declare -x 'PYTHONPATH=/tmp'; python3 x.py", "PYTHONPATH"),
            ("declare -x 'LESSOPEN=|id %s'; less Makefile", "LESSOPEN"),
            ("declare 'PATH=/tmp'; ls", "PATH"),
            ("declare \"PATH\"=/tmp", "PATH"),
            ("declare PA\"\"TH=/tmp", "PATH"),
            ("declare P'A'TH=/tmp", "PATH"),
            ("export PA\\TH=/tmp", "PATH"),
            ("declare $x=/tmp", "cannot see"),
            ("declare \"$x\"", "cannot see"),
            ("export 'PATH=/tmp'; ls", "PATH"),
            ("export \"PATH=/tmp:$PATH\"; ls", "PATH"),
            ("f() { local 'PATH=/tmp'; ls; }", "PATH"),
            ("typeset 'IFS=_'", "IFS"),
            ("readonly 'PAGER=id'; git log", "PAGER"),
            (
                "for PATH in ../../../bin:/usr/bin:/bin; do ls; done",
                "PATH",
            ),
            ("for PATH in /tmp; do make; done", "PATH"),
            ("for IFS in _; do sort $x; done", "IFS"),
            ("for PAGER in id; do git log; done", "PAGER"),
            ("for GIT_DIR in /tmp/r; do git log; done", "GIT_DIR"),
            ("for PROMPT_COMMAND in id; do :; done", "PROMPT_COMMAND"),
            ("select PATH in /tmp; do ls; done", "PATH"),
            ("for LD_PRELOAD; do ls; done", "LD_PRELOAD"),
            ("builtin declare 'PATH=/tmp'; ls", "PATH"),
            ("command declare 'PATH=/tmp'; ls", "PATH"),
            ("builtin export 'LD_PRELOAD=/tmp/x.so'", "LD_PRELOAD"),
            ("command export PATH=/tmp", "PATH"),
            ("builtin declare $x=1", "computed"),
            ("builtin declare -a 'b[$(id)]=1'", "arithmetic"),
            ("set -o xtrace; ls", "xtrace"),
            ("set -x", "xtrace"),
            ("set -eux", "xtrace"),
            ("set -eo xtrace", "xtrace"),
        ],
        Verdict::Ask,
    );
    check(
        &[
            ("export FOO=bar", ""),
            ("export 'RUST_LOG=debug'", ""),
            ("declare -x 'NODE_ENV=test'", ""),
            ("for f in src/*.rs; do wc -l \"$f\"; done", ""),
            ("for i in 1 2 3; do echo $i; done", ""),
            ("set -euo pipefail", ""),
            ("export PS4", ""),
            ("declare -a arr", ""),
            ("builtin export FOO=bar", ""),
            ("set -e", ""),
        ],
        Verdict::Allow,
    );
}

/// Assignments bash makes in other spellings (classifier round 5): names built by braces in a
/// declaration, `${NAME:=value}` defaults, `getopts` and `wait -p` setting a name.
#[test]
fn assignments_by_braces_defaults_and_builtins_get_the_name_check() {
    check(
        &[
            (
                "export GIT_CONFIG_{COUNT=1,KEY_0=core.fsmonitor,VALUE_0=id}; git status",
                "cannot see",
            ),
            ("export GIT_D{I,}R=bare; git status", "cannot see"),
            ("declare -x {GIT_DIR,X}=bare; git status", "cannot see"),
            ("typeset -x P{A,}TH=/tmp/b; make", "cannot see"),
            ("readonly LD_PRE{LOAD,}=./x.so; ls", "cannot see"),
            ("export -- {GIT_DIR=bare,}", "cannot see"),
            (
                ": ${GIT_CONFIG_PARAMETERS:=\"'core.fsmonitor'='id'\"}; export GIT_CONFIG_PARAMETERS; git status",
                "loads",
            ),
            ("export GIT_DIR; : ${GIT_DIR:=bare}; git status", "loads"),
            ("[ ${GIT_DIR=bare} ]; export GIT_DIR; git status", "loads"),
            (
                "echo ${LD_PRELOAD:=./x.so} >/dev/null; export LD_PRELOAD; ls",
                "loads",
            ),
            ("unset PATH; : ${PATH:=.}; make", "loads"),
            ("getopts . PATH -.; make", "loads"),
            ("export GIT_DIR; getopts b GIT_DIR -b; git status", "loads"),
            ("wait -p PATH", "loads"),
        ],
        Verdict::Ask,
    );
    check(
        &[
            ("while getopts ab opt; do echo $opt; done", ""),
            ("echo ${NAME:=world}", ""),
            ("export A=1 B=2", ""),
        ],
        Verdict::Allow,
    );
}
