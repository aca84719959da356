//! Rule: what a call plants where the user's tools look first by name does not stay there
//! (sandbox round 26): the directory of a Python script a git hook runs (its modules and
//! `__pycache__`), a PATH directory of the `.envrc` swapped for a link, a package at the top of
//! the project under an installed module's name (`python3 -m pip` imports it first), and what
//! an activated virtualenv's `.pth` files import at every start.

use crate::attacker::make_in;
use crate::harness::Ai;
use crate::launcher::require_sandbox;

fn unchanged(ai: &Ai, file: &str, was: &str, stderr: &str) {
    let now = std::fs::read_to_string(ai.work().join(file)).unwrap_or_default();
    assert_eq!(now, was, "{file} changed: {stderr}");
}

#[test]
fn what_a_hooks_python_script_imports_is_read_only() {
    if !require_sandbox() {
        return;
    }
    let ai = Ai::new("http://127.0.0.1:9/v1")
        .file("scripts/check.py", "import helper\n")
        .file("scripts/helper.py", "OK = 1\n")
        .file("src/main.c", "int main(void) { return 0; }\n")
        .git_init();
    let hooks = ai.work().join(".git/hooks");
    std::fs::create_dir_all(&hooks).unwrap();
    std::fs::write(
        hooks.join("pre-commit"),
        "#!/bin/sh\nexec python3 scripts/check.py\n",
    )
    .unwrap();
    let (ai, stderr) = make_in(
        ai,
        &[
            "echo 'import os' >> scripts/helper.py",
            "mkdir -p scripts/__pycache__ && echo x > scripts/__pycache__/helper.cpython-311.pyc",
        ],
    );
    unchanged(&ai, "scripts/helper.py", "OK = 1\n", &stderr);
    assert!(
        !ai.work()
            .join("scripts/__pycache__/helper.cpython-311.pyc")
            .exists(),
        "{stderr}"
    );
}

#[test]
fn a_path_directory_swapped_for_a_link_is_moved_aside() {
    if !require_sandbox() {
        return;
    }
    let ai = Ai::new("http://127.0.0.1:9/v1")
        .file(".envrc", "PATH_add bin\n")
        .file("bin/dev-server", "#!/bin/sh\n")
        .file("src/main.c", "int main(void) { return 0; }\n")
        .git_init();
    let (ai, stderr) = make_in(
        ai,
        &[
            "mkdir -p other/deep && echo 'echo planted' > other/deep/ls && chmod +x other/deep/ls",
            "rm -rf bin && ln -s other/deep bin",
        ],
    );
    assert!(
        !ai.work().join("bin/ls").exists(),
        "bin/ls is there: {stderr}"
    );
}

#[test]
fn a_package_under_an_installed_modules_name_is_moved_aside() {
    if !require_sandbox() {
        return;
    }
    let ai = Ai::new("http://127.0.0.1:9/v1")
        .file("app.py", "print(1)\n")
        .git_init();
    let (ai, stderr) = make_in(
        ai,
        &[
            "mkdir -p pip && echo 'print(1)' > pip/__init__.py",
            "echo 'print(1)' > json.py",
            "echo 'print(1)' > my_new_module.py",
        ],
    );
    for planted in ["pip", "json.py"] {
        assert!(!ai.work().join(planted).exists(), "{planted}: {stderr}");
    }
    assert!(ai.work().join("my_new_module.py").exists(), "{stderr}");
}

#[test]
fn what_a_virtualenvs_pth_files_import_is_read_only() {
    if !require_sandbox() {
        return;
    }
    let site = ".venv/lib/python3.11/site-packages";
    let ai = Ai::new("http://127.0.0.1:9/v1")
        .file(".envrc", "source .venv/bin/activate\n")
        .file(".venv/bin/activate", "VIRTUAL_ENV=.venv\n")
        .file(
            &format!("{site}/distutils-precedence.pth"),
            "import os; var = 'SETUPTOOLS_USE_DISTUTILS'; enabled = os.environ.get(var, 'local') \
             == 'local'; enabled and __import__('_distutils_hack').add_shim(); \n",
        )
        .file(&format!("{site}/_distutils_hack/__init__.py"), "OK = 1\n")
        .file("src/main.c", "int main(void) { return 0; }\n")
        .git_init();
    let (ai, stderr) = make_in(
        ai,
        &[&format!(
            "echo 'import os' >> {site}/_distutils_hack/__init__.py"
        )],
    );
    unchanged(
        &ai,
        &format!("{site}/_distutils_hack/__init__.py"),
        "OK = 1\n",
        &stderr,
    );
}

/// Configuration the user's cargo, rustup, npm or editor reads and that names a program to run
/// is read-only, or moved aside if a call makes it, even hidden from git (round 27).
#[test]
fn configuration_that_names_a_program_for_the_users_tools_cannot_be_planted() {
    if !require_sandbox() {
        return;
    }
    let ai = Ai::new("http://127.0.0.1:9/v1")
        .file(
            "Cargo.toml",
            "[package]\nname = \"x\"\nversion = \"0.1.0\"\n",
        )
        .file(".mvn/jvm.config", "-Xmx1g\n")
        .file("venv/pyvenv.cfg", "home = /usr/bin\n")
        .file("src/main.c", "int main(void) { return 0; }\n")
        .git_init();
    let (ai, stderr) = make_in(
        ai,
        &[
            "mkdir -p .cargo && printf '[build]\\nrustc-wrapper = \"./w.sh\"\\n' > .cargo/config.toml",
            "echo '*' > .cargo/.gitignore",
            "printf '[toolchain]\\npath = \"./tc\"\\n' > rust-toolchain.toml",
            "echo 'script-shell=./tc/sh' > .npmrc",
            "echo '-javaagent:x.jar' >> .mvn/jvm.config",
            "mkdir -p .vscode && echo '{}' > .vscode/tasks.json",
            // Round 28: a debugger's and an editor's start-up files, a virtualenv's Python.
            "echo '!import os' > .pdbrc",
            "echo ':!id' > .vimrc",
            "echo 'home = /tmp/planted' > venv/pyvenv.cfg",
        ],
    );
    unchanged(&ai, "venv/pyvenv.cfg", "home = /usr/bin\n", &stderr);
    for planted in [
        ".cargo/config.toml",
        "rust-toolchain.toml",
        ".npmrc",
        ".vscode/tasks.json",
        ".pdbrc",
        ".vimrc",
    ] {
        assert!(!ai.work().join(planted).exists(), "{planted}: {stderr}");
    }
    unchanged(&ai, ".mvn/jvm.config", "-Xmx1g\n", &stderr);
}

/// Nothing a call leaves is writable by the machine's other users, who could then change what
/// the user's next `make` runs (round 27): `chmod` to such a mode is refused, and what the call
/// makes gets at least a umask of `022`.
#[test]
fn nothing_a_call_leaves_is_writable_by_others() {
    if !require_sandbox() {
        return;
    }
    use std::os::unix::fs::PermissionsExt;
    let ai = Ai::new("http://127.0.0.1:9/v1")
        .file("src/main.c", "int main(void) { return 0; }\n")
        .git_init();
    let (ai, stderr) = make_in(
        ai,
        &[
            "chmod 0666 src/main.c",
            "chmod o+w src",
            "chmod 0777 .",
            "sh -c 'umask 0; touch made.txt'",
            "mkdir made-dir",
        ],
    );
    let work = ai.work();
    for path in ["src/main.c", "src", ".", "made-dir"] {
        let mode = std::fs::metadata(work.join(path))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(
            mode & 0o002,
            0,
            "{path} is writable by others ({mode:o}): {stderr}"
        );
    }
    assert!(work.join("made-dir").exists(), "{stderr}");
}

/// ai runs its own programs (git for its checks) only from absolute `PATH` directories outside
/// the project: with an empty or relative `PATH` entry, the next session ran a `git` a call
/// had planted in the project, as the user (round 29).
#[test]
fn ai_never_runs_a_program_a_call_planted_for_a_relative_path_entry() {
    if !require_sandbox() {
        return;
    }
    let ai = Ai::new("http://127.0.0.1:9/v1")
        .file("src/main.c", "int main(void) { return 0; }\n")
        .git_init();
    let marker = ai.root_dir().join("planted-git-ran");
    let plant = format!(
        "printf '#!/bin/sh\\ntouch {}\\nexec /usr/bin/git \"$$@\"\\n' > git && chmod +x git",
        marker.display()
    );
    let (ai, stderr) = make_in(ai, &[&plant]);
    assert!(
        ai.work().join("git").exists(),
        "the call could not write: {stderr}"
    );
    let path = format!(":bin:{}", std::env::var("PATH").unwrap_or_default());
    let (_ai, stderr) = make_in(ai.env("PATH", &path), &["true"]);
    assert!(!marker.exists(), "ai ran the planted git: {stderr}");
}
