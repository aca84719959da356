//! The records as a whole: each name has one record, each record is the one its names find, and
//! the lists read off them are the ones the classifier relies on.

use super::{FAMILIES, Operands, Walk, all, find, is_filter, judge};
use crate::policy::shell::parse;

#[test]
fn no_name_has_two_records() {
    let mut seen = std::collections::BTreeSet::new();
    for program in all() {
        assert!(!program.names.is_empty(), "a record without a name");
        for name in program.names {
            assert!(seen.insert(*name), "`{name}` has two records");
        }
    }
}

#[test]
fn every_record_is_reachable_by_its_names() {
    for program in all() {
        for name in program.names {
            let found = find(name).map(|p| p as *const _);
            assert_eq!(
                found,
                Some(program as *const _),
                "`{name}` finds another record"
            );
        }
    }
    assert!(FAMILIES.iter().all(|family| !family.is_empty()));
}

#[test]
fn a_record_without_walk_reads_no_tree_contents() {
    // `contents` only means something for a program that walks; a pattern only for one with paths.
    for program in all() {
        if program.contents {
            assert_ne!(program.walk, Walk::Never, "{:?}", program.names);
        }
    }
}

#[test]
fn the_lists_read_off_the_records() {
    let filters: Vec<&str> = all()
        .flat_map(|p| p.names.iter().copied())
        .filter(|name| is_filter(name))
        .collect();
    for name in [
        "cat", "grep", "rg", "sed", "jq", "tee", "xargs", "read", "less", ":",
    ] {
        assert!(
            filters.contains(&name),
            "{name} reads a here-document as data"
        );
    }
    for name in ["sh", "python3", "nawk", "zgrep", "ag"] {
        assert!(!filters.contains(&name), "{name} is no filter");
    }
    let names_only: Vec<&str> = all()
        .filter(|p| p.operands == Operands::Names)
        .flat_map(|p| p.names.iter().copied())
        .collect();
    assert_eq!(
        names_only,
        [
            "which", "whereis", "type", "whatis", "apropos", "help", "true", ":", "false",
            "command", "alias", "unalias"
        ]
    );
}

#[test]
fn what_a_record_says_a_command_does() {
    // line, walks a tree, reads the contents of what it walks, asks
    let table: &[(&str, bool, bool, bool)] = &[
        ("grep x .", false, false, false),
        ("grep -r x .", true, true, false),
        ("rg x", true, true, false),
        ("rg --pre cat x", true, true, true),
        ("ag x", true, true, false),
        ("ack x", true, true, false),
        ("fd x", true, false, false),
        ("tree", true, false, false),
        ("tree -o out", true, false, true),
        ("ls -R", false, false, false),
        ("du -a", false, false, false),
        ("diff -r a b", true, true, false),
        ("find . -name x", true, false, false),
        ("find . -exec cat {} ;", true, true, false),
        ("wc --files0-from=list", false, false, true),
        ("python3.12 -c 1", false, false, true),
    ];
    for (line, recursive, contents, asks) in table {
        let script = parse(line);
        let words = &script.commands[0].words;
        let judged = judge(&words[0].text, &words[1..]);
        assert!(judged.known, "{line}");
        assert_eq!(judged.recursive, *recursive, "{line}: walks");
        assert_eq!(judged.contents, *contents, "{line}: contents");
        assert_eq!(!judged.asks.is_empty(), *asks, "{line}: {:?}", judged.asks);
    }
}
