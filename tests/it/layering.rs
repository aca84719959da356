//! Keeps the dependency direction of STYLE.md: a module may only `use crate::x` for the modules
//! below it. A new edge must be added here on purpose, not slip in.

use std::collections::BTreeSet;
use std::path::Path;

/// For each top-level module, the modules of ours it may use.
const ALLOWED: &[(&str, &[&str])] = &[
    ("protocol", &[]),
    ("error", &[]),
    ("cli", &[]),
    ("net", &[]),
    ("config", &["protocol", "error"]),
    ("policy", &["protocol", "config"]),
    ("toolformat", &["protocol"]),
    ("shell", &[]),
    ("journal", &[]),
    ("excerpt", &[]),
    ("stats", &[]),
    ("conversation", &["protocol", "config", "journal"]),
    (
        "repl",
        &[
            "protocol",
            "config",
            "error",
            "agent",
            "ui",
            "session",
            "conversation",
            "audit",
            "journal",
        ],
    ),
    (
        "session",
        &[
            "protocol",
            "config",
            "error",
            "provider",
            "tool",
            "agent",
            "ui",
            "policy",
            "audit",
            "shell",
            // ai's data dir, kept out of the sandbox's reach.
            "conversation",
        ],
    ),
    ("provider", &["protocol", "config", "error", "net"]),
    ("tool", &["protocol", "config", "error", "net"]),
    (
        "agent",
        &[
            "protocol",
            "config",
            "error",
            "provider",
            "tool",
            "policy",
            "toolformat",
        ],
    ),
    ("audit", &["protocol", "config", "journal"]),
    ("ui", &["protocol", "config", "agent", "policy", "error"]),
    (
        "commands",
        &[
            "protocol",
            "config",
            "error",
            "provider",
            "ui",
            "cli",
            "policy",
            "audit",
            "toolformat",
            "shell",
            "conversation",
            "session",
            "stats",
        ],
    ),
    (
        "app",
        &[
            "protocol",
            "config",
            "error",
            "provider",
            "tool",
            "agent",
            "ui",
            "cli",
            "policy",
            "audit",
            "net",
            "toolformat",
            "shell",
            "commands",
            "session",
            "conversation",
            "repl",
            "excerpt",
        ],
    ),
];

fn module_of(path: &Path, src: &Path) -> Option<String> {
    let relative = path.strip_prefix(src).ok()?;
    let first = relative
        .components()
        .next()?
        .as_os_str()
        .to_string_lossy()
        .into_owned();
    Some(first.trim_end_matches(".rs").to_string())
}

fn rust_files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("read src").flatten() {
        let path = entry.path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

#[test]
fn modules_only_use_the_modules_below_them() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let mut violations = BTreeSet::new();
    for file in files {
        let Some(module) = module_of(&file, &src) else {
            continue;
        };
        if module == "lib" || module == "main" {
            continue;
        }
        let allowed = ALLOWED
            .iter()
            .find(|(name, _)| *name == module)
            .map(|(_, deps)| *deps)
            .unwrap_or_else(|| {
                panic!("module `{module}` is not in the layering table of tests/it/layering.rs")
            });
        let whole = std::fs::read_to_string(&file).expect("read file");
        // Unit tests may build their fixtures from any layer.
        let text = whole.split("#[cfg(test)]").next().unwrap_or_default();
        for (at, _) in text.match_indices("crate::") {
            let rest = &text[at + "crate::".len()..];
            let used: String = rest
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            if used != module && !allowed.contains(&used.as_str()) {
                violations.insert(format!("{} uses crate::{used}", file.display()));
            }
        }
    }
    assert!(
        violations.is_empty(),
        "dependency direction broken:\n{}",
        violations.into_iter().collect::<Vec<_>>().join("\n")
    );
}
