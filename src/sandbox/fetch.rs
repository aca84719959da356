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
    pub const ALL: [Fetcher; 4] = [Fetcher::Cargo, Fetcher::Node, Fetcher::Python, Fetcher::Go];

    pub fn name(self) -> &'static str {
        match self {
            Fetcher::Cargo => "cargo",
            Fetcher::Node => "npm",
            Fetcher::Python => "pip",
            Fetcher::Go => "go",
        }
    }

    /// The caches this manager writes its downloads to (created before the command runs);
    /// `dir` gives the directory a variable of the manager's names (one of config's `CACHE_VARS`).
    pub fn caches(self, home: &Path, dir: &dyn Fn(&str) -> Option<PathBuf>) -> Vec<PathBuf> {
        let from_env = |name: &str, default: PathBuf| dir(name).unwrap_or(default);
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
    pub fn lock_files(self, home: &Path, dir: &dyn Fn(&str) -> Option<PathBuf>) -> Vec<PathBuf> {
        match self {
            Fetcher::Cargo => {
                let cargo = dir("CARGO_HOME").unwrap_or_else(|| home.join(".cargo"));
                [".package-cache", ".package-cache-mutate", ".global-cache"]
                    .iter()
                    .map(|name| cargo.join(name))
                    .collect()
            }
            _ => Vec::new(),
        }
    }
}

/// The words of each simple command of a command line, after `VAR=value` assignments (split on
/// the shell's separators; quoting is not needed to find a program name).
fn simple_commands(command: &str) -> Vec<Vec<&str>> {
    command
        .split(['\n', ';', '&', '|', '(', ')'])
        .map(|part| {
            part.split_whitespace()
                .skip_while(|w| w.contains('=') && !w.starts_with('-'))
                .collect::<Vec<&str>>()
        })
        .filter(|words| !words.is_empty())
        .collect()
}

/// The package manager a simple command runs, and whether it may fetch (an npm family command
/// only when it installs: `npm test` and `npm run` get no network).
fn fetcher_of(words: &[&str]) -> Option<(Fetcher, bool)> {
    let program = words.first()?;
    let name = program.rsplit('/').next().unwrap_or(program);
    let sub = words.get(1).copied().unwrap_or("");
    match name {
        "cargo" => Some((Fetcher::Cargo, true)),
        "npm" | "pnpm" | "yarn" => {
            const INSTALLS: &[&str] = &[
                "install", "i", "ci", "add", "update", "up", "upgrade", "dedupe", "exec", "x",
                "dlx",
            ];
            let installs = INSTALLS.contains(&sub) || (name == "yarn" && sub.is_empty());
            Some((Fetcher::Node, installs))
        }
        "pip" | "pip3" | "uv" | "poetry" => Some((Fetcher::Python, true)),
        "go" => Some((Fetcher::Go, true)),
        n if n.starts_with("python") => {
            (words.get(1..3) == Some(&["-m", "pip"][..])).then_some((Fetcher::Python, true))
        }
        _ => None,
    }
}

/// The package managers a command line runs, judged on the first word of each simple command,
/// e.g. `cargo build`, `npm install && npm test`, `python -m pip install -r requirements.txt`.
pub fn fetchers(command: &str) -> Vec<Fetcher> {
    let mut found = Vec::new();
    for words in simple_commands(command) {
        if let Some((f, _)) = fetcher_of(&words).filter(|(f, _)| !found.contains(f)) {
            found.push(f);
        }
    }
    found
}

/// Whether a package manager in the command line may fetch dependencies (and so gets the network).
pub fn fetches(command: &str) -> bool {
    simple_commands(command)
        .iter()
        .any(|words| fetcher_of(words).is_some_and(|(_, net)| net))
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

    #[test]
    fn every_variable_a_manager_names_is_one_config_snapshots() {
        let asked = std::cell::RefCell::new(Vec::new());
        let dir = |name: &str| {
            asked.borrow_mut().push(name.to_string());
            None
        };
        for fetcher in Fetcher::ALL {
            fetcher.caches(Path::new("/home/u"), &dir);
            fetcher.lock_files(Path::new("/home/u"), &dir);
        }
        let asked = asked.into_inner();
        assert!(asked.iter().any(|name| name == "GOMODCACHE"), "{asked:?}");
        for name in &asked {
            assert!(
                crate::config::CACHE_VARS.contains(&name.as_str()),
                "{name} is missing from config's CACHE_VARS"
            );
        }
    }

    #[test]
    fn a_cache_variable_moves_that_cache() {
        let env = crate::config::Env::from_pairs([("CARGO_HOME", "/opt/cargo")]);
        let vars = crate::config::ForeignVars::new(&env);
        let dir = |name: &str| vars.cache_dir(name).map(Path::to_path_buf);
        let home = Path::new("/home/u");
        assert_eq!(
            Fetcher::Cargo.caches(home, &dir),
            [
                PathBuf::from("/opt/cargo/registry"),
                PathBuf::from("/opt/cargo/git")
            ]
        );
        assert!(
            Fetcher::Cargo
                .lock_files(home, &dir)
                .iter()
                .all(|p| p.starts_with("/opt/cargo"))
        );
        assert!(
            Fetcher::Go
                .caches(home, &dir)
                .iter()
                .all(|p| p.starts_with(home))
        );
    }

    #[test]
    fn npm_gets_the_network_only_to_install() {
        for command in [
            "npm install",
            "npm ci && npm test",
            "yarn",
            "pnpm add x",
            "cargo test",
        ] {
            assert!(fetches(command), "{command}");
        }
        for command in [
            "npm test",
            "npm run build",
            "yarn test",
            "make",
            "python3 -m pytest",
        ] {
            assert!(!fetches(command), "{command}");
        }
    }
}
