//! Rule: what direnv runs from the project when the user next enters it cannot be planted by a
//! call. Files the approved `.envrc` loads are read-only, or moved aside if a call makes them
//! (round 22); a program a call puts, under the name of one the user has elsewhere on PATH, in a
//! directory `.envrc` puts first on PATH is moved aside (round 24: `bin/ls` ran at the user's
//! next `ls`, with their tokens); so is a `.direnv` a call makes for `layout python`. Round 25:
//! every spelling of a PATH entry (variables, `$(expand_path ...)`), an activated virtualenv's
//! `bin` and start-up files, project paths exported in other variables; a PATH entry ai cannot
//! work out leaves the project unwritable to calls run without asking.

use crate::attacker::make_in;
use crate::harness::Ai;
use crate::launcher::require_sandbox;

#[test]
fn nothing_direnv_runs_later_can_be_planted() {
    if !require_sandbox() {
        return;
    }
    let ai = Ai::new("http://127.0.0.1:9/v1")
        .file(
            ".envrc",
            "source_env_if_exists .envrc.local\nsource_env scripts/dev-env.sh\n\
             PATH_add bin\nexport PATH=\"$PWD/tools:$PATH\"\nlayout python\n",
        )
        .file("scripts/dev-env.sh", "export MODE=dev\n")
        .file("src/main.c", "int main(void) { return 0; }\n")
        .git_init();
    let plant = |file: &str| {
        format!("mkdir -p $$(dirname {file}) && echo 'echo planted' > {file} && chmod +x {file}")
    };
    let recipe = [
        "echo 'echo planted' >> scripts/dev-env.sh".to_string(),
        "echo 'echo planted' > .envrc.local".to_string(),
        plant("bin/ls"),
        plant("tools/git"),
        plant("bin/dev-server"),
        plant(".direnv/python-3.11/bin/python"),
    ];
    let recipe: Vec<&str> = recipe.iter().map(String::as_str).collect();
    let (ai, stderr) = make_in(ai, &recipe);
    let work = ai.work();
    assert_eq!(
        std::fs::read_to_string(work.join("scripts/dev-env.sh")).unwrap(),
        "export MODE=dev\n",
        "{stderr}"
    );
    for planted in [".envrc.local", "bin/ls", "tools/git", ".direnv"] {
        assert!(
            work.join(planted).symlink_metadata().is_err(),
            "{planted} stayed where direnv finds it: {stderr}"
        );
    }
    // A program of the project's own, under a name of its own, is the project's business.
    assert!(work.join("bin/dev-server").exists(), "{stderr}");
}

#[test]
fn what_other_spellings_and_variables_of_an_envrc_load_cannot_be_planted() {
    if !require_sandbox() {
        return;
    }
    let ai = Ai::new("http://127.0.0.1:9/v1")
        .file(
            ".envrc",
            "dir=d10; PATH_add \"$dir\"\nPATH=\"$(expand_path d2):$PATH\"\n\
             export GIT_CONFIG_GLOBAL=$PWD/.gitconfig.local\nexport PYTHONPATH=$PWD/py\n\
             source .venv/bin/activate\n",
        )
        .file(".gitconfig.local", "[user]\n\tname = u\n")
        .file("py/app.py", "")
        .file(".venv/bin/activate", "VIRTUAL_ENV=.venv\n")
        .file(".venv/lib/python3.11/site-packages/ok.py", "")
        .file("src/main.c", "int main(void) { return 0; }\n")
        .git_init();
    let plant = |file: &str| {
        format!("mkdir -p $$(dirname {file}) && echo 'echo planted' > {file} && chmod +x {file}")
    };
    let recipe = [
        plant("d10/ls"),
        plant("d2/git"),
        plant(".venv/bin/git"),
        plant(".venv/lib/python3.11/site-packages/zz.pth"),
        plant("py/sitecustomize.py"),
        "echo '[core] fsmonitor = evil' >> .gitconfig.local".to_string(),
        "echo 'echo planted' >> .venv/bin/activate".to_string(),
    ];
    let recipe: Vec<&str> = recipe.iter().map(String::as_str).collect();
    let (ai, stderr) = make_in(ai, &recipe);
    let work = ai.work();
    for planted in [
        "d10/ls",
        "d2/git",
        ".venv/bin/git",
        ".venv/lib/python3.11/site-packages/zz.pth",
        "py/sitecustomize.py",
    ] {
        assert!(
            work.join(planted).symlink_metadata().is_err(),
            "{planted} stayed where the user's shell finds it: {stderr}"
        );
    }
    for (file, was) in [
        (".gitconfig.local", "[user]\n\tname = u\n"),
        (".venv/bin/activate", "VIRTUAL_ENV=.venv\n"),
    ] {
        assert_eq!(
            std::fs::read_to_string(work.join(file)).unwrap(),
            was,
            "{file}"
        );
    }
}

#[test]
fn a_path_entry_of_the_envrc_ai_cannot_work_out_leaves_the_project_unwritable() {
    if !require_sandbox() {
        return;
    }
    let ai = Ai::new("http://127.0.0.1:9/v1")
        .file(".envrc", "PATH_add \"$(find . -name tools)\"\n")
        .file("src/main.c", "int main(void) { return 0; }\n")
        .git_init();
    let (ai, stderr) = make_in(ai, &["touch made.txt"]);
    assert!(!ai.work().join("made.txt").exists(), "{stderr}");
}
