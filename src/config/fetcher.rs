//! The package managers whose dependency fetches may use the network, and where each keeps
//! its caches. The policy says which command lines fetch (from its parse of them); the sandbox
//! grants those the network and write access to these caches, nothing else of the home.

use std::path::{Path, PathBuf};

/// What a command line needs of the package managers it runs, as the policy read it: their
/// caches, and the network when one of them fetches from its own index and nothing else on the
/// line would share it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct FetchNeeds {
    pub(crate) managers: Vec<Fetcher>,
    pub(crate) network: bool,
    /// A fetch that runs no project code (`cargo fetch`, `npm install --ignore-scripts`, `go mod
    /// download`): when set, it alone gets the network and the caches, and the command then runs
    /// offline, so a build script, an install script or a test never shares the network.
    pub(crate) prefetch: Vec<String>,
    /// The managers' caches are writable: only to what runs no project code (the fetch run
    /// first, or a command that runs none itself). A cache a build or a test could write would
    /// hold code that later builds, outside the sandbox, trust; pip's lines keep the network
    /// but never a cache.
    pub(crate) caches: bool,
}

/// A package manager whose fetches the sandbox lets through.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Fetcher {
    Cargo,
    Node,
    Python,
    Go,
}

impl Fetcher {
    pub(crate) const ALL: [Fetcher; 4] =
        [Fetcher::Cargo, Fetcher::Node, Fetcher::Python, Fetcher::Go];

    pub(crate) fn name(self) -> &'static str {
        match self {
            Fetcher::Cargo => "cargo",
            Fetcher::Node => "npm",
            Fetcher::Python => "pip",
            Fetcher::Go => "go",
        }
    }

    /// The caches this manager writes its downloads to (created before the command runs);
    /// `dir` gives the directory a variable of the manager's names (one of config's `CACHE_VARS`).
    pub(crate) fn caches(self, home: &Path, dir: &dyn Fn(&str) -> Option<PathBuf>) -> Vec<PathBuf> {
        let from_env = |name: &str, default: PathBuf| dir(name).unwrap_or(default);
        match self {
            Fetcher::Cargo => {
                let cargo = from_env("CARGO_HOME", home.join(".cargo"));
                vec![cargo.join("registry"), cargo.join("git")]
            }
            Fetcher::Node => vec![
                from_env("npm_config_cache", home.join(".npm")),
                home.join(".cache/yarn"),
                // The store only: pnpm's home holds programs that are on PATH.
                home.join(".local/share/pnpm/store"),
            ],
            Fetcher::Python => vec![home.join(".cache/pip"), home.join(".cache/uv")],
            // The module cache only: the build cache (`GOCACHE`) is never shared, each call
            // gets one of its own (go trusts what it finds there by its action ID).
            Fetcher::Go => vec![from_env("GOMODCACHE", home.join("go/pkg/mod"))],
        }
    }

    /// Single files directly in a manager's home that it locks while fetching.
    pub(crate) fn lock_files(
        self,
        home: &Path,
        dir: &dyn Fn(&str) -> Option<PathBuf>,
    ) -> Vec<PathBuf> {
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

#[cfg(test)]
mod tests {
    use super::*;

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
                super::super::CACHE_VARS.contains(&name.as_str()),
                "{name} is missing from config's CACHE_VARS"
            );
        }
    }

    #[test]
    fn a_cache_variable_moves_that_cache() {
        let env = super::super::Env::from_pairs([("CARGO_HOME", "/opt/cargo")]);
        let vars = super::super::ForeignVars::new(&env);
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
}
