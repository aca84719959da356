//! Keeps the shape STYLE.md draws: each module uses only the modules its row of STYLE's table
//! allows, no modules use each other in a cycle (neither at the top nor among the files of one
//! module), and the loop and the settings stay in small files with small functions. There is no
//! list of exceptions: a new edge means changing the table on purpose.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Modules any module may use; the top row (`commands / app → top`) uses this.
const ANY: &[&str] = &["*"];

/// STYLE.md's table, row by row: the modules of a row, and the modules they may use. Our modules
/// that STYLE does not name join the row of what they are.
const ROWS: &[(&[&str], &[&str])] = &[
    // protocol, error → nothing of ours.
    (&["protocol", "error"], &[]),
    // Leaves that know nothing of ours either: HTTP plumbing, whole-line appends, text excerpts,
    // sums over the audit log, the shell scripts and their parsing, wiping keys from the
    // process's environment.
    (
        &["net", "journal", "excerpt", "stats", "shell", "environ"],
        &[],
    ),
    // config → protocol, error.
    (&["config"], &["protocol", "error"]),
    // toolformat → protocol.
    (&["toolformat"], &["protocol"]),
    // policy → protocol, config.
    (&["policy"], &["protocol", "config"]),
    // provider → protocol, toolformat, config, error (and the HTTP plumbing).
    (
        &["provider"],
        &["protocol", "toolformat", "config", "error", "net"],
    ),
    // tool → protocol, config, error (and the HTTP plumbing).
    (&["tool"], &["protocol", "config", "error", "net"]),
    // Beside the tools, the records of what happened: the audit log and saved conversations.
    (
        &["audit", "conversation"],
        &["protocol", "config", "journal"],
    ),
    // agent → everything above.
    (
        &["agent"],
        &[
            "protocol",
            "error",
            "config",
            "toolformat",
            "policy",
            "provider",
            "tool",
        ],
    ),
    // ui → protocol, config; and error, whose reports it is the one renderer of (STYLE, Errors).
    (&["ui"], &["protocol", "config", "error"]),
    // commands / app → top. The REPL is a command (`ai -i`): like the one-shot run it builds a
    // session and drives turns; `session` is that building; `cli` fills the flags in.
    (&["app", "commands", "repl", "session", "cli"], ANY),
];

fn allowed(module: &str) -> Option<&'static [&'static str]> {
    ROWS.iter()
        .find(|(modules, _)| modules.contains(&module))
        .map(|(_, uses)| *uses)
}

/// A file's code without its unit tests: they may build their fixtures from any layer. An inline
/// test module ends the code (tests come last); a `#[cfg(test)]` line before a declaration
/// (`mod props;`, a test-only `use`) leaves out only that declaration.
fn code_of(text: &str) -> String {
    let mut code = String::new();
    let mut lines = text.lines();
    while let Some(line) = lines.next() {
        if line.trim() != "#[cfg(test)]" {
            code.push_str(line);
            code.push('\n');
            continue;
        }
        match lines.next() {
            Some(next) if next.trim_end().ends_with('{') => break,
            _ => continue,
        }
    }
    code
}

/// The modules of ours a file's code uses (`crate::x`).
fn uses_of(text: &str) -> BTreeSet<String> {
    let code = code_of(text);
    code.match_indices("crate::")
        .map(|(at, _)| {
            code[at + "crate::".len()..]
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect()
        })
        .collect()
}

/// What `module`'s `text` uses that its row does not allow.
fn violations(module: &str, text: &str) -> Vec<String> {
    let Some(allowed) = allowed(module) else {
        return vec![format!("`{module}` is in no row of the table")];
    };
    uses_of(text)
        .into_iter()
        .filter(|used| used != module && allowed != ANY && !allowed.contains(&used.as_str()))
        .map(|used| format!("{module} uses crate::{used}"))
        .collect()
}

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("read src").flatten() {
        let path = entry.path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// Files that are unit tests whole (`#[cfg(test)] mod x;` in the file beside or above them).
fn test_only(files: &[PathBuf]) -> BTreeSet<PathBuf> {
    let mut tests = BTreeSet::new();
    for file in files {
        let text = read(file);
        let Some(dir) = file.parent() else { continue };
        // `a.rs` declares its children in `a/`, `mod.rs` and the crate root in their own dir.
        let stem = file.file_stem().map(|s| s.to_string_lossy().into_owned());
        let children = match stem.as_deref() {
            Some("mod" | "lib" | "main") | None => dir.to_path_buf(),
            Some(stem) => dir.join(stem),
        };
        let mut lines = text.lines().map(str::trim);
        while let Some(line) = lines.next() {
            if line != "#[cfg(test)]" {
                continue;
            }
            if let Some(name) = lines
                .next()
                .and_then(|l| l.strip_prefix("mod "))
                .and_then(|l| l.strip_suffix(';'))
            {
                tests.insert(children.join(format!("{name}.rs")));
            }
        }
    }
    tests
}

/// Each file of the library's code (whole-file unit tests left out) with its top-level module.
fn library() -> Vec<(String, PathBuf)> {
    let src = src();
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let tests = test_only(&files);
    files
        .into_iter()
        .filter(|file| !tests.contains(file))
        .filter_map(|file| {
            let first = file.strip_prefix(&src).ok()?.components().next()?;
            let module = first
                .as_os_str()
                .to_string_lossy()
                .trim_end_matches(".rs")
                .to_string();
            (module != "lib" && module != "main").then_some((module, file))
        })
        .collect()
}

fn read(file: &Path) -> String {
    std::fs::read_to_string(file).expect("read file")
}

/// The first cycle of a graph, if any.
fn cycle(graph: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    fn visit(
        node: &str,
        graph: &BTreeMap<String, BTreeSet<String>>,
        state: &mut BTreeMap<String, bool>,
        path: &mut Vec<String>,
    ) -> Option<Vec<String>> {
        match state.get(node) {
            Some(true) => {
                let start = path.iter().position(|n| n == node).unwrap_or(0);
                let mut found = path[start..].to_vec();
                found.push(node.to_string());
                return Some(found);
            }
            Some(false) => return None,
            None => {}
        }
        state.insert(node.to_string(), true);
        path.push(node.to_string());
        for next in graph.get(node).into_iter().flatten() {
            if graph.contains_key(next)
                && let Some(found) = visit(next, graph, state, path)
            {
                return Some(found);
            }
        }
        path.pop();
        state.insert(node.to_string(), false);
        None
    }
    let mut state = BTreeMap::new();
    graph
        .keys()
        .find_map(|node| visit(node, graph, &mut state, &mut Vec::new()))
}

#[test]
fn modules_only_use_what_their_row_allows() {
    let mut found = BTreeSet::new();
    for (module, file) in library() {
        for violation in violations(&module, &read(&file)) {
            found.insert(format!("{}: {violation}", file.display()));
        }
    }
    assert!(
        found.is_empty(),
        "dependency direction broken:\n{}",
        found.into_iter().collect::<Vec<_>>().join("\n")
    );
}

#[test]
fn the_check_catches_a_forbidden_edge() {
    // The edges the layers were freed of, and one that would turn the table upside down.
    let forbidden = [
        ("ui", "use crate::agent::Gate;"),
        ("agent", "use crate::ui::Frontend;"),
        ("tool", "use crate::policy::Policy;"),
        ("config", "use crate::cli::Cli;"),
        ("policy", "let x = crate::agent::millis;"),
        ("protocol", "use crate::config::Settings;"),
    ];
    for (module, line) in forbidden {
        assert_eq!(violations(module, line).len(), 1, "{module}: {line}");
    }
    // Unit tests may use any layer; an allowed edge passes.
    assert!(violations("ui", "use crate::config::Settings;").is_empty());
    assert!(violations("ui", "#[cfg(test)]\nuse crate::agent::Gate;").is_empty());
    assert!(
        violations(
            "ui",
            "#[cfg(test)]\nmod tests {\n    use crate::agent::Gate;\n}"
        )
        .is_empty()
    );
    // A test module declared early does not hide the code after it.
    let text = "#[cfg(test)]\nmod props;\n\nuse crate::agent::Gate;\n";
    assert_eq!(violations("ui", text).len(), 1);
    assert!(!violations("rocket", "").is_empty());
    // And a cycle, such as the REPL using the app that runs it, is found.
    let graph: BTreeMap<String, BTreeSet<String>> = [
        ("app", &["repl", "config"][..]),
        ("repl", &["app"][..]),
        ("config", &[][..]),
    ]
    .into_iter()
    .map(|(m, uses)| (m.to_string(), uses.iter().map(|u| u.to_string()).collect()))
    .collect();
    assert_eq!(
        cycle(&graph),
        Some(vec![
            "app".to_string(),
            "repl".to_string(),
            "app".to_string()
        ])
    );
}

#[test]
fn no_modules_use_each_other_in_a_cycle() {
    let mut top: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (module, file) in library() {
        let uses = uses_of(&read(&file));
        top.entry(module.clone())
            .or_default()
            .extend(uses.into_iter().filter(|u| *u != module));
    }
    assert_eq!(cycle(&top), None, "modules use each other");
}

#[test]
fn no_files_of_one_module_use_each_other_in_a_cycle() {
    for dir in std::fs::read_dir(src()).expect("read src").flatten() {
        let dir = dir.path();
        if !dir.is_dir() {
            continue;
        }
        let name = dir.file_name().map(|n| n.to_string_lossy().into_owned());
        let Some(name) = name else { continue };
        let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        for entry in std::fs::read_dir(&dir).expect("read module").flatten() {
            let path = entry.path();
            let Some(file) = path.file_stem().map(|s| s.to_string_lossy().into_owned()) else {
                continue;
            };
            if path.extension().is_none_or(|e| e != "rs") || file == "mod" {
                continue;
            }
            let code = code_of(&read(&path));
            let prefix = format!("crate::{name}::");
            let mut uses = BTreeSet::new();
            for marker in ["super::", prefix.as_str()] {
                for (at, _) in code.match_indices(marker) {
                    let used: String = code[at + marker.len()..]
                        .chars()
                        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                        .collect();
                    if used != file {
                        uses.insert(used);
                    }
                }
            }
            graph.insert(file, uses);
        }
        assert_eq!(cycle(&graph), None, "files of `{name}` use each other");
    }
}

/// The span of each `fn` in rustfmt'd code: from its line to the line closing it at its indent.
fn function_lengths(text: &str) -> Vec<(String, usize)> {
    let lines: Vec<&str> = text.lines().collect();
    let mut found = Vec::new();
    for (at, line) in lines.iter().enumerate() {
        let trimmed = line.trim_start();
        let indent = &line[..line.len() - trimmed.len()];
        let signature = [
            "fn ",
            "pub fn ",
            "pub(super) fn ",
            "pub(crate) fn ",
            "async fn ",
        ]
        .iter()
        .any(|start| trimmed.starts_with(start))
            || trimmed.starts_with("pub async fn ");
        if !signature {
            continue;
        }
        let close = format!("{indent}}}");
        if let Some(end) = lines[at..].iter().position(|l| *l == close) {
            found.push((trimmed.chars().take(60).collect(), end + 1));
        }
    }
    found
}

#[test]
fn the_loop_and_the_settings_stay_in_small_files_with_small_functions() {
    let mut too_big = Vec::new();
    for dir in ["agent", "config"] {
        let mut files = Vec::new();
        rust_files(&src().join(dir), &mut files);
        for file in files {
            let text = read(&file);
            let lines = text.lines().count();
            if lines > 800 {
                too_big.push(format!("{}: {lines} lines", file.display()));
            }
            for (function, length) in function_lengths(&text) {
                if length > 80 {
                    too_big.push(format!("{}: {function} is {length} lines", file.display()));
                }
            }
        }
    }
    assert!(too_big.is_empty(), "split these:\n{}", too_big.join("\n"));
}

#[test]
fn function_lengths_are_measured_to_the_closing_brace() {
    let text = "fn a() {\n    one();\n}\n\n    pub(super) fn b(\n        x: u8,\n    ) {\n    }\n";
    assert_eq!(
        function_lengths(text),
        vec![
            ("fn a() {".to_string(), 3),
            ("pub(super) fn b(".to_string(), 4)
        ]
    );
}
