//! Rule: no project code runs while a package cache is writable (round 6). Go trusts its module
//! cache and its build cache once written, pip and uv the wheels in theirs: a test or a
//! setup.py that wrote one would run its code in every later build, outside the sandbox. Go
//! is not installed here: a stand-in `go` on PATH runs the project's code as `go test` does.

use crate::harness::Ai;
use crate::launcher::require_sandbox;
use crate::sandbox_fetch::attack_in;

/// The stand-in: says how it was run (its verb and go's variables); `go mod …` fetches into
/// the module cache, anything else runs the project's code (a test, a generator) and then
/// writes the build cache it was given.
const FAKE_GO: &str = "#!/bin/sh\n\
    echo \"$1 GOCACHE=$GOCACHE GOPROXY=$GOPROXY GOFLAGS=$GOFLAGS GOTOOLCHAIN=$GOTOOLCHAIN\" \
    >> WORK/calls\n\
    case \"$1\" in\n\
    mod) touch \"$HOME/go/pkg/mod/fetched\" && echo fetched >> WORK/calls ;;\n\
    *) sh WORK/evil.sh go; mkdir -p \"$GOCACHE/00\" && echo built >> WORK/calls ;;\n\
    esac\n";

/// The project with the stand-in first on PATH, from a directory beside the project (one
/// inside would leave no writable project): a PATH directory in a temp that holds the project
/// stays readable while the rest of that temp is hidden.
fn with_fake_go(ai: Ai) -> Ai {
    let bin = ai.work().with_file_name("go-bin");
    std::fs::create_dir_all(&bin).unwrap();
    std::fs::rename(ai.work().join("bin/go"), bin.join("go")).unwrap();
    std::fs::remove_dir(ai.work().join("bin")).unwrap();
    crate::sandbox_fetch::with_programs_first(ai, &bin, &["go"])
}

/// Go fetches whatever host a module path names (through the module proxy too), so a go.mod
/// a call wrote could carry a secret out in a path: Go's lines never fetch, and run offline.
#[test]
fn go_lines_run_offline_with_no_fetch_and_no_cache_a_later_build_trusts() {
    if !require_sandbox() {
        return;
    }
    for command in ["go test ./...", "go vet ./...", "go build ./..."] {
        let mut home = String::new();
        let (got, calls) = attack_in(&[command], "go", &[("bin/go", FAKE_GO)], |ai| {
            home = ai.home().display().to_string();
            with_fake_go(ai)
        });
        assert!(got.is_empty(), "{command}: {got:?}\n{calls}");
        let lines: Vec<&str> = calls.lines().collect();
        assert_eq!(lines.len(), 2, "{command}: {calls}");
        // The command: no fetch first, offline, and a build cache of its own that it can write.
        let verb = command.split(' ').nth(1).unwrap_or_default();
        assert!(lines[0].starts_with(&format!("{verb} ")), "{calls}");
        assert!(lines[0].contains("GOPROXY=off"), "{calls}");
        assert!(lines[0].contains("GOTOOLCHAIN=local"), "{calls}");
        assert_eq!(lines[1], "built", "{calls}");
        let cache = lines[0]
            .split("GOCACHE=")
            .nth(1)
            .and_then(|c| c.split(' ').next())
            .unwrap_or_default();
        assert!(
            cache.starts_with('/') && !cache.starts_with(&home),
            "{calls}"
        );
        // The call's own: gone with it.
        assert!(!std::path::Path::new(cache).exists(), "{cache} was left");
    }
}

/// `setup.py` runs the attacker's script, then stops (nothing to install).
const SETUP_PY: &str = "import subprocess\n\
    subprocess.run(['sh', 'WORK/evil.sh', 'pip'])\n\
    raise SystemExit('done')\n";

/// The interpreter itself (pyenv's shims need the user's home), first on PATH.
fn with_python(ai: Ai) -> Ai {
    let found = std::process::Command::new("python3")
        .args([
            "-c",
            "import sys, os; print(os.path.dirname(sys.executable))",
        ])
        .output();
    let dir = found.map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string());
    let path = format!(
        "{}:{}",
        dir.unwrap_or_default(),
        std::env::var("PATH").unwrap_or_default()
    );
    ai.env("PATH", &path)
}

/// What a pip line's setup.py got that it must not: a cache (the network is the accepted gap).
fn pip_attack(command: &str) -> Vec<String> {
    let (got, _) = attack_in(&[command], "pip", &[("setup.py", SETUP_PY)], with_python);
    got.into_iter()
        .filter(|g| g.starts_with("wrote") || g.contains("never ran"))
        .collect()
}

#[test]
fn a_setup_py_approved_into_the_sandbox_writes_no_cache() {
    if !require_sandbox() || !has_pip() {
        return;
    }
    // No build isolation: nothing to fetch, the setup.py runs at once.
    for command in [
        "python3 -m pip install --no-build-isolation --no-deps -e .",
        "python3 -m pip install --no-build-isolation --no-deps .",
    ] {
        let got = pip_attack(command);
        assert!(got.is_empty(), "{command}: {got:?}");
    }
}

#[test]
#[ignore = "fetches setuptools from PyPI: run with --ignored where the network is allowed"]
fn pip_install_editable_keeps_the_network_but_writes_no_cache() {
    if !require_sandbox() || !has_pip() {
        return;
    }
    for command in ["pip install -e .", "python3 -m pip install ."] {
        let got = pip_attack(command);
        assert!(got.is_empty(), "{command}: {got:?}");
    }
}

fn has_pip() -> bool {
    let pip = std::process::Command::new("python3")
        .args(["-m", "pip", "--version"])
        .output();
    let found = pip.is_ok_and(|o| o.status.success());
    if !found {
        #[allow(clippy::print_stderr)]
        {
            eprintln!("SKIPPED: no python3 with pip");
        }
    }
    found
}
