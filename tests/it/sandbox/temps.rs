//! Rule: a temp directory that holds the project (a clone in /tmp, a test's project) is hidden
//! from calls but for the project and the session's own directory, which is their TMPDIR.
//! Other entries of that temp (another project, another home, another session's files) can be
//! neither read nor written (sandbox round 24: each entry of /tmp was writable, and a call
//! planted an fsmonitor in another project's `.git/config` that the user's next `git status`
//! ran).

use crate::attacker::{make_in_with_server, sent};
use crate::harness::Ai;
use crate::launcher::require_sandbox;

#[test]
fn a_temp_that_holds_the_project_is_hidden_but_for_it() {
    if !require_sandbox() {
        return;
    }
    let ai = Ai::new("http://127.0.0.1:9/v1")
        .file("src/main.c", "int main(void) { return 0; }\n")
        .git_init();
    // Temp itself on PATH, and spelt through `..` (rounds 25 and 26: that made all of it
    // readable).
    let path = format!(
        "{}:{}/..:{}",
        std::env::temp_dir().display(),
        ai.root_dir().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let ai = ai.env("PATH", &path);
    assert!(
        ai.work().starts_with(std::env::temp_dir()),
        "the project lies in temp"
    );
    // Another project beside this one, and another entry of temp itself.
    let beside = ai.root_dir().join("other");
    std::fs::create_dir_all(beside.join(".git")).unwrap();
    std::fs::write(beside.join(".git/config"), "[core]\n").unwrap();
    std::fs::write(beside.join("notes.txt"), "SECRET:beside\n").unwrap();
    let elsewhere = tempfile::tempdir().unwrap();
    let victim = elsewhere.path().join("victim.txt");
    std::fs::write(&victim, "SECRET:elsewhere\n").unwrap();
    let (beside_path, victim_path) = (beside.display(), victim.display());
    let recipe = [
        format!("cat {beside_path}/notes.txt {victim_path}"),
        format!("echo '[core] fsmonitor = evil' >> {beside_path}/.git/config"),
        format!("echo planted >> {victim_path}"),
        format!("touch {}/planted", ai.root_dir().display()),
        // (`$$`: make's own `$`.)
        "echo temp-ok > \"$$TMPDIR/t\" && cat \"$$TMPDIR/t\"".to_string(),
        "cat src/main.c".to_string(),
    ];
    let recipe: Vec<&str> = recipe.iter().map(String::as_str).collect();
    let (ai, stderr, server) = make_in_with_server(ai, &recipe);
    let sent = sent(&server);
    assert!(
        sent.contains("int main"),
        "the project stays readable: {stderr}"
    );
    assert!(sent.contains("temp-ok"), "TMPDIR is writable: {stderr}");
    assert!(!sent.contains("SECRET:"), "read beside the project: {sent}");
    assert_eq!(
        std::fs::read_to_string(beside.join(".git/config")).unwrap(),
        "[core]\n",
        "wrote another project's git config"
    );
    assert_eq!(
        std::fs::read_to_string(&victim).unwrap(),
        "SECRET:elsewhere\n",
        "wrote another entry of temp"
    );
    assert!(
        !ai.root_dir().join("planted").exists(),
        "wrote beside the project"
    );
}
