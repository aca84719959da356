//! Rule: a secret in the project is hidden from project code by what it is, however it is
//! spelled: copies and backups of `.env`, keys of every format, credential files of every tool,
//! what lies in a secret directory, a token inside git's configuration, and the user's runtime
//! directory. Project code the policy allows (`make`) plays the attacker with no terminal.

use std::path::Path;

use crate::attacker::{make_in_with_server, sent};
use crate::harness::Ai;
use crate::launcher::require_sandbox;

/// Secret files by category, several spellings each (each file holds `SECRET:<name>`).
const SECRET_FILES: &[(&str, &[&str])] = &[
    (
        "dotenv and its copies",
        &[
            ".env~",
            "#.env#",
            ".env2",
            ".env.swp",
            ".env.production.bak",
            "config/.env.staging",
            ".envs/.production/.django",
            ".env.d/prod",
        ],
    ),
    (
        "keys",
        &[
            "id_rsa.bak",
            "id_ed25519.old",
            "deploy_rsa",
            "keys/github_ed25519",
            "key.ppk",
            "AuthKey_ABC123.p8",
            "private.asc",
            "secring.gpg",
            "deploy_key",
            "ci/private_key",
            "id_rsa.txt",
            "keys.txt",
            "..netrc.swp",
        ],
    ),
    (
        "credential files",
        &[
            "credentials",
            ".boto",
            ".s3cfg",
            "gcp-key.json",
            "serviceAccountKey.json",
            "client_secret_1.apps.googleusercontent.com.json",
            "token.json",
            ".dockercfg",
            ".vault-token",
            "_netrc",
            ".git-credentials.bak",
            ".htpasswd",
            "wp-config.php",
            "android/key.properties",
            "auth.json",
            "credentials.csv",
            "rootkey.csv",
            "admin_accessKeys.csv",
            "sa.json",
            "env.production",
        ],
    ),
    (
        "data in a directory named for secrets, tokens by name (round 24)",
        &[
            "secrets/api.txt",
            "secrets/prod.json",
            "deploy/credentials/gcp.json",
            "github_token",
            "npm-token.txt",
            ".docker-config.json",
        ],
    ),
    (
        "home secrets copied into the project",
        &[
            ".aws/credentials",
            ".aws/config",
            ".docker/config.json",
            ".kube/config",
            "backup/.ssh/deploy",
            ".config/gcloud/application_default_credentials.json",
        ],
    ),
];

#[test]
fn secret_files_are_hidden_by_every_spelling_of_their_category() {
    if !require_sandbox() {
        return;
    }
    let mut ai =
        Ai::new("http://127.0.0.1:9/v1").file("src/main.c", "int main(void) { return 0; }\n");
    let mut names = Vec::new();
    for (_, files) in SECRET_FILES {
        for name in *files {
            ai = ai.file(name, &format!("SECRET:{name}\n"));
            names.push(*name);
        }
    }
    // A yarn config with a registry token is hidden; one without stays (yarn needs `yarnPath`).
    ai = ai
        .file(
            ".yarnrc.yml",
            "yarnPath: .yarn/releases/yarn.cjs\nnpmAuthToken: SECRET:yarn\n",
        )
        .file("web/.yarnrc.yml", "yarnPath: .yarn/releases/yarn.cjs\n")
        // Code in a directory named for secrets is what the build compiles.
        .file("src/secrets/vault.c", "int vault_code;\n");
    let reads = "find . -path ./.git -prune -o -type f -print0 | xargs -0 cat";
    let (_, stderr, server) = make_in_with_server(ai, &[reads]);
    let sent = sent(&server);
    assert!(
        sent.contains("int main"),
        "the project stays readable: {stderr}"
    );
    assert!(
        sent.contains("vault_code"),
        "code in a secrets directory stays readable"
    );
    assert!(
        sent.contains("yarnPath"),
        "a yarn config with no token stays readable"
    );
    for (category, files) in SECRET_FILES {
        for name in *files {
            assert!(
                !sent.contains(&format!("SECRET:{name}")),
                "{category}: {name} was read"
            );
        }
    }
    assert!(
        !sent.contains("SECRET:yarn"),
        "a yarn registry token was read"
    );
}

fn git(dir: &Path, args: &[&str]) {
    let status = std::process::Command::new("git")
        .args(["-c", "user.name=t", "-c", "user.email=t@t"])
        .args(args)
        .current_dir(dir)
        .status()
        .expect("git runs");
    assert!(status.success(), "git {args:?}");
}

#[test]
fn tokens_in_git_configuration_are_scrubbed_and_git_still_works() {
    if !require_sandbox() {
        return;
    }
    let ai = Ai::new("http://127.0.0.1:9/v1").file("README.md", "hello\n");
    let project = ai.work();
    git(&project, &["init", "-q"]);
    git(&project, &["add", "README.md"]);
    git(&project, &["commit", "-qm", "init"]);
    let remote = "https://x-access-token:SECRET-URL-TOKEN@github.com/o/r.git";
    git(&project, &["remote", "add", "origin", remote]);
    git(
        &project,
        &[
            "remote",
            "set-url",
            "--push",
            "origin",
            "https://SECRET-PUSH@gitlab.com/o/r",
        ],
    );
    git(
        &project,
        &[
            "config",
            "http.https://github.com/.extraheader",
            "AUTHORIZATION: basic SECRET-HEADER",
        ],
    );
    git(
        &project,
        &[
            "config",
            "url.https://SECRET-REWRITE:x@github.com/.insteadOf",
            "https://github.com/",
        ],
    );
    // Other spellings: a submodule's config (not checked out), a URL split over two lines, a
    // setting on its section's line, a `git+https` URL.
    let module = project.join(".git/modules/dep");
    std::fs::create_dir_all(&module).unwrap();
    std::fs::write(module.join("HEAD"), "ref: refs/heads/main\n").unwrap();
    std::fs::write(
        module.join("config"),
        "[remote \"origin\"]\n\turl = https://SECRET-MODULE@github.com/o/dep\n",
    )
    .unwrap();
    let mut config = std::fs::read_to_string(project.join(".git/config")).unwrap();
    config.push_str(
        "[remote \"split\"]\n\turl = https://x-access-token:\\\nSECRET-SPLIT@github.com/o/s\n\
         [http] extraheader = AUTHORIZATION: basic SECRET-SAMELINE\n\
         [remote \"plus\"]\n\turl = git+https://SECRET-PLUS@github.com/o/p\n",
    );
    config.push_str(
        "[credential]\n\thelper = \"!f() { echo password=SECRET-INLINE; }; f\"\n\
         [credential \"https://x\"]\n\thelper = store --file=.git/my-store\n",
    );
    // A project file the config includes, with a credential of its own.
    config.push_str("[include]\n\tpath = ../.gitconfig.local\n");
    std::fs::write(
        project.join(".gitconfig.local"),
        "[http]\n\textraheader = AUTHORIZATION: bearer SECRET-INCLUDED\n",
    )
    .unwrap();
    std::fs::write(project.join(".git/config"), config).unwrap();
    // Secrets git keeps in its own directory: git-crypt's key, git-annex's credentials, a
    // credential store.
    for (path, text) in [
        (".git/git-crypt/keys/default", "SECRET-GITCRYPT"),
        (".git/annex/creds/remote1", "SECRET-ANNEX"),
        (".git/my-store", "https://u:SECRET-STORE@x"),
    ] {
        let file = project.join(path);
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(file, text).unwrap();
    }
    let recipe = [
        "git config --list",
        "cat .git/config .git/modules/dep/config .gitconfig.local",
        "cat .git/git-crypt/keys/default .git/annex/creds/remote1 .git/my-store",
        "git remote -v",
        "git status --short && echo STATUS-WORKS",
        "git log --oneline | head -1",
    ];
    let (ai, stderr, server) = make_in_with_server(ai, &recipe);
    let sent = sent(&server);
    for secret in [
        "SECRET-URL-TOKEN",
        "SECRET-PUSH",
        "SECRET-HEADER",
        "SECRET-REWRITE",
        "SECRET-INCLUDED",
    ] {
        assert!(
            !sent.contains(secret),
            "{secret} reached the model: {stderr}"
        );
    }
    assert!(
        sent.contains("github.com/o/r.git"),
        "the rest of the config stays: {stderr}"
    );
    assert!(sent.contains("STATUS-WORKS"), "git still works: {stderr}");
    assert!(sent.contains("init"), "the history stays readable");
    // The file itself is untouched, outside.
    let config = std::fs::read_to_string(ai.work().join(".git/config")).unwrap();
    assert!(config.contains("SECRET-URL-TOKEN") && config.contains("SECRET-HEADER"));
}

#[test]
fn the_users_runtime_directory_is_neither_named_nor_readable() {
    if !require_sandbox() {
        return;
    }
    let ai = Ai::new("http://127.0.0.1:9/v1").env("XDG_RUNTIME_DIR", "/run/user/4242");
    let recipe = [
        "echo \"RUNTIME=[$$XDG_RUNTIME_DIR]\"",
        "ls /run/user/*/ 2>&1 | head -3; echo LISTED",
    ];
    let (_, stderr, server) = make_in_with_server(ai, &recipe);
    let sent = sent(&server);
    assert!(
        sent.contains("RUNTIME=[]"),
        "the variable is not passed: {stderr}"
    );
    assert!(!sent.contains("/run/user/4242"), "{stderr}");
    if Path::new("/run/user").is_dir() {
        assert!(
            !sent.contains("bus") && !sent.contains("containers"),
            "the runtime directories' contents were listed: {stderr}"
        );
    }
}

#[test]
fn a_secret_file_made_since_the_run_began_is_masked_from_the_next_call() {
    if !require_sandbox() {
        return;
    }
    let ai = Ai::new("http://127.0.0.1:9/v1").file("README.md", "hello\n");
    // Names and text are computed, so that neither the policy nor the calls themselves see
    // them: only the sandbox stands between the second call and the file.
    let commands = [
        "python3 -c \"[open(n, chr(119)).write(chr(83)+str(6*7)) for n in (chr(46)+chr(101)+chr(110)+chr(118), chr(105)+chr(100)+chr(95)+chr(114)+chr(115)+chr(97))]\""
            .to_string(),
        "python3 -c \"import glob; [print(open(f).read()) for f in sorted(glob.glob(chr(42))+glob.glob(chr(46)+chr(42)))]\""
            .to_string(),
    ];
    let (_, run, server) = crate::attacker::calls_in_one_session(ai, &commands);
    let sent = sent(&server);
    assert!(
        sent.contains("hello"),
        "the project stays readable: {} {} {} {sent}",
        run.code,
        run.stdout,
        run.stderr
    );
    assert!(
        !sent.contains("S42"),
        "a secret made during the run was read: {sent}"
    );
}
