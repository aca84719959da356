//! Recursive reads: every program that walks a tree and reads what it finds asks before a secret
//! in that tree is read, however its pattern, its options' values, its hidden-file switches or
//! the command it runs on each file are spelled. One row per reader in `RECURSIVE_READERS`.

use super::Verdict;
use super::tests::{check, check_with, world};

/// Every program that reads the contents of whole trees, one row each: how it is told to read
/// hidden files too. A new recursive reader is its record and a row here.
const RECURSIVE_READERS: &[&str] = &[
    "grep -r",
    "egrep -R",
    "fgrep --recursive",
    "rg --hidden",
    "ag --hidden",
    "ack",
    "git grep --no-index",
    "ugrep",
];

#[test]
fn recursive_readers_ask_before_reading_a_secret_in_their_tree() {
    let world = world();
    for reader in RECURSIVE_READERS {
        check_with(
            &world.policy,
            &[
                (&format!("{reader} API ."), ".env included"),
                (&format!("{reader} password ~"), "secrets included"),
                (&format!("cd ~ && {reader} token"), "secrets included"),
            ],
            Verdict::Ask,
        );
        check_with(
            &world.policy,
            &[(&format!("{reader} fn src"), "")],
            Verdict::Allow,
        );
    }
}

#[test]
fn a_pattern_given_by_an_option_does_not_hide_the_tree_searched() {
    // With `-e`/`-f` no operand is the pattern: `~` is the tree, not the pattern.
    check(
        &[
            ("cd src && grep -r -eAPI ~", "secrets included"),
            ("cd src && grep -r --regexp=API ~", "secrets included"),
            ("cd src && grep -reAPI ~", "secrets included"),
            ("cd src && rg -eAPI ~", "secrets included"),
            ("cd src && rg -f pats ~", "secrets included"),
            ("cd src && ugrep -eAPI ~", "secrets included"),
            ("cd src && git grep --no-index -eAPI ~", "secrets included"),
        ],
        Verdict::Ask,
    );
}

#[test]
fn hidden_files_shown_by_a_flag_in_a_cluster_are_walked() {
    check(
        &[
            ("rg -i. API", ".env included"),
            ("rg -iuu API", ".env included"),
            ("rg --unrestricted --unrestricted API", ".env included"),
            ("fd -HI -x cat", ".env included"),
        ],
        Verdict::Ask,
    );
}

#[test]
fn fd_exec_runs_its_command_judged() {
    check(
        &[
            ("fd . -x rm", "rm"),
            ("fd -e rs -X python3 -c 1", "runs code"),
            ("fd --exec-batch chmod 777", "chmod"),
            ("fd -Hx rm", "runs a command on every file"),
            ("fd -H -x cat", ".env included"),
        ],
        Verdict::Ask,
    );
    check(&[("fd -e rs -x wc -l", "")], Verdict::Allow);
}

#[test]
fn an_options_value_is_not_the_tree_searched() {
    // `2` is the value of `-C`, `API` the pattern: grep walks the working directory.
    check(
        &[
            ("grep -r -C 2 API", ".env included"),
            ("grep -rA 3 API", ".env included"),
            ("grep -r --context 2 API", ".env included"),
            ("ugrep -m 1 API", ".env included"),
        ],
        Verdict::Ask,
    );
    check(&[("grep -r -C 2 fn src", "")], Verdict::Allow);
}

#[test]
fn grep_told_to_recurse_by_directories_walks() {
    check(
        &[
            ("grep -d recurse password ~", "secrets included"),
            ("grep --directories=recurse password ~", "secrets included"),
            ("grep -d rec API .", ".env included"),
        ],
        Verdict::Ask,
    );
    check(&[("grep -d skip fn src", "")], Verdict::Allow);
}
