//! Package managers' dependency fetches: the one thing run inside the sandbox that needs the
//! network. A command line that runs cargo, npm/pnpm/yarn, pip/uv or go gets the network and
//! write access to that manager's own caches, and nothing else of the home directory.

use std::path::{Path, PathBuf};

/// A package manager whose fetches the sandbox lets through.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fetcher {
    Cargo,
    Node,
    Python,
    Go,
}

impl Fetcher {
    pub fn name(self) -> &'static str {
        match self {
            Fetcher::Cargo => "cargo",
            Fetcher::Node => "npm",
            Fetcher::Python => "pip",
            Fetcher::Go => "go",
        }
    }

    /// The caches this manager writes its downloads to (created before the command runs).
    pub fn caches(self, home: &Path, env: &dyn Fn(&str) -> Option<String>) -> Vec<PathBuf> {
        let from_env = |name: &str, default: PathBuf| env(name).map_or(default, PathBuf::from);
        match self {
            Fetcher::Cargo => {
                let cargo = from_env("CARGO_HOME", home.join(".cargo"));
                vec![cargo.join("registry"), cargo.join("git")]
            }
            Fetcher::Node => vec![
                from_env("npm_config_cache", home.join(".npm")),
                home.join(".cache/yarn"),
                home.join(".local/share/pnpm"),
            ],
            Fetcher::Python => vec![home.join(".cache/pip"), home.join(".cache/uv")],
            Fetcher::Go => vec![
                from_env("GOMODCACHE", home.join("go/pkg/mod")),
                from_env("GOCACHE", home.join(".cache/go-build")),
            ],
        }
    }

    /// Single files directly in a manager's home that it locks while fetching.
    pub fn lock_files(self, home: &Path, env: &dyn Fn(&str) -> Option<String>) -> Vec<PathBuf> {
        match self {
            Fetcher::Cargo => {
                let cargo = env("CARGO_HOME").map_or(home.join(".cargo"), PathBuf::from);
                [".package-cache", ".package-cache-mutate", ".global-cache"]
                    .iter()
                    .map(|name| cargo.join(name))
                    .collect()
            }
            _ => Vec::new(),
        }
    }
}

/// The package managers a command line runs, judged on the first word of each simple command
/// (after `VAR=value` assignments), e.g. `cargo build`, `npm install && npm test`,
/// `python -m pip install -r requirements.txt`.
pub fn fetchers(command: &str) -> Vec<Fetcher> {
    let mut found = Vec::new();
    for part in command.split(['\n', ';', '&', '|', '(', ')']) {
        let mut words = part
            .split_whitespace()
            .skip_while(|w| w.contains('=') && !w.starts_with('-'));
        let Some(program) = words.next() else {
            continue;
        };
        let name = program.rsplit('/').next().unwrap_or(program);
        let fetcher = match name {
            "cargo" => Some(Fetcher::Cargo),
            "npm" | "pnpm" | "yarn" => Some(Fetcher::Node),
            "pip" | "pip3" | "uv" | "poetry" => Some(Fetcher::Python),
            "go" => Some(Fetcher::Go),
            n if n.starts_with("python") => {
                let rest: Vec<&str> = words.take(2).collect();
                (rest == ["-m", "pip"]).then_some(Fetcher::Python)
            }
            _ => None,
        };
        if let Some(f) = fetcher.filter(|f| !found.contains(f)) {
            found.push(f);
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn package_managers_are_found_in_each_simple_command() {
        let table: &[(&str, &[Fetcher])] = &[
            ("cargo build", &[Fetcher::Cargo]),
            ("RUST_LOG=1 cargo test --lib", &[Fetcher::Cargo]),
            ("npm install && npm test", &[Fetcher::Node]),
            ("python3 -m pip install -e .", &[Fetcher::Python]),
            ("python3 -m pytest", &[]),
            (
                "go build ./... ; cargo check",
                &[Fetcher::Go, Fetcher::Cargo],
            ),
            ("make", &[]),
            ("python3 ./attack.py", &[]),
            ("echo cargo", &[]),
        ];
        for (command, expected) in table {
            assert_eq!(fetchers(command), *expected, "{command}");
        }
    }
}
