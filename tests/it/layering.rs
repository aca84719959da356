//! Keeps the shape STYLE.md draws: each module uses only the modules its row of STYLE's table
//! allows, no modules use each other in a cycle (neither at the top nor among the files of one
//! module), and the loop and the settings stay in small files with small functions. There is no
//! list of exceptions: a new edge means changing the table on purpose.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// What the modules of a row may use.
#[derive(Clone, Copy)]
enum Uses {
    /// These modules only.
    Only(&'static [&'static str]),
    /// Every module of the rows above ("everything above", "session and below").
    Above,
    /// Anything (the top).
    Any,
}

/// STYLE.md's table, row by row, top to bottom as STYLE draws it: the modules of a row, and
/// the modules they may use.
const ROWS: &[(&[&str], Uses)] = &[
    // protocol, error, net, environ, journal, excerpt → nothing of ours (leaves).
    (
        &["protocol", "error", "net", "environ", "journal", "excerpt"],
        Uses::Only(&[]),
    ),
    // Not in STYLE's table: `cli` holds clap's types, data only, so it is a leaf too.
    (&["cli"], Uses::Only(&[])),
    // Not in STYLE's table either: `schema`, the JSON Schema validator of `--output-schema`,
    // works on serde_json values alone, so it is a leaf too.
    (&["schema"], Uses::Only(&[])),
    // config → protocol, error.
    (&["config"], Uses::Only(&["protocol", "error"])),
    // toolformat → protocol.
    (&["toolformat"], Uses::Only(&["protocol"])),
    // policy → protocol, config: the decision.
    (&["policy"], Uses::Only(&["protocol", "config"])),
    // sandbox → protocol, config: the OS mechanism.
    (&["sandbox"], Uses::Only(&["protocol", "config"])),
    // engine → protocol, config, toolformat; and the HTTP plumbing its model download needs
    // (`net` is a leaf, which provider and tool use too).
    (
        &["engine"],
        Uses::Only(&["protocol", "config", "toolformat", "net"]),
    ),
    // provider → protocol, toolformat, config, error, net, engine.
    (
        &["provider"],
        Uses::Only(&["protocol", "toolformat", "config", "error", "net", "engine"]),
    ),
    // tool → protocol, config, error, net.
    (
        &["tool"],
        Uses::Only(&["protocol", "config", "error", "net"]),
    ),
    // audit, conversation, stats → protocol, config, journal.
    (
        &["audit", "conversation", "stats"],
        Uses::Only(&["protocol", "config", "journal"]),
    ),
    // agent → everything above.
    (&["agent"], Uses::Above),
    // ui, shell → protocol, config, error.
    (
        &["ui", "shell"],
        Uses::Only(&["protocol", "config", "error"]),
    ),
    // session → everything above.
    (&["session"], Uses::Above),
    // repl, commands → session and below.
    (&["repl", "commands"], Uses::Above),
    // app → top.
    (&["app"], Uses::Any),
];

/// Whether `module` may use `used`; `None` when `module` is in no row.
fn may_use(module: &str, used: &str) -> Option<bool> {
    let row = ROWS
        .iter()
        .position(|(modules, _)| modules.contains(&module))?;
    Some(match ROWS[row].1 {
        Uses::Only(allowed) => allowed.contains(&used),
        Uses::Above => ROWS[..row]
            .iter()
            .any(|(modules, _)| modules.contains(&used)),
        Uses::Any => true,
    })
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
    if may_use(module, module).is_none() {
        return vec![format!("`{module}` is in no row of the table")];
    }
    uses_of(text)
        .into_iter()
        .filter(|used| used != module && may_use(module, used) != Some(true))
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

/// The names a module's code refers to through `marker` (`super::`, `crate::a::b::`).
fn names_after(code: &str, marker: &str) -> BTreeSet<String> {
    code.match_indices(marker)
        .map(|(at, _)| {
            code[at + marker.len()..]
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect()
        })
        .collect()
}

/// How the files and subfolders of one folder use each other: a node per file (but `mod.rs`) and
/// per subfolder, an edge for each `super::x` of a file beside `x` and each `crate::path::x`.
fn folder_graph(dir: &Path) -> BTreeMap<String, BTreeSet<String>> {
    let path = dir
        .strip_prefix(src())
        .map(|p| p.to_string_lossy().replace('/', "::"))
        .unwrap_or_default();
    let absolute = format!("crate::{path}::");
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for entry in std::fs::read_dir(dir).expect("read module").flatten() {
        let entry = entry.path();
        let Some(node) = entry.file_stem().map(|s| s.to_string_lossy().into_owned()) else {
            continue;
        };
        let mut uses = BTreeSet::new();
        if entry.is_dir() {
            let mut files = Vec::new();
            rust_files(&entry, &mut files);
            for file in files {
                let code = code_of(&read(&file));
                uses.extend(names_after(&code, &absolute));
                // The subfolder's own mod.rs reaches its siblings through `super::`.
                if file == entry.join("mod.rs") {
                    uses.extend(names_after(&code, "super::"));
                }
            }
        } else if entry.extension().is_some_and(|e| e == "rs") && node != "mod" {
            let code = code_of(&read(&entry));
            uses.extend(names_after(&code, "super::"));
            uses.extend(names_after(&code, &absolute));
        } else {
            continue;
        }
        uses.remove(&node);
        graph.insert(node, uses);
    }
    graph
}

#[test]
fn no_files_of_one_module_use_each_other_in_a_cycle() {
    let mut dirs = vec![src()];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).expect("read src").flatten() {
            if entry.path().is_dir() {
                dirs.push(entry.path());
            }
        }
        if dir == src() {
            continue; // the top: no_modules_use_each_other_in_a_cycle
        }
        let graph = folder_graph(&dir);
        assert_eq!(
            cycle(&graph),
            None,
            "files of `{}` use each other",
            dir.display()
        );
    }
}

#[test]
fn a_file_cycle_in_a_subfolder_is_caught() {
    let dir = tempfile::tempdir().expect("temp dir");
    let nested = dir.path().join("a/b");
    std::fs::create_dir_all(&nested).expect("mkdir");
    std::fs::write(nested.join("x.rs"), "use super::y::Thing;\n").expect("write");
    std::fs::write(nested.join("y.rs"), "fn f() { super::x::g() }\n").expect("write");
    std::fs::write(nested.join("mod.rs"), "mod x;\nmod y;\n").expect("write");
    let graph = folder_graph(&nested);
    assert!(cycle(&graph).is_some(), "{graph:?}");
    std::fs::write(nested.join("y.rs"), "fn f() {}\n").expect("write");
    assert_eq!(cycle(&folder_graph(&nested)), None);
}

/// The span of each `fn` in rustfmt'd code: from its line to the line closing it at its indent.
fn function_lengths(text: &str) -> Vec<(String, usize)> {
    let lines: Vec<&str> = text.lines().collect();
    let mut found = Vec::new();
    for (at, line) in lines.iter().enumerate() {
        let trimmed = line.trim_start();
        let indent = &line[..line.len() - trimmed.len()];
        let Some(name) = function_name(trimmed) else {
            continue;
        };
        let close = format!("{indent}}}");
        if let Some(end) = lines[at..].iter().position(|l| *l == close) {
            found.push((format!("fn {name}"), end + 1));
        }
    }
    found
}

/// The name of the function a line declares, whatever its visibility and qualifiers.
fn function_name(line: &str) -> Option<&str> {
    let mut rest = line;
    if let Some(after) = rest.strip_prefix("pub") {
        rest = after.trim_start();
        if rest.starts_with('(') {
            rest = rest.split_once(')')?.1.trim_start();
        }
    }
    for qualifier in ["const ", "async ", "unsafe "] {
        rest = rest.strip_prefix(qualifier).unwrap_or(rest);
    }
    let name = rest.strip_prefix("fn ")?;
    let end = name.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))?;
    Some(&name[..end])
}

/// Files and functions allowed over the limits, each with why: a new exception is a choice
/// made here, on purpose, and each is a debt with its reason.
const OVERSIZE: &[(&str, &str)] = &[
    // Table tests: one row a line, read as a table; splitting them would scatter the table.
    (
        "policy/tests.rs: fn everyday_reading_building_and_testing_runs_without_asking",
        "a table of everyday commands",
    ),
    (
        "policy/tests_runs.rs: fn code_and_programs_a_command_runs_are_judged",
        "a table of attacks",
    ),
    // The policy's per-program checks: policy v3 (issue 26) folds them into one record per
    // program, which replaces these functions rather than splitting them.
    (
        "policy/program/dev.rs: fn node_package",
        "policy v3: one record per program",
    ),
    (
        "policy/danger.rs: fn explain",
        "policy v3: denies by meaning",
    ),
    (
        "policy/danger.rs: fn category",
        "policy v3: denies by meaning",
    ),
    (
        "policy/danger.rs: fn package_or_system",
        "policy v3: denies by meaning",
    ),
    (
        "policy/program/git.rs: fn git",
        "policy v3: one record per program",
    ),
    (
        "policy/program/text.rs: fn sed_scripts",
        "policy v3: one record per program",
    ),
    (
        "policy/runner.rs: fn node_runner",
        "policy v3: one record per program",
    ),
    (
        "policy/wrap.rs: fn wrapper",
        "policy v3: two readings of the line",
    ),
    // Streaming parsers and converters whose one match is the whole of the format.
    (
        "toolformat/scan.rs: fn advance",
        "one state machine over the stream",
    ),
    (
        "provider/anthropic.rs: fn take",
        "one match over Anthropic's stream events",
    ),
    (
        "provider/gemini.rs: fn convert",
        "one match over JSON Schema keywords",
    ),
    ("ui/markdown.rs: fn highlight", "one match over token kinds"),
    // Still to split along a real seam.
    (
        "tool/exec.rs: fn run_command",
        "to split: spawn, stream, wait",
    ),
    ("tool/fs.rs: fn read", "to split: open, check, read"),
    (
        "tool/web.rs: fn search",
        "to split: one function per backend",
    ),
];

/// What in `text` (the file `name`) is over the limits: more than 800 lines, or a function over 80.
fn oversize(name: &str, text: &str) -> Vec<String> {
    let mut found = Vec::new();
    let lines = text.lines().count();
    if lines > 800 {
        found.push(format!("{name}: {lines} lines"));
    }
    for (function, length) in function_lengths(text) {
        if length > 80 {
            found.push(format!("{name}: {function} is {length} lines"));
        }
    }
    found
}

#[test]
fn every_file_and_function_stays_small() {
    let mut files = Vec::new();
    rust_files(&src(), &mut files);
    let mut found = Vec::new();
    for file in files {
        let name = file
            .strip_prefix(src())
            .map(|p| p.display().to_string())
            .unwrap_or_default();
        found.extend(oversize(&name, &read(&file)));
    }
    let excepted = |item: &String| {
        OVERSIZE
            .iter()
            .any(|(what, _)| item.starts_with(&format!("{what} is ")))
    };
    let too_big: Vec<&String> = found.iter().filter(|item| !excepted(item)).collect();
    assert!(too_big.is_empty(), "split these:\n{too_big:#?}");
    // An exception that no longer matches anything is stale: take it out.
    let stale: Vec<&str> = OVERSIZE
        .iter()
        .map(|(what, _)| *what)
        .filter(|what| {
            !found
                .iter()
                .any(|item| item.starts_with(&format!("{what} is ")))
        })
        .collect();
    assert!(stale.is_empty(), "exceptions no longer needed: {stale:?}");
}

#[test]
fn an_oversize_file_or_function_is_caught() {
    let long_function = format!("fn long() {{\n{}}}\n", "    step();\n".repeat(80));
    assert_eq!(oversize("a.rs", &long_function).len(), 1);
    assert_eq!(oversize("a.rs", &"// line\n".repeat(801)).len(), 1);
    assert!(oversize("a.rs", "fn short() {\n    step();\n}\n").is_empty());
}

#[test]
fn function_lengths_are_measured_to_the_closing_brace() {
    let text = "fn a() {\n    one();\n}\n\n    pub(super) fn b(\n        x: u8,\n    ) {\n    }\n";
    for (line, name) in [
        ("pub(crate) async fn run(", Some("run")),
        ("pub(in crate::x) const fn z<T>()", Some("z")),
        ("unsafe fn y() {", Some("y")),
        ("let fn_name = 1;", None),
    ] {
        assert_eq!(function_name(line), name, "{line}");
    }
    assert_eq!(
        function_lengths(text),
        vec![("fn a".to_string(), 3), ("fn b".to_string(), 4)]
    );
}
