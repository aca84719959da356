//! The parser finds what bash runs: every simple command in order, words with quotes removed
//! and expansions marked, redirections told apart, deep nesting reported instead of overflowing.

use super::shell::*;

fn words(command: &str) -> Vec<(String, bool)> {
    let script = parse(command);
    script
        .commands
        .first()
        .map(|c| {
            c.words
                .iter()
                .map(|w| (w.text.clone(), w.dynamic))
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn words_lose_their_quotes_and_escapes_and_expansions_are_dynamic() {
    let got = words(r#"\rm "a b" 'c' x\ y "$HOME/z" $(pwd) a{b,c} $'\x72m' "\q""#);
    let want = vec![
        ("rm".to_string(), false),
        ("a b".to_string(), false),
        ("c".to_string(), false),
        ("x y".to_string(), false),
        ("$HOME/z".to_string(), true),
        ("$(pwd)".to_string(), true),
        ("a{b,c}".to_string(), false),
        ("rm".to_string(), false),
        ("\\q".to_string(), false),
    ];
    assert_eq!(got, want);
}

#[test]
fn every_simple_command_is_found_in_order() {
    let script = parse("cd src && cat x | python3; echo $(date) > out <<< hi & ls <(rm y)");
    let names: Vec<&str> = script
        .commands
        .iter()
        .filter_map(|c| c.words.first().map(|w| w.text.as_str()))
        .collect();
    assert_eq!(names, ["cd", "cat", "python3", "echo", "date", "ls", "rm"]);
    assert!(script.commands[3].background);
    let outputs: Vec<&Redirect> = script
        .redirects
        .iter()
        .filter(|r| r.kind == RedirectKind::Output)
        .collect();
    assert_eq!(outputs.len(), 1, "{:?}", script.redirects);
    assert_eq!(outputs[0].target.text, "out");
}

#[test]
fn redirections_are_told_apart() {
    let kinds = |line: &str| -> Vec<RedirectKind> {
        parse(line).redirects.iter().map(|r| r.kind).collect()
    };
    assert_eq!(kinds("ls 2>&1 >&2"), [RedirectKind::Duplicate; 2]);
    assert_eq!(kinds("echo x >& out"), [RedirectKind::Output]);
    assert_eq!(kinds("echo x &> out"), [RedirectKind::Output]);
    assert_eq!(kinds("cat < in"), [RedirectKind::Input]);
    assert_eq!(kinds("echo x >| out"), [RedirectKind::Output]);
}

#[test]
fn deep_nesting_is_reported_not_overflowed() {
    let line = format!("{}x{}", "$(".repeat(20_000), ")".repeat(20_000));
    let script = parse(&line);
    assert!(script.unreadable.is_some());
}
