//! Fetches: the network goes only with a fetch that runs no project code, and no project code
//! runs while a shared package cache is writable.

use super::tests::world;

/// A line whose code-free fetch could not be made kept the network and the caches for
/// its build scripts and lifecycle scripts. The network goes only with a fetch run first, to
/// commands that run no project code themselves, or to pip's lines.
#[test]
fn the_network_goes_only_with_a_fetch_that_runs_no_project_code() {
    let world = world();
    let needs = |line: &str| world.policy.command(line).fetch;
    for line in [
        "cd . && cargo build",
        "pushd . && cargo build",
        "cd src && cargo test",
        "cargo build --manifest-path Cargo.toml",
        "cargo -C . build",
        "cargo -Zunstable-options build",
        "cargo nextest run",
        "cargo +nightly build",
        "cargo install ripgrep",
        "cargo build && npm install",
        "npm install && npm ci",
        "npm ci && pip install x",
        "cargo search x && cargo build",
        "cd . && npm install",
        "npm ci --ignore-scripts=false",
        "npm ci --no-ignore-scripts",
        "npm install --userconfig=.evilrc",
        "npm install --script-shell=./x.sh",
        "npm install --foreground-scripts -- -x",
        "npm audit fix",
        "npm install --prefix=sub",
        "npm --prefix=sub install",
        "pnpm install --dir=sub",
        "yarn install --cwd=sub",
        "npm install -w sub",
    ] {
        let got = needs(line);
        assert!(!got.network && got.prefetch.is_empty(), "{line}: {got:?}");
    }
    for (line, prefetch) in [
        ("cargo build", "cargo fetch"),
        ("cargo tree && cargo build --release", "cargo fetch"),
        ("npm ci --", "npm --ignore-scripts ci --"),
        ("npm install -D x", "npm --ignore-scripts install -D x"),
        ("npm update", "npm --ignore-scripts update"),
        ("yarn", "yarn --ignore-scripts"),
        // pnpm's hooks file runs whatever `--ignore-scripts` says.
        (
            "pnpm install",
            "pnpm --ignore-scripts --ignore-pnpmfile install",
        ),
        ("go test ./...", "go mod download"),
    ] {
        let got = needs(line);
        assert!(got.network, "{line}: {got:?}");
        assert_eq!(got.prefetch.join(" "), prefetch, "{line}");
    }
    for line in [
        "cargo search serde",
        "npm view react",
        "pip install x",
        "go mod download",
    ] {
        let got = needs(line);
        assert!(got.network && got.prefetch.is_empty(), "{line}: {got:?}");
    }
}

/// `go test` (the project's own tests) ran with the network and the Go caches writable,
/// and `pip install -e .` (its setup.py) with pip's and uv's: code written there runs in every
/// later build, outside the sandbox. Per manager: what may write a shared cache runs no project
/// code (a fetch run first, or a command that runs none itself); pip's lines keep the network
/// (an accepted gap) but never a cache.
#[test]
fn no_project_code_runs_while_a_package_cache_is_writable() {
    let world = world();
    let needs = |line: &str| world.policy.command(line).fetch;
    // (line, network for some part of it, caches writable to some part, the fetch run first)
    for (line, network, caches, prefetch) in [
        ("cargo build", true, true, "cargo fetch"),
        ("cargo test --release", true, true, "cargo fetch"),
        ("cargo search serde", true, true, ""),
        ("cd . && cargo build", false, false, ""),
        ("npm install", true, true, "npm --ignore-scripts install"),
        ("npm test", false, false, ""),
        ("npm view react", true, true, ""),
        ("go test ./...", true, true, "go mod download"),
        ("go vet ./...", true, true, "go mod download"),
        ("go build ./...", true, true, "go mod download"),
        ("go run .", true, true, "go mod download"),
        ("go generate ./...", true, true, "go mod download"),
        ("go mod download", true, true, ""),
        ("go mod tidy", true, true, ""),
        ("go get example.com/x@v1.2.3", true, true, ""),
        ("go run example.com/x@latest", false, false, ""),
        ("go install example.com/x@latest", false, false, ""),
        ("go -C sub test ./...", false, false, ""),
        ("go test -modfile=other.mod ./...", false, false, ""),
        ("cd sub && go test ./...", false, false, ""),
        ("go version", false, false, ""),
        ("pip install -e .", true, false, ""),
        ("pip3 install -r requirements.txt", true, false, ""),
        ("python3 -m pip install .", true, false, ""),
        ("uv sync", true, false, ""),
        ("uv pip install -e .", true, false, ""),
        ("poetry install", true, false, ""),
    ] {
        let got = needs(line);
        assert_eq!(
            (got.network, got.caches, got.prefetch.join(" ").as_str()),
            (network, caches, prefetch),
            "{line}"
        );
        // Caches writable with no fetch run first: only to a command that runs no code.
        let code_free = ["cargo search", "npm view", "go mod", "go get"];
        if got.caches && got.prefetch.is_empty() {
            assert!(code_free.iter().any(|c| line.starts_with(c)), "{line}");
        }
    }
}
