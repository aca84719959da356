//! The records as a whole: each name has one record, each record is the one its names find, and
//! the lists read off them are the ones the classifier relies on.

use super::{FAMILIES, Operands, Walk, all, find, is_filter, judge, prints_environment};
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

/// The options a `--help` text defines, each with whether it must take the next word: from its
/// option lines only (`  -e, --regexp=PATTERNS  use ...`, `    -A NUM, --after-context=NUM`),
/// not the descriptions. Numeric options (`-NUM`, ugrep's `-1`...`-9`) and optional values
/// (`--color[=WHEN]`, `-K [MIN,][MAX]`) give no verdict on taking a value.
fn help_options(help: &str) -> Vec<(String, Option<bool>)> {
    let mut out = Vec::new();
    for line in help.lines() {
        let indent = line.len() - line.trim_start().len();
        let line = line.trim_start();
        if !line.starts_with('-') || indent > 8 {
            continue;
        }
        let synopsis = line.split("  ").next().unwrap_or(line);
        // The spellings of one option share its value: `-e, --regexp=PATTERNS`.
        let mut spellings = Vec::new();
        for part in synopsis.split(", ") {
            let end = part.find(['=', ' ', '[']).unwrap_or(part.len());
            let (name, after) = part.split_at(end);
            let numeric = name
                .trim_start_matches('-')
                .chars()
                .all(|c| c.is_ascii_digit());
            if !name.starts_with('-') || name.starts_with("---") || numeric || name == "-NUM" {
                continue;
            }
            let value = match after.trim_start_matches(['=', ' ']) {
                "" => Some(false),
                rest if rest.starts_with('[') || after.starts_with('[') => None,
                _ => Some(true),
            };
            spellings.push((name.to_string(), value));
        }
        let value = if spellings.iter().any(|(_, v)| v.is_none()) {
            None
        } else {
            Some(spellings.iter().any(|(_, v)| *v == Some(true)))
        };
        out.extend(spellings.into_iter().map(|(name, _)| (name, value)));
    }
    out
}

#[test]
fn every_options_table_matches_the_programs_help_where_installed() {
    let mut checked = Vec::new();
    for program in all().filter(|p| !p.options.values.is_empty()) {
        let name = program.names[0];
        let Ok(out) = std::process::Command::new(name).arg("--help").output() else {
            continue; // not installed here
        };
        let help = String::from_utf8_lossy(&out.stdout).into_owned()
            + &String::from_utf8_lossy(&out.stderr);
        let table = &program.options;
        let both = table.values.iter().find(|v| table.flags.contains(v));
        assert_eq!(both, None, "`{name}`: both a value and a flag");
        let mut wrong = Vec::new();
        for (option, takes_value) in help_options(&help) {
            let value = table.values.contains(&option.as_str());
            if !value && !table.flags.contains(&option.as_str()) {
                wrong.push(format!("{option} is missing"));
            } else if takes_value.is_some_and(|t| t != value) {
                wrong.push(format!("{option} takes a value: {takes_value:?}"));
            }
        }
        assert!(
            wrong.is_empty(),
            "`{name}` options table:\n{}",
            wrong.join("\n")
        );
        checked.push(name);
    }
    // grep is everywhere: the check ran at least there.
    assert!(checked.contains(&"grep"), "checked: {checked:?}");
}

#[test]
fn commands_that_print_the_environment_and_ones_that_do_not() {
    let table: &[(&str, bool)] = &[
        ("env", true),
        ("env -0", true),
        ("env | sort", true),
        ("env -u PATH", true),
        ("env --null", true),
        ("env -u X -0", true),
        ("printenv -0", true),
        ("printenv", true),
        ("printenv HOME", true),
        ("make -p", true),
        ("make -pn", true),
        ("make --print-data-base", true),
        ("npm run env", true),
        ("pnpm run-script env", true),
        ("env FOO=1 cargo test", false),
        ("env cargo build", false),
        ("make", false),
        ("make -j4", false),
        ("npm run build", false),
        ("yarn env", true),
    ];
    for (line, expected) in table {
        let script = parse(line);
        let first = script.commands.first().expect("a simple command");
        let (name, args) = first.words.split_first().expect("a program");
        assert_eq!(prints_environment(&name.text, args), *expected, "{line}");
    }
}
